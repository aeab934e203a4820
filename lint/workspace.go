package lint

import (
	"path/filepath"
	"strings"
)

// checkWorkspace warns when the workspace root is the home directory or
// holds it: workspace-write mode and every relative rule then cover the
// person's dotfiles and credentials.
func checkWorkspace(t *target) []Warning {
	root, home := t.rootAndHome()
	if root == "" || home == "" {
		return nil
	}
	w := Warning{File: t.spec.Root, Code: CodeWorkspaceHome}
	switch {
	case root == home:
		w.Msg = "the workspace root is your home directory: workspace-write mode and every relative rule cover all of it, dotfiles and credentials included; start the agent from a project directory"
	case root == "/" || strings.HasPrefix(home, root+"/"):
		w.Msg = "the workspace root holds your home directory: workspace-write mode and every relative rule cover all of it, dotfiles and credentials included; start the agent from a project directory"
	default:
		return nil
	}
	return []Warning{w}
}

// rootAndHome returns the resolved workspace root and home ("" when unset).
func (t *target) rootAndHome() (root, home string) {
	if t.spec.Home == "" || !filepath.IsAbs(t.spec.Home) {
		return t.resolve(t.spec.Root), ""
	}
	return t.resolve(t.spec.Root), t.resolve(t.spec.Home)
}

// rootCoversHome reports whether checkWorkspace warns.
func (t *target) rootCoversHome() bool { return len(checkWorkspace(t)) > 0 }
