#!/bin/bash
# Escape class: loader tricks. An LD_PRELOAD given to srt also loads into
# srt-linux-init, which installs the filters before the command runs; a
# hostile library there interposes libseccomp's seccomp_load. Whatever it
# does, the command must either still run under its filters (no_new_privs,
# seccomp mode 2, AF_UNIX refused, nested user namespaces refused, the
# secret hidden) or not run at all. LD_PRELOAD and LD_LIBRARY_PATH set by
# the command itself for a child change nothing either.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
E=$ESYS
if [ ! -f "$PRELOAD" ]; then
	skip "loader: tests/helpers/.libs/escape-preload.so not built"; echo "1..$_tap_n"; exit 0
fi
# in a sanitizer build the library itself links libasan, and ASan refuses
# to start in any process where its runtime is not the first library
# loaded: put libasan first then, so the library still loads everywhere
# (srt, srt-linux-init, the command) ahead of libseccomp
PRE=$PRELOAD
asan=$(ldd "$PRELOAD" 2>/dev/null | awk '$1 ~ /^libasan/ {print $3; exit}')
[ -n "$asan" ] && PRE="$asan:$PRELOAD"
probe="touch ran; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\t ' ' '; $E socket-unix-cloexec; $E unshare-user-net; cat ~/.ssh/id_canary"
# judge MODE: the command did not run, or ran with every layer
judge() {
	local m=$1
	if [ ! -e "$P/ran" ]; then
		attempt LD "$m: srt refused to run the command" true
		return
	fi
	attempt LD "$m: the command still has no_new_privs and a seccomp filter" \
		sh -c "grep -q '^NoNewPrivs: 1' '$WORK/out' && grep -q '^Seccomp: 2' '$WORK/out'"
	attempt LD "$m: AF_UNIX still refused" grep -q '^socket-unix-cloexec errno=' "$WORK/out"
	attempt LD "$m: nested user namespaces still refused" grep -q '^unshare-user-net errno=' "$WORK/out"
	attempt LD "$m: the secret still hidden" no_leak "$WORK/out"
}
for mode in log all later; do
	rm -f "$P/ran" "$WORK/preload.log"
	skipv=$mode; [ "$mode" = log ] && skipv=
	SRT_ESCAPE_PRELOAD_LOG="$WORK/preload.log" SRT_ESCAPE_PRELOAD_SKIP="$skipv" LD_PRELOAD="$PRE" \
		srt__run -s "$S" -c "$probe" >"$WORK/out" 2>&1
	[ "$mode" = log ] && attempt LD "control: the library did load (into $(grep -c loaded "$WORK/preload.log" 2>/dev/null) processes)" \
		grep -q loaded "$WORK/preload.log"
	judge "preload ($mode)"
	grep 'seccomp_load' "$WORK/preload.log" 2>/dev/null | awk '{print $2, $3, $4, $5}' | sort | uniq -c | sed 's/^/# /'
done

# the command's own loader games for its children
rm -f "$P/ran"
srt__run -s "$S" -c "export SRT_ESCAPE_PRELOAD_SKIP=all LD_PRELOAD=$PRE LD_LIBRARY_PATH=$P; $probe" >"$WORK/out" 2>&1
judge "LD_PRELOAD set inside"

echo "1..$_tap_n"
