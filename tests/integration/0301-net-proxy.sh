#!/bin/sh
# The command's only way out is the filtering proxy: allowed targets are
# reached through it (HTTP, CONNECT, SOCKS5), denied ones get a 403, and a
# client that ignores the proxy variables reaches nothing (N1, N2, N3, N11).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 19

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 15); do skip "bwrap or curl missing"; done
	exit 0
fi
net_server http WEB
S=$(net_settings "[\"127.0.0.1:$WEB_PORT\",\"localhost:$WEB_PORT\"]" '["evil.test"]' \
	'"deniedDomainReasons":{"evil.test":"no evil here"}')

out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' http://127.0.0.1:$WEB_PORT/plain" 2>"$WORK/err")
check "plain HTTP to an allowed loopback server: 200 ($out)" [ "$out" = 200 ]
check "the server saw the request in origin form, without the proxy credentials" \
	grep -q "^GET /plain HTTP/1.1 host=127.0.0.1:$WEB_PORT proxyauth=no" "$WEB_LOG"

out=$(srt__run --settings "$S" -c "$CURLP -p -o /dev/null -w '%{http_code}' http://localhost:$WEB_PORT/tunnel" 2>"$WORK/err")
check "CONNECT tunnel to allowed localhost: 200 ($out)" [ "$out" = 200 ]
check "the tunnelled request reached the server" grep -q "^GET /tunnel " "$WEB_LOG"

# the SOCKS URL is built from the token in HTTPS_PROXY
out=$(srt__run --settings "$S" -c "tok=\${HTTPS_PROXY#*://*:}; tok=\${tok%@*}; $CURLP -x \"socks5h://srt:\$tok@localhost:1080\" -o /dev/null -w '%{http_code}' http://127.0.0.1:$WEB_PORT/socks" 2>"$WORK/err")
check "SOCKS5 with the token to an allowed server: 200 ($out)" [ "$out" = 200 ]
check "the SOCKS request reached the server" grep -q "^GET /socks " "$WEB_LOG"

out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' https://evil.test/" 2>"$WORK/err")
check "CONNECT to a denied host: curl reports 403" grep -q "response 403" "$WORK/err"
check "the violation names the host and the configured reason" \
	grep -q "deny network-outbound evil.test:443 (no evil here)" "$WORK/err"
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' http://other.test/" 2>"$WORK/err")
check "plain HTTP to a host not on the allow list: 403 ($out)" [ "$out" = 403 ]

# N11: the port is part of the allow entry
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' http://127.0.0.1:$((WEB_PORT + 1))/" 2>"$WORK/err")
check "N11: allowed host on another port: 403 ($out)" [ "$out" = 403 ]

# N1: ignoring the proxy variables reaches nothing, although the target is allowed
before=$(count_lines . "$WEB_LOG")
srt__run --settings "$S" -c "curl -s --max-time 5 --noproxy '*' http://127.0.0.1:$WEB_PORT/direct" >/dev/null 2>&1
rc1=$?
srt__run --settings "$S" -c "env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy curl -s --max-time 5 http://localhost:$WEB_PORT/direct" >/dev/null 2>&1
rc2=$?
after=$(count_lines . "$WEB_LOG")
check "N1: --noproxy '*' and an emptied environment both fail ($rc1, $rc2)" [ "$rc1" != 0 ] && [ "$rc2" != 0 ]
check "N1: nothing reached the server directly" [ "$before" = "$after" ]

# N2/N3: raw IPv4/IPv6 (documentation addresses: nothing real even if leaked),
# with interception off (the reference's behaviour) and on (the default)
SOFF=$WORK/intercept-off.json
sed 's/"allowedDomains"/"intercept":"off","allowedDomains"/' "$S" > "$SOFF"
out=$(srt__run --settings "$SOFF" -c 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " " | sort | tr "\n" " "; ip -o route 2>/dev/null | wc -l' 2>/dev/null)
check "N2: interception off: only the loopback interface and no route ($out)" [ "$out" = "lo 0" ]
srt__run --settings "$SOFF" -c 'curl -s --max-time 5 --noproxy "*" http://192.0.2.1/; e1=$?; curl -6 -s --max-time 5 --noproxy "*" "http://[2001:db8::1]/"; e2=$?; [ $e1 != 0 ] && [ $e2 != 0 ]' >/dev/null 2>&1
check "N2/N3: interception off: direct IPv4 and IPv6 connections fail" [ $? = 0 ]
out=$(srt__run --settings "$S" -c 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " " | sort | tr "\n" " "; ip -o route 2>/dev/null' 2>/dev/null)
check "N2: interception on: only the loopback interface, the one route over it ($out)" \
	sh -c "echo '$out' | grep -q '^lo default dev lo'"
out=$(srt__run --settings "$S" -c 'curl -s --max-time 5 --noproxy "*" -o /dev/null -w "%{http_code}" http://192.0.2.1/; curl -6 -s --max-time 5 --noproxy "*" "http://[2001:db8::1]/"; echo " $?"' 2>"$WORK/err")
check "N2/N3: interception on: direct IPv4 gets the proxy's 403, IPv6 fails ($out)" \
	sh -c "[ '$out' = '403 7' ] && grep -q 'deny network-outbound 192.0.2.1:80' '$WORK/err'"
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' 'http://[2001:db8::1]/'" 2>"$WORK/err")
check "N3: an IPv6 literal through the proxy is refused ($out)" [ "$out" = 403 ]

# The proxy's private directory is in the sandbox only so the bridge can
# connect: mounted read-only, the command cannot replace its socket even
# where no Landlock layer stands behind the mounts.
out=$(srt__run --settings "$S" -c 'awk '"'"'$5 ~ "/srt-[0-9]+-" { split($6, o, ","); print o[1] }'"'"' /proc/self/mountinfo' 2>/dev/null)
check "the proxy directory is a read-only mount inside ($out)" [ "$out" = ro ]

# The summary lists proxy denials whatever key the client put in its proxy
# user name (the command chooses it; "srt" alone carries none)
srt__run --settings "$S" -c "tok=\${HTTPS_PROXY#*://*:}; tok=\${tok%@*}; $CURLP -x \"socks5h://srt:\$tok@localhost:1080\" -o /dev/null http://evil.test/" >/dev/null 2>"$WORK/err"
check "an unattributed proxy denial is in the summary ($(grep -c 'deny network-outbound evil.test' "$WORK/err"))" \
	grep -q "^srt:   deny network-outbound evil.test:80" "$WORK/err"
