//go:build linux

package first

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The listeners of the plan's Listen are made by the sandbox's first process,
// inside the command's network namespace, before the command starts, and
// passed to picket outside over a socket pair (SCM_RIGHTS). picket then
// accepts on them itself: the command's connections reach picket's proxy
// with nothing in between inside the sandbox, no unix socket is bound
// into it, and the command never holds the listeners (the first process
// closes its copies before it starts the command), so it cannot take
// their ports.

// MaxListeners bounds what one handoff carries.
const MaxListeners = 64

// handoff opens addrs (TCP, in this process's network namespace) and
// sends them over fd, with the list of the addresses opened as the
// message. An IPv6 address that cannot be opened (a kernel without IPv6)
// is left out; any other failure is an error. It closes fd and its own
// copies of the listeners.
func handoff(fd int, addrs []string) error {
	defer unix.Close(fd)
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var opened []string
	for _, a := range addrs {
		f, err := listen(a)
		if err != nil {
			if isV6(a) && (errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT)) {
				continue
			}
			return fmt.Errorf("failed to open %s for the network proxy: %w", a, err)
		}
		files, opened = append(files, f), append(opened, a)
	}
	msg := jsonStrings(opened)
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if err := unix.Sendmsg(fd, msg, oob, nil, 0); err != nil {
		return fmt.Errorf("failed to hand over the network proxy's listeners: %w", err)
	}
	return nil
}

func isV6(addr string) bool { return len(addr) > 0 && addr[0] == '[' }

// listen opens a listening TCP socket on addr, as net.Listen would
// (SO_REUSEADDR, the system's backlog), without package net: its
// initialisation would bring most of the standard library's with it
// (see package first). addr is what the plan holds: an IPv4 address or
// the IPv6 loopback, with a port ("127.0.0.1:3128", "[::1]:5432");
// anything else is refused.
func listen(addr string) (*os.File, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return nil, fmt.Errorf("not an address with a port: %q", addr)
	}
	host, port := addr[:i], addr[i+1:]
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("not an address with a port: %q", addr)
	}
	var sa unix.Sockaddr
	family := unix.AF_INET
	if host == "[::1]" {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(n), Addr: [16]byte{15: 1}}
	} else {
		v4, ok := parseIPv4(host)
		if !ok {
			return nil, fmt.Errorf("not an IPv4 address nor the IPv6 loopback: %q", addr)
		}
		sa = &unix.SockaddrInet4{Port: int(n), Addr: v4}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return nil, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "listener"), nil
}

// parseIPv4 parses a dotted-quad IPv4 address.
func parseIPv4(s string) (ip [4]byte, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return ip, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil || p == "" || (len(p) > 1 && p[0] == '0') {
			return ip, false
		}
		ip[i] = byte(n)
	}
	return ip, true
}

// jsonStrings is the JSON array of ss, which picket reads back with
// encoding/json (not imported here, for the reason [listen] gives).
func jsonStrings(ss []string) []byte {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				b = append(b, '\\', byte(r))
			case r < 0x20:
				b = append(b, fmt.Sprintf("\\u%04x", r)...)
			default:
				b = append(b, string(r)...)
			}
		}
		b = append(b, '"')
	}
	return append(b, ']')
}
