#!/bin/bash
# Escape class H1 (linux-bwrap): the violation monitor's own walk of a path
# must not give up where the kernel goes on. The monitor resolves a read
# open's path itself to refuse a denied name the host's rename has left
# uncovered, and a path it cannot resolve is let through to the kernel.
# Symbolic links whose bodies each end in a long run of "./" pile up: when
# the kernel follows "a" it keeps the rest of a's body aside while it
# follows "b" inside it, and so on, each body up to PATH_MAX; a walk that
# splices every body into one buffer of two PATH_MAX overflows at the third
# and, if that failure let the call through, the command reads the new .env
# through "a/.env" in the moment after the host's rename. The host renames a
# new .env (made in a denied directory) over the denied one 500 times while
# the command reads "a/.env" in a loop, and, as a second route, reads .env by
# name from a process that made itself not dumpable (the monitor must still
# read its memory and its /proc entries). No secret may be read.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
echo "OLD-$CANARY" > "$P/.env"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/reader.py" <<'EOF'
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
# a/.env is .env: a -> b/./././..., b -> c/./././..., c -> ./././.../.
os.symlink("./" * 2000 + ".", "c")
os.symlink("c/" + "./" * 2000, "b")
os.symlink("b/" + "./" * 2000, "a")
def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""
def nodump():
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    b = read(".env")
    libc.prctl(4, 1, 0, 0, 0)
    return b
same = read("a/.env") == read(".env")
open("started", "w").close()
reads = hits = 0
per = [0, 0]
routes = [lambda: read("a/.env"), nodump]
t0 = time.time()
while not os.path.exists("stop") and time.time() - t0 < 60:
    for i, r in enumerate(routes):
        reads += 1
        if r().startswith(b"SECRET-"):
            hits += 1
            per[i] += 1
time.sleep(0.5)
last = read("a/.env")
print("reads %d hits %d last %s same %s (by long links, not dumpable: %s)" %
      (reads, hits, "secret" if last.startswith(b"SECRET-") else "none", same, " ".join(map(str, per))))
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
diag "500 host renames over a denied .env: $line"
attempt H1 "the race ran and a/.env names .env ($line)" sh -c "echo '$line' | grep -q 'same True'"
attempt H1 "no secret read through piled-up links or by a process that is not dumpable ($hits of the reads)" \
	sh -c "[ -n '$hits' ] && [ '$hits' -eq 0 ]"
attempt H1 "after the race the replaced .env is covered again" sh -c "echo '$line' | grep -q 'last none'"
attempt H1 "the first secret never left the host" sh -c "! grep -q 'OLD-$CANARY' '$WORK/bg.out'"
echo "1..$_tap_n"
