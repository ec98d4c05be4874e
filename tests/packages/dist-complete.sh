#!/bin/bash
# Every file git tracks is in the release tarball, but .gitignore files
# (they only mean something in a git checkout). A file that a test, the
# build or the packaging needs and that EXTRA_DIST forgot shows up here
# without running anything from the tarball. Prints TAP.
# Usage: git ls-files | tests/packages/dist-complete.sh TARBALL|DISTDIR
set -u
where=${1:?usage: git ls-files | $0 TARBALL|DISTDIR}
T=$(mktemp -d /tmp/srt-dist.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "1..1"
grep -v -e '^\.gitignore$' -e '/\.gitignore$' | LC_ALL=C sort -u >"$T/tracked"
if [ -d "$where" ]; then
	(cd "$where" && find . -path ./_build -prune -o -path ./_inst -prune -o \( -type f -o -type l \) -print) |
		sed 's|^\./||' | LC_ALL=C sort -u >"$T/shipped"
else
	tar -tzf "$where" | sed -n 's|^[^/]*/||; /[^/]$/p' | LC_ALL=C sort -u >"$T/shipped"
fi
if [ ! -s "$T/tracked" ] || [ ! -s "$T/shipped" ]; then
	echo "not ok 1 - every tracked file is in $(basename "$where"): no list of tracked files or an empty tarball"
	exit 1
fi
LC_ALL=C comm -23 "$T/tracked" "$T/shipped" >"$T/missing"
if [ -s "$T/missing" ]; then
	sed 's/^/# not in the tarball (add it to EXTRA_DIST): /' "$T/missing"
	echo "not ok 1 - every tracked file is in $(basename "$where") ($(wc -l <"$T/missing") missing)"
	exit 1
fi
echo "ok 1 - every tracked file is in $(basename "$where") ($(wc -l <"$T/tracked") files)"
