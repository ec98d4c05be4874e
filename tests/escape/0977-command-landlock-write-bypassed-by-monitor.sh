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
import os, sys
import landlock_self as ll
d = sys.argv[1]
# TRUNCATE only where the ABI knows it (3 and up): restrict() leaves it out
ll.restrict(ll.WRITE_FILE | ll.MAKE_REG | ll.TRUNCATE)
def append():
    f = os.open(d + "/f", os.O_WRONLY | os.O_APPEND)
    os.write(f, b"written-under-landlock\n")
    os.close(f)
def create():
    f = os.open(d + "/ll_new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(f, b"made-under-landlock\n")
    os.close(f)
ll.attempts((("append", append), ("create", create)))
PYEOF
rm -rf "$P/ll_new" "$WORK/hostll"
echo "orig" > "$P/f"
mkdir -p "$WORK/hostll" && echo "orig" > "$WORK/hostll/f"
host=$($LL_PROBE "$WORK/hostll" 2>&1)
if ! echo "$host" | grep -qx "append EACCES"; then
	skip_rest 3 "no Landlock on this kernel: $host"
	echo "1..$_tap_n"
	exit 0
fi
srt__run -s "$S" -c "$LL_PROBE $P" > "$WORK/out" 2>&1
diag "host: $(echo "$host" | tr '\n' ' ')" "sandbox: $(tr '\n' ' ' < "$WORK/out")"
attempt H1 "the command's own Landlock domain holds for a write-only open the monitor makes: ./f not appended to" \
	sh -c "! grep -q written-under-landlock '$P/f'"
attempt H1 "the command's own Landlock domain holds for a write-only creating open the monitor makes: no ./ll_new on the host" \
	test ! -e "$P/ll_new"
attempt H1 "the command is told it cannot add a Landlock domain (landlock_restrict_self: EPERM)" \
	grep -qx 'no-restrict EPERM' "$WORK/out"
echo "1..$_tap_n"
