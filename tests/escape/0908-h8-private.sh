#!/bin/bash
# Escape class: private addresses (H8). A name that only a wildcard entry
# allows (*.corp.test) and that resolves to 10/8, 172.16/12, 192.168/16,
# 100.64/10 or fc00::/7 (or a mapped spelling of one), or to one of the
# other ranges no internet host has (192.0.0/24, 198.18/15, 240/4,
# site-local fec0::/10, 2001:2::/48, local-use NAT64 64:ff9b:1::/48), or to
# a Teredo address whose client is private, is refused by the
# resolved-address guard before any connection is made, and the refusal
# names the class; a name an entry spells exactly and an allowed IP literal
# still reach their private address; network.privateAddresses "refuse"
# refuses them too and "allow" lets the wildcard through.
#
# Everything runs in network and mount namespaces of the test's own: the
# private ranges are made local to that namespace's loopback with "local"
# routes (so they are not interface addresses, which the guard refuses as
# this host's own), a listener on the wildcard address logs which local
# address each connection reached, /etc/hosts is a test file there (c-ares
# reads it first) and resolv.conf names 127.0.0.1. No packet can leave.
NETNS_UNSHARE=-rnm
. "$(dirname "$0")/netns.sh"
cat > "$WORK/hosts" <<EOF2
127.0.0.1 localhost
::1 localhost ip6-localhost
10.99.0.1 w10.corp.test
172.16.99.1 w172.corp.test
172.31.99.1 w172b.corp.test
192.168.99.1 w192.corp.test
100.64.99.1 w100.corp.test
fd99::1 wula.corp.test
::ffff:10.99.0.3 wmapped.corp.test
198.18.99.1 w198.corp.test
192.0.0.99 wietf.corp.test
240.0.99.1 w240.corp.test
fec0::99 wsite.corp.test
2001:2::99 wbench.corp.test
64:ff9b:1::a63:1 wnat64.corp.test
2001:0:4136:e378:8000:63bf:f59c:fffe wteredo.corp.test
10.99.0.4 db.corp.test
EOF2
echo "nameserver 127.0.0.1" > "$WORK/resolv.conf"
routes_up() {
	local r
	for r in 10.99.0.0/24 172.16.99.0/24 172.31.99.0/24 192.168.99.0/24 100.64.99.0/24; do
		"$IPCMD" route add local "$r" dev lo 2>/dev/null || return 1
	done
	"$IPCMD" -6 route add local fd99::/64 dev lo 2>/dev/null
}
# the other ranges: where the kernel takes the route, a guard that let one
# through would be seen connecting; the violation lines hold either way
routes_more() {
	local r
	for r in 198.18.99.0/24 192.0.0.99/32 240.0.99.0/24; do
		"$IPCMD" route add local "$r" dev lo 2>/dev/null
	done
	for r in fec0::/64 2001:2::/64 64:ff9b:1::/96 2001::/32; do
		"$IPCMD" -6 route add local "$r" dev lo 2>/dev/null
	done
	return 0
}
if ! netns_setup || ! routes_up || ! mount --bind "$WORK/hosts" /etc/hosts 2>/dev/null ||
   ! mount --bind "$WORK/resolv.conf" /etc/resolv.conf 2>/dev/null; then
	skip "H8 needs network and mount namespaces of its own (unshare -rnm), ip(8) local routes and mount(8)"
	echo "1..$_tap_n"; exit 0
fi
routes_more
listen_any <<'PYEOF'
def http(c, a):
    try:
        c.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data:
            d = c.recv(4096)
            if not d:
                break
            data += d
        note("tcp %s" % c.getsockname()[0])
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    except OSError:
        pass
    c.close()
for fam, addr in ANY:
    t = bound(fam, socket.SOCK_STREAM, addr, port)
    t.listen(64)
    threading.Thread(target=accepting(http), args=(t,), daemon=True).start()
PYEOF
reached() { grep -c "^tcp $1\$" "$WORK/any.log" 2>/dev/null || true; }
net() { printf '{"allowedDomains":["*.corp.test","db.corp.test","10.99.0.2:%s"],"deniedDomains":[]%s}' "$PORT" "${1:+,$1}"; }

# control: the local routes answer (a direct connection from the host side)
"$PY" -c "import socket,sys; socket.create_connection(('10.99.0.9', $PORT), timeout=3).close()" 2>/dev/null
for i in $(seq 50); do [ "$(reached 10.99.0.9)" -ge 1 ] && break; sleep 0.1; done
attempt H8 "control: the namespace's private range reaches the listener ($(reached 10.99.0.9))" \
	test "$(reached 10.99.0.9)" -ge 1

# default (refuseForWildcards)
S=$(fsjson def "$S0_FS" "$(net)")
wild="w10 w172 w172b w192 w100 wula wmapped w198 wietf w240 wsite wbench wnat64 wteredo"
nwild=$(echo $wild | wc -w)
requests_for "http connect socks" "$PORT" $(printf '%s.corp.test ' $wild) > "$P/requests"
requests_for "http connect" "$PORT" db.corp.test 10.99.0.2 >> "$P/requests"
: > "$WORK/any.log"
proxy_batch -d -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
attempt H8 "no wildcard-allowed name got through to a private address ($(grep -cE '^[a-z]+ w[^ ]*corp.test.*200' "$WORK/out") of $((nwild * 3)) answered 200)" \
	sh -c "[ \$(grep -c 'corp.test' '$WORK/out') = $((nwild * 3 + 2)) ] && ! grep -E '^(http|connect|socks) w[^ ]*corp.test.*200' '$WORK/out' | grep -q ."
for a in 10.99.0.1 172.16.99.1 172.31.99.1 192.168.99.1 100.64.99.1 fd99::1 10.99.0.3 ::ffff:10.99.0.3 \
	198.18.99.1 192.0.0.99 240.0.99.1 fec0::99 2001:2::99 64:ff9b:1::a63:1 2001:0:4136:e378:8000:63bf:f59c:fffe; do
	attempt H8 "nothing reached $a ($(reached "$a") connections)" test "$(reached "$a")" = 0
done
for n in $wild; do
	attempt H8 "$n.corp.test refused, the violation names the class" \
		grep -q "deny network-outbound $n.corp.test:$PORT (resolved to a private address)" "$WORK/err"
done
attempt H8 "an exactly named host reaches its private address (http and CONNECT: $(grep -c '^[a-z]* db.corp.test.*200' "$WORK/out"))" \
	sh -c "[ \$(grep -c '^[a-z]* db.corp.test.*200' '$WORK/out') = 2 ] && [ \$(grep -c '^tcp 10.99.0.4\$' '$WORK/any.log') = 2 ]"
attempt H8 "an allowed IP literal reaches its private address ($(grep -c '^[a-z]* 10.99.0.2.*200' "$WORK/out"))" \
	sh -c "[ \$(grep -c '^[a-z]* 10.99.0.2.*200' '$WORK/out') = 2 ] && [ \$(grep -c '^tcp 10.99.0.2\$' '$WORK/any.log') = 2 ]"

# the reason reaches the client: curl, plain HTTP through the proxy
S=$(fsjson def "$S0_FS" "$(net)")
if command -v curl >/dev/null 2>&1; then
	srt__run -s "$S" -c "curl -sS --max-time 8 -D - http://w192.corp.test:$PORT/" >"$WORK/curl" 2>&1
	attempt H8 "curl gets a 403 naming the class ($(head -1 "$WORK/curl" | tr -d '\r'))" \
		sh -c "grep -q '^HTTP/1.1 403' '$WORK/curl' && grep -q 'resolved to a private address' '$WORK/curl'"
else
	skip "H8 curl gets a 403 naming the class: curl missing"
fi

# privateAddresses "refuse": the exact name and the literal are refused too
S=$(fsjson refuse "$S0_FS" "$(net '"privateAddresses":"refuse"')")
requests_for "http connect" "$PORT" db.corp.test 10.99.0.2 > "$P/requests"
: > "$WORK/any.log"
proxy_batch -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
attempt H8 "refuse: neither the exact name nor the literal got through ($(grep -c '200' "$WORK/out"))" \
	sh -c "! grep -q '200' '$WORK/out' && [ \$(grep -c -- '-> 403' '$WORK/out') = 4 ] && test ! -s '$WORK/any.log'"
attempt H8 "refuse: the violations name the class" \
	sh -c "grep -q 'deny network-outbound db.corp.test:$PORT (resolved to a private address)' '$WORK/err' &&
	       grep -q 'deny network-outbound 10.99.0.2:$PORT (resolved to a private address)' '$WORK/err'"

# privateAddresses "allow": the wildcard name reaches the private address
S=$(fsjson allow "$S0_FS" "$(net '"privateAddresses":"allow"')")
requests_for "http" "$PORT" w10.corp.test wula.corp.test > "$P/requests"
: > "$WORK/any.log"
proxy_batch -s "$S" >"$WORK/out" 2>"$WORK/err"
sleep 0.3
attempt H8 "allow: wildcard names reach 10.99.0.1 and fd99::1 ($(reached 10.99.0.1), $(reached fd99::1))" \
	sh -c "[ \$(grep -c -- '-> 200' '$WORK/out') = 2 ] && [ $(reached 10.99.0.1) = 1 ] && [ $(reached fd99::1) = 1 ]"

# a bad value: one line naming the key, nothing run
S=$(fsjson bad "$S0_FS" "$(net '"privateAddresses":"sometimes"')")
srt__run -s "$S" -c "touch ran" >"$WORK/out" 2>"$WORK/err"
rc=$?
attempt H8 "a bad privateAddresses value is refused on one line naming the key (rc $rc)" \
	sh -c "[ $rc != 0 ] && [ ! -e '$P/ran' ] && grep -q 'network.privateAddresses' '$WORK/err' &&
	       [ \$(grep -c 'privateAddresses' '$WORK/err') = 1 ]"

echo "1..$_tap_n"
