#!/bin/bash
# srt-connect (ssh's ProxyCommand through the run's proxy) against hostile
# input: ssh hands it %h and %p from a URL a repository may carry (a
# submodule's), and the proxy's reply is read before the tunnel starts.
# srt-connect pasted HOST and PORT into the CONNECT request as they came,
# so a CR LF in either added header lines (or a second request) of the
# caller's choosing, and a reply head longer than its buffer was taken as
# a tunnel with the rest of the head relayed to ssh as if the far side had
# sent it (red team). Each case runs srt-connect on the host against a
# stand-in proxy of this script that logs what it received.
. "$(dirname "$0")/lib.sh"
SC="$top_builddir/backends/linux-bwrap/srt-connect"
if [ ! -x "$SC" ] || [ ! -x "$PY" ]; then
	skip_rest 7 "srt-connect was not built, or there is no python3"
	echo "1..$_tap_n"
	exit 0
fi
cat > "$WORK/proxy.py" <<'PYEOF'
import socket, sys, threading
log, mode = sys.argv[1], sys.argv[2]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(log + ".port", "w").write(str(s.getsockname()[1]))
def serve(c):
    c.settimeout(3)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            d = c.recv(4096)
            if not d:
                break
            data += d
    except OSError:
        pass
    open(log, "ab").write(data + b"\n--\n")
    if mode == "long":
        c.sendall(b"HTTP/1.1 200 Connection established\r\nX-Pad: " + b"a" * 9000 +
                  b"\r\n\r\nFAR-SIDE-HEAD")
    else:
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\nFAR-SIDE-OK")
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
start_proxy() { # MODE
	rm -f "$WORK/plog" "$WORK/plog.port"
	"$PY" "$WORK/proxy.py" "$WORK/plog" "$1" & PROXY_PID=$!
	for _ in $(seq 50); do [ -s "$WORK/plog.port" ] && break; sleep 0.1; done
	export HTTPS_PROXY="http://u:tok@127.0.0.1:$(cat "$WORK/plog.port")"
}
stop_proxy() { kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; }
sc() { : > "$WORK/plog"; timeout -k 2 10 "$SC" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"; echo $? > "$WORK/rc"; }
what() { printf 'rc=%s out=%s err=%s' "$(cat "$WORK/rc")" "$(head -c 60 "$WORK/out" | tr -c '[:print:]' '?')" \
	"$(head -c 160 "$WORK/err" | tr -c '[:print:]' '?')"; }
not_injected() { ! grep -qa 'X-Injected' "$WORK/plog" 2>/dev/null; }

start_proxy ok
# 1: the stand-in works: a plain host is tunnelled
sc example.com 22
attempt C1 "a plain host and port are tunnelled ($(what))" sh -c "grep -q FAR-SIDE-OK '$WORK/out'"
# 2-3: CR LF in the host
sc "$(printf 'example.com:22 HTTP/1.1\r\nX-Injected: 1\r\nX')" 22
attempt C1 "a CR LF in the host adds no header line to the request ($(what))" not_injected
attempt C1 "srt-connect refuses such a host, status 2 ($(what))" sh -c "test \"\$(cat '$WORK/rc')\" = 2"
# 4-5: CR LF in the port
sc example.com "$(printf '22 HTTP/1.1\r\nX-Injected: 1\r\nX')"
attempt C1 "a CR LF in the port adds no header line to the request ($(what))" not_injected
attempt C1 "srt-connect refuses a port that is not a number, status 2 ($(what))" sh -c "test \"\$(cat '$WORK/rc')\" = 2"
stop_proxy
# 6-7: a reply head longer than srt-connect reads
start_proxy long
sc example.com 22
attempt C1 "a reply head past srt-connect's buffer relays nothing to ssh ($(what))" test ! -s "$WORK/out"
attempt C1 "and ends with status 1, saying why ($(what))" sh -c "test \"\$(cat '$WORK/rc')\" = 1 && grep -q 'too long' '$WORK/err'"
stop_proxy
echo "1..$_tap_n"
