#!/bin/bash
# Semantics (linux-bwrap), red team on b02937d: with denyRead the monitor
# follows another command process's /proc/<pid>/fd/N and root when
# may_follow_other says the kernel would: same ids, and "dumpable" judged
# by the owner of /proc/<pid>. A process that made itself non-dumpable
# (prctl(PR_SET_DUMPABLE, 0): ssh-agent, gpg-agent, a runtime guarding its
# secrets) has its /proc/<pid> owned by the namespace's root, which for a
# command running as root inside is the caller's own user: the proxy lets
# it through, and the monitor, holding every capability in the command's
# user namespace, opens what the kernel refuses the caller (no
# CAP_SYS_PTRACE: EACCES without denyRead). A root command reads and
# writes the files a non-dumpable process holds open. Fixed since: for a
# root command the monitor follows no other process's magic links.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
if [ "$(id -u)" != 0 ]; then
	skip "needs root (the command is root inside only then)"
	echo "1..$_tap_n"
	exit 0
fi
cat > nd.py <<'PYEOF'
import ctypes, os, time
libc = ctypes.CDLL(None)
fd = os.open("held", os.O_RDWR | os.O_APPEND)
os.dup2(fd, 9)
libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
print("ready", flush=True)
time.sleep(20)
PYEOF
SD=$(fsjson sd '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
SN=$(fsjson sn '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
cmd="$PY nd.py > nd.out & A=\$!; for i in \$(seq 100); do grep -q ready nd.out 2>/dev/null && break; sleep 0.1; done
cat /proc/\$A/fd/9 >/dev/null 2>&1; echo fd-read \$?
echo via-fd 2>/dev/null >> /proc/\$A/fd/9; echo fd-write \$?
cat /proc/\$A/root$P/held >/dev/null 2>&1; echo root-read \$?
kill \$A"
echo held > held
with=$(srt__run -s "$SD" -c "$cmd" 2>/dev/null; echo "held: $(tr '\n' ' ' < held)")
echo held > held
without=$(srt__run -s "$SN" -c "$cmd" 2>/dev/null; echo "held: $(tr '\n' ' ' < held)")
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in fd-read fd-write root-read; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	attempt S "a non-dumpable process's /proc/PID/${w%-*} ($w) answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
attempt S "nothing was written through the non-dumpable process's fd" \
	sh -c "! printf '%s\n' \"\$1\" | grep -q via-fd" _ "$with"
echo "1..$_tap_n"
