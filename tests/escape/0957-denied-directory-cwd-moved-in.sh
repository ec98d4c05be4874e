#!/bin/bash
# Escape class H1 (linux-bwrap), red team: 0956 without the race. When the
# directory the host puts at a denied name was somewhere the command could
# go before (0954's RENAME_EXCHANGE with ~/pub; or a tool that prepares
# ~/.ssh.new and renames it over: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new
# ~/.ssh`), the command simply makes that directory its working directory
# first. The watcher covers the denied name again, but a cover is a mount
# on the name's dentry, and "." is below it: whatever the host then puts in
# the new ~/.ssh is stat-able by its name relative to "." (stat and chdir
# are no calls the monitor judges; opens by path are still refused), and
# in a write root (allowWrite "~") the command writes into it on the host
# (a write open is only reported), e.g. ~/.ssh/authorized_keys.
# So the watcher, once it has covered a directory at a denied name, looks
# for a process of the command whose working directory, root or a
# directory descriptor is at or below it, and stops the run, saying why.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
from below import look_below, wait_marker
p, stage, write = sys.argv[1], sys.argv[2], sys.argv[3] == "write"
ssh = os.path.join(os.environ["HOME"], ".ssh")
open(p + "/ready", "w").close()
inside = False
for i in range(200):
    try:
        os.chdir(stage)
        inside = True
        break
    except OSError:
        time.sleep(0.05)
res = open(p + "/res", "a")
if inside:
    open(p + "/in", "w").close()
wait_marker(p)
look_below(res, ssh, write)
res.write("done\n")
PYEOF

for swap in exchange staged; do
	below_stage
	rm -rf "$HOME/pub"
	if [ "$swap" = exchange ]; then
		stage="$HOME/pub" mode=names
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
	else
		stage="$HOME/.ssh.new" mode=write
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	fi
	mkdir -p "$stage"
	srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $stage $mode"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not enter $stage"
	"$PY" - "$HOME" "$swap" <<'PYEOF'
import ctypes, os, sys
home, swap = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(home, ".ssh")
if swap == "exchange":
    if libc.renameat2(-100, ssh.encode(), -100, os.path.join(home, "pub").encode(), 2) != 0:
        sys.exit("renameat2 RENAME_EXCHANGE: errno %d" % ctypes.get_errno())
else:
    os.rename(ssh, ssh + ".old")
    os.rename(ssh + ".new", ssh)
PYEOF
	below_host_writes "$pid"
	diag "$swap: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "summary: $(grep deny "$WORK/bg.out" | tr '\n' ' ')"
	below_stopped "cwd in the directory the host puts at the denied ~/.ssh ($swap)"
	below_checks "cwd in the directory the host puts at the denied ~/.ssh ($swap)"
done
echo "1..$_tap_n"
