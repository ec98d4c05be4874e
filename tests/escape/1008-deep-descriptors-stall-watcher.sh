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
# below, which the scan finds): walks stop at one met before. The scan
# still takes most of a second for these descriptors (more under a
# sanitizer or a loaded machine: the sanitizer pass of CI saw ~/.aws's
# names with the host's second of delay), and the host now makes the new
# ~/.aws a fifth of a second after its mv: the watcher covers denied names
# that arrive while it scans without waiting for the scan to end (failed
# on 1e9463b, names seen).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import sys
from below import hold_deep, watch_aws
p, deep, aws = sys.argv[1], sys.argv[2], sys.argv[3]
res = open(p + "/res", "a")
res.write("fds %d\n" % hold_deep(deep)); res.flush()
open(p + "/in", "w").close()
watch_aws(res, p, aws, 15)
PYEOF
S=$(fsjson s "$S0_FS")
rm -rf "$HOME"/.ssh* "$P/in" "$P/res" "$P/aws-made"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
echo "$CANARY" > "$HOME/.ssh/id_canary"
make_deep "$P/deep"
srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $P/deep $HOME/.aws"
pid=$!
stall_swap "$pid" 300
attempt H1 "thousands of descriptors 4,000 levels down the project: the new ~/.aws's names are not seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "thousands of descriptors 4,000 levels down the project: the run is not stopped for them" \
	sh -c "grep -qx done '$P/res' && ! grep -qE '$STOPPED_RE' '$WORK/bg.out'"
echo "1..$_tap_n"
