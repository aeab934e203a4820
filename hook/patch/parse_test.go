package patch

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// paths is the list of target paths, for compact expectations.
func paths(ts []Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.Op)+" "+t.Path)
	}
	return out
}

// parseTests are the shapes of Codex's own parser tests and fixture
// scenarios (codex-rs/apply-patch), plus the lenient forms and hostile
// inputs. want nil with wantErr means Parse must fail.
var parseTests = []struct {
	name    string
	text    string
	want    []string
	wantErr bool
}{
	{name: "add", text: "*** Begin Patch\n*** Add File: secret2.txt\n+x\n*** End Patch\n", want: []string{"add secret2.txt"}},
	{name: "add absolute", text: "*** Begin Patch\n*** Add File: /home/user/project/secret3.txt\n+x\n*** End Patch\n", want: []string{"add /home/user/project/secret3.txt"}},
	{name: "add empty file", text: "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch", want: []string{"add empty.txt"}},
	{name: "multiple operations", text: "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n",
		want: []string{"add nested/new.txt", "delete delete.txt", "update modify.txt"}},
	{name: "move", text: "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch\n",
		want: []string{"move-from old/name.txt", "move-to renamed/dir/name.txt"}},
	{name: "codex test_parse_patch", text: "*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch",
		want: []string{"add path/add.py", "delete path/delete.py", "move-from path/update.py", "move-to path/update2.py"}},
	{name: "update then add", text: "*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch",
		want: []string{"update file.py", "add other.py"}},
	{name: "first chunk without @@", text: "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch",
		want: []string{"update file2.py"}},
	{name: "multiple chunks and blank lines", text: "*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n\n@@ ctx\n-line4\n+changed4\n\n*** End Patch\n",
		want: []string{"update multi.txt"}},
	{name: "empty context line in chunk", text: "*** Begin Patch\n*** Update File: a\n@@ change_context\n\n context\n-remove\n+add\n context2\n*** End Patch",
		want: []string{"update a"}},
	{name: "end of file marker", text: "*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n",
		want: []string{"update tail.txt"}},
	{name: "padded begin and end", text: " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n", want: []string{"update file.txt"}},
	{name: "padded marker lines", text: "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n", want: []string{"update file.txt"}},
	{name: "padded hunk header", text: "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n", want: []string{"update foo.txt"}},
	{name: "crlf", text: "*** Begin Patch\r\n*** Add File: a.txt\r\n+x\r\n*** Delete File: b.txt\r\n*** End Patch\r\n", want: []string{"add a.txt", "delete b.txt"}},
	{name: "surrounding white space", text: "\n\t  *** Begin Patch\n*** Delete File: gone\n*** End Patch\n\n \u00a0", want: []string{"delete gone"}},
	{name: "heredoc", text: "<<EOF\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n", want: []string{"update file2.py"}},
	{name: "heredoc single quoted", text: "<<'EOF'\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch\nEOF\n", want: []string{"add x"}},
	{name: "heredoc double quoted", text: "<<\"EOF\"\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch\nEOF", want: []string{"add x"}},
	{name: "unicode path", text: "*** Begin Patch\n*** Add File: dir/ünïcödé — ✓.txt\n+x\n*** End Patch", want: []string{"add dir/ünïcödé — ✓.txt"}},
	{name: "path with spaces", text: "*** Begin Patch\n*** Add File: my dir/a b.txt\n+x\n*** End Patch", want: []string{"add my dir/a b.txt"}},
	{name: "dot dot path", text: "*** Begin Patch\n*** Delete File: ../../etc/passwd\n*** End Patch", want: []string{"delete ../../etc/passwd"}},
	{name: "tilde path stays as written", text: "*** Begin Patch\n*** Add File: ~/.bashrc\n+x\n*** End Patch", want: []string{"add ~/.bashrc"}},
	{name: "same path twice", text: "*** Begin Patch\n*** Add File: a\n+1\n*** Delete File: a\n*** End Patch", want: []string{"add a"}},

	// Other readings of the same text add their spellings.
	{name: "move path trailing space", text: "*** Begin Patch\n*** Update File: a\n*** Move to: b \n@@\n-x\n+y\n*** End Patch",
		want: []string{"move-from a", "move-to b ", "move-to b"}},
	{name: "header path leading spaces", text: "*** Begin Patch\n*** Add File:   x\n+1\n*** End Patch", want: []string{"add   x", "add x"}},
	{name: "header path NEL and BOM", text: "*** Begin Patch\n*** Add File: \ufeffx\u0085\n+1\n*** End Patch",
		want: []string{"add \ufeffx", "add \ufeffx\u0085", "add x\u0085", "add x"}},
	{name: "context line that reads as a header", text: "*** Begin Patch\n*** Update File: docs.md\n@@\n *** Add File: /etc/cron.d/x\n-a\n+b\n*** End Patch",
		want: []string{"update docs.md", "add /etc/cron.d/x"}},
	{name: "header hidden after a line separator", text: "*** Begin Patch\n*** Add File: a\u2028*** Add File: /etc/x\n+1\n*** End Patch",
		want: []string{"add a\u2028*** Add File: /etc/x", "add a", "add /etc/x"}},
	{name: "added line that reads as a header", text: "*** Begin Patch\n*** Add File: doc.txt\n+*** Add File: /etc/x\n*** End Patch", want: []string{"add doc.txt"}},

	// What Codex rejects is an error.
	{name: "empty", text: "", wantErr: true},
	{name: "blank", text: " \n\t\n", wantErr: true},
	{name: "no begin", text: "bad", wantErr: true},
	{name: "no end", text: "*** Begin Patch\nbad", wantErr: true},
	{name: "begin only", text: "*** Begin Patch", wantErr: true},
	{name: "no hunk", text: "*** Begin Patch\n*** End Patch", wantErr: true},
	{name: "empty update", text: "*** Begin Patch\n*** Update File: test.py\n*** End Patch", wantErr: true},
	{name: "unknown header", text: "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n", wantErr: true},
	{name: "header without space", text: "*** Begin Patch\n*** Add File:x\n+1\n*** End Patch", wantErr: true},
	{name: "header without path", text: "*** Begin Patch\n*** Add File: \n+1\n*** End Patch", wantErr: true},
	{name: "garbage before begin", text: "Here is the patch:\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch", wantErr: true},
	{name: "garbage after add lines", text: "*** Begin Patch\n*** Add File: x\n+1\nnot added\n*** End Patch", wantErr: true},
	{name: "blank after add lines", text: "*** Begin Patch\n*** Add File: x\n+1\n\n*** Add File: y\n+2\n*** End Patch", wantErr: true},
	{name: "second chunk without @@", text: "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\nbad\n*** End Patch", wantErr: true},
	{name: "chunk with bad first line", text: "*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch", wantErr: true},
	{name: "chunk with only @@", text: "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", wantErr: true},
	{name: "chunk with only end of file", text: "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", wantErr: true},
	{name: "move not right after update", text: "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch", wantErr: true},
	{name: "move without path", text: "*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n+y\n*** End Patch", wantErr: true},
	{name: "mismatched heredoc quotes", text: "<<\"EOF'\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch\nEOF\n", wantErr: true},
	{name: "heredoc without end marker", text: "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n", wantErr: true},
	{name: "other heredoc word", text: "<<PATCH\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch\nPATCH\n", wantErr: true},
	{name: "cat heredoc", text: "cat <<'EOF'\n*** Begin Patch\n*** Add File: x\n+1\n*** End Patch\nEOF\n", wantErr: true},
	{name: "end of file outside a chunk", text: "*** Begin Patch\n*** Delete File: a\n*** End of File\n*** End Patch", wantErr: true},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text)
			if tt.wantErr {
				if err == nil || got != nil {
					t.Fatalf("Parse(%q) = %q, %v, want an error and no target", tt.text, paths(got), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) error %v", tt.text, err)
			}
			if !slices.Equal(paths(got), tt.want) {
				t.Errorf("Parse(%q) = %q, want %q", tt.text, paths(got), tt.want)
			}
		})
	}
}

func TestParseEmptyIsErrEmpty(t *testing.T) {
	if _, err := Parse("*** Begin Patch\n*** End Patch\n"); !errors.Is(err, ErrEmpty) {
		t.Errorf("Parse(no hunk) error = %v, want ErrEmpty", err)
	}
}

func TestParseTooLarge(t *testing.T) {
	big := "*** Begin Patch\n*** Add File: x\n" + strings.Repeat("+aaaaaaa\n", MaxSize/9+1) + "*** End Patch\n"
	if got, err := Parse(big); err == nil {
		t.Fatalf("Parse(%d bytes) = %q, want an error", len(big), paths(got))
	}
}

func TestParseLines(t *testing.T) {
	got, err := Parse("\n\n*** Begin Patch\n*** Add File: a\n+1\n*** Update File: b\n*** Move to: c\n@@\n-x\n+y\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{{Add, "a", 2}, {MoveFrom, "b", 4}, {MoveTo, "c", 5}}
	if !slices.Equal(got, want) {
		t.Errorf("Parse = %v, want %v", got, want)
	}
}

// TestParseSamples reads the patches the real agents sent to their hooks
// (Codex 0.171.0's tool_input.command, Copilot CLI 1.0.102's toolArgs
// string).
func TestParseSamples(t *testing.T) {
	tests := []struct {
		file  string
		field func(map[string]json.RawMessage) string
		want  [][]string
	}{
		{"testdata/codex-0.171.0-pretooluse.jsonl", func(m map[string]json.RawMessage) string {
			var in struct{ Command string }
			_ = json.Unmarshal(m["tool_input"], &in)
			return in.Command
		}, [][]string{{"add secret2.txt"}, {"add ok.txt"}}},
		{"testdata/copilot-1.0.102-apply_patch.jsonl", func(m map[string]json.RawMessage) string {
			var s string
			_ = json.Unmarshal(m["toolArgs"], &s)
			return s
		}, [][]string{{"add /home/user/project/secret3.txt"}}},
	}
	for _, tt := range tests {
		f, err := os.Open(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			var tool string
			_ = json.Unmarshal(m["tool_name"], &tool)
			_ = json.Unmarshal(m["toolName"], &tool)
			if tool != "apply_patch" {
				continue
			}
			ts, err := Parse(tt.field(m))
			if err != nil {
				t.Fatalf("%s: Parse error %v", tt.file, err)
			}
			got = append(got, paths(ts))
		}
		f.Close()
		if !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("%s: targets %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestTargetAbs(t *testing.T) {
	for _, tt := range []struct{ path, dir, want string }{
		{"a.txt", "/w", "/w/a.txt"},
		{"~/.bashrc", "/w/", "/w/~/.bashrc"},
		{"../x", "/w", "/w/../x"},
		{"/etc/x", "/w", "/etc/x"},
	} {
		if got := (Target{Path: tt.path}).Abs(tt.dir); got != tt.want {
			t.Errorf("Target{%q}.Abs(%q) = %q, want %q", tt.path, tt.dir, got, tt.want)
		}
	}
}
