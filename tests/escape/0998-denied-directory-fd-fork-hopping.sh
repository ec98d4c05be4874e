#!/bin/bash
# Escape class H1 (linux-bwrap), red team on held_below (watch.c): the
# watcher lists /proc once, then looks at each process it listed. A
# descriptor of the staged directory (0957's swap, allowWrite "~") is
# carried from process to process by fork, each parent ending at once
# (tests/helpers/escape-sys fork-hop): the process the list named is gone
# by the time it is looked at, and the one holding the descriptor then
# was born after the list was read. Nothing is found, the run goes on, and
# the last process enters the new ~/.ssh by the descriptor and sees the
# names the host puts there. Up to 8 runs (about two in three got
# through). /proc/PID/task is read once per process as well, so a thread
# that starts another with a copy of its descriptor table and ends would
# do the same one level down (not tried here).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/look.py" <<'PYEOF'
import os, sys
from below import look_below
p = sys.argv[1]
res = open(p + "/res", "a")
look_below(res, os.path.join(os.environ["HOME"], ".ssh"))
res.write("done\n")
PYEOF
cat > "$WORK/probe.py" <<'PYEOF'
import os, subprocess, sys, time
p, stage, esys, look = sys.argv[1:5]
subprocess.Popen([esys, "fork-hop", stage, p + "/written", sys.executable, look, p])
time.sleep(0.3)
open(p + "/ready", "w").close()
open(p + "/in", "w").close()
for _ in range(150):
    if os.path.exists(p + "/res") and "done" in open(p + "/res").read():
        break
    time.sleep(0.1)
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for try in $(seq 8); do
	below_stage
	below_run "$S" "its descriptor of ~/.ssh.new" "$P" "$HOME/.ssh.new" "$ESYS" "$WORK/look.py"
	diag "attempt $try: $(tr '\n' ' ' 2>/dev/null < "$P/res")"
	grep -qs stat-sees-name "$P/res" && break
done
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="directory descriptor carried by fork from process to process into the directory moved to the denied ~/.ssh"
below_stopped "$W ($try runs)"
below_checks "$W"
echo "1..$_tap_n"
