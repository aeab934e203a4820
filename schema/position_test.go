package schema

import "testing"

const positionSrc = `// policy
{
  "picket": {"mode": "full"},
  "filesystem": {
    "allowRead": [
      ".",
      "/usr", /* second */ "~/src",
    ],
  },
  "a/b~c": true,
}`

func TestPosition(t *testing.T) {
	tests := []struct {
		src       string
		ptr       string
		line, col int
	}{
		{positionSrc, "", 2, 1},
		{positionSrc, "/picket", 3, 13},
		{positionSrc, "/picket/mode", 3, 22},
		{positionSrc, "/filesystem/allowRead", 5, 18},
		{positionSrc, "/filesystem/allowRead/0", 6, 7},
		{positionSrc, "/filesystem/allowRead/2", 7, 28},
		{positionSrc, "/a~1b~0c", 10, 12},
		{positionSrc, "/filesystem/allowRead/3", 1, 1},
		{positionSrc, "/missing", 1, 1},
		{positionSrc, "picket", 1, 1},
		{positionSrc, "/picket/mode/x", 1, 1},
		{`{"mode": `, "/mode", 1, 1},
		{"", "", 1, 1},
	}
	for _, tt := range tests {
		line, col := Position([]byte(tt.src), tt.ptr)
		if line != tt.line || col != tt.col {
			t.Errorf("Position(%q) = %d:%d, want %d:%d", tt.ptr, line, col, tt.line, tt.col)
		}
	}
}

func TestDotted(t *testing.T) {
	tests := []struct{ ptr, want string }{
		{"", ""},
		{"/picket/mode", "picket.mode"},
		{"/filesystem/allowRead/3", "filesystem.allowRead[3]"},
		{"/$schema", "$schema"},
		{"/picket/a.b", `picket["a.b"]`},
		{"/a~1b", `["a/b"]`},
		{"/picket/01", `picket["01"]`},
	}
	for _, tt := range tests {
		if got := dotted(tt.ptr); got != tt.want {
			t.Errorf("dotted(%q) = %q, want %q", tt.ptr, got, tt.want)
		}
	}
}

func TestInstancePointer(t *testing.T) {
	// The validator URL-escapes each token on top of RFC 6901's escapes.
	tests := []struct{ loc, want string }{
		{"", ""},
		{"/picket/mode", "/picket/mode"},
		{"/a%20b/c~1d", "/a b/c~1d"},
		{"/100%25", "/100%"},
	}
	for _, tt := range tests {
		if got := instancePointer(tt.loc); got != tt.want {
			t.Errorf("instancePointer(%q) = %q, want %q", tt.loc, got, tt.want)
		}
	}
}
