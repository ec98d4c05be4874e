#!/bin/bash
# Semantics (linux-bwrap), red team on d438bd4's judge_create: mkdir at a
# denied name that exists (~/.ssh, covered) is refused with EACCES; the
# kernel answers EEXIST (as srt did up to ce50c65: the cover is there).
# Programs that make a directory "if missing" and accept only EEXIST
# break: Node's fs.mkdirSync(dir, {recursive: true}) throws EACCES for
# ~/.ssh, a raw mkdir() says EACCES instead of EEXIST. The name's
# existence is no secret (stat is not judged); answering EEXIST (and
# reporting, if wanted) when the denied name exists would keep them
# working.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
try:
    os.mkdir(os.path.expanduser("~/.ssh"))
    print("mkdir made")
except OSError as e:
    print("mkdir errno", errno.errorcode.get(e.errno, e.errno))
PYEOF
out=$(srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ' ')"
if command -v node >/dev/null 2>&1; then
	nout=$(srt__run -s "$S" -c "node -e \"require('fs').mkdirSync(require('os').homedir() + '/.ssh', {recursive: true}); console.log('node ok')\"" 2>&1)
	diag "node: $(echo "$nout" | grep -m2 -e 'node ok' -e 'Error:')"
fi
attempt S "mkdir at the existing denied ~/.ssh fails with EEXIST, as in the kernel" \
	sh -c "printf '%s\n' \"\$1\" | grep -qx 'mkdir errno EEXIST'" _ "$out"
echo "1..$_tap_n"
