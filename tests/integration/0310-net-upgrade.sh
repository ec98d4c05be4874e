#!/bin/sh
# Upgrade requests (WebSocket) through the proxy, in plain HTTP and inside a
# TLS-terminated tunnel: the request meets the request filters like any
# other, and once they allow it and the server answers 101 the connection
# is relayed both ways, bytes sent before the switch included. A filter's
# deny refuses the upgrade before anything reaches the server, and a 101
# the client never asked for is answered 502. Loopback servers only
# (tests/helpers/ws.py, a minimal RFC 6455 echo server and client).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 10

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1 || [ ! -x "$PY" ]; then
	for i in $(seq 10); do skip "bwrap, openssl, curl or python3 missing"; done
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
