package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/picketdev/picket/hook"
)

// Codex runs a hook from hooks.json only once the person has trusted it:
// in the TUI's /hooks, which writes the hook's hash under
// [hooks.state."<hooks.json>:pre_tool_use:<group>:<handler>"] in
// $CODEX_HOME/config.toml. A hook whose hash is not recorded, or no
// longer matches (the command, matcher or timeout changed), is skipped
// without a word, and so is one with enabled = false. A project's
// .codex/hooks.json runs only in a project the person trusted too.

// TrustStatus is what Codex does with one of picket's hooks.
type TrustStatus string

const (
	// Trusted: Codex runs it.
	Trusted TrustStatus = "trusted"
	// Untrusted: no one trusted it; Codex skips it without a word.
	Untrusted TrustStatus = "untrusted"
	// Modified: trusted once, changed since; Codex skips it.
	Modified TrustStatus = "modified"
	// Disabled: the person turned it off (enabled = false); Codex skips
	// it even with --dangerously-bypass-hook-trust.
	Disabled TrustStatus = "disabled"
)

// HookTrust is the trust state of one of picket's hooks.
type HookTrust struct {
	Key     string // the hooks.state key in config.toml
	Command string
	Hash    string // what Codex computes for the hook now
	Status  TrustStatus
}

// Home is Codex's home: $CODEX_HOME (which Codex resolves, symlinks and
// all) or ~/.codex.
func Home(getenv func(string) string) (string, error) {
	if h := getenv("CODEX_HOME"); h != "" {
		h, err := filepath.Abs(h)
		if err != nil {
			return "", err
		}
		return resolved(h), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither CODEX_HOME nor HOME is set, so there is no ~/.codex")
	}
	return filepath.Join(home, ".codex"), nil
}

// resolved is path with the symlinks of its longest existing prefix
// resolved, as Codex names $CODEX_HOME once install has made it.
func resolved(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// Trust reads the trust state of picket's hooks in the hooks.json at
// hooksPath (as Codex names it: $CODEX_HOME/hooks.json, or a project's
// <root>/.codex/hooks.json) from codexHome's config.toml. It returns
// nothing when the file holds no hook of picket's. This is what picket
// doctor reports.
func Trust(codexHome, hooksPath string) ([]HookTrust, error) {
	b, err := readSmall(hooksPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	states, err := hookStates(filepath.Join(codexHome, "config.toml"))
	if err != nil {
		return nil, err
	}
	cmds, idx := HookCommands(b)
	out := make([]HookTrust, 0, len(cmds))
	for i, c := range cmds {
		t := HookTrust{Key: TrustKey(hooksPath, idx[i]), Command: c, Hash: HookHash(c)}
		st := states[t.Key]
		switch {
		case st.Enabled != nil && !*st.Enabled:
			t.Status = Disabled
		case st.TrustedHash == t.Hash:
			t.Status = Trusted
		case st.TrustedHash != "":
			t.Status = Modified
		default:
			t.Status = Untrusted
		}
		out = append(out, t)
	}
	return out, nil
}

// TrustKey is Codex's hooks.state key for the handler of picket's group
// at index in the PreToolUse list of the hooks.json at hooksPath.
func TrustKey(hooksPath string, index int) string {
	return fmt.Sprintf("%s:pre_tool_use:%d:0", hooksPath, index)
}

// HookHash is the hash Codex computes for picket's hook running command
// and trusts once a person has (codex-rs hooks discovery,
// command_hook_hash: sha256 over the hook's normalized identity, as JSON
// with sorted keys and no escaping beyond JSON's own).
func HookHash(command string) string {
	identity := map[string]any{
		"event_name": "pre_tool_use",
		"matcher":    Matcher,
		"hooks": []any{map[string]any{
			"type": "command", "command": command, "timeout": HookTimeout, "async": false,
		}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(identity) // maps marshal with sorted keys; it cannot fail
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// hookState is one [hooks.state."…"] table of config.toml.
type hookState struct {
	Enabled     *bool  `toml:"enabled"`
	TrustedHash string `toml:"trusted_hash"`
}

// hookStates reads the hooks.state tables of a config.toml; a missing
// file has none.
func hookStates(path string) (map[string]hookState, error) {
	b, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Hooks struct {
			State map[string]hookState `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg.Hooks.State, nil
}

// trustBlock is what install --trust appends to config.toml: the trust
// record /hooks would write for picket's hook, and nothing else.
func trustBlock(key, hash string) string {
	return "\n# Written by 'picket install codex --trust': Codex runs picket's own hook.\n" +
		"[hooks.state." + tomlQuote(key) + "]\ntrusted_hash = " + tomlQuote(hash) + "\n"
}

// addTrust returns config.toml with block appended (and old, a block an
// earlier install appended, taken out), or an error where config.toml
// already says something else about that hook: a state the person set
// themselves is theirs to change, in /hooks.
func addTrust(config []byte, key, hash, block, old string) ([]byte, error) {
	if old != "" {
		if i := bytes.LastIndex(config, []byte(old)); i >= 0 {
			config = append(append([]byte(nil), config[:i]...), config[i+len(old):]...)
		}
	}
	var cfg struct {
		Hooks struct {
			State map[string]hookState `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(config), &cfg); err != nil {
		return nil, fmt.Errorf("config.toml: %w", err)
	}
	if st, ok := cfg.Hooks.State[key]; ok {
		if st.TrustedHash == hash && (st.Enabled == nil || *st.Enabled) {
			return config, nil
		}
		return nil, fmt.Errorf("config.toml already holds a state for %s (set in Codex's /hooks, or by hand); trust picket's hook in /hooks instead", key)
	}
	if inlineState(config) {
		return nil, errors.New("config.toml sets hooks or hooks.state inline, where a [hooks.state.\"…\"] table cannot be added; trust picket's hook in Codex's /hooks instead")
	}
	out := append(append([]byte(nil), config...), block...)
	if len(config) > 0 && !bytes.HasSuffix(config, []byte("\n")) {
		out = append(append(append([]byte(nil), config...), '\n'), block...)
	}
	if _, err := toml.Decode(string(out), &cfg); err != nil {
		return nil, fmt.Errorf("config.toml would not parse with picket's trust record added (%w); trust picket's hook in Codex's /hooks instead", err)
	}
	return out, nil
}

// inlineState reports whether config.toml sets hooks (at the top) or
// hooks.state (in [hooks]) by a key rather than a table header: TOML
// forbids adding a table to an inline one, and Codex would then load no
// config at all. A line scan, cautious: it may refuse a file it need not.
func inlineState(config []byte) bool {
	table := ""
	for _, line := range strings.Split(string(config), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			table = strings.Join(strings.Fields(strings.Trim(l, "[]")), "")
			continue
		}
		parts := strings.FieldsFunc(l, func(r rune) bool { return r == '=' || r == '.' })
		if len(parts) == 0 || strings.HasPrefix(l, "#") {
			continue
		}
		key := strings.Trim(strings.TrimSpace(parts[0]), `"'`)
		if table == "" && key == "hooks" || table == "hooks" && key == "state" {
			return true
		}
	}
	return false
}

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// readSmall reads a configuration file of Codex's, which must be a
// regular file of at most 16 MiB.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > 16<<20 {
		return nil, fmt.Errorf("%s is larger than 16 MiB", path)
	}
	return os.ReadFile(path)
}

// trust is the Agent's Trust, for picket doctor: whether Codex runs
// picket's hook in the project at o.Dir, from the user's hooks.json or the
// project's, as config.toml records the trust Codex asks for each.
func trust(o hook.InstallOptions) hook.TrustState {
	home, err := Home(o.Getenv)
	if err != nil {
		return hook.TrustState{Detail: err.Error(), Fix: "set HOME or CODEX_HOME"}
	}
	config := filepath.Join(home, "config.toml")
	root := hook.GitTop(o.Dir, o.Env)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	var notes []string
	for _, hooks := range []string{filepath.Join(home, "hooks.json"), filepath.Join(root, ".codex", "hooks.json")} {
		st, err := Trust(home, hooks)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		for _, h := range st {
			if h.Status != Trusted {
				notes = append(notes, fmt.Sprintf("picket's hook in %s is %s (hooks.state %q in %s)", hooks, h.Status, h.Key, config))
				continue
			}
			if hooks != filepath.Join(home, "hooks.json") && !projectTrusted(config, root) {
				notes = append(notes, fmt.Sprintf("picket's hook in %s is trusted, but the project %s is not, so Codex does not load its .codex", hooks, root))
				continue
			}
			return hook.TrustState{Trusted: true, Detail: fmt.Sprintf("picket's hook in %s is trusted (hooks.state %q in %s)", hooks, h.Key, config)}
		}
	}
	if len(notes) == 0 {
		notes = append(notes, "no hook of picket's in "+filepath.Join(home, "hooks.json")+" or "+filepath.Join(root, ".codex", "hooks.json"))
	}
	return hook.TrustState{Detail: strings.Join(notes, "; "),
		Fix: "run 'picket install codex --trust', or trust picket's PreToolUse hook in Codex's /hooks (Codex skips it without a word until then)"}
}

// projectTrusted reports whether config.toml trusts the project at root.
func projectTrusted(config, root string) bool {
	b, err := readSmall(config)
	if err != nil {
		return false
	}
	var cfg struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return false
	}
	return cfg.Projects[root].TrustLevel == "trusted"
}
