package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/picketdev/picket/sandbox"
)

// serveClient drives the real `picket serve` in-process over pipes.
type serveClient struct {
	t      testing.TB
	in     *io.PipeWriter
	out    *bufio.Reader
	code   chan int
	stderr *lockedBuffer
	next   int
}

// lockedBuffer is a bytes.Buffer that a goroutine of the command under test
// and the test itself share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startServe(t testing.TB, env []string, args ...string) *serveClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sc := &serveClient{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), code: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() {
		code := run(append([]string{"serve"}, args...), env, inR, outW, sc.stderr)
		outW.Close()
		sc.code <- code
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-sc.code:
		case <-time.After(10 * time.Second):
			t.Errorf("picket serve did not end after EOF")
		}
	})
	return sc
}

// send writes one raw line.
func (sc *serveClient) send(line string) {
	sc.t.Helper()
	if _, err := io.WriteString(sc.in, line+"\n"); err != nil {
		sc.t.Fatalf("write to serve: %v", err)
	}
}

// recv reads one response line, which must be one JSON object.
func (sc *serveClient) recv() map[string]any {
	sc.t.Helper()
	line, err := sc.out.ReadBytes('\n')
	if err != nil {
		sc.t.Fatalf("read from serve: %v (stderr: %s)", err, sc.stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		sc.t.Fatalf("response is not a JSON object: %v\n%s", err, line)
	}
	return m
}

// call sends one request with a fresh id and returns its response.
func (sc *serveClient) call(op string, params map[string]any) map[string]any {
	sc.t.Helper()
	sc.next++
	req := map[string]any{"id": sc.next, "op": op}
	for k, v := range params {
		req[k] = v
	}
	b, _ := json.Marshal(req)
	sc.send(string(b))
	res := sc.recv()
	if res["id"] != float64(sc.next) {
		sc.t.Fatalf("%s: response id = %v, want %d", op, res["id"], sc.next)
	}
	return res
}

// ok is call for a request that must succeed.
func (sc *serveClient) ok(op string, params map[string]any) map[string]any {
	sc.t.Helper()
	res := sc.call(op, params)
	if res["ok"] != true {
		sc.t.Fatalf("%s %v: %v", op, params, res["error"])
	}
	return res
}

// end closes stdin and returns the exit status.
func (sc *serveClient) end() int {
	sc.t.Helper()
	sc.in.Close()
	io.Copy(io.Discard, sc.out)
	select {
	case code := <-sc.code:
		sc.code <- code
		return code
	case <-time.After(10 * time.Second):
		sc.t.Fatal("picket serve did not end after EOF")
	}
	return -1
}

// interactive is the project's env without CI: a person can be asked.
func (h *hookProject) interactive() []string {
	var env []string
	for _, kv := range h.env {
		if !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	return env
}

func (h *hookProject) decideParams(session, tool string, input map[string]any, prompt bool) map[string]any {
	return map[string]any{"session": session, "turn": "t1", "cwd": h.dir, "tool": tool, "input": input, "prompt": prompt}
}

func decisionOf(t testing.TB, res map[string]any) map[string]any {
	t.Helper()
	d, ok := res["decision"].(map[string]any)
	if !ok {
		t.Fatalf("response has no decision: %v", res)
	}
	return d
}

func TestServeHello(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	res := sc.ok("hello", nil)
	if res["protocol"] != float64(1) || res["picket"] != picketVersion() {
		t.Errorf("hello = %v, want protocol 1 and picket %s", res, picketVersion())
	}
	sc.send(`{"id":"a-string-id","op":"hello"}`)
	if res := sc.recv(); res["id"] != "a-string-id" || res["ok"] != true {
		t.Errorf("string id: %v", res)
	}
	if code := sc.end(); code != 0 {
		t.Errorf("exit status after EOF = %d, want 0", code)
	}
}

func TestServeDecide(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	s := h.session

	res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": "README.md"}, false))
	if res["judged"] != true || res["allow"] != true || decisionOf(t, res)["resolved"] != filepath.Join(h.dir, "README.md") {
		t.Errorf("read README.md = %v, want a judged allow", res)
	}
	res = sc.ok("decide", h.decideParams(s, "bash", map[string]any{"command": "cat .env"}, false))
	if res["judged"] != false || res["allow"] != true {
		t.Errorf("bash = %v, want not judged, allowed", res)
	}
	res = sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, false))
	d := decisionOf(t, res)
	if res["allow"] != false || d["layer"] != "blocklist" || res["grantable"] != true || res["promptable"] != false {
		t.Errorf("headless read .env = %v, want a grantable, unpromptable blocklist block", res)
	}
	b := checkBlock(t, res["message"].(string), "read")
	if b.Rule != "picket.blocklist" || strings.Contains(res["message"].(string), envSecret) {
		t.Errorf("block message = %s", res["message"])
	}
	res = sc.ok("decide", h.decideParams(s, "read", map[string]any{}, false))
	if res["allow"] != false || !strings.HasPrefix(res["message"].(string), "picket: error: read denied") {
		t.Errorf("read without a path = %v, want an error deny", res)
	}
	res = sc.ok("decide", map[string]any{"session": s, "cwd": "relative", "tool": "read", "input": map[string]any{"path": "x"}})
	if res["allow"] != false || !strings.Contains(res["message"].(string), "not an absolute path") {
		t.Errorf("relative cwd = %v, want an error deny", res)
	}
	// The unpromptable block and the error are audited now, as the hook does.
	var blocks, errs int
	for _, e := range auditLines(t, h.auditPath()) {
		if e["agent"] != "pi" {
			t.Errorf("audit line agent = %v, want pi", e["agent"])
		}
		switch e["decision"] {
		case "block":
			blocks++
			if e["session"] != s || e["layer"] != "blocklist" || e["tool"] != "read" {
				t.Errorf("block audit line = %v", e)
			}
		case "error":
			errs++
		}
	}
	if blocks != 1 || errs != 2 {
		t.Errorf("audit: %d blocks and %d errors, want 1 and 2", blocks, errs)
	}
}

func TestServePromptAndGrant(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	envPath := filepath.Join(h.dir, ".env")

	res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, true))
	req, _ := res["request"].(map[string]any)
	if res["promptable"] != true || req == nil || req["resolved"] != envPath || req["agent"] != "pi" || res["canPersist"] != false {
		t.Fatalf("interactive read .env = %v, want promptable, with a request that cannot persist (blocklist)", res)
	}
	if n := len(auditLines(t, h.auditPath())); n != 0 {
		t.Errorf("a promptable block was audited before the answer (%d lines)", n)
	}
	// The same block without a person to ask is final.
	if res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, false)); res["promptable"] != false {
		t.Errorf("prompt:false = %v, want not promptable", res)
	}

	grant := func(answer string) map[string]any {
		return sc.ok("grant", map[string]any{"session": s, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
			"path": envPath, "resolved": envPath, "answer": answer})
	}
	if res := grant("deny"); res["allow"] != false || res["decision"] != "block" {
		t.Errorf("grant deny = %v", res)
	}
	if res := grant("once"); res["allow"] != true || res["decision"] != "grant-once" {
		t.Errorf("grant once = %v", res)
	}
	if res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, true)); res["allow"] != false {
		t.Errorf("a once grant outlived its call: %v", res)
	}
	if res := grant("session"); res["allow"] != true || res["decision"] != "grant-session" {
		t.Errorf("grant session = %v", res)
	}
	if res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, true)); res["allow"] != true {
		t.Errorf("after a session grant, read .env = %v, want allow", res)
	}
	if res := sc.ok("decide", h.decideParams("other-session", "read", map[string]any{"path": ".env"}, true)); res["allow"] != false {
		t.Errorf("a session grant leaked into another session: %v", res)
	}
	var got []string
	for _, e := range auditLines(t, h.auditPath()) {
		got = append(got, fmt.Sprint(e["decision"], " ", e["layer"], " ", e["prompted"]))
	}
	// The prompt:false block is audited at once, unprompted; the others
	// with the person's answer.
	if want := "block blocklist <nil>,block blocklist true,grant-once blocklist true,grant-session blocklist true"; strings.Join(got, ",") != want {
		t.Errorf("audit decisions = %q, want %q", strings.Join(got, ","), want)
	}

	// A mandatory deny is no grant's to lift.
	hooks := filepath.Join(h.dir, ".git", "hooks", "pre-commit")
	res = sc.call("grant", map[string]any{"session": s, "cwd": h.dir, "tool": "write", "access": "write", "path": hooks, "resolved": hooks, "answer": "session"})
	if res["ok"] != false || !strings.Contains(res["error"].(string), "no grant lifts") {
		t.Errorf("grant of a mandatory deny = %v, want an error", res)
	}
	for _, bad := range []map[string]any{
		{"session": s, "cwd": h.dir, "access": "read", "resolved": envPath, "answer": "maybe"},
		{"session": s, "cwd": h.dir, "access": "sniff", "resolved": envPath, "answer": "once"},
		{"session": s, "cwd": h.dir, "access": "read", "resolved": "rel/path", "answer": "once"},
		{"cwd": h.dir, "access": "read", "resolved": envPath, "answer": "once"},
	} {
		if res := sc.call("grant", bad); res["ok"] != false {
			t.Errorf("grant %v = %v, want an error", bad, res)
		}
	}

	// session_end forgets the grant; restore brings it back without audit.
	sc.ok("session_end", map[string]any{"session": s})
	if res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, false)); res["allow"] != false {
		t.Errorf("a grant outlived session_end: %v", res)
	}
	lines := len(auditLines(t, h.auditPath()))
	sc.ok("grant", map[string]any{"session": s, "access": "read", "resolved": envPath, "restore": true})
	if res := sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, false)); res["allow"] != true {
		t.Errorf("after restore, read .env = %v, want allow", res)
	}
	if n := len(auditLines(t, h.auditPath())); n != lines {
		t.Errorf("restore wrote %d audit lines, want none", n-lines)
	}
}

func TestServePersist(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	out := "/etc/picket-serve-notes.txt" // t.TempDir() is under /tmp, which code allows writing
	write := map[string]any{"path": out, "content": "y"}
	res := sc.ok("decide", h.decideParams(h.session, "write", write, true))
	if res["promptable"] != true || res["canPersist"] != true || res["persistTarget"] != filepath.Join(h.dir, "fence.jsonc") || res["persistCreates"] != false {
		t.Fatalf("write outside = %v, want promptable and persistable to the project's fence.jsonc", res)
	}
	grant := map[string]any{"session": h.session, "turn": "t1", "cwd": h.dir, "tool": "write", "access": "write",
		"path": out, "resolved": out, "answer": "persist"}
	// A persist names the file the person confirmed; without it, or with
	// another, nothing is written and the grant holds for the session.
	for _, target := range []any{nil, filepath.Join(h.dir, "fence.json")} {
		grant["target"] = target
		if res := sc.ok("grant", grant); res["decision"] != "grant-session" {
			t.Errorf("grant persist into %v = %v, want grant-session", target, res)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "fence.jsonc")); string(b) != hookFence {
		t.Fatalf("fence.jsonc changed by an unconfirmed persist: %s", b)
	}
	grant["target"] = res["persistTarget"]
	res = sc.ok("grant", grant)
	if res["decision"] != "grant-persist" {
		t.Fatalf("grant persist = %v (stderr %s)", res, sc.stderr.String())
	}
	// A fresh session passes with no reload: the edited fence.jsonc is
	// noticed on the next call.
	if res := sc.ok("decide", h.decideParams("fresh-session", "write", write, true)); res["allow"] != true {
		t.Errorf("after persist, a new session's write = %v, want allow", res)
	}
}

// TestServePersistOnlyWhereRead: persist is offered only into a file the
// policy reads. A subdirectory with its own fence.jsonc is the policy
// there, so the project root's file would change nothing; and a new root
// file would take the place of a fence.jsonc in a directory above the
// project, dropping its rules.
func TestServePersistOnlyWhereRead(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	out := "/etc/picket-serve-notes.txt"
	sub := filepath.Join(h.dir, "sub")
	h.write("sub/fence.jsonc", hookFence)
	params := h.decideParams(h.session, "write", map[string]any{"path": out, "content": "y"}, true)
	params["cwd"] = sub
	if res := sc.ok("decide", params); res["promptable"] != true || res["canPersist"] == true {
		t.Errorf("write outside from sub/ = %v, want promptable, not persistable", res)
	}
	// A persist sent anyway is a session grant, and the root file stays.
	res := sc.ok("grant", map[string]any{"session": h.session, "turn": "t1", "cwd": sub, "tool": "write", "access": "write",
		"path": out, "resolved": out, "answer": "persist", "target": filepath.Join(h.dir, "fence.jsonc")})
	if res["decision"] != "grant-session" {
		t.Errorf("persist from sub/ = %v, want grant-session", res)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "fence.jsonc")); string(b) != hookFence {
		t.Errorf("the root fence.jsonc changed by a persist from sub/: %s", b)
	}
	above := filepath.Dir(h.dir)
	os.Remove(filepath.Join(h.dir, "fence.jsonc"))
	os.RemoveAll(sub)
	h.write(filepath.Join(above, "fence.jsonc"), hookFence)
	if res := sc.ok("decide", h.decideParams("other-session", "write", map[string]any{"path": out, "content": "y"}, true)); res["promptable"] != true || res["canPersist"] == true {
		t.Errorf("write outside under a parent's fence.jsonc = %v, want promptable, not persistable", res)
	}
}

// TestServeHeadlessGrantsNothing: with CI set every block is final; a
// grant op that would let a call through is refused, and a deny is taken.
func TestServeHeadlessGrantsNothing(t *testing.T) {
	h := newHookProject(t, hookFence) // CI=1
	sc := startServe(t, h.env)
	envPath := filepath.Join(h.dir, ".env")
	for _, answer := range []string{"once", "session", "persist", "allow-all-once"} {
		res := sc.call("grant", map[string]any{"session": h.session, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
			"path": envPath, "resolved": envPath, "answer": answer, "target": filepath.Join(h.dir, "fence.jsonc")})
		if res["ok"] != false || !strings.Contains(fmt.Sprint(res["error"]), "headless") {
			t.Errorf("headless grant %s = %v, want refused", answer, res)
		}
	}
	if res := sc.call("grant", map[string]any{"session": h.session, "access": "read", "resolved": envPath, "restore": true}); res["ok"] != false {
		t.Errorf("headless restore = %v, want refused", res)
	}
	if res := sc.ok("decide", h.decideParams(h.session, "read", map[string]any{"path": ".env"}, false)); res["allow"] != false {
		t.Errorf("after refused grants, read .env = %v, want a block", res)
	}
	if res := sc.ok("grant", map[string]any{"session": h.session, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
		"path": envPath, "resolved": envPath, "answer": "deny"}); res["allow"] != false {
		t.Errorf("headless deny = %v", res)
	}
}

func TestServeBatchAndDenyAll(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	var res map[string]any
	for i, name := range []string{"a", "b", "c"} {
		p := "/etc/picket-serve-" + name
		res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": p, "content": "y"}, true))
		if wantBatch := i == 2; res["batch"] != wantBatch {
			t.Errorf("denial %d: batch = %v, want %v", i+1, res["batch"], wantBatch)
		}
	}
	if paths, _ := res["batchPaths"].([]any); len(paths) != 3 {
		t.Errorf("batchPaths = %v, want the 3 paths denied this turn", res["batchPaths"])
	}
	if req := res["request"].(map[string]any); len(req["batch"].([]any)) != 3 {
		t.Errorf("prompt request batch = %v", req["batch"])
	}
	a := "/etc/picket-serve-a"
	sc.ok("grant", map[string]any{"session": s, "turn": "t1", "cwd": h.dir, "tool": "write", "access": "write", "path": a, "resolved": a, "answer": "deny-all"})
	res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": a}, true))
	if res["promptable"] != false || !strings.Contains(res["message"].(string), "deny all") {
		t.Errorf("after deny-all = %v, want an unpromptable block naming it", res)
	}
	sc.ok("turn_end", map[string]any{"session": s})
	res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": a}, true))
	if res["promptable"] != true || res["batch"] != false {
		t.Errorf("after turn_end = %v, want promptable again, no batch", res)
	}
}

// TestServeBatchCountsPaths: a read and a write of one file are one denied
// path toward batchAfter, listed once in the batch with both accesses.
func TestServeBatchCountsPaths(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	env := filepath.Join(h.dir, ".env")
	calls := []struct {
		tool  string
		input map[string]any
	}{
		{"read", map[string]any{"path": ".env"}},
		{"write", map[string]any{"path": ".env", "content": "y"}},
		{"write", map[string]any{"path": "/etc/picket-paths-b1", "content": "y"}},
		{"write", map[string]any{"path": "/etc/picket-paths-b2", "content": "y"}},
	}
	var res map[string]any
	for i, c := range calls {
		res = sc.ok("decide", h.decideParams(s, c.tool, c.input, true))
		if wantBatch := i == 3; res["promptable"] != true || res["batch"] != wantBatch {
			t.Fatalf("denial %d (%s %v) = %v, want promptable, batch %v", i+1, c.tool, c.input["path"], res, wantBatch)
		}
	}
	want := []any{env, "/etc/picket-paths-b1", "/etc/picket-paths-b2"}
	if got, _ := res["batchPaths"].([]any); !slices.Equal(got, want) {
		t.Errorf("batchPaths = %v, want %v", got, want)
	}
	batch := res["request"].(map[string]any)["batch"].([]any)
	if len(batch) != 3 || batch[0].(map[string]any)["access"] != "read, write" {
		t.Errorf("prompt request batch = %v, want 3 items, .env with read, write", batch)
	}
}

// TestServeGrantedNotBatched: a path the person granted is no longer one of
// the turn's denials: a later batch neither counts nor lists it.
func TestServeGrantedNotBatched(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	env := filepath.Join(h.dir, ".env")
	sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, true))
	sc.ok("grant", map[string]any{"session": s, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
		"path": env, "resolved": env, "answer": "session"})
	var res map[string]any
	for i, name := range []string{"x", "y", "z"} {
		res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": "/etc/picket-granted-" + name, "content": "y"}, true))
		if wantBatch := i == 2; res["batch"] != wantBatch {
			t.Fatalf("denial of %s after granting .env = %v, want batch %v", name, res, wantBatch)
		}
	}
	want := []any{"/etc/picket-granted-x", "/etc/picket-granted-y", "/etc/picket-granted-z"}
	if got, _ := res["batchPaths"].([]any); !slices.Equal(got, want) {
		t.Errorf("batchPaths = %v, want %v (not the granted %s)", got, want, env)
	}
}

// TestServeAllowAllOnce: answering a batch with "allow all once" lets the
// asked path through, and each other path of the batch once more in that
// turn, audited as grant-once; a third try is asked about again.
func TestServeAllowAllOnce(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	for _, name := range []string{"a", "b", "c"} {
		sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": "/etc/picket-once-" + name, "content": "y"}, true))
	}
	c := "/etc/picket-once-c"
	res := sc.ok("grant", map[string]any{"session": s, "turn": "t1", "cwd": h.dir, "tool": "write", "access": "write", "path": c, "resolved": c, "answer": "allow-all-once"})
	if res["allow"] != true || res["decision"] != "grant-once" {
		t.Fatalf("grant allow-all-once = %v, want an allowed grant-once", res)
	}
	a := "/etc/picket-once-a"
	res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": a, "content": "y"}, true))
	if res["allow"] != true {
		t.Fatalf("retry of a batched path after allow-all-once = %v, want allowed", res)
	}
	res = sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": a, "content": "y"}, true))
	if res["allow"] != false || res["promptable"] != true {
		t.Fatalf("second retry = %v, want asked again", res)
	}
	log, _ := os.ReadFile(filepath.Join(h.state, "picket", "audit.log"))
	if n := strings.Count(string(log), `"decision":"grant-once"`); n != 2 {
		t.Errorf("audit has %d grant-once lines, want 2 (the answer and the retry):\n%s", n, log)
	}
}

func TestServeModes(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	write := map[string]any{"path": "out.txt", "content": "x"}
	if res := sc.ok("mode", map[string]any{"session": "a", "mode": "read-only"}); res["mode"] != "read-only" {
		t.Errorf("mode = %v", res)
	}
	if res := sc.ok("decide", h.decideParams("a", "write", write, false)); res["allow"] != false || decisionOf(t, res)["layer"] != "mode" {
		t.Errorf("write in read-only session a = %v, want a mode block", res)
	}
	if res := sc.ok("decide", h.decideParams("b", "write", write, false)); res["allow"] != true {
		t.Errorf("write in session b = %v, want allow: a's mode leaked", res)
	}
	if res := sc.ok("status", map[string]any{"cwd": h.dir, "session": "a"}); res["mode"] != "read-only" {
		t.Errorf("status of a = %v", res)
	}
	if res := sc.ok("status", map[string]any{"cwd": h.dir, "session": "b"}); res["mode"] != "workspace-write" {
		t.Errorf("status of b = %v", res)
	}
	for _, bad := range []string{"", "yolo"} {
		if res := sc.call("mode", map[string]any{"session": "a", "mode": bad}); res["ok"] != false {
			t.Errorf("mode %q = %v, want an error", bad, res)
		}
	}
	sc.ok("mode", map[string]any{"session": "a", "mode": "full"})
	if res := sc.ok("decide", h.decideParams("a", "write", write, false)); res["allow"] != true {
		t.Errorf("write in full session a = %v, want allow", res)
	}
}

func TestServePolicyOps(t *testing.T) {
	h := newHookProject(t, `{"extends": "code", "picket": {"blocklist": [".env"]}, "filesystem": {"denyRead": ["*.{pem,key}"]}}`)
	sc := startServe(t, h.env)
	fence := filepath.Join(h.dir, "fence.jsonc")

	res := sc.ok("status", map[string]any{"cwd": h.dir})
	if res["root"] != h.dir || res["sandbox"] != false || fmt.Sprint(res["chain"]) != fmt.Sprint([]any{"builtin:code", fence}) {
		t.Errorf("status = %v", res)
	}
	// The footer says when Landlock is missing: status carries the ABI
	// and the line picket show prints.
	st := sandbox.Probe("", "") // h.env has no PATH
	if res["landlock"] != float64(st.Landlock) || res["shell"] != st.String() {
		t.Errorf("status landlock, shell = %v, %q; want %d, %q", res["landlock"], res["shell"], st.Landlock, st.String())
	}
	res = sc.ok("reload", map[string]any{"cwd": h.dir})
	if fmt.Sprint(res["chain"]) != fmt.Sprint([]any{"builtin:code", fence}) {
		t.Errorf("reload = %v", res)
	}
	// show answers what `picket show --json` prints.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"show", "--json", "--cwd", h.dir}, h.env, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("picket show: %s", stderr.String())
	}
	var want map[string]any
	json.Unmarshal(stdout.Bytes(), &want)
	want["id"], want["ok"] = float64(sc.next+1), true
	if got := sc.ok("show", map[string]any{"cwd": h.dir}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("show mismatch:\n got %v\nwant %v", got, want)
	}
	res = sc.ok("lint", map[string]any{"cwd": h.dir})
	ws, _ := res["warnings"].([]any)
	if len(ws) == 0 {
		t.Fatalf("lint of a brace = %v, want warnings", res)
	}
	var fromFence bool
	for _, w := range ws {
		w := w.(map[string]any)
		for _, k := range []string{"file", "line", "col", "code", "msg", "text"} {
			if _, ok := w[k]; !ok {
				t.Errorf("lint warning has no %q: %v", k, w)
			}
		}
		fromFence = fromFence || w["file"] == fence && strings.HasPrefix(w["text"].(string), fence+":")
	}
	if !fromFence {
		t.Errorf("lint warnings = %v, want one in %s", ws, fence)
	}
	// The notes picket lint prints come too: the denyRead glob is held by
	// the file tools only for files made later.
	var cli bytes.Buffer
	run([]string{"lint", "--cwd", h.dir}, h.env, nil, &cli, io.Discard)
	notes, _ := res["notes"].([]any)
	if len(notes) == 0 {
		t.Errorf("lint answered no notes: %v", res)
	}
	for _, n := range notes {
		if text, _ := n.(map[string]any)["text"].(string); !strings.Contains(cli.String(), text+"\n") {
			t.Errorf("lint note %q is not a line picket lint prints:\n%s", text, cli.String())
		}
	}
	if res := sc.call("show", map[string]any{"cwd": "nowhere"}); res["ok"] != false {
		t.Errorf("show of a relative cwd = %v, want an error", res)
	}
}

func TestServeLog(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	for _, s := range []string{"a", "b", "a"} {
		sc.ok("decide", h.decideParams(s, "read", map[string]any{"path": ".env"}, false))
	}
	sc.ok("decide", h.decideParams("a", "read", map[string]any{}, false))
	res := sc.ok("log", map[string]any{"n": 10})
	if es := res["entries"].([]any); len(es) != 4 {
		t.Errorf("log n=10 = %d entries, want 4", len(es))
	}
	res = sc.ok("log", map[string]any{"n": 10, "session": "a", "decision": "block"})
	es := res["entries"].([]any)
	if len(es) != 2 {
		t.Fatalf("log of a's blocks = %v, want 2 entries", es)
	}
	if e := es[0].(map[string]any); e["session"] != "a" || e["decision"] != "block" || e["resolved"] != filepath.Join(h.dir, ".env") {
		t.Errorf("log entry = %v", e)
	}
	if es := sc.ok("log", map[string]any{"n": 1}); len(es["entries"].([]any)) != 1 {
		t.Errorf("log n=1 = %v", es)
	}
}

func TestServeReadBeforeEdit(t *testing.T) {
	h := newHookProject(t, `{"extends": "code", "picket": {"writeGuards": {"readBeforeEdit": true}}}`)
	sc := startServe(t, h.env)
	edit := map[string]any{"path": "README.md", "edits": []any{map[string]any{"oldText": "#", "newText": "##"}}}
	if res := sc.ok("decide", h.decideParams("s", "edit", edit, false)); res["allow"] != false {
		t.Errorf("edit before read = %v, want a block", res)
	}
	sc.ok("tool_result", map[string]any{"session": "s", "cwd": h.dir, "tool": "read", "input": map[string]any{"path": "README.md"}})
	if res := sc.ok("decide", h.decideParams("s", "edit", edit, false)); res["allow"] != true {
		t.Errorf("edit after read = %v, want allow", res)
	}
}

// TestServeReload: a hand edit of fence.jsonc, and a fence.jsonc that
// appears in the working directory, apply to the next decide without a
// reload op.
func TestServeReload(t *testing.T) {
	h := newHookProject(t, hookFence)
	settle()
	sc := startServe(t, h.env)
	readme := map[string]any{"path": "README.md"}
	if res := sc.ok("decide", h.decideParams("s", "read", readme, false)); res["allow"] != true {
		t.Fatalf("read README.md = %v", res)
	}
	h.write("fence.jsonc", `{"extends": "code", "picket": {"blocklist": [".env", "README.md"]}}`)
	settle()
	if res := sc.ok("decide", h.decideParams("s", "read", readme, false)); res["allow"] != false {
		t.Errorf("after blocklisting README.md, read = %v, want a block", res)
	}
	// Same size: only the file's times differ.
	h.write("fence.jsonc", `{"extends": "code", "picket": {"blocklist": [".env", "READMX.md"]}}`)
	settle()
	if res := sc.ok("decide", h.decideParams("s", "read", readme, false)); res["allow"] != true {
		t.Errorf("after a same-size edit, read = %v, want allow", res)
	}

	// A new fence.jsonc below the project's, in the working directory.
	sub := filepath.Join(h.dir, "src")
	params := map[string]any{"session": "s", "cwd": sub, "tool": "read", "input": map[string]any{"path": "main.go"}}
	if res := sc.ok("decide", params); res["allow"] != true {
		t.Fatalf("read src/main.go = %v", res)
	}
	base := h.write("conf/base.jsonc", hookFence)
	settle()
	h.write("src/fence.jsonc", `{"extends": "../conf/base.jsonc", "filesystem": {"denyRead": ["`+filepath.Join(sub, "main.go")+`"]}}`)
	settle()
	res := sc.ok("decide", params)
	if res["allow"] != false || decisionOf(t, res)["source"] != filepath.Join(sub, "fence.jsonc") {
		t.Errorf("after src/fence.jsonc appeared, read = %v, want a block from it", res)
	}
	h.write("src/fence.jsonc", `{"extends": "../conf/base.jsonc"}`)
	settle()
	if res := sc.ok("decide", params); res["allow"] != true {
		t.Errorf("after the rule went, read = %v, want allow", res)
	}
	// Its extends target, in no place discovery looks, is watched too.
	h.write(base, `{"extends": "code", "filesystem": {"denyRead": ["**/*.go"]}}`)
	settle()
	if res := sc.ok("decide", params); res["allow"] != false || decisionOf(t, res)["source"] != base {
		t.Errorf("after the base changed, read = %v, want a block from the base", res)
	}
	// A broken policy denies, and its fix is noticed.
	h.write("src/fence.jsonc", `{"extends": `)
	settle()
	if res := sc.ok("decide", params); res["allow"] != false || !strings.HasPrefix(res["message"].(string), "picket: error:") {
		t.Errorf("broken policy = %v, want an error deny", res)
	}
	if res := sc.call("reload", map[string]any{"cwd": sub}); res["ok"] != false {
		t.Errorf("reload of a broken policy = %v, want an error", res)
	}
	os.Remove(filepath.Join(sub, "fence.jsonc"))
	settle()
	h.write("fence.jsonc", hookFence)
	settle()
	if res := sc.ok("decide", params); res["allow"] != true {
		t.Errorf("after the fix, read = %v, want allow", res)
	}
}

// settle waits until files just written are older than the sidecar
// cache's racy window (50 ms).
func settle() { time.Sleep(60 * time.Millisecond) }

// TestServeBadLines: every bad line gets an error response and the server
// goes on serving.
func TestServeBadLines(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	tests := []struct {
		line, id, err string
	}{
		{`not json`, "<nil>", "not JSON"},
		{`[1,2]`, "<nil>", "cannot unmarshal array"},
		{`"str"`, "<nil>", "cannot unmarshal string"},
		{`{"op":"hello"}`, "<nil>", "no id"},
		{`{"id":{"x":1},"op":"hello"}`, "<nil>", "no id"},
		{`{"id":7}`, "7", "no op"},
		{`{"id":8,"op":"frobnicate"}`, "8", `unknown op "frobnicate"`},
		{`{"id":9,"op":"decide","session":5}`, "9", "bad request"},
		{`{"id":10,"op":"turn_end"}`, "10", "needs a session"},
		{`{"id":11,"op":"decide","turn":{}}`, "11", "bad request"},
		{`{"id":"x","op":"hello"` + "\x00", "<nil>", "not JSON"},
	}
	for _, tt := range tests {
		sc.send(tt.line)
		res := sc.recv()
		if fmt.Sprint(res["id"]) != tt.id || res["ok"] != false || !strings.Contains(fmt.Sprint(res["error"]), tt.err) {
			t.Errorf("%q → %v, want id %s and an error with %q", tt.line, res, tt.id, tt.err)
		}
	}
	// A blank line is no request: nothing answers it.
	sc.send("   ")
	// 17 MiB on one line: an error, then the next line is served.
	huge := `{"id":99,"op":"hello","pad":"` + strings.Repeat("x", 17<<20) + `"}`
	go sc.send(huge + "\n" + `{"id":100,"op":"hello"}`)
	if res := sc.recv(); res["id"] != nil || !strings.Contains(res["error"].(string), "longer than") {
		t.Errorf("17 MiB line → %v, want a line-level error", res)
	}
	if res := sc.recv(); res["id"] != float64(100) || res["ok"] != true {
		t.Errorf("after the huge line → %v, want hello answered", res)
	}
	sc.ok("hello", nil)
	if code := sc.end(); code != 0 {
		t.Errorf("exit status = %d, want 0", code)
	}
	if s := sc.stderr.String(); s != "" {
		t.Errorf("stderr = %q, want nothing", s)
	}
}

// TestServePipelined sends 500 decides before reading any answer: every
// one is answered once, with its own id and its own decision.
func TestServePipelined(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.env)
	const n = 500
	go func() {
		var b strings.Builder
		for i := range n {
			path := "README.md"
			if i%2 == 1 {
				path = ".env"
			}
			fmt.Fprintf(&b, `{"id":"r%d","op":"decide","session":"s%d","cwd":%q,"tool":"read","input":{"path":%q}}`+"\n", i, i%7, h.dir, path)
		}
		io.WriteString(sc.in, b.String())
		sc.in.Close() // EOF with 500 in flight: all are still answered
	}()
	seen := map[string]bool{}
	for range n {
		res := sc.recv()
		id, _ := res["id"].(string)
		var i int
		if _, err := fmt.Sscanf(id, "r%d", &i); err != nil || seen[id] {
			t.Fatalf("unexpected or repeated id %v", res["id"])
		}
		seen[id] = true
		if want := i%2 == 0; res["allow"] != want {
			t.Errorf("%s: allow = %v, want %v", id, res["allow"], want)
		}
	}
	if _, err := sc.out.ReadByte(); err != io.EOF {
		t.Errorf("more output after %d answers", n)
	}
	if code := <-sc.code; code != 0 {
		t.Errorf("exit status = %d, want 0", code)
	}
	sc.code <- 0
}

// TestServeAllowAllOnceCoversWhatWasShown: with prompts answered after
// later calls were noted (Pi's parallel calls), "allow all once" covers the
// batch the person saw, not a denial noted since; a "deny" or "deny all"
// given afterwards outranks it.
func TestServeAllowAllOnceCoversWhatWasShown(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	s := h.session
	path := func(n string) string { return "/etc/picket-aao-" + n }
	decide := func(n string) map[string]any {
		return sc.ok("decide", h.decideParams(s, "write", map[string]any{"path": path(n), "content": "y"}, true))
	}
	grant := func(n, answer string) map[string]any {
		return sc.ok("grant", map[string]any{"session": s, "turn": "t1", "cwd": h.dir, "tool": "write", "access": "write",
			"path": path(n), "resolved": path(n), "answer": answer})
	}
	for _, n := range []string{"a", "b"} {
		decide(n)
		grant(n, "deny")
	}
	if res := decide("c"); res["batch"] != true {
		t.Fatalf("third denial = %v, want a batch", res)
	}
	decide("d") // noted before c's batch is answered
	if res := grant("c", "allow-all-once"); res["allow"] != true {
		t.Fatalf("allow all once on c = %v", res)
	}
	if res := decide("d"); res["allow"] == true {
		t.Errorf("d, never shown in c's batch, passed on its allow all once: %v", res)
	}
	grant("d", "deny")
	if res := decide("a"); res["allow"] != true {
		t.Errorf("a, listed in c's batch, did not pass once: %v", res)
	}
	// A later "deny all" outranks what is left of the allow all once.
	decide("x")
	grant("x", "deny-all")
	if res := decide("b"); res["allow"] == true {
		t.Errorf("b passed after the person chose deny all: %v", res)
	}
}

// TestServePersistOnlyWhereOffered: a persist answer for a block no allow
// entry lifts (the blocklist) is a session grant; the policy file is not
// touched.
func TestServePersistOnlyWhereOffered(t *testing.T) {
	h := newHookProject(t, hookFence)
	sc := startServe(t, h.interactive())
	fence := filepath.Join(h.dir, "fence.jsonc")
	before, _ := os.ReadFile(fence)
	env := filepath.Join(h.dir, ".env")
	res := sc.ok("decide", h.decideParams(h.session, "read", map[string]any{"path": ".env"}, true))
	if res["canPersist"] != false {
		t.Fatalf("decide .env = %v, want persist not offered", res)
	}
	res = sc.ok("grant", map[string]any{"session": h.session, "turn": "t1", "cwd": h.dir, "tool": "read", "access": "read",
		"path": env, "resolved": env, "answer": "persist", "target": fence})
	if res["decision"] != "grant-session" {
		t.Errorf("persist of a blocklisted path = %v, want grant-session", res)
	}
	if after, _ := os.ReadFile(fence); !bytes.Equal(before, after) {
		t.Errorf("fence.jsonc was edited:\n%s", after)
	}
}
