#!/bin/bash
# Escape class H9: network.allowUnixSockets names a socket path inside a
# write root (a dev server's socket in the project). Under linux-landlock
# (and linux-bwrap, whose monitor runs the same code) the supervisor
# connects for the command to the allowed path as srt resolved it at start.
# The command can remove that name and make a
# symbolic link there to any other socket of the host; a connect that
# followed the link would reach a socket nobody allowed (the Docker
# socket, ssh-agent). The link at the allowed name must not be followed:
# the host server behind the link must see no connection.
. "$(dirname "$0")/lib.sh"
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
ll() { timeout -k 5 60 "$SRT" --backend="$LL" "$@"; }
U="$WORK/u"
P="$WORK/proj"
mkdir -p "$U" "$P/run"
cd "$P" || exit 1
cat > "$WORK/srv.py" <<'EOF'
import os, socket, sys, threading, time
def serve(path):
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(64)
    open(path + ".ready", "w").close()
    while True:
        c, _ = s.accept()
        with open(path + ".log", "a") as f: f.write("hit\n")
        try:
            c.sendall(b"HELLO\n")
        except OSError:
            pass
        c.close()
for p in sys.argv[1:]:
    threading.Thread(target=serve, args=(p,), daemon=True).start()
time.sleep(120)
EOF
"$PY" "$WORK/srv.py" "$P/run/app.sock" "$U/no.sock" & SRV=$!
trap 'main_shell || exit; kill $SRV 2>/dev/null; _cleanup' EXIT
wait_for "$P/run/app.sock.ready" && wait_for "$U/no.sock.ready" || diag "the host servers did not start"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}' \
	"{\"allowedDomains\":[],\"deniedDomains\":[],\"allowUnixSockets\":[\"$P/run/app.sock\"]}")
if ! out=$(ll -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 3 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		
# linux-bwrap's monitor connects with the same code
BW="$top_builddir/backends/linux-bwrap/.libs/linux_bwrap.so"
bw() { timeout -k 5 60 "$SRT" --backend="$BW" "$@"; }
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
rm -rf "$P/run" "$P/run.old" "$U/no.sock" "$U/no.sock.log" "$U/no.sock.ready"
mkdir -p "$P/run"
"$PY" "$WORK/srv.py" "$P/run/app.sock" "$U/no.sock" & SRV=$!
wait_for "$P/run/app.sock.ready" && wait_for "$U/no.sock.ready" || diag "the host servers did not start"
if ! out=$(bw -s "$S" -c 'echo alive' 2>"$WORK/bwerr") || [ "$out" != alive ]; then
	skip_rest 2 "linux-bwrap cannot run here: $(head -1 "$WORK/bwerr")"
else
	bw -s "$S" -c "$PY $WORK/cli.py $P/run/app.sock" >"$WORK/bwok.out" 2>&1
	attempt H9 "linux-bwrap: the allowed socket in the write root is connected to" \
		grep -q HELLO "$WORK/bwok.out"
	bw -s "$S" -c "rm -f run/app.sock && ln -s $U/no.sock run/app.sock && $PY $WORK/cli.py $P/run/app.sock" \
		>"$WORK/bwlink.out" 2>&1
	attempt H9 "linux-bwrap: a link the command put at the allowed name is not followed" \
		test ! -e "$U/no.sock.log"
fi
echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi
cat > "$WORK/cli.py" <<'EOF'
import socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(p); print("connected", p, s.recv(16))
    except OSError as e:
        print("refused", p, e.errno)
EOF
ll -s "$S" -c "$PY $WORK/cli.py $P/run/app.sock" >"$WORK/ok.out" 2>&1
attempt H9 "the allowed socket in the write root is connected to" \
	sh -c "grep -q HELLO '$WORK/ok.out' && test -s '$P/run/app.sock.log'"

# the allowed name replaced by a link to another socket of the host
ll -s "$S" -c "rm -f run/app.sock && ln -s $U/no.sock run/app.sock && $PY $WORK/cli.py $P/run/app.sock" \
	>"$WORK/link.out" 2>&1
attempt H9 "a link the command put at the allowed name is not followed to another socket" \
	test ! -e "$U/no.sock.log"

# the allowed name's directory replaced by a link to a directory holding
# a socket of the same name
mkdir -p "$U/other"
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
rm -f "$U/no.sock.log" "$P/run/app.sock"
"$PY" "$WORK/srv.py" "$U/other/app.sock" & SRV=$!
wait_for "$U/other/app.sock.ready" || diag "the host server did not start"
ll -s "$S" -c "mv run run.old && ln -s $U/other run && $PY $WORK/cli.py $P/run/app.sock" \
	>"$WORK/dir.out" 2>&1
attempt H9 "a link the command put at the allowed socket's directory is not followed" \
	test ! -e "$U/other/app.sock.log"

# linux-bwrap's monitor connects with the same code
BW="$top_builddir/backends/linux-bwrap/.libs/linux_bwrap.so"
bw() { timeout -k 5 60 "$SRT" --backend="$BW" "$@"; }
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
rm -rf "$P/run" "$P/run.old" "$U/no.sock" "$U/no.sock.log" "$U/no.sock.ready"
mkdir -p "$P/run"
"$PY" "$WORK/srv.py" "$P/run/app.sock" "$U/no.sock" & SRV=$!
wait_for "$P/run/app.sock.ready" && wait_for "$U/no.sock.ready" || diag "the host servers did not start"
if ! out=$(bw -s "$S" -c 'echo alive' 2>"$WORK/bwerr") || [ "$out" != alive ]; then
	skip_rest 2 "linux-bwrap cannot run here: $(head -1 "$WORK/bwerr")"
else
	bw -s "$S" -c "$PY $WORK/cli.py $P/run/app.sock" >"$WORK/bwok.out" 2>&1
	attempt H9 "linux-bwrap: the allowed socket in the write root is connected to" \
		grep -q HELLO "$WORK/bwok.out"
	bw -s "$S" -c "rm -f run/app.sock && ln -s $U/no.sock run/app.sock && $PY $WORK/cli.py $P/run/app.sock" \
		>"$WORK/bwlink.out" 2>&1
	attempt H9 "linux-bwrap: a link the command put at the allowed name is not followed" \
		test ! -e "$U/no.sock.log"
fi
echo "1..$_tap_n"
