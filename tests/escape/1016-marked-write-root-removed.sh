#!/bin/bash
# Red team on eaa5a83 (read-only review): a name is another run's
# placeholder when it carries srt's mark and is empty, and a command can
# put the mark on its own write root, which it cannot remove (it is a
# mount point, its parent read-only). Run A (allowWrite ./out, out empty)
# marks out; run B, later, with the same settings, found its mandatory
# names missing at the top of out, took out itself for a placeholder,
# bound it read-only (B could not write its own write root) and removed
# it at its end. Now only a name in a directory the run may write, and
# never one of its write roots, can be taken over.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
mkdir out
S=$(fsjson markroot '{"denyRead":["~/.ssh"],"allowWrite":["./out"],"denyWrite":[]}')
srt__run -s "$S" -c "$PY -c 'import os; os.setxattr(\"out\", \"user.srt.placeholder\", b\"1\"); print(\"marked\")'" \
	> "$WORK/a.out" 2>&1
diag "run A: $(tr '\n' ' ' < "$WORK/a.out" | cut -c1-300)"
if ! grep -q marked "$WORK/a.out"; then
	skip_rest 2 "the filesystem of $WORK keeps no user attributes: nothing to mark"
	echo "1..$_tap_n"
	exit 0
fi
srt__run -s "$S" -c "echo made > out/file && echo wrote" > "$WORK/b.out" 2>&1
diag "run B: $(tr '\n' ' ' < "$WORK/b.out" | cut -c1-300)"
attempt F7 "a run after a command marked its write root can still write there" grep -qx wrote "$WORK/b.out"
rm -f out/file
srt__run -s "$S" -c true > /dev/null 2>&1
attempt F2 "the marked write root is not removed by the next run" test -d out
echo "1..$_tap_n"
