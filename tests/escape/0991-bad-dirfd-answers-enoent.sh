#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: a relative path against a
# directory descriptor the caller does not have (closed, never opened)
# answers EBADF in the kernel. With denyRead the monitor resolves it as
# /proc/<pid>/fd/N, which is missing, and answers ENOENT for the calls it
# judges (openat, write-only and creating ones too since a61f400; mkdirat,
# linkat, renameat). A program that tells a stale descriptor from a
# missing file by the errno (EBADF: reopen the directory) now takes the
# wrong branch. The same calls with and without denyRead must agree.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > bf.py <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def r(tag, v):
    print(tag, "ok" if v >= 0 else errno.errorcode[ctypes.get_errno()])
r("openat-creat", libc.openat(999, b"bf-x", os.O_WRONLY | os.O_CREAT, 0o644))
r("openat-wronly", libc.openat(999, b"bf-x", os.O_WRONLY))
r("openat-rdonly", libc.openat(999, b"bf-x", os.O_RDONLY))
r("mkdirat", libc.mkdirat(999, b"bf-d", 0o755))
r("renameat", libc.renameat(999, b"bf-a", -100, b"bf-b"))
PYEOF
with=$(srt__run -s "$SD" -c "$PY bf.py" 2>/dev/null)
without=$(srt__run -s "$SN" -c "$PY bf.py" 2>/dev/null)
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in openat-creat openat-wronly openat-rdonly mkdirat renameat; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	attempt S "$w at a descriptor the caller does not have answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
