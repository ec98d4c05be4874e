#!/bin/bash
# Escape class: relays and tunnels through the proxy (N9, N10,
# N11, N14, N16, N17). CONNECT or SOCKS5 to the proxy's own ports
# (3128/1080 of the host side), CONNECT inside CONNECT, SNI naming another
# host (also split over two TLS records), wildcard and port boundaries,
# missing or wrong credentials, request rules that cannot be enforced, and
# live settings updates that must never fail open. Host listeners log
# every byte; runs in a network namespace of its own, with listeners on
# the host side of 3128 and 1080 as well.
. "$(dirname "$0")/netns.sh"
skip_without_netns N9
net_server http A
net_server raw T
net_server http D
# the host side of the bridge's well-known ports: a relay through the
# proxy to "localhost:3128" would land here
cat > "$WORK/port.py" <<'PYEOF'
import socket, sys, threading
log = sys.argv[1]
def serve(s):
    while True:
        c, a = s.accept()
        open(log, "a").write("port %d\n" % s.getsockname()[1])
        c.close()
for port in (3128, 1080):
    for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        s = socket.socket(fam)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, port)); s.listen(8)
        threading.Thread(target=serve, args=(s,), daemon=True).start()
open(log + ".up", "w").close()
threading.Event().wait(120)
PYEOF
"$PY" "$WORK/port.py" "$WORK/ports.log" & NET_PIDS="$NET_PIDS $!"
wait_for "$WORK/ports.log.up" 50
a="127.0.0.1:$A_PORT"; d="127.0.0.1:$D_PORT"; t="127.0.0.1:$T_PORT"
S=$(net_settings "[\"127.0.0.1:$A_PORT\",\"localhost:$A_PORT\",\"127.0.0.1:$T_PORT\",\"localhost:$T_PORT\",\"*.example.com\"]" '[]')
# (net_settings always writes the same file: keep this one)
cp "$S" "$WORK/main.json"; S="$WORK/main.json"

# relays: the proxy's own ports, CONNECT in CONNECT, SOCKS in CONNECT
cat > "$P/relay.py" <<PYEOF
import base64, socket, ssl, sys
sys.path.insert(0, "$(dirname "$CLIENT")")
from proxyclient import AUTH as auth, read_head
def head(s):
    return read_head(s).split(b"\r\n")[0].decode("latin-1")
def tunnel(target, extra=""):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=8)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n" % (target, target, extra, auth)).encode())
    return s, head(s)
for tgt in ("localhost:3128", "127.0.0.1:3128", "[::1]:3128", "localhost:1080", "127.0.0.1:1080", "0.0.0.0:3128"):
    try:
        s, h = tunnel(tgt)
        print("own-port", tgt, "->", h)
    except OSError as e:
        print("own-port", tgt, "-> error", e)
# CONNECT inside an allowed CONNECT: the inner one is the server's to see
s, h = tunnel("$a")
s.sendall(("CONNECT $d HTTP/1.1\r\nHost: $d\r\n%s\r\nGET http://$d/inner HTTP/1.1\r\nHost: $d\r\n\r\n" % auth).encode())
print("nested ->", h, "then", head(s))
# SNI naming another host, in one record and split over two records
def hello(name):
    ctx = ssl.create_default_context()
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    c = ctx.wrap_bio(i, o, server_hostname=name)
    try:
        c.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return o.read()
names = ("evil.test", "EVIL.TEST", "evil.test.", "a.example.com.evil.test")
if sys.argv[1:] == ["control"]:
    names = ("localhost",)
for name in names:
    for split in (False, True):
        ch = hello(name)
        if split:
            body = ch[5:]
            ch = ch[:3] + len(body[:40]).to_bytes(2, "big") + body[:40] + ch[:3] + len(body[40:]).to_bytes(2, "big") + body[40:]
        try:
            s, h = tunnel("$t")
            if h.split(" ")[1] == "200":
                s.sendall(ch)
                s.settimeout(2)
                try:
                    r = s.recv(100)
                except OSError:
                    r = b""
            print("sni", name, "split" if split else "whole", "->", h)
        except OSError as e:
            print("sni", name, "->", "error", e)
if sys.argv[1:] == ["control"]:
    sys.exit(0)
# credentials: none, wrong token, empty user
for extra in ("", "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(b"srt:0123456789abcdef0123456789abcdef").decode(),
              "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(b":").decode()):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=8)
    s.sendall(("CONNECT $a HTTP/1.1\r\nHost: $a\r\n%s\r\n" % extra).encode())
    print("auth", len(extra), "->", head(s))
PYEOF
srt__run -s "$S" -c "/usr/bin/python3 relay.py" >"$WORK/out" 2>"$WORK/err"
sleep 0.5
sed 's/^/# /' "$WORK/out"
attempt N59 "CONNECT to the proxy's own ports refused ($(grep -c '^own-port.* 403' "$WORK/out") of 6)" \
	test "$(grep -c '^own-port.* 403' "$WORK/out")" = 6
attempt N59 "nothing reached the host side of 3128/1080" test ! -s "$WORK/ports.log"
attempt N59 "CONNECT inside CONNECT: the inner request went to the allowed server only" \
	sh -c "grep -q '^CONNECT 127.0.0.1:$D_PORT' '$A_LOG' && [ ! -s '$D_LOG' ]"
attempt N9 "SNI naming another host: all 8 attempts made, whole and split ($(grep -c '^sni.*-> HTTP/1.1 200' "$WORK/out") tunnels opened)" \
	sh -c "[ \$(grep -c '^sni' '$WORK/out') = 8 ]"
attempt N9 "SNI naming another host: the upstream got no ClientHello byte" sh -c "! grep -q '^raw [1-9]' '$T_LOG'"
srt__run -s "$S" -c "/usr/bin/python3 relay.py control" >/dev/null 2>&1
sleep 0.5
attempt N9 "control: with an allowed name (localhost) the ClientHello does reach the upstream" grep -q '^raw [1-9]' "$T_LOG"
attempt N14 "no token, a wrong token, an empty user: 407 each" test "$(grep -c '^auth.*407' "$WORK/out")" = 3

# N10/N11: wildcard and port boundaries, refused before any lookup
printf '%s\n' "http example.com.evil.test:80" "http xexample.com:80" "http example.com:80" "http a.example.com.evil.test:80" \
	"connect evil.test:443" "http 127.0.0.1:$((A_PORT + 1))" "connect localhost:$((A_PORT + 1))" "socks localhost $((A_PORT + 1))" \
	"connect 127.0.0.1:0" "connect 127.0.0.1:65536" "connect 127.0.0.1:+$A_PORT" "connect 127.0.0.1:0$A_PORT" \
	"connect localhost:$A_PORT.evil.test:80" "connect evil.test:80.localhost:$A_PORT" \
	"connect evil.test:22" "socks evil.test 22" "connect git@evil.test:22" > "$P/requests"
proxy_batch -d -s "$S" >"$WORK/out" 2>"$WORK/err"
sed 's/^/# /' "$WORK/out"
attempt N10 "no boundary or port trick got through (SSH port 22 included: N15)" sh -c "! grep -q -- '-> 200' '$WORK/out'"
attempt N10 "none of them was looked up" sh -c "! grep -q 'srt-proxy: resolving' '$WORK/err'"
attempt N11 "the denied server and other ports logged nothing" test ! -s "$D_LOG" -a ! -s "$WORK/ports.log"

# N16: request rules srt cannot enforce are refused, not ignored
F=$(net_settings "[\"127.0.0.1:$A_PORT\"]" '[]' '"filters":[{"plugin":"method-path","config":{"rules":[{"host":"127.0.0.1","methods":["GET"]}]}}]')
rm -f "$P/ran"; : > "$A_LOG"
srt__run -s "$F" -c "touch ran; curl -s --noproxy '' -X POST -d x http://$a/posted" >/dev/null 2>&1; rc=$?
if [ -e "$P/ran" ]; then
	attempt N16 "a GET-only rule stops a POST" sh -c "! grep -q '^POST /posted' '$A_LOG'"
else
	attempt N16 "request filters refused before running (rc=$rc)" test "$rc" = 1
fi

# N17: live updates never fail open. Each line is a whole settings object
# (srt's control protocol); the invalid ones must leave the previous
# settings in force. The shell keeps the FIFO open read-write itself, so a
# write never blocks whatever srt does.
rm -f "$WORK/ctl"; mkfifo "$WORK/ctl"
exec 6<>"$WORK/ctl"
: > "$D_LOG"
upd() { printf '{"network":%s,%s}\n' "$1" "$NET_FS"; }
srt__bg -s "$S" --control-fd 6 -c "
	for i in 1 2 3 4 5 6; do
		for j in \$(seq 40); do [ -e go\$i ] && break; sleep 0.1; done
		curl -s -o /dev/null -w \"\$i %{http_code}\n\" --noproxy '' --max-time 5 http://$d/live\$i
		touch done\$i
	done"
L=$!
step() { # step N LINE: send LINE, then let the command try once more
	[ -n "$2" ] && printf '%s\n' "$2" >&6
	sleep 0.3; touch "$P/go$1"
	wait_for "$P/done$1" 60
}
step 1 ""
step 2 "$(upd "{\"allowedDomains\":[\"127.0.0.1:$A_PORT\",\"other.example\"],\"deniedDomains\":[]}")"
step 3 '{"network": {"allowedDomains": [not json'
step 4 "$(upd '{"allowedDomains":"*","deniedDomains":[]}')"
step 5 "$(upd "{\"allowedDomains\":[\"127.0.0.1:$D_PORT\"],\"deniedDomains\":[\"127.0.0.1\"]}")"
step 6 '{"filesystem":{"denyRead":[],"allowWrite":["/"],"denyWrite":[]}}'
for i in $(seq 100); do kill -0 "$L" 2>/dev/null || break; sleep 0.1; done
kill "$L" 2>/dev/null; wait "$L" 2>/dev/null
exec 6>&-
sed "s/^/# /" "$WORK/bg.out" | head -20
attempt N17 "control: a valid update did apply (the deny-list reason appears)" grep -q 'on the deny list' "$WORK/bg.out"
attempt N17 "the denied server stayed refused through six updates (unrelated, invalid, wrong type, deny-over-allow, filesystem)" \
	sh -c "[ \$(grep -c '^[1-6] 403' '$WORK/bg.out') = 6 ] && [ ! -s '$D_LOG' ]"

echo "1..$_tap_n"; exit 0
