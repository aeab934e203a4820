#!/usr/bin/env bash
# Installs the real coding agents the end-to-end tests drive, once per CI
# run, into a git-ignored cache, and prints the path of each agent binary.
# Idempotent: a second run with the package already there installs nothing.
#
# Usage: bash .ci/agents.sh   (prints the claude binary path, then the pi
# binary path, one a line, on stdout)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PICKET_AGENTS_DIR:-$root/.cache/agents}
mkdir -p "$dir"

# npm_install installs packages into the cache, trying three times: a CI
# run should not go red over one dropped connection to the registry.
npm_install() {
	command -v npm >/dev/null || { echo "agents.sh: npm is missing (install Node.js 20 or later)" >&2; return 1; }
	local try
	for try in 1 2 3; do
		npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$@" >&2 && return 0
		echo "agents.sh: npm install $* failed (attempt $try of 3)" >&2
		sleep $((try * 5))
	done
	return 1
}

# claude_bin prints the first Claude Code binary that runs. npm may skip the
# package's install script; then bin/claude.exe is a stub and the native
# binary sits in the platform package.
claude_bin() {
	local m=$dir/node_modules/@anthropic-ai
	for c in "$m"/claude-code/bin/claude.exe "$m"/claude-code-linux-x64/claude \
		"$m"/claude-code-linux-x64-musl/claude "$m"/claude-code-linux-arm64/claude \
		"$m"/claude-code-linux-arm64-musl/claude; do
		if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

if ! claude_bin >/dev/null; then
	npm_install @anthropic-ai/claude-code
fi
bin=$(claude_bin) || { echo "agents.sh: no working claude binary under $dir" >&2; exit 1; }
echo "agents.sh: $("$bin" --version) at $bin" >&2
echo "$bin"

# Pi (the pi-coding-agent package): a Node script, run through its bin link.
pi_bin() {
	local c=$dir/node_modules/.bin/pi
	if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then
		echo "$c"
		return 0
	fi
	return 1
}

if ! pi_bin >/dev/null; then
	npm_install @mariozechner/pi-coding-agent
fi
pi=$(pi_bin) || { echo "agents.sh: no working pi binary under $dir" >&2; exit 1; }
echo "agents.sh: pi $("$pi" --version 2>&1) at $pi" >&2
echo "$pi"
