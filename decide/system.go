package decide

// systemReadRules are the locations programs need in order to start, which
// stay readable under defaultDenyRead unless strictDenyRead is set: system
// binaries and libraries, toolchains under home, and only the /etc entries
// the dynamic loader, TLS and name resolution read. Never /etc as a whole.
func systemReadRules(home string) []Rule {
	const src = "builtin:system"
	rules := Rules(src,
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
		"/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/pki",
		"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
		"/etc/gai.conf", "/etc/localtime", "/etc/alternatives",
	)
	if home == "" {
		return rules
	}
	return append(rules, Rules(src,
		"~/.cargo", "~/.rustup", "~/go", "~/.go", "~/.nvm", "~/.volta", "~/.bun/bin",
		"~/.deno/bin", "~/.fnm", "~/.local/bin", "~/.local/pipx", "~/.pyenv",
		"~/.rbenv", "~/.rvm", "~/.n", "~/.sdkman", "~/bin",
	)...)
}

// SystemReadRules returns the locations that stay readable under
// defaultDenyRead unless strictDenyRead is set, so the shell sandbox mounts
// exactly what [Check] allows.
func SystemReadRules(home string) []Rule { return systemReadRules(home) }
