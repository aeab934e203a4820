package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// validateTests is shared with FuzzValidate as its seed corpus.
var validateTests = []struct {
	name string
	src  string
	want []string
}{
	{
		name: "empty file is no configuration",
		src:  " \n\t\n",
	},
	{
		name: "empty object",
		src:  "{}",
	},
	{
		name: "a byte order mark is named, not a bare syntax error",
		src:  "\ufeff{}",
		want: []string{"f.jsonc:1:1: syntax error: the file starts with a byte order mark (BOM); save it as UTF-8 without one"},
	},
	{
		name: "fence docs example",
		src: `{
  "$schema": "https://raw.githubusercontent.com/fencesandbox/fence/main/docs/schema/fence.schema.json",
  "network": {
    "allowedDomains": ["github.com", "*.npmjs.org", "registry.yarnpkg.com"],
    "deniedDomains": ["evil.com"]
  },
  "filesystem": {
    "denyRead": ["/etc/passwd"],
    "allowWrite": [".", "/tmp"],
    "denyWrite": [".git/hooks"]
  },
  "devices": {"mode": "minimal", "allow": ["/dev/dri"]},
  "command": {"deny": ["git push", "npm publish"]},
  "ssh": {
    "allowedHosts": ["*.example.com"],
    "allowedCommands": ["ls", "cat", "grep", "tail", "head"]
  }
}`,
	},
	{
		name: "every key, with comments and trailing commas",
		src: `// picket and fence share this file.
{
  "extends": "code", // a built-in template
  "allowPty": true,
  "forceNewSession": null,
  "network": {
    "allowedDomains": ["github.com",],
    "deniedDomains": [],
    "allowUnixSockets": ["/var/run/docker.sock"],
    "allowAllUnixSockets": false,
    "allowLocalBinding": true,
    "allowLocalOutbound": null,
    "allowLocalOutboundPorts": [5432, 6379],
    "httpProxyPort": 0,
    "socksProxyPort": 1080,
    "upstreamProxy": "http://127.0.0.1:8080",
    "defaultAction": "proxy",
  },
  "filesystem": {
    /* fence's fields, read by picket's file tools */
    "allowRead": ["."],
    "denyRead": ["~/.ssh"],
    "allowWrite": [".", "/tmp"],
    "denyWrite": ["**/.env"],
    "allowExecute": ["/usr/bin/git"],
    "defaultDenyRead": true,
    "strictDenyRead": false,
    "allowGitConfig": false,
    "wslInterop": null,
  },
  "command": {
    "deny": ["git push"],
    "allow": ["git push origin docs"],
    "useDefaults": true,
    "acceptSharedBinaryCannotRuntimeDeny": [],
    "runtimeExecPolicy": "argv",
  },
  "ssh": {
    "allowedHosts": ["prod-*"],
    "deniedHosts": [],
    "allowedCommands": ["ls"],
    "deniedCommands": [],
    "allowAllCommands": false,
    "inheritDeny": true,
  },
  "devices": {"mode": "auto", "allow": ["/dev/fuse"]},
  "macos": {"mach": {"lookup": ["org.chromium.*"], "register": ["*"]}},
  "picket": {
    "mode": "workspace-write",
    "blocklist": [".env", ".env.*", "*.pem"],
    "writeGuards": {"maxBytes": 1048576, "denyExtensions": [".exe"], "readBeforeEdit": true},
    "permissions": [
      {"pattern": "**/*", "permission": "read"},
      {"pattern": "**/secrets/**", "permission": "none", "priority": 100, "type": "glob"},
      {"pattern": "/docs/", "permission": "write", "priority": -1, "type": "directory"},
    ],
    "caseInsensitive": "auto",
    "audit": {"path": "/tmp/audit.log", "logAllows": true, "logCommands": false, "maxAgeDays": 30, "maxSizeMB": 10},
    "prompt": {"surface": "tmux", "timeoutSeconds": 60, "batchAfter": 3},
    "sandbox": {"stripEnv": ["AWS_*"], "expandMaxDepth": 8, "expandMaxEntries": 10000},
  },
}
`,
	},
	{
		name: "case insensitivity as a boolean",
		src:  `{"picket": {"caseInsensitive": false}}`,
	},
	{
		name: "syntax error: missing comma",
		src: `{
  "picket": {
    "mode": "full"
    "blocklist": []
  }
}`,
		want: []string{`f.jsonc:4:5: syntax error: unexpected character after object value (expecting ',' or '}')`},
	},
	{
		name: "syntax error: truncated",
		src:  "{\n  \"picket\": {",
		want: []string{`f.jsonc:2:14: syntax error: unexpected end of file while parsing value`},
	},
	{
		name: "unknown top-level key",
		src: `{
  // the key below is not fence's or picket's
  "netwrok": {},
}`,
		want: []string{`f.jsonc:3:3: netwrok: unknown key; known keys here: $schema, allowPty, command, devices, extends, filesystem, forceNewSession, macos, network, picket, ssh`},
	},
	{
		name: "key one level too high",
		src:  `{"allowRead": ["."]}`,
		want: []string{`f.jsonc:1:2: allowRead: unknown key here; did you mean filesystem.allowRead?`},
	},
	{
		name: "unknown keys in filesystem and picket",
		src: `{
  "filesystem": {"allowRaed": []},
  "picket": {"mode": "full", "blocklsit": []}
}`,
		want: []string{
			`f.jsonc:2:18: filesystem.allowRaed: unknown key; known keys here: allowExecute, allowGitConfig, allowRead, allowWrite, defaultDenyRead, denyRead, denyWrite, strictDenyRead, wslInterop`,
			`f.jsonc:3:30: picket.blocklsit: unknown key; known keys here: audit, blocklist, caseInsensitive, mode, permissions, prompt, sandbox, writeGuards`,
		},
	},
	{
		name: "bad enum",
		src: `{
  "picket": {
    "mode": "fast",
  },
}`,
		want: []string{`f.jsonc:3:13: picket.mode: "fast" is not one of "read-only", "workspace-write", "full"`},
	},
	{
		name: "case insensitivity neither auto nor boolean",
		src:  `{"picket": {"caseInsensitive": "yes"}}`,
		want: []string{`f.jsonc:1:32: picket.caseInsensitive: "yes" is not one of "auto", true, false`},
	},
	{
		name: "wrong type deep in an array",
		src: `{
  "picket": {
    "permissions": [
      {"pattern": "**/*", "permission": "read"},
      {"pattern": "/secrets/**", "permission": "none", "priority": "high"},
    ],
  },
}`,
		want: []string{`f.jsonc:5:68: picket.permissions[1].priority: expected integer, but got string`},
	},
	{
		name: "wrong item type in a filesystem list",
		src: `{"filesystem": {"denyRead": [
  "~/.ssh",
  42,
  "",
]}}`,
		want: []string{
			`f.jsonc:3:3: filesystem.denyRead[1]: expected string, but got number`,
			`f.jsonc:4:3: filesystem.denyRead[2]: length must be >= 1, but got 0`,
		},
	},
	{
		name: "missing required permission field",
		src: `{"picket": {"permissions": [
  {"pattern": "**/.env*"}
]}}`,
		want: []string{`f.jsonc:2:3: picket.permissions[0]: missing required key "permission"`},
	},
	{
		name: "both permission fields missing",
		src:  `{"picket": {"permissions": [{"priority": 1}]}}`,
		want: []string{`f.jsonc:1:29: picket.permissions[0]: missing required keys "pattern", "permission"`},
	},
	{
		name: "numbers out of range",
		src: `{
  "network": {"allowLocalOutboundPorts": [0, 70000]},
  "picket": {
    "writeGuards": {"maxBytes": -1},
    "audit": {"maxAgeDays": 0, "maxSizeMB": 1.5},
    "prompt": {"timeoutSeconds": 0},
  },
}`,
		want: []string{
			`f.jsonc:2:43: network.allowLocalOutboundPorts[0]: must be >= 1 but found 0`,
			`f.jsonc:2:46: network.allowLocalOutboundPorts[1]: must be <= 65535 but found 70000`,
			`f.jsonc:4:33: picket.writeGuards.maxBytes: must be >= 0 but found -1`,
			`f.jsonc:5:29: picket.audit.maxAgeDays: must be >= 1 but found 0`,
			`f.jsonc:5:45: picket.audit.maxSizeMB: expected integer, but got number`,
			`f.jsonc:6:34: picket.prompt.timeoutSeconds: must be >= 1 but found 0`,
		},
	},
	{
		name: "proxy without an upstream proxy",
		src:  `{"network": {"defaultAction": "proxy"}}`,
		want: []string{`f.jsonc:1:13: network: missing required key "upstreamProxy"`},
	},
	{
		name: "device outside /dev",
		src:  `{"devices": {"allow": ["/tmp"]}}`,
		want: []string{`f.jsonc:1:24: devices.allow[0]: "/tmp" does not match the pattern ^/dev/.+`},
	},
	{
		name: "duplicate key",
		src: `{
  "filesystem": {
    "denyRead": ["~/.aws"],
    "denyRead": ["~/.ssh"],
  },
}`,
		want: []string{`f.jsonc:4:5: filesystem.denyRead: duplicate key; only the last one takes effect`},
	},
	{
		name: "not an object",
		src:  `["picket"]`,
		want: []string{`f.jsonc:1:1: top level: expected object, but got array`},
	},
	{
		name: "nesting too deep is a problem, not a panic",
		src:  `{"network":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
		want: []string{`f.jsonc:1:111: syntax error: nesting deeper than 100 levels`},
	},
	{
		name: "brackets in strings and comments do not nest",
		src:  "{\"picket\": {\"blocklist\": [\"" + strings.Repeat("[", 200) + "\"]}} // " + strings.Repeat("{", 200) + "\n/* " + strings.Repeat("[", 200) + " */",
	},
	{
		name: "a syntax error does not quote a bare word",
		src:  "hvs.CAESIJsupersecret\n",
		want: []string{`f.jsonc:1:1: syntax error: invalid value: want a string in double quotes, a number, true, false, null, an object or an array`},
	},
	{
		name: "a syntax error does not quote a character",
		src:  "{\"a\": 1 Xsecret}",
		want: []string{`f.jsonc:1:9: syntax error: unexpected character after object value (expecting ',' or '}')`},
	},
	{
		name: "a syntax error does not quote a string",
		src:  "\"sec\\qret\"",
		want: []string{`f.jsonc:1:1: syntax error: invalid string: a bad escape or a control character`},
	},
	{
		name: "a syntax error after the top-level value",
		src:  "{} secret",
		want: []string{`f.jsonc:1:4: syntax error: unexpected character after top-level value`},
	},
	{
		name: "a string that is not UTF-8",
		src:  "{\"filesystem\": {\"denyRead\": [\"key\xff\"]}}",
		want: []string{`f.jsonc:1:30: filesystem.denyRead[0]: not valid UTF-8; policy files must be UTF-8`},
	},
	{
		name: "a key that is not UTF-8",
		src:  "{\"picket\": {\"k\xff\": 1}}",
		want: []string{
			`f.jsonc:1:13: picket: a key is not valid UTF-8; policy files must be UTF-8`,
			"f.jsonc:1:13: picket[\"k\ufffd\"]: unknown key; known keys here: audit, blocklist, caseInsensitive, mode, permissions, prompt, sandbox, writeGuards",
		},
	},
	{
		name: "odd key names are quoted in the path",
		src:  `{"picket": {"audit": {"a.b": 1}}}`,
		want: []string{`f.jsonc:1:23: picket.audit["a.b"]: unknown key; known keys here: logAllows, logCommands, maxAgeDays, maxSizeMB, path`},
	},
}

func TestValidate(t *testing.T) {
	for _, tt := range validateTests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Validate("f.jsonc", []byte(tt.src)) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate(%q) mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	p := Problem{File: "fence.jsonc", Line: 3, Col: 7, Msg: "picket.mode: bad"}
	const want = "fence.jsonc:3:7: picket.mode: bad"
	if p.String() != want || p.Error() != want {
		t.Errorf("Problem = %q, %q; want %q", p.String(), p.Error(), want)
	}
}

// TestEveryPropertyDescribed guards the schema's own promise: an editor
// hovering any key shows what it does.
func TestEveryPropertyDescribed(t *testing.T) {
	doc, err := decodeJSON(JSON())
	if err != nil {
		t.Fatalf("JSON() does not decode: %v", err)
	}
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			child := ptr + "/properties/" + escapeToken(name)
			if d, _ := p.(map[string]any)["description"].(string); strings.TrimSpace(d) == "" {
				t.Errorf("%s has no description", child)
			}
			walk(child, p)
		}
		defs, _ := m["$defs"].(map[string]any)
		for name, d := range defs {
			walk(ptr+"/$defs/"+escapeToken(name), d)
		}
		walk(ptr+"/items", m["items"])
	}
	walk("", doc)
}

// TestTopLevelKeys pins the top level to fence's real keys plus picket: a
// key added or lost here changes which files are valid.
func TestTopLevelKeys(t *testing.T) {
	doc, err := decodeJSON(JSON())
	if err != nil {
		t.Fatalf("JSON() does not decode: %v", err)
	}
	props := lookup(doc, "/properties").(map[string]any)
	want := []string{"$schema", "allowPty", "command", "devices", "extends", "filesystem", "forceNewSession", "macos", "network", "picket", "ssh"}
	if diff := cmp.Diff(want, sortedKeys(props)); diff != "" {
		t.Errorf("top-level keys mismatch (-want +got):\n%s", diff)
	}
	if ap := lookup(doc, "/additionalProperties"); ap != false {
		t.Errorf("top-level additionalProperties = %v, want false", ap)
	}
}

func TestJSONIsACopy(t *testing.T) {
	b := JSON()
	b[0] = 'x'
	if JSON()[0] == 'x' {
		t.Error("JSON() returned the embedded bytes; a caller could change the schema")
	}
}

// TestLeavesPicksOneUnderAnyOf covers a shape the current schema avoids
// (caseInsensitive is an enum, not an anyOf) but a future edit may bring
// back: every branch failing must not become a wall of messages.
func TestLeavesPicksOneUnderAnyOf(t *testing.T) {
	leaf := func(loc, msg string) *jsonschema.ValidationError {
		return &jsonschema.ValidationError{KeywordLocation: "/anyOf/0/type", InstanceLocation: loc, Message: msg}
	}
	tree := &jsonschema.ValidationError{
		KeywordLocation: "",
		Causes: []*jsonschema.ValidationError{
			{
				KeywordLocation:  "/properties/picket/anyOf",
				InstanceLocation: "/picket",
				Message:          "anyOf failed",
				Causes: []*jsonschema.ValidationError{
					leaf("/picket", "expected boolean, but got object"),
					{KeywordLocation: "/anyOf/1", InstanceLocation: "/picket", Causes: []*jsonschema.ValidationError{
						leaf("/picket/mode", "value must be one of \"full\""),
					}},
				},
			},
			leaf("/extends", "expected string, but got number"),
		},
	}
	var got []string
	for _, l := range leaves(tree) {
		got = append(got, l.InstanceLocation+" "+l.Message)
	}
	want := []string{`/picket/mode value must be one of "full"`, "/extends expected string, but got number"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leaves mismatch (-want +got):\n%s", diff)
	}
}

// TestValidateConcurrently runs the table from many goroutines: the compiled
// schema is shared, so -race must find nothing.
func TestValidateConcurrently(t *testing.T) {
	for _, tt := range validateTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := len(Validate("f.jsonc", []byte(tt.src))); got != len(tt.want) {
				t.Errorf("Validate(%q) gave %d problems, want %d", tt.src, got, len(tt.want))
			}
		})
	}
}
