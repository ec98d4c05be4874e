#!/bin/bash
# The cleanup guard holds a descriptor of srt's two directories of a run,
# its proxy directory (TMPDIR/srt-<pid>-XXXXXX) and the run's TMPDIR
# (srt-run.XXXXXX), until srt has removed them (guard-main.c, hold_dir).
# The last close of a removed directory frees its inode and block, and on
# ext4 mounted with `discard` that close waits for the disk (0.25 to 0.9 ms
# a directory on the machine bench/README.md describes); held by the guard,
# the wait comes at the guard's exit instead of in srt's end. What must
# stay as it was: srt removes both directories itself before it exits, the
# guard ends soon after srt, and a srt killed mid-run still has both
# removed by the guard. And a TMPDIR its command closed to its owner
# (chmod 000, as an unprivileged user: root reads it anyway) goes all the
# same, at the run's end and after a killed srt; it used to stay for good,
# unmarked, so that no later start's sweep took it either.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
plan 10
export TMPDIR="$WORK/tb"
mkdir -p "$TMPDIR"
S=$(fs s '{"denyRead":[],"allowWrite":[],"denyWrite":[]}')
MARK="30.0$$$RANDOM"
OUT="$WORK/out"

# the run's srt (its command sleeps MARK seconds), its guard, and the
# directories each holds
srt_pid() {
	local p
	for p in $(pgrep -x srt); do grep -qF -- "sleep $MARK" /proc/"$p"/cmdline 2>/dev/null && echo "$p"; done | head -1
}
# srt's children are bwrap and the guard (srt-linux-init --guard, or a
# copy of srt where the orphan work is a callback)
guard_of() {
	local c
	for c in $(pgrep -P "$1"); do [ "$(cat /proc/"$c"/comm 2>/dev/null)" != bwrap ] && echo "$c"; done | head -1
}
dirs_held() { # PID: the directories its descriptors name
	local l
	for l in /proc/"$1"/fd/*; do readlink "$l"; done 2>/dev/null | grep '^/' | sort -u
}
start_run() {
	: > "$OUT"
	srt__run -s "$S" -c "echo \$TMPDIR; exec sleep $MARK" > "$OUT" 2>&1 &
	RUN=$!
	SP="" GP="" RT=""
	for _ in $(seq 100); do
		SP=$(srt_pid)
		[ -n "$SP" ] && GP=$(guard_of "$SP")
		RT=$(head -1 "$OUT")
		[ -n "$GP" ] && [ -n "$RT" ] && break
		sleep 0.1
	done
	# srt's proxy directory: the one of its descriptors below TMPDIR
	PD=$(dirs_held "$SP" | grep -m1 "^$TMPDIR/srt-$SP-")
	# the guard opens what srt names in its records as it reads them
	for _ in $(seq 50); do
		dirs_held "$GP" | grep -qxF -- "$PD" && break
		sleep 0.1
	done
}
end_run() { pkill -f -- "sleep $MARK\$" 2>/dev/null; wait "$RUN" 2>/dev/null; }

# 1-2: while the command runs, the guard holds both directories
start_run
if [ -z "$SP" ] || [ -z "$GP" ] || [ -z "$PD" ] || [ -z "$RT" ]; then
	diag "srt $SP, guard $GP, proxy directory $PD, TMPDIR $RT" "$(cat "$OUT")"
fi
check "the guard holds srt's proxy directory during the run" \
	sh -c '[ -n "$1" ] && [ -d "$1" ] && printf "%s\n" "$2" | grep -qxF -- "$1"' _ "$PD" "$(dirs_held "$GP")"
check "the guard holds the run's TMPDIR during the run" \
	sh -c '[ -n "$1" ] && printf "%s\n" "$2" | grep -qxF -- "$1"' _ "$RT" "$(dirs_held "$GP")"

# 3-4: srt ends normally: both directories are gone when srt has exited
# (srt removed them itself, the guard's references notwithstanding), and
# the guard ends soon after
pkill -f -- "sleep $MARK\$"
wait "$RUN"
check "srt removed its proxy directory before it exited" test -n "$PD" -a ! -e "$PD"
check "srt removed its TMPDIR before it exited" test -n "$RT" -a ! -e "$RT"
for _ in $(seq 50); do
	[ -z "$GP" ] || ! kill -0 "$GP" 2>/dev/null && break
	sleep 0.1
done
check "the guard ended within 5 s of srt" sh -c '[ -n "$1" ] && ! kill -0 "$1" 2>/dev/null' _ "$GP"

# 5-6: srt killed mid-run: the guard, holding both, still removes both
start_run
kill -9 "$SP" 2>/dev/null
for _ in $(seq 100); do
	[ ! -e "$PD" ] && [ ! -e "$RT" ] && break
	sleep 0.1
done
check "killed srt: the guard removed the proxy directory it held" test -n "$PD" -a ! -e "$PD"
check "killed srt: the guard removed the TMPDIR it held" test -n "$RT" -a ! -e "$RT"
end_run

# 7: a removed directory's references are all gone once the guard has
# exited: no process of the run holds either
for _ in $(seq 50); do
	kill -0 "$GP" 2>/dev/null || break
	sleep 0.1
done
left=$(for p in $(pgrep -f -- "srt-linux-init --guard") $(pgrep -x srt); do dirs_held "$p"; done |
	grep -F -e "$PD" -e "$RT" || true)
check "no guard holds either directory after the run" test -z "$left"

# 9-10: the command closes its TMPDIR to its owner (mode 000 also drops
# srt's mark): srt removes it at the run's end, the guard after a killed srt
CLOSED="$WORK/closed"
srt__run -s "$S" -c 'echo $TMPDIR; chmod 000 "$TMPDIR"' > "$CLOSED" 2>&1
RT2=$(head -1 "$CLOSED")
check "a TMPDIR closed with chmod 000 is removed at the run's end" \
	sh -c '[ -n "$1" ] && [ "${1#/}" != "$1" ] && [ ! -e "$1" ]' _ "$RT2"
: > "$CLOSED"
srt__run -s "$S" -c "echo \$TMPDIR; chmod 000 \"\$TMPDIR\"; exec sleep $MARK" > "$CLOSED" 2>&1 &
RUN=$!
SP="" RT3=""
for _ in $(seq 100); do
	SP=$(srt_pid)
	RT3=$(head -1 "$CLOSED")
	[ -n "$SP" ] && [ -n "$RT3" ] && [ "$(stat -c %a "$RT3" 2>/dev/null)" = 0 ] && break
	sleep 0.1
done
kill -9 "$SP" 2>/dev/null
for _ in $(seq 100); do
	[ -n "$RT3" ] && [ ! -e "$RT3" ] && break
	sleep 0.1
done
check "killed srt: the guard removes a TMPDIR closed with chmod 000" \
	sh -c '[ -n "$1" ] && [ "${1#/}" != "$1" ] && [ ! -e "$1" ]' _ "$RT3"
end_run
for d in "$RT2" "$RT3"; do
	[ -n "$d" ] && [ -e "$d" ] && chmod 700 "$d" && rm -rf "$d"
done
true
