package proxy

import (
	"io"
	"net"
	"sync"
)

// pipe copies a to b and b to a until both directions end, passing each
// end of stream on as a half-close, then closes both. Between two TCP
// sockets io.Copy moves the bytes with splice(2), in the kernel.
func pipe(a, b net.Conn) {
	ra, rb := raw(a), raw(b)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		copyHalf(ra, rb)
	}()
	copyHalf(rb, ra)
	wg.Wait()
	a.Close()
	b.Close()
}

// copyHalf copies src to dst, then ends dst's write side (or all of dst
// when a half-close is not possible, or the copy failed).
func copyHalf(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok && err == nil {
		cw.CloseWrite()
		return
	}
	dst.Close()
	src.Close()
}

// raw unwraps a tracked connection to the socket underneath, so io.Copy
// sees two *net.TCPConn and splices.
func raw(c net.Conn) net.Conn {
	if u, ok := c.(interface{ NetConn() net.Conn }); ok {
		return u.NetConn()
	}
	return c
}
