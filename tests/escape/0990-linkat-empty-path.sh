#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: linkat(fd, "", dirfd,
# name, AT_EMPTY_PATH) (flink: give an open file, an O_TMPFILE most often,
# a name) works on this kernel for a file the caller opened itself (6.10
# and later; CAP_DAC_READ_SEARCH before). With denyRead the monitor judged
# links and answered every empty path ENOENT (resolve_for: len == 0), so
# flink failed though the fd is the caller's. Without denyRead it works.
# Fixed: the monitor links the file the caller's descriptor holds as
# linkat(AT_FDCWD, "/proc/self/fd/N", ..., AT_SYMLINK_FOLLOW) would (the
# kernel lets the caller do that for any descriptor it holds), after the
# new name is judged as any other. Also here: what the kernel answers for
# AT_SYMLINK_FOLLOW with it, an empty path without it, a NULL path, an
# O_TMPFILE|O_EXCL, a directory, a descriptor the caller does not have,
# a name that exists or ends in a slash, an O_PATH of a symbolic link (the
# link itself is linked), a pipe and a removed file; a new name at or
# above a denied name is refused and nothing is made on the host; and the
# one difference left (open): a descriptor the caller did not open
# itself, inherited through exec or fork or received over a socket, is
# refused by the kernel's flink (ENOENT: the file's opener is not the
# caller) but linked by the monitor, which cannot tell who opened a file it
# opened itself for the caller; the caller can link such a file through
# /proc/self/fd/N without denyRead too, which a line below checks.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > fl.py <<'PYEOF'
import array, ctypes, errno, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
def lk(fd, new, path=b"", flags=0x1000):
    r = libc.linkat(fd if not path else -100, path, -100, new.encode(), flags)
    return "ok" if r == 0 else errno.errorcode[ctypes.get_errno()]
def proc(fd, new):
    return lk(-100, new, b"/proc/self/fd/%d" % fd, 0x400)
fd = os.open(".", os.O_WRONLY | os.O_TMPFILE, 0o644)
os.write(fd, b"x\n")
print("tmpfile", lk(fd, "fl1"))
print("follow-too", lk(fd, "flh", b"", 0x1400))
print("no-flag", lk(fd, "fli", b"", 0))
r = libc.linkat(fd, None, -100, b"flj", 0x1000)
print("null-path", "ok" if r == 0 else errno.errorcode[ctypes.get_errno()])
with open("reg", "w"):
    pass
print("regular", lk(os.open("reg", os.O_RDONLY), "fl2"))
print("o_path", lk(os.open("reg", os.O_PATH), "fl3"))
print("excl", lk(os.open(".", os.O_WRONLY | os.O_TMPFILE | os.O_EXCL, 0o644), "fl4"))
print("directory", lk(os.open(".", os.O_RDONLY), "fl5"))
print("cwd", lk(-100, "fl6"))
print("bad-fd", lk(987, "fl7"))
print("exists", lk(os.open("reg", os.O_RDONLY), "reg"))
print("slash", lk(os.open("reg", os.O_RDONLY), "fld/"))
os.symlink("reg", "sl")
print("symlink", lk(os.open("sl", os.O_PATH | os.O_NOFOLLOW), "fle"), os.path.islink("fle"))
print("pipe", lk(os.pipe()[0], "flf"))
with open("gone", "w"):
    pass
gone = os.open("gone", os.O_RDONLY)
os.unlink("gone")
print("deleted", lk(gone, "flg"))
# 3 is the shell's, opened before this program's exec
print("inherited", lk(3, "fl8"))
print("inherited-proc", proc(3, "fl9"))
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [os.open("reg", os.O_RDONLY)]))])
    os._exit(0)
msg, anc, _, _ = b.recvmsg(1, socket.CMSG_LEN(4))
os.waitpid(pid, 0)
got = array.array("i", anc[0][2][:4])[0]
print("received", lk(got, "fla"))
print("received-proc", proc(got, "flb"))
sys.stdout.flush()
if os.fork() == 0:
    print("forked", lk(fd, "flc"))
    sys.stdout.flush()
    os._exit(0)
os.wait()
for f in ("fl1", "fl2", "fl3", "fl4", "fl5", "fl6", "fl7", "fl8", "fl9", "fla", "flb", "flc", "fle",
          "flf", "flg", "flh", "fli", "flj", "sl", "reg"):
    try:
        os.unlink(f)
    except OSError:
        pass
PYEOF
echo inherited > inh
with=$(srt__run -s "$SD" -c "exec 3<inh; exec $PY fl.py" 2>&1)
without=$(srt__run -s "$SN" -c "exec 3<inh; exec $PY fl.py" 2>&1)
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
answer() { printf '%s\n' "$1" | grep "^$2 " | head -1; }
for w in tmpfile follow-too no-flag null-path regular o_path excl directory cwd bad-fd exists slash \
	symlink pipe deleted; do
	a=$(answer "$with" $w)
	b=$(answer "$without" $w)
	attempt S "linkat AT_EMPTY_PATH, case $w: answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
for w in inherited received forked; do
	a=$(answer "$with" $w)
	b=$(answer "$without" $w)
	open_route "the monitor links a descriptor the caller did not open itself, as /proc/self/fd/N would (SECURITY.md)" \
		S "linkat AT_EMPTY_PATH, case $w: answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
attempt S "without denyRead the caller links the inherited and received files through /proc/self/fd/N" \
	test "$(answer "$without" inherited-proc)" = "inherited-proc ok" -a \
	"$(answer "$without" received-proc)" = "received-proc ok"

# the new name is judged: at a denied name and at a free name above one
# (a host `mkdir -p` of the denied path would take what the command put
# there), refused, nothing made on the host
SX=$(fsjson sx "{\"denyRead\":[\"~/.ssh\",\"$P/secret\",\"$P/above/deep\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
cat > fd.py <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(".", os.O_WRONLY | os.O_TMPFILE, 0o644)
os.write(fd, b"planted\n")
for new in ("secret", "above", os.path.expanduser("~/.ssh/authorized_keys")):
    r = libc.linkat(fd, b"", -100, new.encode(), 0x1000)
    print(new, "ok" if r == 0 else errno.errorcode[ctypes.get_errno()])
PYEOF
rm -rf secret above
out=$(srt__run -s "$SX" -c "$PY fd.py" 2>&1)
diag "denied new names: $(echo "$out" | tr '\n' ' ')"
attempt S "linkat AT_EMPTY_PATH to a denied name (its cover: EEXIST, as ln says) makes nothing on the host" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^secret E' && test ! -e secret" _ "$out"
attempt S "linkat AT_EMPTY_PATH to a free name above a denied one is refused, nothing made" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'above EACCES' && test ! -e above" _ "$out"
attempt S "linkat AT_EMPTY_PATH into the denied ~/.ssh makes nothing there" \
	sh -c "printf '%s\n' \"\$1\" | grep -q 'authorized_keys E' && test ! -e '$HOME/.ssh/authorized_keys'" _ "$out"
echo "1..$_tap_n"
