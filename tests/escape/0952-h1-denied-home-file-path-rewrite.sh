#!/bin/bash
# Escape class H1 (linux-bwrap): a path rewritten between the violation
# monitor's read and the kernel's, for a denied file outside every write
# root, where srt's Landlock layer refuses the denied name as well (0917
# races a denied .env inside the write root, which the layer grants with
# its root). With ~/.ssh and the file ~/.aws/credentials denied (a file's
# cover is what a host rename detaches), one thread of the command rewrites
# its path buffer between "safe" (a file it may read) and ~/.aws/credentials
# while another opens that buffer in a loop, a second reader opens the
# denied name directly and through /proc/self/root, and the host renames a
# new credentials file over the denied one 500 times. The monitor makes
# every read open itself, on what it resolved, so no secret may reach the
# command, and the refusals it sees are reported. (A faster variant that
# let judged read opens go on to the kernel here, trusting the layer, was
# broken by a host moving a granted neighbour onto the denied name: 0953.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
CRED="$HOME/.aws/credentials"
echo "OLD-$CANARY" > "$CRED"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws/credentials"],"allowWrite":["."],"denyWrite":[]}')

cat > "$WORK/reader.py" <<'EOF'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
mode, cred = sys.argv[1], sys.argv[2].encode()
buf = ctypes.create_string_buffer(1024)
buf.value = b"safe"
with open("safe-" + mode, "w") as f:
    f.write("SAFE\n")
stop = False
def flip():
    a, b, mv = cred + b"\0", b"safe-" + mode.encode() + b"\0", ctypes.memmove
    while not stop:
        mv(buf, a, len(a))
        mv(buf, b, len(b))
if mode == "rewrite":
    threading.Thread(target=flip, daemon=True).start()
open("started-" + mode, "w").close()
tries = hits = refused = safe = 0
r = ctypes.create_string_buffer(64)
names = [cred, b"/proc/self/root" + cred]
t0 = time.time()
while not os.path.exists("stop") and time.time() - t0 < 60:
    tries += 1
    path = buf if mode == "rewrite" else names[tries % 2]
    fd = libc.open(path, 0)
    if fd < 0:
        refused += 1
        continue
    n = libc.read(fd, r, 63)
    if n > 0 and (r.raw.startswith(b"SECRET-") or r.raw.startswith(b"OLD-")):
        hits += 1
    elif n > 0 and r.raw.startswith(b"SAFE"):
        safe += 1
    libc.close(fd)
stop = True
with open("result-" + mode, "w") as f:
    f.write("%s tries %d hits %d refused %d safe %d\n" % (mode, tries, hits, refused, safe))
EOF
srt__bg -s "$S" -c "$PY $WORK/reader.py rewrite $CRED & $PY $WORK/reader.py direct $CRED; wait"
pid=$!
wait_for "$P/started-rewrite" 100 && wait_for "$P/started-direct" 100 ||
	diag "the readers did not start: $(cat "$WORK/bg.out")"
"$PY" - "$HOME/.ssh" "$CRED" <<'EOF'
import os, sys
hidden, cred = sys.argv[1], sys.argv[2]
for i in range(500):
    t = os.path.join(hidden, "cred.tmp")
    with open(t, "w") as f:
        f.write("SECRET-%d\n" % i)
    os.rename(t, cred)
EOF
touch "$P/stop"
end_bg "$pid" 300
for mode in rewrite direct; do
	line=$(grep "^$mode tries " "$P/result-$mode" 2>/dev/null)
	hits=$(echo "$line" | awk '{print $5}')
	refused=$(echo "$line" | awk '{print $7}')
	diag "500 host renames over a denied ~/.aws/credentials, $mode reads: $line"
	attempt H1 "the $mode race ran and its opens of the denied name were refused ($line)" \
		sh -c "[ -n '$refused' ] && [ '$refused' -gt 0 ]"
	attempt H1 "no secret read by $mode opens of a rewritten or direct path ($line)" \
		sh -c "[ -n '$hits' ] && [ '$hits' -eq 0 ]"
done
attempt H1 "the refused reads of the denied name are reported" \
	grep -q "deny open.* $CRED" "$WORK/bg.out"
echo "1..$_tap_n"
