package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/picketdev/picket/decide"
)

// Agent is everything picket knows about one coding agent: what differs
// from one agent to the next. Each agent package (hook/claude, hook/pi)
// exports one Agent value, and package hook/agents lists them all; the
// request path ([Pipeline]) never asks which agent a call came from. A
// contract test in hook/agents holds every registered agent to the same
// rules (see ARCHITECTURE.md, "Adding an agent").
type Agent struct {
	// Name is the agent on the command line (picket hook --agent NAME,
	// picket install NAME) and in audit lines.
	Name string
	// Title is the agent's name for people ("Claude Code").
	Title string
	// ProjectDirEnv names the variable the agent sets, in its hooks'
	// environment, to the session's project directory
	// (CLAUDE_PROJECT_DIR), or is "" when it sets none. The workspace
	// root is that directory when it is set.
	ProjectDirEnv string

	// Targets maps one tool call to the paths it touches, each with its
	// access: one for a Read, several for a patch that adds, updates and
	// moves files, what a shell command line reads and writes for an agent
	// whose shell picket judges by its command line. It returns
	// ErrNotJudged for a tool picket does not judge (it passes untouched),
	// and an error for a file tool whose input it cannot read (denied).
	// A relative path is resolved against [Call.Dir].
	Targets func(c Call) ([]Target, error)
	// FileTools are the tool names Targets judges, every one the agent
	// offers that reads, writes or lists files; the contract test holds
	// Targets to each.
	FileTools []string
	// Loads, when set, judges what the agent reads by itself, without a
	// tool call, when a tool touches a path (Claude Code's memory files):
	// it returns a denial when that would show the model a denied path.
	// It runs after each allowed target.
	Loads func(p decide.Policy, c Call, t Target, d decide.Decision) (decide.Decision, bool)

	// Decode reads one event as the agent hands it to picket, strictly: a
	// command hook's stdin, or for an extension agent the event its
	// extension sees (as recorded in Fixtures). An error denies the call;
	// the Event is filled as far as it was read (its tool names the
	// denial).
	Decode func(event []byte) (Event, error)
	// Hook is set for an agent that runs a command per tool call and
	// reads its answer (picket hook --agent NAME); nil for one that loads
	// picket's extension in-process and talks to picket serve.
	Hook *CommandHook
	// Reply is the agent's own answer for a verdict, in its exact schema:
	// what picket hook prints and exits with for a command-hook agent,
	// what the extension hands the agent for an in-process one.
	Reply func(Answer) Reply
	// Rewrite, when set, gives the input the agent is to run an allowed
	// call with instead of the model's ([Answer.Input]): for an agent
	// that applies a hook's rewritten input without an approval (Gemini
	// CLI, Copilot CLI), a shell command wrapped in picket run (see
	// [ShellRun]), or a search held to the directory picket scanned. It
	// returns nil to leave the call as it is, and an error to deny it (a
	// shell command it cannot wrap). It runs for every call that is not
	// denied, file tool or not.
	Rewrite func(c Call, run ShellRun) (map[string]json.RawMessage, error)
	// Trust, when set, reports whether the agent would run picket's
	// wiring for the project at o.Dir: its folder trust, and any switch
	// of its own that turns hooks off. An agent that skips hooks in a
	// folder the person has not trusted (Gemini CLI, Codex, Copilot CLI)
	// says so here, for picket doctor. It reads and never changes the
	// agent's files.
	Trust func(o InstallOptions) TrustState
	// Wired, when set, finds picket's wiring in the agent's own files, in
	// every scope that applies to the project at o.Dir (the person's and
	// the project's), for picket doctor: what holds it, the picket it
	// runs, how the agent starts it. It reads and never changes the
	// agent's files; nothing found is an empty list. An agent without it
	// is one doctor says it cannot check.
	Wired func(o InstallOptions) ([]Wiring, error)
	// Canary, when set, is the event (as Decode reads it) of a call in a
	// session at dir that writes path, a mandatory write deny: picket
	// doctor hands it to the installed wiring, which must block it. When
	// nil, doctor tries the shape most hooks share (Claude Code's: a
	// hook_event_name, a tool_name among FileTools and a tool_input
	// naming the file); it keeps only an event Decode and Targets read as
	// that write.
	Canary func(dir, path string) []byte
	// ShellSandbox is set for an agent whose shell commands picket judges
	// by their words before they run (Codex, Qwen Code: their hooks
	// cannot put a command under picket run), which is best effort: a
	// program can build a path at run time. It names the agent's own
	// sandbox setting to use alongside, as picket doctor and show say.
	ShellSandbox string

	// ConfigPaths are the agent's own configuration, extension, hook and
	// prompt files: what it loads as code or prompt text in its next
	// session. They are mandatory write denies. A path starting with "~/"
	// is under home; any other is relative to the workspace root
	// ("**/.claude/skills" is any .claude/skills in the project).
	ConfigPaths []string

	// Wire adds picket's wiring to the agent's settings file (its bytes,
	// nil for none), running the picket executable at exe; Unwire takes
	// it out again, nil meaning the file goes. Unwire(Wire(x)) is x, byte
	// for byte. Install and Uninstall do the whole job: the file, any
	// record picket keeps of what it added, messages.
	Wire, Unwire func(settings []byte, exe string) ([]byte, error)
	Install      func(o InstallOptions) error
	Uninstall    func(o InstallOptions) error
	// InstallHelp is picket install AGENT --help: what install writes
	// where, and the scopes.
	InstallHelp string

	// Fixtures is the directory, from the module's root, of the agent's
	// recorded events (<version>/*.ndjson: one event a line, as the real
	// agent sent it), which the contract test reads. Tests never need
	// ../shared: picket keeps its own copy.
	Fixtures string
}

// Wiring is picket's wiring in one of an agent's files, as its
// [Agent.Wired] found it.
type Wiring struct {
	// Scope is "user" (every project) or "project"; File is the
	// settings file, hook file or extension that holds the wiring.
	Scope, File string
	// Exe is the picket executable the wiring runs.
	Exe string
	// Run is what the agent starts for a call, as an argv: for a command
	// hook, its shell with the hook command line (the event goes to its
	// stdin); for an in-process extension, the sidecar it talks to
	// (picket serve).
	Run []string
}

// CommandHook is how an agent that runs a command per tool call talks to
// picket hook.
type CommandHook struct {
	// Timeout is the hook timeout install writes into the agent's
	// settings: above picket's own deadline and prompt timeout, since an
	// agent that kills a hook still waiting lets the call through.
	Timeout time.Duration
	// RootIsWorkingDir says the agent starts its hook in the session's
	// project directory while the event's cwd names another (Codex: the
	// working directory the model chose for a command): picket hook
	// takes its own working directory as [Call.Root] where Decode left
	// it empty, so the policy and relative paths are the session's.
	RootIsWorkingDir bool
	// HostEnv names a variable the agent sets in the environment of every
	// hook command it runs, and no other agent does. An agent that runs
	// other agents' hook commands (Copilot CLI runs those of a
	// repository's .claude/settings.json) hands them its own events:
	// picket hook judges an event as this agent's when the variable is
	// set, whatever --agent names. "" for none.
	HostEnv string
	// Preflight, when set, is run by picket hook with the hook's
	// environment before it judges a call: an error denies the call, with
	// the error as its reason. It is for what the agent's own
	// configuration does to picket's answer on every call, which no
	// install can settle once (Copilot CLI applies the input of the last
	// of several preToolUse hooks, and a person may add one after
	// picket's at any time).
	Preflight func(getenv func(string) string) error
}

// EventKind is what an agent's event asks of picket.
type EventKind uint8

const (
	OtherEvent   EventKind = iota // nothing to do
	BeforeTool                    // judge a tool call before it runs
	AfterTool                     // a tool ran: keep the read-before-edit ledger
	SessionStart                  // check the policy, show its footguns once
	SessionEnd                    // forget the session's grants and ledger
)

// Event is one agent event, decoded.
type Event struct {
	Kind EventKind
	Call Call
}

// Answer is picket's verdict on an event, before the agent's schema.
type Answer struct {
	// Deny blocks the call; Reason is what the model reads.
	Deny   bool
	Reason string
	// Notice is shown to the person once (a broken policy, lint warnings
	// at session start).
	Notice string
	// Input, when set, is the tool input the agent runs an allowed call
	// with instead of the model's ([Agent.Rewrite]): no approval, the
	// agent's own rules still apply to it.
	Input map[string]json.RawMessage
	// Dialect is the [Call.Dialect] of the call Input rewrites, for an
	// agent that answers a rewrite in the dialect it was asked in.
	Dialect string
}

// TrustState is an agent's trust in one project, as its own files and
// environment decide it.
type TrustState struct {
	// Trusted says the agent runs picket's wiring in the project.
	Trusted bool
	// Detail says what decided it: the file and entry, the setting or
	// the variable.
	Detail string
	// Fix, when not Trusted, is what the person does about it.
	Fix string
}

// ShellRun is what a shell command rewritten to run under picket run
// needs: the picket executable and the session and agent its audit lines
// name.
type ShellRun struct {
	Exe, Session, Agent string
	// GOOS is the operating system the command runs on ("" is
	// runtime.GOOS): where picket run has no sandbox ([ShellSandboxed]),
	// Line wraps nothing.
	GOOS string
}

// Line is the command line that runs argv under picket run in the
// working directory dir, every word quoted for a POSIX shell. It fails
// when there is no picket executable to name, or a word holds a NUL
// byte, which no command line can carry, and with ErrShellUnsandboxed
// where picket run has no sandbox: there the pipeline leaves the
// command as it was, since wrapped it would fail every time.
func (r ShellRun) Line(dir string, argv ...string) (string, error) {
	if !ShellSandboxed(r.GOOS) {
		return "", ErrShellUnsandboxed
	}
	if !filepath.IsAbs(r.Exe) {
		return "", fmt.Errorf("no picket executable to run the command under (got %q)", r.Exe)
	}
	words := []string{r.Exe, "run", "--cwd", dir}
	if r.Session != "" {
		words = append(words, "--session", r.Session)
	}
	if r.Agent != "" {
		words = append(words, "--agent", r.Agent)
	}
	words = append(append(words, "--"), argv...)
	quoted := make([]string, len(words))
	for i, w := range words {
		if strings.ContainsRune(w, 0) {
			return "", errors.New("the command holds a NUL byte, which no command line can carry")
		}
		quoted[i] = ShellQuote(w)
	}
	return strings.Join(quoted, " "), nil
}

// ShellQuote quotes s as one word for a POSIX shell: as it is when it
// holds only characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Reply is an answer in the agent's schema: what picket hook writes on
// stdout and stderr and the status it exits with (0 or 2).
type Reply struct {
	Stdout, Stderr []byte
	Exit           int
}

// PreToolUseDeny is the PreToolUse answer that blocks a call in the
// schema Claude Code defined and Codex and Qwen Code took over:
// {"hookSpecificOutput": {"hookEventName": "PreToolUse",
// "permissionDecision": "deny", "permissionDecisionReason": reason}} and
// a newline, with no other field (Codex runs a call whose answer has one
// more).
func PreToolUseDeny(reason string) []byte {
	type specific struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	b, _ := json.Marshal(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{"PreToolUse", "deny", reason}})
	return append(b, '\n')
}

// InstallOptions are what an agent's Install and Uninstall are given.
type InstallOptions struct {
	// User installs for the person's every project (~/.claude,
	// ~/.pi/agent), Project into the project's own settings; with neither,
	// the agent's default.
	User, Project bool
	// Print writes the result to Stdout instead of changing any file.
	Print bool
	// Trust writes the agent's trust record for picket's own hook, where
	// the agent skips a hook no one trusted and the person asked for it
	// (--trust): the record the agent's own trust dialogue would write,
	// for that hook alone. Without it, install says what to do.
	Trust bool
	// Exe is the picket executable the wiring runs (absolute, resolved);
	// ExeGiven says the person named it (--exe).
	Exe      string
	ExeGiven bool
	// Home, StateDir and ConfigDir are the person's home, picket's state
	// dir and the fence config dir; Getenv reads the environment.
	Home, StateDir, ConfigDir string
	Getenv                    func(string) string
	Env                       []string
	// Dir is the working directory the project is found from.
	Dir string
	// GOOS is the operating system install wires the agent for (see
	// [ShellSandboxed]); "" is runtime.GOOS.
	GOOS string
	// Stdout takes --print's output; Info, Warn and Hint tell the person
	// what happened ("picket: …", "picket: warning: …", "picket: hint: …").
	Stdout           io.Writer
	Info, Warn, Hint func(format string, args ...any)
}

// DecodeHook decodes an event a command hook reads, as Decode, and where
// the agent starts its hook in the session's directory but names another
// as the event's cwd ([CommandHook.RootIsWorkingDir]), sets Call.Root to
// the hook's own working directory, from wd. A call before a tool runs
// is refused when the agent's [CommandHook.Preflight], given getenv,
// fails.
func (a *Agent) DecodeHook(event []byte, wd func() (string, error), getenv func(string) string) (Event, error) {
	ev, err := a.Decode(event)
	if err == nil && a.Hook != nil && a.Hook.RootIsWorkingDir && ev.Call.Root == "" {
		ev.Call.Root, err = wd()
	}
	if err == nil && ev.Kind == BeforeTool && a.Hook != nil && a.Hook.Preflight != nil {
		err = a.Hook.Preflight(getenv)
	}
	return ev, err
}

// FileTool reports whether the agent judges tool.
func (a *Agent) FileTool(tool string) bool {
	for _, t := range a.FileTools {
		if t == tool {
			return true
		}
	}
	return false
}

// rawInput is a tool input as the agents hand it: a JSON object.
type rawInput = map[string]json.RawMessage
