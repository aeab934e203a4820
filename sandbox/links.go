package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/picketdev/picket/decide"
)

// links returns the symlinks met while resolving each of paths, so an
// empty root can recreate them: "/bin" pointing at "usr/bin", a workspace
// reached through a symlinked directory.
func links(paths []string) []Link {
	var out []Link
	seen := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		cur := "/"
		for _, name := range strings.Split(filepath.Clean(p), "/") {
			if name == "" {
				continue
			}
			next := filepath.Join(cur, name)
			fi, err := os.Lstat(next)
			if err != nil {
				break
			}
			if fi.Mode()&os.ModeSymlink == 0 {
				cur = next
				continue
			}
			target, err := os.Readlink(next)
			if err != nil {
				break
			}
			if !seen[next] {
				seen[next] = true
				out = append(out, Link{Path: next, Target: target})
			}
			_, r, err := decide.Canonicalize(next, "/", "/")
			if err != nil {
				break
			}
			cur = r
		}
	}
	return out
}

// rulePaths returns the literal paths of rules (the leading directories of
// glob ones), anchored as decide anchors them.
func rulePaths(a, b []decide.Rule, root, home string) []string {
	var out []string
	for _, r := range append(append([]decide.Rule{}, a...), b...) {
		lit, rest := anchor(r.Pattern, root, home)
		for hasMeta(rest) {
			rest = filepath.Dir(rest)
		}
		out = append(out, joinPat(lit, strings.TrimPrefix(rest, ".")))
	}
	return out
}

// systemPaths are the system read locations as written, for their links.
func systemPaths(s decide.Spec, home string) []string {
	if s.StrictDenyRead {
		return nil
	}
	var out []string
	for _, r := range decide.SystemReadRules(home) {
		out = append(out, expandHome(r.Pattern, home))
	}
	return out
}

// netPolicy is the part of fence's network section the mounts apply (the
// domains are package egress's).
type netPolicy struct {
	allowSockets []string
	allowAll     bool
}

// network reads fence's network section from the merged document.
func network(raw map[string]any) netPolicy {
	var n netPolicy
	sec, _ := raw["network"].(map[string]any)
	n.allowSockets = strs(sec["allowUnixSockets"])
	n.allowAll, _ = sec["allowAllUnixSockets"].(bool)
	return n
}

func strs(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}
