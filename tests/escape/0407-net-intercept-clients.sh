#!/bin/bash
# Escape class: interception, the protocols (N1, N2, N4). With no proxy
# variables at all (env -i), what an intercepted connection meets depends
# on what it carries: plain HTTP to port 80 is parsed, so the request
# filters (the rules plugin's method and path rules) and the Host check see
# every request; TLS on any port is judged by its server name as well as
# by the address it went to; anything else (git://, SSH) is an opaque
# tunnel to an allowed host and port. UDP other than DNS to the sandbox's
# own answerer is refused and recorded as a violation naming where it was
# going. Clients: Python urllib and ssl, Java's HttpURLConnection, git over
# git:// and ssh://, raw DNS queries. As 0406, the test runs in network and mount
# namespaces of its own: /etc/hosts names the servers for the proxy (the
# sandbox may not read it, so its clients ask DNS) and /etc/resolv.conf
# names 127.0.0.1:53, where a resolver counts every query it gets.
NETNS_UNSHARE=-rnm
. "$(dirname "$0")/netns.sh"
cat > "$WORK/hosts" <<EOF2
127.0.0.1 localhost
127.0.0.1 denied.icept.test
EOF2
echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
if ! netns_setup || ! mount --bind "$WORK/hosts" /etc/hosts 2>/dev/null ||
   ! mount --bind "$WORK/resolv.conf" /etc/resolv.conf 2>/dev/null; then
	skip "N1 interception needs network and mount namespaces of its own (unshare -rnm), ip(8) and mount(8)"
	echo "1..$_tap_n"; exit 0
fi
cat > "$WORK/servers.py" <<'PYEOF'
# a counting resolver on 127.0.0.1:53 (answers nothing), an HTTP origin on
# 127.0.0.1:80 and a UDP listener on 127.0.0.1:9999, each logging what it got
import socket, sys, threading
d = sys.argv[1]
def note(f, s):
    with open(d + "/" + f, "a") as o:
        o.write(s + "\n")
def udp(port, f):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", port))
    def run():
        while True:
            data, _ = u.recvfrom(4096); note(f, "udp %r" % data[:40])
    threading.Thread(target=run, daemon=True).start()
def http(c):
    f = c.makefile("rb")
    while True:
        line = f.readline()
        if not line:
            return
        hdrs = {}
        while True:
            h = f.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            k, _, v = h.partition(b":"); hdrs[k.strip().lower()] = v.strip()
        f.read(int(hdrs.get(b"content-length", b"0")))
        note("web.log", "%s host=%s" % (line.decode("latin-1").strip(),
                                        hdrs.get(b"host", b"-").decode("latin-1")))
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
udp(53, "resolver.log"); udp(9999, "udp.log")
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", 53)); t.listen(8)
def tcp53():
    while True:
        c, _ = t.accept(); note("resolver.log", "tcp query"); c.close()
threading.Thread(target=tcp53, daemon=True).start()
w = socket.socket(); w.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
w.bind(("127.0.0.1", 80)); w.listen(16)
open(d + "/servers.up", "w").close()
while True:
    c, _ = w.accept()
    threading.Thread(target=lambda c=c: (http(c), c.close()), daemon=True).start()
PYEOF
: > "$WORK/resolver.log"; : > "$WORK/udp.log"; : > "$WORK/web.log"
"$PY" "$WORK/servers.py" "$WORK" & NET_PIDS="$NET_PIDS $!"
if ! wait_for "$WORK/servers.up" 50; then
	echo "Bail out! cannot start the resolver and the port-80 server"; exit 1
fi
net_server raw RAW
net_server http WEB

# git://: a git daemon on loopback serving one repository
mkdir -p "$WORK/git"
git init -q --bare "$WORK/git/repo.git"
git -C "$WORK/git" clone -q "$WORK/git/repo.git" seed 2>/dev/null
echo "intercepted $$" > "$WORK/git/seed/README"
git -C "$WORK/git/seed" add README
git -C "$WORK/git/seed" -c user.name=t -c user.email=t@t commit -qm seed
git -C "$WORK/git/seed" push -q origin HEAD:master 2>/dev/null
git -C "$WORK/git/repo.git" symbolic-ref HEAD refs/heads/master
GITD_PORT=9418 # the namespace is the test's own
git daemon --reuseaddr --listen=127.0.0.1 --port=$GITD_PORT --base-path="$WORK/git" \
	--export-all --pid-file="$WORK/gitd.pid" "$WORK/git" 2>"$WORK/gitd.log" & NET_PIDS="$NET_PIDS $!"

# ssh://: an sshd on loopback, run in a user namespace of its own as uid
# 4242 (as root it would need its privilege-separation user), which the
# login user srtgit is, in a passwd bound over the real one in the test's
# mount namespace (the sandbox's ssh client finds its own user there too)
SSHD_PORT=2222 SSHD_OK=0
mkdir -p "$P" "$WORK/ssh"
if [ -x /usr/sbin/sshd ] && command -v ssh-keygen >/dev/null &&
   unshare -U --map-user=4242 --map-group=4242 true 2>/dev/null; then
	ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/host" &&
	ssh-keygen -q -t ed25519 -N '' -f "$P/id_git" &&
	cp "$P/id_git.pub" "$WORK/ssh/authorized_keys" &&
	cp /etc/passwd "$WORK/passwd" &&
	echo "srtgit:x:4242:4242::$WORK/ssh:/bin/bash" >> "$WORK/passwd" &&
	mount --bind "$WORK/passwd" /etc/passwd && cat > "$WORK/ssh/config" <<SEOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $WORK/ssh/host
AuthorizedKeysFile $WORK/ssh/authorized_keys
AllowUsers srtgit
UsePAM no
StrictModes no
PidFile none
PasswordAuthentication no
KbdInteractiveAuthentication no
SEOF
	unshare -U --map-user=4242 --map-group=4242 /usr/sbin/sshd -D -e -f "$WORK/ssh/config" \
		2>"$WORK/sshd.log" & NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do
		(exec 3<>/dev/tcp/127.0.0.1/$SSHD_PORT) 2>/dev/null && { SSHD_OK=1; break; }
		sleep 0.1
	done
fi
SSH_CMD="ssh -i $P/id_git -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"

# Java: compiled here, run in the sandbox (javac stays out of the timing)
JAVA_OK=0
if command -v javac >/dev/null && command -v java >/dev/null; then
	mkdir -p "$WORK/java"
	cat > "$WORK/java/Get.java" <<JEOF
import java.net.*;
public class Get {
	public static void main(String[] a) throws Exception {
		HttpURLConnection c = (HttpURLConnection) new URL(a[0]).openConnection();
		c.setConnectTimeout(10000); c.setReadTimeout(10000);
		System.out.println("java " + c.getResponseCode());
	}
}
JEOF
	javac -d "$WORK/java" "$WORK/java/Get.java" 2>"$WORK/javac.err" && JAVA_OK=1
	chmod -R a+rX "$WORK/java"
fi

# the path and method rules, and the lists: localhost on any port. The
# filter comes from a directory of the test's own: in this user namespace
# a build tree of another owner (root's, for the unprivileged pass) is
# owned by nobody, and srt loads no module from such a directory.
mkdir -p "$WORK/filters"
cp "$SRT_FILTER_DIR/rules.so" "$WORK/filters/" && export SRT_FILTER_DIR="$WORK/filters"
S=$(net_settings '["localhost"]' '["denied.icept.test"]' \
	'"filters":[{"plugin":"rules","config":{"rules":[{"action":"deny","path":"/secret*","reason":"no secrets"},{"action":"deny","methods":["DELETE"],"status":405}]}}]')
# and its second name, the file bound there (srt refuses a denied path
# that another mount shows)
sed -i 's|"denyRead":\["~/.ssh"\]|"denyRead":["~/.ssh","/etc/hosts","'"$WORK"'/hosts"]|' "$S"
E='env -i PATH=/usr/bin:/bin HOME=/tmp NO_PROXY=* no_proxy=*'
cat > "$P/web.py" <<'PYEOF'
import re, socket, sys, urllib.request, urllib.error
def get(path, method="GET"):
    try:
        r = urllib.request.urlopen(urllib.request.Request("http://localhost" + path, method=method), timeout=10)
        return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception as e:
        return "error %s" % e
print("web ok", get("/ok"))
print("web secret", get("/secret/key"))
print("web delete", get("/ok", "DELETE"))
# one keep-alive connection, two requests: the second one is judged too
s = socket.create_connection(("localhost", 80), timeout=10)
s.sendall(b"GET /first HTTP/1.1\r\nHost: localhost\r\n\r\nGET /secret/2 HTTP/1.1\r\nHost: localhost\r\n\r\n")
got = b""
while got.count(b"HTTP/1.1") < 2:
    d = s.recv(4096)
    if not d:
        break
    got += d
print("web pipelined", " ".join(re.findall(r"HTTP/1\.1 (\d+)", got.decode("latin-1"))))
# a Host the connection was not made to
s = socket.create_connection(("localhost", 80), timeout=10)
s.sendall(b"GET /other HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n")
print("web otherhost", s.recv(4096).split(b" ")[1].decode())
PYEOF
cat > "$P/tls.py" <<'PYEOF'
import socket, ssl, sys
port = int(sys.argv[1])
for name in ("localhost", "denied.icept.test"):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    try:
        s = socket.create_connection(("localhost", port), timeout=5)
        ctx.wrap_socket(s, server_hostname=name)
        print("tls", name, "handshake")
    except Exception as e:
        print("tls", name, "failed", type(e).__name__)
PYEOF
cat > "$P/udp.py" <<'PYEOF'
import errno, socket
ip = socket.gethostbyname("localhost")
for dst in ((ip, 9999), ("192.0.2.1", 5353), ("127.0.0.1", 9999)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"leak", dst); print("udp sent", dst[0] == ip and "synthetic" or dst[0])
    except OSError as e:
        print("udp refused", dst[0] == ip and "synthetic" or dst[0], errno.errorcode.get(e.errno, e.errno))
PYEOF
cat > "$P/dns.py" <<'PYEOF'
# raw queries to the sandbox's answerer (dig cannot run in the sandbox: it
# opens an AF_UNIX socket, which seccomp refuses)
import socket, struct
def query(name, tcp):
    q = struct.pack(">HHHHHH", 9, 0x100, 1, 0, 0, 0) + b"".join(
        bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    if tcp:
        s = socket.create_connection(("127.0.0.53", 53), timeout=3)
        s.sendall(struct.pack(">H", len(q)) + q); r = s.recv(4096)[2:]
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
        s.sendto(q, ("127.0.0.53", 53)); r = s.recv(4096)
    rcode = {0: "NOERROR", 3: "NXDOMAIN", 5: "REFUSED"}.get(r[3] & 15, str(r[3] & 15))
    an = struct.unpack(">H", r[6:8])[0]
    return rcode + (" " + socket.inet_ntoa(r[-4:]) if an else "")
for n in ("localhost", "denied.icept.test", "unlisted.example.org"):
    for tcp in (False, True):
        try:
            print("dns", tcp and "tcp" or "udp", n, query(n, tcp))
        except OSError as e:
            print("dns", tcp and "tcp" or "udp", n, "failed", e)
PYEOF
chmod -R a+rX "$P"
chmod 600 "$P/id_git" 2>/dev/null # ssh ignores a key others may read
# only what the sandbox sends counts (javac and git above may ask too)
: > "$WORK/resolver.log"
cd "$P" || exit 1
srt__run --settings "$S" -c "
	$E python3 web.py
	$E python3 tls.py $RAW_PORT
	$E python3 udp.py
	if [ $JAVA_OK = 1 ]; then $E java -XX:-UsePerfData -Xshare:auto -cp '$WORK/java' Get http://localhost:$WEB_PORT/java; fi
	$E git clone -q git://localhost:$GITD_PORT/repo.git gitclone 2>&1 | tail -2; cat gitclone/README 2>/dev/null | sed 's/^/git-readme /'
	$E python3 dns.py
	if [ $SSHD_OK = 1 ]; then
		$E GIT_SSH_COMMAND='$SSH_CMD' git clone -q ssh://srtgit@localhost:$SSHD_PORT$WORK/git/repo.git sshclone 2>&1 | tail -2
		cat sshclone/README 2>/dev/null | sed 's/^/ssh-readme /'
	fi
" >"$WORK/out" 2>"$WORK/err"
cd "$WORK" || exit 1
sleep 0.3

# plain HTTP on port 80: parsed, filtered, the Host checked
attempt N1 "port 80 intercepted: an allowed GET reaches the server ($(grep '^web ok' out))" \
	sh -c "grep -q '^web ok 200' out && grep -q '^GET /ok HTTP/1.1 host=localhost' web.log"
attempt N1 "port 80 intercepted: the rules plugin's path rule refuses /secret* (403, a violation naming it, nothing reached the server)" \
	sh -c "grep -q '^web secret 403' out && grep -q 'no secrets' err && ! grep -q 'GET /secret/key' web.log"
attempt N1 "port 80 intercepted: the method rule refuses DELETE ($(grep '^web delete' out))" \
	sh -c "grep -q '^web delete 405' out && ! grep -q '^DELETE' web.log"
attempt N1 "port 80 intercepted: each request on a kept-alive connection is judged ($(grep '^web pipelined' out))" \
	sh -c "grep -q '^web pipelined 200 403' out && grep -q '^GET /first ' web.log && ! grep -q 'GET /secret/2' web.log"
attempt N1 "port 80 intercepted: a Host other than the connection's target is refused ($(grep '^web otherhost' out))" \
	sh -c "grep -q '^web otherhost 421' out && ! grep -q '^GET /other' web.log"

# TLS on a port other than 443: the server name is judged too
attempt N1 "TLS to an allowed host on port $RAW_PORT with its own name: the ClientHello reaches the server" \
	grep -q '^raw [1-9][0-9]* bytes' "$RAW_LOG"
attempt N4 "TLS to an allowed host's address naming a denied host: refused and recorded" \
	sh -c "grep -q 'deny network-outbound denied.icept.test:$RAW_PORT (TLS server name does not match the request target localhost' err && test \$(grep -c '^raw [1-9]' '$RAW_LOG') = 1"

# UDP
attempt N2 "UDP to an allowed host's synthetic address and to a literal address: refused ($(grep '^udp' out | tr '\n' ' '))" \
	sh -c "grep -q '^udp refused synthetic EPERM' out && grep -q '^udp refused 192.0.2.1 EPERM' out"
attempt N2 "the violations name both destinations" \
	sh -c "grep -q 'deny network-outbound localhost:9999 (UDP datagram dropped' err && grep -q 'deny network-outbound 192.0.2.1:5353 (UDP datagram dropped' err"
attempt N2 "nothing reached the host's UDP listener (the sandbox's own loopback is its own: $(grep '^udp sent 127' out))" \
	test ! -s udp.log

# the other clients
if [ $JAVA_OK = 1 ]; then
	attempt N1 "Java HttpURLConnection with no proxy settings: 200 ($(grep '^java' out))" \
		sh -c "grep -q '^java 200' out && grep -q '^GET /java HTTP/1.1 host=localhost:$WEB_PORT' '$WEB_LOG'"
else
	skip "N1 Java HttpURLConnection: no JDK here (javac and java; Debian's openjdk-17-jdk-headless)"
fi
attempt N1 "git clone over git:// from a loopback git daemon (an opaque tunnel): the files arrived" \
	grep -q "^git-readme intercepted $$" out
if [ $SSHD_OK = 1 ]; then
	attempt N1 "git clone over ssh:// from a loopback sshd (an opaque tunnel): the files arrived" \
		sh -c "grep -q '^ssh-readme intercepted $$' out && grep -q 'Accepted publickey for srtgit' sshd.log"
else
	skip "N1 git clone over ssh://: no sshd here that runs unprivileged (Debian's openssh-server, and unshare --map-user)"
fi
attempt N4 "DNS over UDP and TCP: the allowed name answered, the denied and the unlisted NXDOMAIN ($(grep '^dns ' out | tr '\n' ' '))" \
	sh -c "grep -q '^dns udp localhost NOERROR 198\.1[89]\.' out && grep -q '^dns tcp localhost NOERROR 198\.1[89]\.' out &&
	       grep -q '^dns udp denied.icept.test NXDOMAIN' out && grep -q '^dns tcp denied.icept.test NXDOMAIN' out &&
	       grep -q '^dns udp unlisted.example.org NXDOMAIN' out && grep -q '^dns tcp unlisted.example.org NXDOMAIN' out"
attempt N4 "the counting resolver saw no query at all ($(wc -l < resolver.log))" test ! -s resolver.log
echo "1..$_tap_n"
