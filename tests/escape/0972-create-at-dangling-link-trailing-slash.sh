#!/bin/bash
# Semantics (linux-bwrap), red team on d438bd4's judge_create: with
# denyRead set the monitor makes every mkdir and symlink itself, and its
# resolution follows a final symbolic link when the name ends in a slash.
# The kernel never does for a call that makes a name: mkdir("dl/") and
# symlink("x", "dl/") at a dangling link dl -> missing fail with EEXIST
# and make nothing. In the sandbox mkdir("dl/") succeeds and makes the
# link's target directory "missing", and symlink("x", "dl/") fails with
# ENOENT (0969's fix answers ENOENT whenever the followed target is
# missing).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
def t(what, fn):
    try:
        fn()
        print(what, "made")
    except OSError as e:
        print(what, "errno", errno.errorcode.get(e.errno, e.errno))
os.symlink("missing", "dl")
t("mkdir", lambda: os.mkdir("dl/"))
print("target", "exists" if os.path.lexists("missing") else "absent")
os.symlink("missing2", "dl2")
t("symlink", lambda: os.symlink("x", "dl2/"))
print("target2", "exists" if os.path.lexists("missing2") else "absent")
PYEOF
rm -rf dl dl2 missing missing2
out=$(cd "$P" && srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
host=$(rm -rf "$WORK/hostcmp" && mkdir -p "$WORK/hostcmp" && cd "$WORK/hostcmp" && "$PY" "$WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ' ')" "host: $(echo "$host" | tr '\n' ' ')"
attempt S "mkdir at a dangling link with a trailing slash fails as in the kernel (EEXIST)" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'mkdir errno EEXIST'" _ "$out"
attempt S "mkdir at a dangling link with a trailing slash makes no directory at the link's target" \
	test ! -e "$P/missing"
attempt S "symlink at a dangling link with a trailing slash fails as in the kernel (EEXIST)" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'symlink errno EEXIST'" _ "$out"
echo "1..$_tap_n"
