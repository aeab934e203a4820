package doctor

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/picketdev/picket/hook"
)

// checkExe says whether the executable w names is this picket (self): the
// same file, or a copy of the same build (the same bytes). A wiring that
// names a picket that is gone (moved, uninstalled, a go build's temporary
// file) blocks every call or, in an agent that fails open, none.
func checkExe(a *hook.Agent, w hook.Wiring, self string) Finding {
	f := Finding{Agent: a, Level: Problem, Fix: "run '" + reinstall(a, w) + "' with the picket you use"}
	named, err := os.Stat(w.Exe)
	switch {
	case !filepath.IsAbs(w.Exe):
		f.Text = fmt.Sprintf("the wiring names no picket executable by its absolute path (%q)", w.Exe)
		return f
	case err != nil:
		f.Text = fmt.Sprintf("it runs %s, which is not there (%v): a stale install", w.Exe, unwrap(err))
		return f
	case !named.Mode().IsRegular() || named.Mode()&0o111 == 0:
		f.Text = fmt.Sprintf("it runs %s, which is not an executable file", w.Exe)
		return f
	}
	mine, err := os.Stat(self)
	if err == nil && os.SameFile(named, mine) {
		return Finding{Agent: a, Level: OK, Text: "it runs this picket, " + w.Exe}
	}
	if same, err := sameBytes(w.Exe, self); err == nil && same {
		return Finding{Agent: a, Level: OK, Text: fmt.Sprintf("it runs %s, the same build as this picket (%s)", w.Exe, self)}
	}
	f.Text = fmt.Sprintf("it runs %s, another picket than this one (%s)", w.Exe, self)
	return f
}

// unwrap is err without the path an *fs.PathError repeats.
func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// sameBytes reports whether the files at a and b hold the same bytes.
func sameBytes(a, b string) (bool, error) {
	ha, err := hashFile(a)
	if err != nil {
		return false, err
	}
	hb, err := hashFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ha, hb), nil
}

func hashFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
