#!/bin/bash
# Escape class H9: network.allowUnixSockets, under linux-landlock and
# linux-bwrap. The listed socket path can be connected to and every other
# Unix socket stays refused: another path, the same server through a link
# of the command's making, an abstract address, a datagram socket or pair
# (which can sendto() any path), a sockaddr another thread rewrites while
# the connect is in flight, and a Unix socket another thread puts at the
# descriptor number of a TCP socket being connected. Each line asserts on
# the host servers' logs or on a marker file.
. "$(dirname "$0")/lib.sh"
LL=$BACKEND_LL
BW=$BACKEND
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
time.sleep(900)
EOF
"$PY" "$WORK/srv.py" "$U/ok.sock" "$U/no.sock" & SRV=$!
trap 'main_shell || exit; kill $SRV 2>/dev/null; _cleanup' EXIT
wait_for "$U/ok.sock.ready" && wait_for "$U/no.sock.ready" || diag "the host servers did not start"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}' \
	"{\"allowedDomains\":[],\"deniedDomains\":[],\"allowUnixSockets\":[\"$U/ok.sock\"]}")

cat > "$WORK/cli.py" <<'EOF2'
import socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(p); print("connected", p, s.recv(16))
    except OSError as e:
        print("refused", p, e.errno)
EOF2
cat > "$WORK/other.py" <<'EOF2'
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
EOF2
# another thread flips the address between the allowed path and another
cat > "$WORK/race.py" <<'EOF2'
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
EOF2
# another thread swaps the descriptor being connected between a TCP socket
# (whose connect a supervisor might let through) and a Unix socket, while
# the address names the refused path
cat > "$WORK/swap.py" <<'EOF2'
import ctypes, os, socket, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
p = sys.argv[1]
bad = struct.pack("H", socket.AF_UNIX) + p.encode() + b"\0" * (108 - len(p))
buf = ctypes.create_string_buffer(bad, len(bad))
try:
    u = socket.socket(socket.AF_UNIX)
except OSError as e:
    print("no unix socket", e.errno); sys.exit(0)
try:
    t = socket.socket(socket.AF_INET)
except OSError as e:
    print("no tcp socket", e.errno); sys.exit(0)
n = os.dup(t.fileno())
stop = False
def flip():
    while not stop:
        os.dup2(u.fileno(), n); os.dup2(t.fileno(), n)
th = threading.Thread(target=flip); th.start()
for i in range(2000):
    libc.connect(n, buf, len(bad))
stop = True; th.join(); print("done")
EOF2
# TCP inside the sandbox's own network namespace keeps working
cat > "$WORK/tcp.py" <<'EOF2'
import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname(), timeout=5); s, _ = l.accept()
s.send(b"tcp-ok"); print(c.recv(16).decode())
EOF2
ln -s "$U/no.sock" "$WORK/proj/planted.sock"

# battery NAME: the attempts under backend module $MOD (run by r)
r() { timeout -k 5 60 "$SRT" --backend="$MOD" "$@"; }
battery() {
	local name=$1 AB
	rm -f "$U"/*.log "$WORK/abstract.hit"
	r -s "$S" -c "$PY $WORK/cli.py $U/ok.sock" >"$WORK/ok.out" 2>&1
	attempt H9 "$name: the listed socket path is connected to" \
		sh -c "grep -q HELLO '$WORK/ok.out' && test -s '$U/ok.sock.log'"

	r -s "$S" -c "$PY $WORK/cli.py $U/no.sock $U/../u/no.sock ./planted.sock" >"$WORK/no.out" 2>&1
	attempt H9 "$name: another socket path, another spelling and a link of the command's: refused" \
		sh -c "test ! -e '$U/no.sock.log' && grep -q 'refused $U/no.sock' '$WORK/no.out'"

	"$PY" -c 'import socket,time,sys
s=socket.socket(socket.AF_UNIX); s.bind(b"\0srt-h9-abstract"); s.listen(4); s.settimeout(8)
try:
    s.accept(); open(sys.argv[1],"w").write("hit")
except OSError: pass' "$WORK/abstract.hit" & AB=$!
	sleep 0.3
	r -s "$S" -c "$PY $WORK/other.py" >"$WORK/other.out" 2>&1
	kill $AB 2>/dev/null; wait $AB 2>/dev/null
	attempt H9 "$name: an abstract socket of the host is not reached" \
		sh -c "test ! -e '$WORK/abstract.hit' && grep -q 'refused abstract' '$WORK/other.out'"
	attempt H9 "$name: datagram sockets and datagram pairs are refused" \
		sh -c "! grep -q MADE '$WORK/other.out' && grep -q \"stream pair b'x'\" '$WORK/other.out'"
	attempt H9 "$name: the refusals are reported" grep -q "deny connect $U/no.sock" "$WORK/no.out"

	r -s "$S" -c "$PY $WORK/race.py $U/ok.sock $U/no.sock" >"$WORK/race.out" 2>&1
	attempt H9 "$name: a sockaddr rewritten during the connect never reaches the other socket" \
		sh -c "test ! -e '$U/no.sock.log' && test -s '$U/ok.sock.log'"

	r -s "$S" -c "$PY $WORK/swap.py $U/no.sock" >"$WORK/swap.out" 2>&1
	attempt H9 "$name: a Unix socket swapped in for a TCP socket being connected reaches nothing" \
		sh -c "test ! -e '$U/no.sock.log' && grep -q -e done -e 'no tcp socket' '$WORK/swap.out'"
}

MOD=$LL
if ! out=$(r -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 7 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
	else
		diag "$(cat "$WORK/err")"
		battery linux-landlock
	fi
else
	battery linux-landlock
fi

MOD=$BW
if ! command -v bwrap >/dev/null 2>&1; then
	skip_rest 9 "bwrap is not installed"
	echo "1..$_tap_n"
	exit 0
fi
battery linux-bwrap
r -s "$S" -c "$PY $WORK/tcp.py" >"$WORK/tcp.out" 2>&1
attempt H9 "linux-bwrap: a TCP connect inside the sandbox still works next to the list" \
	grep -qx tcp-ok "$WORK/tcp.out"
# a listed socket the sandbox hides (denyRead) is refused by name, not
# silently left unreachable
H=$(fsjson h "{\"denyRead\":[\"~/.ssh\",\"~/.aws\",\"$U\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}" \
	"{\"allowedDomains\":[],\"deniedDomains\":[],\"allowUnixSockets\":[\"$U/ok.sock\"]}")
rm -f "$WORK/h.marker"
r -s "$H" -c "touch $WORK/h.marker" >"$WORK/h.out" 2>&1
rc=$?
attempt H9 "linux-bwrap: a listed socket inside a denyRead path is refused by name (runs nothing)" \
	sh -c "test $rc -ne 0 && test ! -e '$WORK/h.marker' && grep -q 'sandbox hides' '$WORK/h.out'"
echo "1..$_tap_n"
