package tui

// KindNetwork marks a [Request] about a sandboxed command's connection.
const KindNetwork = "network"

// Request is one prompt request, as the hook sends it to picket prompt.
type Request struct {
	// Kind is "" for a file tool call and [KindNetwork] for a connection
	// a sandboxed command opened to a host no entry names: then Host and
	// Port name it (and Path and Resolved hold "host:port"), Addrs are
	// what the host resolved to, Via is how the command asked (HTTP,
	// CONNECT, SOCKS5) and Command is the command line. An answer lets
	// the host through on any port: "once" for the rest of the command,
	// "persist" as a network.allowedDomains entry.
	Kind    string   `json:"kind,omitempty"`
	Host    string   `json:"host,omitempty"`
	Port    int      `json:"port,omitempty"`
	Addrs   []string `json:"addrs,omitempty"`
	Via     string   `json:"via,omitempty"`
	Command string   `json:"command,omitempty"`

	Agent   string `json:"agent"`
	Session string `json:"session"`
	Cwd     string `json:"cwd"`
	Tool    string `json:"tool"`
	Access  string `json:"access"`
	// Path is the requested spelling, made absolute.
	Path string `json:"path"`
	// Resolved is the real path after symlinks: what a grant would cover.
	Resolved string `json:"resolved"`
	Layer    string `json:"layer"`
	Rule     string `json:"rule"`
	Pattern  string `json:"pattern"`
	Source   string `json:"source"`
	// CanPersist offers [p]; the caller sets it only when an allow entry in
	// PersistTarget would lift this block.
	CanPersist bool `json:"canPersist"`
	// PersistTarget is the file persist edits: <root>/fence.jsonc or
	// fence.json.
	PersistTarget string `json:"persistTarget"`
	// PersistCreates says PersistTarget does not exist yet and will be
	// created, extending PersistExtends ("@base" or "code").
	PersistCreates bool   `json:"persistCreates"`
	PersistExtends string `json:"persistExtends"`
	// PersistResolved is the file a persist really writes: PersistTarget
	// with its symlinks resolved. The confirm names it.
	PersistResolved string `json:"persistResolved,omitempty"`
	// PersistNote says why persist is not offered, when the person could
	// not guess it (the path is a directory, the file would be refused).
	PersistNote string `json:"persistNote,omitempty"`
	// Batch, when non-empty, turns the prompt into a batch prompt over these
	// requests (the paths denied so far this turn plus the pending ones).
	Batch []BatchItem `json:"batch,omitempty"`
	// TimeoutSeconds is how long the prompt waits before it denies; zero or
	// less means 60.
	TimeoutSeconds int `json:"timeoutSeconds"`
}

// BatchItem is one request listed in a batch prompt.
type BatchItem struct {
	Tool     string `json:"tool"`
	Access   string `json:"access"`
	Path     string `json:"path"`
	Resolved string `json:"resolved"`
	Rule     string `json:"rule"`
}

// Answer is the person's answer to a prompt.
type Answer string

// The answers. A single request is answered with AnswerDeny, AnswerOnce,
// AnswerSession or AnswerPersist; a batch with AnswerDenyAll,
// AnswerAllowAllOnce or AnswerIndividually (or AnswerDeny when [Run] fails).
const (
	AnswerDeny         Answer = "deny"
	AnswerOnce         Answer = "once"
	AnswerSession      Answer = "session"
	AnswerPersist      Answer = "persist"
	AnswerDenyAll      Answer = "deny-all"
	AnswerAllowAllOnce Answer = "allow-all-once"
	AnswerIndividually Answer = "individually"
)

// Grants reports whether the answer lets the call through.
func (a Answer) Grants() bool {
	switch a {
	case AnswerOnce, AnswerSession, AnswerPersist, AnswerAllowAllOnce:
		return true
	}
	return false
}

// DefaultTimeoutSeconds is the timeout used when [Request.TimeoutSeconds] is
// not positive.
const DefaultTimeoutSeconds = 60

// neverPrompted reports whether a layer's denies are final: the caller must
// not prompt for them, and [Run] denies them if it is asked to.
func neverPrompted(layer string) bool {
	return layer == "mandatory" || layer == "mode"
}
