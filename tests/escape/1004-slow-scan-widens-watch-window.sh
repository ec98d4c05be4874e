#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 28637d4 (watch.c,
# unwatch_below): the watcher takes the command's watch off the
# directory the host moved onto the denied ~/.ssh only once its scan of
# /proc reaches the process holding it, after every other process and
# thread was looked at (held_below, then the passes over each task's
# fdinfo, in pid order). Until then each name the host makes in the new
# ~/.ssh is queued in the command's inotify instance, and stays there
# when the watch is taken off. The command makes the scan long: a
# process holds a few thousand descriptors and forks a hundred children
# with a copy of them each (threads sharing one table, as the test had
# first, are listed once since b4fe8ce; a table of its own is listed
# still), and the watch is held by a child forked last (the highest pid,
# looked at last). The host makes a
# name half a second after its mv, as 0965 does: it arrives (failed on
# 335102c and on the code after the fixes of 1001 to 1003).
# Left open (TODO): inotify_rm_watch does not take back what is queued,
# and a pass over every task's descriptors is as long as the command
# makes it; freezing the command during the scan would not help (the
# events queue all the same), draining the queue through the copy would
# take the other watches' events from a recursive watcher.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, resource, signal, sys, time
from below import note_inotify, wait_marker
p, stage = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
res = open(p + "/res", "a")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
n = min(hard, 20000) - 64
fd = os.open("/dev/null", os.O_RDONLY)
for i in range(n):
    try:
        os.dup(fd)
    except OSError:
        break
# processes, each with a copy of the table (threads sharing one table are
# listed once since b4fe8ce), forked before the watching child
kids = []
for i in range(max(20, min(150, 2000000 // max(n, 1)))):
    k = os.fork()
    if k == 0:
        time.sleep(120)
        os._exit(0)
    kids.append(k)
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(w)
    ifd = libc.inotify_init1(os.O_NONBLOCK)
    if ifd < 0 or libc.inotify_add_watch(ifd, stage.encode(), 0x100 | 0x80 | 0x8) < 0:
        res.write("watch-failed %d\n" % ctypes.get_errno()); res.flush()
        os._exit(0)
    os.read(r, 1)  # the parent's bloat is in place
    open(p + "/in", "w").close()
    wait_marker(p)
    note_inotify(res, ifd)
    res.write("done\n")
    res.flush()
    os._exit(0)
open(p + "/ready", "w").close()
os.write(w, b"x")
os.waitpid(child, 0)
for k in kids:
    os.kill(k, signal.SIGKILL)
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
below_stage
below_run "$S" "a watch behind a slow scan" "$P" "$HOME/.ssh.new"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="inotify watch on the directory moved to the denied ~/.ssh, behind a scan made slow"
below_checks "$W" "events queued before the watch is taken off stay in the command's queue, and the scan that finds the watch grows with the command's processes, threads and descriptors (SECURITY.md)"
echo "1..$_tap_n"
