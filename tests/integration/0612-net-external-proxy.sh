#!/bin/sh
# httpProxyPort and socksProxyPort name the user's own proxies on
# 127.0.0.1: the command's HTTP and SOCKS traffic goes to them, unparsed,
# whatever allowedDomains says, as in the reference; with nothing allowed
# too (N16). Loopback stand-ins log what reached them.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 9

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 9); do skip "bwrap or curl missing"; done
	exit 0
fi

# the stand-ins: an HTTP proxy answering every request itself, and a SOCKS5
# proxy (no authentication) answering the tunnelled request itself
cat > "$WORK/ext.py" <<'PYEOF'
import os, socket, sys, threading
mode, portfile, logfile = sys.argv[1:4]
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(16)
log = open(logfile, "a", buffering=1)
def head(f):
    line = f.readline()
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        if h.lower().startswith(b"proxy-authorization"):
            log.write("proxy-authorization seen\n")
    return line.decode("latin-1").strip()
def exact(c, n):
    # the relay may hand the bytes over in any split
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise OSError("short read")
        b += d
    return b
def serve(c):
    try:
        if mode == "socks":
            g = exact(c, 2)
            exact(c, g[1])
            c.sendall(b"\x05\x00")
            r = exact(c, 4)
            if r[3] == 3:
                n = exact(c, 1)[0]
                host = exact(c, n).decode()
            else:
                exact(c, 4 if r[3] == 1 else 16)
                host = "addr"
            port = int.from_bytes(exact(c, 2), "big")
            log.write("socks %s:%d\n" % (host, port))
            c.sendall(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
        f = c.makefile("rb")
        log.write("%s %s\n" % (mode, head(f)))
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nConnection: close\r\n\r\nfrom-external")
    except (OSError, IndexError):
        pass
    finally:
        c.close()
with open(portfile + ".tmp", "w") as p:
    p.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
ext_server() {
	: > "$WORK/$2.log"
	"$PY" "$WORK/ext.py" "$1" "$WORK/$2.port" "$WORK/$2.log" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do [ -s "$WORK/$2.port" ] && break; sleep 0.1; done
	[ -s "$WORK/$2.port" ] || { echo "Bail out! cannot start the $1 stand-in"; exit 1; }
	eval "${2}_PORT=\$(cat \"\$WORK/\$2.port\")"
}
ext_server http EXTH
ext_server socks EXTS

# httpProxyPort with nothing allowed
S=$(net_settings '[]' '[]' "\"httpProxyPort\":$EXTH_PORT")
out=$(srt__run -s "$S" -c 'curl -sS --max-time 10 http://example.com/via-http' 2>"$WORK/err")
check "N16 httpProxyPort, nothing allowed: the answer is the external proxy's ($out)" [ "$out" = from-external ]
check "N16 the external HTTP proxy got the request in absolute form" \
	grep -q '^http GET http://example.com/via-http HTTP/1.1' "$WORK/EXTH.log"
check "N16 srt's proxy token is not sent to the external proxy" \
	sh -c "! grep -q 'proxy-authorization' '$WORK/EXTH.log'"
check "N16 nothing is recorded as denied" sh -c "! grep -q 'deny network-outbound' '$WORK/err'"

# socksProxyPort with nothing allowed (SOCKS goes out; HTTP stays filtered)
S=$(net_settings '[]' '[]' "\"socksProxyPort\":$EXTS_PORT")
out=$(srt__run -s "$S" -c 'curl -sS --max-time 10 -x socks5h://localhost:1080 http://example.com/via-socks' 2>"$WORK/err")
check "N16 socksProxyPort, nothing allowed: the answer is the external proxy's ($out)" [ "$out" = from-external ]
check "N16 the external SOCKS proxy got the name and the request" \
	sh -c "grep -q '^socks example.com:80' '$WORK/EXTS.log' && grep -q '^socks GET /via-socks' '$WORK/EXTS.log'"
out=$(srt__run -s "$S" -c 'curl -sS --max-time 10 -o /dev/null -w "%{http_code}" http://example.com/' 2>"$WORK/err")
check "N16 socksProxyPort alone: HTTP is still filtered by srt (403: $out)" [ "$out" = 403 ]

# both ports, with an allowed domain: the external proxies still win
S=$(net_settings '["example.org"]' '[]' "\"httpProxyPort\":$EXTH_PORT,\"socksProxyPort\":$EXTS_PORT")
out=$(srt__run -s "$S" -c 'curl -sS --max-time 10 http://example.net/both' 2>"$WORK/err")
check "N16 both ports and an allow list: HTTP to the external proxy ($out)" \
	sh -c "[ '$out' = from-external ] && grep -q '^http GET http://example.net/both' '$WORK/EXTH.log'"
out=$(srt__run -s "$S" -c 'curl -sS --max-time 10 -x socks5h://localhost:1080 http://example.net/both-socks' 2>"$WORK/err")
check "N16 both ports and an allow list: SOCKS to the external proxy ($out)" \
	sh -c "[ '$out' = from-external ] && grep -q '^socks example.net:80' '$WORK/EXTS.log'"
