package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/picketdev/picket/hook/pi"
	"github.com/picketdev/picket/hook/sidecar"
)

// sidecarLines are request lines of every op, as the extension sends them.
var sidecarLines = []string{
	`{"id":1,"op":"hello"}`,
	`{"id":2,"op":"decide","session":"s1","turn":0,"cwd":"/w","tool":"read","input":{"path":".env"},"prompt":true}`,
	`{"id":3,"op":"decide","session":"s1","turn":"0","cwd":"/w","tool":"grep","input":{"pattern":"x","path":"/w","glob":"*.go"}}`,
	`{"id":4,"op":"grant","session":"s1","turn":0,"cwd":"/w","tool":"read","access":"read","path":"/w/.env","resolved":"/w/.env","answer":"session"}`,
	`{"id":5,"op":"tool_result","session":"s1","cwd":"/w","tool":"read","input":{"path":"README.md"}}`,
	`{"id":6,"op":"mode","session":"s1","mode":"read-only"}`,
	`{"id":7,"op":"log","n":5,"session":"s1","decision":"block"}`,
	`{"id":"x","op":"status","cwd":"/w","session":"s1"}`,
}

// FuzzServeAnswer feeds the sidecar arbitrary request lines: each gets
// exactly one answer line of valid JSON with an id and ok, never a
// recovered panic, and a line encoding/json rejects is never answered ok.
// A decide that allows names the policy's decision.
func FuzzServeAnswer(f *testing.F) {
	h := newHookProject(f, hookFence)
	s := newSidecar(&cli{env: h.env, stderr: &lockedBuffer{}}, "pi")
	for _, line := range sidecarLines {
		f.Add(strings.ReplaceAll(line, `"/w"`, `"`+h.dir+`"`))
	}
	for _, p := range []string{"README.md", ".env", "../x", "~/.ssh/id_rsa", "@src/main.go", "", "src"} {
		for _, tool := range []string{"read", "write", "edit", "ls", "grep", "find", "bash"} {
			f.Add(fmt.Sprintf(`{"id":1,"op":"decide","session":"s","cwd":%q,"tool":%q,"input":{"path":%q,"pattern":"*"}}`, h.dir, tool, p))
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, '\n') {
			return // the reader splits lines before answer sees them
		}
		out := s.Answer([]byte(line))
		if len(out) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("answer to %q is not one line: %q", line, out)
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("answer to %q is not JSON: %v: %q", line, err, out)
		}
		if _, ok := res["id"]; !ok {
			t.Fatalf("answer to %q has no id: %s", line, out)
		}
		if e, _ := res["error"].(string); strings.Contains(e, "internal error") {
			t.Fatalf("answer to %q recovered from a panic: %s", line, out)
		}
		var req struct{ Op string }
		if json.Unmarshal([]byte(line), &req) != nil && res["ok"] != false {
			t.Fatalf("encoding/json rejects %q, but the answer is ok: %s", line, out)
		}
		if res["ok"] == true && req.Op == "decide" && res["judged"] == true && res["allow"] == true {
			if d, _ := res["decision"].(map[string]any); d == nil || d["allow"] != true {
				t.Fatalf("allowed decide %q carries no allowing decision: %s", line, out)
			}
		}
	})
}

// TestServeWireLineLimit guards against a big write stalling Pi (F6): the
// extension refuses, before sending, a request line over MAX_LINE, because
// serve answers a longer line without an id, which the extension cannot
// match and waited 15 s for. So the two limits must agree, and a write
// whose line is exactly sidecar.MaxLine bytes must still be judged by its size.
func TestServeWireLineLimit(t *testing.T) {
	src, err := pi.Render("/usr/bin/picket")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const MAX_LINE = (\d+) << (\d+);$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("the Pi extension declares no `const MAX_LINE = N << M;`")
	}
	n, _ := strconv.Atoi(string(m[1]))
	shift, _ := strconv.Atoi(string(m[2]))
	if got := n << shift; got != sidecar.MaxLine {
		t.Errorf("the Pi extension's MAX_LINE = %d, serve's sidecar.MaxLine = %d: they must agree", got, sidecar.MaxLine)
	}

	h := newHookProject(t, `{"extends": "code", "picket": {"writeGuards": {"maxBytes": 1048576}}}`)
	sc := startServe(t, h.env)
	head := fmt.Sprintf(`{"id":1,"op":"decide","session":%q,"turn":"0","cwd":%q,"tool":"write","input":{"path":"big.txt","content":"`, h.session, h.dir)
	tail := `"},"prompt":false}`
	content := strings.Repeat("A", sidecar.MaxLine-len(head)-len(tail))
	go sc.send(head + content + tail)
	res := sc.recv()
	if res["id"] != float64(1) || res["ok"] != true || res["allow"] != false || decisionOf(t, res)["rule"] != "picket.writeGuards.maxBytes" {
		t.Errorf("a write on a line of exactly sidecar.MaxLine bytes = %v, want it judged and denied by maxBytes", res["decision"])
	}
	go sc.send(head + content + "A" + tail)
	if res := sc.recv(); res["id"] != nil || !strings.Contains(fmt.Sprint(res["error"]), "longer than") {
		t.Errorf("a line of sidecar.MaxLine+1 bytes = %v, want the id-less error the extension avoids", res)
	}
}
