#!/bin/sh
# The core's side of a backend whose command reaches the proxy on a
# loopback TCP port (SRT_CAP_LOOPBACK_PROXY: windows-wfp), on Linux with
# tests/fake/fake_loopback_proxy.so, which declares that capability and
# runs the command as it is. The proxy listens on the first free port of
# windows.proxyPortRange at 127.0.0.1, the proxy variables name it with
# the run's token, a client without the token is answered 407 (any local
# program reaches a loopback port), and a range whose every port is held
# refuses the run naming it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 7

FAKE="$top_builddir/tests/fake/.libs/fake_loopback_proxy.so"
if [ ! -e "$FAKE" ] || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 7); do skip "tests/fake/fake_loopback_proxy.so was not built, or curl is missing"; done
	exit 0
fi
net_server http WEB
LO=47210 HI=47212
S=$(settings "{\"network\":{\"allowedDomains\":[\"127.0.0.1:$WEB_PORT\"],\"deniedDomains\":[]},\"filesystem\":{\"disabled\":true,\"denyRead\":[],\"allowWrite\":[],\"denyWrite\":[]},\"windows\":{\"proxyPortRange\":[$LO,$HI]}}")
lp() { timeout -k 5 30 "$SRT" --backend="$FAKE" --settings "$S" "$@"; }

# hold PORT...: a listener on each (another program holding them) until
# unhold; false when one is taken already
hold() {
	rm -f "$WORK/held"
	"$PY" -c 'import socket, sys, time
ss = []
for p in sys.argv[2:]:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(p))); s.listen(1); ss.append(s)
open(sys.argv[1], "w").write("held")
time.sleep(60)' "$WORK/held" "$@" 2>/dev/null &
	HP=$!
	i=0
	while [ $i -lt 100 ] && ! [ -s "$WORK/held" ] && kill -0 $HP 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	[ -s "$WORK/held" ]
}
unhold() { kill $HP 2>/dev/null; wait $HP 2>/dev/null; }

out=$(lp -c 'printf "%s\n" "$HTTP_PROXY" "$ALL_PROXY" "$FTP_PROXY"' 2>"$WORK/err")
check "HTTP_PROXY and ALL_PROXY name 127.0.0.1 in the range with user:token ($(echo $out | head -c 160))" \
	sh -c "echo '$out' | head -2 | grep -Eqx 'http://srt[^:@]*:[0-9a-f]{32}@127\\.0\\.0\\.1:4721[0-2]' &&
	       [ \$(echo '$out' | head -2 | sort -u | wc -l) = 1 ]"
check "FTP_PROXY is socks5h on the same port" \
	sh -c "echo '$out' | sed -n 3p | grep -Eqx 'socks5h://srt[^:@]*:[0-9a-f]{32}@127\\.0\\.0\\.1:4721[0-2]'"

out=$(lp -c "$CURLP -o /dev/null -w '%{http_code}' http://127.0.0.1:$WEB_PORT/lp" 2>"$WORK/err")
check "through the proxy variables, an allowed server: 200 ($out)" [ "$out" = 200 ]
check "the server saw it without the proxy credentials" \
	grep -q "^GET /lp HTTP/1.1 host=127.0.0.1:$WEB_PORT proxyauth=no" "$WEB_LOG"

out=$(lp -c "p=\${HTTP_PROXY##*:}; curl -s --max-time 10 --noproxy '' -o /dev/null -w '%{http_code}' -x http://127.0.0.1:\$p http://127.0.0.1:$WEB_PORT/notoken" 2>"$WORK/err")
check "a client of the port without the token: 407, nothing reached the server ($out)" \
	sh -c "[ '$out' = 407 ] && ! grep -q '^GET /notoken ' '$WEB_LOG'"

if hold $LO; then
	out=$(lp -c 'echo "$HTTP_PROXY"' 2>"$WORK/err")
	unhold
	check "the first port held by another program: the next is taken (${out##*@})" \
		sh -c "echo '$out' | grep -Eq '@127\\.0\\.0\\.1:4721[12]\$'"
else
	unhold
	skip "port $LO is in use on this host already"
fi
if hold $LO $((LO + 1)) $HI; then
	lp -c 'echo RAN' >"$WORK/out" 2>"$WORK/err"; rc=$?
	unhold
	check "every port of the range held: refused in one line naming the range (rc=$rc: $(head -c 200 "$WORK/err"))" \
		sh -c "[ $rc != 0 ] && ! grep -q RAN '$WORK/out' && grep -q 'windows.proxyPortRange $LO-$HI' '$WORK/err'"
else
	unhold
	skip "ports $LO-$HI are in use on this host already"
fi
