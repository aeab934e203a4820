package e2e

// The probe: a shell-script hook (not picket) registered in each agent's
// own hook config, to prove at the pinned versions what each agent's hook
// mechanism does. AGENTS-MEASURED.md writes the results down; picket's
// per-agent tests turn these runs into tests of picket itself.
//
// One agent run tries many things at once: every call's input carries a
// word that tells the probe what to do (deny on the canary, fail one way
// or another on a mode word, else stay neutral), and every shell call
// prints a marker that shows in its result whether it ran.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Canary is the word that makes the probe deny a call: a call whose hook
// input mentions it is refused with [ProbeReason].
const Canary = "picket-canary"

// CanaryContent is what the canary file holds: it must never reach the
// model through a call the probe denied.
const CanaryContent = "the canary file must never be read"

// ProbeReason is the reason the probe gives when it denies; a test looks
// for it in what the model received.
const ProbeReason = "probe-deny: the input names the canary"

// Probe modes: a call whose hook input holds one of these words makes the
// probe answer that way instead, so one agent run can try every failure.
const (
	ModeExit1      = "mode-exit1"      // text on stderr, exit 1
	ModeExit2      = "mode-exit2"      // the reason on stderr, exit 2
	ModeExit2Quiet = "mode-quietexit2" // exit 2, nothing on stderr
	ModeExit3      = "mode-exit3"      // the reason on stderr, exit 3
	ModeMissing    = "mode-missing"    // exec a binary that is not there (127)
	ModeTimeout    = "mode-timeout"    // become a sleep three times the hook timeout
	ModeSignal     = "mode-signal"     // SIGKILL itself
	ModeBadJSON    = "mode-badjson"    // "{bad" on stdout, exit 0
	ModeUnknown    = "mode-unknown"    // the deny reply plus an unknown field, exit 0
	ModeNoReason   = "mode-noreason"   // the deny reply without a reason, exit 0
	ModeRewrite    = "mode-rewrite"    // a reply that rewrites the input without "allow"
)

// probeModes is every mode, in the order the runs try them.
var probeModes = []string{ModeExit1, ModeExit2, ModeExit2Quiet, ModeExit3, ModeMissing, ModeTimeout,
	ModeSignal, ModeBadJSON, ModeUnknown, ModeNoReason, ModeRewrite}

// ProbeTimeout is the hook timeout the probe runs configure; the timeout
// mode sleeps three times as long.
const ProbeTimeout = 3 * time.Second

// modeCommand is the shell command a mode's call runs: its output,
// "ran-<mode>", is not in the command line itself, so a result holding it
// proves the command ran.
func modeCommand(mode string) string { return "printf '%s-%s\\n' ran " + mode }

// rewrittenCommand is what the rewrite mode replaces a command with.
func rewrittenCommand(mode string) string { return "printf '%s-%s\\n' rewritten " + mode }

// probe is one installed probe hook.
type probe struct {
	// Script is the hook's path: register it as the agent's command.
	Script string
	// Log gets one line per hook run: {"pwd", "env", "stdin"}.
	Log string
}

// probeReplies are what the probe prints, in one agent's dialect.
type probeReplies struct {
	// Deny is the full deny reply with ProbeReason.
	Deny string
	// Unknown is Deny with one extra field the agent does not know.
	Unknown string
	// NoReason is Deny without its reason.
	NoReason string
	// Rewrite is a reply that rewrites the call's input without an
	// "allow", or "" where the dialect has none.
	Rewrite string
}

// claudeReplies is the Claude Code dialect, which Codex, Qwen Code and
// Copilot CLI's PreToolUse mode speak. rewrite is the tool input to
// substitute.
func claudeReplies(rewrite string) probeReplies {
	deny := func(reason string, extra string) string {
		r := ""
		if reason != "" {
			r = fmt.Sprintf(`,"permissionDecisionReason":%q`, reason)
		}
		return fmt.Sprintf(`{%s"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"%s}}`, extra, r)
	}
	return probeReplies{
		Deny:     deny(ProbeReason, ""),
		Unknown:  deny(ProbeReason, `"picketUnknownField":true,`),
		NoReason: deny("", ""),
		Rewrite:  fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":%s}}`, rewrite),
	}
}

// newProbe writes the probe script into dir, answering in the replies'
// dialect.
func newProbe(t *testing.T, dir string, r probeReplies) probe {
	t.Helper()
	p := probe{Script: filepath.Join(dir, "probe-hook.sh"), Log: filepath.Join(dir, "probe-hook.log")}
	q := shellQuote
	script := `#!/bin/sh
# The probe hook: logs its stdin, then answers by what the input mentions.
in=$(cat)
env=$(env | grep -E '^(CLAUDE|GEMINI|QWEN|COPILOT|CODEX|OPENCODE)_' | grep -vE '_(KEY|TOKEN)=' | sort | tr '\n"\\' '   ')
printf '{"pwd":"%s","env":"%s","stdin":%s}\n' "$PWD" "$env" "$in" >>` + q(p.Log) + `
case $in in
*` + Canary + `*) printf '%s' ` + q(r.Deny) + `; exit 0 ;;
*` + ModeExit1 + `*) echo 'probe: failing with exit 1' >&2; exit 1 ;;
*` + ModeExit2Quiet + `*) exit 2 ;;
*` + ModeExit2 + `*) echo ` + q(ProbeReason+" (exit 2)") + ` >&2; exit 2 ;;
*` + ModeExit3 + `*) echo ` + q(ProbeReason+" (exit 3)") + ` >&2; exit 3 ;;
*` + ModeMissing + `*) exec /nonexistent/picket-probe-missing ;;
*` + ModeTimeout + `*) exec sleep ` + fmt.Sprint(int(3*ProbeTimeout/time.Second)) + ` ;;
*` + ModeSignal + `*) kill -9 $$ ;;
*` + ModeBadJSON + `*) printf '{bad'; exit 0 ;;
*` + ModeUnknown + `*) printf '%s' ` + q(r.Unknown) + `; exit 0 ;;
*` + ModeNoReason + `*) printf '%s' ` + q(r.NoReason) + `; exit 0 ;;
*` + ModeRewrite + `*) printf '%s' ` + q(r.Rewrite) + `; exit 0 ;;
esac
exit 0
`
	if err := os.WriteFile(p.Script, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookRun is one logged run of the probe.
type hookRun struct {
	// Pwd is the hook process's working directory.
	Pwd string `json:"pwd"`
	// Env holds the agent's own variables the hook saw (NAME=value,
	// space-separated; keys and tokens left out).
	Env string `json:"env"`
	// Stdin is the hook input, parsed.
	Stdin map[string]any `json:"stdin"`
	// Raw is the hook input as it came.
	Raw json.RawMessage `json:"-"`
}

// runs returns every hook run the probe logged.
func (p probe) runs(t *testing.T) []hookRun {
	t.Helper()
	return readHookLog(t, p.Log)
}

func readHookLog(t *testing.T, path string) []hookRun {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []hookRun
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var h struct {
			hookRun
			Stdin json.RawMessage `json:"stdin"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Errorf("probe log line is not JSON: %v: %s", err, sc.Bytes())
			continue
		}
		r := h.hookRun
		r.Raw = h.Stdin
		json.Unmarshal(h.Stdin, &r.Stdin)
		out = append(out, r)
	}
	return out
}

// findInput returns the first hook run whose stdin member key (the tool
// input) is input, compared as JSON with sorted keys.
func findInput(runs []hookRun, key, input string) (hookRun, bool) {
	var v any
	json.Unmarshal([]byte(input), &v)
	want, _ := json.Marshal(v)
	for _, r := range runs {
		if inputOf(r, key) == string(want) {
			return r, true
		}
	}
	return hookRun{}, false
}

// findRun returns the first hook run whose input contains marker.
func findRun(runs []hookRun, marker string) (hookRun, bool) {
	for _, r := range runs {
		if bytes.Contains(r.Raw, []byte(marker)) {
			return r, true
		}
	}
	return hookRun{}, false
}

// probeWorld is one probe run's machine: a home with XDG dirs under it,
// and a git project holding notes.txt, sub/deep.txt and the canary file,
// both in the project and in sub.
// Agents run in project/sub, a subdirectory of the repository, so a
// relative path tells whether the agent resolves it against its working
// directory or the project root.
type probeWorld struct {
	base, home, project, sub string
	env                      []string
}

func newProbeWorld(t *testing.T, extraEnv ...string) *probeWorld {
	t.Helper()
	base := scratch(t)
	w := &probeWorld{base: base, home: filepath.Join(base, "home"), project: filepath.Join(base, "project")}
	w.sub = filepath.Join(w.project, "sub")
	w.env = append([]string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=dumb",
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM=1",
	}, extraEnv...)
	writeFile(t, filepath.Join(w.project, "notes.txt"), "hello from the probe notes\n")
	writeFile(t, filepath.Join(w.project, Canary+".txt"), CanaryContent+"\n")
	writeFile(t, filepath.Join(w.sub, "deep.txt"), "deep file in sub\n")
	writeFile(t, filepath.Join(w.sub, Canary+".txt"), CanaryContent+"\n")
	mustRun(t, w.project, w.env, "git", "init", "-q")
	return w
}

// run runs an agent in dir with the world's environment plus extra, and
// returns its stdout and stderr; a non-zero exit fails the test.
func (w *probeWorld) run(t *testing.T, dir string, extra []string, name string, args ...string) (stdout, stderr []byte, took time.Duration) {
	t.Helper()
	stdout, stderr, took, err := w.tryRun(dir, extra, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v (after %v)\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, took, stdout, stderr)
	}
	return stdout, stderr, took
}

// tryRun is run without the test failing on a non-zero exit.
func (w *probeWorld) tryRun(dir string, extra []string, name string, args ...string) (stdout, stderr []byte, took time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if st := os.Getenv("PICKET_E2E_STRACE"); st != "" {
		// Shows every connection an agent opens (outside loopback there
		// must be none): PICKET_E2E_STRACE=/path/prefix.
		args = append([]string{"-f", "-e", "trace=" + strace(), "-o", st + "." + filepath.Base(name), name}, args...)
		name = "strace"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), w.env...), extra...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	return out.Bytes(), errOut.Bytes(), time.Since(start), err
}

// outcome says what became of a mode call, from the result the model got.
func outcome(r Result, ok bool, mode string) string {
	switch {
	case !ok:
		return "no result"
	case strings.Contains(r.Text, "rewritten-"+mode):
		return "rewritten"
	case strings.Contains(r.Text, "ran-"+mode):
		return "ran"
	case strings.Contains(r.Text, ProbeReason):
		return "blocked, reason shown"
	default:
		return "blocked"
	}
}

// modeScript is one shell call per mode, built by shell, from turn first
// on; it returns the turns and, by mode, the turn index.
func modeScript(first int, shell func(command string) Turn) ([]Turn, map[string]int) {
	var turns []Turn
	at := map[string]int{}
	for i, mode := range probeModes {
		turns = append(turns, shell(modeCommand(mode)))
		at[mode] = first + i
	}
	return turns, at
}

// checkModes compares what became of each mode call with want (by mode;
// a mode missing from want is not checked), and logs the whole table, so
// a failing run says everything that changed.
func checkModes(t *testing.T, model *Model, at map[string]int, want map[string]string) {
	t.Helper()
	results := model.Results()
	reqs := model.Requests()
	var rows []string
	for _, mode := range probeModes {
		k, ok := at[mode]
		if !ok {
			continue
		}
		r, got := results[ToolUseID(k)]
		o := outcome(r, got, mode)
		rows = append(rows, fmt.Sprintf("| %s | %s | %v | %q |", mode, o, callTime(reqs, k).Round(100*time.Millisecond), clip(r.Text, 160)))
		if w, ok := want[mode]; ok && w != o {
			t.Errorf("%s: the call %s, want %s; the model got %q", mode, o, w, r.Text)
		}
	}
	t.Logf("mode outcomes (| mode | outcome | call took | what the model got |):\n%s", strings.Join(rows, "\n"))
}

// callTime is how long the agent spent on turn k's calls: from the
// request that got the turn to the request that carried its results.
func callTime(reqs []Request, k int) time.Duration {
	var asked, answered time.Time
	for _, r := range reqs {
		if r.Turn == k && asked.IsZero() {
			asked = r.Time
		}
		if r.Turn == k+1 && answered.IsZero() {
			answered = r.Time
		}
	}
	if asked.IsZero() || answered.IsZero() {
		return 0
	}
	return answered.Sub(asked)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkCanary asserts that turn k, a call naming the canary, was denied
// with the probe's reason reaching the model and the canary's content not.
func checkCanary(t *testing.T, model *Model, k int, what string) {
	t.Helper()
	r, ok := model.Results()[ToolUseID(k)]
	if !ok {
		t.Errorf("%s: the model never received a result", what)
		return
	}
	if !strings.Contains(r.Text, ProbeReason) || strings.Contains(r.Text, CanaryContent) {
		t.Errorf("%s: the model got %q, want the probe's reason %q and not the canary's content", what, r.Text, ProbeReason)
	}
}

// checkGot asserts that turn k's result holds want.
func checkGot(t *testing.T, model *Model, k int, what, want string) {
	t.Helper()
	r, ok := model.Results()[ToolUseID(k)]
	if !ok || !strings.Contains(r.Text, want) {
		t.Errorf("%s: the model got %q (present %v), want it to hold %q", what, r.Text, ok, want)
	}
}

// checkNoCanary asserts that the canary's content reached the model in no
// request.
func checkNoCanary(t *testing.T, model *Model) {
	t.Helper()
	for _, r := range model.RequestsContaining(CanaryContent) {
		t.Errorf("request %s (turn %d) carries the canary's content to the model", r.Path, r.Turn)
	}
}

// logRuns logs every hook input with the hook's pwd, for the table of
// measured hook inputs.
func logRuns(t *testing.T, runs []hookRun) {
	t.Helper()
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "pwd=%s env=[%s]\n  %s\n", r.Pwd, strings.TrimSpace(r.Env), r.Raw)
	}
	t.Logf("%d hook runs:\n%s", len(runs), b.String())
}

// toolsOffered lists the tool names of the first main-loop request, read
// with names, a function that pulls them out of one request body.
func toolsOffered(model *Model, names func(body []byte) []string) []string {
	for _, r := range model.Requests() {
		if r.Turn >= 0 {
			out := names(r.Body)
			sort.Strings(out)
			return out
		}
	}
	return nil
}

// jsonString is s as a JSON string.
func jsonString(s string) string { return marshalPlain(s) }

func readFileString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// inputOf is a hook run's tool input as compact JSON with sorted keys,
// for comparing with what a table says.
func inputOf(r hookRun, key string) string {
	b, _ := json.Marshal(r.Stdin[key])
	return string(b)
}

func itoa(n int) string { return fmt.Sprint(n) }

func strace() string {
	if s := os.Getenv("PICKET_E2E_STRACE_SET"); s != "" {
		return s
	}
	return "connect"
}
