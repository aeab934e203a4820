package hook

import (
	"encoding/json"
	"testing"
)

// FuzzPlainString holds stringOf's fast path to json.Unmarshal.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"a"`, `""`, `"ü"`, `"a\"b"`, `"\u0041"`, "\"\xff\"", "\"a\tb\"", `"a"b"`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, ok := plainString(json.RawMessage(raw))
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil || v != want {
			t.Fatalf("plainString(%q) = %q; json.Unmarshal = %q, %v", raw, v, want, err)
		}
	})
}
