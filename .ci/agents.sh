#!/usr/bin/env bash
# Installs the real coding agents the end-to-end tests drive, once per CI
# run, into a git-ignored cache, and prints the path of each agent binary.
# Idempotent: a second run with the package already there installs nothing.
#
# Usage: bash .ci/agents.sh   (prints the claude binary path on stdout)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PICKET_AGENTS_DIR:-$root/.cache/agents}
mkdir -p "$dir"

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
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code >&2
fi
bin=$(claude_bin) || { echo "agents.sh: no working claude binary under $dir" >&2; exit 1; }
echo "agents.sh: $("$bin" --version) at $bin" >&2
echo "$bin"
