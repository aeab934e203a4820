package proxy

import (
	"net"

	"golang.org/x/sys/unix"
)

// clientListener tunes l, a listener the proxy's clients connect to, when
// it is on loopback (as every one is: the sandbox's listeners): what the
// proxy sends a client goes by Reno instead of the system's congestion
// control. A loopback hop has no path to model, and BBR, this machine's
// default, paces the bursts a tunnel's splice hands it with a timer per
// gap. It is set on the listener so that each connection starts with
// Reno: BBR turns on the kernel's pacing when a connection starts, and a
// switch later leaves it on. For 1.6 GB through the proxy (perf record
// -e timer:hrtimer_start), tcp_pace_kick fired 30,000 times, 19,000 with
// the switch after accept, 7,000 with Reno from the start; 10,800 for a
// direct transfer. The upstream side keeps the system's choice, which a
// long path needs. Failing to set it changes only the speed.
func clientListener(l net.Listener) {
	tl, ok := l.(*net.TCPListener)
	if !ok {
		return
	}
	if a, ok := tl.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		return
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, "reno")
	})
}
