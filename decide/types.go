package decide

import (
	"fmt"
)

// Access is the kind of file access a tool call makes.
type Access string

// The access kinds. List covers stat, ls, find and glob; Read covers file
// contents and grep; Write covers create, modify, delete and rename.
const (
	List  Access = "list"
	Read  Access = "read"
	Write Access = "write"
)

// ParseAccess returns the Access named by s.
func ParseAccess(s string) (Access, error) {
	switch a := Access(s); a {
	case List, Read, Write:
		return a, nil
	}
	return "", fmt.Errorf("unknown access %q (want list, read or write)", s)
}

// Mode is a session's sandbox mode.
type Mode string

// The modes. The zero Mode means WorkspaceWrite.
const (
	ReadOnly       Mode = "read-only"
	WorkspaceWrite Mode = "workspace-write"
	Full           Mode = "full"
)

// ParseMode returns the Mode named by s; "" is WorkspaceWrite.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return WorkspaceWrite, nil
	case ReadOnly, WorkspaceWrite, Full:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want read-only, workspace-write or full)", s)
}

// Layer names the stage of the decision that denied a request.
type Layer string

// The layers, in the order they are checked.
const (
	LayerMandatory  Layer = "mandatory"
	LayerMode       Layer = "mode"
	LayerBoundary   Layer = "boundary"
	LayerBlocklist  Layer = "blocklist"
	LayerWriteGuard Layer = "write-guard"
)

// Rule names, as they appear in decisions, audit lines and block messages.
const (
	RuleMandatory       = "picket.mandatory"
	RuleMode            = "picket.mode"
	RuleCanonicalize    = "picket.canonicalize"
	RuleDefaultDenyRead = "filesystem.defaultDenyRead"
	RuleAllowWrite      = "filesystem.allowWrite"
	RuleDenyRead        = "filesystem.denyRead"
	RuleDenyWrite       = "filesystem.denyWrite"
	RuleBlocklist       = "picket.blocklist"
	RulePermissions     = "picket.permissions"
	RuleMaxBytes        = "picket.writeGuards.maxBytes"
	RuleDenyExtensions  = "picket.writeGuards.denyExtensions"
	RuleReadBeforeEdit  = "picket.writeGuards.readBeforeEdit"
)

// Decision is the answer for one access to one path. It is a plain value:
// the JSON names are part of picket's interface (check --json, block
// messages, audit lines).
type Decision struct {
	Allow      bool   `json:"allow"`
	Access     Access `json:"access"`
	Path       string `json:"path"`     // as requested, made absolute
	Resolved   string `json:"resolved"` // after following every symlink
	Layer      Layer  `json:"layer"`
	Rule       string `json:"rule"`
	Pattern    string `json:"pattern"` // the matching pattern as written, or ""
	Source     string `json:"source"`  // the policy file, or "builtin:<name>"
	Suggestion string `json:"suggestion"`
	Reason     string `json:"reason,omitempty"` // one human sentence on a deny
}

// Request is one access to decide. Path and Resolved are both absolute:
// Path is the spelling the agent used (made absolute), Resolved is the
// result of [Canonicalize].
type Request struct {
	Access   Access
	Path     string
	Resolved string
	Size     int64 // bytes a write will leave in the file; -1 when unknown
	// Granted marks a request a person granted (once, for the session, or
	// persisted): the boundary and blocklist layers step aside. Mandatory,
	// mode and write-guard still apply.
	Granted bool
}

// Grantable reports whether a person may lift this denial with a grant:
// only boundary and blocklist denials are.
func (d Decision) Grantable() bool {
	return !d.Allow && (d.Layer == LayerBoundary && d.Rule != RuleCanonicalize && d.Resolved != "" || d.Layer == LayerBlocklist)
}
