package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"text/template"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/schema"
)

// initBackupLayout names picket init's backups as persist names a grant's,
// so its pruning sees them.
const initBackupLayout = "20060102T150405.000Z"

// InitBase is what a new root policy extends when no --template is given:
// the policy in force at root now, so that writing it loosens nothing. A
// fence file in a directory above root (discovery would take it), by its
// path relative to root; else the user config, "@base"; else the default
// template.
func InitBase(env decide.Env, root string) string {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		for _, name := range []string{"fence.jsonc", "fence.json"} {
			f := filepath.Join(dir, name)
			if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
				if rel, err := filepath.Rel(root, f); err == nil {
					return rel
				}
			}
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	if userConfigFile(env) != "" {
		return "@base"
	}
	return decide.DefaultTemplate
}

// Existing lists the policy files discovery would find in root.
func Existing(root string) []string {
	var out []string
	for _, name := range []string{"fence.jsonc", "fence.json"} {
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
			out = append(out, filepath.Join(root, name))
		}
	}
	return out
}

// Starter writes the starter file to a fresh temporary file in root and
// proves it: it passes the schema and resolves with decide.Load. Its scalar
// values restate what the base already resolves to, so writing it never
// loosens the base. The caller removes tmp.
func Starter(env decide.Env, root, tmpl string) (tmp string, src []byte, err error) {
	base, err := loadAs(env, root, fmt.Appendf(nil, "{%q: %q}\n", "extends", tmpl))
	if err != nil {
		return "", nil, fmt.Errorf("failed to resolve %s: %w", tmpl, err)
	}
	if src, err = renderStarter(tmpl, base); err != nil {
		return "", nil, err
	}
	if probs := schema.Validate("fence.jsonc", src); len(probs) > 0 {
		return "", nil, fmt.Errorf("bug: the starter file does not validate: %v", probs[0])
	}
	if tmp, err = writeTemp(root, src); err != nil {
		return "", nil, err
	}
	env.ConfigFile, env.ValidCache = tmp, ""
	if _, err := decide.Load(env); err != nil {
		return tmp, nil, fmt.Errorf("bug: the starter file does not load: %w", err)
	}
	return tmp, src, nil
}

// loadAs resolves src as the policy, from a temporary file in dir.
func loadAs(env decide.Env, dir string, src []byte) (*decide.Loaded, error) {
	tmp, err := writeTemp(dir, src)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	env.ConfigFile, env.ValidCache = tmp, ""
	return decide.Load(env)
}

// writeTemp writes data to a new file in dir with a random name (O_EXCL, so
// never through a planted symlink), synced and readable by all.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".fence.jsonc.init-*")
	if err != nil {
		return "", fmt.Errorf("failed to write in %s: %w", dir, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("failed to write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// Replace backs up the old policy files and renames tmp over file. The old
// fence.jsonc is copied (the rename then replaces it atomically); an old
// fence.json is moved aside, so discovery finds only the new file.
func Replace(file, tmp string, old []string) ([]string, error) {
	var backups []string
	stamp := time.Now().UTC().Format(initBackupLayout)
	for _, o := range old {
		b := o + ".bak." + stamp
		if err := backup(o, b, o != file); err != nil {
			return backups, err
		}
		backups = append(backups, b)
	}
	if err := os.Rename(tmp, file); err != nil {
		return backups, fmt.Errorf("failed to write %s: %w", file, err)
	}
	return backups, nil
}

// backup keeps a copy of old at name, or moves old there.
func backup(old, name string, move bool) error {
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("failed to back up %s: %s is in the way", old, name)
	}
	if move {
		return os.Rename(old, name)
	}
	data, err := os.ReadFile(old)
	if err == nil {
		err = writeFresh(name, data)
	}
	if err != nil {
		return fmt.Errorf("failed to back up %s: %w", old, err)
	}
	return nil
}

// writeFresh creates name, which must not exist, holding data.
func writeFresh(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// starterValues are the values the starter restates from its base, or
// picket's defaults where the base sets none.
type starterValues struct {
	Schema, Extends                                 string
	DefaultDenyRead, StrictDenyRead, AllowGitConfig bool
	Mode                                            decide.Mode
	MaxBytes                                        int64
	ReadBeforeEdit                                  bool
	Audit                                           decide.AuditSettings
	Prompt                                          decide.PromptSettings
	CaseInsensitive                                 any
	// CodeEnv: the base holds the code template, whose .env rules a
	// permissions rule here can override.
	CodeEnv bool
}

func renderStarter(tmpl string, base *decide.Loaded) ([]byte, error) {
	s, set := base.Policy.Spec(), base.Settings
	v := starterValues{
		Schema: SchemaURL, Extends: tmpl,
		DefaultDenyRead: s.DefaultDenyRead, StrictDenyRead: s.StrictDenyRead, AllowGitConfig: s.AllowGitConfig,
		Mode: base.Policy.Mode(), MaxBytes: s.WriteGuards.MaxBytes, ReadBeforeEdit: s.WriteGuards.ReadBeforeEdit,
		Audit: set.Audit, Prompt: set.Prompt, CaseInsensitive: "auto",
		CodeEnv: slices.Contains(base.Chain, "builtin:"+decide.DefaultTemplate),
	}
	if v.MaxBytes == 0 {
		v.MaxBytes = 10 << 20
	}
	v.Audit.MaxSizeMB = cmp0(v.Audit.MaxSizeMB, 50)
	v.Audit.MaxAgeDays = cmp0(v.Audit.MaxAgeDays, 7)
	v.Prompt.Surface = cmp0(v.Prompt.Surface, "auto")
	v.Prompt.TimeoutSeconds = cmp0(v.Prompt.TimeoutSeconds, 60)
	v.Prompt.BatchAfter = cmp0(v.Prompt.BatchAfter, 3)
	if p, ok := base.Raw["picket"].(map[string]any); ok && p["caseInsensitive"] != nil {
		v.CaseInsensitive = p["caseInsensitive"]
	}
	var b bytes.Buffer
	err := starterTemplate().Execute(&b, v)
	return b.Bytes(), err
}

func cmp0[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// starterTemplate is parsed on use, not at start: every picket process (a
// hook runs per tool call) would pay for it otherwise.
func starterTemplate() *template.Template {
	return template.Must(template.New("fence.jsonc").Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}).Parse(starterText))
}

const starterText = `// fence.jsonc: what AI coding agents may read and write in this project.
// picket enforces it on the agents' file tools, and fence on their shell.
// Lists add to what "extends" holds; a base's deny or "true" cannot be
// removed here. See the result with 'picket show', check it with
// 'picket lint'.
{
  "$schema": {{json .Schema}},
  // the policy under this one: a built-in template, "@base" (your user config) or a file
  "extends": {{json .Extends}},
  "filesystem": {
    // more paths agents may read; matters only with defaultDenyRead
    "allowRead": [],
    // paths agents may never read or list, e.g. "~/.ssh", "secrets/**"
    "denyRead": [],
    // more paths agents may write, beyond the workspace
    "allowWrite": [],
    // paths agents may never write, e.g. "**/*.lock", "vendor/**"
    "denyWrite": [],
    // deny every read outside allowRead, allowWrite and the system paths programs need
    "defaultDenyRead": {{json .DefaultDenyRead}},
    // like defaultDenyRead, without those system paths
    "strictDenyRead": {{json .StrictDenyRead}},
    // let agents write this repository's .git/config (otherwise always denied)
    "allowGitConfig": {{json .AllowGitConfig}},
    // fence only: programs the shell sandbox may run without listing their directories
    "allowExecute": []
  },
  // The shell's network. With this section a sandboxed command reaches
  // hosts only through picket's filtering proxy (HTTP_PROXY, HTTPS_PROXY,
  // ALL_PROXY; a program that ignores them has no network), and only those
  // named here; one no entry names is put to you when you are at hand
  // (this command, this session, or persist it here), else refused.
  // Without a network section shell commands have no network at all.
  "network": {
    // "example.com", "*.example.com" (the names below it), "example.com:443" (one port);
    // uncomment what your toolchains fetch from:
    "allowedDomains": [
      // npm, yarn, pnpm: "registry.npmjs.org", "registry.yarnpkg.com",
      // Go modules: "proxy.golang.org", "sum.golang.org",
      // Python: "pypi.org", "files.pythonhosted.org",
      // Rust: "crates.io", "index.crates.io", "static.crates.io",
      // Ruby: "rubygems.org", "index.rubygems.org",
      // Java: "repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org",
      // git over HTTPS: "github.com", "codeload.github.com", "gitlab.com", "bitbucket.org",
      // containers: "registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com",
      // Debian and Ubuntu packages: "deb.debian.org", "security.debian.org", "archive.ubuntu.com",
    ],
    // hosts never reached, whatever allowedDomains or a prompt says
    "deniedDomains": []
    // "allowLocalOutbound": true lets allowed names reach loopback and LAN addresses (never cloud metadata)
  },
  "picket": {
    // read-only, workspace-write (the workspace is writable) or full (no boundary checks)
    "mode": {{json .Mode}},
    // names denied in every mode, compared case-insensitively with each path component
    "blocklist": [{{if not .CodeEnv}}".env", ".env.*", {{end}}"*.pem", "*.key", "id_rsa*"],
    // per-path levels (none, view, read, write), e.g. { "pattern": "secrets/**", "permission": "none", "priority": 100 }
    {{- if .CodeEnv}}
    // The code template keeps .env and .env.* files from being read (.env.example,
    // .env.sample, .env.template and .env.dist aside), below any rule here: to let
    // agents read one, add { "pattern": ".env.test", "permission": "read" }
    {{- end}}
    "permissions": [],
    "writeGuards": {
      // deny writes larger than this many bytes (10 MiB)
      "maxBytes": {{json .MaxBytes}},
      // deny writes of files with these extensions
      "denyExtensions": [".exe", ".so", ".dll"],
      // deny edits of existing files the agent has not read in this session
      "readBeforeEdit": {{json .ReadBeforeEdit}}
    },
    // fold case when matching paths: "auto" probes the filesystem, true or false force it
    "caseInsensitive": {{json .CaseInsensitive}},
    "audit": {
      {{- if .Audit.Path}}
      // the audit log file
      "path": {{json .Audit.Path}},
      {{- end}}
      // log allowed accesses too, not only denies
      "logAllows": {{json .Audit.LogAllows}},
      // log the shell commands agents run
      "logCommands": {{json .Audit.LogCommands}},
      // rotate the log past this many megabytes
      "maxSizeMB": {{json .Audit.MaxSizeMB}},
      // delete rotated logs after this many days
      "maxAgeDays": {{json .Audit.MaxAgeDays}}
    },
    "prompt": {
      // where to ask about a blocked access: auto, tty, tmux, console or off
      "surface": {{json .Prompt.Surface}},
      // deny when nobody answers within this many seconds
      "timeoutSeconds": {{json .Prompt.TimeoutSeconds}},
      // ask about the rest together after this many denials in one turn
      "batchAfter": {{json .Prompt.BatchAfter}}
    },
    "sandbox": {
      // more environment variables removed before a shell command runs, e.g. "MY_APP_*"
      "stripEnv": [],
      // variables passed to shell commands though stripEnv names them, e.g. "GITHUB_TOKEN"
      "keepEnv": []
    }
  }
}
`

// userConfigFile is the user's fence config file, "" when there is none.
func userConfigFile(env decide.Env) string {
	for _, n := range []string{"fence.jsonc", "fence.json"} {
		f := filepath.Join(env.UserConfigDir(), n)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			return f
		}
	}
	return ""
}
