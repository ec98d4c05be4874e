#!/bin/bash
# Escape class H1 (linux-bwrap), red team on held_below (watch.c): whether
# a process's place is at or below the directory the host moved to a
# denied name is told by dir_below, which walks ".." up from that place,
# 4096 steps at most, and took a walk that ran out of steps for "not
# below". The command (0957's `mv ~/.ssh ~/.ssh.new`-style swap,
# allowWrite "~") builds a chain of 4400 directories in a subdirectory of
# the staged directory (four chains of 1100, each short enough for the
# monitor's paths, put one into another with rename) and waits at its
# bottom. The host moves the staged directory onto ~/.ssh and makes a
# file in its subdirectory; the watcher covers ~/.ssh, walks 4096 steps
# up from the command's working directory without reaching the root, and
# lets the run go on. The command climbs back (chdir is not judged) and
# sees the names the host made there.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys
from below import wait_marker
p, stage = sys.argv[1], sys.argv[2]
res = open(p + "/res", "a")
K = 1100
base = stage + "/sub"
def chain(name):
    os.chdir(base)
    os.mkdir(name)
    os.chdir(name)
    for i in range(K):
        os.mkdir("d")
        os.chdir("d")
for x in ("X1", "X2", "X3", "X4"):
    chain(x)
os.chdir(base)
down = "/".join(["d"] * K)
os.rename("X2", "X1/" + down + "/X2")
os.rename("X1", "X3/" + down + "/X1")
os.rename("X3", "X4/" + down + "/X3")
open(p + "/ready", "w").close()
for part in ("X4", down, "X3", down, "X1", down, "X2", down):
    os.chdir(part)
open(p + "/in", "w").close()
wait_marker(p)
up = "/".join([".."] * K)
for part in (up, "..", up, "..", up, "..", up, ".."):
    os.chdir(part)
try:
    os.stat("host-made-name")
    res.write("stat-sees-name\n")
except OSError:
    pass
try:
    with open("host-made-name") as f:
        res.write(f.read())
except OSError:
    pass
res.write("done\n")
PYEOF

below_stage
mkdir -p "$HOME/.ssh.new/sub"
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME/.ssh.new"
pid=$!
wait_for "$P/ready" 300 || diag "the probe did not start: $(cat "$WORK/bg.out")"
wait_for "$P/in" 100 || diag "the probe did not get to the bottom: $(cat "$P/res" 2>/dev/null)"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
settle_watch "$pid"
echo "SECRET-$CANARY" > "$HOME/.ssh/sub/host-made-name"
touch "$P/written"
end_bg "$pid" 150
diag "res: $(tr '\n' ' ' 2>/dev/null < "$P/res")"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="working directory 4400 directories below the directory moved to the denied ~/.ssh"
below_stopped "$W"
attempt H1 "$W: no name the host puts there is seen" sh -c "! grep -qs stat-sees-name '$P/res'"
attempt H1 "$W: no file of it is read" no_leak "$P/res"
echo "1..$_tap_n"
