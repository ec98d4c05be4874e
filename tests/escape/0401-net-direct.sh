#!/bin/bash
# Escape class: going around the proxy (N1, N2, N3). With the
# target allowed through the proxy, a client that ignores the proxy
# variables, bash's /dev/tcp, raw Python sockets, UDP, raw and packet
# sockets, ICMP, and netlink changes to the sandbox's own interfaces must
# reach nothing: host listeners on 127.0.0.1, ::1 and 169.254.169.254 log
# nothing. A listener the command opens is not reachable from the host.
# Runs in a network namespace of its own (see netns.sh).
. "$(dirname "$0")/netns.sh"
skip_without_netns N1
# a listener on every address (0.0.0.0 and ::), TCP and UDP, logs any peer
listen_any <<'PYEOF'
@accepting
def tcp(c, a):
    note("tcp %s" % a[0]); c.close()
def udp(s):
    while True:
        d, a = s.recvfrom(4096)
        note("udp %s" % a[0])
for fam, addr in ANY:
    for typ, fn in ((socket.SOCK_STREAM, tcp), (socket.SOCK_DGRAM, udp)):
        s = bound(fam, typ, addr, port)
        if typ == socket.SOCK_STREAM:
            s.listen(16)
        threading.Thread(target=fn, args=(s,), daemon=True).start()
PYEOF
S=$(net_settings "[\"127.0.0.1:$PORT\",\"localhost:$PORT\",\"[::1]:$PORT\"]" '[]')

srt__run -s "$S" -c "
	curl -s --max-time 3 --noproxy '*' http://127.0.0.1:$PORT/n1
	env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy curl -s --max-time 3 http://localhost:$PORT/n1b
	curl -6 -s --max-time 3 --noproxy '*' 'http://[::1]:$PORT/'
	(exec 3<>/dev/tcp/127.0.0.1/$PORT && echo x >&3) 2>/dev/null
	/usr/bin/python3 -c '
import socket
for fam, a in ((socket.AF_INET, \"127.0.0.1\"), (socket.AF_INET6, \"::1\"), (socket.AF_INET, \"169.254.169.254\")):
    for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        try:
            s = socket.socket(fam, typ); s.settimeout(2)
            s.connect((a, $PORT)); s.send(b\"x\")
        except OSError:
            pass
for args in ((socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP), (socket.AF_PACKET, socket.SOCK_RAW, 0),
             (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)):
    try:
        socket.socket(*args); print(\"raw socket\", args, \"ok\")
    except OSError:
        pass
'
	ping -c1 -W1 127.0.0.1 >/dev/null 2>&1; ping -c1 -W1 169.254.169.254 >/dev/null 2>&1
	$IPCMD addr add 169.254.1.1/16 dev lo 2>/dev/null && echo 'netlink addr ok'
	$IPCMD link add srtesc0 type dummy 2>/dev/null && echo 'netlink link ok'
	$IPCMD route add default dev lo 2>/dev/null && echo 'netlink route ok'
	cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | tr '\n' ' ' > ifaces
	true" >"$WORK/out" 2>&1
sleep 0.5
attempt N1 "no host listener heard anything (TCP, UDP, v4, v6, metadata) ($(cat "$WORK/any.log" 2>/dev/null | wc -l))" test ! -s "$WORK/any.log"
attempt N2 "no raw, ICMP or packet socket could be made" sh -c "! grep -q '^raw socket' '$WORK/out'"
attempt N2 "no address, link or route could be added" sh -c "! grep -q '^netlink' '$WORK/out'"
attempt N2 "the sandbox has only lo ($(cat "$P/ifaces" 2>/dev/null))" test "$(cat "$P/ifaces" 2>/dev/null)" = "lo "

# inbound: what the command listens on is not the host's
rm -f "$P/listening"
srt__bg -s "$S" -c "/usr/bin/python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"0.0.0.0\", $((PORT + 1)))); s.listen(4); s.settimeout(3)
open(\"listening\", \"w\").close()
try:
    s.accept(); open(\"accepted\", \"w\").close()
except OSError:
    pass
'"
R=$!
wait_for "$P/listening" 100
"$PY" -c "import socket; s=socket.socket(); s.settimeout(1); s.connect(('127.0.0.1', $((PORT + 1))))" 2>/dev/null; c=$?
wait "$R" 2>/dev/null
attempt N1 "a listener inside is not reachable from the host (connect rc=$c)" test ! -e "$P/accepted" -a -e "$P/listening"

# control: through the proxy the same target answers
srt__run -s "$S" -c "curl -s -o /dev/null -w '%{http_code}' --noproxy '' --max-time 5 http://127.0.0.1:$PORT/via-proxy" >"$WORK/out" 2>/dev/null
attempt N1 "control: through the proxy the allowed target is reached ($(cat "$WORK/out"))" grep -q '^tcp' "$WORK/any.log"

echo "1..$_tap_n"
