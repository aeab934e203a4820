package pi

import (
	"testing"

	"github.com/picketdev/picket/hook"
)

// TestExtensionExe reads back the executable Render baked into the
// extension, whatever characters its path holds.
func TestExtensionExe(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", `/opt/my "picket"/pi\cket`, "/home/o'neil/bin/picket", "/a/\u2028/picket"} {
		src, err := Render(exe)
		if err != nil {
			t.Fatal(err)
		}
		if got := hook.ExtensionExe(src); got != exe {
			t.Errorf("hook.ExtensionExe(Render(%q)) = %q", exe, got)
		}
	}
}
