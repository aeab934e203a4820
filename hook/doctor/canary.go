package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
)

// CanaryPath is the file the canary call writes: the project's
// .git/hooks/pre-commit, a mandatory write deny under every policy.
func CanaryPath(root string) string { return filepath.Join(root, ".git", "hooks", "pre-commit") }

// Canary is the event that asks a's wiring to write path in a session at
// dir: a.Canary's, else the first of the shapes most hooks share that a
// reads as that write. Every event is held to it: Decode must read it as
// a call before the tool runs and Targets as a write of path, so a
// canary that meant something else can never pass for a block.
func Canary(a *hook.Agent, dir, path string) ([]byte, hook.Call, error) {
	if a.Canary != nil {
		ev := a.Canary(dir, path)
		call, err := writes(a, ev, dir, path)
		if err != nil {
			return nil, hook.Call{}, fmt.Errorf("bug: %s's canary event: %w", a.Title, err)
		}
		return ev, call, nil
	}
	for _, ev := range sharedShapes(a, dir, path) {
		if call, err := writes(a, ev, dir, path); err == nil {
			return ev, call, nil
		}
	}
	return nil, hook.Call{}, fmt.Errorf("%s's package gives no canary event (hook.Agent.Canary), and no hook event of the usual shape is one of its writes", a.Title)
}

// sharedShapes are the canary events doctor tries for an agent that gives
// none: Claude Code's shape (which Codex, Qwen Code and Copilot's
// Claude-compatible dialect copy) and Gemini CLI's event name, for each
// of the agent's file tools and the usual names of a file argument.
func sharedShapes(a *hook.Agent, dir, path string) [][]byte {
	var out [][]byte
	for _, event := range []string{"PreToolUse", "BeforeTool"} {
		for _, tool := range a.FileTools {
			for _, key := range []string{"file_path", "path", "absolute_path", "filePath"} {
				b, _ := json.Marshal(map[string]any{
					"session_id": SessionID, "cwd": dir, "hook_event_name": event,
					"tool_name": tool, "tool_input": map[string]string{key: path, "content": "picket doctor's canary\n"},
				})
				out = append(out, b)
			}
		}
	}
	return out
}

// writes checks that a reads ev as a call, before it runs, that writes
// path, and returns the call.
func writes(a *hook.Agent, ev []byte, dir, path string) (hook.Call, error) {
	e, err := a.Decode(ev)
	if err != nil {
		return hook.Call{}, err
	}
	if e.Kind != hook.BeforeTool {
		return hook.Call{}, errors.New("not a call before the tool runs")
	}
	call := e.Call
	if call.Dir() == "" {
		call.Root = dir
	}
	targets, err := a.Targets(call)
	if err != nil {
		return hook.Call{}, err
	}
	for _, t := range targets {
		p := t.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(call.Dir(), p)
		}
		if t.Access == decide.Write && filepath.Clean(p) == path {
			return call, nil
		}
	}
	return hook.Call{}, fmt.Errorf("not a write of %s", path)
}

// checkCanary hands the canary to w as the agent would, and says whether
// picket blocked it.
func checkCanary(ctx context.Context, o Options, a *hook.Agent, w hook.Wiring) Finding {
	root := hook.GitTop(o.Dir, o.Env)
	path := CanaryPath(root)
	problem := func(format string, args ...any) Finding {
		return Finding{Agent: a, Level: Problem, Text: fmt.Sprintf(format, args...),
			Fix: "run '" + reinstall(a, w) + "' with the picket you use, then 'picket doctor' again"}
	}
	ev, call, err := Canary(a, root, path)
	if err != nil {
		return Finding{Agent: a, Level: Problem, Text: "no canary: " + err.Error(), Fix: "report it: picket's package for " + a.Title + " is incomplete"}
	}
	if len(w.Run) == 0 {
		return problem("the wiring names no command to run")
	}
	timeout := defaultTimeout
	if a.Hook != nil && a.Hook.Timeout > 0 {
		timeout = a.Hook.Timeout
	}
	env := canaryEnv(o, a, root)
	var text string
	if a.Hook != nil {
		r, err := runHook(ctx, timeout, w.Run, o.Dir, env, ev)
		if err != nil {
			return problem("the canary %s: %v", describe(call, path), err)
		}
		if text, err = blocked(a, r); err != nil {
			return problem("the canary %s: %v", describe(call, path), err)
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if text, err = askSidecar(ctx, w.Run, o.Dir, env, call); err != nil {
			return problem("the canary %s: %v", describe(call, path), err)
		}
	}
	return Finding{Agent: a, Level: OK, Text: fmt.Sprintf("the canary %s is blocked: %s", describe(call, path), text)}
}

func describe(c hook.Call, path string) string { return c.Tool + " of " + path }

// canaryEnv is the environment the wiring runs in: o.Env without any
// agent's own markers (a doctor run inside one agent must not make the
// hook judge the canary as that agent's), and a's project directory
// variable set to root, as a would set it.
func canaryEnv(o Options, a *hook.Agent, root string) []string {
	drop := map[string]bool{}
	for _, b := range o.Agents {
		if b.ProjectDirEnv != "" {
			drop[b.ProjectDirEnv] = true
		}
		if b.Hook != nil && b.Hook.HostEnv != "" {
			drop[b.Hook.HostEnv] = true
		}
	}
	var env []string
	for _, kv := range o.Env {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	if a.ProjectDirEnv != "" {
		env = append(env, a.ProjectDirEnv+"="+root)
	}
	return env
}

// maxReply is how much of a reply doctor reads.
const maxReply = 1 << 20

// runHook runs a command hook with the event on stdin, as the agent
// would, and returns its answer. It fails when the command outlives ctx
// (the agent's hook timeout: the agent would then run the call).
func runHook(ctx context.Context, timeout time.Duration, argv []string, dir string, env []string, event []byte) (hook.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(event)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr limited
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return hook.Reply{}, fmt.Errorf("not blocked: no answer within %v, the agent's hook timeout, after which it runs the call", timeout)
	}
	r := hook.Reply{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
	case err != nil:
		return hook.Reply{}, fmt.Errorf("picket did not judge it: cannot run %s: %v", argv[0], err)
	}
	return r, nil
}

// limited keeps the first maxReply bytes written to it.
type limited struct{ bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxReply - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// blocked reads a command hook's answer: a block in a's schema (its exit
// status; JSON on stdout where that alone blocks) carrying picket's
// "picket: blocked" reason. It returns the reason's first line.
func blocked(a *hook.Agent, r hook.Reply) (string, error) {
	want := a.Reply(hook.Answer{Deny: true, Reason: "picket: blocked"})
	text := string(r.Stderr) + "\n" + string(r.Stdout)
	first := reasonLine(text)
	switch {
	case strings.Contains(first, "picket: error"):
		if l := firstLine(string(r.Stderr)); l != first && l != "" {
			first += " (" + l + ")"
		}
		return "", fmt.Errorf("picket did not judge it: %s", first)
	case first == "" && r.Exit == a.Reply(hook.Answer{}).Exit && len(bytes.TrimSpace(r.Stdout)) == 0:
		return "", fmt.Errorf("not blocked: the hook let it through (exit %d, no answer)", r.Exit)
	case r.Exit != want.Exit:
		return "", fmt.Errorf("not blocked: the hook exited %d, where picket's block for %s exits %d (stderr %q)", r.Exit, a.Title, want.Exit, clip(r.Stderr))
	case want.Exit == 0 && json.Valid(want.Stdout) && !json.Valid(r.Stdout):
		// The block is the JSON alone: anything else, and the agent runs the call.
		return "", fmt.Errorf("not blocked: the hook's stdout is not the JSON %s reads (%q)", a.Title, clip(r.Stdout))
	case first == "":
		return "", fmt.Errorf("not blocked by picket: the answer carries no picket reason (stdout %q, stderr %q)", clip(r.Stdout), clip(r.Stderr))
	}
	return first, nil
}

// reasonLine finds picket's reason in an answer, its first line up to the
// end of the line or of a JSON string ("picket: blocked …").
func reasonLine(text string) string {
	for _, p := range []string{"picket: blocked", "picket: error"} {
		if i := strings.Index(text, p); i >= 0 {
			s := text[i:]
			if j := strings.IndexAny(s, "\n\"\\"); j >= 0 {
				s = s[:j]
			}
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// askSidecar starts an extension's sidecar (picket serve) as the
// extension does and asks it to decide the canary call, without a
// prompt. It returns the block's first line.
func askSidecar(ctx context.Context, argv []string, dir string, env []string, call hook.Call) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 2 * time.Second
	var stderr limited
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("picket did not judge it: cannot run %s: %v", argv[0], err)
	}
	defer cmd.Wait()
	defer in.Close()
	req, _ := json.Marshal(map[string]any{"id": 2, "op": "decide", "session": SessionID, "cwd": call.Dir(),
		"tool": call.Tool, "input": call.Input, "prompt": false})
	fmt.Fprintf(in, "{\"id\":1,\"op\":\"hello\"}\n%s\n", req)
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, maxReply)
	var hello struct {
		OK       bool
		Protocol int
		Error    string
	}
	var res struct {
		OK, Judged, Allow bool
		Message, Error    string
	}
	for i, v := range []any{&hello, &res} {
		if !lines.Scan() {
			return "", fmt.Errorf("not blocked: the sidecar %s gave no answer (stderr %q)", argv[0], clip(stderr.Bytes()))
		}
		if err := json.Unmarshal(lines.Bytes(), v); err != nil {
			return "", fmt.Errorf("not blocked: the sidecar's answer %d is not JSON: %v", i+1, err)
		}
	}
	switch {
	case !hello.OK || !res.OK:
		return "", fmt.Errorf("not blocked: the sidecar refused it: %s%s", hello.Error, res.Error)
	case !res.Judged || res.Allow:
		return "", fmt.Errorf("not blocked: the sidecar let it through (judged %v, allow %v)", res.Judged, res.Allow)
	}
	first := reasonLine(res.Message)
	if strings.HasPrefix(first, "picket: error") {
		return "", fmt.Errorf("picket did not judge it, the sidecar failed: %s", first)
	}
	return first, nil
}
