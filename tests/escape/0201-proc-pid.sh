#!/bin/bash
# Escape class: other processes (K1, K2). The command
# must see and reach only its own process tree: a host process that logs
# every SIGWINCH it gets must log nothing after the command signals every
# pid it can name (kill -1, a sweep over the pid range, pidfd_open); the
# helper above it cannot be traced, read or written; srt itself (host
# pid) cannot be reached either.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
E=$ESYS

# a host process that records any SIGWINCH (default action: ignore, so a
# stray signal elsewhere harms nothing)
"$PY" -c '
import signal, sys, time
def got(s, f):
    open(sys.argv[1], "a").write("winch\n")
signal.signal(signal.SIGWINCH, got)
open(sys.argv[2], "w").write("up")
t = time.time()
while time.time() - t < 60 and not __import__("os").path.exists(sys.argv[3]):
    time.sleep(0.05)
' "$WORK/winch.log" "$WORK/winch.up" "$WORK/winch.stop" &
H=$!
wait_for "$WORK/winch.up"
pidmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
[ "$pidmax" -gt 70000 ] && pidmax=70000
srt__run -s "$S" -c "
	kill -WINCH -1; kill -WINCH $H; kill -WINCH $$ $PPID
	/usr/bin/python3 -c '
import os, signal, sys
mine = 0
for p in range(1, $pidmax):
    try:
        os.kill(p, signal.SIGWINCH if p > 1 else 0)
        mine += 1
    except OSError:
        pass
try:
    fd = os.pidfd_open($H)
    signal.pidfd_send_signal(fd, signal.SIGWINCH)
    print(\"pidfd ok\")
except (OSError, AttributeError) as e:
    print(\"pidfd refused\", e)
print(\"reachable\", mine)
'" >"$WORK/out" 2>&1
sleep 0.3
touch "$WORK/winch.stop"; wait $H
reach=$(sed -n 's/^reachable //p' "$WORK/out")
attempt K2 "the host process got no signal (kill -1, pid sweep to $pidmax, its pid, pidfd)" test ! -e "$WORK/winch.log"
attempt K2 "the pid sweep reached only the command's own tree (reached ${reach:-?})" test -n "$reach" -a "${reach:-99}" -le 6
attempt K2 "pidfd_open of a host pid refused" grep -q '^pidfd refused' "$WORK/out"

# the helper (PID 1 here) and srt: no ptrace, no memory access, no signal
# that kills the sandbox's guard without srt noticing
srt__run -s "$S" -c "$E ptrace-seize-1; $E vm-read-1; $E proc1-environ
	/usr/bin/python3 -c 'import os; os.open(\"/proc/1/mem\", os.O_RDWR)' 2>/dev/null && echo mem-open
	grep -E '^(TracerPid|NoNewPrivs|Seccomp):' /proc/self/status" >"$WORK/out" 2>&1
attempt K1 "PTRACE_SEIZE of the helper refused" grep -q '^ptrace-seize-1 errno=' "$WORK/out"
attempt K1 "process_vm_readv of the helper refused" grep -q '^vm-read-1 errno=' "$WORK/out"
attempt K1 "/proc/1/environ and /proc/1/mem refused" \
	sh -c "grep -q '^proc1-environ errno=' '$WORK/out' && ! grep -q mem-open '$WORK/out'"
MARK="srt-esc-$$-$RANDOM"
srt__run -s "$S" -c "kill -KILL 1; kill -STOP 1; sleep 0.2; (exec -a $MARK sleep 30) & sleep 0.3; exit 3" >/dev/null 2>&1; rc=$?
attempt K10 "signalling the helper leaves no sandboxed process behind (rc=$rc)" gone "$MARK"
for p in $(pgrep -f "$MARK"); do kill -KILL "$p"; done

# K3: setuid and file-capability programs give nothing (no_new_privs)
if is_root; then
	skip "K3 setuid elevation: the caller is root already"
else
	srt__run -s "$S" -c 'for c in "sudo -n id -u" "su -c \"id -u\" root" "pkexec id -u" "newgrp root"; do
		timeout 5 $c </dev/null 2>/dev/null; done; grep "^CapEff:" /proc/self/status' >"$WORK/out" 2>&1
	attempt K3 "no setuid program ran anything as uid 0" sh -c "! grep -qx 0 '$WORK/out'"
	attempt K3 "no effective capability in the command" grep -q '^CapEff:[[:space:]]*0*$' "$WORK/out"
fi

echo "1..$_tap_n"
