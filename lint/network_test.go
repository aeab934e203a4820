package lint

import (
	"slices"
	"testing"

	"github.com/picketdev/picket/decide"
	"github.com/picketdev/picket/egress"
)

func TestCheckNetwork(t *testing.T) {
	f := newFixture(t, `{
  "network": {
    "allowedDomains": [
      "registry.npmjs.org",
      "*",
      "*.githubusercontent.com",
      "pastebin.com:443",
      "pastebin.com:80",
      "*.ngrok.io",
      "github.com"
    ]
  }
}
`)
	var got []string
	for _, w := range Run(f.load(t, decide.Env{})) {
		if w.Code == CodeNetworkAll || w.Code == CodeNetworkUserContent {
			got = append(got, f.brief([]Warning{w})...)
		}
	}
	want := []string{
		"$TMP/proj/fence.jsonc:5:7 [network-all]",
		"$TMP/proj/fence.jsonc:6:7 [network-user-content]",
		"$TMP/proj/fence.jsonc:7:7 [network-user-content]",
		"$TMP/proj/fence.jsonc:8:7 [network-user-content]",
		"$TMP/proj/fence.jsonc:9:7 [network-user-content]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("network warnings = %q, want %q", got, want)
	}
}

// TestUserContentHosts: every host of the list is a host the proxy reads,
// and an entry for it is warned about.
func TestUserContentHosts(t *testing.T) {
	for _, uc := range userContent {
		h, err := egress.ParseHost(uc.host)
		if err != nil {
			t.Errorf("userContent host %q: %v", uc.host, err)
			continue
		}
		e, err := egress.ParseEntry(uc.host)
		if err != nil || (egress.Policy{Allow: []egress.Entry{e}}).Judge(h, 443).Outcome != egress.Allowed {
			t.Errorf("an entry for %q does not allow it: %v", uc.host, err)
		}
	}
}
