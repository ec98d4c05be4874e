#!/bin/bash
# Escape class: renames. Moving a denied file, a
# masked directory or an ancestor of a denied path away, swapping it with
# renameat2(RENAME_EXCHANGE), then recreating the denied name: the files
# stay where they were, unchanged, and a recreated name gives no access
# (checked in the same run and in the next one). Host state afterwards.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
mkdir -p "$P/data" "$P/d1/d2" "$P/.git/hooks" "$P/x"
echo "$CANARY" > "$P/data/secret"
echo keep > "$P/d1/d2/f"
echo hook > "$P/.git/hooks/pre-commit"
echo rc-orig > "$P/x/.bashrc"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./data/secret","./nd/secret"],"allowWrite":["."],"denyWrite":["./d1/d2/f","./nw/f"]}')
before=$(snapshot "$P")
# the protected files by inode: after the attacks each must still be the
# same inode at the same path with the same content
ino() { stat -c '%i' "$1" 2>/dev/null; }
i_secret=$(ino "$P/data/secret"); i_f=$(ino "$P/d1/d2/f"); i_hook=$(ino "$P/.git/hooks/pre-commit"); i_rc=$(ino "$P/x/.bashrc")
# rx OLD NEW: renameat2(RENAME_EXCHANGE) through ctypes
RX='rx() { /usr/bin/python3 -c "import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(l.renameat2(-100,sys.argv[1].encode(),-100,sys.argv[2].encode(),2) != 0)" "$1" "$2"; }'

srt__run -s "$S" -c "$RX"'
	mv ~/.aws ./aws2; mv ~/.ssh ./ssh2; mv ~/.ssh/id_canary ./c; cat ./c ./ssh2/* ./aws2/*
	mv data data.x && cat data.x/secret; mkdir -p data && echo PWN > data/secret
	mkdir ex && rx data ex && cat ex/secret
	mv d1 d1.x; mv d1/d2 d1/d2.x; mkdir -p e1/d2 && rx d1 e1; echo PWN > d1/d2/f; echo PWN > e1/d2/f
	mv .git .git.x; mkdir -p g/hooks && rx .git g; echo PWN > .git/hooks/pre-commit; echo PWN > g/hooks/pre-commit
	mv x x.y && echo PWN > x.y/.bashrc; mkdir -p x2 && rx x x2; echo PWN > x/.bashrc; echo PWN > x2/.bashrc
	true' >"$WORK/out" 2>&1
attempt F17 "no canary in the output (moved file, moved mask, moved ancestor, exchange)" no_leak "$WORK/out"
attempt F17 "~/.ssh and ~/.aws in place on the host" \
	test -f "$HOME/.ssh/id_canary" -a -f "$HOME/.aws/credentials" -a ! -e "$P/c" -a -z "$(find "$P/aws2" "$P/ssh2" -mindepth 1 2>/dev/null)"
attempt F17 "denied file: same inode at its path, unchanged" \
	test "$(cat "$P/data/secret" 2>/dev/null)" = "$CANARY" -a "$(ino "$P/data/secret")" = "$i_secret"
attempt F17 "write-denied file: same inode at its path, unchanged" \
	test "$(cat "$P/d1/d2/f" 2>/dev/null)" = keep -a "$(ino "$P/d1/d2/f")" = "$i_f"
attempt F17 "hooks: same inode at their path, unchanged" \
	test "$(cat "$P/.git/hooks/pre-commit" 2>/dev/null)" = hook -a "$(ino "$P/.git/hooks/pre-commit")" = "$i_hook"
attempt F17 "rc file at depth: same inode at its path, unchanged" \
	test "$(cat "$P/x/.bashrc" 2>/dev/null)" = rc-orig -a "$(ino "$P/x/.bashrc")" = "$i_rc"

# the next run: whatever the first one left must give no access
srt__run -s "$S" -c 'cat data/secret data.x/secret ex/secret */secret 2>/dev/null; true' >"$WORK/out" 2>&1
attempt F17 "next run: the secret is not readable under any name" no_leak "$WORK/out"

# missing denied paths (F7 placeholders): move the placeholder's parent
# away, recreate the name, write and read it
srt__run -s "$S" -c "$RX"'
	mkdir -p nd && mv nd nd.x; mkdir -p nd && echo PWN > nd/secret && cat nd/secret
	mkdir -p nw && mv nw nw.x; mkdir -p nw && echo PWN > nw/f
	mkdir -p ny && rx nw ny; echo PWN > nw/f; echo PWN > ny/f
	true' >"$WORK/out" 2>&1
attempt F7 "missing denyRead below a renamed parent: not created" test ! -e "$P/nd/secret"
attempt F7 "missing denyWrite below a renamed or exchanged parent: not created" test ! -e "$P/nw/f"
attempt F7 "and nothing was read back" sh -c "! grep -q '^PWN' '$WORK/out'"
rm -rf "$P/aws2" "$P/ssh2" "$P/nd" "$P/nd.x" "$P/nw" "$P/nw.x" "$P/ny" "$P/data.x" "$P/ex" "$P/d1.x" "$P/e1" "$P/g" "$P/.git.x" "$P/x.y" "$P/x2"
after=$(snapshot "$P")
attempt F17 "the protected tree is as before (no placeholder left behind)" test "$before" = "$after"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20 | sed 's/^/# /'
attempt F17 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
