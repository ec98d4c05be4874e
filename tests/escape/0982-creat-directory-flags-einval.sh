#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor now makes write-only opens itself, and checks the flags after it
# has looked at what the name holds. The kernel (Linux >= 6.4) refuses
# O_CREAT | O_DIRECTORY with EINVAL before anything else; the monitor
# answers an existing directory EISDIR and an existing file ENOTDIR.
# Before a61f400 the write-only ones went to the kernel (EINVAL); read
# ones (O_RDONLY | O_CREAT | O_DIRECTORY) the monitor made already.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
def t(what, path, fl):
    try:
        os.close(os.open(path, fl, 0o644))
        r = "ok"
    except OSError as e:
        r = "errno " + errno.errorcode.get(e.errno, str(e.errno))
    print(what, r)
open("f", "w").close()
os.makedirs("d", exist_ok=True)
t("wronly-creat-directory-at-dir", "d", os.O_WRONLY | os.O_CREAT | os.O_DIRECTORY)
t("wronly-creat-directory-at-file", "f", os.O_WRONLY | os.O_CREAT | os.O_DIRECTORY)
PYEOF
mkdir -p "$P/in" "$WORK/hostcmp"
out=$(cd "$P/in" && srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
host=$(cd "$WORK/hostcmp" && "$PY" "$WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ';')" "host: $(echo "$host" | tr '\n' ';')"
for c in wronly-creat-directory-at-dir wronly-creat-directory-at-file; do
	a=$(printf '%s\n' "$out" | grep "^$c " | head -1)
	b=$(printf '%s\n' "$host" | grep "^$c " | head -1)
	attempt S "$c answers as in the kernel ($b)" test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
