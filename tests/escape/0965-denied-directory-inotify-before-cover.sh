#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: it
# looks only for working directories, roots and directory descriptors at or
# below the covered directory; an inotify descriptor is none of these
# (anon_inode:inotify), yet a watch taken before the cover follows the
# directory's inode, not its name. The command watches the staged
# directory (0957: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new ~/.ssh`), or a
# directory it made below it, or puts a fanotify mark on the staged
# directory (allowed without privilege, with names); after the cover, each name the host makes
# in the new ~/.ssh (id_ed25519, authorized_keys, known_hosts...) arrived
# in the command's inotify events, and nothing stopped the run. (0956
# lists this leak among what the cover does not reach.)
# Fixed since: the watcher takes every command watch and mark on the
# covered directory and the directories below it off (the command reads
# IN_IGNORED, as for a removed directory) and lets the run go on, as 0973
# needs for recursive file watchers.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading
from below import note_inotify, wait_marker
p, stage, where = sys.argv[1], sys.argv[2], sys.argv[3]
if where == "sub":
    stage = os.path.join(stage, "sub")
    os.mkdir(stage)
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def fan_holder():
    # a fanotify mark, as a user without privilege may put on an inode:
    # FAN_CREATE of the directory, with each name (FAN_REPORT_DFID_NAME)
    fd = libc.fanotify_init(0xc00 | 0x2, os.O_RDONLY)  # DFID_NAME | NONBLOCK
    if fd < 0 or libc.fanotify_mark(fd, 1, ctypes.c_uint64(0x100 | 0x40000000), -100, stage.encode()) < 0:
        res.write("fanotify-failed %d\n" % ctypes.get_errno()); res.flush()
        return
    open(p + "/in", "w").close()
    wait_marker(p)
    try:
        buf = os.read(fd, 65536)
    except BlockingIOError:
        buf = b""
    if b"host-made-name" in buf:
        res.write("stat-sees-name\n")
    res.write("fan-bytes %d\n" % len(buf))
    res.write("watch-removed\n")  # fanotify says nothing of it: the name is the check
    res.flush()
def holder():
    if where == "fan":
        return fan_holder()
    ifd = libc.inotify_init1(0)
    if ifd < 0 or libc.inotify_add_watch(ifd, stage.encode(), 0x100 | 0x80 | 0x8) < 0:  # CREATE|MOVED_TO|CLOSE_WRITE
        res.write("inotify-failed %d\n" % ctypes.get_errno()); res.flush()
        return
    open(p + "/in", "w").close()
    wait_marker(p)
    os.set_blocking(ifd, False)
    note_inotify(res, ifd, each=True)
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for where in top sub fan; do
	below_stage
	# sub: the host's tool writes below too (~/.aws/sso/cache, ~/.ssh/keys.d)
	BELOW_WRITE=.ssh$([ "$where" = sub ] && echo /sub) \
		below_run "$S" "a watch on ~/.ssh.new" "$P" "$HOME/.ssh.new" "$where"
	diag "$where: res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "$where: srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
	W="inotify watch taken before the cover on the directory moved to the denied ~/.ssh ($where)"
	below_checks "$W"
	attempt H1 "$W: the watch was taken off (IN_IGNORED) and the run went on" \
		sh -c "grep -qx watch-removed '$P/res' && grep -qx done '$P/res'"
done
echo "1..$_tap_n"
