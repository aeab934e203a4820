package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/internal/testenv"
)

// TestServeAnnounce: a plugin's announcement is kept in the state dir for
// picket doctor, stamped with the agent and picket's version; one that
// names no absolute file is refused.
func TestServeAnnounce(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env, "--agent", "opencode")
	file := filepath.Join(h.dir, ".opencode", "plugins", "picket.js")
	sc.ok("announce", map[string]any{"cwd": h.dir, "plugin": map[string]any{"file": file, "version": "1", "sha256": "ab", "worktree": h.dir}})
	a, err := hook.LastAnnouncement(filepath.Join(h.state, "picket"), "opencode")
	if err != nil {
		t.Fatal(err)
	}
	if a.Agent != "opencode" || a.Plugin != file || a.Version != "1" || a.Directory != h.dir || a.Picket != picketVersion() || a.Time.IsZero() {
		t.Errorf("announcement = %+v", a)
	}
	for _, bad := range []map[string]any{
		{"cwd": h.dir, "plugin": map[string]any{"file": "picket.js", "version": "1"}},
		{"cwd": "rel", "plugin": map[string]any{"file": file, "version": "1"}},
		{"cwd": h.dir, "plugin": map[string]any{"file": file}},
		{"cwd": h.dir, "plugin": map[string]any{"file": 7, "version": "1"}},
	} {
		if res := sc.call("announce", bad); res["ok"] != false {
			t.Errorf("announce %v = %v, want refused", bad, res)
		}
	}
}

// TestServeAskHeadless: with ask and no one to ask (CI), a grantable
// block is final at once and audited; an allow is an allow; ask and
// prompt together are refused.
func TestServeAskHeadless(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env, "--agent", "opencode")
	params := func(input map[string]any) map[string]any {
		return map[string]any{"session": h.session, "turn": "m1", "cwd": h.dir, "tool": "read", "input": input, "ask": true}
	}
	res := sc.ok("decide", params(map[string]any{"filePath": ".env"}))
	if res["allow"] != false || res["promptable"] == true || !strings.HasPrefix(res["message"].(string), "picket: blocked read") {
		t.Errorf("ask read .env, headless = %v, want a final block", res)
	}
	res = sc.ok("decide", params(map[string]any{"filePath": "README.md"}))
	if res["allow"] != true || res["judged"] != true {
		t.Errorf("ask read README.md = %v, want an allow", res)
	}
	both := params(map[string]any{"filePath": ".env"})
	both["prompt"] = true
	if res := sc.call("decide", both); res["ok"] != false {
		t.Errorf("decide with prompt and ask = %v, want refused", res)
	}
	lines := auditLines(t, h.auditPath())
	if len(lines) != 1 || lines[0]["decision"] != "block" || lines[0]["agent"] != "opencode" || lines[0]["session"] != h.session {
		t.Errorf("audit = %v, want one block naming opencode and the session", lines)
	}
}

// TestServeAskConsole: with a person at picket console and ask, picket
// serve (no terminal, no tmux, as under opencode) puts the block to them;
// "once" lets the call through, and the audit says grant-once for opencode.
func TestServeAskConsole(t *testing.T) {
	testenv.Tmux(t)
	if testing.Short() {
		t.Skip("slow: runs picket console in tmux")
	}
	base := sandboxScratch(t)
	bin := picketBin(t, base)
	home, proj, runtime := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "run")
	for _, d := range []string{home, filepath.Join(proj, ".git"), runtime} {
		os.MkdirAll(d, 0o700)
	}
	secret := filepath.Join(base, "outside.txt")
	os.WriteFile(secret, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(proj, "fence.jsonc"), []byte(`{"filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`), 0o644)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config", "XDG_RUNTIME_DIR=" + runtime, "PATH=" + os.Getenv("PATH")}

	p := &tmuxPrompt{t: t, socket: fmt.Sprintf("picket-serve-ask-%d", time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "prompt", "-x", "100", "-y", "30",
		"env "+strings.Join(quoteAll(env), " ")+" "+shellQuote(bin)+" console")
	t.Cleanup(func() { p.run("kill-server") })
	p.waitScreen("waiting for grant requests")

	serve := exec.Command(bin, "serve", "--agent", "opencode")
	serve.Env = env // no CI, no TMUX
	serve.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, _ := serve.StdinPipe()
	out, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); serve.Process.Kill(); serve.Wait() })
	req, _ := json.Marshal(map[string]any{"id": 1, "op": "decide", "session": "s1", "turn": "m1", "cwd": proj, "tool": "read",
		"input": map[string]any{"filePath": secret}, "ask": true})
	in.Write(append(req, '\n'))
	p.waitScreen("Allow read of this path?")
	p.waitScreen("Enter/Esc deny")
	p.key("a")
	lines := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		lines <- l
	}()
	var res map[string]any
	select {
	case l := <-lines:
		json.Unmarshal([]byte(l), &res)
	case <-time.After(20 * time.Second):
		t.Fatalf("picket serve never answered; console:\n%s", p.screen())
	}
	if res["ok"] != true || res["allow"] != true {
		t.Fatalf("decide with ask, granted once = %v, want an allow", res)
	}
	b, _ := os.ReadFile(filepath.Join(home, "state", "picket", "audit.log"))
	if !strings.Contains(string(b), `"decision":"grant-once"`) || !strings.Contains(string(b), `"agent":"opencode"`) {
		t.Fatalf("audit log has no grant-once for opencode:\n%s", b)
	}
}
