#!/usr/bin/env bash
# Installs fd for the tests that compare picket's scan of Pi's find with
# the real fd, into a git-ignored cache, and prints the path of a command
# that runs it. Idempotent.
#
# Pi's find runs `fd --glob --hidden --no-require-git`: it takes the fd on
# PATH, or downloads the newest release (fd 10). Debian 12's fd-find is 8.6,
# which has no --no-require-git, so Pi's find fails with it. This takes fd
# from the next Debian release (fd-find 10.2) with the C library it was
# built against, unpacked into the cache (nothing is installed on the
# system), and runs it through that library's own loader.
#
# Usage: bash .ci/fd.sh   (prints the fd command's path on stdout)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PICKET_FD_DIR:-$root/.cache/tools/fd}
suite=trixie

if [ -x "$dir/fd" ] && "$dir/fd" --version >/dev/null 2>&1; then
	echo "fd.sh: $("$dir/fd" --version) at $dir/fd" >&2
	echo "$dir/fd"
	exit 0
fi

# The machine's own Debian mirror, as its apt sources name it (apt lists
# only the sources it has fetched indexes of: a fresh machine has none).
mirror() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
		awk '$2 !~ /-/ {print $1; exit}'
}
mirror=$(mirror)
if [ -z "$mirror" ]; then
	apt-get update -qq >&2
	mirror=$(mirror)
fi
[ -n "$mirror" ] || { echo "fd.sh: no Debian mirror in the apt sources" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/debs"
echo "deb $mirror $suite main" >"$work/sources.list"
apt=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=/nonexistent"
	-o "Dir::State::Lists=$work/lists" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
for try in 1 2 3; do
	apt-get -qq "${apt[@]}" update >&2 &&
		(cd "$work/debs" && apt-get -qq "${apt[@]}" download fd-find libc6 >&2) && break
	echo "fd.sh: fetching fd-find from $suite failed (attempt $try of 3)" >&2
	[ "$try" = 3 ] && exit 1
	sleep $((try * 5))
done

rm -rf "$dir"
mkdir -p "$dir/root"
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
loader=$(find "$dir/root" -name 'ld-linux*.so.*' -type f | head -1)
[ -n "$loader" ] || { echo "fd.sh: no dynamic loader in $suite's libc6" >&2; exit 1; }
cat >"$dir/fd" <<EOF
#!/bin/sh
exec "$loader" --library-path "$(dirname "$loader")" "$dir/root/usr/bin/fdfind" "\$@"
EOF
chmod +x "$dir/fd"
"$dir/fd" --version >/dev/null
echo "fd.sh: $("$dir/fd" --version) at $dir/fd" >&2
echo "$dir/fd"
