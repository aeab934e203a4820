package lint

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
)

// Warning is one finding about a policy. Line and Col are 1-based; both are
// 0 when the finding is about a whole file or directory, or a rule that
// could not be located.
type Warning struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Code string `json:"code"`
	Msg  string `json:"msg"`
}

// The warning codes, stable for scripts and tests.
const (
	CodeCanaryRead         = "canary-read"
	CodeCanaryWrite        = "canary-write"
	CodeWorkspaceHome      = "workspace-home"
	CodeTopGlobstar        = "top-globstar"
	CodeBrace              = "brace"
	CodeFusedGlobstar      = "fused-globstar"
	CodeWritablePolicy     = "writable-policy"
	CodeNeverMatches       = "never-matches"
	CodeAboveRoot          = "above-root"
	CodeEscapesRoot        = "escapes-root"
	CodePromptTimeout      = "prompt-timeout"
	CodeShadowed           = "shadowed"
	CodeCredentialsOpen    = "credentials-open"
	CodeEnvOpened          = "env-opened"
	CodeCredentialEnv      = "credential-env"
	CodeNetworkAll         = "network-all"
	CodeNetworkUserContent = "network-user-content"
)

// String formats w as "file:line:col: warning: msg [code]", or without
// ":line:col" when w is about a whole file, escaped by [escape.Text]: the
// file name and the message carry policy text, and the line reaches
// terminals (picket lint) and the agent's session (the hook's SessionStart
// message). Msg itself stays as written, for --json.
func (w Warning) String() string {
	if w.Line == 0 {
		return escape.Text(fmt.Sprintf("%s: warning: %s [%s]", w.File, w.Msg, w.Code))
	}
	return escape.Text(fmt.Sprintf("%s:%d:%d: warning: %s [%s]", w.File, w.Line, w.Col, w.Msg, w.Code))
}

// Run lints l and returns its warnings sorted by file, line and column. It
// reads the chain's files again to place each rule, and stats them and
// their directories; it never changes anything.
func Run(l *decide.Loaded) []Warning {
	t := newTarget(l)
	var out []Warning
	for _, c := range checks() {
		out = append(out, c(t)...)
	}
	slices.SortStableFunc(out, func(a, b Warning) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// A check is one kind of finding. Each reads the target and reports what
// it sees; none depends on another.
type check func(t *target) []Warning

// checks lists every check Run performs. The shell sandbox's coverage note
// (which fields fence cannot enforce for bash on this machine) belongs here
// as one more check once the sandbox layer exists.
func checks() []check {
	return []check{
		checkWorkspace,
		checkCanaries,
		checkTopGlobstar,
		checkBraces,
		checkFusedGlobstar,
		checkReach,
		checkPromptTimeout,
		checkShadowed,
		checkFileModes,
		checkCredentials,
		checkEnvOpened,
		checkKeepEnv,
		checkNetwork,
	}
}
