#!/bin/sh
# The proxy is reachable only through a Unix socket in a 0700 per-run
# directory and only with the per-run token (N14); the token is
# never in any process's argv.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 6

if ! command -v bwrap >/dev/null 2>&1; then
	for i in $(seq 6); do skip "bwrap missing"; done
	exit 0
fi
net_server http WEB
S=$(net_settings "[\"127.0.0.1:$WEB_PORT\"]" '[]')
TMPDIR=/tmp "$SRT" --backend="$BACKEND" --settings "$S" -c \
	"printf '%s\n' \"\$HTTPS_PROXY\" > '$WORK/proj/url'; sleep 6" >/dev/null 2>&1 &
SRT_PID=$!
NET_PIDS="$NET_PIDS $SRT_PID"
sock=
for i in $(seq 100); do
	sock=$(ls /tmp/srt-$SRT_PID-*/proxy.sock 2>/dev/null | head -1)
	[ -n "$sock" ] && [ -s "$WORK/proj/url" ] && break
	sleep 0.1
done
if [ -z "$sock" ]; then
	echo "Bail out! the proxy socket of srt $SRT_PID did not appear"
	exit 1
fi
dir=$(dirname "$sock")
# 0700, and the sticky bit: srt's mark on a directory it holds
# (common/rmtree.h)
check "per-run directory is 0700, marked, and ours" \
	[ "$(stat -c '%a %u' "$dir")" = "1700 $(id -u)" ]
check "socket is 0600" [ "$(stat -c '%a' "$sock")" = 600 ]

resp=$("$PY" - "$sock" "$WEB_PORT" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(("CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n" % sys.argv[2]).encode())
print(s.recv(200).decode("latin-1").split("\r\n")[0])
PYEOF
)
check "N14: a client without the token gets 407 ($resp)" [ "$resp" = "HTTP/1.1 407 Proxy Authentication Required" ]

if is_root && id srtuser >/dev/null 2>&1; then
	su srtuser -s /bin/sh -c "$PY -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' '$sock'" 2>/dev/null
	check "N14: another host user cannot connect to the socket" [ $? != 0 ]
else
	skip "N14 other-user check needs root to act as another user"
fi

url=$(cat "$WORK/proj/url")
tok=${url#*://*:}
tok=${tok%@*}
check "the command sees a 32-hex token" sh -c "printf '%s' '$tok' | grep -Eq '^[0-9a-f]{32}$'"
# the scanner gets the token through its environment, not its argv
found=$(SRT_TOK="$tok" "$PY" -c '
import os
tok = os.environ["SRT_TOK"].encode()
hits = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if tok in f.read():
                    hits.append(pid)
        except OSError:
            pass
print(len(hits))')
check "the token is in no process's argv ($found found)" [ "$found" = 0 ]
wait "$SRT_PID" 2>/dev/null
