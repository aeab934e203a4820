#!/usr/bin/env bash
# Installs the real coding agents the end-to-end tests drive, at pinned
# versions, once per CI run, into a git-ignored cache, and prints the path
# of each agent's binary. Idempotent: a second run with every pinned
# version already there installs nothing; a changed pin reinstalls.
#
# Usage: bash .ci/agents.sh
#
# stdout: one binary path a line, in this order: claude, pi, codex, gemini,
# copilot, qwen, opencode. The same paths, with the versions, go to
# $dir/agents.env as PICKET_CLAUDE=…, PICKET_CLAUDE_VERSION=… lines, which
# is how the tests in hook/e2e find them (AgentBinary), with
# PICKET_COPILOT_PKG_CACHE_HOME, Copilot's package unpacked once.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PICKET_AGENTS_DIR:-$root/.cache/agents}
mkdir -p "$dir"

# The pins. Every one installs self-contained from npm and runs on Node 20:
# Claude Code 2.1.197 is the last release whose engines allow Node < 22,
# Qwen Code 0.15.10 likewise (0.16 and later need Node 22). Change a pin
# only together with the measured facts in hook/e2e/AGENTS-MEASURED.md.
agents=(claude pi codex gemini copilot qwen opencode)
declare -A pkg=(
	[claude]=@anthropic-ai/claude-code@2.1.197
	[pi]=@mariozechner/pi-coding-agent@0.73.1
	[codex]=@openai/codex@0.171.0
	[gemini]=@google/gemini-cli@0.61.0
	[copilot]=@github/copilot@1.0.102
	[qwen]=@qwen-code/qwen-code@0.15.10
	[opencode]=opencode-ai@1.18.33
)

# candidates lists where an agent's binary may be, best first. npm may skip
# a package's install script; then the launcher in the main package is a
# stub or a Node wrapper, and the native binary sits in the platform
# package, which is what the tests run.
candidates() {
	local m=$dir/node_modules
	case $1 in
	claude)
		echo "$m/@anthropic-ai/claude-code/bin/claude.exe"
		for p in linux-x64 linux-x64-musl linux-arm64 linux-arm64-musl; do
			echo "$m/@anthropic-ai/claude-code-$p/claude"
		done
		;;
	codex)
		# bin/codex.js execs this musl binary; it finds rg and bwrap beside it.
		echo "$m/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
		echo "$m/@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex"
		;;
	copilot)
		# npm-loader.js spawns this binary.
		for p in linux-x64 linuxmusl-x64 linux-arm64 linuxmusl-arm64; do
			echo "$m/@github/copilot-$p/copilot"
		done
		;;
	opencode)
		# The postinstall only links one of these to opencode-ai/bin; the
		# baseline build is for CPUs without AVX2.
		for p in linux-x64 linux-x64-baseline linux-x64-musl linux-x64-baseline-musl linux-arm64 linux-arm64-musl; do
			echo "$m/opencode-$p/bin/opencode"
		done
		;;
	*) echo "$m/.bin/$1" ;; # pi, gemini, qwen: Node scripts
	esac
}

# agent_bin prints the first binary of agent $1 that runs and says it is
# the pinned version. It runs with a home of its own, so asking a version
# writes nothing into the real one.
agent_bin() {
	local want=${pkg[$1]##*@} c
	while read -r c; do
		[ -x "$c" ] || continue
		if HOME=$dir/home XDG_CONFIG_HOME=$dir/home/.config XDG_DATA_HOME=$dir/home/.local/share \
			XDG_CACHE_HOME=$dir/home/.cache XDG_STATE_HOME=$dir/home/.local/state \
			timeout 120 "$c" --version </dev/null 2>&1 | grep -Fqw -- "$want"; then
			echo "$c"
			return 0
		fi
	done < <(candidates "$1")
	return 1
}

# npm_install installs packages into the cache in one npm call, trying three
# times: a CI run should not go red over one dropped connection.
npm_install() {
	command -v npm >/dev/null || { echo "agents.sh: npm is missing (install Node.js 20 or later)" >&2; return 1; }
	local try
	for try in 1 2 3; do
		npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$@" >&2 && return 0
		echo "agents.sh: npm install $* failed (attempt $try of 3)" >&2
		sleep $((try * 5))
	done
	return 1
}

declare -A bin=()
missing=()
for a in "${agents[@]}"; do
	if b=$(agent_bin "$a"); then
		bin[$a]=$b
	else
		missing+=("${pkg[$a]}")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	start=$SECONDS
	npm_install "${missing[@]}"
	echo "agents.sh: installed ${missing[*]} in $((SECONDS - start))s" >&2
fi

env=$(mktemp "$dir/agents.env.XXXXXX")
trap 'rm -f "$env"' EXIT
for a in "${agents[@]}"; do
	if [ -z "${bin[$a]:-}" ]; then
		bin[$a]=$(agent_bin "$a") || { echo "agents.sh: no working $a ${pkg[$a]##*@} under $dir" >&2; exit 1; }
	fi
	echo "agents.sh: $a ${pkg[$a]##*@} at ${bin[$a]}" >&2
	echo "${bin[$a]}"
	name=PICKET_${a^^}
	printf '%s=%s\n%s_VERSION=%s\n' "$name" "${bin[$a]}" "$name" "${pkg[$a]##*@}" >>"$env"
done

# Copilot CLI unpacks a 235 MB package into its cache on every first start
# (about 5 s); unpack it once here and let the tests share it read-only.
pkgcache=$dir/copilot-pkg
if [ ! -d "$pkgcache/pkg" ] || [ -z "$(ls "$pkgcache"/pkg/*/"${pkg[copilot]##*@}" 2>/dev/null | head -1)" ]; then
	HOME=$dir/home COPILOT_PKG_CACHE_HOME=$pkgcache COPILOT_SEA_EXTRACT_ONLY=1 "${bin[copilot]}" </dev/null >&2
fi
echo "PICKET_COPILOT_PKG_CACHE_HOME=$pkgcache" >>"$env"

mv "$env" "$dir/agents.env"
trap - EXIT
