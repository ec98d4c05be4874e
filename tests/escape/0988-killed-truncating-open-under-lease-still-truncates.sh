#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: with denyRead an open of a
# regular file another process holds a lease on is finished by a monitor
# thread blocked in open(2) until the lease is given back or broken
# (001c957). That thread never looks whether the caller is still there
# (the FIFO writer's thread does: 0979): a caller killed while it waits
# (timeout(1), ^C) has its open made anyway once the lease goes, O_TRUNC
# included, so `: > f` that never returned empties f. In the kernel a
# killed open under a lease does nothing. Fix: poll the non-blocking open
# (EWOULDBLOCK while the break is pending) with SECCOMP_IOCTL_NOTIF_ID_VALID,
# as slow_main does for a FIFO's writer.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > lease.py <<'PYEOF'
import fcntl, os, signal, subprocess, time
signal.signal(signal.SIGIO, signal.SIG_IGN)  # the holder never gives it back by itself
with open("leased", "w") as f:
    f.write("data\n")
fd = os.open("leased", os.O_RDONLY)
fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
b = subprocess.Popen(["sh", "-c", ": > leased; echo opened"])
time.sleep(1)
b.kill()
b.wait()
time.sleep(0.5)
fcntl.fcntl(fd, 1024, fcntl.F_UNLCK)
time.sleep(1)
print("after", repr(open("leased").read()))
PYEOF
with=$(srt__run -s "$SD" -c "$PY lease.py" 2>&1)
without=$(srt__run -s "$SN" -c "$PY lease.py" 2>&1)
diag "with denyRead: $with" "without: $without"
attempt S "a truncating open killed while it waits for a lease does not truncate (as without denyRead: $without)" \
	test -n "$without" -a "$with" = "$without"
echo "1..$_tap_n"
