#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: the
# watcher, after covering a directory that arrived at a denied name, looks
# at /proc/PID/cwd, /proc/PID/root and /proc/PID/fd of each command
# process; those are the thread-group leader's. A thread that does
# unshare(CLONE_FS) has a working directory of its own (shown only in
# /proc/PID/task/TID/cwd): it enters the staged directory (0957's
# `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new ~/.ssh`, allowWrite "~"), the
# leader stays in the project. held_below finds nothing, the run goes on,
# and the thread sees and writes the names the host puts in the new ~/.ssh.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading
from below import look_below, wait_marker
p, stage = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def holder():
    if libc.unshare(0x200) != 0:  # CLONE_FS: a working directory of its own
        res.write("unshare-failed %d\n" % ctypes.get_errno()); res.flush()
        return
    os.chdir(stage)
    open(p + "/in", "w").close()
    wait_marker(p)
    look_below(res, ssh)
open(p + "/ready", "w").close()
t = threading.Thread(target=holder)
t.start()
t.join()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

below_stage
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
below_run "$S" "its thread into ~/.ssh.new" "$P" "$HOME/.ssh.new"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="thread with its own cwd (unshare CLONE_FS) in the directory moved to the denied ~/.ssh"
below_stopped "$W"
below_checks "$W"
echo "1..$_tap_n"
