#!/bin/bash
# Path resolution (linux-bwrap), red team on aba4f63: the read observer
# resolves each path the command names in the command's root, which it
# had begun to open once for all processes (no process can change its
# root: chroot and pivot_root need a capability, and the user namespace
# that would give one is refused). With allowNestedUserNamespaces a
# process may make one, chroot into a directory of its own and open files
# there; the monitor resolved those opens in the sandbox's root instead,
# and handed over the sandbox's files ("/marker" outside the jail, the
# host's /etc/hostname, ".." past the jail's top). Nothing denied was
# reached (the verdict was made in the sandbox's view), but the process
# got other files than the kernel would have given it.
# Fixed since: the root is opened once only where the command cannot make
# user namespaces; with allowNestedUserNamespaces each call's own root is
# opened at that call, as before aba4f63.
# Checked here, with denyRead set (the observer judging every open): a
# process chrooted in a user namespace reads its jail's files, not the
# sandbox's, by an absolute path, a relative one climbing past its top,
# and a name only the sandbox has; and the denied name stays refused.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S="$WORK/s-userns.json"
printf '{"allowNestedUserNamespaces":true,"network":%s,"filesystem":%s}\n' "$NONET" "$S0_FS" > "$S"
rm -rf "$P/jail" && mkdir -p "$P/jail$P"
echo SANDBOX-TOP > "$P/marker"
echo JAIL-TOP > "$P/jail/marker"
echo JAIL-DEEP > "$P/jail$P/marker"
cat > "$WORK/jail.py" <<'PYEOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
jail, proj = sys.argv[1], sys.argv[2]
def show(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        print(f"{path}: errno={e.errno}")
        return
    print(f"{path}: {os.read(fd, 64).decode().strip()}")
    os.close(fd)
show(proj + "/marker")  # before the jail: the sandbox's file
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
    print("unshare: errno=%d" % ctypes.get_errno())
    sys.exit(0)
os.chroot(jail)
os.chdir("/")
show("/marker")
show("../../../../../../../.." + proj + "/marker")
show("/etc/hostname")
PYEOF
srt__run -s "$S" -c "python3 $WORK/jail.py $P/jail $P; cat ~/.ssh/id_canary" > "$WORK/out" 2>&1
if grep -q '^unshare: errno=' "$WORK/out"; then
	skip_rest 4 "P1 no user namespace in the sandbox with allowNestedUserNamespaces ($(grep '^unshare' "$WORK/out")): no jail to check"
else
	attempt P1 "before the jail the sandbox's file is read ($(grep -m1 "^$P/marker" "$WORK/out"))" \
		grep -qx "$P/marker: SANDBOX-TOP" "$WORK/out"
	attempt P1 "in the jail /marker is the jail's ($(grep -m1 '^/marker' "$WORK/out"))" \
		grep -qx "/marker: JAIL-TOP" "$WORK/out"
	attempt P1 "in the jail .. stops at the jail's top ($(grep -m1 '^\.\./' "$WORK/out"))" \
		grep -qx "../../../../../../../..$P/marker: JAIL-DEEP" "$WORK/out"
	attempt P1 "in the jail a name only the sandbox has is missing ($(grep -m1 '^/etc/hostname' "$WORK/out"))" \
		grep -qx "/etc/hostname: errno=2" "$WORK/out"
fi
attempt P1 "the denied name stays unread" no_leak "$WORK/out"
echo "1..$_tap_n"
