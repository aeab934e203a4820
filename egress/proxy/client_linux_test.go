package proxy

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClientListener: a connection accepted on a loopback listener of the
// proxy's sends with Reno from its start.
func TestClientListener(t *testing.T) {
	l := listen(t)
	defer l.Close()
	clientListener(l)
	dialed, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer dialed.Close()
	accepted, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	if got := congestion(t, accepted); got != "reno" {
		t.Errorf("a client's connection sends with %q, want reno", got)
	}
}

func congestion(t *testing.T, c net.Conn) string {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cc string
	var gerr error
	rc.Control(func(fd uintptr) {
		cc, gerr = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	})
	if gerr != nil {
		t.Fatal(gerr)
	}
	return cc
}
