package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/picketdev/picket/schema"
)

// fileConfig is the typed view of one policy document. Pointers tell "not
// set" from a zero value, so a child only overrides what it sets.
type fileConfig struct {
	Extends    string `json:"extends"`
	Filesystem struct {
		AllowRead       []string `json:"allowRead"`
		DenyRead        []string `json:"denyRead"`
		AllowWrite      []string `json:"allowWrite"`
		DenyWrite       []string `json:"denyWrite"`
		DefaultDenyRead *bool    `json:"defaultDenyRead"`
		StrictDenyRead  *bool    `json:"strictDenyRead"`
		AllowGitConfig  *bool    `json:"allowGitConfig"`
	} `json:"filesystem"`
	Picket struct {
		Mode        *string      `json:"mode"`
		Blocklist   []string     `json:"blocklist"`
		Permissions []Permission `json:"permissions"`
		WriteGuards struct {
			MaxBytes       *int64   `json:"maxBytes"`
			DenyExtensions []string `json:"denyExtensions"`
			ReadBeforeEdit *bool    `json:"readBeforeEdit"`
		} `json:"writeGuards"`
		CaseInsensitive any `json:"caseInsensitive"`
		Audit           struct {
			Path        *string `json:"path"`
			LogAllows   *bool   `json:"logAllows"`
			LogCommands *bool   `json:"logCommands"`
			MaxAgeDays  *int    `json:"maxAgeDays"`
			MaxSizeMB   *int    `json:"maxSizeMB"`
		} `json:"audit"`
		Prompt struct {
			Surface        *string `json:"surface"`
			TimeoutSeconds *int    `json:"timeoutSeconds"`
			BatchAfter     *int    `json:"batchAfter"`
		} `json:"prompt"`
		Sandbox struct {
			StripEnv         []string `json:"stripEnv"`
			KeepEnv          []string `json:"keepEnv"`
			ExpandMaxDepth   *int     `json:"expandMaxDepth"`
			ExpandMaxEntries *int     `json:"expandMaxEntries"`
		} `json:"sandbox"`
	} `json:"picket"`
}

// build merges a chain, base first: lists are appended and de-duplicated
// (a child cannot remove an inherited entry), booleans are OR'd, scalars
// take the child's value when it sets one.
func (r *resolver) build(chain []*source) (*Loaded, error) {
	env := r.env
	root := workspaceRoot(env)
	spec := Spec{Root: root, Home: env.Home, Sources: map[string]string{}}
	var set Settings
	var fold caseSetting
	raw := map[string]any{}
	var names []string
	for _, s := range chain {
		names = append(names, s.name)
		raw = mergeRaw(raw, s.raw).(map[string]any)
		// fence's other sections (network, command, ...) are kept for the
		// shell sandbox; the last file that set one is its source.
		for k := range s.raw {
			switch k {
			case "$schema", "extends", "filesystem", "picket":
			default:
				spec.Sources[k] = s.name
			}
		}
		c := s.cfg
		fsys, pk := c.Filesystem, c.Picket
		tmp := env.TempDir
		spec.AllowRead = appendRules(spec.AllowRead, s.name, expandTempDirs(fsys.AllowRead, tmp))
		spec.DenyRead = appendRules(spec.DenyRead, s.name, expandTempDirs(fsys.DenyRead, tmp))
		spec.AllowWrite = appendRules(spec.AllowWrite, s.name, expandTempDirs(fsys.AllowWrite, tmp))
		spec.DenyWrite = appendRules(spec.DenyWrite, s.name, expandTempDirs(fsys.DenyWrite, tmp))
		spec.Blocklist = appendRules(spec.Blocklist, s.name, pk.Blocklist)
		orBool(&spec.DefaultDenyRead, fsys.DefaultDenyRead, spec.Sources, "filesystem.defaultDenyRead", s.name)
		orBool(&spec.StrictDenyRead, fsys.StrictDenyRead, spec.Sources, "filesystem.strictDenyRead", s.name)
		orBool(&spec.AllowGitConfig, fsys.AllowGitConfig, spec.Sources, "filesystem.allowGitConfig", s.name)
		orBool(&spec.WriteGuards.ReadBeforeEdit, pk.WriteGuards.ReadBeforeEdit, spec.Sources, "picket.writeGuards", s.name)
		// A later maxBytes moves "picket.writeGuards"; the hook's
		// read-before-edit deny names the file that turned it on.
		if v := pk.WriteGuards.ReadBeforeEdit; v != nil && *v && spec.Sources[RuleReadBeforeEdit] == "" {
			spec.Sources[RuleReadBeforeEdit] = s.name
		}
		for _, pm := range pk.Permissions {
			pm.Source, pm.Pattern = s.name, expandTempDir(pm.Pattern, tmp)
			if !hasPermission(spec.Permissions, pm) {
				spec.Permissions = append(spec.Permissions, pm)
			}
		}
		for _, e := range pk.WriteGuards.DenyExtensions {
			if !slices.Contains(spec.WriteGuards.DenyExtensions, e) {
				if spec.WriteGuards.ExtensionSources == nil {
					spec.WriteGuards.ExtensionSources = map[string]string{}
				}
				spec.WriteGuards.ExtensionSources[e] = s.name
			}
		}
		spec.WriteGuards.DenyExtensions = appendStrings(spec.WriteGuards.DenyExtensions, pk.WriteGuards.DenyExtensions)
		if pk.WriteGuards.MaxBytes != nil {
			spec.WriteGuards.MaxBytes = *pk.WriteGuards.MaxBytes
			spec.Sources["picket.writeGuards"] = s.name
		}
		if pk.Mode != nil {
			spec.Mode = Mode(*pk.Mode)
			spec.Sources["picket.mode"] = s.name
		}
		if err := fold.add(pk.CaseInsensitive, s); err != nil {
			return nil, err
		}
		mergeSettings(&set, &c)
	}
	if spec.StrictDenyRead {
		spec.DefaultDenyRead = true
	}
	spec.Origin = chain[len(chain)-1].name
	spec.CaseInsensitive = fold.on || fold.probes() && caseInsensitiveFS(root, env.observe)
	if fold.src != "" {
		spec.Sources["picket.caseInsensitive"] = fold.src
	}
	if v := fold.value(); v != nil {
		raw["picket"].(map[string]any)["caseInsensitive"] = v // what decides, not the last file's word
	}
	if spec.CaseInsensitive {
		// Each file was checked as written; a folded class can fail
		// where the written one did not ("[Z-a]").
		var probs []schema.Problem
		for _, s := range chain {
			probs = append(probs, patternProblems(s.name, s.src, &s.cfg, true)...)
		}
		if len(probs) > 0 {
			return nil, problemsError(probs)
		}
	}
	auditPath := set.Audit.Path
	if strings.HasPrefix(auditPath, "~/") {
		auditPath = filepath.Join(env.Home, auditPath[2:])
	}
	spec.Mandatory = MandatoryRules(MandatoryInput{
		Root: root, Home: env.Home, ConfigDir: env.UserConfigDir(), StateDir: env.StateDir(),
		AuditPath: auditPath, Executable: env.Executable, PolicyFiles: names,
		AllowGitConfig: spec.AllowGitConfig, Agents: env.Agents,
	})
	p, err := compile(spec, env.observe)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Origin, err)
	}
	return &Loaded{Policy: p, Chain: names, Settings: set, Raw: raw, Env: env}, nil
}

// caseSetting merges picket.caseInsensitive along a chain by the boolean
// rule, reading "auto" as "whatever the workspace's filesystem is": true
// in any file wins, "auto" in any file (or in none) contributes the probe,
// false contributes false. So a child cannot turn folding off once a base
// turned it on, as with every other boolean, and "auto" never undoes a
// true.
type caseSetting struct {
	on, auto, set bool
	src           string // the first file that set true, else "auto"
}

func (c *caseSetting) add(v any, s *source) error {
	switch v {
	case nil:
		return nil
	case true:
		if !c.on {
			c.on, c.src = true, s.name
		}
	case "auto":
		if !c.on && !c.auto {
			c.src = s.name
		}
		c.auto = true
	case false:
	default:
		return fmt.Errorf("%s: picket.caseInsensitive: want \"auto\", true or false", s.at("/picket/caseInsensitive"))
	}
	c.set = true
	return nil
}

// probes reports whether the filesystem probe decides: nothing set true,
// and some file said "auto" or none said anything.
func (c caseSetting) probes() bool { return !c.on && (c.auto || !c.set) }

// value is the merged setting as a policy file would write it (true,
// "auto" or false), or nil when no file sets it.
func (c caseSetting) value() any {
	switch {
	case !c.set:
		return nil
	case c.on:
		return true
	case c.auto:
		return "auto"
	}
	return false
}

// appendRules appends the patterns dst does not hold yet, in order. A set
// keeps it linear: a list of 50,000 patterns took seconds pairwise.
func appendRules(dst []Rule, src string, pats []string) []Rule {
	seen := make(map[string]bool, len(dst)+len(pats))
	for _, r := range dst {
		seen[r.Pattern] = true
	}
	for _, p := range pats {
		if !seen[p] {
			seen[p] = true
			dst = append(dst, Rule{Pattern: p, Source: src})
		}
	}
	return dst
}

func appendStrings(dst, src []string) []string {
	seen := make(map[string]bool, len(dst)+len(src))
	for _, s := range dst {
		seen[s] = true
	}
	for _, s := range src {
		if !seen[s] {
			seen[s] = true
			dst = append(dst, s)
		}
	}
	return dst
}

func hasPermission(list []Permission, pm Permission) bool {
	for _, x := range list {
		if x.Pattern == pm.Pattern && x.Permission == pm.Permission && x.Priority == pm.Priority && x.Type == pm.Type {
			return true
		}
	}
	return false
}

func orBool(dst *bool, v *bool, sources map[string]string, field, name string) {
	if v != nil && *v && !*dst {
		*dst = true
		sources[field] = name
	}
}

func mergeSettings(set *Settings, c *fileConfig) {
	a, p, sb := c.Picket.Audit, c.Picket.Prompt, c.Picket.Sandbox
	setString(&set.Audit.Path, a.Path)
	set.Audit.LogAllows = set.Audit.LogAllows || a.LogAllows != nil && *a.LogAllows
	set.Audit.LogCommands = set.Audit.LogCommands || a.LogCommands != nil && *a.LogCommands
	setInt(&set.Audit.MaxAgeDays, a.MaxAgeDays)
	setInt(&set.Audit.MaxSizeMB, a.MaxSizeMB)
	setString(&set.Prompt.Surface, p.Surface)
	setInt(&set.Prompt.TimeoutSeconds, p.TimeoutSeconds)
	setInt(&set.Prompt.BatchAfter, p.BatchAfter)
	set.Sandbox.StripEnv = appendStrings(set.Sandbox.StripEnv, sb.StripEnv)
	set.Sandbox.KeepEnv = appendStrings(set.Sandbox.KeepEnv, sb.KeepEnv)
	setInt(&set.Sandbox.ExpandMaxDepth, sb.ExpandMaxDepth)
	setInt(&set.Sandbox.ExpandMaxEntries, sb.ExpandMaxEntries)
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

// mergeRaw merges generic JSON documents with the same rules as build:
// objects recursively, arrays appended without duplicates, booleans OR'd,
// other values from the child.
func mergeRaw(base, child any) any {
	switch c := child.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			b = map[string]any{}
		}
		out := make(map[string]any, len(b)+len(c))
		for k, v := range b {
			out[k] = v
		}
		for k, v := range c {
			if k == "extends" {
				continue
			}
			out[k] = mergeRaw(b[k], v)
		}
		return out
	case []any:
		b, _ := base.([]any)
		out := append([]any{}, b...)
		// Most members are pattern strings: look those up in a set, so a
		// long list does not cost a reflect.DeepEqual per pair.
		strs := make(map[string]bool, len(out)+len(c))
		for _, x := range out {
			if s, ok := x.(string); ok {
				strs[s] = true
			}
		}
		for _, v := range c {
			if s, ok := v.(string); ok {
				if !strs[s] {
					strs[s] = true
					out = append(out, v)
				}
				continue
			}
			if !slices.ContainsFunc(out, func(x any) bool { return reflect.DeepEqual(x, v) }) {
				out = append(out, v)
			}
		}
		return out
	case bool:
		if b, ok := base.(bool); ok {
			return b || c
		}
		return c
	}
	return child
}

// EnvFromOS fills an Env from environment lookups (os.Getenv, or a test's
// map) and a working directory.
func EnvFromOS(getenv func(string) string, cwd string) Env {
	exe, _ := os.Executable()
	if exe != "" {
		if _, r, err := Canonicalize(exe, "/", "/"); err == nil {
			exe = r
		}
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return Env{
		Cwd: cwd, Home: home, ConfigHome: getenv("XDG_CONFIG_HOME"), StateHome: getenv("XDG_STATE_HOME"),
		Executable: exe, TempDir: SystemTempDir(getenv("TMPDIR"), home, os.Getuid()).Dir,
	}
}
