#!/bin/sh
# Inside an allowed CONNECT tunnel the TLS server name must pass the same
# policy (N9, domain fronting): the proxy reads the ClientHello
# before any client byte reaches the upstream.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 4

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! openssl s_client -help 2>&1 | grep -q proxy_user; then
	for i in $(seq 4); do skip "bwrap or openssl with -proxy_user missing"; done
	exit 0
fi
net_server raw TLS
S=$(net_settings "[\"127.0.0.1:$TLS_PORT\",\"localhost:$TLS_PORT\"]" '[]')
# s_client reads the proxy password from the environment, never from argv
SCLIENT="u=\${HTTPS_PROXY#http://}; u=\${u%%:*}; tok=\${HTTPS_PROXY#*://*:}; tok=\${tok%@*}; export tok;
	openssl s_client -proxy localhost:3128 -proxy_user \"\$u\" -proxy_pass env:tok -connect 127.0.0.1:$TLS_PORT"
srt__run --settings "$S" -c "$SCLIENT -servername evil.test </dev/null" >/dev/null 2>"$WORK/err"
check "N9: SNI naming another host is refused (violation)" \
	grep -q "deny network-outbound evil.test:$TLS_PORT (TLS server name does not match the request target 127.0.0.1" "$WORK/err"
check "N9: the upstream received no byte" sh -c "! grep -q '^raw [1-9]' '$TLS_LOG'"
srt__run --settings "$S" -c "$SCLIENT -servername localhost </dev/null" >/dev/null 2>"$WORK/err"
sleep 0.5

check "an allowed server name passes: the upstream got the ClientHello" grep -q '^raw [1-9][0-9]* bytes' "$TLS_LOG"
check "and no violation for it" sh -c "! grep -q 'TLS server name' '$WORK/err'"
