#!/bin/bash
# linux-landlock, network: no namespace, so the command must not reach a
# loopback TCP server, a UDP listener or a Unix socket on the host. The
# listeners run on the host and record every connection they accept.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/landlock-lib.sh"

plan 13

S=$(settings "$DEFAULT_SETTINGS")
if ! out=$(ll_run -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	for i in $(seq 13); do skip "linux-landlock cannot run here: $(head -1 "$WORK/err")"; done
	exit 0
fi
if [ ! -x "$PY" ]; then
	for i in $(seq 13); do skip "no $PY for the listeners"; done
	exit 0
fi

# Host listeners on 127.0.0.1 (TCP and UDP, ephemeral ports) and a Unix
# socket; each writes a line to LOG per connection or datagram.
LOG="$WORK/accepted"
: > "$LOG"
cat > "$WORK/listen.py" <<'EOF'
import os, socket, sys, threading
log, ready, upath = sys.argv[1], sys.argv[2], sys.argv[3]
def note(what):
    with open(log, "a") as f:
        f.write(what + "\n")
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
x = socket.socket(socket.AF_UNIX); x.bind(upath); x.listen(8)
def acc(s, name):
    while True:
        c, _ = s.accept(); note(name); c.close()
def udp():
    while True:
        u.recvfrom(100); note("udp")
for fn, a in ((acc, (t, "tcp")), (acc, (x, "unix")), (udp, ())):
    threading.Thread(target=fn, args=a, daemon=True).start()
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (t.getsockname()[1], u.getsockname()[1]))
os.rename(ready + ".tmp", ready)
threading.Event().wait(60)
EOF
USOCK="$WORK/host.sock"
"$PY" "$WORK/listen.py" "$LOG" "$WORK/ports" "$USOCK" &
LPID=$!
trap 'main_shell || exit; kill $LPID 2>/dev/null; _cleanup' EXIT
for i in $(seq 100); do [ -s "$WORK/ports" ] && break; sleep 0.05; done
read -r TPORT UPORT < "$WORK/ports"

# the listeners work from outside the sandbox (so the checks below can fail)
"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $TPORT)).close()"
for i in $(seq 50); do grep -q tcp "$LOG" && break; sleep 0.05; done
check "control: the host TCP listener records connections" grep -q tcp "$LOG"
: > "$LOG"

ll_run -s "$S" -c "exec 3<>/dev/tcp/127.0.0.1/$TPORT && echo connected" >"$WORK/o" 2>/dev/null
sleep 0.2
check "direct TCP connection to a loopback server is blocked" test ! -s "$LOG" -a ! -s "$WORK/o"
ll_run -s "$S" -c "$PY -c 'import socket; socket.create_connection((\"::1\", $TPORT))'" 2>/dev/null
ll_run -s "$S" -c "$PY -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"x\", (\"127.0.0.1\", $UPORT))'" 2>/dev/null
sleep 0.2
check "IPv6 TCP and UDP datagrams do not reach the host" test ! -s "$LOG"
out=$(ll_run -s "$S" -c "$PY -c 'import socket; socket.socket()'" 2>&1)
check "socket(AF_INET) fails with EPERM" grep -q 'Operation not permitted' <<<"$out"
out=$(ll_run -s "$S" -c "$PY -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)'" 2>&1)
check "socket(AF_NETLINK) fails with EPERM" grep -q 'Operation not permitted' <<<"$out"

ll_run -s "$S" -c "$PY -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$USOCK\")'" >"$WORK/o" 2>&1
sleep 0.2
check "socket(AF_UNIX) blocked: the host Unix socket saw nothing" test ! -s "$LOG"
check "socket(AF_UNIX) fails with EPERM" grep -q 'Operation not permitted' "$WORK/o"
out=$(ll_run -s "$S" -c "$PY -c 'import socket; a,b=socket.socketpair(); a.send(b\"ok\"); print(b.recv(2).decode())'" 2>/dev/null)
check "socketpair(AF_UNIX) still works" test "$out" = ok

# allowAllUnixSockets lifts the AF_UNIX rule but never io_uring, whose
# IORING_OP_SOCKET would make sockets behind seccomp's back (425 is
# io_uring_setup in the unified syscall table)
A=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
ll_run -s "$A" -c "$PY -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$USOCK\")'" 2>/dev/null
for i in $(seq 50); do grep -q unix "$LOG" && break; sleep 0.05; done
check "allowAllUnixSockets: the host Unix socket is reachable" grep -q unix "$LOG"
out=$(ll_run -s "$A" -c "$PY -c 'import ctypes; l=ctypes.CDLL(None, use_errno=True); b=ctypes.create_string_buffer(120); print(l.syscall(425, 4, b), ctypes.get_errno())'" 2>/dev/null)
check "allowAllUnixSockets: io_uring_setup still fails with EPERM" test "$out" = "-1 1"
out=$(ll_run -s "$A" -c "$PY -c 'import socket; socket.socket()'" 2>&1)
check "allowAllUnixSockets: socket(AF_INET) still fails with EPERM" grep -q 'Operation not permitted' <<<"$out"

# allowedDomains needs the proxy, which linux-landlock cannot bridge yet
N=$(settings '{"network":{"allowedDomains":["example.com"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
ll_run -s "$N" -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "allowedDomains is refused before the command runs" test "$rc" = 1 -a ! -e "$WORK/ran"
check "the refusal says the proxy cannot be reached" grep -qi "proxy" "$WORK/err"
