//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The listeners of [Plan.Listen] are made by the sandbox's first process,
// inside the command's network namespace, before the command starts, and
// passed to picket outside over a socket pair (SCM_RIGHTS). picket then
// accepts on them itself: the command's connections reach picket's proxy
// with nothing in between inside the sandbox, no unix socket is bound
// into it, and the command never holds the listeners (the first process
// closes its copies before it starts the command), so it cannot take
// their ports.

// maxListeners bounds what one handoff carries.
const maxListeners = 64

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
		l, err := net.Listen("tcp", a)
		if err != nil {
			if isV6(a) && (errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT)) {
				continue
			}
			return fmt.Errorf("failed to open %s for the network proxy: %w", a, err)
		}
		f, err := l.(*net.TCPListener).File()
		l.Close()
		if err != nil {
			return fmt.Errorf("failed to hand over %s: %w", a, err)
		}
		files, opened = append(files, f), append(opened, a)
	}
	msg, _ := json.Marshal(opened)
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

// handoffPair makes the socket pair: picket keeps the first end, the
// sandbox's first process gets the second as [HandoffFD].
func handoffPair() (keep int, give *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, fmt.Errorf("failed to make the listeners' socket pair: %w", err)
	}
	return fds[0], os.NewFile(uintptr(fds[1]), "handoff"), nil
}

// receive reads one handoff from fd: the addresses opened and their
// listeners, in order. It fails when the first process ended without
// sending them.
func receive(fd int) ([]string, []*os.File, error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4*maxListeners))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 && oobn == 0 {
		return nil, nil, errors.New("the sandbox ended before it opened the network proxy's ports")
	}
	var fds []int
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, nil, err
	}
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			return nil, nil, err
		}
		fds = append(fds, got...)
	}
	files := make([]*os.File, len(fds))
	for i, f := range fds {
		files[i] = os.NewFile(uintptr(f), "listener")
	}
	var addrs []string
	if err := json.Unmarshal(buf[:n], &addrs); err != nil || len(addrs) != len(files) {
		for _, f := range files {
			f.Close()
		}
		return nil, nil, fmt.Errorf("a malformed handoff of the network proxy's listeners (%d addresses, %d descriptors)", len(addrs), len(files))
	}
	return addrs, files, nil
}
