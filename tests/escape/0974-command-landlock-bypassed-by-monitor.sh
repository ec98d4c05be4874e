#!/bin/bash
# Escape class H1 (linux-bwrap), red team on d438bd4: the violation
# monitor makes each call it judges itself (an open since the monitor
# judged reads, a symlink since ce50c65, a mkdir since d438bd4), in srt's
# own Landlock domain. A command that sandboxes part of itself with a
# Landlock domain of its own (an agent running tools under landlock, a
# nested srt with the linux-landlock backend, landrun) loses that layer
# for every call the monitor makes: under a ruleset that handles
# READ_FILE, MAKE_DIR and MAKE_SYM with no rule (so everything is
# refused, as on the host and in a run without denyRead), the restricted
# process reads ./f (the canary), makes ./ll_dir and links ./ll_lnk, all
# on the host.
# Fixed since: with denyRead set (the monitor making those calls) the
# enforcement filter refuses landlock_restrict_self (EPERM), so the
# command is told it cannot restrict itself instead of believing a domain
# that the monitor's calls would not honour.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/ll.py" <<'PYEOF'
import os, sys
import landlock_self as ll
d = sys.argv[1]
ll.restrict(ll.MAKE_DIR | ll.MAKE_SYM | ll.READ_FILE)
ll.attempts((("mkdir", lambda: os.mkdir(d + "/ll_dir")),
             ("symlink", lambda: os.symlink("x", d + "/ll_lnk")),
             ("read", lambda: print(open(d + "/f").read().strip()))))
PYEOF
rm -rf "$P/ll_dir" "$P/ll_lnk" "$WORK/hostll"
echo "$CANARY" > "$P/f"
mkdir -p "$WORK/hostll" && echo "x" > "$WORK/hostll/f"
host=$($LL_PROBE "$WORK/hostll" 2>&1)
if ! echo "$host" | grep -qx "mkdir EACCES"; then
	skip_rest 4 "no Landlock on this kernel: $host"
	echo "1..$_tap_n"
	exit 0
fi
srt__run -s "$S" -c "$LL_PROBE $P" > "$WORK/out" 2>&1
diag "host: $(echo "$host" | tr '\n' ' ')" "sandbox: $(tr '\n' ' ' < "$WORK/out")"
attempt H1 "the command's own Landlock domain holds for a read the monitor makes: ./f not read" \
	no_leak "$WORK/out"
attempt H1 "the command's own Landlock domain holds for a mkdir the monitor makes: no ./ll_dir on the host" \
	test ! -e "$P/ll_dir"
attempt H1 "the command's own Landlock domain holds for a symlink the monitor makes: no ./ll_lnk on the host" \
	test ! -L "$P/ll_lnk"
attempt H1 "the command is told it cannot add a Landlock domain (landlock_restrict_self: EPERM)" \
	grep -qx 'no-restrict EPERM' "$WORK/out"
echo "1..$_tap_n"
