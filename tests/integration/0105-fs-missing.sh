#!/bin/bash
# Denies on paths that do not exist yet (F7): they hold when the command
# creates them, and nothing is left on the host afterwards, even when srt
# is killed with SIGKILL.
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

listing() { (cd "$WORK" && find . -path ./out -prune -o -print | LC_ALL=C sort); }

S=$(fs f7 '{"denyRead":["~/.ssh","./credentials.json","./newdir/secret"],"allowWrite":["."],"denyWrite":["./credentials.json","./gen/out/lock"]}')
before=$(listing)

# F7
srt__run -s "$S" -c 'echo hi>credentials.json && cat credentials.json' >"$WORK/out" 2>&1; rc=$?
check "F7 create-then-read of a denied missing path fails (rc=$rc)" test $rc != 0
check "F7 nothing was read back" test "$(grep -c '^hi$' "$WORK/out")" = 0
check "F7 no file (not even 0 bytes) left on the host" test ! -e "$WORK/proj/credentials.json"

srt__run -s "$S" -c 'mkdir -p newdir && echo s > newdir/secret; cat newdir/secret' >"$WORK/out" 2>&1
check "a deny below a missing directory holds" test ! -e "$WORK/proj/newdir/secret"
srt__run -s "$S" -c 'mkdir -p gen/out && echo x > gen/out/lock' >/dev/null 2>&1
check "a deeper missing denyWrite holds" test ! -e "$WORK/proj/gen/out/lock"

after=$(listing)
check "nothing left on the host: the tree is as before" test "$before" = "$after"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'

# placeholders exist while the command runs, are read-only, and go away
out=$(srt__run -s "$S" -c 'test -e credentials.json && echo present; (echo x > credentials.json) 2>/dev/null || echo ro' 2>/dev/null)
check "while running, the denied name exists and is not writable" test "$out" = "$(printf 'present\nro')"
check "and afterwards it is gone" test ! -e "$WORK/proj/credentials.json" -a ! -e "$WORK/proj/.bashrc"

# SIGKILL of srt: the cleanup guard still removes the placeholders
# srt itself, not srt__run's timeout wrapper, is what gets killed
"$SRT" --backend="$BACKEND" -s "$S" -c 'echo up > up; sleep 30' >/dev/null 2>&1 &
p=$!
for i in $(seq 100); do [ -e "$WORK/proj/up" ] && break; sleep 0.1; done
present=no; [ -e "$WORK/proj/credentials.json" ] && present=yes
kill -9 $p; wait $p 2>/dev/null
for i in $(seq 50); do [ -e "$WORK/proj/credentials.json" ] || break; sleep 0.1; done
rm -f "$WORK/proj/up"
check "placeholders were there while srt ran ($present)" test $present = yes
check "after kill -9 of srt nothing is left behind" test "$before" = "$(listing)"
[ "$before" = "$(listing)" ] || diff <(echo "$before") <(listing) | sed 's/^/# /'

# Two runs in one directory: the run that made the placeholders ends first;
# it must not pull them from under the other (cc#89514)
"$SRT" --backend="$BACKEND" -s "$S" -c 'echo up > upA; while [ ! -e goA ]; do sleep 0.05; done' >/dev/null 2>&1 &
pa=$!
for i in $(seq 50); do [ -e "$WORK/proj/upA" ] && break; sleep 0.1; done
"$SRT" --backend="$BACKEND" -s "$S" -c 'echo up > upB; while [ ! -e goB ]; do sleep 0.05; done; (echo hi > credentials.json) 2>/dev/null; echo $? > resB; cat credentials.json > readB 2>/dev/null; true' >/dev/null 2>&1 &
pb=$!
for i in $(seq 50); do [ -e "$WORK/proj/upB" ] && break; sleep 0.1; done
touch "$WORK/proj/goA"
wait $pa
touch "$WORK/proj/goB"
wait $pb
check "concurrent runs: the deny still holds after the other run ended" \
	test "$(cat "$WORK/proj/resB" 2>/dev/null)" != 0 -a ! -s "$WORK/proj/readB"
rm -f "$WORK/proj/upA" "$WORK/proj/goA" "$WORK/proj/upB" "$WORK/proj/goB" "$WORK/proj/resB" "$WORK/proj/readB"
check "concurrent runs: nothing left on the host" test "$before" = "$(listing)"
[ "$before" = "$(listing)" ] || diff <(echo "$before") <(listing) | sed 's/^/# /'

# A protected directory's name (.vscode, .idea, .husky) held while the
# command runs is an empty directory, not a file: an editor or husky on
# the host that makes it (a recursive mkdir) and writes into it during the
# run succeeds, the command still cannot write there, and what the host put
# there stays after the run (a file placeholder made the host's mkdir fail)
"$SRT" --backend="$BACKEND" -s "$S" -c 'echo up > upV; while [ ! -e goV ]; do sleep 0.05; done; (echo x > .vscode/tasks.json) 2>/dev/null; echo $? > resV' >/dev/null 2>&1 &
pv=$!
for i in $(seq 50); do [ -e "$WORK/proj/upV" ] && break; sleep 0.1; done
hostv=$( (mkdir -p "$WORK/proj/.vscode" && echo '{"x":1}' > "$WORK/proj/.vscode/settings.json") 2>&1 && echo made)
touch "$WORK/proj/goV"
wait $pv
check "a protected directory's placeholder: the host makes it and writes into it during the run ($hostv)" \
	test "$hostv" = made
check "and the command cannot write there ($(cat "$WORK/proj/resV" 2>/dev/null))" \
	test "$(cat "$WORK/proj/resV" 2>/dev/null)" != 0 -a ! -e "$WORK/proj/.vscode/tasks.json"
check "and the host's file stays after the run" grep -q '"x":1' "$WORK/proj/.vscode/settings.json"
rm -rf "$WORK/proj/upV" "$WORK/proj/goV" "$WORK/proj/resV" "$WORK/proj/.vscode"

echo "1..$_tap_n"
