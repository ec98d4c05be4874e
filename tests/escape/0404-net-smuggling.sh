#!/bin/bash
# Escape class: request smuggling and host confusion through the plain-HTTP
# proxy. A is an allowed loopback server, D a
# denied one; both log every request line they get. Raw requests (CL+TE,
# duplicate and disguised lengths and encodings, chunk-size tricks,
# absolute-form vs Host mismatch, userinfo / fragment / backslash
# authorities, pipelined requests on a kept-alive connection, bytes after
# a refused CONNECT) must never make D log anything, nor make A receive a
# request meant for D. Runs in a network namespace of its own.
. "$(dirname "$0")/netns.sh"
skip_without_netns SMUGGLE
net_server http A
net_server http D
S=$(net_settings "[\"127.0.0.1:$A_PORT\",\"localhost:$A_PORT\"]" '[]')
a="127.0.0.1:$A_PORT"; d="127.0.0.1:$D_PORT"
mkdir -p "$P/req"
n=0
req() { n=$((n + 1)); cat > "$P/req/$(printf '%02d' $n)-$1"; }
req cl-te <<EOF2
POST http://$a/cl-te HTTP/1.1
Host: $a
@AUTH@
Content-Length: 49
Transfer-Encoding: chunked

0

GET http://$d/smuggled-cl-te HTTP/1.1
Host: $d

EOF2
req te-cl <<EOF2
POST http://$a/te-cl HTTP/1.1
Host: $a
@AUTH@
Transfer-Encoding: chunked
Content-Length: 4

5c
GET http://$d/smuggled-te-cl HTTP/1.1
Host: $d
Content-Length: 10

x=
0

EOF2
req dup-cl <<EOF2
POST http://$a/dup-cl HTTP/1.1
Host: $a
@AUTH@
Content-Length: 0
Content-Length: 48

GET http://$d/smuggled-dup HTTP/1.1
Host: $d

EOF2
req cl-list <<EOF2
POST http://$a/cl-list HTTP/1.1
Host: $a
@AUTH@
Content-Length: 0, 48

GET http://$d/smuggled-list HTTP/1.1
Host: $d

EOF2
for te in 'Transfer-Encoding: xchunked' 'Transfer-Encoding: chunked, identity' 'Transfer-Encoding : chunked' \
	'Transfer-Encoding: chunked
Transfer-Encoding: identity' 'Transfer-Encoding:
 chunked' 'Transfer-encoding: CHUNKED'; do
	req te-variant <<EOF2
POST http://$a/te-variant HTTP/1.1
Host: $a
@AUTH@
$te
Content-Length: 3

0

GET http://$d/smuggled-te-variant HTTP/1.1
Host: $d

EOF2
done
req chunk-overflow <<EOF2
POST http://$a/chunk-overflow HTTP/1.1
Host: $a
@AUTH@
Transfer-Encoding: chunked

10000000000000003
abc
0

GET http://$d/smuggled-overflow HTTP/1.1
Host: $d

EOF2
req chunk-ext <<EOF2
POST http://$a/chunk-ext HTTP/1.1
Host: $a
@AUTH@
Transfer-Encoding: chunked

3;x="0
GET http://$d/smuggled-ext HTTP/1.1"
abc
0

EOF2
req host-mismatch <<EOF2
GET http://$a/host-mismatch HTTP/1.1
Host: $d
@AUTH@

EOF2
req origin-form <<EOF2
GET /origin-form HTTP/1.1
Host: $d
@AUTH@

EOF2
req two-hosts <<EOF2
GET http://$a/two-hosts HTTP/1.1
Host: $a
Host: $d
@AUTH@

EOF2
for u in "http://$a@$d/userinfo" "http://$d#@$a/fragment" "http://$a\\@$d/backslash" "http://$d?@$a/query" \
	"HTTP://$d/upper-scheme" "http:/$d/one-slash" "http:///$d/three-slashes" "http://$a:$D_PORT/two-ports" \
	"http://$d%2f@$a/pct" "https://$d/https-scheme"; do
	req authority <<EOF2
GET $u HTTP/1.1
Host: $a
@AUTH@

EOF2
done
req pipeline <<EOF2
GET http://$a/pipe-one HTTP/1.1
Host: $a
@AUTH@

GET http://$d/pipe-two HTTP/1.1
Host: $d
@AUTH@

GET http://$a/pipe-three HTTP/1.1
Host: $a

EOF2
req connect-early <<EOF2
CONNECT $d HTTP/1.1
Host: $d
@AUTH@

GET http://$d/after-refused-connect HTTP/1.1
Host: $d
@AUTH@

EOF2
req connect-then-get <<EOF2
CONNECT $a HTTP/1.1
Host: $a
@AUTH@

GET /in-tunnel HTTP/1.1
Host: $d

EOF2

ls "$P/req" | sed 's|^|raw req/|' > "$P/requests"
echo "http $a /control" >> "$P/requests"
proxy_batch -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.5
attempt SMUGGLE "every raw request got an answer line ($(grep -c -- '->' "$WORK/out") of $((n + 1)))" \
	test "$(grep -c -- '->' "$WORK/out")" = $((n + 1))
attempt SMUGGLE "control: the proxy still serves an allowed request afterwards" grep -q "^http $a /control -> 200" "$WORK/out"
attempt SMUGGLE "the denied server logged nothing ($(wc -l < "$D_LOG") lines)" test ! -s "$D_LOG"
# (the GET sent inside the CONNECT tunnel to A is A's to judge: excluded)
attempt SMUGGLE "the allowed server got no request meant for the denied one" \
	sh -c "! grep -v '^GET /in-tunnel ' '$A_LOG' | grep -Eq 'smuggled|pipe-two|after-refused|host=127.0.0.1:$D_PORT|/upper-scheme|/https-scheme|/one-slash|/three-slashes'"
for t in cl-te te-cl dup-cl cl-list; do
	l=$(grep -- "-$t ->" "$WORK/out")
	attempt SMUGGLE "$t refused with 400 (${l##*-> })" sh -c "printf '%s' '$l' | grep -Eq -- '-> 400\$'"
done
l=$(grep -- "-pipeline ->" "$WORK/out")
attempt SMUGGLE "pipelined: the first answered, the second refused or the connection closed (${l##*-> })" \
	sh -c "printf '%s' '$l' | grep -Eq -- '-> 200( 403)?( 407)?\$'"
sed 's/^/# /' "$WORK/out" | grep -v -- '-> 400$' | head -40

echo "1..$_tap_n"
