package sidecar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/hook"
	"github.com/picketdev/picket/hook/agents"
	"github.com/picketdev/picket/hook/e2e"
)

// sandboxScratch is a directory outside the system temp dir, which the
// code template lets be written: these tests need trees the policy holds.
func sandboxScratch(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	return e2e.ScratchDir(t, "PICKET_SANDBOX_TMP", filepath.Join(wd, "..", "..", ".cache", "sandbox-tmp"), "/var/lib/picket-test")
}

// cacheOver is a policy cache over the environment env, loading as
// picket's commands do.
func cacheOver(env []string) *policyCache {
	getenv := func(k string) string {
		v := ""
		for _, kv := range env {
			if key, val, ok := strings.Cut(kv, "="); ok && key == k {
				v = val
			}
		}
		return v
	}
	load := func(dir string, observe func(string)) (*decide.Loaded, error) {
		e := decide.EnvFromOS(getenv, dir)
		e.ProjectDir, e.Agents, e.Observe = agents.ProjectDir(getenv), agents.ConfigPaths(), observe
		return hook.LoadPolicy(e)
	}
	return newPolicyCache(load, getenv("HOME"), getenv("XDG_CONFIG_HOME"))
}

// hookProject is a project dir and a home for the cache's tests.
type hookProject struct {
	t         testing.TB
	dir, home string
}

// write creates a file under the project (rel) or at an absolute path.
func (h *hookProject) write(rel, content string) string {
	h.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.dir, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// settle waits until files just written are older than the cache's racy
// window.
func settle() { time.Sleep(racyWindow + 10*time.Millisecond) }
