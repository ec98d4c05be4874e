#!/bin/bash
# Escape class: the settings themselves (F19: failing open, F20:
# tampering). A settings file srt cannot use in full stops it before the
# command runs (marker absent on the host); the file srt loaded cannot be
# rewritten, replaced by renaming its directory, or shadowed for the next
# run from inside.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
MARK="$WORK/ran"

# F19: unusable settings never mean "run with defaults"
bad() { # bad WHAT FILE
	rm -f "$MARK"
	srt__run -s "$2" -c "touch '$MARK'; cat ~/.ssh/id_canary" >"$WORK/out" 2>&1; rc=$?
	attempt F19 "$1: exit 1, the command never ran (rc=$rc)" test "$rc" = 1 -a ! -e "$MARK"
}
printf '{"filesystem":{"denyRead":["~/.ssh"]}}\0garbage' > "$WORK/nul.json"
bad "NUL byte in the file" "$WORK/nul.json"
printf '{"filesystem":{"denyRead":["~/.ssh\\u0000x"],"allowWrite":["."],"denyWrite":[]}}' > "$WORK/nulstr.json"
bad "\\u0000 inside a path string" "$WORK/nulstr.json"
printf '%*s' 100000 '' | tr ' ' '[' > "$WORK/deep.json"
bad "100000 nested arrays" "$WORK/deep.json"
printf '{"filesystem":{"denyRead":"~/.ssh","allowWrite":["."],"denyWrite":[]}}' > "$WORK/type.json"
bad "denyRead given as a string" "$WORK/type.json"
echo '{"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}' > "$WORK/unreadable.json"
chmod 000 "$WORK/unreadable.json"
if is_root; then
	skip "F19 unreadable settings file: root reads a mode-000 file"
else
	bad "unreadable settings file" "$WORK/unreadable.json"
fi
ln -sf /dev/zero "$WORK/zero.json"
bad "settings file is /dev/zero (endless)" "$WORK/zero.json"
mkfifo "$WORK/fifo.json"
rm -f "$MARK"
timeout -k 2 10 "$SRT" --backend="$BACKEND" -s "$WORK/fifo.json" -c "touch '$MARK'" >/dev/null 2>&1; rc=$?
attempt F19 "settings file is a FIFO nobody writes: the command never ran (rc=$rc)" test ! -e "$MARK"

# F20: the loaded settings file, in a write root, by every route
mkdir -p "$P/cfg"
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}' > "$P/cfg/s.json"
ino=$(stat -c %i "$P/cfg/s.json"); sum=$(md5sum < "$P/cfg/s.json")
evil='{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["/"],"denyWrite":[]}}'
srt__run -s "$P/cfg/s.json" -c "
	echo '$evil' > cfg/s.json; echo '$evil' >> cfg/s.json
	echo '$evil' > t.json && mv -f t.json cfg/s.json; rm -f cfg/s.json
	mv cfg cfg.old && mkdir cfg && echo '$evil' > cfg/s.json
	mkdir -p c2 && echo '$evil' > c2/s.json && /usr/bin/python3 -c 'import ctypes; ctypes.CDLL(None).renameat2(-100, b\"cfg\", -100, b\"c2\", 2)'
	true" >/dev/null 2>&1
attempt F20 "the loaded settings file: same inode, same content, same place" \
	test "$(stat -c %i "$P/cfg/s.json" 2>/dev/null)" = "$ino" -a "$(md5sum < "$P/cfg/s.json")" = "$sum"
rm -rf "$P/cfg.old" "$P/c2" "$P/t.json"
srt__run -s "$P/cfg/s.json" -c 'cat ~/.ssh/id_canary' >"$WORK/out" 2>&1
attempt F20 "the next run with the same path still denies the secret" no_leak "$WORK/out"

# the file named through a link in the write root (a link to a shared
# settings file): the command tries to re-point the link at a permissive
# file of its own. The helper pins the link (a read-only mount on the link
# itself), so it cannot, and a concurrent run reads the original; where it
# cannot pin (no mount API), srt puts the link back after the run. Either
# way the next run with the same name reads the original (review finding:
# the link was writable).
mkdir -p "$WORK/shared"
fsjson shared "$S0_FS" >/dev/null && mv "$WORK/shared.json" "$WORK/shared/s.json"
ln -s "$WORK/shared/s.json" "$P/link.json"
(cd "$P" && srt__run --debug -s link.json -c "echo '$evil' > weak.json; ln -sfn weak.json link.json; echo \"inside: ln=\$? \$(readlink link.json)\"") \
	>"$WORK/link.out" 2>&1
if grep -q -- '--pin-link [^ ]*/link.json' "$WORK/link.out"; then
	# the pinned name reads as its target file, not as a link
	attempt F20 "link-named settings: the command cannot re-point the pinned link inside ($(grep '^inside:' "$WORK/link.out"))" \
		grep -qx "inside: ln=1 " "$WORK/link.out"
else
	attempt F20 "link-named settings: no pin here (no mount API); the command re-points the link inside ($(grep '^inside:' "$WORK/link.out"))" \
		grep -qx 'inside: ln=0 weak.json' "$WORK/link.out"
fi
attempt F20 "link-named settings: the link is back after the run ($(readlink "$P/link.json"))" \
	test "$(readlink "$P/link.json")" = "$WORK/shared/s.json"
(cd "$P" && srt__run -s link.json -c 'cat ~/.ssh/id_canary') >"$WORK/out" 2>&1
attempt F20 "link-named settings: the next run still denies the secret" no_leak "$WORK/out"
rm -rf "$P/link.json" "$P"/link.json.srt-quarantine* "$P/weak.json" "$WORK/shared"
# a chain of links across directories, reached through a directory link,
# the second link relative to where the first really is: both are put back
mkdir -p "$P/d/e"
fsjson chain "$S0_FS" >/dev/null && mv "$WORK/chain.json" "$P/real.json"
ln -s ../real.json "$P/d/link2"; ln -s ../link2 "$P/d/e/s.json"; ln -s d/e "$P/cfg2"
(cd "$P" && srt__run -s cfg2/s.json -c "echo '$evil' > weak.json; ln -sfn $P/weak.json d/link2; ln -sfn x d/e/s.json; true") >/dev/null 2>&1
attempt F20 "link chain: both links are back ($(readlink "$P/d/link2") $(readlink "$P/d/e/s.json"))" \
	test "$(readlink "$P/d/link2")" = ../real.json -a "$(readlink "$P/d/e/s.json")" = ../link2
(cd "$P" && srt__run -s cfg2/s.json -c 'cat ~/.ssh/id_canary') >"$WORK/out" 2>&1
attempt F20 "link chain: the next run still denies the secret" no_leak "$WORK/out"
rm -rf "$P/d" "$P/cfg2" "$P/real.json" "$P/weak.json"

# the default settings file, with ~ writable
H=$(fsjson home '{"denyRead":["~/.ssh"],"allowWrite":["~"],"denyWrite":[]}')
(cd "$HOME" && srt__run -s "$H" -c "
	echo '$evil' > ~/.srt-settings.json; ln -s '$WORK/home.json' ~/.srt-settings.json
	echo '$evil' > t.json && mv t.json ~/.srt-settings.json; true") >/dev/null 2>&1
attempt F20 "no ~/.srt-settings.json planted (file, link or rename)" test ! -e "$HOME/.srt-settings.json" -a ! -L "$HOME/.srt-settings.json"
rm -f "$HOME/t.json"

echo "1..$_tap_n"
