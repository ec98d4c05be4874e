#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: it
# looks only for working directories, roots and directory descriptors at or
# below the covered directory; an inotify descriptor is none of these
# (anon_inode:inotify), yet a watch taken before the cover follows the
# directory's inode, not its name. The command watches the staged
# directory (0957: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new ~/.ssh`); after
# the cover, each name the host makes in the new ~/.ssh (id_ed25519,
# authorized_keys, known_hosts...) arrives in the command's inotify
# events, and nothing stops the run. (0956 lists this leak among what the
# cover does not reach.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading
from below import wait_marker
p, stage = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def holder():
    import struct
    ifd = libc.inotify_init1(0)
    if ifd < 0 or libc.inotify_add_watch(ifd, stage.encode(), 0x100 | 0x80 | 0x8) < 0:  # CREATE|MOVED_TO|CLOSE_WRITE
        res.write("inotify-failed %d\n" % ctypes.get_errno()); res.flush()
        return
    open(p + "/in", "w").close()
    wait_marker(p)
    os.set_blocking(ifd, False)
    try:
        buf = os.read(ifd, 65536)
    except BlockingIOError:
        buf = b""
    while buf:
        wd, mask, cookie, ln = struct.unpack("iIII", buf[:16])
        name = buf[16:16 + ln].rstrip(b"\0").decode()
        if name == "host-made-name":
            res.write("stat-sees-name\n")
        res.write("event %s\n" % name)
        buf = buf[16 + ln:]
    res.flush()
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

below_stage
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
below_run "$S" "a watch on ~/.ssh.new" "$P" "$HOME/.ssh.new"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
WHY="an inotify watch taken before the cover tells the new names; srt does not stop a run for one, as every recursive file watcher would trip it (SECURITY.md)"
W="inotify watch taken before the cover in the directory moved to the denied ~/.ssh"
below_stopped "$W" "$WHY"
below_checks "$W" "$WHY"
echo "1..$_tap_n"
