package decide

import "path/filepath"

// MandatoryInput is what the mandatory write denies depend on.
type MandatoryInput struct {
	Root, Home     string
	ConfigDir      string   // the user fence config dir
	StateDir       string   // picket's state dir (audit log, grants)
	AuditPath      string   // picket.audit.path when set elsewhere
	Executable     string   // picket's own executable
	PolicyFiles    []string // every file of the resolved chain
	AllowGitConfig bool
}

// MandatorySource is the Source of every mandatory rule.
const MandatorySource = "builtin:mandatory"

// NestedClaudeDirs are what Claude Code loads from a subdirectory's
// .claude as well as from the project's: prompt text and tools of the
// agent's next sessions.
var NestedClaudeDirs = []string{"skills", "commands", "agents"}

// MandatoryRules returns the non-overridable write denies: policy files,
// picket's own state and executable, agent configuration that runs as code
// or loads as prompt text, git hooks and config, and shell start-up files.
// No allow rule, grant or mode lifts them.
func MandatoryRules(in MandatoryInput) []Rule {
	const src = MandatorySource
	var pats []string
	add := func(p ...string) { pats = append(pats, p...) }
	// Paths picket found are literal: a "[" in the workspace's path (or
	// home's) must not make the rules globs that match nothing.
	lit := LiteralPattern
	for _, f := range in.PolicyFiles {
		if filepath.IsAbs(f) {
			add(lit(f))
		}
	}
	root := lit(in.Root)
	// Every policy file name anywhere, not just the project's: discovery
	// takes the nearest fence.jsonc above the working directory, so an
	// agent that wrote one in a subdirectory (or in /tmp above a project
	// there) would choose its own policy.
	add(root+"/fence.jsonc", root+"/fence.json", "**/fence.jsonc", "**/fence.json")
	if in.ConfigDir != "" {
		add(lit(in.ConfigDir))
	}
	if in.StateDir != "" {
		add(lit(in.StateDir))
	}
	if in.AuditPath != "" {
		add(lit(in.AuditPath), lit(in.AuditPath)+".*")
	}
	if in.Executable != "" {
		add(lit(in.Executable))
	}
	add(
		// The glob covers every settings file; the two names Claude Code
		// reads are listed too, so the shell sandbox, which cannot stop a
		// file a glob names from being created, protects them while they
		// do not exist.
		"~/.claude/settings*.json", root+"/.claude/settings*.json",
		"~/.claude/settings.json", "~/.claude/settings.local.json",
		root+"/.claude/settings.json", root+"/.claude/settings.local.json",
		// Pi loads extensions (code, run in its own unsandboxed process)
		// and packages named in its settings, global and per project, and
		// sends everything to the provider its models.json names.
		"~/.pi/agent/extensions", "~/.pi/agent/skills", "~/.pi/agent/prompts",
		root+"/.pi/extensions", root+"/.pi/settings.json", "~/.agents/skills",
		"~/.pi/agent/settings.jso[n]", "~/.pi/agent/models.jso[n]",
		root+"/.pi/[s]kills", root+"/.pi/[p]rompts",
		"~/.codex/config.toml", "~/.codex/hooks.json", root+"/.codex",
		"~/.gemini/settings.json", root+"/.gemini/settings.json",
		"~/.cursor/hooks.json", root+"/.cursor/hooks.json",
		"~/.cursor/mcp.jso[n]", root+"/.cursor/mcp.jso[n]",
		// Installed Claude Code plugins and Gemini CLI extensions carry
		// hooks and MCP servers: code their agent starts outside any
		// sandbox.
		"~/.claude/plugin[s]", "~/.gemini/extension[s]", root+"/.gemini/extension[s]",
		root+"/.github/hooks", root+"/.mcp.json",
		root+"/.git/hooks",
		// Submodules keep their git dir under .git/modules; nested
		// repositories have their own .git: their hooks run code too.
		root+"/.git/modules/**/hooks", root+"/**/.git/hooks",
		// commondir points a git dir at another, whose config then counts.
		// Spelled as a glob ("[c]"), so that the shell sandbox protects it
		// where it exists and makes no placeholder where it does not: git
		// reads .git/commondir, and finding a directory there it fails.
		root+"/.git/[c]ommondir", root+"/**/.git/commondir",
		root+"/.git/modules/**/commondir", root+"/.git/worktrees/*/commondir",
		"~/.bashrc", "~/.bash_profile", "~/.zshrc", "~/.zprofile", "~/.profile",
		// A glob: a placeholder directory for a missing ~/.gitconfig made
		// every git command fail, in the sandbox and on the host.
		"~/.gitconfi[g]",
		// Rarer start-up files, git's XDG config, Claude Code's MCP servers
		// and the user-wide agent prompts, spelled as globs: held wherever
		// they exist, and by the file tools where they do not, without a
		// placeholder in home for each during every sandboxed command.
		"~/.zshen[v]", "~/.zlogi[n]", "~/.zlogou[t]", "~/.bash_logi[n]", "~/.bash_logou[t]",
		"~/.config/fis[h]", "~/.config/git/confi[g]", "~/.claude.jso[n]",
		"~/.claude/CLAUDE.m[d]", "~/.codex/AGENTS.m[d]", "~/.gemini/GEMINI.m[d]", "~/.pi/agent/AGENTS.m[d]",
	)
	for _, d := range []string{"commands", "agents", "skills", "hooks"} {
		add("~/.claude/"+d, root+"/.claude/"+d)
	}
	// Claude Code also loads skills, commands and agents from the .claude
	// of a subdirectory it works in.
	for _, d := range NestedClaudeDirs {
		add(root + "/**/.claude/" + d)
	}
	if !in.AllowGitConfig {
		add(root+"/.git/config", root+"/.git/modules/**/config", root+"/**/.git/config",
			// read too, with extensions.worktreeConfig
			root+"/.git/config.worktre[e]", root+"/.git/worktrees/*/config.worktree", root+"/.git/modules/**/config.worktree")
	}
	return Rules(src, pats...)
}
