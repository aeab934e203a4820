// Package qwen is picket's knowledge of Qwen Code: its PreToolUse and
// PostToolUse hook events and the answer that blocks a call, what its
// tools touch, the hooks install writes into its settings.json, its
// folder trust, and the configuration of its own that no agent may write.
//
// Qwen Code runs the call when its hook exits 1, exits 2 or more without
// a reason, is missing, is killed, outlives its timeout or prints
// anything but a JSON answer. So the hook command install writes
// ([HookCommand]) runs picket under timeout(1), short of Qwen Code's own
// timeout, and turns every failure of picket into exit 2 with a reason on
// stderr, the answer Qwen Code reads as a block; picket's own block is
// exit 2 with its reason on stderr.
//
// # What it does not stop
//
// Qwen Code's hooks can rewrite a call's input only with an "allow",
// which picket never sends, and it has no setting that wraps its shell:
// so picket judges each shell command line (run_shell_command, monitor)
// by its words (package shellcmd), which is best effort: a program can
// build a path at run time. Qwen Code's own sandbox (--sandbox, the
// tools.sandbox setting) belongs beside picket; see docs/agents/qwen.md.
// MCP tools, web fetches, skills and sub-agents' own tools other than
// the file tools pass untouched, and --bare, disableAllHooks or a
// project hook in a folder marked DO_NOT_TRUST run without picket
// (Trust says which; picket doctor reports it).
package qwen

import (
	"time"

	"github.com/picketdev/picket/hook"
)

// Name is Qwen Code's name on picket's command line and in audit lines.
const Name = "qwen"

// HookTimeout is the hook timeout install writes (Qwen Code counts
// milliseconds; its default is 60 s). Qwen Code runs the call when a hook
// outlives it. It does as well when a PreToolUse hook has not answered
// within [BusTimeout], whatever this says, so what bounds picket is the
// hook command's timeout(1), well inside that.
const HookTimeout = 150 * time.Second

// BusTimeout is how long Qwen Code 0.15.10 waits for its PreToolUse
// hooks' answer before it runs the call anyway: its message bus's
// request timeout (60 s), which the hook timeout does not move
// (TestQwenProbeSlowHook: a hook that blocks after 70 s, with a timeout
// of 150 s, saw the call run).
const BusTimeout = 60 * time.Second

// WrapperTimeout is how long the hook command lets picket run before
// timeout(1) sends it TERM (a prompt on screen then denies; picket
// otherwise ignores it), and KillAfter how long after that it kills it:
// either blocks the call, and both together stay well short of
// [BusTimeout]. picket's own deadline (10 s) answers first unless a
// prompt is on screen: a prompt unanswered for WrapperTimeout blocks.
const (
	WrapperTimeout = 40 * time.Second
	KillAfter      = 5 * time.Second
)

// projectDirEnv is the variable Qwen Code sets, in its hooks'
// environment, to the session's directory (it sets GEMINI_PROJECT_DIR
// and CLAUDE_PROJECT_DIR to the same).
const projectDirEnv = "QWEN_PROJECT_DIR"

// Agent is Qwen Code, for the registry (hook/agents).
var Agent = hook.Agent{
	Name:          Name,
	Title:         "Qwen Code",
	ProjectDirEnv: projectDirEnv,
	Targets:       targets,
	FileTools:     fileTools,
	Decode:        decode,
	Hook:          &hook.CommandHook{Timeout: HookTimeout},
	Reply:         reply,
	Trust:         trust,
	Wired:         wired,
	Canary:        canary,
	ShellSandbox:  `qwen --sandbox (or "tools": {"sandbox": true} in settings.json: Docker or Podman)`,
	ConfigPaths:   configPaths,
	Wire:          wire,
	Unwire:        unwire,
	Install:       install,
	Uninstall:     uninstall,
	Fixtures:      "hook/qwen/testdata",
	InstallHelp:   installHelp,
}

// configPaths are what Qwen Code loads as code, settings or prompt text,
// or reads to decide whether it runs hooks: the user's settings.json
// (hooks, disableAllHooks, MCP servers, the sandbox), its trust store,
// the .env it loads into its environment (which may move QWEN_HOME), the
// user-wide QWEN.md, its skills, sub-agents, commands and extensions,
// and the project's whole .qwen; and ~/.env, from which Qwen Code takes
// QWEN_HOME when the environment has none, which would move all of the
// above where no deny is. The files hooks hang on are spelled
// literally, so the shell sandbox protects them while they do not exist;
// the rarer ones as globs. A QWEN_HOME other than ~/.qwen is not
// covered: see docs/agents/qwen.md.
var configPaths = []string{
	"~/.qwen/settings.json", "~/.qwen/trustedFolders.json", "~/.qwen/.en[v]",
	"~/.qwen/QWEN.m[d]", "~/.qwen/skill[s]", "~/.qwen/agent[s]", "~/.qwen/command[s]",
	"~/.qwen/extension[s]", "~/.qwen/output-style[s]",
	".qwen", "~/.en[v]",
}
