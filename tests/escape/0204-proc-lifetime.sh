#!/bin/bash
# Escape class: outliving the sandbox and running unsandboxed
# (K10, K11). Daemons that detach every way a shell can (setsid, double
# fork, ignoring every catchable signal, a new process group) must be gone
# from the host when srt returns, also when srt is SIGKILLed; srt must
# fail closed (never run the command unsandboxed) when its bwrap is
# missing, and must not pick up a bwrap planted by an earlier sandboxed
# run in a directory that is on PATH and inside a write root.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
MARK="srt-esc-$$-$RANDOM"
reap() { local p; for p in $(pgrep -f "$1"); do kill -KILL "$p" 2>/dev/null; done; }

# every detaching trick at once; each daemon is named after MARK
daemons="
	setsid bash -c 'exec -a $MARK-setsid sleep 120' </dev/null >/dev/null 2>&1 &
	( ( exec -a $MARK-dfork sleep 120 ) & ) </dev/null >/dev/null 2>&1
	nohup bash -c 'trap \"\" TERM HUP INT QUIT USR1 USR2; exec -a $MARK-immune sleep 120' </dev/null >/dev/null 2>&1 &
	/usr/bin/python3 -c 'import os, signal, time
os.setpgid(0, 0)
for s in range(1, 32):
    try: signal.signal(s, signal.SIG_IGN)
    except (OSError, ValueError): pass
os.execvp(\"sleep\", [\"$MARK-pgrp\", \"120\"])' </dev/null >/dev/null 2>&1 &
	disown -a
	for i in \$(seq 100); do [ \$(pgrep -f '^$MARK-' | wc -l) -ge 4 ] && break; sleep 0.1; done"
srt__run -s "$S" -c "$daemons; pgrep -f '^$MARK-' | wc -l > started; exit 7" >/dev/null 2>&1; rc=$?
attempt K10 "exit status passes through (rc=$rc)" test "$rc" = 7
started_and_gone() { [ "$(cat "$P/started" 2>/dev/null)" -ge 4 ] 2>/dev/null && gone "$MARK"; }
attempt K10 "no detached daemon ($(cat "$P/started" 2>/dev/null) started) outlives srt (setsid, double fork, signal-immune, own group)" \
	started_and_gone
reap "$MARK"

srt__bg -s "$S" -c "$daemons; touch up; exec -a $MARK-main sleep 120"
R=$!
wait_for "$P/up" 100
# "up" is made before the last exec: its name may come a moment later
for i in $(seq 50); do
	n_up=$(pgrep -f "^$MARK-" | wc -l)
	[ "$n_up" -ge 5 ] && break
	sleep 0.1
done
attempt K10 "srt SIGKILL case: all five daemons were running ($n_up)" test "$n_up" -ge 5
kill -KILL "$R"; wait "$R" 2>/dev/null
attempt K10 "after srt is SIGKILLed no sandboxed process is left" gone "$MARK"
reap "$MARK"

# K11: a bwrap that cannot be found: exit 1, nothing ran
rm -f "$WORK/ran"
B=$(fsjson nobwrap "$S0_FS")
sed -i 's|^{|{"bwrapPath":"/nonexistent/bwrap",|' "$B"
srt__run -s "$B" -c "touch '$WORK/ran'" >/dev/null 2>&1; rc=$?
attempt K11 "missing bwrap: exit 1 and the command did not run (rc=$rc)" test "$rc" = 1 -a ! -e "$WORK/ran"
rm -f "$WORK/ran"
# the binary itself, not libtool's wrapper script (which needs PATH)
LD_LIBRARY_PATH="$SRT_LIBS${LD_LIBRARY_PATH:+${SRT_LIBS:+:}$LD_LIBRARY_PATH}" PATH="/nonexistent" \
	/usr/bin/timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c "/usr/bin/touch '$WORK/ran'" >/dev/null 2>&1; rc=$?
attempt K11 "no bwrap on PATH: exit 1 and the command did not run (rc=$rc)" test ! -e "$WORK/ran" -a "$rc" = 1

# a bwrap planted by an earlier sandboxed run in a write root on PATH (as
# with ~/.local/bin and allowWrite ~): it would run everything unsandboxed
mkdir -p "$P/bin"
srt__run -s "$S" -c "printf '#!/bin/sh\ntouch $WORK/planted-bwrap-ran\nexit 1\n' > bin/bwrap; chmod 755 bin/bwrap" >/dev/null 2>&1
if [ -x "$P/bin/bwrap" ]; then
	PATH="$P/bin:$PATH" timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c true >/dev/null 2>&1
	attempt K11 "a bwrap planted from inside in a PATH directory is not executed" test ! -e "$WORK/planted-bwrap-ran"
else
	attempt K11 "planting a bwrap into the write root failed (nothing to run)" test ! -e "$P/bin/bwrap"
fi

echo "1..$_tap_n"
