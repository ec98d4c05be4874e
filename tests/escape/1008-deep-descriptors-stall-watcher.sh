#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce979f6 (watch.c,
# dir_below): each directory descriptor and working directory of the
# command is walked up by ".." to the root (at most 4,096 steps) to tell
# whether it is below the directory the host moved onto a denied name,
# once per descriptor, every round, in each of the scans. The command
# holds a few thousand descriptors of one directory 4,000 levels down its
# project: millions of steps, a minute in which the watcher covers
# nothing else. The host replaces the denied ~/.aws meanwhile (`aws
# configure`): its new names are seen by stat, which the monitor does not
# judge (failed on ce979f6: names seen, the watcher busy for long).
# A directory walked up to the root in a scan is known not to be below
# (it cannot be moved there after the cover but by a process already
# below, which the scan finds): walks stop at one met before.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import os, resource, sys, time
from below import wait_marker
p, deep, aws = sys.argv[1], sys.argv[2], sys.argv[3]
res = open(p + "/res", "a")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
os.chdir(deep)
for i in range(4000):
    os.chdir("d")
fd = os.open(".", os.O_PATH | os.O_DIRECTORY)
n = 1
for i in range(min(hard, 5000) - 64):
    try:
        os.dup(fd); n += 1
    except OSError:
        break
res.write("fds %d\n" % n); res.flush()
open(p + "/in", "w").close()
wait_marker(p, "aws-made", 400)
end, seen = time.time() + 15, False
while time.time() < end:
    try:
        os.stat(aws + "/host-made-name")
        if not seen:
            res.write("stat-sees-name\n"); res.flush()
        seen = True
    except OSError:
        pass
    time.sleep(0.05)
res.write("done\n")
res.close()
PYEOF
S=$(fsjson s "$S0_FS")
rm -rf "$HOME"/.ssh* "$P/in" "$P/res" "$P/aws-made" "$P/deep"
mkdir -p "$P/deep"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
echo "$CANARY" > "$HOME/.ssh/id_canary"
"$PY" -c '
import os, sys
os.chdir(sys.argv[1])
for i in range(4000):
    os.mkdir("d"); os.chdir("d")
' "$P/deep"
srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $P/deep $HOME/.aws"
pid=$!
wait_for "$P/in" 300 || diag "the probe did not start: $(cat "$WORK/bg.out")"
t0=$(date +%s)
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 1
mv "$HOME/.aws" "$HOME/.aws.old"
mkdir "$HOME/.aws"
echo "CANARY-AWS-$$" > "$HOME/.aws/host-made-name"
touch "$P/aws-made"
end_bg "$pid" 300
t1=$(date +%s)
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null), $((t1 - t0)) s"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
attempt H1 "thousands of descriptors 4,000 levels down the project: the new ~/.aws's names are not seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "thousands of descriptors 4,000 levels down the project: the run is not stopped for them" \
	sh -c "grep -qx done '$P/res' && ! grep -qE '$STOPPED_RE' '$WORK/bg.out'"
echo "1..$_tap_n"
