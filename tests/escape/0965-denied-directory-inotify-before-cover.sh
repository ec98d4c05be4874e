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
import ctypes, os, sys, threading, time
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
    for i in range(200):
        if os.path.exists(p + "/written"):
            break
        time.sleep(0.05)
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

rm -rf "$HOME"/.ssh* "$P/ready" "$P/in" "$P/written" "$P/res"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
echo "$CANARY" > "$HOME/.ssh/id_canary"
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
srt__bg -s "$S" -c "$PY $WORK/probe.py $P $HOME/.ssh.new"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
wait_for "$P/in" 50 || diag "the probe did not watch ~/.ssh.new: $(cat "$P/res" 2>/dev/null)"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 0.5 # the watcher's cover is on the new ~/.ssh by now
echo "SECRET-$CANARY" > "$HOME/.ssh/host-made-name"
touch "$P/written"
end_bg "$pid" 150
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
open_route "an inotify watch taken before the cover tells the new names; srt does not stop a run for one, as every recursive file watcher would trip it (SECURITY.md)" H1 "inotify watch taken before the cover in the directory moved to the denied ~/.ssh: srt stopped the run" \
	sh -c "grep -qE 'had entered or opened before srt covered it again|cannot tell whether a process of the command is inside' '$WORK/bg.out' && ! grep -qx done '$P/res'"
open_route "an inotify watch taken before the cover tells the new names; srt does not stop a run for one, as every recursive file watcher would trip it (SECURITY.md)" H1 "inotify watch taken before the cover in the directory moved to the denied ~/.ssh: no name the host puts there is seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "inotify watch taken before the cover in the directory moved to the denied ~/.ssh: no file of it is read" \
	no_leak "$P/res"
attempt H1 "inotify watch taken before the cover in the directory moved to the denied ~/.ssh: nothing is written into it on the host" \
	test ! -e "$HOME/.ssh/authorized_keys"
echo "1..$_tap_n"
