#!/bin/sh
# Real TLS clients inside the sandbox through network.tlsTerminate: Python
# requests, Node's https, git clone and push over HTTPS to a loopback
# `git http-backend` behind TLS, and a byte-exact 64 MiB download and
# upload (checksums on both ends), the download after another one the
# client cut off after 1 MiB (the proxy's crypto threads mid-transfer). Each trusts srt's CA through the trust
# variables srt sets; each server is on loopback with a test CA of its own,
# which srt trusts through SSL_CERT_FILE in its own environment. And an
# expired CA is refused before anything runs.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 9

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1 || [ ! -x "$PY" ]; then
	for i in $(seq 9); do skip "bwrap, openssl, curl or python3 missing"; done
	exit 0
fi

cd "$WORK"
ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
	-days 3 -subj "/CN=srt test CA" -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 -extfile ext
# an expired CA (openssl ca sets dates in the past; req -x509 cannot)
printf '[ca]\ndefault_ca=c\n[c]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\nx509_extensions=x\n[p]\ncommonName=supplied\n[x]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n' > c.cnf
: > index.txt; echo 01 > serial
ossl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout old.key -out old.csr -subj "/CN=old CA"
ossl ca -batch -config c.cnf -selfsign -keyfile old.key -in old.csr -out old.crt \
	-startdate 20200101000000Z -enddate 20200102000000Z -notext
head -c 67108864 /dev/urandom > big.bin
BIG_SUM=$(sha256sum big.bin | cut -d' ' -f1)
cd - >/dev/null

# GET: "hello PATH"; PUT: the body's SHA-256, streamed
cat > "$WORK/srv.py" <<'PYEOF'
import hashlib, http.server, os, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def reply(self, b):
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        self.reply(("hello %s\n" % self.path).encode())
    def do_PUT(self):
        left, h = int(self.headers["Content-Length"]), hashlib.sha256()
        while left:
            b = self.rfile.read(min(left, 1 << 20))
            if not b:
                break
            h.update(b)
            left -= len(b)
        self.reply((h.hexdigest() + "\n").encode())
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(sys.argv[3] + ".tmp", "w").write(str(s.server_address[1]))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.serve_forever()
PYEOF
wait_port() { # FILE
	for i in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	echo "Bail out! a test server did not start"; exit 1
}
"$PY" "$WORK/srv.py" "$WORK/srv.crt" "$WORK/srv.key" "$WORK/web.port" &
NET_PIDS="$NET_PIDS $!"
WWW_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$WORK" && exec openssl s_server -accept "$WWW_PORT" -cert srv.crt -key srv.key -WWW -quiet) >/dev/null 2>&1 &
NET_PIDS="$NET_PIDS $!"

BACKEND_CGI=
for d in "$(git --exec-path 2>/dev/null)" /usr/lib/git-core /usr/libexec/git-core; do
	[ -n "$d" ] && [ -x "$d/git-http-backend" ] && { BACKEND_CGI=$d/git-http-backend; break; }
done
G="git -c user.name=srt-test -c user.email=srt-test@localhost -c init.defaultBranch=main"
if [ -n "$BACKEND_CGI" ]; then
	mkdir -p "$WORK/srv" "$WORK/seed"
	$G init -q --bare "$WORK/srv/repo.git" && git -C "$WORK/srv/repo.git" config http.receivepack true &&
		$G init -q "$WORK/seed" && echo "seeded by the host" > "$WORK/seed/README" &&
		git -C "$WORK/seed" add README && $G -C "$WORK/seed" commit -q -m seed &&
		git -C "$WORK/seed" push -q "$WORK/srv/repo.git" HEAD:refs/heads/main ||
		{ echo "Bail out! cannot seed the server's repository"; exit 1; }
	: > "$WORK/git.log"
	"$PY" "$top_srcdir/tests/helpers/git-http.py" "$BACKEND_CGI" "$WORK/srv" "$WORK/git.port" \
		"$WORK/git.log" "$WORK/srv.crt" "$WORK/srv.key" &
	NET_PIDS="$NET_PIDS $!"
	wait_port "$WORK/git.port"
fi
wait_port "$WORK/web.port"
WEB_PORT=$(cat "$WORK/web.port")
export SSL_CERT_FILE="$WORK/ca.crt"

# Node's https does not read the proxy variables: CONNECT by hand, then TLS
# over that socket, trusting NODE_EXTRA_CA_CERTS as Node does by itself
cat > "$WORK/node.js" <<'JSEOF'
const http = require("http"), https = require("https"), tls = require("tls");
const p = new URL(process.env.HTTPS_PROXY || process.env.https_proxy);
const target = process.argv[2];
const auth = "Basic " + Buffer.from(decodeURIComponent(p.username) + ":" +
	decodeURIComponent(p.password)).toString("base64");
http.request({ host: p.hostname, port: p.port, method: "CONNECT", path: target,
	headers: { host: target, "proxy-authorization": auth } }).on("connect", (res, sock) => {
	if (res.statusCode !== 200) { console.log("CONNECT " + res.statusCode); process.exit(1); }
	https.get({ host: "localhost", port: Number(target.split(":")[1]), path: "/node", servername: "localhost",
		createConnection: () => tls.connect({ socket: sock, servername: "localhost" }) }, (r) => {
		let b = ""; r.on("data", (d) => b += d); r.on("end", () => console.log(b.trim()));
	}).on("error", (e) => { console.log("error " + e.message); process.exit(1); });
}).on("error", (e) => { console.log("error " + e.message); process.exit(1); }).end();
JSEOF

GITP='unset NO_PROXY no_proxy; export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1; git -c http.lowSpeedLimit=1 -c http.lowSpeedTime=20 -c user.name=srt-test -c user.email=srt-test@localhost'
GIT_PORT=$(cat "$WORK/git.port" 2>/dev/null || echo 0)
cat > "$WORK/inside.sh" <<SHEOF
unset NO_PROXY no_proxy
$PY -c 'import requests; print(requests.get("https://localhost:$WEB_PORT/requests", timeout=20).text)' >out1 2>&1
node $WORK/node.js localhost:$WEB_PORT >out2 2>&1
$CURLP --max-time 60 https://localhost:$WWW_PORT/big.bin 2>/dev/null | head -c 1048576 | wc -c >out7
$CURLP --max-time 60 https://localhost:$WWW_PORT/big.bin 2>out3e | sha256sum >out3
$CURLP --max-time 60 -T $WORK/big.bin https://localhost:$WEB_PORT/up >out4 2>&1
if [ $GIT_PORT != 0 ]; then
	($GITP clone -q https://localhost:$GIT_PORT/repo.git clone && cat clone/README) >out5 2>&1
	(cd clone && echo pushed > pushed && $GITP add pushed && $GITP commit -q -m push &&
	 $GITP push -q origin HEAD:refs/heads/main) >out6 2>&1
	echo \$? >out6rc
fi
SHEOF
S=$(net_settings '["localhost"]' '[]' '"privateAddresses":"allow","tlsTerminate":{}')
timeout -k 5 120 "$SRT" --backend="$BACKEND" --settings "$S" -c "sh $WORK/inside.sh" >"$WORK/out" 2>"$WORK/err"
P="$WORK/proj"

if "$PY" -c 'import requests' 2>/dev/null; then
	check "N: Python requests over HTTPS through termination ($(head -c 80 "$P/out1"))" \
		grep -q '^hello /requests' "$P/out1"
else
	skip "python3-requests is not installed"
fi
if command -v node >/dev/null 2>&1; then
	check "N: Node's https through termination, trusting NODE_EXTRA_CA_CERTS ($(head -c 80 "$P/out2"))" \
		grep -q '^hello /node' "$P/out2"
else
	skip "node is not installed"
fi
check "N: a download the client cuts off after 1 MiB ($(cat "$P/out7" 2>/dev/null) bytes read)" \
	grep -q '^1048576$' "$P/out7"
check "N: then a 64 MiB download through termination is byte-exact (sha256)" \
	grep -q "^$BIG_SUM " "$P/out3"
check "N: a 64 MiB upload through termination is byte-exact (the server's sha256)" \
	grep -q "^$BIG_SUM\$" "$P/out4"
if [ -n "$BACKEND_CGI" ]; then
	check "N: git clone over HTTPS through termination" grep -q "seeded by the host" "$P/out5"
	check "N: git push over HTTPS through termination (exit $(cat "$P/out6rc" 2>/dev/null))" sh -c \
		"[ \"\$(cat '$P/out6rc')\" = 0 ] && git -C '$WORK/srv/repo.git' show main:pushed | grep -q pushed"
	check "N: the git server saw the push's POST" grep -q 'POST /repo.git/git-receive-pack' "$WORK/git.log"
else
	for i in 1 2 3; do skip "git http-backend missing"; done
fi
sed 's/^/# /' "$P/out3e" "$P/out6" 2>/dev/null | head -10

MARK="$WORK/ran"
S=$(net_settings '["localhost"]' '[]' "\"tlsTerminate\":{\"caCertPath\":\"$WORK/old.crt\",\"caKeyPath\":\"$WORK/old.key\"}")
srt__run --settings "$S" -c "touch $MARK" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: an expired CA is refused with one line naming it, and nothing runs" sh -c \
	"[ $rc = 1 ] && [ ! -e '$MARK' ] && grep -q 'tlsTerminate: CA at $WORK/old.crt: the certificate has expired' '$WORK/err'"
