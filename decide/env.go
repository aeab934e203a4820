package decide

import (
	"slices"
	"strings"
)

// EnvPatternMatch reports whether the environment variable name matches
// pattern, a picket.sandbox.stripEnv entry: "*" stands for any run of
// characters ("/" and ":" included: npm reads
// "npm_config_//registry.npmjs.org/:_authToken"), "?" for one, and every
// other character for itself, compared case-insensitively, since tools
// read credentials under lowercase names too. It is a purely lexical
// operation.
func EnvPatternMatch(pattern, name string) bool {
	return globFold(strings.ToLower(pattern), strings.ToLower(name))
}

// globFold matches p against s with "*" and "?" only, by backtracking to
// the last star: linear in practice, quadratic at worst.
func globFold(p, s string) bool {
	px, sx := 0, 0
	star, next := -1, 0
	for sx < len(s) {
		switch {
		case px < len(p) && (p[px] == '?' || p[px] == s[sx]):
			px, sx = px+1, sx+1
		case px < len(p) && p[px] == '*':
			star, next = px, sx
			px++
		case star >= 0:
			next++
			px, sx = star+1, next
		default:
			return false
		}
	}
	for px < len(p) && p[px] == '*' {
		px++
	}
	return px == len(p)
}

// Strips reports whether the shell sandbox drops the variable named name
// from a command's environment: a StripEnv pattern matches it and KeepEnv
// does not name it (exactly, case and all).
func (s SandboxSettings) Strips(name string) bool {
	if slices.Contains(s.KeepEnv, name) {
		return false
	}
	return slices.ContainsFunc(s.StripEnv, func(p string) bool { return EnvPatternMatch(p, name) })
}

// Environ returns what of env ("NAME=value" entries, as os.Environ gives
// them) a sandboxed command gets, and the names it strips, in order.
func (s SandboxSettings) Environ(env []string) (kept, stripped []string) {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if s.Strips(name) {
			stripped = append(stripped, name)
		} else {
			kept = append(kept, kv)
		}
	}
	return kept, stripped
}
