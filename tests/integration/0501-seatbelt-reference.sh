#!/bin/sh
# The macos-seatbelt profile against the reference implementation's: the
# reference package (npm: @anthropic-ai/sandbox-runtime) builds its macOS
# profile for every case of tests/seatbelt/cases.txt under Node, here on
# any system, and tests/unit/test-seatbelt asks both profiles the same
# questions through the SBPL evaluator. They must agree except where a
# documented deliberate difference (README, "macOS backend") explains it.
# Skipped, with the reason, when node or npm is missing or the package
# cannot be installed. This test alone talks to a network host (the npm
# registry); SRT_SEATBELT_REF_PKG=<dir of an installed package> avoids it.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
skip() { echo "1..0 # SKIP $*"; exit 0; }
command -v node >/dev/null 2>&1 || skip "node is not installed"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
version=${SRT_SEATBELT_REF_VERSION:-0.0.83}
if [ -n "${SRT_SEATBELT_REF_PKG:-}" ]; then
	pkg=$SRT_SEATBELT_REF_PKG
else
	command -v npm >/dev/null 2>&1 || skip "npm is not installed"
	if ! (cd "$tmp" && npm init -y >/dev/null 2>&1 &&
	      timeout 300 npm install --ignore-scripts --no-audit --no-fund \
		"@anthropic-ai/sandbox-runtime@$version" >/dev/null 2>&1); then
		skip "cannot install @anthropic-ai/sandbox-runtime@$version from the npm registry"
	fi
	pkg="$tmp/node_modules/@anthropic-ai/sandbox-runtime"
fi
[ -f "$pkg/dist/sandbox/macos-sandbox-utils.js" ] ||
	skip "$pkg holds no dist/sandbox/macos-sandbox-utils.js"
root="$tmp/root"
mkdir -p "$tmp/ref" "$root" || exit 1
if ! node "$top_srcdir/tests/seatbelt/reference-profiles.mjs" "$pkg" \
	"$top_srcdir/tests/seatbelt/cases.txt" "$root" "$tmp/ref" >"$tmp/node.log" 2>&1; then
	echo "not ok 1 - the reference wrote its profiles"
	sed 's/^/# /' "$tmp/node.log"
	echo "1..1"
	exit 1
fi
SRT_SEATBELT_REF="$tmp/ref" SRT_SEATBELT_ROOT="$root" \
	exec "$top_builddir/tests/unit/test-seatbelt"
