package grants

import (
	"slices"
	"time"
)

// answerTTL and maxAnswers bound the recent answers kept for coalescing.
const (
	answerTTL  = time.Minute
	maxAnswers = 64
)

// Denial is one denied call of a turn, as a batch prompt lists it and as
// its "allow all once" lets it through. Two denials are the same when their
// access and path are: the tool only tells the person what asked.
type Denial struct {
	Access string `json:"access"`
	Path   string `json:"path"`
	Tool   string `json:"tool,omitempty"`
}

func (d Denial) same(o Denial) bool { return d.Access == o.Access && d.Path == o.Path }

// TurnState is what a session's current turn has seen of denials.
type TurnState struct {
	// Count is the number of distinct denials (access and path) this turn,
	// the one just noted included.
	Count int
	// Batch is true once the distinct denied paths ([TurnState.Paths])
	// reach the batch threshold, unless the person chose to answer one by
	// one: prompt for the batch, not the one call. A read and a write of
	// one file are one path.
	Batch bool
	// DenyAll is true when the person chose "deny all" this turn: deny
	// without prompting.
	DenyAll bool
	// Denied are the distinct denials this turn, oldest first. A denial
	// the person then let through (once, for the session, persisted, or by
	// a batch's "allow all once") is no longer among them.
	Denied []Denial
	// AllowedOnce is true when the person's "allow all once" in this turn
	// covered this access to this path: it passes this time (and is used
	// up).
	AllowedOnce bool
}

// Paths are the distinct paths of Denied, in the order each was first
// denied.
func (ts TurnState) Paths() []string {
	paths := make([]string, 0, len(ts.Denied))
	for _, d := range ts.Denied {
		if !slices.Contains(paths, d.Path) {
			paths = append(paths, d.Path)
		}
	}
	return paths
}

// DeniedPath is one path denied this turn, as a batch prompt lists it:
// each access to it that was denied, and the tools that asked.
type DeniedPath struct {
	Path     string
	Accesses []string
	Tools    []string
}

// ByPath groups Denied by path, in the order of [TurnState.Paths].
func (ts TurnState) ByPath() []DeniedPath {
	var out []DeniedPath
	for _, d := range ts.Denied {
		i := slices.IndexFunc(out, func(p DeniedPath) bool { return p.Path == d.Path })
		if i < 0 {
			out, i = append(out, DeniedPath{Path: d.Path}), len(out)
		}
		out[i].Accesses = appendNew(out[i].Accesses, d.Access)
		out[i].Tools = appendNew(out[i].Tools, d.Tool)
	}
	return out
}

// appendNew appends s to list unless it is empty or listed already.
func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (t turn) state(batchAfter int) TurnState {
	ts := TurnState{Count: len(t.Denied), DenyAll: t.DenyAll, Denied: slices.Clone(t.Denied)}
	ts.Batch = batchAfter > 0 && len(ts.Paths()) >= batchAfter && !t.Individually
	return ts
}

// NoteDenial records that d was denied in turn of session and returns the
// turn's state. A turn id other than the recorded one starts a new turn.
// Denials are kept by access and path, as a grant is, but the batch
// threshold counts paths: a read and a write of one path are one toward
// batchAfter. batchAfter <= 0 never batches.
func (s Store) NoteDenial(session, turnID string, d Denial, batchAfter int) (TurnState, error) {
	var ts TurnState
	err := s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		// "deny all" outranks an earlier "allow all once": the person's
		// last word on the turn.
		if i := slices.IndexFunc(st.Turn.AllowOnce, d.same); i >= 0 && !st.Turn.DenyAll {
			st.Turn.AllowOnce = slices.Delete(st.Turn.AllowOnce, i, i+1)
			ts.AllowedOnce = true
			return nil
		}
		if !slices.ContainsFunc(st.Turn.Denied, d.same) {
			st.Turn.Denied = append(st.Turn.Denied, d)
		}
		ts = st.Turn.state(batchAfter)
		return nil
	})
	return ts, err
}

// SetDenyAll records the person's "deny all" for the rest of turn.
func (s Store) SetDenyAll(session, turnID string) error {
	return s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		st.Turn.DenyAll = true
		return nil
	})
}

// SetIndividually records the person's "one by one" for the rest of turn:
// its later denials are prompted for singly, not as a batch.
func (s Store) SetIndividually(session, turnID string) error {
	return s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		st.Turn.Individually = true
		return nil
	})
}

// Turn returns the turn's state without noting anything; another turn id
// than the recorded one reads as an empty turn. Batch is left false.
func (s Store) Turn(session, turnID string) (TurnState, error) {
	st, err := s.load(session)
	if err != nil || st.Turn.ID != turnID {
		return TurnState{}, err
	}
	return st.Turn.state(0), nil
}

// SetAllowAllOnce records the person's "allow all once" for the batch of
// denials they were shown: each access to each path passes once more in
// this turn; another access to the same path does not. Being let through,
// they are no longer the turn's denials.
func (s Store) SetAllowAllOnce(session, turnID string, denials []Denial) error {
	return s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		for _, d := range denials {
			if !slices.ContainsFunc(st.Turn.AllowOnce, d.same) {
				st.Turn.AllowOnce = append(st.Turn.AllowOnce, d)
			}
			st.Turn.Denied = slices.DeleteFunc(st.Turn.Denied, d.same)
		}
		return nil
	})
}

// Granted forgets d among the denials of turn: the person let it through,
// so a later batch must not list it as denied, nor count it. A turn other
// than the recorded one is left as it is.
func (s Store) Granted(session, turnID string, d Denial) error {
	return s.update(session, func(st *state) error {
		if st.Turn.ID == turnID {
			st.Turn.Denied = slices.DeleteFunc(st.Turn.Denied, d.same)
		}
		return nil
	})
}

// ResetTurn forgets the current turn's denials and "deny all" (the agent's
// turn end).
func (s Store) ResetTurn(session string) error {
	return s.update(session, func(st *state) error {
		st.Turn = turn{}
		return nil
	})
}

func (st *state) enterTurn(id string) {
	if st.Turn.ID != id {
		st.Turn = turn{ID: id}
	}
}

// Coalesce returns the answer already given to an identical request (same
// session, access and path) that arrived within window of arrived. The
// caller takes its arrival time when the hook starts and asks once it holds
// the prompt lock, so a request that queued behind an identical one takes its
// answer instead of prompting again.
func (s Store) Coalesce(session, access, path string, arrived time.Time, window time.Duration) (answer string, found bool, err error) {
	st, err := s.load(session)
	if err != nil {
		return "", false, err
	}
	for _, a := range slices.Backward(st.Answers) {
		if a.Access == access && a.Path == path && within(a.Arrived, arrived, window) {
			return a.Answer, true, nil
		}
	}
	return "", false, nil
}

// RecordAnswer keeps the answer given to a request that arrived at arrived,
// for [Store.Coalesce]. Answers older than a minute are dropped.
func (s Store) RecordAnswer(session, access, path, ans string, arrived time.Time) error {
	now := s.now()
	return s.update(session, func(st *state) error {
		st.Answers = slices.DeleteFunc(st.Answers, func(a answer) bool { return now.Sub(a.Arrived) > answerTTL })
		st.Answers = append(st.Answers, answer{access, path, ans, arrived})
		if n := len(st.Answers); n > maxAnswers {
			st.Answers = st.Answers[n-maxAnswers:]
		}
		return nil
	})
}

func within(a, b time.Time, window time.Duration) bool {
	d := a.Sub(b)
	return -window <= d && d <= window
}

// Offer records the batch shown for call, so that an "allow all once"
// answered later (picket serve's grant op) covers what the person saw.
func (s Store) Offer(session, turnID string, call Denial, batch []Denial) error {
	return s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		st.Turn.Offered = slices.DeleteFunc(st.Turn.Offered, func(o offer) bool { return o.Call.same(call) })
		st.Turn.Offered = append(st.Turn.Offered, offer{Call: call, Batch: slices.Clone(batch)})
		return nil
	})
}

// Offered returns the batch shown for call this turn, and forgets it.
func (s Store) Offered(session, turnID string, call Denial) ([]Denial, error) {
	var batch []Denial
	err := s.update(session, func(st *state) error {
		if st.Turn.ID != turnID {
			return nil
		}
		if i := slices.IndexFunc(st.Turn.Offered, func(o offer) bool { return o.Call.same(call) }); i >= 0 {
			batch = st.Turn.Offered[i].Batch
			st.Turn.Offered = slices.Delete(st.Turn.Offered, i, i+1)
		}
		return nil
	})
	return batch, err
}

// Refused records the person's "no" to d: an earlier "allow all once"
// that listed it no longer lets it through.
func (s Store) Refused(session, turnID string, d Denial) error {
	return s.update(session, func(st *state) error {
		if st.Turn.ID == turnID {
			st.Turn.AllowOnce = slices.DeleteFunc(st.Turn.AllowOnce, d.same)
		}
		return nil
	})
}
