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

// MandatoryRules returns the non-overridable write denies: policy files,
// picket's own state and executable, agent configuration that runs as code
// or loads as prompt text, git hooks and config, and shell start-up files.
// No allow rule, grant or mode lifts them.
func MandatoryRules(in MandatoryInput) []Rule {
	const src = "builtin:mandatory"
	var pats []string
	add := func(p ...string) { pats = append(pats, p...) }
	for _, f := range in.PolicyFiles {
		if filepath.IsAbs(f) {
			add(f)
		}
	}
	root := in.Root
	// Every policy file name anywhere, not just the project's: discovery
	// takes the nearest fence.jsonc above the working directory, so an
	// agent that wrote one in a subdirectory (or in /tmp above a project
	// there) would choose its own policy.
	add(filepath.Join(root, "fence.jsonc"), filepath.Join(root, "fence.json"), "**/fence.jsonc", "**/fence.json")
	if in.ConfigDir != "" {
		add(in.ConfigDir)
	}
	if in.StateDir != "" {
		add(in.StateDir)
	}
	if in.AuditPath != "" {
		add(in.AuditPath, in.AuditPath+".*")
	}
	if in.Executable != "" {
		add(in.Executable)
	}
	add(
		// The glob covers every settings file; the two names Claude Code
		// reads are listed too, so the shell sandbox, which cannot stop a
		// file a glob names from being created, protects them while they
		// do not exist.
		"~/.claude/settings*.json", root+"/.claude/settings*.json",
		"~/.claude/settings.json", "~/.claude/settings.local.json",
		root+"/.claude/settings.json", root+"/.claude/settings.local.json",
		"~/.pi/agent/extensions", "~/.pi/agent/skills", "~/.pi/agent/prompts",
		root+"/.pi/extensions", "~/.agents/skills",
		"~/.codex/config.toml", "~/.codex/hooks.json", root+"/.codex",
		"~/.gemini/settings.json", root+"/.gemini/settings.json",
		"~/.cursor/hooks.json", root+"/.cursor/hooks.json",
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
		"~/.bashrc", "~/.bash_profile", "~/.zshrc", "~/.zprofile", "~/.profile", "~/.gitconfig",
	)
	for _, d := range []string{"commands", "agents", "skills", "hooks"} {
		add("~/.claude/"+d, root+"/.claude/"+d)
	}
	if !in.AllowGitConfig {
		add(root+"/.git/config", root+"/.git/modules/**/config", root+"/**/.git/config")
	}
	return Rules(src, pats...)
}
