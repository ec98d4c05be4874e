#!/bin/sh
# The core's side of a backend whose command reaches the proxy on a
# loopback TCP port (SRT_CAP_LOOPBACK_PROXY: windows-wfp), on Linux with
# tests/fake/fake_loopback_proxy.so, which declares that capability and
# runs the command as it is. The proxy listens on the first free port of
# windows.proxyPortRange at 127.0.0.1, the proxy variables name it with
# the run's token, a client without the token is answered 407 (any local
# program reaches a loopback port), and a range whose every port is held
# refuses the run naming it. srt-connect beside the module is named in
# GIT_SSH_COMMAND and reaches the same port, as srt-connect.exe does on
# Windows.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 9

FAKE="$top_builddir/tests/fake/.libs/fake_loopback_proxy.so"
if [ ! -e "$FAKE" ] || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 9); do skip "tests/fake/fake_loopback_proxy.so was not built, or curl is missing"; done
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

# ssh through the loopback port: a copy of the module with srt-connect
# beside it (the core looks for it there), its ProxyCommand run as ssh
# runs one (sh -c, %h and %p replaced) with an HTTP request for its input
SC="$top_builddir/backends/linux-bwrap/srt-connect"
if [ -x "$SC" ]; then
	mkdir -p "$WORK/mods" && cp "$FAKE" "$SC" "$WORK/mods/"
	want="ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand='$(realpath "$WORK/mods/srt-connect") %h %p'"
	timeout -k 5 30 "$SRT" --backend="$WORK/mods/fake_loopback_proxy.so" --settings "$S" -c '
		printf "%s\n" "$GIT_SSH_COMMAND"
		pc=${GIT_SSH_COMMAND#*ProxyCommand=\'"'"'}; pc=${pc%\'"'"'}
		pc=$(printf "%s" "$pc" | sed "s/%h/127.0.0.1/; s/%p/'"$WEB_PORT"'/")
		printf "GET /ssh HTTP/1.1\r\nHost: 127.0.0.1:'"$WEB_PORT"'\r\nConnection: close\r\n\r\n" | sh -c "exec $pc"' \
		>"$WORK/out" 2>"$WORK/err"
	check "GIT_SSH_COMMAND names srt-connect beside the module for a proxy on a loopback port ($(head -n1 "$WORK/out" | head -c 160))" \
		[ "$(head -n1 "$WORK/out")" = "$want" ]
	check "its ProxyCommand tunnels through 127.0.0.1:<port> with the run's token ($(tail -n1 "$WORK/out" | head -c 60); $(head -c 160 "$WORK/err"))" \
		sh -c "grep -q '^hello\$' '$WORK/out' && grep -q '^GET /ssh HTTP/1.1 host=127.0.0.1:$WEB_PORT proxyauth=no' '$WEB_LOG'"
else
	skip "srt-connect was not built"
	skip "srt-connect was not built"
fi
