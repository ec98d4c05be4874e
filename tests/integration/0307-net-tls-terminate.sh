#!/bin/sh
# network.tlsTerminate: the proxy terminates the sandbox's TLS with a CA of
# its own (ephemeral, or the user's), serves the requests inside through
# its HTTP handling and speaks verified TLS to the real server. Loopback
# HTTPS servers with a test CA of their own; srt trusts it through
# SSL_CERT_FILE in its own environment, as OpenSSL clients do.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 20

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 20); do skip "bwrap, openssl or curl missing"; done
	exit 0
fi

# N: srt and libsrt never link mbedTLS; only the module does
LIBSRT=$(ls "$top_builddir"/.libs/libsrt.so.* 2>/dev/null | head -n1)
check "N: neither srt nor libsrt links mbedTLS" sh -c \
	"! readelf -d '$top_builddir/.libs/srt' '$LIBSRT' | grep -qi mbed"

cd "$WORK"
ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
	-days 3 -subj "/CN=srt test CA" -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 -extfile ext
# a server known by its address only: its certificate names 127.0.0.1 as an
# iPAddress and nothing else; a second certificate names 127.0.0.2 as an
# iPAddress and "127.0.0.1" as a dNSName, which a client of 127.0.0.1 must
# refuse (an address is matched against iPAddress entries only)
printf 'subjectAltName=IP:127.0.0.1\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out ip.crt -days 2 -extfile ext
printf 'subjectAltName=IP:127.0.0.2,DNS:127.0.0.1\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out ipbad.crt -days 2 -extfile ext
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout bad.key -out bad.crt \
	-days 2 -subj "/CN=localhost" -addext subjectAltName=DNS:localhost
ossl req -x509 -newkey rsa:2048 -nodes -keyout rca.key -out rca.crt -days 3 -subj "/CN=srt RSA CA" \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
cd - >/dev/null

cat > "$WORK/tlssrv.py" <<'PYEOF'
import http.server, ssl, sys
log = open(sys.argv[4], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        log.write("GET %s host=%s\n" % (self.path, self.headers.get("Host")))
        b = ("hello %s\n" % self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(sys.argv[3] + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.serve_forever()
PYEOF
tls_server() { # NAME CERT KEY
	: > "$WORK/$1.log"
	"$PY" "$WORK/tlssrv.py" "$WORK/$2" "$WORK/$3" "$WORK/$1.port" "$WORK/$1.log" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do [ -s "$WORK/$1.port" ] && break; sleep 0.1; done
	[ -s "$WORK/$1.port" ] || { echo "Bail out! cannot start the TLS test server"; exit 1; }
	eval "${1}_PORT=\$(cat \"\$WORK/\$1.port\")"
}
tls_server GOOD srv.crt srv.key
tls_server BAD bad.crt bad.key
tls_server IP ip.crt srv.key
tls_server IPBAD ipbad.crt srv.key
# a server that ends its body with close_notify and keeps its socket open
# (openssl s_server -WWW: HTTP/1.0, no Content-Length)
WWW_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
head -c 300000 /dev/zero > "$WORK/www.bin"
(cd "$WORK" && exec openssl s_server -accept "$WWW_PORT" -cert srv.crt -key srv.key -WWW -quiet) >/dev/null 2>&1 &
NET_PIDS="$NET_PIDS $!"
export SSL_CERT_FILE="$WORK/ca.crt"

NETX='"privateAddresses":"allow","tlsTerminate":'
S=$(net_settings '["localhost","*.srt.test","127.0.0.1"]' '[]' "$NETX{}")
# a ClientHello whose server name (allowed, but not the CONNECT target) gets its
# certificate, and then every request is refused 421
cat > "$WORK/sni.py" <<'PYEOF'
import base64, os, socket, ssl, sys, urllib.parse
p = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
s = socket.create_connection((p.hostname, p.port), timeout=10)
auth = base64.b64encode(("%s:%s" % (p.username, p.password)).encode()).decode()
s.sendall(("CONNECT localhost:%s HTTP/1.1\r\nHost: localhost:%s\r\nProxy-Authorization: Basic %s\r\n\r\n" % (sys.argv[1], sys.argv[1], auth)).encode())
buf = b""
while b"\r\n\r\n" not in buf:
    buf += s.recv(1)
t = ssl.create_default_context().wrap_socket(s, server_hostname="a.srt.test")
t.sendall(b"GET /sni HTTP/1.1\r\nHost: a.srt.test\r\n\r\n")
print(t.recv(4096).decode(errors="replace"))
PYEOF
# one sandbox for the cases of the ephemeral CA (each srt run costs seconds)
cat > "$WORK/inside.sh" <<EOF
$CURLP -v https://localhost:$GOOD_PORT/one >out1 2>err1
NO_PROXY= no_proxy= $PY -c 'import urllib.request as u; print(u.urlopen("https://localhost:$GOOD_PORT/py", timeout=10).read().decode())' >out2 2>&1
env | grep -E '^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|CURL_CA_BUNDLE|REQUESTS_CA_BUNDLE|PIP_CERT|GIT_SSL_CAINFO|AWS_CA_BUNDLE|CARGO_HTTP_CAINFO|DENO_CERT|CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE|NIX_SSL_CERT_FILE)=' >out3
head -1 "\$SSL_CERT_FILE" >>out3
$CURLP -i https://localhost:$BAD_PORT/bad >out4 2>&1
$CURLP -i -H 'Host: other.srt.test' https://localhost:$GOOD_PORT/host >out5 2>&1
$PY $WORK/sni.py $GOOD_PORT >out6 2>&1
$CURLP https://localhost:$WWW_PORT/www.bin -o out7 -w '%{size_download}' >out7n 2>&1; echo \$? >out7rc
$CURLP -v https://127.0.0.1:$IP_PORT/ip >out8 2>err8
$CURLP -i https://127.0.0.1:$IPBAD_PORT/ipbad >out9 2>&1
EOF
srt__run --settings "$S" -c "sh $WORK/inside.sh" >"$WORK/out" 2>"$WORK/err"
P="$WORK/proj"
check "N: curl over HTTPS through termination gets the server's answer" grep -q '^hello /one' "$P/out1"
check "N: the certificate curl saw is the proxy's, for the host, from the ephemeral CA" sh -c \
	"grep -q 'subject: CN=localhost' '$P/err1' && grep -q 'issuer: CN=sandbox-runtime ephemeral CA' '$P/err1' && grep -q 'ALPN: server accepted http/1.1' '$P/err1'"
check "N: the request reached the real server with its Host" grep -q "^GET /one host=localhost:$GOOD_PORT" "$WORK/GOOD.log"
check "N: python urllib over HTTPS through termination" grep -q '^hello /py' "$P/out2"
check "N: the 11 trust variables name one readable bundle that starts with the CA" sh -c \
	"[ \$(grep -c '=.*/srt-ca-.*/trust-bundle.crt\$' '$P/out3') = 11 ] && grep -q '^-----BEGIN CERTIFICATE-----' '$P/out3'"
check "N: an upstream whose certificate cannot be trusted is answered 502 with the reason" sh -c \
	"grep -q '502 Bad Gateway' '$P/out4' && grep -q 'certificate cannot be trusted' '$P/out4'"
check "N: and it received no request" sh -c "! grep -q GET '$WORK/BAD.log'"
check "N: a Host header naming another host is refused 421" sh -c \
	"grep -q '421 Misdirected' '$P/out5' && ! grep -q '/host' '$WORK/GOOD.log'"
check "N: a server name other than the CONNECT target is answered 421 (violation)" sh -c \
	"grep -q '421 Misdirected' '$P/out6' && grep -q 'TLS server name a.srt.test does not match' '$WORK/err' && ! grep -q '/sni' '$WORK/GOOD.log'"
check "N: a body ended by the server's close_notify ends, whole (curl $(cat "$P/out7rc" 2>/dev/null), $(cat "$P/out7n" 2>/dev/null) bytes)" \
	sh -c "[ \"\$(cat '$P/out7rc')\" = 0 ] && cmp -s '$P/out7' '$WORK/www.bin'"
check "N: an IP-literal target is terminated with a leaf for the address, and answered" sh -c \
	"grep -q '^hello /ip' '$P/out8' && grep -q 'subject: CN=127.0.0.1' '$P/err8' && grep -q 'issuer: CN=sandbox-runtime ephemeral CA' '$P/err8' && grep -q '^GET /ip host=127.0.0.1:$IP_PORT' '$WORK/IP.log'"
check "N: curl matched the leaf's iPAddress entry" grep -q "IP address" "$P/err8"
check "N: an IP-literal upstream whose certificate names another address is refused 502" sh -c \
	"grep -q '502 Bad Gateway' '$P/out9' && grep -q 'does not name the address 127.0.0.1' '$P/out9' && ! grep -q GET '$WORK/IPBAD.log'"

S=$(net_settings '["localhost"]' '[]' "$NETX{\"caCertPath\":\"$WORK/ca.crt\",\"caKeyPath\":\"$WORK/ca.key\"}")
srt__run --settings "$S" -c "$CURLP -v https://localhost:$GOOD_PORT/ec" >"$WORK/out" 2>"$WORK/err"
check "N: the user's EC CA issues the leaf" sh -c \
	"grep -q '^hello /ec' '$WORK/out' && grep -q 'issuer: CN=srt test CA' '$WORK/err'"
S=$(net_settings '["localhost"]' '[]' "$NETX{\"caCertPath\":\"$WORK/rca.crt\",\"caKeyPath\":\"$WORK/rca.key\"}")
srt__run --settings "$S" -c "$CURLP -v https://localhost:$GOOD_PORT/rsa" >"$WORK/out" 2>"$WORK/err"
check "N: the user's RSA CA issues the leaf" sh -c \
	"grep -q '^hello /rsa' '$WORK/out' && grep -q 'issuer: CN=srt RSA CA' '$WORK/err'"

MARK="$WORK/ran"
S=$(net_settings '["localhost"]' '[]' "$NETX{\"caCertPath\":\"$WORK/ca.crt\",\"caKeyPath\":\"$WORK/rca.key\"}")
srt__run --settings "$S" -c "touch $MARK" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: a CA whose key does not match is refused with one clear line" sh -c \
	"[ $rc = 1 ] && [ ! -e '$MARK' ] && grep -q 'tlsTerminate: CA at $WORK/ca.crt: the key at $WORK/rca.key does not match the certificate' '$WORK/err'"
S=$(net_settings '["localhost"]' '[]' "$NETX{\"caCertPath\":\"$WORK/nope.crt\",\"caKeyPath\":\"$WORK/ca.key\"}")
srt__run --settings "$S" -c "touch $MARK" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: a CA file that cannot be read is refused naming it" sh -c \
	"[ $rc = 1 ] && [ ! -e '$MARK' ] && grep -q 'tlsTerminate.caCertPath: cannot read $WORK/nope.crt' '$WORK/err'"

S=$(net_settings '["localhost"]' '[]' "$NETX{\"excludeDomains\":[\"localhost\"]}")
srt__run --settings "$S" -c "$CURLP -v https://localhost:$GOOD_PORT/ex" >"$WORK/out" 2>"$WORK/err"
check "N: excludeDomains are tunnelled opaquely (the server's own certificate)" sh -c \
	"grep -q '^hello /ex' '$WORK/out' && grep -q 'issuer: CN=srt test CA' '$WORK/err'"

S=$(settings "{\"network\":{\"allowedDomains\":[\"localhost\"],\"deniedDomains\":[],$NETX{}},$NET_FS,\"credentials\":{\"envVars\":[{\"name\":\"X_TOKEN\",\"mode\":\"deny\"}]}}")
X_TOKEN=real-x-token srt__run --settings "$S" -c "env > envout" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: credentials run beside tlsTerminate (a denied variable is unset inside)" sh -c \
	"[ $rc = 0 ] && grep -q '^HOME=' '$P/envout' && ! grep -q X_TOKEN '$P/envout'"
