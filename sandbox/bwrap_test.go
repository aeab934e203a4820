package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestBwrapArgsGolden pins the arguments of a few plans: one line per
// option, so a diff shows which mount moved.
func TestBwrapArgsGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan Plan
	}{
		{"workspace-write", Plan{
			Cwd: "/w", Exe: "/usr/bin/picket", EmptyFile: "/s/hidden",
			Write:      []string{"/h/.cache", "/w"},
			Structure:  []string{"/w/.git"},
			Protect:    []string{"/w/.git/config", "/w/.git/hooks", "/w/.env", "/w/fence.jsonc"},
			Hide:       []Hidden{{Path: "/h/.aws", Dir: true}, {Path: "/h/.ssh/id_rsa"}},
			SocketDirs: []string{"/run"},
			Sockets:    []string{"/run/docker.sock"},
			TmpBinds:   []string{"/tmp/claude-1a2b-cwd"},
			Landlock:   Landlock{Write: []string{"/dev", "/h/.cache", "/tmp", "/w"}, Sockets: []string{"/run/docker.sock"}},
		}},
		{"default-deny-read", Plan{
			Cwd: "/w", Exe: "/usr/bin/picket", Root: RootEmpty, Listen: []string{"127.0.0.1:3128", "127.0.0.1:1080"},
			Read:     []string{"/etc/ssl", "/usr"},
			Links:    []Link{{Path: "/bin", Target: "usr/bin"}, {Path: "/home", Target: "/data/home"}},
			Write:    []string{"/data/home/u/w"},
			Hide:     []Hidden{{Path: "/data/home/u/w/secrets", Dir: true}},
			Landlock: Landlock{Write: []string{"/data/home/u/w", "/dev", "/tmp"}},
		}},
		{"read-only", Plan{
			Cwd: "/w", Exe: "/p/picket", EmptyFile: "/s/hidden",
			Hide:     []Hidden{{Path: "/h/.ssh/id_ed25519"}},
			Landlock: Landlock{Write: []string{"/dev", "/tmp"}},
		}},
		{"tmp-workspace", Plan{
			Cwd: "/tmp/w", Exe: "/usr/bin/picket", EmptyFile: "/s/hidden",
			Write:      []string{"/h/.cache", "/tmp/w"},
			Through:    []string{"/tmp/w"},
			TmpDirs:    []string{"/tmp/user/1000"},
			TmpBinds:   []string{"/tmp/user/1000/claude-1a2b-cwd"},
			Structure:  []string{"/tmp/w/.git"},
			Protect:    []string{"/tmp/w/.git/hooks"},
			Hide:       []Hidden{{Path: "/tmp/w/.env"}},
			SocketDirs: []string{"/run"},
			Landlock:   Landlock{Write: []string{"/dev", "/h/.cache", "/tmp", "/tmp/w"}},
		}},
		{"tmp-workspace-read-only", Plan{
			Cwd: "/run/user/1000/w/sub", Exe: "/usr/bin/picket", EmptyFile: "/s/hidden",
			Through:    []string{"/run/user/1000/w"},
			SocketDirs: []string{"/run"},
			Landlock:   Landlock{Write: []string{"/dev", "/tmp"}},
		}},
		{"full", Plan{
			Cwd: "/", Exe: "/p/picket", Root: RootWritable,
			Structure: []string{"/h"},
			Protect:   []string{"/h/.bashrc"},
			Landlock:  Landlock{Write: []string{"/"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.ReplaceAll(strings.Join(bwrapArgs(tc.plan, []string{"sh", "-c", "echo hi"}), "\n"), "\n--", "\n\n--") + "\n"
			file := filepath.Join("testdata", "bwrap-"+tc.name+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("bwrapArgs(%s) mismatch:\n--- want\n%s\n--- got\n%s", tc.name, want, got)
			}
		})
	}
}

// TestOpsOrder checks the invariant the golden files rely on: every mount
// comes after the mounts of the directories above it.
func TestOpsOrder(t *testing.T) {
	p := Plan{
		Exe: "/a/b-c/picket", Write: []string{"/a", "/a/b"}, Structure: []string{"/a/b/c"},
		Protect: []string{"/a/b/c/d", "/a/b-c"}, Hide: []Hidden{{Path: "/a/b/c/d/e", Dir: true}},
	}
	ops := p.ops()
	for i, o := range ops {
		for _, later := range ops[i+1:] {
			if isUnder(o.path, later.path) && o.path != later.path {
				t.Errorf("mount of %s comes before the mount of its parent %s", o.path, later.path)
			}
		}
	}
}

// TestHiddenFileNotBoundBeneath: a protected file that is also hidden
// gets only the empty file over it (read-only already), not a read-only
// bind of itself beneath that: each bind costs bubblewrap a mount and a
// read of /proc/self/mountinfo. A hidden directory keeps the protection
// beneath it, and a protected file nothing hides keeps its bind.
func TestHiddenFileNotBoundBeneath(t *testing.T) {
	p := Plan{
		Root: RootReadOnly, EmptyFile: "/s/hidden", Write: []string{"/w"},
		Protect: []string{"/w/.env", "/w/.git/config", "/w/keys"},
		Hide:    []Hidden{{Path: "/w/.env"}, {Path: "/w/keys", Dir: true}},
	}
	args := strings.Join(bwrapArgs(p, []string{"true"}), " ")
	for _, want := range []string{"--ro-bind /s/hidden /w/.env", "--ro-bind-try /w/.git/config /w/.git/config",
		"--ro-bind-try /w/keys /w/keys --perms 0000 --tmpfs /w/keys"} {
		if !strings.Contains(args, want) {
			t.Errorf("bwrap args lack %q:\n%s", want, args)
		}
	}
	if strings.Contains(args, "--ro-bind /w/.env /w/.env") {
		t.Errorf("a hidden file is also bound read-only beneath the empty file:\n%s", args)
	}
}

// TestThroughDirs: the workspace is bound through a private /tmp or /run
// when it is strictly below one; the private directory itself, and a
// working directory outside the workspace, never are.
func TestThroughDirs(t *testing.T) {
	run := []string{"/run"}
	for _, tc := range []struct {
		root, cwd string
		sockets   []string
		want      []string
	}{
		{"/tmp/w", "/tmp/w/sub", run, []string{"/tmp/w"}},
		{"/run/user/1000/w", "/run/user/1000/w", run, []string{"/run/user/1000/w"}},
		{"/run/user/1000/w", "/run/user/1000/w", nil, nil}, // allowAllUnixSockets: /run is the host's
		{"/tmp", "/tmp", run, nil},
		{"/run", "/run", run, nil},
		{"/home/u/w", "/tmp/elsewhere", run, nil},
		{"/home/u/w", "/home/u/w", run, nil},
		{"/tmpfoo/w", "/tmpfoo/w", run, nil},
		{"/var/tmp/w", "/var/tmp/w", run, nil},
	} {
		got := throughDirs([]string{tc.root, tc.cwd}, tc.root, tc.sockets)
		if !slices.Equal(got, tc.want) {
			t.Errorf("throughDirs(root %s, cwd %s, sockets %v) = %q, want %q", tc.root, tc.cwd, tc.sockets, got, tc.want)
		}
	}
}

// TestStructureStopsAtPrivate guards against a full-mode plan holding a
// path in a /tmp workspace binding the host's /tmp back over the private
// one: the directories held in place stop below it.
func TestStructureStopsAtPrivate(t *testing.T) {
	p := Plan{Root: RootWritable, Through: []string{"/tmp/w"}, SocketDirs: []string{"/run"},
		Protect: []string{"/tmp/w/.git/hooks", "/run/user/1/x/y"}, named: []string{"/tmp/w/.git/hooks", "/run/user/1/x/y"}}
	got := p.structure()
	if want := []string{"/tmp/w", "/tmp/w/.git"}; !slices.Equal(got, want) {
		t.Errorf("structure() = %q, want %q", got, want)
	}
}
