#!/bin/sh
# credentials: masked variables hold sentinels inside the sandbox, and the
# proxy puts the real value back only in requests to that credential's own
# hosts (injectHosts), in headers and in bodies (Content-Length kept, or
# chunked), inside TLS it terminated. A request to any other allowed host
# carries the sentinel. The real values appear nowhere inside the sandbox.
# A loopback HTTPS server with a test CA of its own records what arrives.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 22

if ! command -v bwrap >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 22); do skip "bwrap, openssl or curl missing"; done
	exit 0
fi

# N: the patterns are applied in the credentials module; libsrt links
# PCRE2 only to check them when the settings are read (one engine for
# both), and srt's own program links none of it
LIBSRT=$(ls "$top_builddir"/.libs/libsrt.so.* 2>/dev/null | head -n1)
check "N: libsrt checks patterns with PCRE2, srt itself does not link it" sh -c \
	"readelf -d '$LIBSRT' | grep -qi pcre && ! readelf -d '$top_builddir/.libs/srt' | grep -qi pcre"

cd "$WORK"
ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
	-days 3 -subj "/CN=srt test CA" -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.csr -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost\n' > ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 -extfile ext
cd - >/dev/null

# the server writes one line per request: path, Authorization, X-Key, the
# body's framing and the body
cat > "$WORK/credsrv.py" <<'PYEOF'
import http.server, ssl, sys, os
log = open(sys.argv[4], "a", buffering=1)
def sigv4(h, body):
    # AWS's side: does the request carry a valid signature under the real key?
    auth = h.headers.get("Authorization") or ""
    if not auth.startswith("AWS4-HMAC-SHA256") or not os.environ.get("REAL_AKID"):
        return ""
    try:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
    except ImportError:
        return " sigv4=unchecked"
    fields = dict(p.strip().split("=", 1) for p in auth.partition(" ")[2].split(","))
    key_id, _, scope = fields["Credential"].partition("/")
    date, region, svc, _ = scope.split("/")
    names = fields["SignedHeaders"].split(";")
    req = AWSRequest(method=h.command, url="https://" + h.headers["Host"] + h.path, data=body)
    for k in names:
        req.headers[k] = h.headers[k]
    req.context["timestamp"] = h.headers["X-Amz-Date"]
    signer = SigV4Auth(Credentials(os.environ["REAL_AKID"], os.environ["REAL_SECRET"]), svc, region)
    want = signer.signature(signer.string_to_sign(req, signer.canonical_request(req)), req)
    return " sigv4=%s keyid=%s" % ("valid" if want == fields["Signature"] else "invalid", key_id)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0], 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return "chunked", out
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length", "0"))
        return "cl=%d" % n, self.rfile.read(n)
    def answer(self, framing, body):
        log.write("%s %s auth=[%s] xkey=[%s] %s body=[%s]%s\n" % (self.command, self.path,
                  self.headers.get("Authorization"), self.headers.get("X-Key"), framing,
                  body.decode(errors="replace"), sigv4(self, body)))
        b = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self): self.answer("-", b"")
    def do_POST(self): self.answer(*self.body())
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(sys.argv[3] + ".tmp", "w").write(str(s.server_address[1]))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.serve_forever()
PYEOF
: > "$WORK/srv.log"
# two servers: the credential's own host, and another allowed one (the
# same name on another port: the loopback is all a test may reach)
REAL_AKID=AKIAREALKEYREALKEY12 REAL_SECRET=Re4lSecretKeyRe4lSecretKeyRe4lSecretKey1
for n in srv other; do
	REAL_AKID=$REAL_AKID REAL_SECRET=$REAL_SECRET "$PY" "$WORK/credsrv.py" "$WORK/srv.crt" "$WORK/srv.key" "$WORK/$n.port" "$WORK/srv.log" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do [ -s "$WORK/$n.port" ] && break; sleep 0.1; done
	[ -s "$WORK/$n.port" ] || { echo "Bail out! cannot start the TLS test server"; exit 1; }
done
PORT=$(cat "$WORK/srv.port")
OPORT=$(cat "$WORK/other.port")
export SSL_CERT_FILE="$WORK/ca.crt"

# the real values (srt's own environment)
export MY_TOKEN=supersecretvalue123-abcdefghijkl
export SHORT_TOKEN=s3cr3t
export DB_URL='postgres://user:pa55word-real@db:5432/x'
export DENIED_VAR=denied-real-value
export AWS_ACCESS_KEY_ID=$REAL_AKID AWS_SECRET_ACCESS_KEY=$REAL_SECRET
# a JWT: header {"alg":"HS256","typ":"JWT"}, payload {"sub":"user-real","k":"claimsecret"}
export JWT_TOKEN=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLXJlYWwiLCJrIjoiY2xhaW1zZWNyZXQifQ.c2lnbmF0dXJlLXJlYWw
REALS="$REAL_SECRET $REAL_AKID realfiletoken supersecretvalue123-abcdefghijkl s3cr3t pa55word-real denied-real-value eyJzdWIiOiJ1c2VyLXJlYWwiLCJrIjoiY2xhaW1zZWNyZXQifQ c2lnbmF0dXJlLXJlYWw"

CREDS='"credentials":{"envVars":[
 {"name":"MY_TOKEN","mode":"mask","injectHosts":["localhost:'"$PORT"'"]},
 {"name":"SHORT_TOKEN","mode":"mask","injectHosts":["localhost:'"$PORT"'"]},
 {"name":"DB_URL","mode":"mask","extract":"://[^:]+:([^@]+)@"},
 {"name":"JWT_TOKEN","mode":"mask","decode":"jwt","maskClaims":["k"]},
 {"name":"DENIED_VAR","mode":"deny"},
 {"name":"AWS_ACCESS_KEY_ID","mode":"mask"},{"name":"AWS_SECRET_ACCESS_KEY","mode":"mask"},
 {"name":"NOMATCH_VAR","mode":"mask","extract":"token:\\s*(\\S+)","onExtractNoMatch":"deny"}],
 "files":[{"path":"'"$WORK"'/denied.yml","mode":"deny"},
  {"path":"'"$WORK"'/masked.yml","mode":"mask","extract":"token:\\s*(\\S+)"}]}'
export NOMATCH_VAR=nothing-here
printf 'oauth_token: realfiletoken-denied\n' > "$WORK/denied.yml"
printf 'name: keep-this\ntoken:   realfiletoken-masked\nlast: line\n' > "$WORK/masked.yml"
S=$(settings "{\"network\":{\"allowedDomains\":[\"localhost\"],\"deniedDomains\":[],\"privateAddresses\":\"allow\",\"tlsTerminate\":{}},$NET_FS,$CREDS}")
# an AWS client inside: botocore signs with the (masked) keys it finds
cat > "$WORK/awsclient.py" <<'PYEOF'
import os, sys, urllib.request
url = sys.argv[1]
hdrs = {}
if len(sys.argv) < 3:
    try:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
    except ImportError:
        print("no botocore"); sys.exit(0)
    r = AWSRequest(method="GET", url=url)
    SigV4Auth(Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]),
              "sts", "us-east-1").add_auth(r)
    hdrs = dict(r.headers.items())
try:
    print(urllib.request.urlopen(urllib.request.Request(url, headers=hdrs), timeout=10).status)
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode(errors="replace"))
PYEOF

cat > "$WORK/inside.sh" <<EOF
env >env.txt
tr '\0' '\n' </proc/self/environ >environ.txt
cat /proc/\$\$/cmdline >>environ.txt
$CURLP -H "Authorization: Bearer \$MY_TOKEN" https://localhost:$PORT/inject >/dev/null
$CURLP -H "Authorization: Bearer \$MY_TOKEN" https://localhost:$OPORT/other >/dev/null
$CURLP -H "X-Key: \$SHORT_TOKEN" -d "token=\$MY_TOKEN&db=\$DB_URL" https://localhost:$PORT/body >/dev/null
$CURLP -H "Transfer-Encoding: chunked" -d "k=\$SHORT_TOKEN;t=\$MY_TOKEN" https://localhost:$PORT/chunked >/dev/null
$CURLP -d "t=\$MY_TOKEN" https://localhost:$OPORT/otherbody >/dev/null
printf '%s\n' "\$MY_TOKEN" >mytoken.txt
cat $WORK/denied.yml >files.txt 2>&1
cat $WORK/masked.yml >masked.txt 2>&1
FTOK=\$(sed -n 's/^token: *//p' $WORK/masked.yml)
$CURLP -H "X-Key: \$FTOK" https://localhost:$PORT/filetoken >/dev/null
(echo x >>$WORK/masked.yml) 2>/dev/null && echo appended >write.txt
(: >$WORK/masked.yml) 2>/dev/null && echo truncated >>write.txt
(mv $WORK/masked.yml $WORK/moved.yml) 2>/dev/null && echo moved >>write.txt
(ln $WORK/masked.yml hardlink.yml) 2>/dev/null && echo linked >>write.txt
cat /proc/self/mountinfo >mountinfo.txt
ls -A ${TMPDIR:-/tmp}/srt-*/masked >maskdir.txt 2>&1
cat ${TMPDIR:-/tmp}/srt-*/masked/* >>maskdir.txt 2>&1
NO_PROXY= no_proxy= $PY $WORK/awsclient.py https://localhost:$PORT/aws-signed >aws1.txt 2>&1
NO_PROXY= no_proxy= $PY $WORK/awsclient.py "https://localhost:$PORT/aws-presigned?X-Amz-Credential=\$AWS_ACCESS_KEY_ID%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=00" unsigned >aws2.txt 2>&1
EOF
srt__run --settings "$S" -c "sh $WORK/inside.sh" >"$WORK/out" 2>"$WORK/err"
[ -n "${CRED_DEBUG:-}" ] && cat "$WORK/srv.log" "$WORK/err" "$WORK/proj/masked.txt" "$WORK/proj/aws1.txt" "$WORK/proj/aws2.txt" >&2
P="$WORK/proj"
FAKE=$(sed -n 's/^MY_TOKEN=//p' "$P/env.txt")
check "F: a masked variable holds a sentinel of the real value's length ($FAKE)" sh -c \
	"case '$FAKE' in fake_*) [ ${#FAKE} = ${#MY_TOKEN} ];; *) false;; esac"
check "F: a denied variable is unset; an extract with no match and onExtractNoMatch deny too" sh -c \
	"! grep -q '^DENIED_VAR=' '$P/env.txt' && ! grep -q '^NOMATCH_VAR=' '$P/env.txt'"
check "F: a denied credential file cannot be read" grep -q 'Permission denied\|No such file' "$P/files.txt"
FTOK=$(sed -n 's/^token: *//p' "$P/masked.txt")
check "F: a masked file reads as its copy: the sentinel, same length, the rest unchanged ($FTOK)" sh -c \
	"case '$FTOK' in fake_*) [ ${#FTOK} = 20 ];; *) false;; esac && [ \$(wc -l <'$P/masked.txt') = 3 ] &&
	 head -n1 '$P/masked.txt' | grep -qx 'name: keep-this' && tail -n1 '$P/masked.txt' | grep -qx 'last: line' &&
	 grep -qx 'token:   $FTOK' '$P/masked.txt'"
check "F: the masked file cannot be written, truncated, moved or hard-linked inside, and is intact outside" sh -c \
	"[ ! -s '$P/write.txt' ] && grep -qx 'token:   realfiletoken-masked' '$WORK/masked.yml' && [ \$(wc -l <'$WORK/masked.yml') = 3 ]"
check "N: the sentinel read from the masked file reaches the injectHost as the real value" grep -q \
	"^GET /filetoken auth=\[None\] xkey=\[realfiletoken-masked\]" "$WORK/srv.log"
check "F: extract masks only group 1" grep -Eq '^DB_URL=postgres://user:fake_[a-z0-9]+@db:5432/x$' "$P/env.txt"
check "F: decode jwt with maskClaims keeps the token's shape and header" grep -Eq \
	'^JWT_TOKEN=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\.[A-Za-z0-9_-]+\.c3J0LWZha2U$' "$P/env.txt"
leak=
for r in $REALS; do
	grep -rqF -- "$r" "$P" && leak="$leak $r"
	grep -rqF -- "$r" "$WORK/out" && leak="$leak $r(stdout)"
done
check "F: no real value anywhere inside (env, /proc/self/environ, mountinfo, srt's copies, files written)${leak:+:$leak}" \
	[ -z "$leak" ]
check "N: the real value reaches its injectHost in a header" grep -q \
	"^GET /inject auth=\[Bearer $MY_TOKEN\]" "$WORK/srv.log"
check "N: another allowed host gets the sentinel, not the value" sh -c \
	"grep -q '^GET /other auth=\[Bearer $FAKE\]' '$WORK/srv.log' && ! grep '^GET /other' '$WORK/srv.log' | grep -qF '$MY_TOKEN'"
check "N: a Content-Length body gets the real values (chunked: a sentinel longer than its value)" grep -q \
	"^POST /body auth=\[None\] xkey=\[s3cr3t\] chunked body=\[token=$MY_TOKEN&db=postgres://user:pa55word-real@db:5432/x\]" "$WORK/srv.log"
check "N: a chunked body gets the real values" grep -q \
	"^POST /chunked .* chunked body=\[k=s3cr3t;t=$MY_TOKEN\]" "$WORK/srv.log"
check "N: a body to another host keeps the sentinel" grep -q \
	"^POST /otherbody .* body=\[t=$FAKE\]" "$WORK/srv.log"

if "$PY" -c 'import botocore' 2>/dev/null; then
	check "N: a request SigV4-signed with the masked AWS key arrives re-signed with the real one" grep -q \
		"^GET /aws-signed .* sigv4=valid keyid=$REAL_AKID" "$WORK/srv.log"
else
	skip "python3-botocore missing (apt-get install python3-botocore)"
fi
check "N: a presigned URL made with the masked key is refused 403 naming the setting" sh -c \
	"grep -q '^403 .*presigned' '$P/aws2.txt' && ! grep -q aws-presigned '$WORK/srv.log'"
check "F: the AWS sentinels are what the sandbox sees" grep -q '^AWS_SECRET_ACCESS_KEY=fake_' "$P/env.txt"

# same-length sentinels keep the Content-Length
S=$(settings "{\"network\":{\"allowedDomains\":[\"localhost\"],\"deniedDomains\":[],\"privateAddresses\":\"allow\",\"tlsTerminate\":{}},$NET_FS,\"credentials\":{\"envVars\":[{\"name\":\"MY_TOKEN\",\"mode\":\"mask\"}]}}")
srt__run --settings "$S" -c "$CURLP -d \"a=\$MY_TOKEN\" https://localhost:$PORT/samelen" >"$WORK/out" 2>"$WORK/err"
check "N: sentinels of the value's length keep the body's Content-Length" grep -q \
	"^POST /samelen .* cl=$((${#MY_TOKEN} + 2)) body=\[a=$MY_TOKEN\]" "$WORK/srv.log"

# plain HTTP: no injection without allowPlaintextInject
MARK="$WORK/ran"
S=$(settings "{\"network\":{\"allowedDomains\":[\"localhost\"],\"deniedDomains\":[]},$NET_FS,\"credentials\":{\"envVars\":[{\"name\":\"MY_TOKEN\",\"mode\":\"mask\"}]}}")
srt__run --settings "$S" -c "touch $MARK" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: masking without tlsTerminate or allowPlaintextInject is refused" sh -c \
	"[ $rc != 0 ] && [ ! -e '$MARK' ] && grep -q 'requires network.tlsTerminate' '$WORK/err'"
S=$(settings "{\"network\":{\"allowedDomains\":[\"localhost\"],\"deniedDomains\":[]},$NET_FS,\"credentials\":{\"envVars\":[{\"name\":\"NOMATCH_VAR\",\"mode\":\"mask\",\"extract\":\"token:\\\\\\\\s*(\\\\\\\\S+)\",\"onExtractNoMatch\":\"error\"}],\"allowPlaintextInject\":true}}")
srt__run --settings "$S" -c "touch $MARK" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "F: onExtractNoMatch error refuses to run, naming the entry" sh -c \
	"[ $rc != 0 ] && [ ! -e '$MARK' ] && grep -q 'entry \"NOMATCH_VAR\": extract pattern .* matched nothing' '$WORK/err'"

# a backend that cannot overlay a file (linux-landlock) keeps denying it,
# and says so on one line
S=$(settings "{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},$NET_FS,\"credentials\":{\"allowPlaintextInject\":true,\"files\":[{\"path\":\"$WORK/masked.yml\",\"mode\":\"mask\"}]}}")
if [ -e "$BACKEND_LL" ] && "$SRT" doctor --backend=linux-landlock >/dev/null 2>&1; then
	timeout -k 5 30 "$SRT" --backend="$BACKEND_LL" --settings "$S" -c "cat $WORK/masked.yml" >"$WORK/out" 2>"$WORK/err"
	check "F: linux-landlock denies a masked file and says so on one line" sh -c \
		"! grep -q token '$WORK/out' && [ \$(grep -c 'backend \"linux-landlock\" cannot show the masked copy of $WORK/masked.yml' '$WORK/err') = 1 ]"
else
	skip "linux-landlock cannot run here (srt doctor --backend=linux-landlock)"
fi
