package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/escape"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/sandbox"
)

func init() { commands["show"] = runShow }

// appliesTo says which layer enforces each top-level field: picket's file
// tools ("fs"), the shell sandbox ("bash"), both, "shell lines", or none.
var appliesTo = map[string]string{
	"filesystem.allowRead":       "both",
	"filesystem.denyRead":        "both",
	"filesystem.allowWrite":      "both",
	"filesystem.denyWrite":       "both",
	"filesystem.defaultDenyRead": "both",
	"filesystem.strictDenyRead":  "both",
	"filesystem.allowGitConfig":  "both",
	"picket.mode":                "both",
	"picket.blocklist":           "both",
	"picket.permissions":         "both (reads; writes: fs)",
	"picket.writeGuards":         "fs",
	"picket.caseInsensitive":     "fs",
	"picket.audit":               "both",
	"picket.prompt":              "fs",
	"picket.sandbox":             "bash",
	"network":                    "bash",
	"command":                    "shell lines",
	"ssh":                        "shell lines",
	"devices":                    "bash",
	"macos":                      "none (Linux only)",
	"allowPty":                   "bash",
	"forceNewSession":            "bash",
}

type showOutput struct {
	Chain     []string          `json:"chain"`
	Root      string            `json:"root"`
	Mode      decide.Mode       `json:"mode"`
	Policy    map[string]any    `json:"policy"`
	Mandatory []decide.Rule     `json:"mandatory"`
	AppliesTo map[string]string `json:"appliesTo"`
	Sources   map[string]string `json:"sources"`
	Sandbox   sandbox.Status    `json:"sandbox"`
	// TempDir is the system temp dir "$TMPDIR" names in the policy.
	TempDir     decide.TempDir `json:"tempDir"`
	StrippedEnv []string       `json:"strippedEnv"` // what of this environment commands do not get
	// SandboxNotes say how the shell sandbox applies this policy and what
	// it leaves to the file tools.
	SandboxNotes []string `json:"sandboxNotes"`
}

// runShow prints the resolved policy, the chain it came from (root first),
// the mandatory denies and which layer each field applies to.
func runShow(c *cli, args []string) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory for discovery")
	config := fs.String("config", "", "policy file to use instead of discovery")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code, ok := c.parseFlags(fs, args, false)
	if !ok {
		return code
	}
	if !c.noArgs("show", pos) {
		return 2
	}
	loaded, err := c.loadPolicy(*cwd, *config)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	out := showOf(c, loaded, sandboxStatus(c))
	if *asJSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(c.stdout, "%s\n", b)
		return 0
	}
	printShow(c.stdout, out, loaded.Policy.Spec())
	return 0
}

// showOf is what `picket show --json` prints and `picket serve`'s show
// operation answers, for c's environment.
func showOf(c *cli, loaded *decide.Loaded, st sandbox.Status) showOutput {
	spec := loaded.Policy.Spec()
	stripped, envLines := sandbox.EnvLines(loaded.Settings.Sandbox, c.env)
	return showOutput{
		Chain: loaded.Chain, Root: spec.Root, Mode: loaded.Policy.Mode(), Policy: loaded.Raw,
		Mandatory: spec.Mandatory, AppliesTo: appliesTo, Sources: fieldSources(spec), Sandbox: st,
		TempDir:     decide.SystemTempDir(c.getenv("TMPDIR"), loaded.Env.Home, os.Getuid()),
		StrippedEnv: stripped, SandboxNotes: append(sandbox.ShowLines(loaded, st), envLines...),
	}
}

// sandboxStatus probes the shell sandbox as picket run would: bubblewrap
// in this PATH, and the user-namespace probe (or its override).
func sandboxStatus(c *cli) sandbox.Status {
	return sandbox.ProbeOn(c.goos, c.getenv("PATH"), c.getenv(sandbox.ProbeEnv))
}

func fieldSources(spec decide.Spec) map[string]string {
	src := map[string]string{}
	for k, v := range spec.Sources {
		src[k] = v
	}
	for _, l := range []struct {
		name  string
		rules []decide.Rule
	}{{"filesystem.allowRead", spec.AllowRead}, {"filesystem.denyRead", spec.DenyRead},
		{"filesystem.allowWrite", spec.AllowWrite}, {"filesystem.denyWrite", spec.DenyWrite},
		{"picket.blocklist", spec.Blocklist}} {
		var files []string
		for _, r := range l.rules {
			if !contains(files, r.Source) {
				files = append(files, r.Source)
			}
		}
		if len(files) > 0 {
			src[l.name] = strings.Join(files, ", ")
		}
	}
	return src
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// printShow prints out for people. Each line goes through [escape.Text] and
// each path or pattern through [escape.Field]: the policy's text, its file
// names and its unknown keys are all the author's to choose.
func printShow(w io.Writer, out showOutput, spec decide.Spec) {
	line := func(format string, args ...any) {
		fmt.Fprintln(w, escape.Text(fmt.Sprintf(format, args...)))
	}
	line("chain (root first):")
	for _, f := range out.Chain {
		line("  %s", escape.Field(f))
	}
	line("workspace root: %s", escape.Field(out.Root))
	line("mode: %s", out.Mode)
	line("system temp dir (%s in patterns): %s", decide.TempDirToken, out.TempDir)
	lists := []struct {
		name  string
		rules []decide.Rule
	}{{"filesystem.allowRead", spec.AllowRead}, {"filesystem.denyRead", spec.DenyRead},
		{"filesystem.allowWrite", spec.AllowWrite}, {"filesystem.denyWrite", spec.DenyWrite},
		{"picket.blocklist", spec.Blocklist}}
	for _, l := range lists {
		line("%s (applies to: %s):", l.name, appliesTo[l.name])
		for _, r := range l.rules {
			line("  %-40s %s", escape.Field(r.Pattern), escape.Field(r.Source))
		}
	}
	line("filesystem.defaultDenyRead: %v  strictDenyRead: %v  allowGitConfig: %v (applies to: both)",
		spec.DefaultDenyRead, spec.StrictDenyRead, spec.AllowGitConfig)
	if len(spec.Permissions) > 0 {
		line("picket.permissions (applies to: %s):", appliesTo["picket.permissions"])
		for _, p := range spec.Permissions {
			line("  %-30s %-6s priority=%d type=%s  %s", escape.Field(p.Pattern), p.Permission, p.Priority, dash(p.Type), escape.Field(p.Source))
		}
	}
	line("picket.writeGuards (applies to: fs): maxBytes=%d denyExtensions=%v readBeforeEdit=%v",
		spec.WriteGuards.MaxBytes, spec.WriteGuards.DenyExtensions, spec.WriteGuards.ReadBeforeEdit)
	line("mandatory write denies (non-overridable, applies to: both):")
	for _, r := range out.Mandatory {
		line("  %s", escape.Field(r.Pattern))
	}
	var other []string
	for k := range out.Policy {
		if k != "filesystem" && k != "picket" && k != "$schema" {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		b, _ := json.Marshal(out.Policy[k])
		line("%s (applies to: %s): %s", escape.Field(k), dash(appliesTo[k]), b)
	}
	for _, l := range out.SandboxNotes {
		line("%s", l)
	}
	line("%s", hook.ShellLinesNote)
}
