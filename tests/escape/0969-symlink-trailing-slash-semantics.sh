#!/bin/bash
# Semantics (linux-bwrap), red team on ce50c65's judge_symlink: the
# monitor now makes every symlink itself, on the directory and last name it
# resolved. symlink("f", "nn/") (a new name with a trailing slash) fails
# with ENOENT in the kernel and creates nothing; in the sandbox the
# monitor drops the slash, the call succeeds and a link "nn" appears.
# Programs that rely on the kernel's answer (or on the name not being
# made) see a different file system than outside srt.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
try:
    os.symlink("f", "nn/")
    print("made")
except OSError as e:
    print("errno", errno.errorcode.get(e.errno, e.errno))
print("exists" if os.path.lexists("nn") else "absent")
PYEOF
rm -f nn
out=$(cd "$P" && srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
host=$(mkdir -p "$WORK/hostcmp" && cd "$WORK/hostcmp" && "$PY" "$WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ' ')" "host: $(echo "$host" | tr '\n' ' ')"
attempt S "symlink to a new name with a trailing slash fails as in the kernel (ENOENT)" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'errno ENOENT'" _ "$out"
attempt S "symlink to a new name with a trailing slash makes no link" \
	test ! -L "$P/nn"
echo "1..$_tap_n"
