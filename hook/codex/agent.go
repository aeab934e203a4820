// Package codex is picket's knowledge of OpenAI Codex CLI: its
// PreToolUse hook event and answer, what its tools touch, the hook it
// runs (hooks.json, the trust Codex asks for it) and the configuration of
// its own that no agent may write.
//
// Codex fails open almost everywhere: it runs the call when its hook
// exits 1, exits 2 without a reason, is missing, crashes, is killed,
// outlives its timeout, prints anything but its exact answer, or was
// never trusted. So the hook command install writes turns every failure
// of picket into exit 2 with a reason (see [HookCommand]), bounds a
// picket that hangs with timeout(1) short of Codex's own timeout, and
// picket's answer to a block is exit 2 with the reason on stderr.
//
// # What it does not stop
//
// Codex reads files only through its shell, and its hook can rewrite a
// command only with an "allow", which picket never sends: so picket
// judges each shell command line by its words (package shellcmd), which
// is best effort: a program can build a path at run time, the model may
// pick the shell binary (the hook does not see which), and what a
// command writes into a running session (write_stdin) is not hooked at
// all. Codex's own sandbox (--sandbox workspace-write, sandbox_mode)
// belongs beside picket; see docs/agents/codex.md. MCP tools and web
// searches pass untouched.
package codex

import (
	"time"

	"github.com/picketdev/picket/hook"
)

// Name is Codex's name on picket's command line and in audit lines.
const Name = "codex"

// Agent is Codex, for the registry (hook/agents).
var Agent = hook.Agent{
	Name:         Name,
	Title:        "Codex",
	Targets:      targets,
	FileTools:    fileTools,
	Decode:       decode,
	Hook:         &hook.CommandHook{Timeout: HookTimeout * time.Second, RootIsWorkingDir: true},
	Reply:        reply,
	Trust:        trust,
	Wired:        wired,
	Canary:       canary,
	ShellSandbox: `codex --sandbox workspace-write (sandbox_mode = "workspace-write" in config.toml)`,
	ConfigPaths:  configPaths,
	Wire:         wire,
	Unwire:       unwire,
	Install:      install,
	Uninstall:    uninstall,
	Fixtures:     "hook/codex/testdata",
	InstallHelp:  installHelp,
}

// configPaths are what Codex loads as code, settings or prompt text: its
// config.toml (hooks, trust, the model provider, the sandbox), hooks.json,
// execpolicy rules, skills and prompts, the user-wide AGENTS.md, and any
// .codex of the project (Codex reads those from the project root down to
// its working directory). The two files hooks hang on are spelled
// literally, so the shell sandbox protects them while they do not exist;
// the rarer ones as globs. A CODEX_HOME other than ~/.codex is not
// covered: see docs/agents/codex.md. The project's own AGENTS.md is the
// person's file as much as Codex's, and stays writable.
var configPaths = []string{
	"~/.codex/config.toml", "~/.codex/hooks.json",
	"~/.codex/rule[s]", "~/.codex/skill[s]", "~/.codex/prompt[s]",
	"~/.codex/AGENTS.m[d]", "~/.codex/AGENTS.override.m[d]", "~/.codex/requirements.tom[l]",
	".codex", "**/.codex",
}
