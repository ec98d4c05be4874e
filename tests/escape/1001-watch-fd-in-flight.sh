#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 28637d4 and 335102c
# (watch.c, unwatch_below): after the host moves a directory onto the
# denied ~/.ssh and the watcher covers it, the watcher takes off every
# inotify watch and fanotify mark it finds in the fdinfo of the command's
# tasks. A descriptor in flight in a Unix socket is in no task's table:
# the command watches the staged ~/.ssh.new, sends its inotify (or
# fanotify) descriptor to itself over a stream socketpair (allowed without
# allowAllUnixSockets, SECURITY.md), closes its own copy, and takes it back
# once the host has moved the directory and made a name there. The watch
# was never seen, so never taken off: the name the host made in the new
# ~/.ssh after the cover arrives in the command's events.
# Left open (TODO): /proc tells no descriptor in flight, as for the
# directory descriptor of 0962; no cheap fix was found (the kernel has no
# call that drops every watch on an inode, and a Unix socket's queue tells
# no descriptor it carries).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, socket, struct, sys
from below import wait_marker
p, stage, kind = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
res = open(p + "/res", "a")
if kind == "fan":
    fd = libc.fanotify_init(0xc00 | 0x2, os.O_RDONLY)  # DFID_NAME | NONBLOCK
    ok = fd >= 0 and libc.fanotify_mark(fd, 1, ctypes.c_uint64(0x100 | 0x40000000), -100, stage.encode()) == 0
else:
    fd = libc.inotify_init1(os.O_NONBLOCK)
    ok = fd >= 0 and libc.inotify_add_watch(fd, stage.encode(), 0x100 | 0x80 | 0x8) >= 0
if not ok:
    res.write("watch-failed %d\n" % ctypes.get_errno()); res.flush()
    sys.exit(0)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
socket.send_fds(a, [b"x"], [fd])
os.close(fd)  # the only reference is now the one in flight
open(p + "/ready", "w").close()
open(p + "/in", "w").close()
wait_marker(p)
_, fds, _, _ = socket.recv_fds(b, 1, 1)
fd = fds[0]
try:
    buf = os.read(fd, 65536)
except BlockingIOError:
    buf = b""
if b"host-made-name" in buf:
    res.write("stat-sees-name\n")
res.write("bytes %d\n" % len(buf))
res.write("done\n")
res.flush()
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for kind in inotify fan; do
	below_stage
	below_run "$S" "a $kind watch in flight" "$P" "$HOME/.ssh.new" "$kind"
	diag "$kind: res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "$kind: srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
	W="$kind descriptor in flight in a socketpair while the watcher looks for watches on the new ~/.ssh"
	below_checks "$W" "a descriptor in flight in a Unix socket is in no process's table (SECURITY.md)"
done
echo "1..$_tap_n"
