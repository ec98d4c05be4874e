#!/bin/bash
# Escape class H1 (linux-bwrap), red team: the host removes a denied
# directory that lies in a write root (allowWrite "~", denyRead "~/.ssh";
# `rm -rf ~/.ssh`, then a tool that makes it again: ssh-keygen, `mkdir -p
# ~/.ssh` and a key written in it). Its cover is a mount on the removed
# directory and goes with it, and the name is free in the write root: the
# command, spinning on symlink(~/proj/mine, ~/.ssh) (reported, never
# refused: the monitor lets creating calls go on to the mounts, and there
# is no mount at the name any more), puts a link to a directory of its own
# there. The watcher covers the link (in the sandbox only); on the host the
# tool's `mkdir -p` follows it, and the new key is written into the
# command's directory, where the command reads it. The link stays on the
# host after the run, so every later key goes there too.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
from below import spin
p = sys.argv[1]
ssh = os.path.join(os.environ["HOME"], ".ssh")
mine = os.path.join(p, "mine")
os.mkdir(mine)
open(p + "/ready", "w").close()
# until the host has made the directory again (then the name is taken)
made, _ = spin(lambda: os.symlink(mine, ssh), until=p + "/written")
res = open(p + "/res", "a")
if made:
    res.write("linked\n")
for i in range(200):
    if os.path.exists(p + "/written"):
        break
    time.sleep(0.05)
for n in os.listdir(mine):
    try:
        res.write(open(os.path.join(mine, n)).read())
    except OSError:
        pass
res.write("done\n")
PYEOF

srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
sleep 0.3
# the host: the directory removed, and made again a moment later by a
# tool that writes a new key in it
rm -rf "$HOME/.ssh"
sleep 0.2
mkdir -p "$HOME/.ssh"
echo "NEW-KEY-$CANARY" > "$HOME/.ssh/id_new"
touch "$P/written"
end_bg "$pid" 150
diag "probe: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "host ~/.ssh: $(ls -ld "$HOME/.ssh")"
diag "summary: $(grep deny "$WORK/bg.out" | tr '\n' ' ')"
attempt H1 "the host removes and remakes the denied ~/.ssh in a write root: the probe ran to its end" \
	grep -qx done "$P/res"
attempt H1 "the host removes and remakes the denied ~/.ssh in a write root: the command puts no link at the name" \
	test ! -L "$HOME/.ssh"
attempt H1 "the host removes and remakes the denied ~/.ssh in a write root: the new key is not read" \
	no_leak "$P/res"
echo "1..$_tap_n"
