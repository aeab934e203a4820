package shellcmd

import (
	"io/fs"
	"strings"
)

// checkSSH applies the ssh section to an ssh command, as fence does: the
// host against deniedHosts then allowedHosts; a remote command, split
// into its commands, against command.deny (with inheritDeny),
// deniedCommands, then allowAllCommands or allowedCommands. A host or
// remote command picket cannot know is refused.
func (p CommandPolicy) checkSSH(c Command, args []string) *Blocked {
	s := p.SSH
	if args[0] != "ssh" || len(s.AllowedHosts) == 0 && len(s.DeniedHosts) == 0 {
		return nil
	}
	host, remote, unknown, ok := sshTarget(c)
	if !ok {
		return nil // no host: ssh prints its usage
	}
	block := func(field, rule, reason string) *Blocked {
		return &Blocked{Command: c.Args, Rule: rule, Field: field, Reason: reason}
	}
	if unknown {
		return block("ssh.allowedHosts", "", "has a host or remote command picket cannot expand")
	}
	for _, h := range s.DeniedHosts {
		if matchHost(host, h) {
			return block("ssh.deniedHosts", h, "reaches a denied host")
		}
	}
	if len(s.AllowedHosts) > 0 && !anyHost(host, s.AllowedHosts) {
		return block("ssh.allowedHosts", "", "reaches a host not in ssh.allowedHosts")
	}
	if remote == "" {
		return nil // an interactive session
	}
	res, err := Analyze(remote, Env{Cwd: "/", FS: noFS{}})
	if err != nil {
		return block("ssh.allowedCommands", "", "runs a remote command picket cannot analyse")
	}
	for _, rc := range res.Commands {
		if b := p.checkRemote(c, rc); b != nil {
			return b
		}
	}
	return nil
}

func (p CommandPolicy) checkRemote(c Command, rc Command) *Blocked {
	s := p.SSH
	if len(rc.Args) == 0 {
		return nil
	}
	args := append([]string(nil), rc.Args...)
	args[0] = baseName(args[0])
	if s.InheritDeny {
		if b := p.denied(rc, args); b != nil {
			b.Command, b.Reason = c.Args, "runs "+strconvQuote(strings.Join(rc.Args, " "))+" remotely, which "+b.Reason
			return b
		}
	}
	for _, rule := range s.DeniedCommands {
		if matchRule(args, rc.Unknown, ruleTokens(rule), true) {
			return &Blocked{Command: c.Args, Rule: rule, Field: "ssh.deniedCommands", Reason: "runs a denied remote command"}
		}
	}
	if s.AllowAllCommands {
		return nil
	}
	for _, rule := range s.AllowedCommands {
		if matchRule(args, rc.Unknown, ruleTokens(rule), false) {
			return nil
		}
	}
	return &Blocked{Command: c.Args, Field: "ssh.allowedCommands", Reason: "runs a remote command not in ssh.allowedCommands"}
}

// sshTarget reads ssh's host (without user@) and remote command, as
// fence does: options that take a value are skipped with it, the first
// other word is the host, the rest joined is the command.
func sshTarget(c Command) (host, remote string, unknown, ok bool) {
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if c.Unknown[i] {
			return "", "", true, true
		}
		if len(a) == 2 && a[0] == '-' && strings.ContainsRune("pliFJWbcDEeILmOoQRSw", rune(a[1])) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		host = a[strings.LastIndexByte(a, '@')+1:]
		for j := i + 1; j < len(c.Args); j++ {
			if c.Unknown[j] {
				return host, "", true, true
			}
		}
		return host, strings.Join(c.Args[i+1:], " "), false, true
	}
	return "", "", false, false
}

func anyHost(host string, patterns []string) bool {
	for _, p := range patterns {
		if matchHost(host, p) {
			return true
		}
	}
	return false
}

// matchHost is fence's MatchesHost: case-insensitive, "*" anywhere.
func matchHost(host, pattern string) bool {
	host, pattern = strings.ToLower(host), strings.ToLower(pattern)
	if pattern == "*" {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return host == pattern
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(host, parts[0]) {
		return false
	}
	host = host[len(parts[0]):]
	last := parts[len(parts)-1]
	if !strings.HasSuffix(host, last) {
		return false
	}
	host = host[:len(host)-len(last)]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(host, mid)
		if i < 0 {
			return false
		}
		host = host[i+len(mid):]
	}
	return true
}

func baseName(s string) string {
	return s[strings.LastIndexByte(s, '/')+1:]
}

// noFS is an empty filesystem: a remote command's words name no local
// file.
type noFS struct{}

func (noFS) ReadDir(string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }
func (noFS) Lstat(string) (fs.FileInfo, error)     { return nil, fs.ErrNotExist }
