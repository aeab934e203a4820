package proxy

import (
	"context"
	"net/netip"
	"sync"

	"github.com/picketdev/picket/egress"
)

// Person is the person at hand, as the proxy reaches them through
// picket's prompt surfaces.
type Person interface {
	// Granted reports whether the agent session holds a grant for h (an
	// earlier "this session" or "persist" answer).
	Granted(h egress.Host) bool
	// Ask puts q to the person and returns the answer. An error means no
	// one could be asked, or the prompt failed: the host is refused.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Keep carries out a "session" or "persist" answer for h and returns
	// the audit decision it achieved ("grant-session" when a persist
	// could not be written).
	Keep(h egress.Host, a Answer) string
}

// Question is one destination no entry names, put to a person.
type Question struct {
	Via   string
	Host  egress.Host
	Port  int
	Addrs []netip.Addr // what the host resolved to, all permitted
	// Batch, when set, lists every host of this command no entry names
	// and the person has not let through, this one included: the prompt
	// asks about them all at once.
	Batch []egress.Host
}

// Answer is the person's answer, as picket's prompt gives it.
type Answer string

// The answers. "once" lets the host through for the rest of this command.
const (
	AnswerDeny         Answer = "deny"
	AnswerOnce         Answer = "once"
	AnswerSession      Answer = "session"
	AnswerPersist      Answer = "persist"
	AnswerDenyAll      Answer = "deny-all"
	AnswerAllowAllOnce Answer = "allow-all-once"
	AnswerIndividually Answer = "individually"
)

// prompter keeps one command's answers: a host is asked about once, and
// the answer holds until the command ends. Prompts are put one at a time.
type prompter struct {
	person     Person
	batchAfter int

	askMu sync.Mutex // one prompt at a time

	mu           sync.Mutex
	hosts        map[egress.Host]*hostState
	order        []egress.Host // hosts asked about, first asked first
	denyAll      bool
	individually bool
}

// hostState is what the command knows of one unlisted host.
type hostState struct {
	answered bool
	allow    bool
	reason   string // why it was refused
}

// answer is the prompter's word on one connection.
type answer struct {
	allow    bool
	outcome  string // the audit decision
	prompted bool
	reason   string
}

func newPrompter(p Person, batchAfter int) *prompter {
	return &prompter{person: p, batchAfter: batchAfter, hosts: map[egress.Host]*hostState{}}
}

// granted says why h may pass without asking ("" when it may not): the
// person let it through earlier in this command, or the session holds a
// grant.
func (p *prompter) granted(h egress.Host) string {
	p.mu.Lock()
	st := p.hosts[h]
	p.mu.Unlock()
	if st != nil && st.answered && st.allow {
		return "the person let it through earlier in this command"
	}
	if p.person != nil && p.person.Granted(h) {
		return "the session holds a grant for it"
	}
	return ""
}

// ask gets the word on a connection to q.Host: an earlier answer in this
// command, or the person's.
func (p *prompter) ask(ctx context.Context, q Question) answer {
	p.mu.Lock()
	st := p.hosts[q.Host]
	if st == nil {
		st = &hostState{}
		p.hosts[q.Host] = st
		p.order = append(p.order, q.Host)
	}
	p.mu.Unlock()
	p.askMu.Lock()
	defer p.askMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if st.answered {
		return p.earlier(st)
	}
	if p.denyAll {
		return answer{reason: "the person denied every further host of this command"}
	}
	for {
		q.Batch = nil
		if !p.individually && p.batchAfter > 0 {
			if b := p.unanswered(); len(b) >= p.batchAfter {
				q.Batch = b
			}
		}
		p.mu.Unlock()
		a, err := p.person.Ask(ctx, q)
		p.mu.Lock()
		if err != nil {
			st.answered, st.reason = true, "no person could be asked: "+err.Error()
			return answer{reason: st.reason}
		}
		if a == AnswerIndividually {
			p.individually = true
			continue
		}
		return p.carryOut(q, st, a)
	}
}

// earlier is the answer a host already got in this command.
func (p *prompter) earlier(st *hostState) answer {
	if st.allow {
		return answer{allow: true, outcome: "allow", reason: "the person let it through earlier in this command"}
	}
	return answer{reason: st.reason}
}

// unanswered lists the hosts asked about in this command that were not
// let through, in order: what a batch prompt shows.
func (p *prompter) unanswered() []egress.Host {
	var out []egress.Host
	for _, h := range p.order {
		if st := p.hosts[h]; !st.allow {
			out = append(out, h)
		}
	}
	return out
}

// carryOut records the person's answer a about q (the lock held) and
// returns the connection's answer.
func (p *prompter) carryOut(q Question, st *hostState, a Answer) answer {
	st.answered = true
	switch a {
	case AnswerOnce:
		st.allow = true
		return answer{allow: true, outcome: "grant-once", prompted: true}
	case AnswerSession, AnswerPersist:
		st.allow = true
		p.mu.Unlock()
		outcome := p.person.Keep(q.Host, a)
		p.mu.Lock()
		return answer{allow: true, outcome: outcome, prompted: true}
	case AnswerAllowAllOnce:
		for _, h := range q.Batch {
			if other := p.hosts[h]; other != nil {
				other.answered, other.allow = true, true
			}
		}
		st.allow = true
		return answer{allow: true, outcome: "grant-once", prompted: true}
	case AnswerDenyAll:
		p.denyAll = true
		st.reason = "the person denied it, and every further host of this command"
	default:
		// The prompt's timeout answers deny, as Enter and Esc do.
		st.reason = "the person denied it, or let the prompt time out"
	}
	return answer{prompted: true, reason: st.reason}
}
