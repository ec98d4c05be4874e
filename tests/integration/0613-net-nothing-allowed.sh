#!/bin/sh
# With a restricted network and nothing allowed (allowedDomains: [], the
# default), a command that tries to reach a host gets the proxy's answer
# naming the reason, not a bare "could not resolve host", and the attempt is
# in the end-of-run summary and the violations log (N15). The refusal is
# the proxy's own: the name is never looked up, so nothing leaves the
# machine. A client that ignores the proxy variables still reaches nothing.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 11

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 11); do skip "bwrap or curl missing"; done
	exit 0
fi
S=$(settings "$DEFAULT_SETTINGS")

# the README's first example, HTTPS: a CONNECT refused with the reason
srt__run -s "$S" --violations-log "$WORK/v.jsonl" \
	-c 'curl -sS -v --max-time 10 https://example.com' >"$WORK/out" 2>"$WORK/err"
rc=$?
check "N15 https://example.com fails (rc=$rc)" [ "$rc" != 0 ]
check "N15 the client got a 403 naming the reason ($(grep -m1 '< HTTP/1.1' "$WORK/err" | tr -d '\r'))" \
	grep -q '< HTTP/1.1 403 host is not on the allow list' "$WORK/err"
check "N15 no bare name-resolution failure" sh -c "! grep -q 'Could not resolve host' '$WORK/err'"
check "N15 the summary records the attempt" \
	grep -q '^srt:   deny network-outbound example.com:443 (host is not on the allow list)' "$WORK/err"
check "N15 the violations log records the attempt" \
	grep -q '"line":"deny network-outbound example.com:443 (host is not on the allow list)"' "$WORK/v.jsonl"

# plain HTTP: a 403 with a body saying why
srt__run -s "$S" --violations-log "$WORK/v2.jsonl" \
	-c 'curl -sS -D - --max-time 10 http://example.com/page' >"$WORK/out" 2>"$WORK/err"
check "N15 plain HTTP: 403 ($(head -1 "$WORK/out" | tr -d '\r'))" grep -q '^HTTP/1.1 403' "$WORK/out"
check "N15 plain HTTP: the body names the policy" \
	grep -q 'Connection blocked by network allowlist' "$WORK/out"
check "N15 plain HTTP: recorded in the summary and the log" \
	sh -c "grep -q 'deny network-outbound example.com:80 (host is not on the allow list)' '$WORK/err' &&
	       grep -q 'deny network-outbound example.com:80' '$WORK/v2.jsonl'"

# The proxy refused without looking the name up: the debug log shows the
# refusal and no lookup
srt__run -d -s "$S" -c 'curl -sS --max-time 10 http://never-resolved.example.com/' >/dev/null 2>"$WORK/err"
check "N15 the refused name was never looked up" \
	sh -c "grep -q 'deny network-outbound never-resolved.example.com:80' '$WORK/err' &&
	       ! grep -q 'resolving never-resolved' '$WORK/err'"

# still no way around the proxy: a loopback server on the host is not
# reached by a client that drops the proxy variables
net_server http WEB
srt__run -s "$S" -c "curl -s --max-time 5 --noproxy '*' http://127.0.0.1:$WEB_PORT/direct" >/dev/null 2>&1
check "N15 a client ignoring the proxy reaches nothing ($(count_lines . "$WEB_LOG") requests)" \
	test "$(count_lines . "$WEB_LOG")" = 0

# --explain says so
out=$(srt__run -s "$S" --explain -c true 2>&1)
check "N15 --explain says every host is answered 403 and names the private-address setting" \
	sh -c "printf '%s\n' \"\$1\" | grep -q 'allow host  (none: every host is answered 403)' &&
	       printf '%s\n' \"\$1\" | grep -q 'private addresses: refuseForWildcards'" _ "$out"
