#!/bin/sh
# The library's request filter end to end: srt_sandbox_set_request_filter()
# (tests/helpers/filter-run, the public C API only) is asked about each
# request a real sandboxed curl sends through the proxy, after the domain
# lists: its deny reaches the client with its status and reason and never
# the server, a verdict completed later from another thread lets the
# request through, an error or a value that is no verdict fails closed,
# a header it sets reaches the server, a deny-listed host is never asked,
# and installing it after the start is refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
N=8
need_bwrap_sandbox
plan $N
FILTER_RUN=$(libtool_binary "$top_builddir/tests/helpers/filter-run")
if [ ! -x "$FILTER_RUN" ] || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq $N); do skip "filter-run not built or curl missing"; done
	exit 0
fi
net_server http WEB
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '["evil.test"]')
U="http://localhost:$WEB_PORT"
export FILTER_BACKEND="$BACKEND"
run() { timeout -k 5 40 "$FILTER_RUN" "$S" "$@" > "$WORK/out" 2>"$WORK/err"; }
code() { $CURLP -o /dev/null -w "%{http_code}\\n" "$@"; }

run sh -c "$CURLP -o /dev/null -w '%{http_code}\n' $U/plain/a; $CURLP -w '\n%{http_code}\n' $U/deny/b"
sed 's/^/# /' "$WORK/out"
check "a request the callback continues: asked with its URL, host and port, served" \
	sh -c "grep -qx 'filtered GET $U/plain/a host=localhost port=$WEB_PORT' '$WORK/out' && grep -qx 200 '$WORK/out' && grep -q 'GET /plain/a' '$WEB_LOG'"
check "the callback's deny: 451 with its reason, the server never saw it" \
	sh -c "grep -qx 451 '$WORK/out' && grep -q 'the library filter says no' '$WORK/out' && ! grep -q '/deny/b' '$WEB_LOG'"
check "and the violation records it" grep -q "^violation: deny network-outbound localhost:$WEB_PORT .*the library filter says no" "$WORK/out"
check "installing the filter after the start is refused" sh -c "! grep -q 'was not refused' '$WORK/out'"

run sh -c "$CURLP -o /dev/null -w 'later=%{http_code}\n' $U/later/c"
check "a PENDING verdict completed from another thread lets the request through" \
	sh -c "grep -qx later=200 '$WORK/out' && grep -q 'GET /later/c' '$WEB_LOG'"

run sh -c "$CURLP -o /dev/null -w 'fail=%{http_code}\n' $U/fail/d; $CURLP -o /dev/null -w 'garbage=%{http_code}\n' $U/garbage/e"
check "an ERROR and a value that is no verdict fail closed (502), nothing forwarded ($(grep '=' "$WORK/out" | tr '\n' ' '))" \
	sh -c "grep -qx fail=502 '$WORK/out' && grep -qx garbage=502 '$WORK/out' && ! grep -q '/fail/d\|/garbage/e' '$WEB_LOG'"

run sh -c "$CURLP -o /dev/null $U/edit/f; $CURLP -o /dev/null http://evil.test/; true"
check "a header the callback sets reaches the server" grep -q "^GET /edit/f HTTP/1.1 .* xadded=lib" "$WEB_LOG"
check "a deny-listed host never reaches the callback" \
	sh -c "grep -qx 'violation: deny network-outbound evil.test:80 (host is on the deny list)' '$WORK/out' && ! grep -q '^filtered .*evil' '$WORK/out'"
