#!/bin/bash
# Escape class: alternative spellings of loopback and metadata addresses
# through the proxy (N3). With only example.com
# allowed, no spelling of 127.0.0.1, ::1, 169.254.169.254 or fd00:ec2::254
# may reach the listeners bound there, by plain HTTP (absolute form),
# CONNECT or SOCKS5 (name, IPv4 and IPv6 address types). Runs in a network
# namespace of its own with the metadata addresses on lo (see lib.sh).
. "$(dirname "$0")/netns.sh"
skip_without_netns N3
# a listener on every address (0.0.0.0 and ::) logs any request
listen_any <<'PYEOF'
@accepting
def serve(c, a):
    try:
        c.settimeout(2)
        d = c.recv(4096)
        note("%s %r" % (a[0], d[:60]))
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    except OSError:
        pass
    c.close()
for fam, addr in ANY:
    s = bound(fam, socket.SOCK_STREAM, addr, port)
    s.listen(64)
    threading.Thread(target=serve, args=(s,), daemon=True).start()
PYEOF
curl -s --max-time 3 -o /dev/null "http://169.254.169.254:$PORT/control" 2>/dev/null
curl -s --max-time 3 -o /dev/null "http://[fd00:ec2::254]:$PORT/control" 2>/dev/null
attempt N3 "control: the listeners answer on 169.254.169.254 and fd00:ec2::254 ($(cat "$WORK/any.log" 2>/dev/null | wc -l))" \
	test "$(cat "$WORK/any.log" 2>/dev/null | wc -l)" -ge 2
rm -f "$WORK/any.log"

S=$(net_settings '["example.com","*.example.com"]' '[]')
v4="127.0.0.1 127.1 127.0.1 0x7f000001 2130706433 0177.0.0.1 0x7f.0.0.1 017700000001 127.0.0.1. 127.1.2.3 0.0.0.0 0 0x0
	169.254.169.254 0xa9fea9fe 2852039166 0251.0376.0251.0376 169.254.43518"
v6="[::1] [0:0:0:0:0:0:0:1] [::ffff:127.0.0.1] [::ffff:7f00:1] [::127.0.0.1] [::] [64:ff9b::7f00:1] [2002:7f00:1::]
	[fd00:ec2::254] [FD00:EC2:0::254] [::ffff:169.254.169.254] [::ffff:a9fe:a9fe] [fe80::1]"
names="localhost localhost. LOCALHOST LocalHost a.localhost x.y.localhost. localhost.localdomain ip6-localhost
	127.0.0.1.nip.io metadata.google.internal instance-data 127.0.0.1.example.com.evil.test"
requests_for "http connect socks" "$PORT" $v4 $v6 $names > "$P/requests"
proxy_batch -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
total=$(grep -c -- '->' "$WORK/out")
through=$(grep -E -- '-> 200' "$WORK/out")
attempt N3 "every spelling was tried ($total answers for $(echo $v4 $v6 $names | wc -w) spellings x 3 ways)" \
	test "$total" = $(( $(echo $v4 $v6 $names | wc -w) * 3 ))
attempt N3 "no spelling got through the proxy$(printf '%s' "$through" | head -3 | tr '\n' ';' | sed 's/^./: &/')" test -z "$through"
attempt N3 "no listener (loopback, metadata) logged a request ($(cat "$WORK/any.log" 2>/dev/null | wc -l))" test ! -s "$WORK/any.log"
for h in 0x7f000001 2130706433 [::ffff:127.0.0.1] 169.254.169.254 [fd00:ec2::254] localhost.; do
	l=$(grep -F -- "http $h:$PORT ->" "$WORK/out")
	attempt N3 "plain HTTP to $h refused (${l##*-> })" sh -c "printf '%s' '$l' | grep -Eq -- '-> (403|400)'"
done

# an allowed loopback literal must not widen to its other spellings'
# neighbours: allow 127.0.0.1:PORT+1 (nothing there) and try the rest
S2=$(net_settings "[\"127.0.0.1:$((PORT + 1))\",\"[::1]:$((PORT + 1))\"]" '[]')
requests_for "http connect" "$PORT" 127.0.0.1 127.1 0x7f000001 [::1] [::ffff:127.0.0.1] localhost \
	169.254.169.254 > "$P/requests"
proxy_batch -s "$S2" >"$WORK/out" 2>&1
attempt N11 "an allowed loopback literal on another port opens no spelling of this port" \
	sh -c "! grep -q -- '-> 200' '$WORK/out' && [ ! -s '$WORK/any.log' ]"

# control: the same client does get through where the policy allows it
# (so the refusals above are the proxy's, not the client's)
S3=$(net_settings "[\"localhost:$PORT\"]" '[]')
requests_for "http connect socks" "$PORT" localhost > "$P/requests"
proxy_batch -s "$S3" >"$WORK/out" 2>&1
attempt N3 "control: allowed localhost:PORT answers 200 by HTTP, CONNECT and SOCKS5 ($(grep -c -- '-> 200' "$WORK/out"))" \
	test "$(grep -c -- '-> 200' "$WORK/out")" = 3

echo "1..$_tap_n"
