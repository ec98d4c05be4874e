#!/bin/bash
# Escape class: IPC with host processes (I1, I2, I4).
# Host listeners log whatever reaches them and must log nothing: a
# pathname Unix socket, an abstract socket, a FIFO outside the write roots
# (a read-only mount does not stop writing into a FIFO, as it does not
# stop connect()), a SysV message queue of the same user (IPC namespace),
# and a POSIX message queue. allowUnixSockets naming one socket must open
# only that one, or be refused before anything runs.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
PIDS=
trap 'main_shell || exit; for p in $PIDS; do kill $p 2>/dev/null; done; _cleanup' EXIT

cat > "$WORK/listen.py" <<'PYEOF'
import os, socket, sys, time
kind, where, log = sys.argv[1:4]
if kind == "fifo":
    os.mkfifo(where)
    open(log + ".up", "w").close()
    fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK)
    end = time.time() + 60
    while time.time() < end and not os.path.exists(log + ".stop"):
        try:
            d = os.read(fd, 4096)
        except BlockingIOError:
            d = b""
        if d:
            open(log, "ab").write(d)
        time.sleep(0.05)
    sys.exit(0)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(where if kind == "path" else "\0" + where)
s.listen(8)
s.settimeout(0.2)
open(log + ".up", "w").close()
end = time.time() + 60
while time.time() < end and not os.path.exists(log + ".stop"):
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    open(log, "ab").write(b"connection\n")
    c.close()
PYEOF
listen() { # listen KIND WHERE LOG
	"$PY" "$WORK/listen.py" "$1" "$2" "$3" & PIDS="$PIDS $!"
	wait_for "$3.up" 50
}
A="$WORK/a.sock"; B="$WORK/b.sock"; ABS="srt-esc-$$-$RANDOM"; FIFO="$HOME/outside/ctl.fifo"
listen path "$A" "$WORK/a.log"; listen path "$B" "$WORK/b.log"
listen abstract "$ABS" "$WORK/abs.log"; listen fifo "$FIFO" "$WORK/fifo.log"

# control: the listeners do log a host client (else the checks prove nothing)
"$PY" -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('$A'); s=socket.socket(socket.AF_UNIX); s.connect('\0$ABS')"
for i in $(seq 50); do [ -s "$WORK/a.log" ] && [ -s "$WORK/abs.log" ] && break; sleep 0.1; done
attempt I1 "control: the host's own clients are logged" test -s "$WORK/a.log" -a -s "$WORK/abs.log"
rm -f "$WORK/a.log" "$WORK/abs.log"

# I1/I2: every client we have, from inside
srt__run -s "$S" -c "
	socat -u OPEN:/etc/hostname UNIX-CONNECT:$A; socat -u OPEN:/etc/hostname ABSTRACT-CONNECT:$ABS
	/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$A\")'
	/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0$ABS\")'
	curl -s --max-time 2 --unix-socket $A http://x/; $ESYS i386-socketcall
	true" >/dev/null 2>&1
sleep 0.3
attempt I1 "the host pathname socket logged no connection" test ! -e "$WORK/a.log"
attempt I2 "the host abstract socket logged no connection" test ! -e "$WORK/abs.log"

# a FIFO is IPC through the filesystem: read-only mounts do not cover it
srt__run -s "$S" -c "echo PWN-FIFO > $FIFO; /usr/bin/python3 -c 'import os; os.write(os.open(\"$FIFO\", os.O_WRONLY|os.O_NONBLOCK), b\"PWN-FIFO2\")'; true" >/dev/null 2>&1
sleep 0.3
attempt I1 "a host FIFO outside the write roots received nothing ($(cat "$WORK/fifo.log" 2>/dev/null | tr '\n' ' '))" \
	test ! -s "$WORK/fifo.log"
# opened for reading and writing: with denyRead set the violation monitor
# makes that open for the command (it reads), and it did so outside the
# Landlock layer that refuses the write-only one (red team: both wrote)
srt__run -s "$S" -c "/usr/bin/python3 -c 'import os; os.write(os.open(\"$FIFO\", os.O_RDWR), b\"PWN-RDWR\")'; sh -c 'echo PWN-RDWR2 1<>$FIFO'; true" >/dev/null 2>&1
sleep 0.3
attempt I1 "a host FIFO outside the write roots opened O_RDWR received nothing ($(cat "$WORK/fifo.log" 2>/dev/null | tr '\n' ' '))" \
	test ! -s "$WORK/fifo.log"

# SysV and POSIX message queues of the same user
cat > "$WORK/ipc.py" <<'PYEOF'
import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
class M(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 128)]
op, key = sys.argv[1], int(sys.argv[2])
if op == "create":
    q = l.msgget(key, 0o1000 | 0o600)
    m = M(1, sys.argv[3].encode())
    sys.exit(q < 0 or l.msgsnd(q, ctypes.byref(m), len(sys.argv[3]) + 1, 0) != 0)
elif op == "attack":
    q = l.msgget(key, 0)
    if q >= 0:
        m = M()
        if l.msgrcv(q, ctypes.byref(m), 128, 0, 0o4000) > 0:
            print("read", m.mtext.decode(errors="replace"))
        l.msgsnd(q, ctypes.byref(M(2, b"PWN")), 4, 0o4000)
    name = ("/" + sys.argv[3]).encode()
    mq = ctypes.CDLL("librt.so.1", use_errno=True).mq_open(name, 2)  # O_RDWR
    print("mq_open", mq)
elif op == "drain":
    q = l.msgget(key, 0)
    m, out = M(), []
    while q >= 0 and l.msgrcv(q, ctypes.byref(m), 128, 0, 0o4000) > 0:
        out.append(m.mtext.decode())
    l.msgctl(q, 0, None)
    print(" ".join(out))
PYEOF
K=$(( 0x5e700000 + $$ % 65536 ))
MQ="srt-esc-$$"
if "$PY" "$WORK/ipc.py" create "$K" "CANARY-IPC-$$"; then
	"$PY" -c "import ctypes; ctypes.CDLL('librt.so.1').mq_open(b'/$MQ', 0o100 | 2, 0o600, None)" 2>/dev/null
	srt__run -s "$S" -c "/usr/bin/python3 $WORK/ipc.py attack $K $MQ" >"$WORK/out" 2>&1
	left=$("$PY" "$WORK/ipc.py" drain "$K")
	"$PY" -c "import ctypes; ctypes.CDLL('librt.so.1').mq_unlink(b'/$MQ')" 2>/dev/null
	attempt I1 "a host SysV message queue cannot be read from inside" sh -c "! grep -q 'CANARY-IPC' '$WORK/out'"
	attempt I1 "nothing was sent into the host queue (queue holds: $left)" test "$left" = "CANARY-IPC-$$"
	attempt I1 "a host POSIX message queue cannot be opened ($(grep mq_open "$WORK/out"))" grep -q '^mq_open -1' "$WORK/out"
else
	skip "I1 no SysV message queues on this host"; skip "I1 no SysV message queues on this host"
	skip "I1 no SysV message queues on this host"
fi

# I1 through the bridge: the proxy directory below a write root with a
# directory between (TMPDIR inside the project). The command renames that
# directory away, makes the path again and puts a link to a host socket
# where the proxy socket was: the in-sandbox bridge must still reach only
# srt's proxy, never the host socket (review finding: it connected by path)
rm -f "$WORK/a.log"
N=$(fsjson bridge "$S0_FS" '{"allowedDomains":["127.0.0.1"],"deniedDomains":[]}')
mkdir -p "$P/tmpd/sub"
( cd "$P" && TMPDIR="$P/tmpd/sub" srt__run -s "$N" -c "
	D=\$(ls -d $P/tmpd/sub/srt-* | head -1)
	mv $P/tmpd $P/tmpd.old && mkdir -p \"\$D\" && ln -s $A \"\$D/proxy.sock\" && echo planted
	curl -s -m 3 --noproxy '*' http://127.0.0.1:3128/x; curl -s -m 3 --noproxy '*' http://127.0.0.1:1080/x
	true" ) >"$WORK/bridge.out" 2>&1
sleep 0.3
attempt I1 "bridge: the redirect was set up inside (the attack ran)" grep -q '^planted' "$WORK/bridge.out"
attempt I1 "bridge: a link planted at the proxy socket's path reached no host socket" test ! -e "$WORK/a.log"
rm -rf "$P/tmpd" "$P/tmpd.old"

# I4: allowUnixSockets names one socket: that one only, or refused
U=$(fsjson unix "$S0_FS" "{\"allowedDomains\":[],\"deniedDomains\":[],\"allowUnixSockets\":[\"$A\"]}")
rm -f "$WORK/a.log" "$WORK/b.log" "$P/ran"
srt__run -s "$U" -c "touch ran; /usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$B\")'; /usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0$ABS\")'; true" >/dev/null 2>&1; rc=$?
sleep 0.3
if [ -e "$P/ran" ]; then
	attempt I4 "allowUnixSockets [a]: socket b and the abstract socket stay unreachable" \
		test ! -e "$WORK/b.log" -a ! -e "$WORK/abs.log"
else
	attempt I4 "allowUnixSockets refused before running (rc=$rc)" test "$rc" = 1
fi
touch "$WORK/a.log.stop" "$WORK/b.log.stop" "$WORK/abs.log.stop" "$WORK/fifo.log.stop"

echo "1..$_tap_n"
