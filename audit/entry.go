package audit

import (
	"encoding/json"
	"fmt"
	"time"
)

// TimeFormat is the layout of an entry's "ts": RFC 3339 in UTC with
// milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Entry is one audit line. A zero TS is filled in by [Log.Append].
type Entry struct {
	TS       time.Time
	Session  string
	Agent    string
	Decision string // block, grant-once, grant-session, grant-persist, error
	Tool     string
	Access   string
	Path     string
	Resolved string
	Layer    string
	Rule     string
	Pattern  string
	Source   string
	Prompted bool
	Reason   string // errors, e.g. "picket: error: ..."
	Command  string // shell sandbox
	Cwd      string
	Exit     *int
	// Run is the id of one sandboxed command: its network lines (tool
	// "network") share it.
	Run string
}

// entryJSON fixes the member names and order; "ts" must stay first because
// rotation reads the day from the start of a file. The members from "ts" to
// "source" are on every line, empty or not, as the format promises; the
// rest only when set.
type entryJSON struct {
	TS       string `json:"ts"`
	Session  string `json:"session"`
	Agent    string `json:"agent"`
	Decision string `json:"decision"`
	Tool     string `json:"tool"`
	Access   string `json:"access"`
	Path     string `json:"path"`
	Resolved string `json:"resolved"`
	Layer    string `json:"layer"`
	Rule     string `json:"rule"`
	Pattern  string `json:"pattern"`
	Source   string `json:"source"`
	Prompted bool   `json:"prompted,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Command  string `json:"command,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Exit     *int   `json:"exit,omitempty"`
	Run      string `json:"run,omitempty"`
}

// MarshalJSON writes e as one audit line, without the newline.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(entryJSON{
		TS: e.TS.UTC().Format(TimeFormat), Session: e.Session, Agent: e.Agent,
		Decision: e.Decision, Tool: e.Tool, Access: e.Access, Path: e.Path,
		Resolved: e.Resolved, Layer: e.Layer, Rule: e.Rule, Pattern: e.Pattern,
		Source: e.Source, Prompted: e.Prompted, Reason: e.Reason,
		Command: e.Command, Cwd: e.Cwd, Exit: e.Exit, Run: e.Run,
	})
}

// UnmarshalJSON reads one audit line.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ts, err := time.Parse(time.RFC3339Nano, j.TS)
	if err != nil {
		return fmt.Errorf("invalid ts %q: %w", j.TS, err)
	}
	*e = Entry{
		TS: ts.UTC(), Session: j.Session, Agent: j.Agent,
		Decision: j.Decision, Tool: j.Tool, Access: j.Access, Path: j.Path,
		Resolved: j.Resolved, Layer: j.Layer, Rule: j.Rule, Pattern: j.Pattern,
		Source: j.Source, Prompted: j.Prompted, Reason: j.Reason,
		Command: j.Command, Cwd: j.Cwd, Exit: j.Exit, Run: j.Run,
	}
	return nil
}
