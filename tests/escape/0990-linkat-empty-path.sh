#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: linkat(fd, "", dirfd,
# name, AT_EMPTY_PATH) (flink: give an open file, an O_TMPFILE most often,
# a name) works on this kernel for a file the caller opened itself (6.10
# and later; CAP_DAC_READ_SEARCH before). With denyRead the monitor judges
# links and answers every empty path ENOENT (resolve_for: len == 0), so
# flink fails though the fd is the caller's. Without denyRead it works.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > fl.py <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def lk(fd, new):
    r = libc.linkat(fd, b"", -100, new.encode(), 0x1000)
    return "ok" if r == 0 else errno.errorcode[ctypes.get_errno()]
fd = os.open(".", os.O_WRONLY | os.O_TMPFILE, 0o644)
os.write(fd, b"x\n")
print("tmpfile", lk(fd, "fl1"))
with open("reg", "w"):
    pass
print("regular", lk(os.open("reg", os.O_RDONLY), "fl2"))
print("o_path", lk(os.open("reg", os.O_PATH), "fl3"))
for f in ("fl1", "fl2", "fl3", "reg"):
    try:
        os.unlink(f)
    except OSError:
        pass
PYEOF
with=$(srt__run -s "$SD" -c "$PY fl.py" 2>&1)
without=$(srt__run -s "$SN" -c "$PY fl.py" 2>&1)
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in tmpfile regular o_path; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	open_route "linkat with AT_EMPTY_PATH is not resolved by the monitor: ENOENT (SECURITY.md)" S "linkat AT_EMPTY_PATH of a $w descriptor answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
