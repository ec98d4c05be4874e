#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 2af4c9e (watch.c,
# stop_run_for): the watcher wrote its message to the caller's terminal,
# which the command shares, before it ended the run. The command stops
# the terminal's output (tcflow TCOOFF, as ^S does), stands in ~/.ssh.new,
# and the host moves that directory onto the denied ~/.ssh: the watcher,
# about to stop the run, waited on the stopped terminal for as long as the
# command pleased, covered nothing meanwhile, and the command saw the
# names the host then made there (failed on 2af4c9e: the command alive
# after the host's write, the name seen, the watcher asleep in its
# write). The watcher now writes through a non-blocking description of
# its own, and ends the command before any write that could wait.
. "$(dirname "$0")/lib.sh"
need_bwrap
command -v script >/dev/null 2>&1 || { skip_rest 3 "no script(1) (util-linux) to give srt a terminal"; echo "1..$_tap_n"; exit 0; }
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, termios, time
from below import wait_marker
p, home = sys.argv[1], sys.argv[2]
termios.tcflow(2, termios.TCOOFF)
os.chdir(home + "/.ssh.new")
open(p + "/in", "w").close()
wait_marker(p, "written", 300)
time.sleep(0.3)
with open(p + "/res", "a") as res:
    res.write("alive\n")
    try:
        os.stat("host-made-name")
        res.write("stat-sees-name\n")
    except OSError:
        pass
PYEOF
rm -rf "$HOME"/.ssh* "$P/in" "$P/res" "$P/written"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
# script(1) gives srt a terminal of its own (a pty), as an interactive
# shell has
script -qfec "$SRT --backend=$BACKEND -s $S -c 'env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME'" \
	/dev/null >"$WORK/tty.out" 2>&1 </dev/null &
spid=$!
wait_for "$P/in" 300 || diag "the probe did not start: $(tr -d '\r' < "$WORK/tty.out" | head -c 400)"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 1.5
echo "$CANARY" > "$HOME/.ssh/host-made-name"
touch "$P/written"
for _ in $(seq 50); do grep -qs alive "$P/res" && break; sleep 0.1; done
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
attempt H1 "output of the terminal stopped by the command: the probe ran in ~/.ssh.new" test -e "$P/in"
attempt H1 "output of the terminal stopped by the command, the watcher about to stop the run: the command does not live on to see the host's new ~/.ssh" \
	sh -c "! grep -qs alive '$P/res'"
attempt H1 "output of the terminal stopped by the command: no name the host makes in the new ~/.ssh is seen" \
	sh -c "! grep -qs stat-sees-name '$P/res'"
# the terminal's output stays stopped after the command: script(1) and
# srt are ended here, not waited for
kill "$spid" 2>/dev/null
pkill -KILL -P "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
echo "1..$_tap_n"
