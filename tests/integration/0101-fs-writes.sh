#!/bin/bash
# Filesystem writes: allowWrite opens, everything else is read-only, TMPDIR
# works, filesystem.disabled, settings files cannot be rewritten (F20),
# write globs are refused (F9). Every check looks at the host afterwards.
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

mkdir -p "$WORK/outside"

S=$(fs base '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$S" -c 'echo inside > inside.txt' >/dev/null 2>&1
check "write inside allowWrite succeeds and lands on the host" \
	test "$(cat "$WORK/proj/inside.txt" 2>/dev/null)" = inside

srt__run -s "$S" -c "echo out > '$WORK/outside/x.txt'" >/dev/null 2>&1; rc=$?
check "write outside allowWrite fails (rc=$rc), nothing on the host" \
	test $rc != 0 -a ! -e "$WORK/outside/x.txt"

probe="/tmp/srt-it-probe-$$-$RANDOM"
srt__run -s "$S" -c "echo out > $probe" >/dev/null 2>&1; rc=$?
check "write to /tmp (not allowed) fails, nothing on the host" test $rc != 0 -a ! -e "$probe"

out=$(srt__run -s "$S" -c 'f=$(mktemp) && echo ok > "$f" && cat "$f" && echo "$TMPDIR" && rm "$f" && test -d "$TMPDIR" && echo dir' 2>/dev/null); rc=$?
tmpd=$(printf '%s\n' "$out" | sed -n 2p)
check "TMPDIR is set, exists and is writable (rc=$rc, TMPDIR=$tmpd)" \
	test $rc = 0 -a "$(printf '%s\n' "$out" | head -1)" = ok -a -n "$tmpd" -a "$(printf '%s\n' "$out" | sed -n 3p)" = dir
# the default TMPDIR is the run's own, removed at its end
check "the run's TMPDIR is gone after the run ($tmpd)" test -n "$tmpd" -a ! -e "$tmpd"

# F4: a denied directory is not a writable tmpfs
srt__run -s "$S" -c 'echo x > ~/.ssh/probe' >/dev/null 2>&1; rc=$?
check "F4 write into a denyRead directory fails (rc=$rc), nothing on the host" \
	test $rc != 0 -a ! -e "$HOME/.ssh/probe"
check "F4 the canary is unchanged" test "$(cat "$HOME/.ssh/id_canary")" = "$CANARY"

# filesystem.disabled: no rules at all
D=$(fs disabled '{"disabled":true,"denyRead":["~/.ssh"],"allowWrite":[],"denyWrite":[]}')
srt__run -s "$D" -c "echo free > '$WORK/outside/free.txt'" >/dev/null 2>&1; rc=$?
check "filesystem.disabled: writes anywhere work (rc=$rc)" \
	test $rc = 0 -a "$(cat "$WORK/outside/free.txt" 2>/dev/null)" = free

# F20: the settings srt loaded, and the default settings path, stay read-only
cp "$S" "$WORK/proj/.srt-settings.json"
H=$(fs homew '{"denyRead":["~/.ssh"],"allowWrite":["~","."],"denyWrite":[]}')
cp "$H" "$WORK/proj/home-write.json"
before=$(cat "$WORK/proj/.srt-settings.json")
srt__run -s "$WORK/proj/.srt-settings.json" -c 'echo {} > ./.srt-settings.json' >/dev/null 2>&1; rc=$?
check "F20 rewriting the loaded settings file fails (rc=$rc)" \
	test $rc != 0 -a "$(cat "$WORK/proj/.srt-settings.json")" = "$before"
srt__run -s "$WORK/proj/home-write.json" -c 'echo {} > ~/.srt-settings.json' >/dev/null 2>&1; rc=$?
check "F20 creating ~/.srt-settings.json fails even with ~ writable (rc=$rc)" \
	test $rc != 0 -a ! -s "$HOME/.srt-settings.json"
check "F20 no placeholder left at ~/.srt-settings.json" test ! -e "$HOME/.srt-settings.json"

# F9: a write glob that cannot be enforced is an error before anything runs
G=$(fs glob '{"denyRead":[],"allowWrite":["."],"denyWrite":["**/*.pem"]}')
srt__run -s "$G" -c "touch '$WORK/proj/ran'" 2>"$WORK/err" >/dev/null; rc=$?
check "F9 denyWrite glob refused (rc=$rc), command not run" test $rc = 1 -a ! -e "$WORK/proj/ran"
check "F9 the error names the entry" grep -q 'filesystem.denyWrite\[0\]' "$WORK/err"

echo "1..$_tap_n"
