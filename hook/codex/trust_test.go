package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestTrust reads what Codex does with picket's hook from config.toml:
// run it (its hash trusted), skip it (no record, a hash of another
// command, or enabled = false).
func TestTrust(t *testing.T) {
	home := t.TempDir()
	hooks := filepath.Join(home, "hooks.json")
	cmd := HookCommand("/opt/picket", "")
	b, _ := AddHook(nil, cmd)
	os.WriteFile(hooks, b, 0o644)
	key := TrustKey(hooks, 0)
	for _, tt := range []struct {
		config string
		want   TrustStatus
	}{
		{"", Untrusted},
		{`model = "x"`, Untrusted},
		{trustBlock(key, HookHash(cmd)), Trusted},
		{trustBlock(key, HookHash(HookCommand("/old/picket", ""))), Modified},
		{"[hooks.state." + tomlQuote(key) + "]\nenabled = false\ntrusted_hash = " + tomlQuote(HookHash(cmd)) + "\n", Disabled},
	} {
		os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o644)
		got, err := Trust(home, hooks)
		if err != nil || len(got) != 1 || got[0].Status != tt.want || got[0].Key != key {
			t.Errorf("config %q: Trust = %+v, %v; want %s for %s", tt.config, got, err, tt.want, key)
		}
	}
}

// TestAddTrust: --trust appends the record /hooks would write, replaces
// the one an earlier install appended, and refuses to override a state
// the person set, or to leave a config.toml that does not parse.
func TestAddTrust(t *testing.T) {
	key, hash := TrustKey("/h/.codex/hooks.json", 2), HookHash(HookCommand("/opt/picket", ""))
	block := trustBlock(key, hash)
	out, err := addTrust([]byte("model = \"gpt-5.5\""), key, hash, block, "")
	if err != nil || string(out) != "model = \"gpt-5.5\"\n"+block {
		t.Fatalf("addTrust = %q, %v", out, err)
	}
	if again, err := addTrust(out, key, hash, block, block); err != nil || string(again) != string(out) {
		t.Errorf("a second --trust = %q, %v; want the same file", again, err)
	}
	newHash := HookHash(HookCommand("/new/picket", ""))
	moved, err := addTrust(out, key, newHash, trustBlock(key, newHash), block)
	if err != nil || strings.Contains(string(moved), hash) || !strings.Contains(string(moved), newHash) {
		t.Errorf("--trust after picket moved = %q, %v; want the new hash alone", moved, err)
	}
	person := "[hooks.state." + tomlQuote(key) + "]\nenabled = false\n"
	if _, err := addTrust([]byte(person), key, hash, block, ""); err == nil {
		t.Errorf("--trust overrode the person's own state for the hook")
	}
	if _, err := addTrust([]byte("hooks = { state = {} }\n"), key, hash, block, ""); err == nil {
		t.Errorf("--trust left a config.toml that does not parse")
	}
}

// TestInstallTrust: install --trust leaves picket's hook trusted as
// doctor reads it (Agent.Trust); a plain install says it is not and what
// to do; uninstall takes the trust record out with the hook, and the
// files install created.
func TestInstallTrust(t *testing.T) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(home, 0o755)
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	var hints []string
	say := func(f string, a ...any) { hints = append(hints, fmt.Sprintf(f, a...)) }
	o := hook.InstallOptions{Exe: "/opt/picket/bin/picket", Home: home, StateDir: filepath.Join(base, "state"),
		Getenv: func(k string) string { return env[k] }, Dir: proj, Info: say, Warn: say, Hint: say}
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if st := trust(o); st.Trusted || st.Fix == "" {
		t.Errorf("after a plain install: %+v, want untrusted and a fix", st)
	}
	if !strings.Contains(strings.Join(hints, "\n"), "/hooks") {
		t.Errorf("install did not say how to trust the hook:\n%s", strings.Join(hints, "\n"))
	}
	o.Trust = true
	if err := install(o); err != nil {
		t.Fatal(err)
	}
	if st := trust(o); !st.Trusted {
		t.Errorf("after install --trust: %+v, want trusted", st)
	}
	if err := uninstall(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); !os.IsNotExist(err) {
		t.Errorf("uninstall left ~/.codex (%v)", err)
	}
}
