#!/bin/bash
# Denial of service (linux-bwrap), red team on a61f400: with denyRead set
# the monitor now makes every write-only open itself, synchronously, on
# its one thread under the command's Landlock layer. A write open of a
# file another process holds a read lease on (fcntl F_SETLEASE F_RDLCK:
# any owner of the file may take one) waits in the kernel until the
# lease is given back or broken (/proc/sys/fs/lease-break-time, 45 s by
# default). In the kernel only the opener waits; here the monitor waits,
# and every other open of every process of the command waits with it
# (each write open of the leased file stops the command for up to 45 s).
# Before a61f400 write-only opens went to the kernel; read opens have the
# same flaw with a write lease (F_WRLCK) since the monitor made them.
# Fix: an open that may block (O_WRONLY/O_RDWR/O_TRUNC on a regular file)
# made with O_NONBLOCK first (EWOULDBLOCK: a lease is held), and then in a
# thread of its own as FIFOs are.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
need_leases
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/lease.py" <<'PYEOF'
import fcntl, os, signal, subprocess, sys, threading, time
F_SETLEASE = 1024
open("leased", "w").write("data")
signal.signal(signal.SIGIO, lambda *a: None)  # the holder keeps the lease
if sys.argv[1] == "write":
    # a read lease: a write open waits for it
    fd = os.open("leased", os.O_RDONLY)
    fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)
    w = subprocess.Popen(["sh", "-c", "echo x > leased"])  # waits for the lease (its own wait)
else:
    # a write lease: a read open waits for it (the monitor made read
    # opens itself, and waited so, before write-only ones)
    fd = os.open("leased", os.O_RDWR)
    fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
    w = subprocess.Popen(["sh", "-c", "cat leased > /dev/null"])
time.sleep(0.5)
res = {}
def other():
    t0 = time.time()
    f = os.open("other", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(f)
    res["t"] = time.time() - t0
th = threading.Thread(target=other, daemon=True)
th.start()
th.join(3)
print("other-open", "%.1f" % res["t"] if "t" in res else "stalled", flush=True)
try:
    fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
except OSError:
    pass
w.wait()
print("waiter", w.returncode, flush=True)
th.join(10)
PYEOF
for how in write read; do
	rm -f leased other
	srt__run -s "$S" -c "$PY $WORK/lease.py $how" > "$WORK/out" 2>&1
	diag "$how: $(tr '\n' ' ' < "$WORK/out" | cut -c1-300)" "lease-break-time: $(cat /proc/sys/fs/lease-break-time 2>/dev/null)"
	attempt S "a $how open waiting for a lease stalls no other open of the command" \
		sh -c "grep -q '^other-open [0-9]' '$WORK/out'"
	attempt S "and it opens the file once the lease is given back" grep -qx 'waiter 0' "$WORK/out"
done
echo "1..$_tap_n"
