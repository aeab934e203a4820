package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
