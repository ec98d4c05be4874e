#!/bin/bash
# The Debian packages, end to end, on this machine:
#   1. build them from this tree in a temporary directory
#      (dpkg-buildpackage -us -uc -b) and run lintian (no errors);
#   2. set aside a `make install` copy under /usr/local (so neither the
#      shell nor ld.so can reach it), install the five packages with dpkg -i;
#   3. run the quick start's sandboxed read (./quickstart.sh --demo) with
#      the installed /usr/bin/srt, with each backend;
#   4. with BUILDDIR: run integration scripts as root against the installed
#      srt and modules (SRT_TEST_SRT, SRT_TEST_MODULES: see
#      tests/integration/lib.sh; the test helpers come from BUILDDIR), four
#      at a time, the longest first (PKG_TEST_JOBS). tests/run runs every
#      integration script three times on the same code (as root, as the
#      unprivileged user, under the sanitizers) and the escape battery
#      too; here the question is whether the installed files work, so the
#      scripts are those that put each installed file to work (PKG_TESTS
#      below; PKG_TESTS=all runs every one);
#   5. keep only srt + libsrt0 + one backend package, run a sandboxed
#      command, swap the backend package, run it again;
#   6. purge, and check that no path the packages installed is left (the
#      dpkg -L lists taken before the purge) and nothing named srt is in
#      /etc; then put the /usr/local copy back exactly as it was.
# Prints TAP (the plan last), with the time each phase took. Needs root,
# dpkg-dev, debhelper, lintian, the build dependencies (debian/control) and
# bubblewrap; skips, saying why, when one is missing or when srt packages
# are already installed (it never removes a package it did not install).
# The /usr/local copy is restored on every exit path but SIGKILL: if that
# happens, its tar file stays in the directory printed at the start.
#
# Usage: tests/packages/check.sh [--build-only OUT | --debs OUT] [BUILDDIR]
#   BUILDDIR  a configured build of this tree with the test programs built
#             (make check TESTS=); its logs go to BUILDDIR/packages/
#   --build-only OUT  step 1 only (build and lintian), its packages, logs
#             and exit codes kept in OUT, nothing installed: tests/run
#             runs it in the background while the other passes test
#   --debs OUT  steps 2-6 with what --build-only left in OUT (its results
#             are reported here, as if step 1 had run now)
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
MODE=full PREBUILT=
case ${1:-} in
--build-only) MODE=build-only PREBUILT=${2:?--build-only needs a directory}; shift 2 ;;
--debs) MODE=prebuilt PREBUILT=${2:?--debs needs a directory}; shift 2 ;;
esac
BUILDDIR=${1:+$(cd "$1" && pwd)}
# every binary package debian/control declares (so a package added there
# is installed, tested and purged here without editing this list)
PKGS=$(sed -n 's/^Package: *//p' "$SRCDIR/debian/control" | tr '\n' ' ')
# what a purge must take away: the packages and their debug symbols (a
# name that was never built is ignored by dpkg -P)
ALL="$PKGS $(for p in $PKGS; do printf '%s-dbgsym ' "$p"; done)"
# all but srt, libsrt0 and one backend: what step 5 removes
others_than() { # others_than BACKEND
	for p in $PKGS; do
		case $p in srt | libsrt0 | "$1") ;; *) printf '%s ' "$p" ;; esac
	done
}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
finish() { echo "1..$n"; exit $failed; }
phase_start=$(date +%s)
# phase NAME: prints how long the phase that just ended took
phase() {
	local now
	now=$(date +%s)
	echo "# time: $1: $((now - phase_start)) s"
	phase_start=$now
}

[ "$(id -u)" = 0 ] || { skip "not root: dpkg -i needs it"; finish; }
if [ $MODE = prebuilt ] && [ ! -s "$PREBUILT/build.rc" ]; then
	not_ok "no packages in $PREBUILT: the background build (--build-only) did not finish"; finish
fi
for t in dpkg-buildpackage dh lintian dpkg-checkbuilddeps bwrap; do
	command -v "$t" >/dev/null || {
		skip "$t is missing (apt-get install dpkg-dev debhelper lintian bubblewrap)"; finish; }
done
for p in $ALL; do
	if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
		skip "package $p is already installed: this test installs and purges its own"; finish
	fi
done

T=$(mktemp -d /var/tmp/srt-pkg.XXXXXX)
LOG=$T
if [ -n "$BUILDDIR" ]; then
	LOG="$BUILDDIR/packages"
	rm -rf "$LOG" && mkdir -p "$LOG"
fi
echo "# work directory $T, logs in $LOG"
installed=0
LOCAL_TAR="$T/usr-local-srt.tar"
local_saved=0

# The copy `make install` put under /usr/local: its files, as paths
# relative to / (the srt command, libsrt, its modules, headers, pkg-config
# file, manual pages and bash completion).
local_copy() {
	find /usr/local -path /usr/local/src -prune -o \
		\( -name srt -o -name srt.pc -o -name 'srt.[0-9]*' -o -name 'srt-settings.[0-9]*' \
		-o -name 'srt-modules.[0-9]*' -o -name 'libsrt.*' \) -print -prune 2>/dev/null |
		sed 's|^/||' | LC_ALL=C sort
}
set_aside_local() {
	local list
	list=$(local_copy)
	[ -n "$list" ] || return 0
	printf '%s\n' "$list" >"$T/usr-local-srt.list"
	tar -C / -cpf "$LOCAL_TAR" -T "$T/usr-local-srt.list" || return 1
	local_saved=1
	(cd / && xargs -d '\n' rm -rf <"$T/usr-local-srt.list") || return 1
	ldconfig
	hash -r
}
restore_local() {
	[ $local_saved = 1 ] || return 0
	tar -C / -xpf "$LOCAL_TAR" || return 1
	local_saved=0
	ldconfig
	hash -r
}
cleanup() {
	cd /
	[ $installed = 1 ] && dpkg -P $ALL >/dev/null 2>&1
	if ! restore_local; then
		echo "# could not restore the /usr/local copy: it is in $LOCAL_TAR (tar -C / -xpf)"
		return
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# the tree as git sees it (tracked files, working-tree contents), else the
# whole directory without build products
mkdir "$T/src"
if git -C "$SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$SRCDIR" && git ls-files -z | xargs -0 cp --parents -t "$T/src" 2>/dev/null)
else
	tar -C "$SRCDIR" --exclude=./_build --exclude='./srt-*' -cf - . | tar -C "$T/src" -xf -
fi
cd "$T/src" || { skip "cannot enter $T/src"; finish; }
if ! dpkg-checkbuilddeps >"$T/deps" 2>&1; then
	skip "build dependencies missing: $(tr '\n' ' ' <"$T/deps")"; finish
fi

# 1: the build (the test suite itself runs elsewhere: nocheck), lintian.
# Both leave an exit code in $T/*.rc and a log in $T/*.log, so that a
# build made earlier (--build-only) is judged here by the same lines.
build_and_lint() {
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b >"$T/build.log" 2>&1
	echo $? >"$T/build.rc"
	lintian --fail-on error "$T"/*.changes >"$T/lintian.log" 2>&1
	echo $? >"$T/lintian.rc"
}
case $MODE in
build-only)
	build_and_lint
	rm -rf "$PREBUILT" && mkdir -p "$PREBUILT" &&
		cp "$T"/*.rc "$T"/*.log "$PREBUILT"/ && cp "$T"/*.deb "$T"/*.changes "$T"/*.buildinfo "$PREBUILT"/ 2>/dev/null
	echo "# built in the background: exit $(cat "$PREBUILT/build.rc"), lintian exit $(cat "$PREBUILT/lintian.rc")"
	echo "1..0 # SKIP --build-only: the packages are judged by the run with --debs"
	exit 0 ;;
prebuilt) cp "$PREBUILT"/* "$T"/ ;;
*) build_and_lint ;;
esac
cp "$T/build.log" "$LOG/build.log" 2>/dev/null
rc=$(cat "$T/build.rc")
# the packages to install: not the -dbgsym ones
debs=$(ls "$T"/*.deb 2>/dev/null | grep -v -- '-dbgsym_')
deb() { ls "$T/$1"_*.deb; }
check "dpkg-buildpackage -us -uc -b (exit $rc)" test $rc = 0
[ $rc = 0 ] || { tail -20 "$LOG/build.log" | sed 's/^/# /'; finish; }
names=$(for d in $debs; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
check "every binary package of debian/control is built ($names)" \
	test "$names" = "$(printf '%s\n' $PKGS | sort | tr '\n' ' ')"
phase "dpkg-buildpackage"
cp "$T/lintian.log" "$LOG/lintian.log" 2>/dev/null
rc=$(cat "$T/lintian.rc")
grep -E '^(E|W):' "$LOG/lintian.log" | sed 's/^/# /'
check "lintian reports no errors (exit $rc, $(grep -c '^W:' "$LOG/lintian.log") warnings)" test $rc = 0
phase "lintian"

# 2: the /usr/local copy out of the way, then dpkg -i. What existed before
# (of the paths the packages hold, and under /etc) is noted for step 6.
for d in $debs; do dpkg-deb -c "$d"; done |
	awk '{ p = $6; sub(/^\./, "", p); sub(/\/$/, "", p); if (p != "") print p }' |
	LC_ALL=C sort -u >"$T/deb-paths"
while IFS= read -r p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done <"$T/deb-paths" >"$T/existed"
find /etc -name '*srt*' 2>/dev/null | LC_ALL=C sort >"$T/etc-before"
if set_aside_local; then
	ok "the /usr/local copy is set aside ($(wc -l <"$T/usr-local-srt.list" 2>/dev/null || echo 0) paths)"
else
	not_ok "the /usr/local copy could not be set aside"; finish
fi
dpkg -i $debs >"$LOG/install.log" 2>&1
rc=$?
installed=1
check "dpkg -i installs all five (exit $rc)" test $rc = 0
[ $rc = 0 ] || { tail -20 "$LOG/install.log" | sed 's/^/# /'; finish; }
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
LIBDIR=/usr/lib/$MA
MODDIR=$LIBDIR/srt/backends
check "srt on PATH is the packaged /usr/bin/srt ($(command -v srt))" test "$(command -v srt)" = /usr/bin/srt
# (/lib is /usr/lib on a merged-/usr system: compare real paths)
check "ld.so finds libsrt.so.0 in $LIBDIR only" \
	test "$(ldconfig -p | awk '/libsrt\.so\.0 /{print $NF}' | xargs -r readlink -f | sort -u)" = \
	"$(readlink -f "$LIBDIR/libsrt.so.0")"
check "the installed srt looks for modules in $MODDIR" \
	grep -q "modules in $MODDIR" <<<"$(timeout -k 5 60 srt doctor 2>&1)"
check "man srt, srt-settings and srt-modules are installed" \
	test -e /usr/share/man/man1/srt.1.gz -a -e /usr/share/man/man5/srt-settings.5.gz \
	-a -e /usr/share/man/man7/srt-modules.7.gz
check "pkg-config names the backend directory" \
	test "$(pkg-config --variable=backenddir srt 2>/dev/null)" = "$MODDIR"
phase "set aside /usr/local, dpkg -i"

# 3: the quick start's sandboxed read, refused
demo() { (cd / && timeout -k 5 120 bash "$SRCDIR/quickstart.sh" --demo "$@") >"$T/demo.out" 2>&1; }
check "quick start: the read is refused (quickstart.sh --demo, the automatic backend)" demo
sed 's/^/# /' "$T/demo.out"
check "quick start: refused with --backend=linux-bwrap" demo --backend=linux-bwrap
have_landlock=0
timeout -k 5 60 srt doctor --backend=linux-landlock >/dev/null 2>&1 && have_landlock=1
if [ $have_landlock = 1 ]; then
	check "quick start: refused with --backend=linux-landlock" demo --backend=linux-landlock
else
	skip "this kernel offers no Landlock"
fi
phase "quick start"

# 4: the integration tests, as root, against the installed srt (one TAP line each, renumbered, naming the script)
if [ -z "$BUILDDIR" ] || [ ! -x "$BUILDDIR/tests/helpers/sysprobe" ]; then
	skip "no BUILDDIR with the test programs built: the integration tests did not run against the packages"
else
	TSRC=$(sed -n 's/^abs_top_srcdir = //p' "$BUILDDIR/Makefile")
	suite_pass=0 suite_fail=0 suite_skip=0
	# PKG_TEST_JOBS scripts at a time (default 4): they mostly wait on
	# sandboxes starting, and the escape and sanitizer passes run them
	# side by side as root too. Each one's output and exit code go to
	# files, read back below in the scripts' order.
	mkdir -p "$T/suite"
	run_one() { # run_one SCRIPT: its output in $T/suite/NAME.out, exit code in .rc
		local o
		o=$T/suite/$(basename "$1" .sh)
		(cd /tmp && env -u SRT_BACKEND_DIR -u SRT_FILTER_DIR -u SRT_HELPER_DIR top_builddir="$BUILDDIR" top_srcdir="$TSRC" \
			SRT_TEST_SRT=/usr/bin/srt SRT_TEST_MODULES="$MODDIR" \
			timeout -k 10 300 bash "$1") >"$o.out" 2>&1
		echo $? >"$o.rc"
	}
	export -f run_one
	export T BUILDDIR TSRC MODDIR
	# The scripts that put each installed file to work, the longest first
	# (started last, they alone would set the step's length): the proxy
	# in libsrt0 with the filters of srt-filter-audit, -body-limit, -exec
	# and -rules (0624, 0623, 0301, 0302); srt, its modules directory and
	# its options (0001, 0610); the violations the helper reports (0003);
	# libsrt-dev's headers, library and pkg-config file (0002);
	# linux_bwrap.so with srt-linux-init (0101, 0102, 0104, 0201, 0203);
	# srt-connect (0304); srt-tls (0307, 0309); srt-filter-credentials
	# (0308); linux_landlock.so with srt-landlock-exec (0401, 0402, 0404);
	# the choice among the installed backends (0405). The language
	# bindings, which need srt-service, are not packaged (0620 and 0621
	# skip themselves here).
	PKG_TESTS=${PKG_TESTS:-0624-filters-proxy 0301-net-proxy 0203-init-failclosed 0003-violations
		0001-cli 0002-library 0104-fs-mandatory 0201-init-isolation 0307-net-tls-terminate
		0309-net-tls-clients 0401-landlock-fs 0102-fs-reads 0308-net-credentials 0402-landlock-net
		0405-auto-backend 0302-net-dns 0610-cli-options 0623-filters-settings 0101-fs-writes
		0304-net-ssh 0404-landlock-helper}
	if [ "$PKG_TESTS" = all ]; then
		PKG_TESTS=$(cd "$TSRC/tests/integration" && ls [0-9]*.sh | sed 's/\.sh$//')
	fi
	scripts=
	for script in $PKG_TESTS; do
		if [ -f "$TSRC/tests/integration/$script.sh" ]; then
			scripts="$scripts $TSRC/tests/integration/$script.sh"
		else
			not_ok "installed: PKG_TESTS names $script, which is not in tests/integration"
		fi
	done
	[ -n "$scripts" ] && printf '%s\0' $scripts | xargs -0 -n1 -P"${PKG_TEST_JOBS:-4}" bash -c 'run_one "$1"' run_one
	for t in $(printf '%s\n' $scripts | LC_ALL=C sort); do
		name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
		out=$(cat "$T/suite/$(basename "$t" .sh).out" 2>/dev/null)
		rc=$(cat "$T/suite/$(basename "$t" .sh).rc" 2>/dev/null || echo 1)
		printf '%s\n' "$out" | sed "s|^|$name: |" >>"$LOG/suite.log"
		while IFS= read -r line; do
			case "$line" in
			"ok "*"# SKIP"*) skip "installed: $name:${line#*# SKIP}"; suite_skip=$((suite_skip + 1)) ;;
			"ok "*) ok "installed: $name:${line#ok [0-9]* -}"; suite_pass=$((suite_pass + 1)) ;;
			"not ok "*"# TODO"*) skip "installed: $name: TODO:${line#not ok [0-9]* -}"; suite_skip=$((suite_skip + 1)) ;;
			"not ok "*) not_ok "installed: $name:${line#not ok [0-9]* -}"; suite_fail=$((suite_fail + 1)) ;;
			esac
		done <<<"$out"
		if ! grep -qE '^1\.\.[0-9]+' <<<"$out"; then
			not_ok "installed: $name: no TAP plan (exit $rc)"; suite_fail=$((suite_fail + 1))
		elif [ $rc != 0 ] && ! grep -q '^not ok' <<<"$out"; then
			not_ok "installed: $name: exited $rc"; suite_fail=$((suite_fail + 1))
		fi
	done
	echo "# installed: $suite_pass passed, $suite_fail failed, $suite_skip skipped (output: $LOG/suite.log)"
fi
phase "integration tests against the packages"

# 5: srt + libsrt0 + one backend package is enough
installed_set() {
	dpkg-query -W -f '${Package} ${Status}\n' $ALL 2>/dev/null |
		awk '$NF == "installed" { print $1 }' | LC_ALL=C sort | tr '\n' ' '
}
# alone_run BACKEND-PACKAGE: a sandboxed command through the automatic
# choice works (or, without Landlock, srt refuses and runs nothing)
alone_run() {
	local mark="$T/alone-ran"
	rm -f "$mark"
	if [ "$1" = srt-backend-linux-landlock ] && [ $have_landlock = 0 ]; then
		(cd /tmp && timeout -k 5 60 srt -c "touch $mark") >/dev/null 2>&1
		test ! -e "$mark"
	else
		demo
	fi
}
dpkg -r $(others_than srt-backend-linux-landlock) >"$LOG/alone.log" 2>&1
check "srt + libsrt0 + srt-backend-linux-landlock alone are installed ($(installed_set))" \
	test "$(installed_set)" = "libsrt0 srt srt-backend-linux-landlock "
check "with srt-backend-linux-landlock alone: the quick start's read is refused$([ $have_landlock = 0 ] && echo ' (no Landlock: srt refuses and runs nothing)')" \
	alone_run srt-backend-linux-landlock
dpkg -i "$(deb srt-backend-linux-bwrap)" >>"$LOG/alone.log" 2>&1 && dpkg -r srt-backend-linux-landlock >>"$LOG/alone.log" 2>&1
check "srt + libsrt0 + srt-backend-linux-bwrap alone are installed ($(installed_set))" \
	test "$(installed_set)" = "libsrt0 srt srt-backend-linux-bwrap "
check "with srt-backend-linux-bwrap alone: the quick start's read is refused" alone_run srt-backend-linux-bwrap
dpkg -i "$(deb srt-backend-linux-landlock)" "$(deb libsrt-dev)" >>"$LOG/alone.log" 2>&1
phase "one backend package at a time"

# 6: purge; no path the packages held is left (but the directories that
# existed before, like /usr/bin), and nothing new named srt under /etc
# (dpkg -L names the root directory "/.")
for p in $ALL; do dpkg -L "$p" 2>/dev/null; done | grep -vxF '/.' | LC_ALL=C sort -u >"$T/listed"
check "dpkg -L lists the files of the five packages before the purge ($(wc -l <"$T/listed") paths)" \
	test "$(grep -c "^$MODDIR/" "$T/listed")" -ge 5
dpkg -P $ALL >"$LOG/purge.log" 2>&1
rc=$?
installed=0
[ $rc = 0 ] || sed 's/^/# /' "$LOG/purge.log"
check "dpkg -P purges them (exit $rc)" test $rc = 0
left=""
for p in $ALL; do
	dpkg -L "$p" >/dev/null 2>&1 && left="$left $p"
done
check "dpkg -L knows none of them any more${left:+ (still:$left)}" test -z "$left"
cat "$T/listed" "$T/deb-paths" | LC_ALL=C sort -u |
	while IFS= read -r p; do
		{ [ -e "$p" ] || [ -L "$p" ]; } && ! grep -qxF "$p" "$T/existed" && echo "$p"
	done >"$T/left"
sed 's/^/# left: /' "$T/left" | head -20
check "no path the packages installed is left ($(wc -l <"$T/left") left)" test ! -s "$T/left"
find /etc -name '*srt*' 2>/dev/null | LC_ALL=C sort >"$T/etc-after"
check "nothing named srt is left under /etc" cmp -s "$T/etc-before" "$T/etc-after"
files=$(ls -d /usr/lib/*/srt /usr/lib/*/libsrt.so* /usr/bin/srt /usr/include/srt /usr/share/doc/srt \
	/usr/share/man/man1/srt.1.gz /usr/share/bash-completion/completions/srt 2>/dev/null | tr '\n' ' ')
check "none of /usr/lib/*/srt, libsrt, /usr/bin/srt, the headers, the docs, man, completion${files:+: $files}" test -z "$files"
phase "purge"

# the /usr/local copy back, byte for byte
if [ $local_saved = 1 ]; then
	if restore_local && [ "$(local_copy)" = "$(cat "$T/usr-local-srt.list")" ]; then
		ok "the /usr/local copy is back ($(wc -l <"$T/usr-local-srt.list") paths)"
	else
		not_ok "the /usr/local copy is back"
	fi
fi
finish
