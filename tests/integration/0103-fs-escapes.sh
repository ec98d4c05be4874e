#!/bin/bash
# Escape attempts through links and renames (F11, F12, F15, F17) and a
# settings file that cannot be used (F19). Host state checked afterwards.
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

S=$(fs base '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
echo "rc-original" > "$HOME/.bashrc"
mkdir -p "$HOME/outside" "$HOME/.aws"
echo "aws" > "$HOME/.aws/credentials"

# F11: write through a symlink to a file outside the write roots
ln -s "$HOME/.bashrc" "$WORK/proj/b"
srt__run -s "$S" -c 'echo x >> b' >/dev/null 2>&1; rc=$?
check "F11 write through a symlink fails (rc=$rc)" test $rc != 0
check "F11 ~/.bashrc unchanged" test "$(cat "$HOME/.bashrc")" = rc-original

# F12: a dangling final symlink
ln -s "$HOME/outside/new" "$WORK/proj/d"
srt__run -s "$S" -c 'echo x > d' >/dev/null 2>&1; rc=$?
check "F12 write through a dangling symlink fails (rc=$rc), target not created" \
	test $rc != 0 -a ! -e "$HOME/outside/new"

# F15: hard link a denied file
srt__run -s "$S" -c 'ln ~/.ssh/id_canary ./k && cat ./k' >"$WORK/out" 2>&1; rc=$?
check "F15 hard link of a denied file fails (rc=$rc)" test $rc != 0
check "F15 no leak, no link on the host" no_canary "$WORK/out"
check "F15 ./k absent on the host" test ! -e "$WORK/proj/k"
srt__run -s "$S" -c 'ln /etc/passwd ./hl' >/dev/null 2>&1; rc=$?
check "hard link to a read-only file from outside fails (rc=$rc)" test $rc != 0 -a ! -e "$WORK/proj/hl"

# F17: rename a denied file or an ancestor
mkdir -p "$WORK/proj/.git/hooks"
echo hook > "$WORK/proj/.git/hooks/pre-commit"
srt__run -s "$S" -c 'mv ~/.aws ./aws2; mv .git/hooks ./h2; mv ~/.ssh/id_canary ./c; mv .git ./g2; cat ./c ./aws2/credentials' \
	>"$WORK/out" 2>&1
check "F17 no leak through renames" no_canary "$WORK/out"
check "F17 the originals are all in place" test -e "$HOME/.aws/credentials" -a -e "$HOME/.ssh/id_canary" \
	-a -e "$WORK/proj/.git/hooks/pre-commit" -a ! -e "$WORK/proj/h2" \
	-a ! -e "$WORK/proj/c" -a ! -e "$WORK/proj/g2"
# mv falls back to copying across mounts: all it can copy is the empty mask
check "F17 nothing of ~/.aws was copied out" test -z "$(find "$WORK/proj/aws2" -mindepth 1 2>/dev/null)"
# a denyWrite deep in a write root: its ancestors cannot be moved away
mkdir -p "$WORK/proj/d1/d2"
echo keep > "$WORK/proj/d1/d2/f"
P=$(fs pin '{"denyRead":[],"allowWrite":["."],"denyWrite":["./d1/d2/f"]}')
srt__run -s "$P" -c 'mv d1 moved; mv d1/d2 d1/x; mkdir -p d1/d2n; mv d1/d2/f d1/f2; echo evil > d1/d2/f' >/dev/null 2>&1
check "F17 ancestors of a write-denied file are pinned (no rename)" \
	test -d "$WORK/proj/d1/d2" -a ! -e "$WORK/proj/moved" -a ! -e "$WORK/proj/d1/x"
check "F17 the write-denied file is unchanged" test "$(cat "$WORK/proj/d1/d2/f")" = keep
check "F17 siblings stay writable" test -d "$WORK/proj/d1/d2n"

# F19: a settings file srt cannot use stops it before anything runs
srt__run --settings "$WORK/proj/typo.json" -c "cat ~/.ssh/id_canary; touch '$WORK/ran'" >"$WORK/out" 2>&1; rc=$?
check "F19 missing settings: non-zero exit, nothing ran" test $rc != 0 -a ! -e "$WORK/ran"
check "F19 no leak" no_canary "$WORK/out"

echo "1..$_tap_n"
