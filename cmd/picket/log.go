package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/picketdev/picket/audit"
	"github.com/picketdev/picket/escape"
)

func init() { commands["log"] = runLog }

const logUsage = `Usage: picket log [-f] [--json] [--session ID] [--decision D] [--tool T] [--since WHEN] [--file PATH] [N]

Prints the last N audit entries (default 20), oldest first, from the current
and rotated log files. -f then keeps printing new entries as they arrive.

  -f               follow the log, across rotations, until interrupted
  --json           print the raw NDJSON lines
  --session ID     only entries of this session: its id, or the first 8 or
                   more characters of it, as picket log shows them
  --decision D     only this decision: allow, block, error, grant-once,
                   grant-session, grant-persist or run
  --tool T         only this tool's entries (case ignored): network for the
                   shell sandbox's connections, Read, bash, run, ...
  --since WHEN     only entries this recent: a duration (90s, 1h, 2d) or
                   an RFC 3339 time
  --file PATH      the log to read (default: the audit log's path)
`

// runLog prints audit entries. Exit 0, or 2 for usage errors and an
// unreadable log.
func runLog(c *cli, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runLogContext(ctx, c, args)
}

type logOptions struct {
	n      int
	follow bool
	json   bool
	file   string
	filter audit.Filter
}

func runLogContext(ctx context.Context, c *cli, args []string) int {
	o, code, ok := parseLogArgs(c, args, time.Now())
	if !ok {
		return code
	}
	color := logColor(c)
	show := func(r audit.Record) error {
		var err error
		if o.json {
			_, err = fmt.Fprintf(c.stdout, "%s\n", r.Raw)
		} else {
			_, err = fmt.Fprintln(c.stdout, audit.Format(r.Entry, color))
		}
		return err
	}
	recs, err := audit.Tail(o.file, o.n, o.filter)
	var skipped *audit.SkippedError
	if errors.As(err, &skipped) {
		c.warnf("%v", err)
	} else if err != nil {
		c.errorf("%v", err)
		return 2
	}
	for _, r := range recs {
		if err := show(r); err != nil {
			return 0 // the reader went away, as with `picket log | head`
		}
	}
	if n := len(o.filter.Session); len(recs) == 0 && n > 0 && n < audit.MinSessionPrefix {
		c.hintf("--session %s was matched as a whole session id; a prefix needs %d or more characters", escape.Field(o.filter.Session), audit.MinSessionPrefix)
	}
	if !o.follow {
		return 0
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = audit.Follow(ctx, o.file, o.filter, func(r audit.Record) {
		if show(r) != nil {
			cancel()
		}
	})
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	return 0
}

// parseLogArgs accepts flags before and after N. When ok is false, picket
// log exits with code.
func parseLogArgs(c *cli, args []string, now time.Time) (o logOptions, code int, ok bool) {
	o = logOptions{n: 20}
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	fs.BoolVar(&o.follow, "f", false, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.StringVar(&o.file, "file", "", "")
	fs.StringVar(&o.filter.Session, "session", "", "")
	fs.StringVar(&o.filter.Decision, "decision", "", "")
	fs.StringVar(&o.filter.Tool, "tool", "", "")
	since := fs.String("since", "", "")
	pos, code, ok := c.parseFlags(fs, args, true)
	if !ok {
		return o, code, false
	}
	if len(pos) > 1 {
		c.errorf("log takes at most one N, got %q", pos)
		c.hintf("picket log 50")
		return o, 2, false
	}
	if len(pos) == 1 {
		n, err := strconv.Atoi(pos[0])
		if err != nil || n < 1 {
			c.errorf("N must be a positive number of entries, got %q", pos[0])
			return o, 2, false
		}
		o.n = n
	}
	if d := o.filter.Decision; d != "" && !slices.Contains(audit.Decisions(), d) {
		c.errorf("unknown decision %q: want one of %s", d, strings.Join(audit.Decisions(), ", "))
		return o, 2, false
	}
	if *since != "" {
		t, err := audit.ParseSince(*since, now)
		if err != nil {
			c.errorf("%v", err)
			c.hintf("--since 1h, --since 2d or --since 2026-05-01T00:00:00Z")
			return o, 2, false
		}
		o.filter.Since = t
	}
	if o.file == "" {
		o.file = auditPath(c)
	}
	return o, 0, true
}

// logColor colours only a terminal, and never with NO_COLOR set
// (https://no-color.org) or TERM=dumb.
func logColor(c *cli) bool {
	if c.getenv("NO_COLOR") != "" || c.getenv("TERM") == "dumb" {
		return false
	}
	f, ok := c.stdout.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// auditPath is where the audit log lives: picket.audit.path of the policy
// for the working directory, else the default under the state dir.
func auditPath(c *cli) string {
	loaded, err := c.loadPolicy("", "")
	if err != nil {
		loaded = nil
	}
	return c.auditLog().File(loaded)
}
