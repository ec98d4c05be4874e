#!/bin/bash
# Escape class N1 (interception), found when CI's 0301 met it by chance:
# the command dials, at 127.0.0.1 inside the sandbox, the port where the
# bridge takes the connections the nftables rules redirect. The rules
# redirect nothing addressed to 127.0.0.0/8, so such a connection was
# never redirected, yet the kernel's connection tracking names the
# listener's own address as its original destination, and the bridge
# passed that on to the proxy as a CONNECT to 127.0.0.1 at the same port
# number: the HOST's loopback. The proxy judged it as any CONNECT, so no
# allow list was passed by; but where the list lets the host's 127.0.0.1
# through on that port (0301 allows its test server's, which once was the
# listener's), a connection to the sandbox's own loopback came out on the
# host's, where none is meant to. It must be refused: nothing reaches the
# host's port and the client gets no answer.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
if ! command -v curl >/dev/null 2>&1; then
	skip "N1 the listener dialled from inside: curl is missing"
	echo "1..$_tap_n"; exit 0
fi
P=$WORK/p
mkdir -p "$P"
# every port of the host's loopback allowed, so only the bridge's own
# refusal can keep the connection from the host's server
S=$(fsjson listener "{\"denyRead\":[],\"allowWrite\":[\"$P\"],\"denyWrite\":[]}" \
	'{"intercept":"required","allowedDomains":["127.0.0.1"],"deniedDomains":[]}')
# in the sandbox: the bridge's listeners on 127.0.0.1 from the network
# namespace's own table, but for the proxy variables' (3128 for HTTP, 1080
# for SOCKS) and DNS (53); each is written to $P/ports, then, once the host
# listens on the same numbers ($P/go), each is dialled directly
CMD='while read -r _ l _ st _; do
	[ "$st" = 0A ] || continue
	case $l in 0100007F:*) p=$((16#${l#*:}));; *) continue;; esac
	case $p in 3128|1080|53) ;; *) echo "$p" >> ports;; esac
done < /proc/net/tcp
touch started
i=0; while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
for p in $(cat ports 2>/dev/null); do
	out=$(curl -s --noproxy "*" --max-time 5 "http://127.0.0.1:$p/dialled" 2>/dev/null)
	echo "$p rc=$? $(printf %s "$out" | head -c 60)" >> results
done'
cd "$P" || exit 1
srt__bg -s "$S" -c "$CMD"
pid=$!
wait_for "$P/started" 300 || diag "the command did not start: $(head -c 300 "$WORK/bg.out")"
ports=$(cat "$P/ports" 2>/dev/null)
# the host: a listener on each of those ports of its loopback, logging
# every connection it gets
cat > "$WORK/host.py" <<'PYEOF'
import socket, sys, threading
log = sys.argv[1]
held = []
for p in sys.argv[2:]:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", int(p)))
    except OSError as e:
        print("busy", p, e, flush=True)
        continue
    s.listen(8)
    held.append(s)
    print("listening", p, flush=True)
def serve(s):
    while True:
        c, _ = s.accept()
        with open(log, "a") as o:
            o.write("connection on %d: %r\n" % (s.getsockname()[1], c.recv(200)[:60]))
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 11\r\n\r\nhost server")
        c.close()
for s in held:
    threading.Thread(target=serve, args=(s,), daemon=True).start()
threading.Event().wait(60)
PYEOF
: > "$WORK/host.log"
"$PY" "$WORK/host.py" "$WORK/host.log" $ports > "$WORK/host.out" 2>&1 &
host_pid=$!
for i in $(seq 50); do
	[ "$(grep -c '^listening\|^busy' "$WORK/host.out" 2>/dev/null)" -ge "$(echo $ports | wc -w)" ] && break
	sleep 0.1
done
touch "$P/go"
end_bg "$pid" 400
kill "$host_pid" 2>/dev/null
wait "$host_pid" 2>/dev/null
diag "ports: $(echo $ports); host: $(tr '\n' ' ' < "$WORK/host.out"); results: $(tr '\n' ' ' < "$P/results" 2>/dev/null)"
n=$(echo $ports | wc -w)
check "N1 the bridge's listener for intercepted connections is there to dial (ports: $(echo $ports))" \
	test "$n" -gt 0
if [ "$n" -gt 0 ] && grep -q '^busy' "$WORK/host.out"; then
	# another program holds that port on the host: the route cannot be shown this time
	skip "N1 the listener dialled from inside: the host's port is in use by another program ($(grep '^busy' "$WORK/host.out" | head -c 160))"
	skip "N1 the listener dialled from inside: the client got no answer (not shown: the host's port is in use)"
else
	reached=0
	[ -s "$WORK/host.log" ] && reached=1
	check "N1 the listener dialled from inside: no connection reached the host's port ($(tr '\n' ' ' < "$WORK/host.log" | head -c 200))" \
		test "$n" -gt 0 -a "$reached" = 0
	answered=1
	[ -s "$P/results" ] && ! grep -q 'host server' "$P/results" && answered=0
	check "N1 the listener dialled from inside: the client got no answer ($(tr '\n' ' ' < "$P/results" 2>/dev/null))" \
		test "$answered" = 0
fi
echo "1..$_tap_n"
