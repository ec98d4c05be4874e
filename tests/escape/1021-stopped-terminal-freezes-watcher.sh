#!/bin/bash
# Escape class H1 (linux-bwrap), red teams on 2af4c9e and 82601f2
# (watch.c: stop_run_for, say_lost, own_stderr): the watcher wrote its
# messages to the caller's terminal, which the command shares. The command
# stops the terminal's output (tcflow TCOOFF, as ^S does), stands in
# ~/.ssh.new, and the host moves that directory onto the denied ~/.ssh:
#  - pty: the watcher, about to stop the run, waited on the stopped
#    terminal before its kill, for as long as the command pleased, and
#    covered nothing meanwhile; the command lived on and saw the names
#    the host then made there (failed on 2af4c9e: alive, name seen, the
#    watcher asleep in its write);
#  - /dev/tty: with srt's stderr opened on /dev/tty the watcher cannot
#    open the terminal again (its new session has no controlling
#    terminal), and its line about lost events (the command flooded the
#    queue of its project while the watcher fell behind: stopped by the
#    host here, as 0930 does) waited on the stopped terminal the same way
#    (failed on 82601f2: alive, name seen).
# The watcher now writes through a non-blocking description of its own,
# or to nowhere when it cannot have one, and ends the command before a
# write that could wait.
. "$(dirname "$0")/lib.sh"
need_bwrap
command -v script >/dev/null 2>&1 || {
	skip_rest 9 "no script(1) (util-linux) to give srt a terminal"; echo "1..$_tap_n"; exit 0; }
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, termios, time
from below import look_below, wait_marker
p, home, flood = sys.argv[1], sys.argv[2], int(sys.argv[3])
termios.tcflow(2, termios.TCOOFF)
os.chdir(home + "/.ssh.new")
open(p + "/in", "w").close()
if flood:
    # two files written in turn: one event each, none merged
    wait_marker(p, "flood", 300)
    fds = [os.open(os.path.join(p, x), os.O_WRONLY | os.O_CREAT, 0o644) for x in ("ovf-a", "ovf-b")]
    for i in range(flood):
        os.write(fds[i % 2], b"x")
    open(p + "/flooded", "w").close()
wait_marker(p, "written", 300)
time.sleep(0.3)
with open(p + "/res", "a") as res:
    res.write("alive\n")
    look_below(res, home + "/.ssh", write=False)
PYEOF
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
# stopped_terminal CASE REDIRECT FLOOD: srt under script(1), which gives it
# a terminal of its own (a pty), as an interactive shell has
stopped_terminal() {
	local case=$1 redir=$2 flood=$3 spid wpid c
	rm -rf "$HOME"/.ssh* "$P"/in "$P"/res "$P"/written "$P"/flood "$P"/flooded "$P"/ovf-*
	mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
	script -qfec "$SRT --backend=$BACKEND -s $S -c 'env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME $flood' $redir" \
		/dev/null >"$WORK/tty.out" 2>&1 </dev/null &
	spid=$!
	wait_for "$P/in" 300 || diag "$case: the probe did not start: $(tr -d '\r' < "$WORK/tty.out" | head -c 400)"
	attempt H1 "$case: the probe ran in ~/.ssh.new, the terminal's output stopped" test -e "$P/in"
	if [ "$flood" != 0 ]; then
		wpid=$(find_watcher "$spid")
		attempt H1 "$case: the watcher found" test -n "$wpid"
		# stands for a watcher that falls behind (a loaded machine, or
		# more processes flooding than it keeps up with)
		[ -n "$wpid" ] && kill -STOP "$wpid"
		touch "$P/flood"
		wait_for "$P/flooded" 300
		[ -n "$wpid" ] && kill -CONT "$wpid"
		sleep 1
	fi
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	sleep 1.5
	echo "$CANARY" > "$HOME/.ssh/host-made-name"
	touch "$P/written"
	for _ in $(seq 50); do grep -qs alive "$P/res" && break; sleep 0.1; done
	diag "$case: res: $(cat "$P/res" 2>/dev/null | tr '\n' ' ')"
	attempt H1 "$case: the command does not live on to see the host's new ~/.ssh" \
		sh -c "! grep -qs alive '$P/res'"
	attempt H1 "$case: no name the host makes in the new ~/.ssh is seen" \
		sh -c "! grep -qs stat-sees-name '$P/res'"
	attempt H1 "$case: nothing the host writes there is read" no_leak "$P/res"
	# the terminal's output stays stopped after the command: script(1),
	# srt and what is left below them are ended here, not waited for
	for c in $(descendants "$spid"); do kill -KILL "$c" 2>/dev/null; done
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}
stopped_terminal "stderr on the terminal" "" 0
stopped_terminal "stderr on /dev/tty, the queue flooded" "2>/dev/tty" 40000
echo "1..$_tap_n"
