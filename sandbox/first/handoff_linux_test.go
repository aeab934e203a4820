//go:build linux

package first

import (
	"encoding/json"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestJSONStrings: the handoff's message is read back with encoding/json.
func TestJSONStrings(t *testing.T) {
	for _, in := range [][]string{nil, {"127.0.0.1:3128"}, {"127.0.0.1:3128", "[::1]:5432"}, {`a"b\c`, "\x01\n", "é"}} {
		var out []string
		if err := json.Unmarshal(jsonStrings(in), &out); err != nil {
			t.Fatalf("%q: %s: %v", in, jsonStrings(in), err)
		}
		if !slices.Equal(in, out) {
			t.Errorf("%q came back as %q", in, out)
		}
	}
}

// TestListen opens the addresses plans hold and refuses the rest.
func TestListen(t *testing.T) {
	for _, a := range []string{"127.0.0.1:0", "[::1]:0"} {
		f, err := listen(a)
		if err != nil {
			if a == "[::1]:0" {
				t.Logf("%s: %v (no IPv6 here)", a, err)
				continue
			}
			t.Fatalf("%s: %v", a, err)
		}
		v, err := unix.GetsockoptInt(int(f.Fd()), unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
		if err != nil || v != 1 {
			t.Errorf("%s: not listening (%d, %v)", a, v, err)
		}
		f.Close()
	}
	for _, a := range []string{"", "127.0.0.1", "localhost:80", "[::2]:80", "127.0.0.01:80", "127.0.0.1:99999", "1.2.3:80", "1.2.3.4.5:80", "256.0.0.1:80"} {
		if f, err := listen(a); err == nil {
			f.Close()
			t.Errorf("%q: opened, want refused", a)
		}
	}
}
