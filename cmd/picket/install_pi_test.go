package main

import (
	"bytes"
	"github.com/picketdev/picket/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallPiUser(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	file := filepath.Join(home, ".pi", "agent", "extensions", "picket", "index.ts")

	r := runInstallCLI(env, "install", "pi", "--exe", "/opt/picket/picket")
	if r.code != 0 {
		t.Fatalf("install pi: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("install pi wrote no %s: %v", file, err)
	}
	if !bytes.Contains(first, []byte(`const PICKET = "/opt/picket/picket";`)) || bytes.Contains(first, []byte("__PICKET_EXE__")) {
		t.Errorf("install pi did not bake /opt/picket/picket into the extension")
	}
	if !bytes.Contains(first, []byte(`pi.on("tool_call"`)) {
		t.Errorf("the installed file is not the extension")
	}

	r = runInstallCLI(env, "install", "pi", "--user", "--exe", "/opt/picket/picket")
	second, _ := os.ReadFile(file)
	if r.code != 0 || !bytes.Equal(first, second) || !strings.Contains(r.stderr, "already up to date") {
		t.Errorf("second install: exit %d, changed %v, stderr %q", r.code, !bytes.Equal(first, second), r.stderr)
	}

	// A file beside the extension directory is not picket's.
	other := filepath.Join(home, ".pi", "agent", "extensions", "other.ts")
	os.WriteFile(other, []byte("export default function () {}\n"), 0o644)
	r = runInstallCLI(env, "uninstall", "pi")
	if r.code != 0 {
		t.Fatalf("uninstall pi: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Dir(file)); !os.IsNotExist(err) {
		t.Errorf("uninstall pi left %s (err %v)", filepath.Dir(file), err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("uninstall pi removed a file that is not picket's: %v", err)
	}
	if r = runInstallCLI(env, "uninstall", "pi"); r.code != 0 {
		t.Errorf("second uninstall: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestInstallPiProject(t *testing.T) {
	testenv.Git(t)
	root := t.TempDir()
	home := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	// The person's own .pi/extensions, which uninstall must leave; what
	// install itself creates goes again (the agents' contract test).
	os.MkdirAll(filepath.Join(root, ".pi", "extensions"), 0o755)
	t.Chdir(sub)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}

	r := runInstallCLI(env, "install", "pi", "--project", "--exe", "/opt/picket/picket")
	if r.code != 0 {
		t.Fatalf("install pi --project: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	file := filepath.Join(realRoot, ".pi", "extensions", "picket", "index.ts")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("install pi --project wrote no %s: %v\nstderr: %s", file, err, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".pi")); err == nil {
		t.Errorf("install pi --project touched ~/.pi")
	}
	if r = runInstallCLI(env, "uninstall", "pi", "--project"); r.code != 0 {
		t.Fatalf("uninstall pi --project: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Dir(file)); !os.IsNotExist(err) {
		t.Errorf("uninstall pi --project left %s", filepath.Dir(file))
	}
	if _, err := os.Stat(filepath.Join(realRoot, ".pi", "extensions")); err != nil {
		t.Errorf("uninstall pi --project removed more than picket's directory: %v", err)
	}
}

func TestInstallPiPrint(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	r := runInstallCLI(env, "install", "pi", "--print", "--exe", "/opt/picket/picket")
	if r.code != 0 || !strings.Contains(r.stdout, `const PICKET = "/opt/picket/picket";`) {
		t.Errorf("install pi --print: exit %d, stdout lacks the extension", r.code)
	}
	if _, err := os.Stat(filepath.Join(home, ".pi")); err == nil {
		t.Errorf("install pi --print wrote files")
	}
}

func TestInstallPiUsage(t *testing.T) {
	for _, args := range [][]string{
		{"install", "pi", "--user", "--project"},
		{"install", "pi", "extra"},
		{"install", "pi", "--bogus"},
	} {
		r := runInstallCLI([]string{"HOME=" + t.TempDir()}, args...)
		if r.code != 2 {
			t.Errorf("picket %s: exit %d, want 2", strings.Join(args, " "), r.code)
		}
	}
}

// TestInstallPiKeepsThePersonsFiles: reinstalling keeps an edited
// extension as a backup; uninstall leaves files picket did not write.
func TestInstallPiKeepsThePersonsFiles(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	dir := filepath.Join(home, ".pi", "agent", "extensions", "picket")
	file := filepath.Join(dir, "index.ts")
	if r := runInstallCLI(env, "install", "pi", "--exe", "/opt/picket/picket"); r.code != 0 {
		t.Fatalf("install: %d\n%s", r.code, r.stderr)
	}
	orig, _ := os.ReadFile(file)
	edited := append(orig, "// my tweak\n"...)
	os.WriteFile(file, edited, 0o644)
	os.MkdirAll(filepath.Join(dir, "mydata"), 0o755)
	os.WriteFile(filepath.Join(dir, "mydata", "x"), []byte("keep"), 0o644)

	r := runInstallCLI(env, "install", "pi", "--exe", "/opt/picket/picket")
	baks, _ := filepath.Glob(file + ".bak-*")
	if r.code != 0 || len(baks) != 1 || !strings.Contains(r.stderr, baks[0]) {
		t.Fatalf("reinstall over an edited extension: exit %d, backups %v, stderr %q; want one backup, named", r.code, baks, r.stderr)
	}
	if b, _ := os.ReadFile(baks[0]); !bytes.Equal(b, edited) {
		t.Errorf("backup holds %d bytes, want the edited file", len(b))
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, orig) {
		t.Errorf("reinstall did not restore picket's extension")
	}
	r = runInstallCLI(env, "uninstall", "pi")
	if _, err := os.Stat(file); r.code != 0 || err == nil {
		t.Errorf("uninstall: exit %d, index.ts still there (%v)", r.code, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mydata", "x")); err != nil || string(b) != "keep" {
		t.Errorf("uninstall removed the person's file: %v", err)
	}
	if !strings.Contains(r.stderr, "did not write") {
		t.Errorf("uninstall stderr %q, want it to say what it left", r.stderr)
	}
}
