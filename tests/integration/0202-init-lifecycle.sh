#!/bin/bash
# In-sandbox helper, process lifecycle (K10): exit status
# passes through, forwarded signals reach the command, nothing sandboxed
# outlives srt (not even when srt itself is SIGKILLed), and what the command
# did to the caller's terminal is undone. Every "gone" check looks at the
# host's process table for a marker unique to this run.
. "$(dirname "$0")/lib.sh"

plan 20
S=$(settings "$DEFAULT_SETTINGS")
MARK="srt-it-$$-$RANDOM$RANDOM"

# wait_for FILE: up to 10 s
wait_for() { local i; for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
# finish PID: its exit status, SIGKILLing it if it is still there after 15 s
finish() {
	local i
	for i in $(seq 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}
# gone PATTERN: no host process has PATTERN in its command line (5 s grace:
# srt returns before the killed processes of its sandbox are reaped)
gone() { local i; for i in $(seq 50); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done; return 1; }

srt__run -s "$S" -c 'exit 7' >/dev/null 2>&1; rc=$?
check "K10 exit 7 -> 7 (rc=$rc)" test "$rc" = 7
srt__run -s "$S" -c 'kill -TERM $$' >/dev/null 2>&1; rc=$?
check "K10 kill -TERM \$\$ -> 143 (rc=$rc)" test "$rc" = 143
srt__run -s "$S" -c 'kill -9 $$' >/dev/null 2>&1; rc=$?
check "K10 kill -9 \$\$ -> 137 (rc=$rc)" test "$rc" = 137
srt__run -s "$S" -- /nonexistent/srt-no-such-command >/dev/null 2>"$WORK/err"; rc=$?
check "command not found -> 127 (rc=$rc)" test "$rc" = 127
printf 'not executable\n' > "$WORK/proj/noexec.sh"; chmod 644 "$WORK/proj/noexec.sh"
srt__run -s "$S" -- "$WORK/proj/noexec.sh" >/dev/null 2>&1; rc=$?
check "command not executable -> 126 (rc=$rc)" test "$rc" = 126

# K10: a setsid'd daemon is gone when the command exits
rm -f "$WORK/proj/up"
srt__run -s "$S" -c "setsid sh -c 'echo up > up; sleep 300; :' $MARK-daemon </dev/null >/dev/null 2>&1 & for i in \$(seq 100); do [ -e up ] && break; sleep 0.1; done; exit 7" >/dev/null 2>&1; rc=$?
check "K10 daemon case exits 7 (rc=$rc)" test "$rc" = 7
check "K10 the daemon did start inside" test -e "$WORK/proj/up"
check "K10 no daemon left on the host" gone "$MARK-daemon"

# srt SIGKILLed: bwrap dies with its parent, the sandbox with bwrap
rm -f "$WORK/proj/up"
"$SRT" --backend="$BACKEND" -s "$S" -c "sh -c 'echo up > up; sleep 300; :' $MARK-killed" >/dev/null 2>&1 &
R=$!
wait_for "$WORK/proj/up"
check "srt SIGKILL case: the command started" test -e "$WORK/proj/up"
kill -KILL "$R"
wait "$R" 2>/dev/null
check "srt SIGKILLed: no sandboxed process left" gone "$MARK-killed"
# if it failed, do not leave the leftovers running (the marker is unique)
for p in $(pgrep -f "$MARK-killed"); do kill -KILL "$p" 2>/dev/null; done

# Forwarded signals reach the command, which decides the exit status.
sig_case() {
	local sig=$1 code=$2 rc
	rm -f "$WORK/proj/ready" "$WORK/proj/got"
	"$SRT" --backend="$BACKEND" -s "$S" -c "trap 'echo $sig > got; exit $code' $sig; echo > ready; while :; do sleep 0.1; done" >/dev/null 2>&1 &
	local pid=$!
	if ! wait_for "$WORK/proj/ready"; then
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		not_ok "SIG$sig: the command never got ready"
		return
	fi
	kill -"$sig" "$pid"
	finish "$pid"; rc=$?
	check "SIG$sig sent to srt reaches the command's trap (got '$(cat "$WORK/proj/got" 2>/dev/null)', rc=$rc)" \
		test "$(cat "$WORK/proj/got" 2>/dev/null)" = "$sig" -a "$rc" = "$code"
}
sig_case TERM 41
sig_case INT 42
sig_case HUP 43
sig_case USR1 44
sig_case USR2 45
sig_case QUIT 46

# An untrapped SIGTERM kills the command: 128+15
rm -f "$WORK/proj/ready"
"$SRT" --backend="$BACKEND" -s "$S" -c "echo > ready; exec sleep 300" >/dev/null 2>&1 &
pid=$!
wait_for "$WORK/proj/ready"
sleep 0.2
kill -TERM "$pid"; finish "$pid"; rc=$?
check "untrapped SIGTERM -> 143 (rc=$rc)" test "$rc" = 143

# a command that stopped itself: a terminating signal to srt still ends it
# (timeout(1) sends TERM, then CONT to srt only)
start=$(date +%s)
timeout 2 "$SRT" --settings "$S" -c 'kill -STOP $$; echo resumed' >/dev/null 2>&1; rc=$?
took=$(( $(date +%s) - start ))
check "a stopped command is ended by timeout's SIGTERM (rc=$rc, ${took}s)" test "$rc" = 124 -a "$took" -le 5

# The caller's terminal: modes the command changes (stty -echo) and output
# it suspends (tcflow TCOOFF) do not outlive the run (srt is in the
# terminal's foreground group: timeout --foreground)
if command -v script >/dev/null; then
	timeout -k 5 60 script -qec "timeout --foreground 30 $SRT --backend=$BACKEND -s $S -c 'stty -echo; python3 -c \"import termios; termios.tcflow(0, termios.TCOOFF)\"'; timeout 5 echo after-srt; echo rc=\$? > $WORK/tty.rc; stty -a > $WORK/tty.stty" /dev/null </dev/null >/dev/null 2>&1
	check "suspended output does not outlive the run ($(cat "$WORK/tty.rc" 2>/dev/null))" \
		test "$(cat "$WORK/tty.rc" 2>/dev/null)" = rc=0
	check "changed terminal modes do not outlive the run" grep -q ' echo ' "$WORK/tty.stty"
else
	skip "no script(1) to give srt a terminal"
	skip "no script(1) to give srt a terminal"
fi
