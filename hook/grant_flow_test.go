package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/tui"
)

// grantFlow is a project with a boundary policy and a pipeline whose
// state is under its own home, for driving the grant flow without a
// terminal.
type grantFlow struct {
	p                *Pipeline
	env              []string
	extend           func(time.Duration)
	loaded           *decide.Loaded
	home, proj, outs string
	stderr           *bytes.Buffer
}

func newGrantFlow(t *testing.T) *grantFlow {
	t.Helper()
	base := t.TempDir()
	f := &grantFlow{home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), outs: filepath.Join(base, "outside"), stderr: &bytes.Buffer{}}
	for _, d := range []string{f.home, f.proj, f.outs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// No extends: the temp dir must not be readable by policy.
	os.WriteFile(filepath.Join(f.proj, "fence.jsonc"), []byte(`{"filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`+"\n"), 0o644)
	f.env = []string{"HOME=" + f.home, "XDG_STATE_HOME=" + filepath.Join(f.home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(f.home, "config")}
	f.reload(t)
	return f
}

func (f *grantFlow) getenv(k string) string {
	v := ""
	for _, kv := range f.env {
		if key, val, ok := strings.Cut(kv, "="); ok && key == k {
			v = val
		}
	}
	return v
}

// reload loads the project's policy and builds the pipeline from f.env.
func (f *grantFlow) reload(t *testing.T) {
	t.Helper()
	env := decide.EnvFromOS(f.getenv, f.proj)
	loaded, err := LoadPolicy(env)
	if err != nil {
		t.Fatal(err)
	}
	f.loaded = loaded
	state := env.StateDir()
	warn := func(format string, args ...any) { fmt.Fprintf(f.stderr, "picket: warning: "+format+"\n", args...) }
	f.p = &Pipeline{
		Policies: func(string) (*decide.Loaded, error) { return LoadPolicy(env) },
		Grants:   grants.Store{Dir: grants.DefaultDir(f.getenv("HOME"), f.getenv("XDG_STATE_HOME"))},
		StateDir: state,
		Audit:    AuditLog{Home: f.home, StateHome: f.getenv("XDG_STATE_HOME"), Warn: warn},
		Prompter: TerminalPrompter{Getenv: f.getenv, StateDir: state, Extend: func(d time.Duration) {
			if f.extend != nil {
				f.extend(d)
			}
		}},
		Warn: warn,
	}
}

// block is the decision for a call on path outside the workspace.
func (f *grantFlow) block(t *testing.T, a decide.Access, name string) decide.Decision {
	t.Helper()
	p := filepath.Join(f.outs, name)
	d := decide.Decide(f.loaded.Policy, decide.Request{Access: a, Path: p, Resolved: p, Size: -1})
	if d.Allow || !d.Grantable() {
		t.Fatalf("%s %s = %+v, want a grantable block", a, p, d)
	}
	return d
}

func (f *grantFlow) call(tool string) Call {
	return Call{Agent: "claude", Session: "s1", Turn: "t1", Cwd: f.proj, Tool: tool}
}

// TestBatchAllowAllOnceIsPerAccess: the person denies reads of a and b, and
// allows the batch of reads once; a write of a in the same turn is not
// covered (it was never shown as a write) and is put to the person again.
// The batch lists each call's access and tool.
func TestBatchAllowAllOnceIsPerAccess(t *testing.T) {
	f := newGrantFlow(t)
	for _, n := range []string{"a", "b"} {
		if _, _, ok := f.p.Promptable(f.loaded, f.call("Read"), f.block(t, decide.Read, n)); !ok {
			t.Fatalf("read of %s not promptable", n)
		}
	}
	third := f.block(t, decide.Read, "c")
	turn, _, ok := f.p.Promptable(f.loaded, f.call("Read"), third)
	if !ok || !turn.Batch {
		t.Fatalf("third denial = %+v, %v; want a batch prompt", turn, ok)
	}
	req := f.p.PromptRequest(f.loaded, f.call("Read"), third, turn)
	if len(req.Batch) != 3 {
		t.Fatalf("batch = %+v, want 3 items", req.Batch)
	}
	for _, it := range req.Batch {
		if it.Access != "read" || it.Tool != "Read" {
			t.Errorf("batch item %+v, want access read and tool Read shown", it)
		}
	}
	if out := f.p.CarryOut(f.loaded, f.call("Read"), third, tui.AnswerAllowAllOnce, turn, Persist{}); !out.Allow {
		t.Fatalf("allow all once = %+v, want the call through", out)
	}
	w := f.block(t, decide.Write, "a")
	if _, final, ok := f.p.Promptable(f.loaded, f.call("Write"), w); !ok || final.Allow {
		t.Fatalf("write of a after allowing reads once = %+v (promptable %v), want it put to the person", final, ok)
	}
	if _, final, ok := f.p.Promptable(f.loaded, f.call("Read"), f.block(t, decide.Read, "a")); ok || !final.Allow {
		t.Fatalf("read of a after allowing it once = %+v (promptable %v), want it through once", final, ok)
	}
}

// fakeConsole stands in for `picket console`: it listens on the console
// socket and answers each request with the next of answers, after delay,
// keeping the requests it was sent.
type fakeConsole struct {
	mu       sync.Mutex
	requests []tui.Request
}

func (f *grantFlow) console(t *testing.T, delay time.Duration, answers ...tui.Answer) *fakeConsole {
	t.Helper()
	run, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	f.env = append(f.env, "XDG_RUNTIME_DIR="+run)
	os.WriteFile(filepath.Join(f.proj, "fence.jsonc"), []byte(`{"picket": {"prompt": {"surface": "console"}}, "filesystem": {"defaultDenyRead": true, "allowRead": ["."]}}`+"\n"), 0o644)
	f.reload(t)
	sock := tui.ConsoleSocket(run, "")
	os.MkdirAll(filepath.Dir(sock), 0o700)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	fc := &fakeConsole{}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			var r tui.Request
			if json.NewDecoder(conn).Decode(&r) == nil {
				fc.mu.Lock()
				ans := tui.AnswerDeny
				if n := len(fc.requests); n < len(answers) {
					ans = answers[n]
				}
				fc.requests = append(fc.requests, r)
				fc.mu.Unlock()
				time.Sleep(delay)
				fmt.Fprintf(conn, "{\"answer\":%q}\n", ans)
			}
			conn.Close()
		}
	}()
	return fc
}

func (fc *fakeConsole) asked() []tui.Request {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return slices.Clone(fc.requests)
}

// TestBatchOneByOne: answering a batch "one by one" asks about the current
// call alone at once, and the next denial of the turn is asked about alone
// too, not as a batch again.
func TestBatchOneByOne(t *testing.T) {
	f := newGrantFlow(t)
	fc := f.console(t, 0, tui.AnswerDeny, tui.AnswerDeny, tui.AnswerIndividually, tui.AnswerOnce, tui.AnswerDeny)
	for _, n := range []string{"a", "b", "c"} {
		f.p.AskGrant(f.loaded, f.call("Read"), f.block(t, decide.Read, n))
	}
	asked := fc.asked()
	if len(asked) != 4 || len(asked[2].Batch) != 3 || len(asked[3].Batch) != 0 || asked[3].Resolved != filepath.Join(f.outs, "c") {
		t.Fatalf("asked %d prompts (%+v), want 2 single, the batch, then c alone", len(asked), asked)
	}
	if out := f.p.AskGrant(f.loaded, f.call("Read"), f.block(t, decide.Read, "d")); out.Allow {
		t.Fatalf("d = %+v, want the console's deny", out)
	}
	if asked = fc.asked(); len(asked) != 5 || len(asked[4].Batch) != 0 {
		t.Fatalf("the call after one by one was asked as %+v, want d alone", asked[len(asked)-1])
	}
}

// TestCoalesceConcurrent: two identical requests (same session, access and
// path) arriving together get one prompt and share its answer.
func TestCoalesceConcurrent(t *testing.T) {
	f := newGrantFlow(t)
	fc := f.console(t, 300*time.Millisecond, tui.AnswerOnce, tui.AnswerDeny)
	d := f.block(t, decide.Read, "a")
	var wg sync.WaitGroup
	outs := make([]Outcome, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = f.p.AskGrant(f.loaded, f.call("Read"), d)
		}()
	}
	wg.Wait()
	if n := len(fc.asked()); n != 1 || !outs[0].Allow || !outs[1].Allow {
		t.Fatalf("%d prompts, outcomes %+v; want one prompt whose answer both take", n, outs)
	}
}

func (f *grantFlow) turn() grants.TurnState { return grants.TurnState{} }

// TestBatchOneByOneKeepsTheHookTimeout: the call's own prompt after a batch
// answered "one by one" gets what is left of the batch prompt's time, not
// a fresh timeout, and the hook's deadline is not moved past one prompt's
// budget: an agent that kills a hook still waiting (after the 90 s hook
// timeout install writes) lets the call through.
func TestBatchOneByOneKeepsTheHookTimeout(t *testing.T) {
	f := newGrantFlow(t)
	const delay = 1500 * time.Millisecond
	fc := f.console(t, delay, tui.AnswerDeny, tui.AnswerDeny, tui.AnswerIndividually, tui.AnswerOnce)
	f.p.AskGrant(f.loaded, f.call("Read"), f.block(t, decide.Read, "a"))
	f.p.AskGrant(f.loaded, f.call("Read"), f.block(t, decide.Read, "b"))
	var mu sync.Mutex
	var latest time.Time // the latest deadline the hook was given
	f.extend = func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if at := time.Now().Add(d); at.After(latest) {
			latest = at
		}
	}
	start := time.Now()
	f.p.AskGrant(f.loaded, f.call("Read"), f.block(t, decide.Read, "c"))
	asked := fc.asked()
	if len(asked) != 4 || len(asked[2].Batch) != 3 || len(asked[3].Batch) != 0 {
		t.Fatalf("asked %+v, want 2 single, the batch, then c alone", asked)
	}
	budget := time.Duration(asked[2].TimeoutSeconds)*time.Second + 20*time.Second // lock, answer
	if over := latest.Sub(start.Add(budget)); over > 200*time.Millisecond {
		t.Errorf("the hook's deadline was moved %s past one prompt's budget (%s)", over, budget)
	}
	if got, most := asked[3].TimeoutSeconds, asked[2].TimeoutSeconds-int(delay/time.Second); got > most {
		t.Errorf("c alone was given %d s after the batch took %s of %d s; want at most %d s", got, delay, asked[2].TimeoutSeconds, most)
	}
}
