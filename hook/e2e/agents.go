package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/picketdev/picket/internal/testenv"
)

// Agents are the names AgentBinary knows, in the order .ci/agents.sh
// prints them.
var Agents = []string{"claude", "pi", "codex", "gemini", "copilot", "qwen", "opencode"}

// AgentBinary returns the binary of the named agent (one of [Agents]) and
// its version, as .ci/agents.sh installed and checked them: from the
// PICKET_<NAME> variable if set, else from agents.env in the agents cache
// ($PICKET_AGENTS_DIR, else the repository's .cache/agents). Without one
// the test skips, or fails under CI (testenv.Missing).
func AgentBinary(t testing.TB, name string) (bin, version string) {
	t.Helper()
	key := "PICKET_" + strings.ToUpper(name)
	bin, version = os.Getenv(key), os.Getenv(key+"_VERSION")
	if bin == "" {
		bin, version = AgentSetting(t, key), AgentSetting(t, key+"_VERSION")
	}
	if fi, err := os.Stat(bin); bin != "" && err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return bin, version
	}
	what := name + " is not installed"
	if bin != "" {
		what = name + " is missing at " + bin
	}
	testenv.Missing(t, what+": run bash .ci/agents.sh (it writes "+filepath.Join(agentsDir(t), "agents.env")+")")
	return "", ""
}

// AgentSetting is one NAME=value line of the agents.env that
// .ci/agents.sh wrote, or "" without one.
func AgentSetting(t testing.TB, name string) string {
	t.Helper()
	return readEnvFile(filepath.Join(agentsDir(t), "agents.env"))[name]
}

// agentsDir is the agents cache: $PICKET_AGENTS_DIR, else the
// repository's .cache/agents.
func agentsDir(t testing.TB) string {
	if dir := os.Getenv("PICKET_AGENTS_DIR"); dir != "" {
		return dir
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".cache", "agents")
}

// readEnvFile reads NAME=value lines; a missing file reads as empty.
func readEnvFile(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}
