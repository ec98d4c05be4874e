#!/bin/bash
# Denial of service (linux-bwrap), red team on f933d0f: the monitor makes a
# plain read open on its own thread through the cred ring, by the name it
# judged, in the directory it judged. A name judged as a directory was
# opened again without O_NONBLOCK; when the host had meanwhile swapped a
# regular file under a write lease in at that name (RENAME_EXCHANGE of a
# directory x and a leased file y, in a loop; a lease whose holder never
# answers the break), the ring's open waited for the lease to be broken,
# up to lease-break-time (45 s), and the monitor's thread waited with it:
# every observed call of every process of the command stopped (an
# unrelated open of /etc/hostname waited 10.7 s of a 12 s race, 20.1 s of
# 25). The command can do the same alone with io_uring's renames where
# allowAllUnixSockets lets io_uring through.
# Fixed since: the ring's open never waits (O_NONBLOCK, given back
# afterwards, or O_DIRECTORY where the caller asked for a directory);
# whatever it meets instead of the judged object sends the open back to
# the thread under the layer, which reopens the judged directory itself.
# Checked here: during an 8 s race no unrelated open waits a second.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
need_leases
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
R="$WORK/race"
rm -rf "$R" && mkdir -p "$R/x" && : > "$R/y"
SECS=8
# the host: y under a write lease it never gives back (SIGIO ignored), x
# and y swapped with RENAME_EXCHANGE for SECS + 2 seconds
cat > "$WORK/swap.py" <<'PYEOF'
import ctypes, fcntl, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d, secs = sys.argv[1].encode(), float(sys.argv[2])
x, y = d + b"/x", d + b"/y"
signal.signal(signal.SIGIO, signal.SIG_IGN)
fd = os.open(y, os.O_RDONLY)
fcntl.fcntl(fd, 1024, fcntl.F_WRLCK)  # F_SETLEASE
SYS_renameat2, AT_FDCWD, RENAME_EXCHANGE = 316, -100, 2
end, n = time.time() + secs, 0
while time.time() < end:
    for _ in range(1000):
        n += libc.syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, y, RENAME_EXCHANGE) == 0
print("swaps", n, flush=True)
PYEOF
# the command: openers of x (each ended after 0.3 s, so that one waiting
# for the lease of the file itself, in a thread of its own as a kernel
# open would, is replaced), and an unrelated open every 50 ms, timed
cat > "$WORK/open.py" <<'PYEOF'
import os, signal, sys, time
x, secs = sys.argv[1], float(sys.argv[2])
def opener():
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    while True:
        try:
            os.close(os.open(x, os.O_RDONLY))
        except OSError:
            pass
kids, end, worst = set(), time.time() + secs, 0.0
nxt = time.time()
while time.time() < end:
    while len(kids) < 3:
        p = os.fork()
        if p == 0:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            opener()
        kids.add(p)
    try:
        p, _ = os.waitpid(-1, os.WNOHANG)
        if p:
            kids.discard(p)
    except ChildProcessError:
        pass
    if time.time() >= nxt:
        t = time.time()
        os.close(os.open("/etc/hostname", os.O_RDONLY))
        worst = max(worst, time.time() - t)
        nxt = time.time() + 0.05
    time.sleep(0.005)
for p in kids:
    os.kill(p, signal.SIGKILL)
print("slowest %.3f" % worst, flush=True)
PYEOF
$PY "$WORK/swap.py" "$R" $((SECS + 2)) > "$WORK/swap.out" 2>&1 &
swp=$!
sleep 0.5
srt__run -s "$S" -c "$PY $WORK/open.py $R/x $SECS" > "$WORK/out" 2>&1
rc=$?
wait "$swp"
slow=$(sed -n 's/^slowest //p' "$WORK/out")
diag "srt exit $rc; host: $(tr '\n' ' ' < "$WORK/swap.out")" "sandbox: $(tr '\n' ' ' < "$WORK/out" | head -c 600)"
attempt DoS "a leased file swapped in for a judged directory: no unrelated open waits a second ($slow s)" \
	awk -v s="${slow:-99}" 'BEGIN { exit !(s < 1) }'
attempt DoS "a leased file swapped in for a judged directory: the command ran to its end" test "$rc" = 0
rm -rf "$R"
echo "1..$_tap_n"
