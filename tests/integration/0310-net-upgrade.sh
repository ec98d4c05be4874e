#!/bin/sh
# Upgrade requests (WebSocket) through the proxy, in plain HTTP and inside a
# TLS-terminated tunnel: the request meets the request filters like any
# other, and once they allow it and the server answers 101 the connection
# is relayed both ways, bytes sent before the switch included. A filter's
# deny refuses the upgrade before anything reaches the server, and a 101
# the client never asked for is answered 502. Loopback servers only
# (tests/helpers/ws.py, a minimal RFC 6455 echo server and client).
# An upgrade to a protocol that carries requests itself (h2c, TLS/1.0 of
# RFC 2817) is not honoured: after such a switch the requests would reach
# the server unseen by the filters (red team: a path the rules deny went
# through an h2c switch). The request goes on as plain HTTP/1.1. So does
# one to a name no list of such protocols can know (red team: "foo", which
# a server may map to HTTP as it likes, was relayed): only WebSocket is.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 12

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1 || [ ! -x "$PY" ]; then
	for i in $(seq 12); do skip "bwrap, openssl, curl or python3 missing"; done
	exit 0
fi

cd "$WORK"
ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
	-days 3 -subj "/CN=srt test CA" -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 -extfile ext
cd - >/dev/null

WS="$top_srcdir/tests/helpers/ws.py"
ws_server() { # NAME [CERT KEY]
	local name=$1 i
	shift
	: > "$WORK/$name.log"
	"$PY" "$WS" serve "$WORK/$name.port" "$WORK/$name.log" "$@" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do [ -s "$WORK/$name.port" ] && break; sleep 0.1; done
	[ -s "$WORK/$name.port" ] || { echo "Bail out! cannot start the WebSocket test server"; exit 1; }
	eval "${name}_PORT=\$(cat \"\$WORK/\$name.port\")"
}
ws_server PLAIN
ws_server SECURE "$WORK/srv.crt" "$WORK/srv.key"
export SSL_CERT_FILE="$WORK/ca.crt"

RULES='{"plugin":"rules","config":{"rules":[{"action":"deny","path":"/denied*","status":403,"reason":"no sockets here"}]}}'
S=$(net_settings '["localhost"]' '[]' "\"privateAddresses\":\"allow\",\"tlsTerminate\":{},\"filters\":[$RULES]")
cat > "$WORK/inside.sh" <<EOF
$PY $WS client ws://localhost:$PLAIN_PORT/echo >out1 2>&1
$PY $WS client wss://localhost:$SECURE_PORT/echo >out2 2>&1
$PY $WS client ws://localhost:$PLAIN_PORT/denied >out3 2>&1
$PY $WS client wss://localhost:$SECURE_PORT/denied >out4 2>&1
$CURLP -i http://localhost:$PLAIN_PORT/rogue >out5 2>&1
$CURLP -i https://localhost:$SECURE_PORT/rogue >out6 2>&1
EOF
srt__run --settings "$S" -c "sh $WORK/inside.sh" >"$WORK/out" 2>"$WORK/err"
P="$WORK/proj"
check "N: a WebSocket through plain HTTP: 101, frames both ways, early ones too ($(cat "$P/out1"))" \
	grep -q '^ok 101 welcome, early hello, 307200 bytes echoed, closed' "$P/out1"
check "N: the server got the Upgrade request and echoed both frames" sh -c \
	"grep -q '^GET /echo upgrade=yes' '$WORK/PLAIN.log' && [ \$(grep -c '^echo' '$WORK/PLAIN.log') = 2 ]"
check "N: a WebSocket inside a TLS-terminated tunnel ($(cat "$P/out2"))" \
	grep -q '^ok 101 welcome, early hello, 307200 bytes echoed, closed' "$P/out2"
check "N: the TLS server got the Upgrade request and echoed both frames" sh -c \
	"grep -q '^GET /echo upgrade=yes' '$WORK/SECURE.log' && [ \$(grep -c '^echo' '$WORK/SECURE.log') = 2 ]"
check "N: a filter's deny refuses a plain upgrade: 403 with its reason ($(cat "$P/out3"))" sh -c \
	"grep -q '^fail status: HTTP/1.1 403' '$P/out3' && grep -q 'no sockets here' '$P/out3'"
check "N: a filter's deny refuses an upgrade inside termination: 403 ($(cat "$P/out4"))" sh -c \
	"grep -q '^fail status: HTTP/1.1 403' '$P/out4' && grep -q 'no sockets here' '$P/out4'"
check "N: neither server saw a denied request" sh -c \
	"! grep -q denied '$WORK/PLAIN.log' && ! grep -q denied '$WORK/SECURE.log'"
check "N: the denials are violations naming the filter" sh -c \
	"[ \$(grep -c 'deny network-outbound localhost:.*request filter rules' '$WORK/err') -ge 2 ]"
check "N: a 101 the client did not ask for is answered 502, plain" sh -c \
	"grep -q '502 Bad Gateway' '$P/out5' && ! grep -q 'rogue bytes' '$P/out5'"
check "N: and inside termination" sh -c \
	"grep -q '502 Bad Gateway' '$P/out6' && ! grep -q 'rogue bytes' '$P/out6'"

# h2c, TLS/1.0 (RFC 2817): a server that switches to whatever the request
# asks for and logs every byte after; the client sends a path the rules
# deny once the switch is answered
cat > "$WORK/h2c.py" <<'PYEOF'
import os, socket, sys, threading
portfile, logfile = sys.argv[1:3]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(8)
log = open(logfile, "a", buffering=1)
def serve(c):
    f = c.makefile("rb")
    line = f.readline()
    up = None
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.partition(b":")
        if k.strip().lower() == b"upgrade":
            up = v.strip()
    log.write("%s upgrade=%s\n" % (line.decode("latin-1").strip(), up.decode() if up else "-"))
    if up:
        c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + up + b"\r\n\r\n")
        c.settimeout(3)
        try:
            while True:
                d = c.recv(4096)
                if not d:
                    break
                log.write("after switch: %r\n" % d)
        except OSError:
            pass
    else:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    c.close()
with open(portfile + ".tmp", "w") as p:
    p.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
: > "$WORK/h2c.log"
"$PY" "$WORK/h2c.py" "$WORK/h2c.port" "$WORK/h2c.log" &
NET_PIDS="$NET_PIDS $!"
for i in $(seq 50); do [ -s "$WORK/h2c.port" ] && break; sleep 0.1; done
H2C_PORT=$(cat "$WORK/h2c.port" 2>/dev/null)
cat > "$WORK/h2c-client.py" <<'PYEOF'
import base64, os, socket, sys, urllib.parse
port, proto = sys.argv[1], sys.argv[2]
u = urllib.parse.urlsplit(os.environ["http_proxy"])
auth = ""
if u.username is not None:
    cred = "%s:%s" % (urllib.parse.unquote(u.username), urllib.parse.unquote(u.password or ""))
    auth = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(cred.encode()).decode()
s = socket.create_connection((u.hostname, u.port), timeout=5)
s.sendall(("GET http://localhost:%s/ok HTTP/1.1\r\nHost: localhost:%s\r\n%s"
           "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: %s\r\n"
           "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n" % (port, port, auth, proto)).encode())
head = b""
try:
    while b"\r\n\r\n" not in head:
        d = s.recv(4096)
        if not d:
            break
        head += d
except OSError:
    pass
print("status:", head.split(b"\r\n", 1)[0].decode("latin-1"))
try:
    s.sendall(b"POST /denied-after-switch HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
    s.recv(4096)
except OSError:
    pass
PYEOF
cat > "$WORK/inside2.sh" <<EOF
$PY $WORK/h2c-client.py $H2C_PORT h2c >h2c1 2>&1
$PY $WORK/h2c-client.py $H2C_PORT TLS/1.0 >h2c2 2>&1
$PY $WORK/h2c-client.py $H2C_PORT foo >h2c3 2>&1
EOF
srt__run --settings "$S" -c "sh $WORK/inside2.sh" >"$WORK/out2" 2>"$WORK/err2"
check "N: h2c, TLS/1.0 and unknown upgrades reach the server as plain HTTP/1.1 ($(cat "$P/h2c1" "$P/h2c2" "$P/h2c3" | tr '\n' ' '); $(tr '\n' ' ' < "$WORK/h2c.log"))" \
	sh -c "[ \$(grep -c '^GET /ok HTTP/1.1 upgrade=-' '$WORK/h2c.log') = 3 ]"
check "N: nothing reached the server after a switch to a protocol that carries requests" \
	sh -c "! grep -q 'after switch' '$WORK/h2c.log'"
