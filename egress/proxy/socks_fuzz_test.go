package proxy

import (
	"bytes"
	"testing"
)

// FuzzReadSOCKS: any bytes a client sends end in a request with a host
// that parsed and a port, or in a refusal; never a panic, never more
// read than the two messages hold.
func FuzzReadSOCKS(f *testing.F) {
	f.Add([]byte{5, 1, 0, 5, 1, 0, 3, 9, 'a', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', 1, 187})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 22})
	f.Add([]byte{5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 1, 2})
	f.Add([]byte{4, 1, 0, 80, 127, 0, 0, 1, 0})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 3, 5, '1', '2', '7', '.', '1', 0, 80})
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		r := bytes.NewReader(in)
		req, rep := readSOCKS(r, &out)
		if rep == -1 {
			if req.port < 1 || req.port > 65535 || !req.host.IsAddr() && req.host.Name == "" {
				t.Fatalf("readSOCKS(%v) = %+v", in, req)
			}
			if !bytes.Equal(out.Bytes(), []byte{5, 0}) {
				t.Fatalf("readSOCKS(%v) answered %v", in, out.Bytes())
			}
		}
		if rep < -2 || rep > 255 {
			t.Fatalf("readSOCKS(%v) = reply %d", in, rep)
		}
	})
}
