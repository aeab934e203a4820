package qwen

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/picketdev/picket/hook"
)

// Qwen Code 0.15 runs the hooks of the user's settings in every folder,
// and those of a project's .qwen/settings.json only where it trusts the
// folder: folder trust is off unless security.folderTrust.enabled is
// true in the system or user settings, and with it on, a folder counts as
// trusted unless trustedFolders.json marks that very folder DO_NOT_TRUST
// (a TRUST_FOLDER or TRUST_PARENT rule over it wins). disableAllHooks,
// in any settings file Qwen Code reads, turns every hook off, picket's
// too, and so does --bare, which no file shows. picket reads these
// files and never writes them.

// Trust levels in trustedFolders.json.
const (
	trustFolder = "TRUST_FOLDER"
	trustParent = "TRUST_PARENT"
	doNotTrust  = "DO_NOT_TRUST"
)

// paths are the files Qwen Code reads for a session started in dir.
type paths struct {
	dir                  string
	user, project        string // settings.json
	system, systemDeflts string
	trusted              string // trustedFolders.json
}

// qwenHome is Qwen Code's global directory: $QWEN_HOME, else ~/.qwen.
func qwenHome(home string, getenv func(string) string) (string, error) {
	if h := getenv("QWEN_HOME"); h != "" {
		if strings.HasPrefix(h, "~/") && home != "" {
			h = filepath.Join(home, h[2:])
		}
		return filepath.Abs(h)
	}
	if home == "" {
		home = getenv("HOME")
	}
	if home == "" {
		return "", errors.New("neither QWEN_HOME nor HOME is set, so there is no ~/.qwen")
	}
	return filepath.Join(home, ".qwen"), nil
}

func pathsFor(dir, home string, getenv func(string) string) (paths, error) {
	qh, err := qwenHome(home, getenv)
	if err != nil {
		return paths{}, err
	}
	p := paths{dir: filepath.Clean(dir), user: filepath.Join(qh, "settings.json"), project: filepath.Join(dir, ".qwen", "settings.json"),
		system: "/etc/qwen-code/settings.json", trusted: filepath.Join(qh, "trustedFolders.json")}
	if s := getenv("QWEN_CODE_SYSTEM_SETTINGS_PATH"); s != "" {
		p.system = s
	}
	p.systemDeflts = filepath.Join(filepath.Dir(p.system), "system-defaults.json")
	if s := getenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH"); s != "" {
		p.systemDeflts = s
	}
	if s := getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH"); s != "" {
		p.trusted = s
	}
	return p, nil
}

// trust is the Agent's Trust: for a Qwen Code session started in the
// current directory.
func trust(o hook.InstallOptions) hook.TrustState {
	dir := o.Dir
	if d := o.Getenv(projectDirEnv); filepath.IsAbs(d) {
		dir = d
	}
	return TrustOf(dir, o.Home, o.Getenv)
}

// TrustOf reports whether Qwen Code, started in dir, runs picket's hooks:
// that they are in the user's or the project's settings, that the
// project's are loaded (folder trust), and that no disableAllHooks turns
// them off. An IDE's workspace trust, which Qwen Code also obeys, and
// --bare are not seen.
func TrustOf(dir, home string, getenv func(string) string) hook.TrustState {
	p, err := pathsFor(dir, home, getenv)
	if err != nil {
		return hook.TrustState{Detail: err.Error(), Fix: "set HOME"}
	}
	var user, project, system, systemDeflts map[string]any
	var hooksUser, hooksProject bool
	for _, f := range []struct {
		path  string
		dst   *map[string]any
		hooks *bool
	}{{p.user, &user, &hooksUser}, {p.project, &project, &hooksProject}, {p.system, &system, nil}, {p.systemDeflts, &systemDeflts, nil}} {
		b, err := readSmall(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = jsonc(b, f.dst)
		}
		if err != nil {
			return hook.TrustState{Detail: fmt.Sprintf("%s does not read as settings (%v): Qwen Code ignores or renames it", f.path, err), Fix: "fix " + f.path}
		}
		if f.hooks != nil {
			*f.hooks = len(HookCommands(b)) > 0
		}
	}
	if !hooksUser && !hooksProject {
		return hook.TrustState{Detail: fmt.Sprintf("picket's hooks are in neither %s nor %s", p.user, p.project), Fix: "run 'picket install qwen'"}
	}
	trusted, detail, fix := folderTrusted(p, user, system)
	if !hooksUser && !trusted {
		return hook.TrustState{Detail: detail + ": Qwen Code loads no settings from " + p.project + ", picket's hooks included", Fix: fix}
	}
	loaded := []struct {
		path string
		s    map[string]any
	}{{p.system, system}, {p.project, project}, {p.user, user}, {p.systemDeflts, systemDeflts}}
	if !trusted {
		loaded = append(loaded[:1], loaded[2:]...)
	}
	for _, l := range loaded { // highest precedence first
		if v, ok := l.s["disableAllHooks"]; ok {
			if v == true {
				return hook.TrustState{Detail: "disableAllHooks is true in " + l.path + ": Qwen Code runs no hook, picket's included",
					Fix: "remove disableAllHooks from " + l.path}
			}
			break
		}
	}
	where := p.user
	if !hooksUser {
		where = p.project
	}
	return hook.TrustState{Trusted: true, Detail: "Qwen Code runs picket's hooks from " + where + " (" + detail + "); --bare would skip them"}
}

// folderTrusted is Qwen Code's isWorkspaceTrusted for p.dir: a
// detail, and what the person does about an untrusted folder.
func folderTrusted(p paths, user, system map[string]any) (bool, string, string) {
	enabled := false
	for _, s := range []map[string]any{system, user} {
		if sec, ok := s["security"].(map[string]any); ok {
			if ft, ok := sec["folderTrust"].(map[string]any); ok {
				if e, ok := ft["enabled"].(bool); ok {
					enabled = e
					break
				}
			}
		}
	}
	if !enabled {
		return true, "folder trust is off", ""
	}
	fix := fmt.Sprintf("mark %s trusted in Qwen Code's trust dialog, or set %s: %q in %s", p.dir, strconv.Quote(p.dir), trustFolder, p.trusted)
	var rules map[string]any
	b, err := readSmall(p.trusted)
	if errors.Is(err, fs.ErrNotExist) {
		return true, "folder trust is on and " + p.dir + " is not listed in " + p.trusted, ""
	}
	if err == nil {
		err = jsonc(b, &rules)
	}
	if err != nil {
		return false, fmt.Sprintf("%s does not parse (%v), and Qwen Code refuses to start", p.trusted, err), "fix " + p.trusted
	}
	for rule, level := range rules {
		root := filepath.Clean(rule)
		switch level {
		case trustParent:
			root = filepath.Dir(root)
		case trustFolder:
		default:
			continue
		}
		if p.dir == root || strings.HasPrefix(p.dir, strings.TrimSuffix(root, "/")+"/") {
			return true, fmt.Sprintf("%s trusts %s (%s)", p.trusted, rule, level), ""
		}
	}
	for rule, level := range rules {
		if level == doNotTrust && filepath.Clean(rule) == p.dir {
			return false, fmt.Sprintf("%s marks %s %s", p.trusted, rule, doNotTrust), fix
		}
	}
	return true, "folder trust is on and " + p.dir + " is not marked " + doNotTrust, ""
}

// jsonc reads JSON with comments, as Qwen Code does, into v.
func jsonc(b []byte, v any) error {
	std, err := hujson.Standardize(b)
	if err != nil {
		return err
	}
	return jsonUnmarshal(std, v)
}

// maxSettings bounds a settings file picket reads.
const maxSettings = 16 << 20

// readSmall reads a configuration file that must be a regular file: a
// FIFO in its place is refused, not waited on, and so is a file past
// maxSettings. A missing file is fs.ErrNotExist.
func readSmall(path string) ([]byte, error) { return hook.ReadSettingsFile(path, maxSettings) }
