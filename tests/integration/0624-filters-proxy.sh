#!/bin/sh
# network.filters in the sandbox's proxy, with real curl inside the sandbox
# and a loopback server outside that logs every request it gets: `rules`
# lets only GET through to localhost, `audit` writes one JSON line per
# request, and the `exec` filter asks tests/helpers/decider.py. Every
# denial is checked on what the client got AND on the server's log (the
# request never reached it); a decider that never answers fails its
# request closed after 5 s while another request is served meanwhile; a
# filter that asks for the body sees it before any of the request reaches
# the server (exec's need_body, body-limit on a chunked upload).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 37

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1 || [ ! -x "$PY" ]; then
	for i in $(seq 37); do skip "bwrap, curl or python3 missing"; done
	exit 0
fi
net_server http WEB
U="http://localhost:$WEB_PORT"
A="$WORK/audit.jsonl"
RULES='{"plugin":"rules","config":{"rules":[{"action":"allow","host":"localhost","methods":["GET"]},{"action":"deny","host":"localhost","status":405,"reason":"GET only on localhost"}]}}'
AUDIT='{"plugin":"audit","config":{"path":"'"$A"'"}}'
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[$RULES,$AUDIT]")

out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' $U/get/one" 2>"$WORK/err")
check "rules: GET to localhost goes through: 200 ($out)" [ "$out" = 200 ]
check "rules: the server saw the GET" grep -q "^GET /get/one HTTP/1.1" "$WEB_LOG"
sed 's/^/# /' "$WORK/err"

# the sandbox cannot write $WORK: the body comes back on stdout
srt__run --settings "$S" -c "$CURLP -w '\\n%{http_code}' -d secret=1 $U/post/one" >"$WORK/body" 2>"$WORK/err"
out=$(tail -n 1 "$WORK/body")
check "rules: POST is denied with the rule's status: 405 ($out)" [ "$out" = 405 ]
check "rules: the client is told why, naming the filter" \
	grep -q "request filter rules: .*GET only on localhost" "$WORK/body"
check "rules: the server never saw the POST" sh -c "! grep -q /post/ '$WEB_LOG'"
check "rules: the violation names the filter" \
	grep -q "deny network-outbound localhost:$WEB_PORT (request filter rules: " "$WORK/err"

check "audit: one line per request ($(wc -l < "$A" 2>/dev/null))" test "$(wc -l < "$A")" = 2
check "audit: the GET allowed with status 200, the POST denied by rules with 405" "$PY" -c '
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
assert a["method"] == "GET" and a["url"].endswith("/get/one"), a
assert a["verdict"] == "allow" and a["status"] == 200 and a["bytesDown"] == 6, a
assert b["method"] == "POST" and b["verdict"] == "deny" and b["filter"] == "rules", b
assert b["status"] == 405 and b["bytesUp"] == 0 and b["bytesDown"] == 0, b
' "$A"

# exec: an external decider (decider protocol v1) decides by the path
EXEC='{"plugin":"exec","config":{"command":["'"$PY"'","'"$top_srcdir"'/tests/helpers/decider.py","--log","'"$WORK"'/decider.log"]}}'
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[$EXEC]")
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' $U/allow/x" 2>"$WORK/err")
check "exec: the decider's allow: 200 ($out)" [ "$out" = 200 ]
check "exec: the server saw the allowed request" grep -q "^GET /allow/x HTTP/1.1" "$WEB_LOG"
srt__run --settings "$S" -c "$CURLP -w '\\n%{http_code}' $U/deny/y" >"$WORK/body" 2>"$WORK/err"
out=$(tail -n 1 "$WORK/body")
check "exec: the decider's deny: its status 451 ($out)" [ "$out" = 451 ]
check "exec: the decider's reason reaches the client" grep -q "the test decider says no" "$WORK/body"
check "exec: the server never saw the denied request" sh -c "! grep -q /deny/ '$WEB_LOG'"
check "exec: the violation names the exec filter" \
	grep -q "deny network-outbound localhost:$WEB_PORT (request filter exec" "$WORK/err"

# opaque tunnels reach the decider through the connection hook, once each,
# before anything is dialled: a req frame with method CONNECT, the target's
# host and port, path host:port and the TLS hello's server name when there
# is one (decider.py denies those 451); what flows inside is not asked about
: > "$WORK/decider.log"
out=$(srt__run --settings "$S" -c "$CURLP -p -o /dev/null -w '%{http_code}' $U/tunnel/exec" 2>"$WORK/err")
check "exec: a CONNECT tunnel the decider allows: 200 through it ($out)" \
	sh -c "[ '$out' = 200 ] && grep -q '^GET /tunnel/exec ' '$WEB_LOG'"
out=$(srt__run --settings "$S" -c "tok=\${HTTPS_PROXY#*://*:}; tok=\${tok%@*}; $CURLP -x \"socks5h://srt:\$tok@localhost:1080\" -o /dev/null -w '%{http_code}' $U/tunnel/exec-socks" 2>"$WORK/err")
check "exec: a SOCKS5 stream the decider allows: 200 through it ($out)" \
	sh -c "[ '$out' = 200 ] && grep -q '^GET /tunnel/exec-socks ' '$WEB_LOG'"
lines=$(wc -l < "$WEB_LOG")
out=$(srt__run --settings "$S" -c "$CURLP -k -x \"\$HTTPS_PROXY\" -o /dev/null -w '%{http_code}' https://localhost:$WEB_PORT/tls/exec" 2>"$WORK/err")
check "exec: a tunnel whose hello names a server the decider denies is closed, nothing reached the server ($out)" \
	sh -c "[ '$out' = 000 ] && [ \$(wc -l < '$WEB_LOG') = $lines ]"
check "exec: the violation names the exec filter and the decider's reason" \
	grep -q "request filter exec: decider: no TLS tunnels here" "$WORK/err"
sed 's/^/# /' "$WORK/err"
check "exec: the decider got one CONNECT frame per tunnel with host, port, path and sni" "$PY" -c '
import json, sys
port = int(sys.argv[2])
fs = [json.loads(l) for l in open(sys.argv[1])]
assert len(fs) == 3, fs
for f in fs:
    assert f["t"] == "req" and f["method"] == "CONNECT", f
    assert f["host"] == "localhost" and f["port"] == port, f
    assert f["path"] == "localhost:%d" % port and "headers" not in f, f
assert "sni" not in fs[0] and "sni" not in fs[1], fs
assert fs[2]["sni"] == "localhost", fs
' "$WORK/decider.log" "$WEB_PORT"

# a decider that never answers: 503 after the 5 s clock, and a request made
# meanwhile on another connection is served at once
out=$(srt__run --settings "$S" -c "
	$CURLP -o /dev/null -w 'slow=%{http_code} ' $U/sleep/z & sleep 0.5
	$CURLP -o /dev/null -w 'fast=%{http_code}@%{time_total} ' $U/allow/meanwhile; wait" 2>"$WORK/err")
fast_t=${out#*@}; fast_t=${fast_t%% *}
check "exec: the pending request fails closed with 503 ($out)" \
	sh -c "echo '$out' | grep -q 'slow=503' && ! grep -q /sleep/ '$WEB_LOG'"
check "exec: another request is served while one waits (fast in ${fast_t}s)" \
	sh -c "echo '$out' | grep -q 'fast=200' && awk 'BEGIN { exit !($fast_t < 4) }'"

# an allow with setHeaders on plain HTTP: refused 403 by default (no header
# set goes out in clear text unasked), applied with plaintextHeaderSet
srt__run --settings "$S" -c "$CURLP -w '\\n%{http_code}' $U/set/plain" >"$WORK/body" 2>"$WORK/err"
out=$(tail -n 1 "$WORK/body")
check "exec: setHeaders on plain HTTP is refused 403 by default ($out)" \
	sh -c "[ '$out' = 403 ] && grep -q plaintext_header_set '$WORK/body' && ! grep -q /set/plain '$WEB_LOG'"
EXECSET='{"plugin":"exec","config":{"command":["'"$PY"'","'"$top_srcdir"'/tests/helpers/decider.py"],"plaintextHeaderSet":true}}'
S2=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[$EXECSET]")
out=$(srt__run --settings "$S2" -c "$CURLP -o /dev/null -w '%{http_code}' $U/set/edited" 2>"$WORK/err")
check "exec: a pending allow's setHeaders are applied: 200 ($out)" [ "$out" = 200 ]
check "exec: the server saw the header the decider set" \
	grep -q "^GET /set/edited HTTP/1.1 .* xadded=1, 2" "$WEB_LOG"

# exec's need_body (no bodyMax set: the default bound applies): the decider
# sees the first 4 body bytes, sized and chunked, and denies; the server
# sees neither request
for how in sized chunked; do
	te=; [ $how = chunked ] && te="-H 'Transfer-Encoding: chunked'"
	srt__run --settings "$S" -c "$CURLP -w '\\n%{http_code}' $te --data-binary hello-body $U/body/$how" \
		>"$WORK/body" 2>"$WORK/err"
	out=$(tail -n 1 "$WORK/body")
	check "exec need_body ($how): 403 with the body the decider saw ($out: $(head -n 1 "$WORK/body"))" \
		sh -c "[ '$out' = 403 ] && grep -q 'body .hell. cut=True' '$WORK/body'"
	check "exec need_body ($how): the server never saw the request" \
		sh -c "! grep -q '/body/$how' '$WEB_LOG'"
done

# body-limit: a chunked upload past the host's cap is refused once counted
# (413, never forwarded); one under the cap goes through whole
LIMIT='{"plugin":"body-limit","config":{"default":8}}'
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[$LIMIT]")
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' --data-binary 0123456789abcdef $U/upload/big" 2>"$WORK/err")
check "body-limit: a chunked body past the cap: 413 and never forwarded ($out)" \
	sh -c "[ '$out' = 413 ] && ! grep -q /upload/big '$WEB_LOG'"
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' --data-binary 0123 $U/upload/small" 2>"$WORK/err")
check "body-limit: a chunked body under the cap reaches the server ($out)" \
	sh -c "[ '$out' = 200 ] && grep -q '^POST /upload/small HTTP/1.1 .* body=' '$WEB_LOG'"

# opaque tunnels (CONNECT, SOCKS5) meet the connection hook: audit records
# each one as a CONNECT line once it closes
A2="$WORK/audit2.jsonl"
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[{\"plugin\":\"audit\",\"config\":{\"path\":\"$A2\"}}]")
out=$(srt__run --settings "$S" -c "$CURLP -p -o /dev/null -w '%{http_code}' $U/tunnel/c" 2>"$WORK/err")
check "a CONNECT tunnel with filters set: 200 through it ($out)" \
	sh -c "[ '$out' = 200 ] && grep -q '^GET /tunnel/c ' '$WEB_LOG'"
out=$(srt__run --settings "$S" -c "tok=\${HTTPS_PROXY#*://*:}; tok=\${tok%@*}; $CURLP -x \"socks5h://srt:\$tok@localhost:1080\" -o /dev/null -w '%{http_code}' $U/tunnel/s" 2>"$WORK/err")
check "a SOCKS5 stream with filters set: 200 through it ($out)" \
	sh -c "[ '$out' = 200 ] && grep -q '^GET /tunnel/s ' '$WEB_LOG'"
check "audit: one CONNECT line per tunnel, with the bytes each way ($(grep -c '"CONNECT"' "$A2" 2>/dev/null))" "$PY" -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
assert len(ls) == 2 and all(l["method"] == "CONNECT" for l in ls), ls
assert all(l["bytesUp"] > 20 and l["bytesDown"] >= 40 for l in ls), ls
' "$A2"
sed "s/^/# /" "$A2"

# the connection hook sees the TLS ClientHello's server name: a `rules`
# rule with `sni` closes the tunnel before anything is dialled (the server
# is plain HTTP: a tunnel let through would put a TLS hello in its log)
SNIR='{"plugin":"rules","config":{"rules":[{"action":"deny","sni":"localhost","reason":"no TLS to localhost"}]}}'
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"filters\":[$SNIR]")
lines=$(wc -l < "$WEB_LOG")
out=$(srt__run --settings "$S" -c "$CURLP -k -x \"\$HTTPS_PROXY\" -o /dev/null -w '%{http_code}' https://localhost:$WEB_PORT/tls/x" 2>"$WORK/err")
check "rules sni: a CONNECT whose hello names localhost is closed, nothing reached the server ($out)" \
	sh -c "[ '$out' = 000 ] && [ \$(wc -l < '$WEB_LOG') = $lines ]"
check "and the violation names the filter and the server name" \
	grep -q "request filter rules: no TLS to localhost (TLS server name localhost)" "$WORK/err"
sed 's/^/# /' "$WORK/err"

# an external proxy's stream is relayed unparsed, so with filters set the
# proxy refuses to relay to it at all: nothing reaches the external proxy
net_server raw EXT
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '[]' "\"httpProxyPort\":$EXT_PORT,\"filters\":[$RULES]")
out=$(srt__run --settings "$S" -c "$CURLP -o /dev/null -w '%{http_code}' $U/ext/x" 2>"$WORK/err")
check "httpProxyPort with filters: refused, nothing reached the external proxy ($out)" \
	sh -c "[ '$out' != 200 ] && [ ! -s '$EXT_LOG' ] && ! grep -q /ext/ '$WEB_LOG'"
check "and the violation says why" grep -q "network.filters cannot judge what goes to the external proxy" "$WORK/err"
