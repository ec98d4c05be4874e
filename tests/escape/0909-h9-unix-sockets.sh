#!/bin/bash
# Escape class H9: network.allowUnixSockets. Under linux-landlock the listed
# socket path can be connected to and every other Unix socket stays
# refused: another path, the same server through a link of the command's
# making, an abstract address, a datagram socket or pair (which can
# sendto() any path), and a sockaddr another thread rewrites while the
# connect is in flight. linux-bwrap, which cannot allow single paths yet,
# refuses the setting instead of ignoring it. Each line asserts on the host
# servers' logs or on a marker file.
. "$(dirname "$0")/lib.sh"
LL=$BACKEND_LL
BW=$BACKEND
ll() { timeout -k 5 60 "$SRT" --backend="$LL" "$@"; }
U="$WORK/u"
mkdir -p "$U" "$WORK/proj"
cd "$WORK/proj" || exit 1
# two host servers: each logs every connection it accepts
cat > "$WORK/srv.py" <<'EOF'
import os, socket, sys, threading, time
def serve(path):
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(64)
    open(path + ".ready", "w").close()
    while True:
        c, _ = s.accept()
        with open(path + ".log", "a") as f: f.write("hit\n")
        try:
            c.sendall(b"HELLO\n")
        except OSError:
            pass
        c.close()
for p in sys.argv[1:]:
    threading.Thread(target=serve, args=(p,), daemon=True).start()
time.sleep(120)
EOF
"$PY" "$WORK/srv.py" "$U/ok.sock" "$U/no.sock" & SRV=$!
trap 'kill $SRV 2>/dev/null; _cleanup' EXIT
wait_for "$U/ok.sock.ready" && wait_for "$U/no.sock.ready" || diag "the host servers did not start"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}' \
	"{\"allowedDomains\":[],\"deniedDomains\":[],\"allowUnixSockets\":[\"$U/ok.sock\"]}")
if ! out=$(ll -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 7 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi

cat > "$WORK/cli.py" <<'EOF'
import socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(p); print("connected", p, s.recv(16))
    except OSError as e:
        print("refused", p, e.errno)
EOF
ll -s "$S" -c "$PY $WORK/cli.py $U/ok.sock" >"$WORK/ok.out" 2>&1
attempt H9 "the listed socket path is connected to" \
	sh -c "grep -q HELLO '$WORK/ok.out' && test -s '$U/ok.sock.log'"

ln -s "$U/no.sock" "$WORK/proj/planted.sock"
ll -s "$S" -c "$PY $WORK/cli.py $U/no.sock $U/../u/no.sock ./planted.sock" >"$WORK/no.out" 2>&1
attempt H9 "another socket path, another spelling and a link of the command's: refused" \
	test ! -e "$U/no.sock.log"

cat > "$WORK/other.py" <<'EOF'
import socket
def tryit(what, f):
    try:
        f(); print("MADE", what)
    except OSError as e:
        print("refused", what, e.errno)
def abstract():
    s = socket.socket(socket.AF_UNIX); s.connect(b"\0srt-h9-abstract")
tryit("abstract", abstract)
tryit("dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
tryit("dgram pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
a, b = socket.socketpair(); a.send(b"x"); print("stream pair", b.recv(1))
EOF
"$PY" -c 'import socket,time,sys
s=socket.socket(socket.AF_UNIX); s.bind(b"\0srt-h9-abstract"); s.listen(4); s.settimeout(8)
try:
    s.accept(); open(sys.argv[1],"w").write("hit")
except OSError: pass' "$WORK/abstract.hit" & AB=$!
sleep 0.3
ll -s "$S" -c "$PY $WORK/other.py" >"$WORK/other.out" 2>&1
kill $AB 2>/dev/null; wait $AB 2>/dev/null
attempt H9 "an abstract socket of the host is not reached" test ! -e "$WORK/abstract.hit"
attempt H9 "datagram sockets and datagram pairs are refused" \
	sh -c "! grep -q MADE '$WORK/other.out' && grep -q \"stream pair b'x'\" '$WORK/other.out'"
attempt H9 "the refusals are reported" grep -q "deny connect $U/no.sock" "$WORK/no.out"

# another thread flips the address between the allowed path and another
cat > "$WORK/race.py" <<'EOF'
import ctypes, socket, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def addr(p): return struct.pack("H", socket.AF_UNIX) + p.encode() + b"\0" * (108 - len(p))
good, bad = addr(sys.argv[1]), addr(sys.argv[2])
buf = ctypes.create_string_buffer(good, len(good))
stop = False
def flip():
    while not stop:
        ctypes.memmove(buf, bad, len(bad)); ctypes.memmove(buf, good, len(good))
t = threading.Thread(target=flip); t.start()
for i in range(300):
    s = socket.socket(socket.AF_UNIX)
    libc.connect(s.fileno(), buf, len(good)); s.close()
stop = True; t.join()
EOF
ll -s "$S" -c "$PY $WORK/race.py $U/ok.sock $U/no.sock" >"$WORK/race.out" 2>&1
attempt H9 "a sockaddr rewritten during the connect never reaches the other socket" \
	test ! -e "$U/no.sock.log"

rm -f "$WORK/bw.marker"
timeout -k 5 60 "$SRT" --backend="$BW" -s "$S" -c "touch $WORK/bw.marker" >"$WORK/bw.out" 2>&1
rc=$?
attempt H9 "linux-bwrap refuses the setting (runs nothing) instead of ignoring it" \
	sh -c "test $rc -ne 0 && test ! -e '$WORK/bw.marker' && grep -q allowUnixSockets '$WORK/bw.out'"
echo "1..$_tap_n"
