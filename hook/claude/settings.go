package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/picketdev/picket/hook"
)

// ToolMatcher is the PreToolUse and PostToolUse matcher picket installs:
// Claude Code's file tools, the ones whose paths the hook judges.
const ToolMatcher = "Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob|LS|LSP|PowerShell"

// PreToolMatcher is the PreToolUse matcher: the file tools, and Bash.
// Claude Code's Bash runs in picket's sandbox through the shell prefix,
// and picket hook lets it pass; but GitHub Copilot CLI runs these hooks
// too (a repository's .claude/settings.json, with no .github/hooks beside
// it), reporting its bash as Bash, and ignores the shell prefix: there
// picket hook judges the call as Copilot CLI's and runs its command under
// picket run.
const PreToolMatcher = ToolMatcher + "|Bash"

// HookTimeout is the hook timeout, in seconds, that install writes. It
// stays above picket's 60 s prompt timeout and its 10 s internal deadline, so
// Claude Code's fail-open timeout never fires before picket has answered.
const HookTimeout = 90

// Wiring says what [AddWiring] adds and [RemoveWiring] removes.
type Wiring struct {
	// Command is the hook command exactly as Claude Code will run it (see
	// [HookCommand]). Uninstall recognises picket's hooks by this
	// string and nothing else.
	Command string
	// User says the settings are the user's (~/.claude/settings.json),
	// which changes how project paths are spelled in deny rules.
	User bool
	// Deny lists the permissions.deny rules to add; nil means
	// [DenyRules] or, for User, [UserDenyRules], with Own.
	Deny []string
	// Own are picket's own files, whose places depend on the environment.
	Own OwnPaths
	// ShellPrefix, when set, is the value of env.CLAUDE_CODE_SHELL_PREFIX
	// (see [ShellPrefix]), through which Claude Code runs every Bash
	// command, and every hook command, in picket's shell sandbox.
	// Uninstall removes the variable only while it still holds this value.
	ShellPrefix string
	// DropShellPrefix, when set, is a shell prefix install takes out of
	// env.CLAUDE_CODE_SHELL_PREFIX while it holds exactly this value: an
	// earlier install's, on a platform where the prefix would fail every
	// Bash command.
	DropShellPrefix string
	// Stale are deny rules an earlier install added that this one does not
	// write (the Write(...) forms, an executable's old path): install
	// takes them out.
	Stale []string
}

// DenyRules are the permissions.deny rules install adds and uninstall
// removes: o.Deny, or picket's own for the scope.
func (o Wiring) DenyRules() []string { return o.deny() }

func (o Wiring) deny() []string {
	switch {
	case o.Deny != nil:
		return o.Deny
	case o.User:
		return UserDenyRules(o.Own)
	}
	return DenyRules(o.Own)
}

// HookArgs are picket's arguments in the hook command.
var HookArgs = []string{"hook", "--agent", "claude"}

// HookCommand returns the hook command line for the picket executable
// at exe, quoted for the shell Claude Code runs hook commands with.
func HookCommand(exe string) string {
	return shellQuote(exe) + " " + strings.Join(HookArgs, " ")
}

// HookCommands returns the distinct hook commands in settings that
// run a picket hook (any executable, ending in [HookArgs]).
func HookCommands(settings []byte) []string {
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return nil
	}
	suffix := " " + strings.Join(HookArgs, " ")
	var out []string
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if strings.HasSuffix(h.Command, suffix) && !slices.Contains(out, h.Command) {
					out = append(out, h.Command)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// ShellPrefixEnv is the settings env variable Claude Code wraps
// every Bash and hook command line with.
const ShellPrefixEnv = "CLAUDE_CODE_SHELL_PREFIX"

// ShellPrefix returns the CLAUDE_CODE_SHELL_PREFIX value that runs
// command lines through `picket --shell-prefix` for the picket executable at
// exe (an absolute path, not quoted).
//
// Claude Code 2.1.197 cuts the prefix at its last " -": what comes before
// is shell-quoted as ONE word (the program), the rest is appended as is,
// then the quoted command line. So "picket shell-prefix" would name a
// program called "picket shell-prefix", while "picket --shell-prefix" runs
// picket with the arguments --shell-prefix and the command line, whatever
// characters exe holds.
func ShellPrefix(exe string) string {
	return exe + " --shell-prefix"
}

func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// claudeDenyPaths are the mandatory write denies in Claude Code's rule path
// syntax, as project settings read them: "~/" is the home directory, a
// leading "/" is the project root (the directory holding .claude/), the rest
// follows gitignore. Claude Code's rule syntax has no braces, so every
// alternative is spelled out.
var claudeDenyPaths = []string{
	"~/.claude/settings*.json",
	"/.claude/settings*.json",
	"~/.claude/commands/**",
	"~/.claude/agents/**",
	"~/.claude/skills/**",
	"~/.claude/hooks/**",
	"/.claude/commands/**",
	"/.claude/agents/**",
	"/.claude/skills/**",
	"/.claude/hooks/**",
	"~/.pi/agent/extensions/**",
	"~/.pi/agent/skills/**",
	"~/.pi/agent/prompts/**",
	"~/.pi/agent/settings.json",
	"~/.pi/agent/models.json",
	"/.pi/extensions/**",
	"/.pi/settings.json",
	"/.pi/skills/**",
	"/.pi/prompts/**",
	"~/.claude/plugins/**",
	"~/.gemini/extensions/**",
	"/.gemini/extensions/**",
	"~/.cursor/mcp.json",
	"/.cursor/mcp.json",
	"~/.agents/skills/**",
	"~/.codex/config.toml",
	"~/.codex/hooks.json",
	"/.codex/**",
	"~/.gemini/settings.json",
	"/.gemini/settings.json",
	"~/.cursor/hooks.json",
	"/.cursor/hooks.json",
	"/.github/hooks/**",
	"/.mcp.json",
	"/.git/hooks/**",
	"/.git/modules/**/hooks/**",
	"/fence.jsonc",
	"/fence.json",
	// A policy file anywhere: discovery takes the nearest one above the
	// working directory. And what Claude Code loads from a subdirectory's
	// .claude.
	"/**/fence.jsonc",
	"/**/fence.json",
	"/**/.claude/skills/**",
	"/**/.claude/commands/**",
	"/**/.claude/agents/**",
	"~/.bashrc",
	"~/.bash_profile",
	"~/.zshrc",
	"~/.zprofile",
	"~/.profile",
	"~/.gitconfig",
}

// OwnPaths are picket's own files, as absolute paths: where they are
// depends on the environment (XDG_STATE_HOME, XDG_CONFIG_HOME, where picket
// was installed), so their rules are written for the place they resolve to.
// An empty field adds no rule.
type OwnPaths struct {
	Home       string // spells the paths under it "~/", as the other rules are
	StateDir   string // picket's state dir (audit log, grants, install records)
	ConfigDir  string // the user's fence config dir
	Executable string // the picket the hooks run
}

// rulePaths are the paths of p in Claude Code's rule syntax: the two
// directories with everything in them, and the executable.
func (p OwnPaths) rulePaths() []string {
	var out []string
	for _, dir := range []string{p.ConfigDir, p.StateDir} {
		if dir != "" {
			out = append(out, claudeRulePath(dir, p.Home)+"/**")
		}
	}
	if p.Executable != "" {
		out = append(out, claudeRulePath(p.Executable, p.Home))
	}
	return out
}

// claudeRulePath spells the absolute path p as Claude Code's rules do:
// "~/rest" under home, "//p" elsewhere (a single leading "/" is the project
// root in project settings and ~/.claude in the user's). The rules follow
// gitignore, so its special characters in p are escaped with a backslash.
func claudeRulePath(p, home string) string {
	p = filepath.Clean(p)
	home = filepath.Clean(home)
	var b strings.Builder
	rest := p
	if rel, ok := strings.CutPrefix(p, home+"/"); ok && home != "/" && filepath.IsAbs(home) {
		b.WriteString("~/")
		rest = rel
	} else {
		b.WriteString("/")
	}
	for _, r := range rest {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DenyRules returns picket's mandatory write denies as Claude Code
// permissions.deny rules for a project's .claude/settings.json, each path in
// its Edit(...) form: the fixed paths and those of own. Claude Code
// enforces them itself, so they hold even where it skips a hook.
//
// Edit(...) rules cover every tool that edits files, Write included
// (Claude Code 2.1.197 and 2.1.332). A Write(...) rule alone never stopped
// the Write tool, and 2.1.332 warns for each one ("not matched by file
// permission checks — only Edit(path) rules are"), so none is written;
// install takes out those an earlier picket added (see
// [Wiring.Stale]).
func DenyRules(own OwnPaths) []string {
	return denyRules(own, func(p string) string { return p })
}

// UserDenyRules is [DenyRules] for ~/.claude/settings.json. There
// a leading "/" means ~/.claude itself, not a project (verified with Claude
// Code 2.1.197), so project paths are spelled "**/path": the path at any
// depth under the directory Claude Code runs in.
func UserDenyRules(own OwnPaths) []string {
	return denyRules(own, func(p string) string {
		if strings.HasPrefix(p, "/**/") {
			return p[1:]
		}
		if strings.HasPrefix(p, "/") {
			return "**" + p
		}
		return p
	})
}

// denyRules spells claudeDenyPaths for the settings file; own's paths are
// spelled the same in every settings file.
func denyRules(own OwnPaths, spell func(string) string) []string {
	var paths []string
	for _, p := range claudeDenyPaths {
		paths = append(paths, spell(p))
	}
	paths = append(paths, own.rulePaths()...)
	rules := make([]string, 0, len(paths)+len(claudeDenyTools))
	for _, p := range paths {
		rules = append(rules, "Edit("+p+")")
	}
	return append(rules, claudeDenyTools...)
}

// claudeDenyTools are Claude Code tools denied whole. Workflow (2.1.332,
// on by default) reads a script path as JavaScript while checking its
// input, before any hook runs, and its parse error quotes the line that
// failed: a scriptPath of .env showed the secret, from the tool call or
// from a script's own workflow({scriptPath}). Claude Code 2.1.197 and
// 2.1.332 accept the rule without a warning and drop the tool.
var claudeDenyTools = []string{"Workflow"}

// claudeHookGroups returns the hook groups picket installs, by event.
func claudeHookGroups(command string) []eventGroup {
	hook := func(matcher string) json.RawMessage {
		g := settingsObject{}
		if matcher != "" {
			g.set("matcher", marshalSetting(matcher))
		}
		h := settingsObject{}
		h.set("type", marshalSetting("command"))
		h.set("command", marshalSetting(command))
		h.set("timeout", marshalSetting(HookTimeout))
		g.set("hooks", marshalSetting([]json.RawMessage{h.marshal()}))
		return g.marshal()
	}
	return []eventGroup{
		{"PreToolUse", hook(PreToolMatcher)},
		{"PostToolUse", hook(ToolMatcher)},
		{"SessionStart", hook("")},
		{"SessionEnd", hook("")},
	}
}

type eventGroup struct {
	event string
	group json.RawMessage
}

// AddWiring returns settings (the bytes of a Claude Code settings.json;
// empty means none) with picket's hooks and deny rules added. Every other
// setting, hook and rule is kept in its order. When everything is already
// there it returns settings unchanged, byte for byte; otherwise the result is
// indented with two spaces.
func AddWiring(settings []byte, opts Wiring) ([]byte, error) {
	if opts.Command == "" {
		return nil, errors.New("no hook command to install")
	}
	root, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	changed := false
	hooks, err := root.child("hooks")
	if err != nil {
		return nil, err
	}
	for _, eg := range claudeHookGroups(opts.Command) {
		c, err := installGroup(&hooks, eg, opts.Command)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	root.set("hooks", hooks.marshal())
	perms, err := root.child("permissions")
	if err != nil {
		return nil, err
	}
	c, err := addStrings(&perms, "deny", opts.deny())
	if err != nil {
		return nil, err
	}
	changed = changed || c
	root.set("permissions", perms.marshal())
	if len(opts.Stale) > 0 {
		c, err := removeDeny(&root, opts.Stale)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if opts.ShellPrefix != "" {
		c, err := setShellPrefix(&root, opts.ShellPrefix)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if opts.DropShellPrefix != "" {
		c, err := removeShellPrefix(&root, opts.DropShellPrefix)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if !changed {
		return settings, nil
	}
	return root.format(), nil
}

// setShellPrefix sets env.CLAUDE_CODE_SHELL_PREFIX to prefix. A different
// prefix already there is an error: replacing it would silently drop
// someone's wrapper, keeping it would leave Bash commands unfenced.
func setShellPrefix(root *settingsObject, prefix string) (bool, error) {
	env, err := root.child("env")
	if err != nil {
		return false, err
	}
	if v, ok := env.vals[ShellPrefixEnv]; ok {
		var old string
		if json.Unmarshal(v, &old) == nil && old == prefix {
			return false, nil
		}
		return false, fmt.Errorf("env.%s is already set to %s; picket runs Bash commands through its own prefix, so remove that one first", ShellPrefixEnv, v)
	}
	env.set(ShellPrefixEnv, marshalSetting(prefix))
	root.set("env", env.marshal())
	return true, nil
}

// removeShellPrefix removes env.CLAUDE_CODE_SHELL_PREFIX when it is exactly
// prefix, and env when that leaves it empty.
func removeShellPrefix(root *settingsObject, prefix string) (bool, error) {
	if prefix == "" || !root.has("env") {
		return false, nil
	}
	env, err := root.child("env")
	if err != nil {
		return false, err
	}
	var old string
	if v, ok := env.vals[ShellPrefixEnv]; !ok || json.Unmarshal(v, &old) != nil || old != prefix {
		return false, nil
	}
	env.del(ShellPrefixEnv)
	if len(env.keys) == 0 {
		root.del("env")
	} else {
		root.set("env", env.marshal())
	}
	return true, nil
}

// installGroup makes picket's group the only one in hooks[event] that runs
// command, unless it already is, and reports whether anything changed.
func installGroup(hooks *settingsObject, eg eventGroup, command string) (bool, error) {
	groups, err := hooks.array(eg.event)
	if err != nil {
		return false, err
	}
	n := 0
	exact := false
	for _, g := range groups {
		if hasCommand(g, command) {
			n++
			exact = exact || settingsEqual(g, eg.group)
		}
	}
	if n == 1 && exact {
		return false, nil
	}
	groups, _, err = removeCommand(groups, command)
	if err != nil {
		return false, err
	}
	hooks.set(eg.event, marshalSetting(append(groups, eg.group)))
	return true, nil
}

// RemoveWiring returns settings without picket's hooks (any hook whose
// command is exactly opts.Command), without picket's deny rules and without
// env.CLAUDE_CODE_SHELL_PREFIX when it is exactly opts.ShellPrefix. A hooks
// list, event, permissions.deny or env left empty by the removal is removed
// too.
// When there is nothing to remove it returns settings unchanged.
//
// It removes the deny rules of opts.Deny, or when that is nil all of
// picket's: callers that recorded what install added (see
// [DenyMissing]) pass that, so a rule the person had before stays.
func RemoveWiring(settings []byte, opts Wiring) ([]byte, error) {
	if opts.Command == "" {
		return nil, errors.New("no hook command to uninstall")
	}
	root, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	hooksChanged, err := uninstallHooks(&root, opts.Command)
	if err != nil {
		return nil, err
	}
	denyChanged, err := removeDeny(&root, opts.deny())
	if err != nil {
		return nil, err
	}
	envChanged, err := removeShellPrefix(&root, opts.ShellPrefix)
	if err != nil {
		return nil, err
	}
	if !hooksChanged && !denyChanged && !envChanged {
		return settings, nil
	}
	return root.format(), nil
}

func uninstallHooks(root *settingsObject, command string) (bool, error) {
	if !root.has("hooks") {
		return false, nil
	}
	hooks, err := root.child("hooks")
	if err != nil {
		return false, err
	}
	changed := false
	for _, event := range slices.Clone(hooks.keys) {
		groups, err := hooks.array(event)
		if err != nil {
			return false, err
		}
		groups, removed, err := removeCommand(groups, command)
		if err != nil {
			return false, err
		}
		if !removed {
			continue
		}
		changed = true
		if len(groups) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, marshalSetting(groups))
		}
	}
	if !changed {
		return false, nil
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.marshal())
	}
	return true, nil
}

func removeDeny(root *settingsObject, rules []string) (bool, error) {
	if !root.has("permissions") {
		return false, nil
	}
	perms, err := root.child("permissions")
	if err != nil {
		return false, err
	}
	deny, err := perms.array("deny")
	if err != nil {
		return false, err
	}
	kept := deny[:0:0]
	for _, r := range deny {
		var s string
		if json.Unmarshal(r, &s) == nil && slices.Contains(rules, s) {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == len(deny) {
		return false, nil
	}
	if len(kept) == 0 {
		perms.del("deny")
	} else {
		perms.set("deny", marshalSetting(kept))
	}
	if len(perms.keys) == 0 {
		root.del("permissions")
	} else {
		root.set("permissions", perms.marshal())
	}
	return true, nil
}

// DenyMissing returns the rules of opts' deny list that settings
// (the bytes of a Claude Code settings.json) does not hold yet: what
// [AddWiring] would add. picket records them, so that uninstall takes
// out those and leaves rules the person had written themselves.
func DenyMissing(settings []byte, opts Wiring) ([]string, error) {
	root, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	perms, err := root.child("permissions")
	if err != nil {
		return nil, err
	}
	list, err := perms.array("deny")
	if err != nil {
		return nil, err
	}
	have := stringSet(list)
	var missing []string
	for _, r := range opts.deny() {
		if !have[r] {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

// stringSet is the JSON strings of list.
func stringSet(list []json.RawMessage) map[string]bool {
	have := map[string]bool{}
	for _, r := range list {
		var s string
		if json.Unmarshal(r, &s) == nil {
			have[s] = true
		}
	}
	return have
}

// addStrings appends to o[key] the strings it lacks.
func addStrings(o *settingsObject, key string, add []string) (bool, error) {
	list, err := o.array(key)
	if err != nil {
		return false, err
	}
	have := stringSet(list)
	n := len(list)
	for _, s := range add {
		if !have[s] {
			have[s] = true
			list = append(list, marshalSetting(s))
		}
	}
	if len(list) == n {
		return false, nil
	}
	o.set(key, marshalSetting(list))
	return true, nil
}

// hasCommand reports whether a hook group runs command.
func hasCommand(group json.RawMessage, command string) bool {
	var g struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(group, &g) != nil {
		return false
	}
	return slices.ContainsFunc(g.Hooks, func(h struct {
		Command string `json:"command"`
	}) bool {
		return h.Command == command
	})
}

// removeCommand drops every hook running command from groups, and every group
// that this leaves without hooks.
func removeCommand(groups []json.RawMessage, command string) ([]json.RawMessage, bool, error) {
	var out []json.RawMessage
	removed := false
	for _, g := range groups {
		if !hasCommand(g, command) {
			out = append(out, g)
			continue
		}
		removed = true
		obj, err := parseSettingsObject(g)
		if err != nil {
			return nil, false, err
		}
		hooks, err := obj.array("hooks")
		if err != nil {
			return nil, false, err
		}
		hooks = slices.DeleteFunc(hooks, func(h json.RawMessage) bool {
			var c struct {
				Command string `json:"command"`
			}
			return json.Unmarshal(h, &c) == nil && c.Command == command
		})
		if len(hooks) > 0 {
			obj.set("hooks", marshalSetting(hooks))
			out = append(out, obj.marshal())
		}
	}
	return out, removed, nil
}

func parseSettings(settings []byte) (settingsObject, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settingsObject{}, nil
	}
	o, err := parseSettingsObject(settings)
	if err != nil {
		return settingsObject{}, fmt.Errorf("invalid settings JSON: %w", err)
	}
	return o, nil
}

// UpdateSettings applies edit to the settings file at path (a missing
// file reads as empty) and, when the bytes change, replaces the file
// atomically: a temporary file in the same directory, then a rename. It
// reports whether the file changed. On any error the file is left as it was.
func UpdateSettings(path string, edit func([]byte) ([]byte, error)) (bool, error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	old, err := ReadSettings(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, err := edit(old)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(out, old) { // also a missing file left missing: nothing to uninstall
		return false, nil
	}
	return true, hook.WriteFileAtomic(path, out, mode)
}

// maxSettings bounds a settings file install reads (Claude Code's are a
// few kilobytes).
const maxSettings = 64 << 20

// ReadSettings reads a settings file that must be a regular file: a FIFO
// in its place is refused, not waited on, and a device such as /dev/zero
// is refused, not read until memory runs out; so is a file past
// maxSettings. A missing file is fs.ErrNotExist.
func ReadSettings(path string) ([]byte, error) { return hook.ReadSettingsFile(path, maxSettings) }

// settingsObject is a JSON object that keeps its members' order, so editing
// a settings file does not reshuffle what picket did not touch. Member values
// stay raw bytes.
type settingsObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseSettingsObject(data []byte) (settingsObject, error) {
	o := settingsObject{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return o, err
	} else if t != json.Delim('{') {
		return o, fmt.Errorf("want a JSON object, got %v", t)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return o, err
		}
		key := t.(string) // inside an object, json.Decoder only yields string keys
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return o, err
	}
	if _, err := dec.Token(); err == nil {
		return o, errors.New("unexpected data after the top-level object")
	} else if !errors.Is(err, io.EOF) {
		return o, err
	}
	return o, nil
}

func (o *settingsObject) has(key string) bool {
	_, ok := o.vals[key]
	return ok
}

func (o *settingsObject) set(key string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if !o.has(key) {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *settingsObject) del(key string) {
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// child returns o[key] as an object; a missing or null member is empty.
func (o *settingsObject) child(key string) (settingsObject, error) {
	v, ok := o.vals[key]
	if !ok || string(v) == "null" {
		return settingsObject{}, nil
	}
	c, err := parseSettingsObject(v)
	if err != nil {
		return c, fmt.Errorf("%q: %w", key, err)
	}
	return c, nil
}

// array returns o[key] as a list; a missing or null member is empty.
func (o *settingsObject) array(key string) ([]json.RawMessage, error) {
	v, ok := o.vals[key]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, fmt.Errorf("%q: want a JSON array: %w", key, err)
	}
	return list, nil
}

func (o *settingsObject) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshalSetting(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// format is the file form: two-space indent and a final newline.
func (o *settingsObject) format() []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, o.marshal(), "", "  "); err != nil {
		panic("picket: bug: settings object does not re-indent: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// marshalSetting marshals values that cannot fail to marshal. It does not
// escape <, > and & as HTML, so commands and rules stay readable.
func marshalSetting(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("picket: bug: cannot marshal setting: " + err.Error())
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// settingsEqual compares two JSON values ignoring layout.
func settingsEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
