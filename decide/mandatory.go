package decide

import (
	"path/filepath"
	"strings"
)

// MandatoryInput is what the mandatory write denies depend on.
type MandatoryInput struct {
	Root, Home     string
	ConfigDir      string   // the user fence config dir
	StateDir       string   // picket's state dir (audit log, grants)
	AuditPath      string   // picket.audit.path when set elsewhere
	Executable     string   // picket's own executable
	PolicyFiles    []string // every file of the resolved chain
	AllowGitConfig bool
	// Agents are the coding agents' own configuration, extensions, hooks
	// and prompt files: what an agent loads as code or prompt text in its
	// next session. A pattern starting with "~/" is under Home; any other
	// is relative to Root ("**/.claude/skills" is every .claude/skills in
	// the project). decide knows no agent: the caller passes them (picket
	// takes them from its registry of agents, hook/agents.ConfigPaths).
	Agents []string
}

// MandatorySource is the Source of every mandatory rule.
const MandatorySource = "builtin:mandatory"

// MandatoryRules returns the non-overridable write denies: policy files,
// picket's own state and executable, the agents' configuration that runs
// as code or loads as prompt text (in.Agents), git hooks and config, and
// shell start-up files.
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
	for _, p := range in.Agents {
		if strings.HasPrefix(p, "~/") {
			add(p)
		} else {
			add(root + "/" + p)
		}
	}
	add(
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
		// Rarer start-up files and git's XDG config, spelled as globs:
		// held wherever they exist, and by the file tools where they do
		// not, without a placeholder in home for each during every
		// sandboxed command.
		"~/.zshen[v]", "~/.zlogi[n]", "~/.zlogou[t]", "~/.bash_logi[n]", "~/.bash_logou[t]",
		"~/.config/fis[h]", "~/.config/git/confi[g]",
	)
	if !in.AllowGitConfig {
		add(root+"/.git/config", root+"/.git/modules/**/config", root+"/**/.git/config",
			// read too, with extensions.worktreeConfig
			root+"/.git/config.worktre[e]", root+"/.git/worktrees/*/config.worktree", root+"/.git/modules/**/config.worktree")
	}
	return Rules(src, pats...)
}
