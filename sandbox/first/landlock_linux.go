//go:build linux

package first

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The Landlock layer is built with go-landlock, best effort: it uses the
// newest ABI the kernel offers and degrades (down to nothing on a kernel
// without Landlock, which picket show reports) rather than failing.

// The rights the sandbox handles. Reads are the mounts' business; Landlock
// handles writes, renames across directories (refer), truncation and, from
// ABI 9, connecting to path sockets.
const (
	llWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer |
		ll.AccessFSTruncate
	llHandled = llWrite | ll.AccessFSResolveUnix
	// llFile are the rights that apply to a file rule (the kernel refuses
	// directory rights on a file).
	llFile = ll.AccessFSWriteFile | ll.AccessFSTruncate
)

// ABI returns the kernel's Landlock ABI version, 0 when Landlock is
// unavailable.
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// restrict applies the Landlock layer to the calling thread, which the
// caller has locked (runtime.LockOSThread) and starts the command from,
// so the command inherits it: writes only below write, connect(2) to path
// sockets only to the listed ones (ABI 9), abstract unix sockets only
// within the sandbox (ABI 6). With abi 0 it does nothing.
//
// Only that thread: restricting every thread of a Go program
// (go-landlock's Restrict, through syscall.AllThreadsSyscall) stops the
// world and spins until each thread has made the call, which was the
// first process's largest cost (about 15% of a warm picket run's CPU). The
// process's other threads stay outside the domain, so it is made
// undumpable first: a process in the domain may not ptrace one outside
// it (Landlock), and an undumpable one cannot be ptraced, nor its memory
// or descriptors reached through /proc or pidfd_getfd, without
// CAP_SYS_PTRACE, which the sandbox drops. The command starts dumpable
// again (execve resets it), and is in the domain.
//
// Signals are not scoped: a scoped domain may not signal a process
// outside it, and the thread forwarding picket's SIGTERM to the command
// may be any. The sandbox's own PID namespace already leaves the command
// no way to name a process outside it.
func restrict(abi int, write, sockets []string) error {
	if abi < 1 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	cfg, err := landlock.NewConfig(landlock.AccessFSSet(llHandled),
		landlock.ScopedSet(ll.ScopeAbstractUnixSocket))
	if err != nil {
		return fmt.Errorf("landlock config: %w", err)
	}
	var rules []landlock.Rule
	for _, w := range write {
		fi, err := os.Stat(w)
		if err != nil {
			continue // not in this sandbox: nothing to allow
		}
		rights := landlock.AccessFSSet(llWrite)
		if !fi.IsDir() {
			rights = llFile
		}
		rule := landlock.PathAccess(rights, w)
		if fi.IsDir() {
			rule = rule.WithRefer()
		}
		rules = append(rules, rule)
	}
	for _, s := range sockets {
		rules = append(rules, landlock.PathAccess(0, filepath.Dir(s)).WithResolveUnix().IgnoreIfMissing())
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return nil // nothing this kernel can restrict
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
