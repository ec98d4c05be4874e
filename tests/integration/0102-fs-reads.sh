#!/bin/bash
# Filesystem reads: denyRead masks, allowRead re-opens, the most specific
# rule wins whatever the order (F1, F2, F3, F10, a-e/srt #193 #263).
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

# check_not DESCRIPTION COMMAND...: ok when COMMAND fails
check_not() { local d=$1; shift; if "$@"; then not_ok "$d"; else ok "$d"; fi; }
# check_no_write DESCRIPTION SETTINGS PATH: writing PATH in srt fails and
# leaves nothing at PATH on the host
check_no_write() {
	local rc
	srt__run -s "$2" -c "echo x > '$3'" >/dev/null 2>&1; rc=$?
	check "$1" test $rc != 0 -a ! -e "$3"
}

S=$(fs base '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')

# F1
srt__run -s "$S" -c 'cat ~/.ssh/id_canary' >"$WORK/out" 2>&1; rc=$?
check "F1 reading a denied secret fails (rc=$rc)" test $rc != 0
check "F1 the secret does not appear" no_canary "$WORK/out"
srt__run -s "$S" -c 'ls -la ~/.ssh; cat ~/.ssh/*' >"$WORK/out" 2>&1
check "F1 the denied directory cannot be listed into a leak" no_canary "$WORK/out"

# F2: a single-file deny inside an allowed directory
mkdir -p "$WORK/proj/sub"
echo "CANARY-F2-$$" > "$WORK/proj/secret.txt"
F2=$(fs f2 '{"denyRead":["~/.ssh","./secret.txt"],"allowRead":["."],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$F2" -c 'cat secret.txt; cat sub/../secret.txt; cat "$PWD/secret.txt"' >"$WORK/out" 2>&1
check_not "F2 file deny inside allowRead: every spelling blocked" grep -q "CANARY-F2" "$WORK/out"
srt__run -s "$F2" -c 'ls sub >/dev/null && echo readable' >"$WORK/out" 2>&1
check "F2 the rest of the directory stays readable" grep -q readable "$WORK/out"

# F3: deny-read inside a deny-write directory
mkdir -p "$WORK/proj/secrets"
echo "CANARY-F3-$$" > "$WORK/proj/secrets/f"
F3=$(fs f3 '{"denyRead":["./secrets/f"],"allowWrite":["."],"denyWrite":["./secrets"]}')
srt__run -s "$F3" -c 'cat secrets/f' >"$WORK/out" 2>&1; rc=$?
check "F3 deny-read inside deny-write holds (rc=$rc)" test $rc != 0
check_not "F3 no leak" grep -q "CANARY-F3" "$WORK/out"
check_no_write "F3 the deny-write directory is read-only" "$F3" "$WORK/proj/secrets/new"

# denyRead with allowRead re-open
mkdir -p "$WORK/data/pub" "$WORK/data/private"
echo "public" > "$WORK/data/pub/readme"
echo "CANARY-DATA-$$" > "$WORK/data/private/key"
RO=$(fs reopen "{\"denyRead\":[\"$WORK/data\"],\"allowRead\":[\"$WORK/data/pub\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
out=$(srt__run -s "$RO" -c "cat '$WORK/data/pub/readme'" 2>/dev/null)
check "allowRead re-opens inside a denied directory" test "$out" = public
srt__run -s "$RO" -c "cat '$WORK/data/private/key' 2>/dev/null; ls '$WORK/data'" >"$WORK/out" 2>&1
check_not "the rest of the denied directory stays hidden" grep -qx "CANARY-DATA-$$\|private" "$WORK/out"
check_no_write "the denied directory is not writable" "$RO" "$WORK/data/new"

# Overlapping rules, listed in both orders, give the same result
mkdir -p "$WORK/proj/a/b" "$WORK/proj/w/sub"
echo "CANARY-A-$$" > "$WORK/proj/a/x"
echo "open" > "$WORK/proj/a/b/y"
echo "CANARY-B-$$" > "$WORK/proj/a/b/secret"
echo "lock" > "$WORK/proj/w/sub/lock"
probe='cat a/x; cat a/b/y; cat a/b/secret; echo 1 > w/f && echo w-ok; echo 2 > w/sub/g && echo sub-ok; echo 3 > w/sub/lock && echo lock-broken; true'
O1=$(fs order1 '{"denyRead":["./a","./a/b/secret"],"allowRead":["./a/b"],"allowWrite":["./w","./w/sub"],"denyWrite":["./w/sub/lock"]}')
O2=$(fs order2 '{"denyWrite":["./w/sub/lock"],"allowWrite":["./w/sub","./w"],"allowRead":["./a/b"],"denyRead":["./a/b/secret","./a"]}')
r1=$(srt__run -s "$O1" -c "$probe" 2>/dev/null | sort)
rm -f "$WORK/proj/w/f" "$WORK/proj/w/sub/g"
r2=$(srt__run -s "$O2" -c "$probe" 2>/dev/null | sort)
check "overlapping rules: both orders give the same result" test "$r1" = "$r2"
check "overlapping rules: the most specific wins" \
	test "$r1" = "$(printf '%s\n' open sub-ok w-ok | sort)"
check "overlapping rules: the denyWrite file is unchanged on the host" \
	test "$(cat "$WORK/proj/w/sub/lock")" = lock

# F10: read through a symlink planted in the project
ln -s "$HOME/.ssh/id_canary" "$WORK/proj/l"
srt__run -s "$S" -c 'cat l; cat ./l' >"$WORK/out" 2>&1
check "F10 a symlink to the secret does not leak it" no_canary "$WORK/out"
srt__run -s "$S" -c 'ln -s ~/.ssh/id_canary l2; cat l2' >"$WORK/out" 2>&1
check "F10 a symlink made inside does not leak it" no_canary "$WORK/out"

# denyRead globs are expanded when the sandbox starts, so a file that
# matches only then is denied too
mkdir -p "$WORK/proj/keys/sub"
echo "CANARY-PEM-$$" > "$WORK/proj/keys/a.pem"
echo "CANARY-PEM2-$$" > "$WORK/proj/keys/sub/b.pem"
echo "public" > "$WORK/proj/keys/a.pub"
GL=$(fs glob '{"denyRead":["./keys/**/*.pem"],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$GL" -c 'cat keys/a.pem keys/sub/b.pem' >"$WORK/out" 2>&1
check_not "denyRead glob: matching files unreadable at any depth" grep -q "CANARY-PEM" "$WORK/out"
out=$(srt__run -s "$GL" -c 'cat keys/a.pub' 2>/dev/null)
check "denyRead glob: other files readable" test "$out" = public
srt__run -s "$GL" -c 'mv keys keys2; mv keys/sub keys/s2' >/dev/null 2>&1
check "denyRead glob: the directories holding matches cannot be renamed" \
	test -d "$WORK/proj/keys/sub" -a ! -e "$WORK/proj/keys2" -a ! -e "$WORK/proj/keys/s2"

# a glob whose walk cannot list a directory (mode 111: searchable, not
# listable; root lists it anyway): the directory is denied whole, never
# passed over. Its base, a directory inside the walk, and one behind a link
mkdir -p "$WORK/proj/hid/priv" "$WORK/hid2"
echo "CANARY-HID1-$$" > "$WORK/proj/hid/priv/a.key"
echo "CANARY-HID2-$$" > "$WORK/hid2/c.key"
ln -s "$WORK/hid2" "$WORK/proj/hid/lnk"
chmod 111 "$WORK/proj/hid/priv" "$WORK/hid2"
GB=$(fs gbase "{\"denyRead\":[\"$WORK/proj/hid/priv/*.key\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
srt__run -s "$GB" -c 'cat hid/priv/a.key' >"$WORK/out" 2>&1
check_not "denyRead glob whose base cannot be listed: the file stays unreadable" grep -q "CANARY-HID1" "$WORK/out"
GW=$(fs gwalk "{\"denyRead\":[\"$WORK/proj/hid/**/*.key\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
srt__run -s "$GW" -c 'cat hid/priv/a.key; cat hid/lnk/c.key' >"$WORK/out" 2>&1
check_not "denyRead ** glob over unlistable directories, also behind a link: unreadable" \
	grep -q "CANARY-HID" "$WORK/out"
cat "$WORK/proj/hid/priv/a.key" "$WORK/hid2/c.key" >"$WORK/out" 2>&1
check "control: outside, both files are readable by name" \
	sh -c "grep -q CANARY-HID1 '$WORK/out' && grep -q CANARY-HID2 '$WORK/out'"
chmod 755 "$WORK/proj/hid/priv" "$WORK/hid2"

# a broad denyRead must not hide srt's own helper (carderne/pi-sandbox#82)
HB=$(fs helper "{\"denyRead\":[\"$MODULE_TREE\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
out=$(srt__run -s "$HB" -c 'echo alive' 2>/dev/null)
check "a denyRead over srt's helper does not break every command" test "$out" = alive

echo "1..$_tap_n"
