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
import ctypes, os, sys, threading, time
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
    for i in range(200):
        if os.path.exists(p + "/written"):
            break
        time.sleep(0.05)
    try:
        os.stat(ssh + "/host-made-name")
    except OSError:
        res.write("full-path-covered\n")
    try:
        os.stat("host-made-name")
        res.write("stat-sees-name\n")
    except OSError:
        pass
    try:
        res.write(open("host-made-name").read())
    except OSError:
        pass
    try:
        fd = os.open("authorized_keys", os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, b"ssh-ed25519 AAAA planted-by-the-command\n")
        os.close(fd)
        res.write("planted\n")
    except OSError:
        pass
    res.flush()
open(p + "/ready", "w").close()
t = threading.Thread(target=holder)
t.start()
t.join()
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
wait_for "$P/in" 50 || diag "the probe's thread did not enter ~/.ssh.new: $(cat "$P/res" 2>/dev/null)"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 0.5 # the watcher's cover is on the new ~/.ssh by now
echo "SECRET-$CANARY" > "$HOME/.ssh/host-made-name"
touch "$P/written"
end_bg "$pid" 150
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
attempt H1 "thread with its own cwd (unshare CLONE_FS) in the directory moved to the denied ~/.ssh: srt stopped the run" \
	sh -c "grep -qE 'had entered or opened before srt covered it again|cannot tell whether a process of the command is inside' '$WORK/bg.out' && ! grep -qx done '$P/res'"
attempt H1 "thread with its own cwd in the directory moved to the denied ~/.ssh: no name the host puts there is seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "thread with its own cwd in the directory moved to the denied ~/.ssh: no file of it is read" \
	no_leak "$P/res"
attempt H1 "thread with its own cwd in the directory moved to the denied ~/.ssh: nothing is written into it on the host" \
	test ! -e "$HOME/.ssh/authorized_keys"
echo "1..$_tap_n"
