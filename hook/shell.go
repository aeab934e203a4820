package hook

import (
	"fmt"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/shellcmd"
)

// ShellLinesNote says what judging a shell command line by its words is
// worth, for picket show and picket doctor.
const ShellLinesNote = "shell lines: the shell commands of an agent picket cannot run in its sandbox (Codex, Qwen Code) are judged by their words before they run: best effort, since a program can build a path at run time; use the agent's own sandbox alongside (codex --sandbox workspace-write, qwen --sandbox)"

// LayerCommand is the layer of a block by fence's command or ssh section:
// a shell command line runs a command the policy refuses.
const LayerCommand decide.Layer = "command"

// Exec is the access a block by the command section names: running the
// command.
const Exec decide.Access = "exec"

// ShellLine is the target of a shell command line an agent runs as it is
// in dir (absolute): see [Target.Shell].
func ShellLine(line, dir string) []Target {
	return []Target{{Shell: true, Line: line, Path: dir, Size: -1}}
}

// ShellTargets replaces each shell command line among targets by what it
// touches, read with package shellcmd in the environment of loaded (its
// home, its workspace root): the paths as read, write or list targets
// (recursive for what reaches a whole tree, which the scan then walks as
// it walks a Grep's). blocked is set when a line runs a command that
// fence's command or ssh section refuses; err when a line cannot be
// analysed, which denies the call.
//
// The line is judged by its words, not by what its programs do: this
// layer is best effort (see package shellcmd, "What it does not stop").
func ShellTargets(loaded *decide.Loaded, targets []Target) (out []Target, blocked *decide.Decision, err error) {
	for _, t := range targets {
		if !t.Shell {
			out = append(out, t)
			continue
		}
		more, b, err := shellLine(loaded, t)
		if err != nil || b != nil {
			return nil, b, err
		}
		out = append(out, more...)
	}
	return out, nil, nil
}

// shellLine reads one shell command line.
func shellLine(loaded *decide.Loaded, t Target) ([]Target, *decide.Decision, error) {
	spec := loaded.Policy.Spec()
	res, err := shellcmd.Analyze(t.Line, shellcmd.Env{Cwd: t.Path, Root: spec.Root, Home: loaded.Env.Home})
	if err != nil {
		return nil, nil, err
	}
	cp, err := shellcmd.PolicyFromRaw(loaded.Raw)
	if err != nil {
		return nil, nil, fmt.Errorf("policy: %w", err)
	}
	if b := cp.Check(res.Commands); b != nil {
		d := commandBlock(b, spec.Origin)
		return nil, &d, nil
	}
	out := make([]Target, 0, len(res.Targets))
	for _, s := range res.Targets {
		// Links are followed (the cautious reading): the line may pass
		// rg -L, grep -R or find -L, which picket does not tell apart.
		out = append(out, Target{Access: s.Access, Path: s.Path, Size: -1, Recursive: s.Recursive})
	}
	return out, nil, nil
}

// commandBlock is the decision for a command the policy refuses.
func commandBlock(b *shellcmd.Blocked, origin string) decide.Decision {
	words := make([]string, len(b.Command))
	for i, w := range b.Command {
		words[i] = w
		if w == "" {
			words[i] = "?" // an argument picket could not expand
		}
	}
	d := decide.Decision{Access: Exec, Path: strings.Join(words, " "), Layer: LayerCommand,
		Rule: b.Field, Pattern: b.Rule, Source: origin, Reason: b.Reason}
	switch b.Field {
	case shellcmd.SourceDefault:
		d.Rule, d.Source = "command.useDefaults", "builtin:fence"
		d.Suggestion = "run another command; fence's default deny list holds this one (command.useDefaults: false in the policy turns the list off)"
	default:
		d.Suggestion = fmt.Sprintf("run another command; the policy's %s refuses this one", b.Field)
	}
	return d
}
