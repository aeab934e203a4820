package shellcmd

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CommandPolicy is fence's "command" section: command prefixes refused,
// prefixes that override a refusal, and whether fence's built-in list
// ([DefaultDenied]) applies too (UseDefaults nil means yes); and its
// "ssh" section, which it checks with them.
type CommandPolicy struct {
	Deny        []string
	Allow       []string
	UseDefaults *bool
	SSH         SSHPolicy
}

// SSHPolicy is fence's "ssh" section: the hosts ssh may reach and the
// remote commands it may run there. It applies only when it names a host
// (allowed or denied).
type SSHPolicy struct {
	AllowedHosts     []string
	DeniedHosts      []string
	AllowedCommands  []string
	DeniedCommands   []string
	AllowAllCommands bool // denylist mode: any remote command not denied
	InheritDeny      bool // command.deny (and the defaults) apply remotely too
}

// DefaultDenied is fence's built-in deny list (internal/config,
// DefaultDeniedCommands), applied unless command.useDefaults is false.
var DefaultDenied = []string{
	"shutdown", "reboot", "halt", "poweroff", "init 0", "init 6",
	"systemctl poweroff", "systemctl reboot", "systemctl halt",
	"insmod", "rmmod", "modprobe", "kexec",
	"mkfs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.ntfs",
	"fdisk", "parted", "dd if=",
	"docker run -v /:/", "docker run --privileged",
	"chroot", "unshare", "nsenter",
}

// PolicyFromRaw reads the command section of a merged policy document
// (decide.Loaded.Raw). A section of the wrong shape is an error: the
// caller denies.
func PolicyFromRaw(raw map[string]any) (CommandPolicy, error) {
	var p CommandPolicy
	var err error
	if p.SSH, err = sshFromRaw(raw); err != nil {
		return p, err
	}
	sec, ok := raw["command"]
	if !ok || sec == nil {
		return p, nil
	}
	m, ok := sec.(map[string]any)
	if !ok {
		return p, fmt.Errorf("command: want an object, not %T", sec)
	}
	if p.Deny, err = stringList(m, "deny"); err != nil {
		return p, fmt.Errorf("command.%w", err)
	}
	if p.Allow, err = stringList(m, "allow"); err != nil {
		return p, fmt.Errorf("command.%w", err)
	}
	switch v := m["useDefaults"].(type) {
	case nil:
	case bool:
		p.UseDefaults = &v
	default:
		return p, fmt.Errorf("command.useDefaults: want a boolean, not %T", v)
	}
	return p, nil
}

func sshFromRaw(raw map[string]any) (SSHPolicy, error) {
	var p SSHPolicy
	sec, ok := raw["ssh"]
	if !ok || sec == nil {
		return p, nil
	}
	m, ok := sec.(map[string]any)
	if !ok {
		return p, fmt.Errorf("ssh: want an object, not %T", sec)
	}
	for key, dst := range map[string]*[]string{"allowedHosts": &p.AllowedHosts, "deniedHosts": &p.DeniedHosts,
		"allowedCommands": &p.AllowedCommands, "deniedCommands": &p.DeniedCommands} {
		l, err := stringList(m, key)
		if err != nil {
			return p, fmt.Errorf("ssh.%w", err)
		}
		*dst = l
	}
	for key, dst := range map[string]*bool{"allowAllCommands": &p.AllowAllCommands, "inheritDeny": &p.InheritDeny} {
		switch v := m[key].(type) {
		case nil:
		case bool:
			*dst = v
		default:
			return p, fmt.Errorf("ssh.%s: want a boolean, not %T", key, v)
		}
	}
	return p, nil
}

func stringList(m map[string]any, key string) ([]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list, not %T", key, v)
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want strings, not %T", key, x)
		}
		out = append(out, s)
	}
	return out, nil
}

// Blocked is a command the policy refuses.
type Blocked struct {
	Command []string // as it runs ("" for an argument picket could not expand)
	Rule    string   // the entry as written, or "" when none allows it
	// Field names the list: "command.deny", SourceDefault,
	// "ssh.deniedHosts", "ssh.allowedHosts", "ssh.deniedCommands",
	// "ssh.allowedCommands".
	Field  string
	Reason string // what the command did, in a few words
}

// SourceDefault is Blocked.Field for fence's built-in list.
const SourceDefault = "fence's default command deny list"

func (b *Blocked) Error() string {
	return fmt.Sprintf("%q %s (%s)", strings.Join(b.Command, " "), b.Reason, b.Field)
}

// Check applies the policy to every command a command line runs (the
// commands wrappers and nested shells run included) and returns the
// first one refused, or nil. Matching is fence's: the first token by its
// base name, then the rule's tokens in order, a token ending in "=" found
// anywhere after, leading options skipped before a subcommand; an allow
// entry that matches overrides the deny entries. An argument picket could
// not expand matches any deny token and no allow token.
func (p CommandPolicy) Check(cmds []Command) *Blocked {
	for _, c := range cmds {
		if b := p.check(c); b != nil {
			return b
		}
	}
	return nil
}

func (p CommandPolicy) check(c Command) *Blocked {
	if len(c.Args) == 0 {
		return nil
	}
	args := append([]string(nil), c.Args...)
	args[0] = filepath.Base(args[0])
	for _, rule := range p.Allow {
		if matchRule(args, c.Unknown, ruleTokens(rule), false) {
			return nil
		}
	}
	if b := p.denied(c, args); b != nil {
		return b
	}
	return p.checkSSH(c, args)
}

// denied matches command.deny, then fence's defaults unless switched off.
func (p CommandPolicy) denied(c Command, args []string) *Blocked {
	for _, rule := range p.Deny {
		if matchRule(args, c.Unknown, ruleTokens(rule), true) {
			return &Blocked{Command: c.Args, Rule: rule, Field: "command.deny", Reason: "matches " + strconvQuote(rule)}
		}
	}
	if p.UseDefaults == nil || *p.UseDefaults {
		for _, rule := range DefaultDenied {
			if matchRule(args, c.Unknown, ruleTokens(rule), true) {
				return &Blocked{Command: c.Args, Rule: rule, Field: SourceDefault, Reason: "matches " + strconvQuote(rule)}
			}
		}
	}
	return nil
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// ruleTokens splits a rule as fence does: at spaces and tabs outside
// quotes, quotes removed, the first token by its base name.
func ruleTokens(rule string) []string {
	var toks []string
	var cur strings.Builder
	inS, inD := false, false
	for _, c := range strings.TrimSpace(rule) {
		switch {
		case c == '\'' && !inD:
			inS = !inS
		case c == '"' && !inS:
			inD = !inD
		case (c == ' ' || c == '\t') && !inS && !inD:
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	if len(toks) > 0 {
		toks[0] = filepath.Base(toks[0])
	}
	return toks
}

// matchRule is fence's matchesTokenizedCommandRule over an argv whose
// unknown entries match any token when wild (deny) and none otherwise.
func matchRule(args []string, unknown []bool, rule []string, wild bool) bool {
	if len(args) == 0 || len(rule) == 0 || len(args) < len(rule) {
		return false
	}
	eq := func(i int, want string, prefix bool) bool {
		if i < len(unknown) && unknown[i] {
			return wild
		}
		if prefix {
			return strings.HasPrefix(args[i], want)
		}
		return args[i] == want
	}
	if !eq(0, rule[0], false) {
		return false
	}
	pos := 1
	leading := true
	for _, want := range rule[1:] {
		if strings.HasSuffix(want, "=") {
			found := false
			for i := pos; i < len(args); i++ {
				if eq(i, want, true) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
			continue
		}
		if leading && want != "--" && !strings.HasPrefix(want, "-") {
			pos = skipGlobalFlags(args, pos, want)
			leading = false
		}
		if pos >= len(args) || !eq(pos, want, false) {
			return false
		}
		pos++
	}
	return true
}

// skipGlobalFlags skips the options before a subcommand, as fence does:
// "docker --debug run" matches "docker run".
func skipGlobalFlags(args []string, pos int, sub string) int {
	for pos < len(args) {
		t := args[pos]
		if t == "--" || !strings.HasPrefix(t, "-") {
			return pos
		}
		pos++
		takes := strings.HasPrefix(t, "--") && !strings.Contains(t, "=") || len(t) == 2
		if takes && pos < len(args) {
			if n := args[pos]; n != "--" && !strings.HasPrefix(n, "-") && n != sub {
				pos++
			}
		}
	}
	return pos
}
