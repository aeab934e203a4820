package decide

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"github.com/picketdev/picket/egress"
	"github.com/picketdev/picket/schema"
)

// Env is everything outside the policy files that resolution depends on.
// Callers fill it from the process environment; tests build it in a line.
type Env struct {
	Cwd        string // the call's working directory, absolute
	Home       string
	ConfigHome string // $XDG_CONFIG_HOME ("" = ~/.config)
	StateHome  string // $XDG_STATE_HOME ("" = ~/.local/state)
	ProjectDir string // the project directory the agent names (Claude Code's $CLAUDE_PROJECT_DIR), when set
	Executable string // picket's own executable, for the mandatory denies
	ConfigFile string // --config: skip discovery and use this file
	// TempDir is the system temp dir, what "$TMPDIR" in a pattern names
	// (see [SystemTempDir]); "" is /tmp.
	TempDir string
	// ValidCache, when set, is a directory of markers named by the SHA-256
	// of policy files that passed validation, so a hook process does not
	// compile the schema on every call. It must be writable only by the
	// person (picket's state dir, a mandatory write deny).
	ValidCache string
	// Agents are the paths of the agents' own configuration that the
	// mandatory write denies hold (see [MandatoryInput.Agents]). decide
	// knows no agent: picket's registry of agents builds this value.
	Agents []string
	// Observe, when set, is called with each path whose state the loaded
	// policy keeps, before picket looks at it: a .git on the way up, every
	// entry on the way to each policy file looked for or read (through
	// symlinks), the workspace root, every literal directory of a rule as
	// it is resolved (also later, when a decision first needs a list). A
	// caller that keeps a Loaded across calls (picket serve) must load it
	// again once any of them changes; a hook process, which loads for one
	// call, leaves it nil.
	Observe func(path string) `json:"-"`
}

// observe calls e.Observe, if set.
func (e Env) observe(p string) {
	if e.Observe != nil {
		e.Observe(p)
	}
}

// observeWay tells e.Observe of every entry the kernel looks at to open
// the file at p: each directory on the way, and, through each symlink,
// each entry on the way to where it points (a ~/.config/fence linked into
// a dotfiles checkout whose current version is itself a link).
func (e Env) observeWay(p string) {
	if e.Observe == nil || !filepath.IsAbs(p) {
		return
	}
	resolve(p, func(q string) (fs.FileInfo, error) {
		e.Observe(q)
		return os.Lstat(q)
	})
}

// UserConfigDir is the user's fence config dir.
func (e Env) UserConfigDir() string {
	if filepath.IsAbs(e.ConfigHome) { // a relative XDG dir is ignored, as the spec says
		return filepath.Join(e.ConfigHome, "fence")
	}
	return filepath.Join(e.Home, ".config", "fence")
}

// StateDir is picket's state dir (audit log, session grants).
func (e Env) StateDir() string {
	if filepath.IsAbs(e.StateHome) {
		return filepath.Join(e.StateHome, "picket")
	}
	return filepath.Join(e.Home, ".local", "state", "picket")
}

// Settings are picket's settings that do not change file decisions.
type Settings struct {
	Audit   AuditSettings   `json:"audit"`
	Prompt  PromptSettings  `json:"prompt"`
	Sandbox SandboxSettings `json:"sandbox"`
}

// AuditSettings configure the audit log.
type AuditSettings struct {
	Path        string `json:"path,omitempty"`
	LogAllows   bool   `json:"logAllows,omitempty"`
	LogCommands bool   `json:"logCommands,omitempty"`
	MaxAgeDays  int    `json:"maxAgeDays,omitempty"`
	MaxSizeMB   int    `json:"maxSizeMB,omitempty"`
}

// PromptTimeoutCap is the longest prompt timeout, in seconds, picket
// waits: 30 s less than the hook timeout `picket install claude` writes
// (90 s), kept for waiting on the prompt lock and writing the answer. An
// agent that kills a hook still waiting lets the call through, so a longer
// picket.prompt.timeoutSeconds is cut to this, and lint says so.
const PromptTimeoutCap = 60

// PromptSettings configure the grant prompt.
type PromptSettings struct {
	Surface        string `json:"surface,omitempty"`
	TimeoutSeconds int    `json:"timeoutSeconds,omitempty"`
	BatchAfter     int    `json:"batchAfter,omitempty"`
}

// SandboxSettings configure the shell sandbox.
type SandboxSettings struct {
	// StripEnv are the names and name patterns of the variables dropped
	// from a sandboxed command's environment (see [SandboxSettings.Strips]);
	// KeepEnv names variables passed all the same.
	StripEnv         []string `json:"stripEnv,omitempty"`
	KeepEnv          []string `json:"keepEnv,omitempty"`
	ExpandMaxDepth   int      `json:"expandMaxDepth,omitempty"`
	ExpandMaxEntries int      `json:"expandMaxEntries,omitempty"`
}

// Loaded is a resolved policy with where it came from.
type Loaded struct {
	Policy   Policy
	Chain    []string       // policy files, root (base) first; built-ins as "builtin:<name>"
	Settings Settings       // merged picket settings that do not change file decisions
	Raw      map[string]any // the merged document, fence's other sections included
	Env      Env
}

// Load finds and resolves the policy for env: --config, else the nearest
// fence.jsonc or fence.json in the working directory or a parent, else the
// user's fence config, else the embedded default template. Every file of
// the chain is checked against picket's schema; problems name file:line:col.
func Load(env Env) (*Loaded, error) {
	if !filepath.IsAbs(env.Cwd) {
		return nil, fmt.Errorf("working directory %q is not absolute", env.Cwd)
	}
	start, err := discover(env)
	if err != nil {
		return nil, err
	}
	r := &resolver{env: env}
	chain, err := r.chain(start, 0, nil)
	if err != nil {
		return nil, err
	}
	return r.build(chain)
}

// source is one policy document of a chain.
type source struct {
	name string // absolute file path or "builtin:<name>"
	src  []byte
	cfg  fileConfig
	raw  map[string]any
	id   fs.FileInfo
}

// discover returns the first document of the chain.
func discover(env Env) (string, error) {
	if env.ConfigFile != "" {
		f := env.ConfigFile
		if !filepath.IsAbs(f) {
			f = filepath.Join(env.Cwd, f)
		}
		return f, nil
	}
	for dir := env.Cwd; ; dir = filepath.Dir(dir) {
		for _, name := range []string{"fence.jsonc", "fence.json"} {
			f := filepath.Join(dir, name)
			env.observeWay(f)
			if isFile(f) {
				return f, nil
			}
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	if f := userConfig(env); f != "" {
		return f, nil
	}
	return "builtin:" + DefaultTemplate, nil
}

func userConfig(env Env) string {
	for _, name := range []string{"fence.jsonc", "fence.json"} {
		f := filepath.Join(env.UserConfigDir(), name)
		env.observeWay(f)
		if isFile(f) {
			return f
		}
	}
	return ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

type resolver struct {
	env Env
}

// maxDepth is how many extends levels a chain may have.
const maxDepth = 10

// chain reads name and what it extends, base first.
func (r *resolver) chain(name string, depth int, seen []*source) ([]*source, error) {
	// A problem with an extended file is placed at the extends that named
	// it, so the person knows which file to fix.
	via := func(err error) error {
		if len(seen) == 0 {
			return err
		}
		last := seen[len(seen)-1]
		return fmt.Errorf("%s: extends %q: %w", last.at("/extends"), last.cfg.Extends, err)
	}
	if depth > maxDepth {
		return nil, via(fmt.Errorf("%s: extends goes deeper than %d levels", name, maxDepth))
	}
	s, err := r.read(name)
	if err != nil {
		return nil, via(err)
	}
	for _, prev := range seen {
		if sameSource(prev, s) {
			return nil, via(fmt.Errorf("extends cycle: %s", cycleText(seen, s)))
		}
	}
	seen = append(seen, s)
	if _, set := s.raw["extends"]; !set {
		return []*source{s}, nil // "extends": "" names no template, and is an error below
	}
	base, err := r.extendsTarget(s)
	if err != nil {
		return nil, err
	}
	bases, err := r.chain(base, depth+1, seen)
	if err != nil {
		return nil, err
	}
	return append(bases, s), nil
}

// at names a place in s as "file:line:col" (the file alone when the place
// cannot be found, and for built-in templates).
func (s *source) at(pointer string) string {
	if strings.HasPrefix(s.name, "builtin:") {
		return s.name
	}
	if line, col := schema.Position(s.src, pointer); line > 0 {
		return fmt.Sprintf("%s:%d:%d", s.name, line, col)
	}
	return s.name
}

func sameSource(a, b *source) bool {
	if a.id != nil && b.id != nil {
		return os.SameFile(a.id, b.id)
	}
	return a.name == b.name
}

func cycleText(seen []*source, s *source) string {
	var names []string
	for _, x := range seen {
		names = append(names, x.name)
	}
	return strings.Join(append(names, s.name), " -> ")
}

// extendsTarget resolves s's extends value: "@base" is the user config (or
// the default template); a value with a slash or a leading dot is a file
// relative to s; anything else is a template name.
func (r *resolver) extendsTarget(s *source) (string, error) {
	v := s.cfg.Extends
	switch {
	case v == "@base":
		if u := userConfig(r.env); u != "" && !(s.id != nil && sameFileName(u, s.id)) {
			return u, nil
		}
		return "builtin:" + DefaultTemplate, nil
	case strings.ContainsAny(v, `/\`) || strings.HasPrefix(v, "."):
		if strings.HasPrefix(s.name, "builtin:") {
			return "", fmt.Errorf("%s: a built-in template cannot extend a file", s.name)
		}
		if ext := filepath.Ext(v); ext != ".jsonc" && ext != ".json" {
			return "", fmt.Errorf("%s: extends %q: a policy file's name must end in .jsonc or .json", s.at("/extends"), v)
		}
		if strings.HasPrefix(v, "~/") {
			return filepath.Join(r.env.Home, v[2:]), nil
		}
		if filepath.IsAbs(v) {
			return v, nil
		}
		return filepath.Join(filepath.Dir(s.name), v), nil
	}
	if _, ok := Template(v); !ok {
		return "", fmt.Errorf("%s: extends %q: no such template (have %s)", s.at("/extends"), v, strings.Join(Templates(), ", "))
	}
	return "builtin:" + v, nil
}

func sameFileName(name string, id fs.FileInfo) bool {
	fi, err := os.Stat(name)
	return err == nil && os.SameFile(fi, id)
}

// read loads and validates one document.
func (r *resolver) read(name string) (*source, error) {
	s := &source{name: name}
	if t, ok := strings.CutPrefix(name, "builtin:"); ok {
		src, found := Template(t)
		if !found {
			return nil, fmt.Errorf("no built-in template %q", t)
		}
		s.src = src
	} else {
		r.env.observeWay(name)
		var err error
		if s.src, s.id, err = ReadPolicyFile(name); err != nil {
			return nil, err
		}
		if err := r.validate(name, s.src); err != nil {
			return nil, err
		}
	}
	src := s.src
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}") // an empty file is no configuration, as in fence
	}
	// Validation passed, so these do not fail; their errors would quote
	// the file, which may be a secret, so they are not passed on.
	std, err := standardize(src)
	if err != nil {
		return nil, fmt.Errorf("%s: not valid JSONC", name)
	}
	if err := json.Unmarshal(std, &s.raw); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON once comments are removed", name)
	}
	if s.cfg, err = configFromRaw(s.raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	probs := patternProblems(name, s.src, &s.cfg, false)
	probs = append(probs, networkProblems(name, s.src, s.raw)...)
	if len(probs) > 0 {
		slices.SortFunc(probs, func(a, b schema.Problem) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
		return nil, problemsError(probs)
	}
	return s, nil
}

// patternProblems reports, at file:line:col, each pattern of c that would
// silently match nothing (see [patternFault]) or that does not compile
// (see [compileFault]; fold as a case-insensitive policy folds it), and
// each blocklist entry that is not a usable name. Compile reports these
// too, but with no place in the file to point at.
func patternProblems(name string, src []byte, c *fileConfig, fold bool) []schema.Problem {
	var probs []schema.Problem
	report := func(pointer func() string, msg string) {
		if msg != "" {
			ptr := pointer()
			line, col := schema.Position(src, ptr)
			probs = append(probs, schema.Problem{File: name, Line: line, Col: col, Msg: dottedPointer(ptr) + ": " + msg})
		}
	}
	check := func(pointer func() string, pat string) {
		report(pointer, cmp.Or(patternFault(pat), compileFault(pat, fold)))
	}
	fsys := c.Filesystem
	for field, list := range map[string][]string{
		"allowRead": fsys.AllowRead, "denyRead": fsys.DenyRead, "allowWrite": fsys.AllowWrite, "denyWrite": fsys.DenyWrite,
	} {
		for i, pat := range list {
			check(func() string { return fmt.Sprintf("/filesystem/%s/%d", field, i) }, pat)
		}
	}
	for i, pm := range c.Picket.Permissions {
		check(func() string { return fmt.Sprintf("/picket/permissions/%d/pattern", i) }, pm.Pattern)
		if (pm.Type == "file" || pm.Type == "directory") && HasGlob(pm.Pattern) {
			report(func() string { return fmt.Sprintf("/picket/permissions/%d/type", i) },
				fmt.Sprintf("pattern %q: type %q takes a path without glob characters", pm.Pattern, pm.Type))
		}
	}
	for i, entry := range c.Picket.Blocklist {
		report(func() string { return fmt.Sprintf("/picket/blocklist/%d", i) }, nameFault(entry))
	}
	for i, ext := range c.Picket.WriteGuards.DenyExtensions {
		if e := strings.TrimPrefix(ext, "."); e == "" || strings.ContainsAny(e, "/\x00") {
			report(func() string { return fmt.Sprintf("/picket/writeGuards/denyExtensions/%d", i) },
				fmt.Sprintf("denyExtensions entry %q is not an extension: it can never match a file name", ext))
		}
	}
	slices.SortFunc(probs, func(a, b schema.Problem) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
	return probs
}

// networkProblems reports, at file:line:col, each network.allowedDomains
// or deniedDomains entry that names no host as egress reads them (a deny
// entry that matched nothing would let through what it was meant to
// stop), and an upstreamProxy that is not http://host:port.
func networkProblems(name string, src []byte, raw map[string]any) []schema.Problem {
	sec, _ := raw["network"].(map[string]any)
	var probs []schema.Problem
	report := func(ptr string, err error) {
		line, col := schema.Position(src, ptr)
		probs = append(probs, schema.Problem{File: name, Line: line, Col: col, Msg: dottedPointer(ptr) + ": " + err.Error()})
	}
	for _, key := range []string{"allowedDomains", "deniedDomains"} {
		list, _ := sec[key].([]any)
		for i, v := range list {
			if s, ok := v.(string); ok {
				if _, err := egress.ParseEntry(s); err != nil {
					report(fmt.Sprintf("/network/%s/%d", key, i), err)
				}
			}
		}
	}
	if u, ok := sec["upstreamProxy"].(string); ok && u != "" {
		if _, err := egress.ParseUpstream(u); err != nil {
			report("/network/upstreamProxy", err)
		}
	}
	return probs
}

// compileFault says why the matcher cannot be built from path pattern p,
// or "". Only the glob part can fail (the literal directories before it
// are quoted), and only through a character class or bytes that are not
// UTF-8, the same test [pattern.compile] makes before building a matcher
// at load. fold lowercases the pattern first, as a case-insensitive policy
// does ("[Z-a]" is a range, "[z-a]" is not).
func compileFault(p string, fold bool) string {
	if !strings.Contains(p, "[") && utf8.ValidString(p) {
		return "" // nothing to build at load: most patterns, on every hook call
	}
	text := p
	for _, lead := range []string{"~/", "./"} {
		if r, ok := strings.CutPrefix(text, lead); ok {
			text = r
			break
		}
	}
	sameLen := true
	if fold {
		lower := strings.ToLower(text)
		text, sameLen = lower, len(lower) == len(text)
	}
	_, rest := splitLiteral(text)
	if !strings.Contains(rest, "[") && utf8.ValidString(rest) {
		return ""
	}
	at := -1
	if sameLen {
		at = len(p) - len(rest) // rest is a tail of p
	}
	if why := globSyntaxFault(rest, at); why != "" {
		return fmt.Sprintf("pattern %q does not compile: %s", p, why)
	}
	return ""
}

// globSyntaxFault compiles the picket glob rest and says why it does not
// compile, or "". at is where rest starts in the pattern as written (-1:
// unknown), so an offset the compiler gives names a byte of that pattern.
func globSyntaxFault(rest string, at int) string {
	src, from := translateMap(rest, true)
	_, err := compiler.Compile(src)
	if err == nil {
		return ""
	}
	var se *glob.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	if at < 0 || se.Offset < 0 || se.Offset >= len(from) {
		return "glob syntax error: " + se.Reason
	}
	return fmt.Sprintf("glob syntax error at offset %d: %s", at+from[se.Offset], se.Reason)
}

// globFault reports, without allocating, whether rest has a trailing
// "/" or an empty, "." or ".." component at or after its first component
// with a glob character: the cheap test before patternFault's message.
func globFault(rest string) bool {
	globbed := false
	for {
		part, after, more := strings.Cut(rest, "/")
		if !globbed && HasGlob(part) {
			globbed = true
		}
		if globbed && (part == "" || part == "." || part == "..") {
			return true
		}
		if !more {
			return false
		}
		rest = after
	}
}

// patternFault says why a path pattern would match nothing, or "". Paths
// are matched cleaned, and the literal leading directories of a pattern
// are cleaned too, but its glob part is not: from the first component with
// a glob character on, a trailing "/" or an empty, "." or ".." component
// can never match. Such a pattern is an error naming the spelling to use,
// rather than a rule silently dropped (fence, reading the same file, would
// not match it either). U+FFFD is what bytes that are not UTF-8 (or a lone
// \u surrogate escape) decode to; no file name picket should guard holds it.
func patternFault(p string) string {
	if strings.ContainsRune(p, utf8.RuneError) {
		return "pattern holds U+FFFD, what bytes that are not UTF-8 decode to; write it in UTF-8"
	}
	rest := p
	for _, lead := range []string{"~/", "./", "/"} {
		if r, ok := strings.CutPrefix(rest, lead); ok {
			rest = r
			break
		}
	}
	if !globFault(rest) {
		return ""
	}
	parts := strings.Split(rest, "/")
	first := slices.IndexFunc(parts, HasGlob)
	if first < 0 {
		return ""
	}
	kept := slices.Clone(parts[:first])
	fault, trailing := "", false
	for i, part := range parts[first:] {
		switch {
		case part == "..":
			return fmt.Sprintf("glob pattern %q has a \"..\" after a glob, so it matches nothing; write the path without it", p)
		case part == "" && first+i == len(parts)-1:
			fault, trailing = "ends in \"/\"", true
		case part == "":
			fault = "has an empty component (\"//\") after a glob"
		case part == ".":
			fault = "has a \".\" component after a glob"
		default:
			kept = append(kept, part)
		}
	}
	if fault == "" {
		return ""
	}
	fixed := strings.TrimSuffix(p, rest) + strings.Join(kept, "/")
	if trailing {
		return fmt.Sprintf("glob pattern %q %s, so it matches nothing; write %q for the directory, or %q for it and all it holds", p, fault, fixed, fixed+"/**")
	}
	return fmt.Sprintf("glob pattern %q %s, so it matches nothing; write %q", p, fault, fixed)
}

// dottedPointer writes a JSON pointer of patternProblems as a key path:
// "/filesystem/denyRead/3" is "filesystem.denyRead[3]".
func dottedPointer(ptr string) string {
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// MaxPolicySize is the largest policy file picket reads, 1 MiB: far more
// than any policy needs, and small enough that a file a hostile "extends"
// names cannot exhaust memory or time.
const MaxPolicySize = 1 << 20

// ReadPolicyFile reads one policy file and returns it with the open file's
// FileInfo. Every policy file picket reads, discovered or extended, goes
// through it. Only a regular file (symlinks followed) of at most
// [MaxPolicySize] bytes is read: a FIFO, device, socket or directory is an
// error at once, never a hang, and /dev/zero never fills memory. The file
// is opened with O_NONBLOCK and checked again through the open descriptor,
// so one swapped for a FIFO after the first check is refused too.
func ReadPolicyFile(name string) ([]byte, fs.FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read policy: %w", err)
	}
	if err := policyFileKind(name, fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read policy: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, fmt.Errorf("failed to read policy: %w", err)
	}
	if err := policyFileKind(name, fi); err != nil {
		return nil, nil, err
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxPolicySize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read policy: %w", err)
	}
	if len(src) > MaxPolicySize {
		return nil, nil, tooLarge(name)
	}
	return src, fi, nil
}

// policyFileKind refuses what ReadPolicyFile does not read.
func policyFileKind(name string, fi fs.FileInfo) error {
	m := fi.Mode()
	what := ""
	switch {
	case m.IsRegular():
		if fi.Size() > MaxPolicySize {
			return tooLarge(name)
		}
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	default:
		what = "not a regular file"
	}
	return fmt.Errorf("failed to read policy %s: %s; a policy must be a regular file", name, what)
}

func tooLarge(name string) error {
	return fmt.Errorf("failed to read policy %s: larger than %d bytes (1 MiB), the most a policy file may hold", name, MaxPolicySize)
}

// validate checks one file against the schema, unless a marker says the
// same bytes passed before. Built-in templates are checked by tests.
func (r *resolver) validate(name string, src []byte) error {
	marker := ""
	if r.env.ValidCache != "" {
		sum := sha256.Sum256(src)
		marker = filepath.Join(r.env.ValidCache, hex.EncodeToString(sum[:]))
		if _, err := os.Lstat(marker); err == nil {
			return nil
		}
	}
	if probs := schema.Validate(name, src); len(probs) > 0 {
		return problemsError(probs)
	}
	if marker != "" && os.MkdirAll(r.env.ValidCache, 0o700) == nil {
		os.WriteFile(marker, nil, 0o600)
	}
	return nil
}

// workspaceRoot is CLAUDE_PROJECT_DIR when set, else the git top level of
// the working directory, else the working directory.
func workspaceRoot(env Env) string {
	if env.ProjectDir != "" && filepath.IsAbs(env.ProjectDir) {
		return filepath.Clean(env.ProjectDir)
	}
	if top := gitTop(env.Cwd, env.observe); top != "" {
		return top
	}
	return filepath.Clean(env.Cwd)
}

// GitTop returns the nearest directory at or above dir holding a .git entry,
// or "".
func GitTop(dir string) string { return gitTop(dir, func(string) {}) }

func gitTop(dir string, observe func(string)) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		observe(filepath.Join(d, ".git"))
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == "." {
			return ""
		}
	}
}

// caseInsensitiveFS probes dir's filesystem: it is case-insensitive when
// the upper- and lower-cased spellings of dir name the same file.
func caseInsensitiveFS(dir string, observe func(string)) bool {
	up, low := strings.ToUpper(dir), strings.ToLower(dir)
	if up == low {
		return false
	}
	observe(up)
	observe(low)
	a, err1 := os.Stat(up)
	b, err2 := os.Stat(low)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// ProblemsError is a policy file that failed validation; its text lists
// every problem as file:line:col: message, one per line.
type ProblemsError struct{ Problems []schema.Problem }

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func problemsError(p []schema.Problem) error { return &ProblemsError{Problems: p} }
