package persist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGrantNetwork: a "connect" persist appends the host to
// network.allowedDomains, keeping every comment, with a backup; a second
// one changes nothing; a host no entry spells is refused.
func TestGrantNetwork(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := `{
  // the project's policy
  "extends": "code",
  "network": {
    "allowedDomains": [
      "registry.npmjs.org", // npm
    ],
  },
}
`
	writeFile(t, file, src)
	o := Options{Root: root, File: file, Access: "connect", Path: "proxy.golang.org", Now: clock()}
	if _, err := Check(o); err != nil {
		t.Fatalf("Check: %v", err)
	}
	res, err := Grant(o)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, `"registry.npmjs.org", // npm
`, `"registry.npmjs.org", // npm
      "proxy.golang.org",
`, 1)
	if diff := cmp.Diff(want, readFile(t, file)); diff != "" {
		t.Errorf("persisted file mismatch (-want +got):\n%s", diff)
	}
	if res.Backup == "" || readFile(t, res.Backup) != src {
		t.Errorf("backup %q does not hold the old file", res.Backup)
	}
	if res, err := Grant(o); err != nil || !res.AlreadyPresent {
		t.Errorf("second Grant = %+v, %v; want AlreadyPresent", res, err)
	}
	// No network section yet: one is added.
	plain := filepath.Join(t.TempDir(), "fence.jsonc")
	writeFile(t, plain, "{\n  \"extends\": \"code\"\n}\n")
	if _, err := Grant(Options{Root: filepath.Dir(plain), File: plain, Access: "connect", Path: "203.0.113.7"}); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, plain), "{\n  \"extends\": \"code\",\n  \"network\": {\n    \"allowedDomains\": [\n      \"203.0.113.7\"\n    ]\n  }\n}\n"; got != want {
		t.Errorf("new network section:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"*", "*.example.com", "Example.com", "intranet", "example.com:443", "/etc/passwd", "a.example.com."} {
		if _, err := Check(Options{Root: root, File: file, Access: "connect", Path: bad}); err == nil {
			t.Errorf("Check(connect %q) = nil, want a refusal", bad)
		}
	}
	// A new file is scaffolded with the entry.
	fresh := t.TempDir()
	res, err = Grant(Options{Root: fresh, File: filepath.Join(fresh, "fence.jsonc"), Access: "connect", Path: "example.com", Now: clock()})
	if err != nil || !res.Created {
		t.Fatalf("Grant into a new file = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(res.File); !strings.Contains(string(b), `"allowedDomains": ["example.com"]`) && !strings.Contains(string(b), "\"example.com\"") {
		t.Errorf("scaffolded file:\n%s", b)
	}
}

// TestGrantNetworkIntoStarter: picket init's starter holds an empty
// allowedDomains with the toolchain hosts commented out; a persisted host
// lands in it, after the comments, and the file still loads.
func TestGrantNetworkIntoStarter(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "fence.jsonc")
	src := readFile(t, filepath.Join("..", "cmd", "picket", "testdata", "TestInitGolden", "fence.jsonc.golden"))
	writeFile(t, file, src)
	if _, err := Grant(Options{Root: root, File: file, Access: "connect", Path: "example.com"}); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, file)
	want := strings.Replace(src, `      // Debian and Ubuntu packages: "deb.debian.org", "security.debian.org", "archive.ubuntu.com",
    ],`, `      // Debian and Ubuntu packages: "deb.debian.org", "security.debian.org", "archive.ubuntu.com",
      "example.com"
    ],`, 1)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("persisted into the starter (-want +got):\n%s", diff)
	}
}
