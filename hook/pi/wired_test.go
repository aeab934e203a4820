package pi

import "testing"

// TestExtensionExe reads back the executable Render baked into the
// extension, whatever characters its path holds.
func TestExtensionExe(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/picket", `/opt/my "picket"/pi\cket`, "/home/o'neil/bin/picket", "/a/\u2028/picket"} {
		src, err := Render(exe)
		if err != nil {
			t.Fatal(err)
		}
		if got := extensionExe(src); got != exe {
			t.Errorf("extensionExe(Render(%q)) = %q", exe, got)
		}
	}
}
