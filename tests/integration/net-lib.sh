# Helpers for the network integration tests (03NN-net-*.sh), sourced after
# lib.sh: loopback-only servers (HTTP origin, fake SSH banner) that log what
# reached them, so every test asserts on host-side state, not only on the
# exit status inside the sandbox.

PY=/usr/bin/python3
NET_FS='"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}'
NET_PIDS=
trap 'main_shell || exit; for p in $NET_PIDS; do kill "$p" 2>/dev/null; done; _cleanup' EXIT

cat > "$WORK/netsrv.py" <<'PYEOF'
import os, socket, sys, threading
mode, portfile, logfile = sys.argv[1:4]
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
log = open(logfile, "a", buffering=1)
lock = threading.Lock()
def note(s):
    with lock:
        log.write(s + "\n")
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
            k, _, v = h.partition(b":")
            hdrs[k.strip().lower()] = v.strip()
        body = f.read(int(hdrs.get(b"content-length", b"0")))
        note("%s host=%s proxyauth=%s body=%d" % (line.decode("latin-1").strip(),
             hdrs.get(b"host", b"-").decode("latin-1"),
             "yes" if b"proxy-authorization" in hdrs else "no", len(body)) +
             (" xadded=%s" % hdrs[b"x-added"].decode("latin-1") if b"x-added" in hdrs else ""))
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
def raw(c):
    c.settimeout(5)
    try:
        data = c.recv(65536)
    except OSError:
        data = b""
    note("raw %d bytes" % len(data))
def ssh(c):
    c.sendall(b"SSH-2.0-srt__fake_server\r\n")
    line = c.makefile("rb").readline()
    note("client " + line.decode("latin-1").strip())
def serve(c):
    try:
        {"http": http, "ssh": ssh, "raw": raw}[mode](c)
    except OSError:
        pass
    finally:
        c.close()
with open(portfile + ".tmp", "w") as p:
    p.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF

# net_server MODE NAME: start a loopback server (http, ssh or raw: logs the
# size of the first read); sets
# NAME_PORT and NAME_LOG. Fails the whole script when it cannot start.
net_server() {
	local mode=$1 name=$2 i
	: > "$WORK/$name.log"
	"$PY" "$WORK/netsrv.py" "$mode" "$WORK/$name.port" "$WORK/$name.log" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 50); do
		[ -s "$WORK/$name.port" ] && break
		sleep 0.1
	done
	if [ ! -s "$WORK/$name.port" ]; then
		echo "Bail out! cannot start the $mode test server"
		exit 1
	fi
	eval "${name}_PORT=\$(cat \"\$WORK/\$name.port\")"
	eval "${name}_LOG=\"\$WORK/\$name.log\""
}

# net_settings ALLOWED_JSON DENIED_JSON [EXTRA_NETWORK_JSON]: settings path
net_settings() {
	settings "{\"network\":{\"allowedDomains\":$1,\"deniedDomains\":$2${3:+,$3}},$NET_FS}"
}

# lines COUNT_OF PATTERN FILE
count_lines() { grep -c -- "$1" "$2" 2>/dev/null || true; }

# inside the sandbox: force the proxy even for loopback targets
CURLP='curl -sS --max-time 10 --noproxy "" '
