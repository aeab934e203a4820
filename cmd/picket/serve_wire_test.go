package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook/pi"
)

// wireLines are request lines of every kind: the extension's own, and
// spellings the fast path must leave to encoding/json.
var wireLines = []string{
	`{"id":1,"op":"decide","session":"s","turn":0,"cwd":"/w","tool":"read","input":{"path":"README.md"},"prompt":false}`,
	`{"id":"a-1","op":"decide","session":"s","turn":"t3","cwd":"/w","tool":"edit","input":{"path":"a.go","edits":[{"oldText":"x","newText":"y\n"}]},"prompt":true}`,
	`{"id":2,"op":"decide","tool":"write","input":{"path":"b","content":"line\n\"quoted\"\u0000"}}`,
	` { "id" : -3.5e2 , "op" : "hello" } `,
	`{"id":4,"op":"grant","session":"s","access":"read","path":"/w/.env","resolved":"/w/.env","answer":"session","restore":true}`,
	`{"id":5,"op":"log","n":20,"decision":"block","session":"s"}`,
	`{"id":6,"op":"mode","session":"s","mode":"read-only"}`,
	`{"id":7,"op":"decide","input":{"path":"ünïcode/файл"},"cwd":"/w"}`,
	`{"id":8,"op":"decide","input":{"a":null,"b":true,"c":false,"d":[1,{"e":"]"}],"f":"\\"}}`,
	`{}`,
	`{"id":9,"op":"decide","input":{}}`,
	// Left to encoding/json:
	`{"id":1,"OP":"decide"}`,
	`{"id":1,"op":"decide","op":"hello"}`,
	`{"id":1,"op":"de\u0063ide"}`,
	`{"id":null,"op":"hello"}`,
	`{"id":1,"op":"hello","input":null}`,
	`{"id":1,"op":"hello","unknown":1}`,
	`{"id":1,"op":"decide","input":{"path":"a","path":"b"}}`,
	`{"id":1,"n":1.5}`,
	`{"id":1,"n":99999999999999999999999}`,
	`{"id":01}`,
	`{"id":1,"op":"hello"} x`,
	`{"id":1,"op":"hello",}`,
	`{"id":1,"op":"hel` + "\xff" + `lo"}`,
	`{"id":1,"op":"decide","input":{"path":"a` + "\t" + `b"}}`,
	`{"id":1,"input":{"x":tru}}`,
	`{"id":1,"input":{"x":nul}}`,
	`{"id":1,"input":{"x":"\q"}}`,
	`{"id":1,"input":{"x":[1,]}}`,
	`[1]`,
	``,
}

// TestDecodeRequestAsEncodingJSON holds the fast request decoder to
// encoding/json: whatever it accepts, encoding/json reads the same way.
func TestDecodeRequestAsEncodingJSON(t *testing.T) {
	fast := 0
	for _, line := range wireLines {
		if checkDecodeRequest(t, line) {
			fast++
		}
	}
	// The extension's own lines take the fast path.
	if fast < 11 {
		t.Errorf("fast path took %d lines, want the first 11", fast)
	}
	for _, line := range wireLines[:11] {
		var req request
		if !decodeRequest([]byte(line), &req) {
			t.Errorf("fast path declined %s", line)
		}
	}
}

func checkDecodeRequest(t *testing.T, line string) bool {
	t.Helper()
	var fast, slow request
	if !decodeRequest([]byte(line), &fast) {
		return false
	}
	if err := json.Unmarshal([]byte(line), &slow); err != nil {
		t.Fatalf("fast path accepted %q, encoding/json says %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast path %#v\nencoding/json %#v", line, fast, slow)
	}
	return true
}

func FuzzDecodeRequest(f *testing.F) {
	for _, line := range wireLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) { checkDecodeRequest(t, line) })
}

// TestAppendDecideAsEncodingJSON holds the hand-written decide answer to
// what encoding/json makes of the same result.
func TestAppendDecideAsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "/w/README.md", `a"b\c`, "<script>&", "tab\there\nnl\x01\x7f", "ü\u2028\u2029", "bad\xffutf8\xc3"} {
		checkAppendDecide(t, `"x"`, s, true)
		checkAppendDecide(t, `12`, s, false)
	}
	d := decideResult{Judged: true, Request: nil, BatchPaths: []string{}}
	got, _ := appendDecide(nil, json.RawMessage("1"), d)
	if want := marshalOK(json.RawMessage("1"), d); string(got) != string(want) {
		t.Errorf("empty batch paths:\n got %s\nwant %s", got, want)
	}
}

func checkAppendDecide(t *testing.T, id, s string, allow bool) {
	t.Helper()
	r := decideResult{Judged: true, Allow: allow, Message: s, Grantable: !allow, Promptable: allow,
		CanPersist: true, PersistTarget: s, PersistCreates: allow, PersistExtends: s, Batch: !allow}
	r.Decision = &decide.Decision{Allow: allow, Access: decide.Access(s), Path: s, Resolved: strings.ToUpper(s),
		Layer: decide.Layer(s), Rule: s, Pattern: s, Source: s, Suggestion: s, Reason: s}
	if s != "" {
		r.BatchPaths = []string{s, s + "2"}
	}
	got, ok := appendDecide(nil, json.RawMessage(id), r)
	if !ok {
		t.Fatalf("appendDecide declined %+v", r)
	}
	if want := marshalOK(json.RawMessage(id), r); string(got) != string(want) {
		t.Fatalf("appendDecide:\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got[:len(got)-1]) {
		t.Fatalf("appendDecide made invalid JSON: %s", got)
	}
	for _, a := range []decideAllow{{Judged: true, Allow: allow, Decision: r.Decision}, {Allow: true}} {
		if got, want := appendDecideAllow(nil, json.RawMessage(id), a), marshalOK(json.RawMessage(id), a); string(got) != string(want) {
			t.Fatalf("appendDecideAllow:\n got %s\nwant %s", got, want)
		}
	}
}

func FuzzAppendDecide(f *testing.F) {
	for _, s := range []string{"", "/w/a", "<&>\"\\\n\u2028\xff"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, allow bool) { checkAppendDecide(t, "7", s, allow) })
}

// FuzzServeAnswer feeds the sidecar arbitrary request lines: each gets
// exactly one answer line of valid JSON with an id and ok, never a
// recovered panic, and a line encoding/json rejects is never answered ok.
// A decide that allows names the policy's decision.
func FuzzServeAnswer(f *testing.F) {
	h := newHookProject(f, hookFence)
	s := newServer(&cli{env: h.env, stderr: &lockedBuffer{}}, "pi")
	for _, line := range wireLines {
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
		out := s.answer([]byte(line))
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
		var req request
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
// whose line is exactly maxLine bytes must still be judged by its size.
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
	if got := n << shift; got != maxLine {
		t.Errorf("the Pi extension's MAX_LINE = %d, serve's maxLine = %d: they must agree", got, maxLine)
	}

	h := newHookProject(t, `{"extends": "code", "picket": {"writeGuards": {"maxBytes": 1048576}}}`)
	sc := startServe(t, h.env)
	head := fmt.Sprintf(`{"id":1,"op":"decide","session":%q,"turn":"0","cwd":%q,"tool":"write","input":{"path":"big.txt","content":"`, h.session, h.dir)
	tail := `"},"prompt":false}`
	content := strings.Repeat("A", maxLine-len(head)-len(tail))
	go sc.send(head + content + tail)
	res := sc.recv()
	if res["id"] != float64(1) || res["ok"] != true || res["allow"] != false || decisionOf(t, res)["rule"] != "picket.writeGuards.maxBytes" {
		t.Errorf("a write on a line of exactly maxLine bytes = %v, want it judged and denied by maxBytes", res["decision"])
	}
	go sc.send(head + content + "A" + tail)
	if res := sc.recv(); res["id"] != nil || !strings.Contains(fmt.Sprint(res["error"]), "longer than") {
		t.Errorf("a line of maxLine+1 bytes = %v, want the id-less error the extension avoids", res)
	}
}
