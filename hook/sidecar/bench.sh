#!/usr/bin/env bash
# Times picket serve as Pi's extension drives it, against an echo sidecar
# that answers each line at once, interleaved request by request, and
# prints the figures and targets (round trip <= 1.5x echo, >= 50,000
# decisions/s pipelined). Needs Node.js 20 or later.
#
# Usage: bash hook/sidecar/bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v node >/dev/null || { echo "bench.sh: node is missing (install Node.js 20 or later)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/picket" ./cmd/picket
go build -o "$tmp/echo" ./hook/sidecar/testdata/bench/echo
node hook/sidecar/testdata/bench/serve_bench.mjs --picket "$tmp/picket" --echo "$tmp/echo"
