#!/bin/bash
# The Debian packages, end to end: build them from this tree in a temporary
# directory (dpkg-buildpackage -us -uc -b), run lintian (no errors), install
# them with dpkg -i, run the quick start's sandboxed read with the installed
# /usr/bin/srt (a cat of ~/.ssh/id_rsa is refused) with both backends and
# with each backend package alone, then purge them and check nothing is
# left. Prints TAP. Needs root, dpkg-dev, debhelper, lintian, the build
# dependencies (debian/control) and bubblewrap; it skips, saying why, when
# one is missing or when srt packages are already installed (it never
# removes anything it did not install).
#
# A `make install` copy under /usr/local is left alone; because ld.so may
# prefer /usr/local/lib/libsrt.so.0, /usr/bin/srt is run with the packaged
# library pinned (LD_LIBRARY_PATH), and the test checks that the modules
# come from the packaged directory.
#
# Usage: tests/packages/check.sh [SRCDIR]   (default: this script's tree)
set -u
SRCDIR=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
PKGS="srt libsrt0 libsrt-dev srt-backend-linux-bwrap srt-backend-linux-landlock"
# what a purge must take away: the packages and their debug symbols
ALL="$PKGS srt-dbgsym libsrt0-dbgsym srt-backend-linux-bwrap-dbgsym srt-backend-linux-landlock-dbgsym"
N=16
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
skip_rest() {
	while [ $n -lt $N ]; do n=$((n + 1)); echo "ok $n # SKIP $*"; done
	exit $failed
}
echo "1..$N"

[ "$(id -u)" = 0 ] || skip_rest "not root: dpkg -i needs it"
for t in dpkg-buildpackage dh lintian dpkg-checkbuilddeps bwrap; do
	command -v "$t" >/dev/null || skip_rest "$t is missing (apt-get install dpkg-dev debhelper lintian bubblewrap)"
done
for p in $ALL; do
	if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
		skip_rest "package $p is already installed: this test installs and purges its own"
	fi
done

T=$(mktemp -d /tmp/srt-pkg.XXXXXX)
installed=0
cleanup() {
	cd /
	[ $installed = 1 ] && dpkg -P $ALL >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
start=$(date +%s)

# the tree as git sees it (tracked files, working-tree contents), else the
# whole directory without build products
mkdir "$T/src"
if git -C "$SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$SRCDIR" && git ls-files -z | xargs -0 cp --parents -t "$T/src" 2>/dev/null)
else
	tar -C "$SRCDIR" --exclude=./_build --exclude='./srt-*' -cf - . | tar -C "$T/src" -xf -
fi
cd "$T/src" || skip_rest "cannot enter $T/src"
if ! dpkg-checkbuilddeps >"$T/deps" 2>&1; then
	skip_rest "build dependencies missing: $(tr '\n' ' ' <"$T/deps")"
fi

# 1: the build (the test suite itself runs elsewhere: nocheck)
DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b >"$T/build.log" 2>&1
rc=$?
# the packages to install: not the -dbgsym ones
debs=$(ls "$T"/*.deb 2>/dev/null | grep -v -- '-dbgsym_')
check "dpkg-buildpackage -us -uc -b (exit $rc)" test $rc = 0
[ $rc = 0 ] || { tail -20 "$T/build.log" | sed 's/^/# /'; skip_rest "the build failed"; }
names=$(for d in $debs; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
check "the five binary packages ($names)" \
	test "$names" = "libsrt-dev libsrt0 srt srt-backend-linux-bwrap srt-backend-linux-landlock "

# 2: lintian, errors only
lintian --fail-on error "$T"/*.changes >"$T/lintian" 2>&1
rc=$?
grep -E '^(E|W):' "$T/lintian" | sed 's/^/# /'
check "lintian reports no errors (exit $rc, $(grep -c '^W:' "$T/lintian") warnings)" test $rc = 0

# 3: install
dpkg -i $debs >"$T/install.log" 2>&1
rc=$?
installed=1
check "dpkg -i installs all five (exit $rc)" test $rc = 0
[ $rc = 0 ] || { tail -20 "$T/install.log" | sed 's/^/# /'; skip_rest "the install failed"; }
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
LIBDIR=/usr/lib/$MA
run_srt() { LD_LIBRARY_PATH=$LIBDIR timeout -k 5 60 /usr/bin/srt "$@"; }
out=$(run_srt doctor 2>&1)
check "the installed srt looks for modules in $LIBDIR/srt/backends" \
	grep -q "modules in $LIBDIR/srt/backends" <<<"$out"
check "man srt, srt-settings and srt-modules are installed" \
	test -e /usr/share/man/man1/srt.1.gz -a -e /usr/share/man/man5/srt-settings.5.gz \
	-a -e /usr/share/man/man7/srt-modules.7.gz
check "pkg-config names the backend directory" \
	test "$(PKG_CONFIG_LIBDIR=$LIBDIR/pkgconfig pkg-config --variable=backenddir srt 2>/dev/null)" = "$LIBDIR/srt/backends"

# 4: the quick start's sandboxed read, refused
demo="$T/demo"
mkdir -p "$demo/home/.ssh" "$demo/work"
chmod 755 "$T" "$demo"
echo "PRIVATE KEY (demo)" >"$demo/home/.ssh/id_rsa"
cat >"$demo/settings.json" <<'JSON'
{
  "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [] }
}
JSON
# quick_read [srt options]: exit 3 when cat was refused inside the sandbox
quick_read() {
	out=$(cd "$demo/work" && HOME="$demo/home" run_srt "$@" --settings "$demo/settings.json" \
		-c 'echo "inside the sandbox as $(id -un)"; cat ~/.ssh/id_rsa || { echo "cat was refused"; exit 3; }' 2>&1)
	rc=$?
	[ $rc = 3 ] && grep -q 'inside the sandbox' <<<"$out" && ! grep -q 'PRIVATE KEY' <<<"$out"
}
check "quick start: the read is refused with the automatic backend" quick_read
check "quick start: refused with --backend=linux-bwrap" quick_read --backend=linux-bwrap
if run_srt doctor --backend=linux-landlock >/dev/null 2>&1; then
	check "quick start: refused with --backend=linux-landlock" quick_read --backend=linux-landlock
else
	n=$((n + 1)); echo "ok $n # SKIP this kernel offers no Landlock"
fi

# 5: either backend package alone is enough
dpkg -r srt-backend-linux-bwrap >/dev/null 2>&1
if run_srt doctor --backend=linux-landlock >/dev/null 2>&1; then
	check "with srt-backend-linux-landlock alone: the read is refused" quick_read
else
	# no Landlock: srt must refuse to run rather than run unsandboxed
	cd "$demo/work" && HOME="$demo/home" run_srt --settings "$demo/settings.json" -c "touch $demo/ran" >/dev/null 2>&1
	check "with srt-backend-linux-landlock alone and no Landlock: srt refuses and runs nothing" test ! -e "$demo/ran"
	cd "$T/src"
fi
dpkg -i "$T"/srt-backend-linux-bwrap_*.deb >/dev/null 2>&1 && dpkg -r srt-backend-linux-landlock >/dev/null 2>&1
check "with srt-backend-linux-bwrap alone: the read is refused" quick_read

# 6: purge, and nothing is left
dpkg -P $ALL >"$T/purge.log" 2>&1
rc=$?
installed=0
[ $rc = 0 ] || sed 's/^/# /' "$T/purge.log"
check "dpkg -P purges all five (exit $rc)" test $rc = 0
left=""
for p in $ALL; do
	dpkg -L "$p" >/dev/null 2>&1 && left="$left $p"
done
check "dpkg -L lists nothing for any of them${left:+ (still:$left)}" test -z "$left"
files=$(ls -d /usr/lib/*/srt /usr/lib/*/libsrt.so* /usr/bin/srt /usr/include/srt \
	/usr/share/man/man1/srt.1.gz /usr/share/bash-completion/completions/srt 2>/dev/null | tr '\n' ' ')
check "no file is left (/usr/lib/*/srt, libsrt, /usr/bin/srt, headers, man, completion)${files:+: $files}" test -z "$files"
check "the test took $(($(date +%s) - start)) s" true
exit $failed
