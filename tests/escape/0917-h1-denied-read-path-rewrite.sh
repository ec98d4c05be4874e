#!/bin/bash
# Escape class H1 (linux-bwrap): the residue SECURITY.md names for the read
# window of a replaced denied file. The violation monitor reads a read
# open's path from the command's memory, judges it, and lets the kernel run
# the call, which reads the path again. Here one thread of the command
# rewrites its path buffer between "safe" (a file it may read) and ".env"
# while another opens that buffer in a loop, and the host renames a new
# .env over the denied one 500 times: when the monitor reads "safe" and
# the kernel ".env" just after a host's rename, the kernel opens the
# uncovered new file. This is measured, not closed: the leak count goes to
# the TAP diagnostics and the attempt is a TODO while it leaks (it would
# need every open performed by the monitor itself). The .env the cover hid
# from the start is exposed too: the kernel detaches the cover of the name
# the host renames over a moment before the new file takes the name, and a
# lookup in that moment opens the old file (seen as srt-test).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
echo "OLD-$CANARY" > "$P/.env"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/reader.py" <<'EOF'
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(64)
buf.value = b"safe"
with open("safe", "w") as f:
    f.write("SAFE\n")
stop = False
def flip():
    a, b, mv = b".env\0", b"safe\0", ctypes.memmove
    while not stop:
        mv(buf, a, 5)
        mv(buf, b, 5)
threading.Thread(target=flip, daemon=True).start()
open("started", "w").close()
reads = hits = refused = old = 0
r = ctypes.create_string_buffer(64)
t0 = time.time()
while not os.path.exists("stop") and time.time() - t0 < 60:
    fd = libc.open(buf, 0)
    reads += 1
    if fd < 0:
        refused += 1
        continue
    n = libc.read(fd, r, 63)
    if n > 0 and r.raw.startswith(b"SECRET-"):
        hits += 1
    elif n > 0 and r.raw.startswith(b"OLD-"):
        hits += 1
        old += 1
    libc.close(fd)
stop = True
print("reads %d hits %d refused %d old %d" % (reads, hits, refused, old))
EOF
srt__bg -s "$S" -c "$PY $WORK/reader.py"
pid=$!
wait_for "$P/started" 100 || diag "the reader did not start: $(cat "$WORK/bg.out")"
"$PY" - "$HOME/.ssh" "$P" <<'EOF'
import os, sys
hidden, proj = sys.argv[1], sys.argv[2]
for i in range(500):
    t = os.path.join(hidden, "env.tmp")
    with open(t, "w") as f:
        f.write("SECRET-%d\n" % i)
    os.rename(t, os.path.join(proj, ".env"))
EOF
touch "$P/stop"
for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill "$pid" 2>/dev/null
wait "$pid"
line=$(grep '^reads ' "$WORK/bg.out")
hits=$(echo "$line" | awk '{print $4}')
refused=$(echo "$line" | awk '{print $6}')
diag "500 host renames over a denied .env, path rewritten by a second thread: $line"
attempt H1 "the race ran and the monitor refused the reads of .env it saw ($line)" \
	sh -c "[ -n '$refused' ] && [ '$refused' -gt 0 ]"
if [ -z "$hits" ]; then
	not_ok "H1 no secret read through a path rewritten between the monitor's read and the kernel's (no result)"
elif [ "$hits" -eq 0 ]; then
	skip "the rewrite never landed between the monitor's read and the kernel's in a rename window this run"
else
	_tap_n=$((_tap_n + 1)) # a TODO: reported, not a failure of the script
	echo "not ok $_tap_n - H1 no secret read through a path rewritten between the monitor's read and the kernel's ($hits of the reads, the first .env's among them: $(echo "$line" | awk '{print $8}')) # TODO the monitor judges the path, the kernel reads it again (SECURITY.md)"
fi
echo "1..$_tap_n"
