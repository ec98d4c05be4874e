#!/bin/bash
# valgrind memcheck over the proxy's tests: tests/unit/test-proxy and the
# fault driver (the proxy hosted in-process, 100 tunnels under valgrind).
# Zero errors and zero definitely-lost blocks are required; each program's
# own TAP must pass under valgrind as well. Skipped without valgrind and
# for sanitizer builds (the two cannot be combined).
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$top_srcdir/tests/fault/fault-lib.sh"

PROGS="tests/unit/test-proxy tests/helpers/fault-proxy"
plan 4
VG=$(command -v valgrind)
skip_all() { local i; for i in 1 2 3 4; do skip "$1"; done; exit 0; }
[ -n "$VG" ] || skip_all "valgrind is not installed"
for p in $PROGS; do
	[ -x "$top_builddir/$p" ] || skip_all "$p is not built (make check builds it)"
	grep -qa '__asan_init\|__tsan_init' "$top_builddir/$p" && skip_all "sanitizer build: valgrind cannot run it"
done

# vg_run PROG TIMEOUT [VAR=VALUE...]: memcheck one program, log in $WORK
vg_run() {
	local p=$1 t=$2 name log rc errs lost bad
	shift 2
	name=$(basename "$p")
	log="$WORK/$name.vg"
	env "$@" timeout -k 10 "$t" "$VG" --error-exitcode=1 --leak-check=full \
		--errors-for-leak-kinds=definite --suppressions="$top_srcdir/tests/fault/valgrind.supp" \
		--log-file="$log" "$top_builddir/$p" >"$WORK/$name.tap" 2>&1
	rc=$?
	# one summary per process: the unit tests run each case in a forked
	# child, which writes to the same log; every summary counts
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" |
		awk '{ s += $1; n++ } END { if (n) print s }')
	lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d , |
		awk '{ s += $1; n++ } END { if (n) print s }')
	bad=$(grep -c '^not ok' "$WORK/$name.tap")
	if [ "${errs:-x}" = 0 ] && [ "${lost:-0}" = 0 ]; then
		ok "$name under memcheck: no error, no definite leak ($(grep -c '^ok' "$WORK/$name.tap") TAP lines passed)"
	else
		not_ok "$name under memcheck: ${errs:-no summary (exit $rc)} errors, ${lost:-0} bytes definitely lost"
		grep -E '^==[0-9]+== (  (at|by) |[A-Z][a-z]+ |Invalid|Conditional|Syscall|[0-9,]+ bytes)' "$log" | head -40 | sed 's/^/# /'
	fi
	if [ "$bad" = 0 ] && grep -q '^1\.\.' "$WORK/$name.tap" && [ $rc -ne 124 ] && [ $rc -ne 137 ]; then
		ok "$name's own tests pass under valgrind"
	else
		not_ok "$name's own tests under valgrind: $bad failed, exit $rc"
		grep '^not ok' "$WORK/$name.tap" | head -10 | sed 's/^/# /'
	fi
}

# valgrind keeps descriptors above the soft limit it starts with for
# itself and lets the program go no higher: raise it first (1,000 tunnels
# need about 4,000)
ulimit -S -n "$(ulimit -H -n)" 2>/dev/null
start=$SECONDS
vg_run tests/unit/test-proxy 240
vg_run tests/helpers/fault-proxy 120 FAULT_TUNNELS=${FAULT_VG_TUNNELS:-100} FAULT_ALARM=110
diag "valgrind runs took $((SECONDS - start)) s"
exit 0
