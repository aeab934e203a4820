package decide_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/picketdev/picket/decide"
)

// Example_multiTenant shows a server embedding decide: each tenant has its
// own workspace root and policy, compiled once; each session holds its own
// copy with its own mode; sessions are judged concurrently.
func Example_multiTenant() {
	base, err := os.MkdirTemp("", "picket-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(base)
	base, _ = filepath.EvalSymlinks(base)

	policies := map[string]decide.Policy{}
	for _, tenant := range []string{"acme", "globex"} {
		root := filepath.Join(base, tenant)
		os.MkdirAll(root, 0o755)
		os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=x\n"), 0o600)
		home := filepath.Join(base, "home")
		policies[tenant] = decide.MustCompile(decide.Spec{
			Root: root, Home: home,
			Blocklist: decide.Rules("operator", ".env", "*.pem"),
			// The non-overridable denies (.git/hooks, fence.jsonc, agent
			// settings, ...): a Spec holds only what it is given.
			Mandatory: decide.MandatoryRules(decide.MandatoryInput{Root: root, Home: home}),
		})
	}

	type session struct {
		tenant, other string
		mode          decide.Mode
	}
	sessions := []session{
		{"acme", "globex", decide.WorkspaceWrite},
		{"acme", "globex", decide.ReadOnly}, // a review session of the same tenant
		{"globex", "acme", decide.WorkspaceWrite},
	}
	lines := make([]string, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pol := policies[s.tenant].WithMode(s.mode)
			root := pol.Spec().Root
			verdict := func(a decide.Access, path string) string {
				d := decide.Check(pol, a, path, root, -1)
				if d.Allow {
					return "allow"
				}
				return "deny " + string(d.Layer)
			}
			lines[i] = fmt.Sprintf("%s (%s): write report.md: %s; write ../%s/x: %s; read .env: %s; write .git/hooks/pre-commit: %s",
				s.tenant, s.mode, verdict(decide.Write, "report.md"),
				s.other, verdict(decide.Write, "../"+s.other+"/x"), verdict(decide.Read, ".env"),
				verdict(decide.Write, ".git/hooks/pre-commit"))
		}()
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// acme (workspace-write): write report.md: allow; write ../globex/x: deny boundary; read .env: deny blocklist; write .git/hooks/pre-commit: deny mandatory
	// acme (read-only): write report.md: deny mode; write ../globex/x: deny mode; read .env: deny blocklist; write .git/hooks/pre-commit: deny mandatory
	// globex (workspace-write): write report.md: allow; write ../acme/x: deny boundary; read .env: deny blocklist; write .git/hooks/pre-commit: deny mandatory
}
