#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor now makes every write-only open itself, and it judges a name by
# its absolute path, which it cannot tell past PATH_MAX (the kernel's
# readlink of a directory descriptor stops there). A relative path the
# kernel takes (up to 4095 bytes) whose absolute form is longer fails
# with ENAMETOOLONG: a write-only create 4095 bytes deep below a short
# cwd works on the host and before a61f400, not now. (Read opens and the
# calls that make names have had the same limit since the monitor made
# them.) The case below was in fact refused by read_string, which read one
# byte less than the kernel copies and missed the NUL of a 4095-byte path;
# fixed there. The second part works below a cwd deeper than PATH_MAX,
# reached by relative steps: the monitor judges such a directory by its
# nearest ancestor whose path the kernel tells (judged_path: no record of
# the policy lies below it, and every record is shorter than PATH_MAX), so
# opens, names made, links and renames there answer as without denyRead,
# and a walk from there by ".." to the denied ~/.ssh is still refused. A
# file (not a directory) deeper than PATH_MAX named by its descriptor (the
# flink of 0990) cannot be judged so (no ".." to climb from): refused with
# ENAMETOOLONG, open.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
p = "/".join(["d" * 250] * 15) + "/" + "y" * 200
os.makedirs(p, exist_ok=True)
q = p + "/" + "z" * (4095 - len(p) - 1)
try:
    os.close(os.open(q, os.O_WRONLY | os.O_CREAT, 0o644))
    print("long-create ok")
except OSError as e:
    print("long-create errno", errno.errorcode.get(e.errno, e.errno))
PYEOF
mkdir -p "$P/in" "$WORK/hostcmp"
out=$(cd "$P/in" && srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
host=$(cd "$WORK/hostcmp" && "$PY" "$WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ';' | cut -c1-300)" "host: $(echo "$host" | tr '\n' ';')"
attempt S "a write-only create at a 4095-byte relative path answers as in the kernel ($host)" \
	sh -c "printf '%s\n' \"\$1\" | grep -qxF \"\$2\"" _ "$out" "$host"

cat > "$WORK/deep.py" <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def t(what, f):
    try:
        f()
        print(what, "ok")
    except OSError as e:
        print(what, errno.errorcode.get(e.errno, e.errno))
def flink(fd, new):
    if libc.linkat(fd, b"", -100, new, 0x1000) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
top = os.getcwd()
os.makedirs("/".join(["d" * 250] * 16), exist_ok=True)
os.chdir("/".join(["d" * 250] * 16))
for i in range(3):
    t("mkdir%d" % i, lambda: os.mkdir("e" * 250))
    os.chdir("e" * 250)
t("create", lambda: os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644)))
t("read", lambda: os.close(os.open("f", os.O_RDONLY)))
t("rdwr", lambda: os.close(os.open("f", os.O_RDWR)))
t("symlink", lambda: os.symlink("f", "l"))
t("read-through-link", lambda: os.close(os.open("l", os.O_RDONLY)))
t("link", lambda: os.link("f", "g"))
t("rename", lambda: os.rename("g", "h"))
t("mkdir", lambda: os.mkdir("sub"))
t("dotdot-read", lambda: os.close(os.open("sub/../f", os.O_RDONLY)))
t("dir-open", lambda: os.close(os.open("..", os.O_RDONLY)))
t("mkfifo", lambda: os.mkfifo("fifo"))
t("tmpfile", lambda: os.close(os.open(".", os.O_WRONLY | os.O_TMPFILE, 0o644)))
t("excl-create", lambda: os.close(os.open("f", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)))
t("missing", lambda: os.close(os.open("nothere", os.O_RDONLY)))
t("flink-deep-file", lambda: flink(os.open("f", os.O_RDONLY), b"fl"))
up = os.path.relpath(os.path.expanduser("~/.ssh/id_canary"), top)
depth = 16 + 3
t("dotdot-denied", lambda: print(open("../" * depth + up).read(), end=""))
PYEOF
rm -rf "$P/in"/*
with=$(cd "$P/in" && srt__run -s "$S" -c "$PY $WORK/deep.py" 2>&1)
rm -rf "$P/in"/*
SN=$(fsjson sn '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
without=$(cd "$P/in" && srt__run -s "$SN" -c "$PY $WORK/deep.py" 2>&1)
rm -rf "$P/in"/*
diag "deep, with denyRead: $(echo "$with" | tr '\n' ' ' | cut -c1-600)" "without: $(echo "$without" | tr '\n' ' ' | cut -c1-600)"
answer() { printf '%s\n' "$1" | grep "^$2 " | head -1; }
for w in mkdir0 mkdir1 mkdir2 create read rdwr symlink read-through-link link rename mkdir dotdot-read \
	dir-open mkfifo tmpfile excl-create missing; do
	a=$(answer "$with" $w)
	b=$(answer "$without" $w)
	attempt S "below a cwd deeper than PATH_MAX, $w answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
a=$(answer "$with" flink-deep-file)
b=$(answer "$without" flink-deep-file)
open_route "a file deeper than PATH_MAX named by its descriptor cannot be judged by the denied names: refused (SECURITY.md)" \
	S "the flink of a file deeper than PATH_MAX answers as without denyRead ($b)" test -n "$b" -a "$a" = "$b"
attempt S "a read of the denied file by \"..\" from a cwd deeper than PATH_MAX is refused" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'dotdot-denied EACCES'" _ "$with"
attempt S "and the canary does not leak" sh -c "! printf '%s\n' \"\$1\" | grep -q '$CANARY'" _ "$with"
echo "1..$_tap_n"
