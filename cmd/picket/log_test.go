package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/audit"
)

// logEnv is an environment whose audit log lives under a temporary state
// directory, holding the given entries.
func logEnv(t *testing.T, entries ...audit.Entry) (env []string, path string) {
	t.Helper()
	home := t.TempDir()
	env = []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	path = filepath.Join(home, "state", "picket", "audit.log")
	l, err := audit.Open(audit.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return env, path
}

func runLogCLI(env []string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(append([]string{"log"}, args...), env, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestLog(t *testing.T) {
	now := time.Now().UTC()
	var entries []audit.Entry
	for i := range 25 {
		entries = append(entries, audit.Entry{
			TS: now.Add(time.Duration(i-25) * time.Hour), Session: []string{"sess-a", "sess-b"}[i%2],
			Agent: "claude", Decision: []string{"block", "error"}[min(i%3, 1)], Tool: "Read",
			Access: "read", Path: "/p/" + string(rune('a'+i)),
		})
	}
	entries[24].Path = "/evil\n2026-01-01 00:00:00  block  \x1b[2J"
	env, _ := logEnv(t, entries...)

	tests := []struct {
		args      []string
		wantLines int
		first     string // a substring of the first line
		last      string // a substring of the last line
	}{
		{nil, 20, "/p/f", `"/evil\n2026-01-01 00:00:00  block  \x1b[2J"`},
		{[]string{"3"}, 3, "/p/w", "/evil"},
		{[]string{"--decision", "block", "2"}, 2, "/p/v", "/evil"},
		{[]string{"2", "--session", "sess-b"}, 2, "/p/v", "/p/x"},
		{[]string{"--since", "3h30m", "50"}, 3, "/p/w", "/evil"},
		{[]string{"--since", "1d", "--decision", "error"}, 15, "/p/c", "/p/x"},
	}
	for _, tt := range tests {
		out, errOut, code := runLogCLI(env, tt.args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || errOut != "" || len(lines) != tt.wantLines ||
			!strings.Contains(lines[0], tt.first) || !strings.Contains(lines[len(lines)-1], tt.last) {
			t.Errorf("picket log %q = %d, stderr %q, stdout:\n%s\nwant %d lines from %q to %q",
				tt.args, code, errOut, out, tt.wantLines, tt.first, tt.last)
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Errorf("picket log %q wrote an escape sequence to a non-terminal:\n%q", tt.args, out)
		}
	}
}

func TestLogJSON(t *testing.T) {
	env, path := logEnv(t,
		audit.Entry{Decision: "block", Path: "/a\nb"},
		audit.Entry{Decision: "error", Reason: "picket: error: x"},
	)
	out, errOut, code := runLogCLI(env, "--json")
	raw, _ := os.ReadFile(path)
	if code != 0 || errOut != "" || out != string(raw) {
		t.Errorf("picket log --json = %d, %q, stdout %q, want the file %q", code, errOut, out, raw)
	}
}

func TestLogFileAndEmpty(t *testing.T) {
	env, _ := logEnv(t)
	other := filepath.Join(t.TempDir(), "other.log")
	os.WriteFile(other, []byte(`{"ts":"2026-01-02T03:04:05.000Z","decision":"block","path":"/x"}`+"\n"), 0o600)
	out, _, code := runLogCLI(env, "--file", other)
	if want := "2026-01-02 03:04:05            block                            /x\n"; code != 0 || out != want {
		t.Errorf("picket log --file = %d, %q, want %q", code, out, want)
	}
	out, errOut, code := runLogCLI(env)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("picket log of an empty log = %d, %q, %q, want 0 and nothing", code, out, errOut)
	}
}

func TestLogUsageErrors(t *testing.T) {
	env, _ := logEnv(t)
	for _, args := range [][]string{
		{"zero"}, {"0"}, {"-3"}, {"1", "2"}, {"--since", "yesterday"}, {"--since", "-1h"}, {"--bogus"},
		{"--decision", "blocked"},
	} {
		_, errOut, code := runLogCLI(env, args...)
		if code != 2 || !strings.HasPrefix(errOut, "picket: error: ") {
			t.Errorf("picket log %q = %d, stderr %q, want 2 and a picket: error: message", args, code, errOut)
		}
	}
	// A typo in --decision once printed nothing: it is refused, with the
	// list of the decisions there are.
	_, errOut, _ := runLogCLI(env, "--decision", "blocked")
	if !strings.Contains(errOut, `"blocked"`) || !strings.Contains(errOut, "grant-session") {
		t.Errorf("picket log --decision blocked: stderr %q, want it to name the value and list the valid ones", errOut)
	}
}

// TestLogSessionPrefix guards against --session ignoring the eight
// characters picket log itself shows for a session.
func TestLogSessionPrefix(t *testing.T) {
	env, _ := logEnv(t,
		audit.Entry{Session: "250ef737-1c2d-4e5f-8a9b-0c1d2e3f4a5b", Decision: "block", Path: "/mine"},
		audit.Entry{Session: "250ef738-0000-0000-0000-000000000000", Decision: "block", Path: "/other"},
	)
	for _, tt := range []struct {
		session, want string
	}{{"250ef737", "/mine"}, {"250ef737-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "/mine"}, {"250ef73", ""}} {
		out, errOut, code := runLogCLI(env, "--session", tt.session)
		got := ""
		for _, p := range []string{"/mine", "/other"} {
			if strings.Contains(out, p) {
				got += p
			}
		}
		if code != 0 || got != tt.want {
			t.Errorf("picket log --session %s = %d, %q, stdout %q, want %q", tt.session, code, errOut, out, tt.want)
		}
		// A prefix too short to be one, matching nothing, is said to be
		// taken as a whole id.
		if hinted := strings.Contains(errOut, "8 or more characters"); hinted != (len(tt.session) < 8) {
			t.Errorf("picket log --session %s: stderr %q; want a hint exactly when it is under 8 characters and matched nothing", tt.session, errOut)
		}
	}
}

// TestLogBadFiles guards against a log that never ends (/dev/zero ran out
// of memory) and one corrupt rotated file hiding the whole log.
func TestLogBadFiles(t *testing.T) {
	env, _ := logEnv(t)
	_, errOut, code := runLogCLI(env, "--file", "/dev/zero")
	if code != 2 || !strings.Contains(errOut, "not a regular file") {
		t.Errorf("picket log --file /dev/zero = %d, %q, want 2 and not a regular file", code, errOut)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	bad := filepath.Join(dir, "audit-2026-11-27T10-00-00.000.log.gz")
	os.WriteFile(bad, []byte("garbage\n"), 0o600)
	os.WriteFile(path, []byte(`{"ts":"2026-11-27T11:00:00.000Z","decision":"block","path":"/x"}`+"\n"), 0o600)
	out, errOut, code := runLogCLI(env, "--file", path)
	if code != 0 || !strings.Contains(out, "/x") || !strings.HasPrefix(errOut, "picket: warning: ") || !strings.Contains(errOut, bad) {
		t.Errorf("picket log with a corrupt rotated file = %d, stderr %q, stdout %q, want 0, /x and a warning naming %s", code, errOut, out, bad)
	}
}

func TestLogColor(t *testing.T) {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no terminal:", err)
	}
	defer tty.Close()
	c := &cli{env: []string{"TERM=xterm"}, stdout: tty}
	if !logColor(c) {
		t.Error("logColor on a terminal = false, want true")
	}
	c.env = append(c.env, "NO_COLOR=1")
	if logColor(c) {
		t.Error("logColor with NO_COLOR = true, want false")
	}
}

func TestLogFollow(t *testing.T) {
	env, path := logEnv(t, audit.Entry{Decision: "block", Path: "/old"})
	var out, errb lockedBuffer
	c := &cli{env: env, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- runLogContext(ctx, c, []string{"-f", "--decision", "block"}) }()

	l, err := audit.Open(audit.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "/new") && time.Now().Before(deadline) {
		// Follow starts at the end of the file: keep appending until it
		// has started and seen one.
		l.Append(audit.Entry{Decision: "error", Path: "/skipped"})
		l.Append(audit.Entry{Decision: "block", Path: "/new"})
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("picket log -f = %d, stderr %q", code, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, "/old") || !strings.Contains(got, "/new") ||
		strings.Index(got, "/old") > strings.Index(got, "/new") || strings.Contains(got, "/skipped") {
		t.Errorf("picket log -f printed:\n%s\nwant /old, then /new, never /skipped", got)
	}
}

// TestLogReadsSpill: a line a hook kept in a spill file beside the log
// (the log's lock was held past the wait) shows in picket log before any
// later hook folds it in, in time order.
func TestLogReadsSpill(t *testing.T) {
	now := time.Now().UTC()
	env, path := logEnv(t, audit.Entry{TS: now.Add(-time.Minute), Decision: "block", Tool: "Read", Path: "/in-log"})
	line, err := audit.Entry{TS: now, Decision: "block", Tool: "Read", Path: "/spilled"}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".spill-1-20260101T000000.000000000-0.ndjson", append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runLogCLI(env)
	if code != 0 || !strings.Contains(out, "/in-log") || !strings.Contains(out, "/spilled") || strings.Index(out, "/in-log") > strings.Index(out, "/spilled") {
		t.Errorf("picket log = %d, %q, %q; want /in-log then /spilled", code, out, errOut)
	}
	if out, _, _ := runLogCLI(env, "1"); !strings.Contains(out, "/spilled") {
		t.Errorf("picket log 1 = %q, want the spilled line", out)
	}
}
