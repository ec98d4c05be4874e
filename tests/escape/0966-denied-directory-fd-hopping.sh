#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: the
# scan lists /proc/PID/fd, then stats each listed entry, and skips one whose
# stat fails. The command keeps its descriptor of the staged directory
# (0957: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new ~/.ssh`, allowWrite "~")
# hopping among eight numbers (dup2, close) while its working directory
# stays in the project: the number the listing saw is mostly gone by the
# time it is stat()ed. The run goes on, and the command fchdir()s into
# the new ~/.ssh, stats the host's names and writes there. Up to 8 runs
# (here about one in three gets through).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading
from below import look_below
p, stage = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def holder():
    fd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
    nums = list(range(100, 108))
    cur = nums[0]
    os.dup2(fd, cur); os.close(fd)
    open(p + "/in", "w").close()
    while not os.path.exists(p + "/written"):
        for _ in range(5000):
            for nx in nums[1:] + nums[:1]:
                os.dup2(cur, nx); os.close(cur); cur = nx
    os.fchdir(cur)
    look_below(res, ssh)
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for try in $(seq 8); do
	below_stage
	below_run "$S" "its descriptor of ~/.ssh.new" "$P" "$HOME/.ssh.new"
	diag "attempt $try: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	grep -q stat-sees-name "$P/res" 2>/dev/null && break
done
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="directory fd hopping between numbers in the directory moved to the denied ~/.ssh"
below_stopped "$W ($try runs)"
below_checks "$W"
echo "1..$_tap_n"
