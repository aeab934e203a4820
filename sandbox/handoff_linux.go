//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/picketdev/picket/sandbox/first"
)

// The sandbox's first process hands the listeners of [Plan.Listen] over
// (see package first); picket receives them here.

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
	oob := make([]byte, unix.CmsgSpace(4*first.MaxListeners))
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
