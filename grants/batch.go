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

// TurnState is what a session's current turn has seen of denials.
type TurnState struct {
	// Count is the number of distinct denied paths this turn, the one just
	// noted included.
	Count int
	// Batch is true once Count reaches the batch threshold: prompt for the
	// batch, not the one path.
	Batch bool
	// DenyAll is true when the person chose "deny all" this turn: deny
	// without prompting.
	DenyAll bool
	// Paths are the distinct denied paths this turn, oldest first.
	Paths []string
	// AllowedOnce is true when the person's "allow all once" in this turn
	// covered this path: it passes this time (and is used up).
	AllowedOnce bool
}

// NoteDenial records that path was denied in turn of session and returns the
// turn's state. A turn id other than the recorded one starts a new turn.
// Denials are counted by distinct path, whatever the access. batchAfter <= 0
// never batches.
func (s Store) NoteDenial(session, turnID, access, path string, batchAfter int) (TurnState, error) {
	var ts TurnState
	err := s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		if i := slices.Index(st.Turn.AllowOnce, path); i >= 0 {
			st.Turn.AllowOnce = slices.Delete(st.Turn.AllowOnce, i, i+1)
			ts.AllowedOnce = true
			return nil
		}
		if !slices.Contains(st.Turn.Denied, path) {
			st.Turn.Denied = append(st.Turn.Denied, path)
		}
		ts = TurnState{
			Count:   len(st.Turn.Denied),
			DenyAll: st.Turn.DenyAll,
			Paths:   slices.Clone(st.Turn.Denied),
		}
		ts.Batch = batchAfter > 0 && ts.Count >= batchAfter
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

// Turn returns the turn's state without noting anything; another turn id
// than the recorded one reads as an empty turn.
func (s Store) Turn(session, turnID string) (TurnState, error) {
	st, err := s.load(session)
	if err != nil || st.Turn.ID != turnID {
		return TurnState{}, err
	}
	return TurnState{Count: len(st.Turn.Denied), DenyAll: st.Turn.DenyAll, Paths: slices.Clone(st.Turn.Denied)}, nil
}

// SetAllowAllOnce records the person's "allow all once" for the batch of
// paths they were shown: each passes once more in this turn.
func (s Store) SetAllowAllOnce(session, turnID string, paths []string) error {
	return s.update(session, func(st *state) error {
		st.enterTurn(turnID)
		for _, p := range paths {
			if !slices.Contains(st.Turn.AllowOnce, p) {
				st.Turn.AllowOnce = append(st.Turn.AllowOnce, p)
			}
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
