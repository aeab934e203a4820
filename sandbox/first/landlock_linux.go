//go:build linux

package first

import (
	"fmt"
	"os"
	"path/filepath"

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

// restrict applies the Landlock layer to the process (every thread; the
// command inherits it): writes only below write, connect(2) to path
// sockets only to the listed ones (ABI 9), abstract unix sockets only
// within the sandbox (ABI 6). With abi 0 it does nothing.
//
// Signals are not scoped. go-landlock restricts each thread with its own
// landlock_restrict_self(2), which makes sibling domains, and a scoped
// domain may not signal a sibling: the thread forwarding picket's SIGTERM
// to the command was refused (EPERM) whenever it was not the thread that
// started it. The sandbox's own PID namespace already leaves the command
// no way to name a process outside it.
func restrict(abi int, write, sockets []string) error {
	if abi < 1 {
		return nil
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
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}
