# Shared helpers for integration tests (sourced). Each test script prints TAP.
#
# Environment set by the Makefile (AM_TESTS_ENVIRONMENT) or tests/run:
#   top_builddir, top_srcdir   absolute paths of the build and source trees
#   SRT_TEST_USER              name of the user this run is for (informational)
# Every test gets a fresh world-traversable WORK directory with a fake HOME
# (WORK/home) holding a canary secret at ~/.ssh/id_canary, and cd's into
# WORK/proj (a directory the command may write when the settings say so).

set -u
# the test's own directory, absolute: lib.sh cd's into WORK below, after
# which a relative $0 (make distcheck's ../../tests/...) no longer resolves
TESTDIR=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"

# The srt under test: the build tree's, or an installed copy when
# SRT_TEST_SRT names its srt and SRT_TEST_MODULES the directory of its
# backend modules and their helpers (tests/packages/check.sh runs the
# scripts against the Debian packages that way). The test helpers
# (sysprobe, escape-sys, ...) always come from the build tree.
#   SRT              the srt binary (never libtool's wrapper script)
#   SRT_LIBS         what LD_LIBRARY_PATH the real binary needs (build tree)
#   BACKEND          the linux-bwrap module; BACKEND_LL the linux-landlock one
#   INIT_HELPER      srt-linux-init; LL_HELPER srt-landlock-exec
#   MODULE_TREE      a directory holding the modules' helpers
# libtool_binary PROGRAM: in a build tree (SRT_LIBS set, see below), the
# binary libtool's wrapper script PROGRAM runs (DIR/.libs/NAME); else, or
# when PROGRAM is not a wrapper, PROGRAM itself
libtool_binary() {
	local real
	real="$(dirname "$1")/.libs/$(basename "$1")"
	if [ -n "$SRT_LIBS" ] && [ -x "$real" ]; then echo "$real"; else echo "$1"; fi
}
if [ -n "${SRT_TEST_SRT:-}" ]; then
	SRT=$SRT_TEST_SRT
	SRT_LIBS=
	BACKEND="$SRT_TEST_MODULES/linux_bwrap.so"
	BACKEND_LL="$SRT_TEST_MODULES/linux_landlock.so"
	INIT_HELPER="$SRT_TEST_MODULES/srt-linux-init"
	LL_HELPER="$SRT_TEST_MODULES/srt-landlock-exec"
	MODULE_TREE=$SRT_TEST_MODULES
else
	SRT_LIBS="$top_builddir/.libs"
	# In a build tree the programs linked with libsrt (srt, the helpers
	# wrap-run, filter-run, ask-run) are libtool's wrapper scripts: each
	# only puts .libs first on LD_LIBRARY_PATH and execs the binary in
	# .libs, but with four execs and a dozen forks on the way: about
	# 100 ms of CPU a run on a 2-CPU test machine, paid by every srt run
	# of every pass. The scripts run the binaries themselves
	# (libtool_binary) with that LD_LIBRARY_PATH exported, so that srt
	# and its children find the same libraries as under the wrapper.
	export LD_LIBRARY_PATH="$SRT_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	SRT=$(libtool_binary "$top_builddir/srt")
	BACKEND="$top_builddir/backends/linux-bwrap/.libs/linux_bwrap.so"
	BACKEND_LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
	INIT_HELPER="$top_builddir/backends/linux-bwrap/srt-linux-init"
	LL_HELPER="$top_builddir/backends/linux-landlock/srt-landlock-exec"
	MODULE_TREE=$top_builddir
fi
SYSPROBE="$top_builddir/tests/helpers/sysprobe"

_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=1; echo "not ok $_tap_n - $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
diag() { printf '# %s\n' "$@" | sed 's/^# # /# /'; }
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

WORK=$(mktemp -d /tmp/srt-it.XXXXXX)
chmod 755 "$WORK"
export HOME="$WORK/home"
mkdir -p "$HOME/.ssh" "$WORK/proj"
echo "CANARY-SECRET-$$" > "$HOME/.ssh/id_canary"
chmod 700 "$HOME/.ssh"; chmod 600 "$HOME/.ssh/id_canary"
CANARY=$(cat "$HOME/.ssh/id_canary")
cd "$WORK/proj"
# A copy of this shell that bash forked for a background command runs the
# EXIT trap too when a signal ends it before its exec (a test's kill -INT
# right after the `&`: 0208's sweep once removed its own $WORK so, and
# every later check failed). Only the script's own shell cleans up: each
# script's EXIT trap starts with `main_shell || exit;`. The process asks
# the kernel who it is (/proc/self, read without a fork): in a copy caught
# that early, $$ and even $BASHPID may still give the script's pid
# (tests/integration/0006-harness-traps.sh saw both).
read -r _main_shell _ </proc/self/stat
main_shell() { local me; read -r me _ </proc/self/stat; [ "$me" = "$_main_shell" ]; }
_cleanup() { main_shell || return 0; cd /; rm -rf "$WORK" 2>/dev/null || true; }
trap _cleanup EXIT

# settings JSON: writes $WORK/settings.json and echoes its path
settings() { printf '%s\n' "$1" > "$WORK/settings.json"; echo "$WORK/settings.json"; }
DEFAULT_SETTINGS='{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}'

# srt__run [srt options] -- ...: run srt with the built backend, 30 s cap
srt__run() { timeout -k 5 30 "$SRT" --backend="$BACKEND" "$@"; }

is_root() { [ "$(id -u)" = 0 ]; }

# need_bwrap_sandbox: the filesystem scripts need a host that can run the
# linux-bwrap backend at all; elsewhere the whole script is one skip.
# srt's own failures past this point are real failures, not skips.
need_bwrap_sandbox() {
	if [ ! -e "$BACKEND" ] || ! bwrap --ro-bind / / --unshare-user --unshare-pid --dev /dev true 2>/dev/null; then
		echo "1..0 # SKIP linux-bwrap backend not built or bubblewrap cannot create a sandbox here"
		exit 0
	fi
}
# fs NAME FILESYSTEM-JSON: writes $WORK/NAME.json (no network allowed),
# echoes its path
fs() { printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":%s}\n' "$2" > "$WORK/$1.json"; echo "$WORK/$1.json"; }
# libsrt_cc OUT SRC: build the C program SRC against the libsrt under test
# (the build tree's, or with SRT_TEST_SRT the installed one, through
# pkg-config), with the sanitizers when that libsrt was built with them;
# cc's messages in $WORK/cc.err
libsrt_cc() {
	local flags san=
	if [ -n "${SRT_TEST_SRT:-}" ]; then
		flags=$(pkg-config --cflags --libs srt 2>/dev/null)
	else
		flags="-I$top_srcdir/include -L$SRT_LIBS -Wl,-rpath,$SRT_LIBS -lsrt"
	fi
	ldd "$SRT" 2>/dev/null | grep -q libasan && san="-fsanitize=address,undefined"
	cc $san -o "$1" "$2" $flags -lpthread 2>"$WORK/cc.err"
}
# no_canary FILE: the canary string is absent from FILE
no_canary() { ! grep -q "$CANARY" "$1"; }
