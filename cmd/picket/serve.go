package main

import (
	"flag"
	"runtime/debug"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/grants"
	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/sidecar"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["serve"] = runServe }

const serveUsage = `Usage: picket serve [--agent pi|opencode]

Answers NDJSON requests on stdin, one response line per request on stdout,
for an agent extension beside it (Pi's extension, opencode's plugin). The
protocol is in picket's docs/sidecar-protocol.md.
`

// runServe runs the sidecar until EOF on stdin. Exit 0 then, 2 for a usage
// error, 1 when stdin cannot be read.
func runServe(c *cli, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	agent := fs.String("agent", "pi", "the agent whose tool calls arrive")
	if _, code, ok := c.parseFlags(fs, args, false); !ok {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("serve takes no arguments")
		return 2
	}
	a := agents.Lookup(*agent)
	if a == nil {
		c.errorf("unknown agent %q", *agent)
		c.hintf("picket serve speaks for %v", agents.Names())
		return 2
	}
	s := newSidecar(c, *agent)
	defer s.Close()
	if c.getenv("GOGC") == "" {
		// The sidecar's live heap is small (policies and caches) and each
		// decision allocates a little: collecting at 5x the live heap
		// instead of 2x takes a fifth off a decision's cost.
		debug.SetGCPercent(400)
	}
	if err := c.grantStore().Prune(grants.DefaultMaxAge); err != nil {
		c.warnf("pruning old session grants: %v", err)
	}
	if err := s.Serve(c.stdin, c.stdout); err != nil {
		c.errorf("serve: %v", err)
		return 1
	}
	return 0
}

// sidecar wires a sidecar for the named agent as picket serve runs it.
func newSidecar(c *cli, agent string) *sidecar.Server {
	return sidecar.New(sidecar.Config{
		Pipeline: c.pipeline(agents.Lookup(agent), false),
		Load: func(dir string, observe func(string)) (*decide.Loaded, error) {
			return c.loadObserved(dir, "", observe)
		},
		Home: c.getenv("HOME"), ConfigHome: c.getenv("XDG_CONFIG_HOME"),
		Version: picketVersion(),
		Audit:   c.auditLog(),
		Sandbox: func() sandbox.Status { return sandboxStatus(c) },
		Show: func(loaded *decide.Loaded, st sandbox.Status, mode decide.Mode) any {
			out := showOf(c, loaded, st)
			if mode != "" {
				out.Mode = mode
			}
			return out
		},
		Lint:   lintResult,
		Errorf: c.errorf,
	})
}
