package sidecar

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/picketdev/picket/decide"
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
