#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: open(dir, O_TMPFILE|O_EXCL)
# makes an unnamed file that can never be linked into the file system
# (linkat through /proc/self/fd/N answers ENOENT): programs rely on it for
# data that must not get a name. With denyRead the monitor makes the
# O_TMPFILE open itself and drops O_EXCL with the create flags (perform_open's
# pass mask, since e9fa92e), so the file is linkable: linkat(AT_FDCWD,
# "/proc/self/fd/N", ..., AT_SYMLINK_FOLLOW) gives it a name. Fix: keep O_EXCL
# for O_TMPFILE in a.flags.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > tx.py <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(".", os.O_RDWR | os.O_TMPFILE | os.O_EXCL, 0o600)
os.write(fd, b"never-named\n")
r = libc.linkat(-100, ("/proc/self/fd/%d" % fd).encode(), -100, b"named", 0x400)
print("excl-link", "ok" if r == 0 else errno.errorcode[ctypes.get_errno()])
PYEOF
rm -f named
with=$(srt__run -s "$SD" -c "$PY tx.py" 2>&1)
named_with=$(cat named 2>/dev/null)
rm -f named
without=$(srt__run -s "$SN" -c "$PY tx.py" 2>&1)
rm -f named
diag "with denyRead: $with (named: $named_with)" "without: $without"
attempt S "an O_TMPFILE|O_EXCL file cannot be linked with denyRead either ($without)" \
	test -n "$without" -a "$with" = "$without" -a -z "$named_with"
echo "1..$_tap_n"
