#!/bin/sh
# The ask callback end to end: a real sandboxed curl reaches a loopback
# server through the proxy only when the application's callback
# (tests/helpers/ask-run, the public C API) allows it. Asked: a host on
# neither list, over plain HTTP, CONNECT and SOCKS5; never asked: a
# deny-listed host. Deny with a reason, a failing callback and no answer
# in time deny with their violation; a remembered answer is not asked
# again; a connection waiting for its answer does not hold up another.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
N=13
need_bwrap_sandbox
plan $N
ASK_RUN=$(libtool_binary "$top_builddir/tests/helpers/ask-run")
if [ ! -x "$ASK_RUN" ] || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq $N); do skip "ask-run not built or curl missing"; done
	exit 0
fi
net_server http WEB
net_server http OK
net_server http W2
S=$(net_settings "[\"localhost:$OK_PORT\"]" '["evil.test"]')
H="localhost:$WEB_PORT"
export ASK_BACKEND="$BACKEND"
run() { timeout -k 5 40 "$ASK_RUN" "$S" "$@" > "$WORK/out" 2>"$WORK/err"; }
asked() { grep -c "^asked $H\$" "$WORK/out"; }

run "$H=later" sh -c "$CURLP http://$H/allowed-later"
check "plain HTTP to a host on neither list: asked, allowed from another thread, served" \
	sh -c "[ $(asked) = 1 ] && grep -q 'GET /allowed-later' '$WEB_LOG'"

run "$H=deny:not <approved>
for this session" sh -c "$CURLP -o /dev/null -w '%{http_code}\n' http://$H/denied"
check "denied: the client gets 403 and the server nothing" \
	sh -c "grep -qx 403 '$WORK/out' && ! grep -q 'GET /denied' '$WEB_LOG'"
check "the violation carries the sanitised reason" \
	grep -qx "violation: deny network-outbound $H (not approved for this session)" "$WORK/out"

run "$H=allow" sh -c "$CURLP -o /dev/null -w '%{http_code}\n' -p http://$H/tunnel"
check "CONNECT (curl -p) to the asked host: allowed inside the callback" \
	sh -c "[ $(asked) = 1 ] && grep -qx 200 '$WORK/out' && grep -q 'GET /tunnel' '$WEB_LOG'"

run "$H=allow" sh -c "curl -sS --max-time 10 --noproxy '' -x \"\$ALL_PROXY\" -o /dev/null -w '%{http_code}\n' http://$H/socks"
check "SOCKS5 to the asked host: allowed" \
	sh -c "[ $(asked) = 1 ] && grep -qx 200 '$WORK/out' && grep -q 'GET /socks' '$WEB_LOG'"

run "$H=remember" sh -c "$CURLP http://$H/r1 >/dev/null; $CURLP http://$H/r2 >/dev/null; $CURLP -p http://$H/r3 >/dev/null; $CURLP -o /dev/null http://evil.test/"
check "a remembered answer: asked once for three connections" \
	sh -c "[ $(asked) = 1 ] && grep -q 'GET /r3' '$WEB_LOG'"
check "a deny-listed host is never asked" \
	sh -c "! grep -q '^asked evil' '$WORK/out' && grep -qx 'violation: deny network-outbound evil.test:80 (host is on the deny list)' '$WORK/out'"

W="localhost:$W2_PORT"
run "$H=fail,$W=deny" sh -c "$CURLP -o /dev/null http://$H/fail; $CURLP -o /dev/null http://$W/x; true"
check "a failing callback denies: permission prompt failed" \
	grep -qx "violation: deny network-outbound $H (permission prompt failed)" "$WORK/out"
check "a denial without a reason is recorded as user denied" \
	grep -qx "violation: deny network-outbound $W (user denied)" "$WORK/out"

t0=$(date +%s)
ASK_TIMEOUT_MS=1000 run "$H=silent" sh -c "$CURLP -o /dev/null -w '%{http_code}\n' http://$H/silent"
t1=$(date +%s)
check "no answer within the timeout denies ($((t1 - t0)) s)" \
	sh -c "grep -qx 403 '$WORK/out' && [ $((t1 - t0)) -lt 15 ]"
check "recorded as permission prompt timed out" \
	grep -qx "violation: deny network-outbound $H (permission prompt timed out)" "$WORK/out"

# one connection waits 4 s for its answer; another, to an allowed host,
# started after it, finishes first
run "$H=slow" sh -c "($CURLP http://$H/slow >/dev/null; echo slow-done) & sleep 0.5; $CURLP http://localhost:$OK_PORT/fast >/dev/null; echo fast-done; wait"
check "a connection waiting for its answer does not hold up another" \
	sh -c "grep -n -e fast-done -e slow-done '$WORK/out' | head -1 | grep -q fast-done && grep -q slow-done '$WORK/out'"
check "and the waiting one is served once allowed" grep -q 'GET /slow' "$WEB_LOG"
