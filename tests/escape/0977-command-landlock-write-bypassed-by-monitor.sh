#!/bin/bash
# Escape class H1 (linux-bwrap), red team on a61f400: the monitor now
# makes every write-only open itself (O_WRONLY, O_APPEND, O_TRUNC,
# O_CREAT), under srt's Landlock layer, not under a domain the command
# added for itself. Before a61f400 those opens went to the kernel in the
# caller's own domain. A command that sandboxes part of itself with
# Landlock (an agent running a tool read-only, a nested srt with the
# linux-landlock backend, landrun) under a ruleset that handles
# WRITE_FILE and MAKE_REG (and TRUNCATE) with no rule, so that every
# write is refused, as on the host and in a run without denyRead, now
# appends to ./f and makes ./ll_new on the host. 0974 is the same route
# for reads, mkdir and symlink (open, SECURITY.md); this one is new with
# a61f400 (on the code before it both writes are refused).
# Fixed since as 0974 is: landlock_restrict_self is refused (EPERM)
# while the monitor makes the command's file calls.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/ll.py" <<'PYEOF'
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
d = sys.argv[1]
WRITE_FILE, MAKE_REG, TRUNCATE = 1 << 1, 1 << 8, 1 << 14
abi = libc.syscall(444, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
acc = WRITE_FILE | MAKE_REG | (TRUNCATE if abi >= 3 else 0)
attr = ctypes.create_string_buffer(struct.pack("Q", acc))
fd = libc.syscall(444, attr, 8, 0)  # landlock_create_ruleset
if fd < 0:
    print("no-landlock", errno.errorcode.get(ctypes.get_errno()))
    sys.exit(0)
libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
if libc.syscall(446, fd, 0) != 0:  # landlock_restrict_self
    print("no-restrict", errno.errorcode.get(ctypes.get_errno()))
    sys.exit(0)
def append():
    f = os.open(d + "/f", os.O_WRONLY | os.O_APPEND)
    os.write(f, b"written-under-landlock\n")
    os.close(f)
def create():
    f = os.open(d + "/ll_new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(f, b"made-under-landlock\n")
    os.close(f)
for what, fn in (("append", append), ("create", create)):
    try:
        fn()
        print(what, "done")
    except OSError as e:
        print(what, errno.errorcode.get(e.errno, e.errno))
PYEOF
rm -rf "$P/ll_new" "$WORK/hostll"
echo "orig" > "$P/f"
mkdir -p "$WORK/hostll" && echo "orig" > "$WORK/hostll/f"
host=$("$PY" "$WORK/ll.py" "$WORK/hostll" 2>&1)
if ! echo "$host" | grep -qx "append EACCES"; then
	skip_rest 3 "no Landlock on this kernel: $host"
	echo "1..$_tap_n"
	exit 0
fi
srt__run -s "$S" -c "$PY $WORK/ll.py $P" > "$WORK/out" 2>&1
diag "host: $(echo "$host" | tr '\n' ' ')" "sandbox: $(tr '\n' ' ' < "$WORK/out")"
attempt H1 "the command's own Landlock domain holds for a write-only open the monitor makes: ./f not appended to" \
	sh -c "! grep -q written-under-landlock '$P/f'"
attempt H1 "the command's own Landlock domain holds for a write-only creating open the monitor makes: no ./ll_new on the host" \
	test ! -e "$P/ll_new"
attempt H1 "the command is told it cannot add a Landlock domain (landlock_restrict_self: EPERM)" \
	grep -qx 'no-restrict EPERM' "$WORK/out"
echo "1..$_tap_n"
