#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: renameat2(f, "X/",
# RENAME_NOREPLACE) where X exists and is not a directory (a dangling
# link, a link to a file, a file): the kernel answers EEXIST (NOREPLACE is
# checked before the trailing slash), the monitor, which makes renames
# itself with denyRead, ENOTDIR (b204419's trailing-slash answer comes
# first). The same call with and without denyRead must agree, and leave
# the names as they were.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > rn.py <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
for a, b, fl, tag in (("f", "dl/", 1, "noreplace-dangling"), ("f", "fl/", 1, "noreplace-filelink"),
                      ("f", "g/", 1, "noreplace-file")):
    r = libc.renameat2(-100, a.encode(), -100, b.encode(), fl)
    print(tag, "ok" if r == 0 else errno.errorcode[ctypes.get_errno()],
          sorted(os.listdir(".")))
PYEOF
run() {
	rm -rf t && mkdir t && (cd t && echo x > f && echo y > g && ln -s nowhere dl && ln -s g fl) &&
		srt__run -s "$1" -c "cd t && $PY ../rn.py" 2>/dev/null
}
with=$(run "$SD")
without=$(run "$SN")
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in noreplace-dangling noreplace-filelink noreplace-file; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	attempt S "renameat2 RENAME_NOREPLACE at a name with a trailing slash ($w) answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
