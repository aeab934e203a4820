package hook

import (
	"encoding/json"
	"io"
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
}

// Reply is an answer in the agent's schema: what picket hook writes on
// stdout and stderr and the status it exits with (0 or 2).
type Reply struct {
	Stdout, Stderr []byte
	Exit           int
}

// InstallOptions are what an agent's Install and Uninstall are given.
type InstallOptions struct {
	// User installs for the person's every project (~/.claude,
	// ~/.pi/agent), Project into the project's own settings; with neither,
	// the agent's default.
	User, Project bool
	// Print writes the result to Stdout instead of changing any file.
	Print bool
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
	// Stdout takes --print's output; Info, Warn and Hint tell the person
	// what happened ("picket: …", "picket: warning: …", "picket: hint: …").
	Stdout           io.Writer
	Info, Warn, Hint func(format string, args ...any)
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
