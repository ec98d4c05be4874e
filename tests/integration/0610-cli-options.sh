#!/bin/bash
# The command line a newcomer types: short options group as getopt (and the
# reference's parser) take them ("-dc 'cmd'" is "-d -c 'cmd'", an option
# that takes a value ends the group and takes the rest of the word or the
# next word), a settings file that cannot be used is reported in one line,
# and `srt help` prints the help. Every "refused" case also checks that the
# command did not run.
. "$(dirname "$0")/lib.sh"

S=$(settings "$DEFAULT_SETTINGS")
MARK="$WORK/ran"

# -dc 'cmd': debug on, the next word is the command string
out=$(srt__run -s "$S" -dc 'echo grouped' 2>"$WORK/err"); rc=$?
check "-dc 'cmd' runs the command string (rc=$rc, out=$out)" test $rc = 0 -a "$out" = grouped
check "-dc 'cmd' turns debug on" grep -q '^\[srt debug\]' "$WORK/err"
# the value glued to the group: -dcCMD
out=$(srt__run -s "$S" '-dcecho glued' 2>"$WORK/err"); rc=$?
check "-dcCMD takes the rest of the word as the command (rc=$rc, out=$out)" test $rc = 0 -a "$out" = glued
# -qd (flags only), then -s's value as the next word of a group: -ds FILE
out=$(srt__run -qds "$S" -c 'echo settings-grouped' 2>"$WORK/err"); rc=$?
check "-qds FILE reads FILE as the settings (rc=$rc, out=$out)" test $rc = 0 -a "$out" = settings-grouped
# the settings file given through a group is enforced (not the defaults):
# the canary under denyRead stays unread
out=$(srt__run -ds "$S" -c 'cat ~/.ssh/id_canary' 2>/dev/null)
check "-ds FILE: the file's denyRead is enforced" test -z "$out"
# -cd: -c ends the group, "d" is its value (as getopt and the reference)
srt__run -s "$S" -cd 2>"$WORK/err" >/dev/null; rc=$?
check "-cd: 'd' is the command string, run (rc=$rc: the shell's 127 for no program d)" test $rc = 127
# an unknown letter in a group is refused and named; nothing runs
srt__run -s "$S" -dx touch "$MARK" 2>"$WORK/err"; rc=$?
check "-dx: refused with exit 1, nothing ran" test $rc = 1 -a ! -e "$MARK"
check "-dx: the unknown letter is named" grep -q "unknown option '-x' in '-dx'" "$WORK/err"
# a value-taking option at the end of a group with no word after it
srt__run -s "$S" -dc 2>"$WORK/err"; rc=$?
check "-dc with nothing after it: exit 1, says -c needs an argument" \
	eval 'test $rc = 1 && grep -q "'"'"'-c'"'"'.*needs an argument" "$WORK/err"'
# -V and -h inside a group answer at once
check "-dV prints the version" test "$("$SRT" -dV)" = "$("$SRT" -V)"
"$SRT" -dh | grep -q '^usage: srt'; check "-dh prints the help" test $? = 0
# -- still ends the options, and a word that starts with '-' after it is a command word
out=$(srt__run -s "$S" -d -- echo -dc x 2>/dev/null)
check "-- ends the options: '-dc x' goes to the command" test "$out" = "-dc x"

# a settings error is one line on stderr, the refusal said once
for case in missing empty badjson schema dir; do
	f="$WORK/$case.json"
	case $case in
	missing) rm -f "$f" ;;
	empty) : >"$f" ;;
	badjson) echo '{"network": {' >"$f" ;;
	schema) echo '{"network":{"allowedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' >"$f" ;;
	dir) mkdir -p "$f" ;;
	esac
	srt__run -s "$f" -c "touch $MARK" 2>"$WORK/err"; rc=$?
	n=$(wc -l <"$WORK/err")
	r=$(grep -c 'refusing to run' "$WORK/err")
	check "settings $case: exit 1, nothing ran, one line on stderr ($n), the refusal once ($r)" \
		test $rc = 1 -a ! -e "$MARK" -a "$n" = 1 -a "$r" = 1
done
# the default file (no --settings) that exists but is broken: refused the same way
echo '{"network": {' >"$HOME/.srt-settings.json"
srt__run -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "a broken ~/.srt-settings.json: exit 1, one line, the refusal once" \
	test $rc = 1 -a ! -e "$MARK" -a "$(wc -l <"$WORK/err")" = 1 -a "$(grep -c 'refusing to run' "$WORK/err")" = 1
rm -f "$HOME/.srt-settings.json"

# srt help
out=$("$SRT" help 2>&1); rc=$?
check "srt help: exit 0" test $rc = 0
check "srt help prints the same help as --help" test "$out" = "$("$SRT" --help)"
out=$("$SRT" help doctor 2>&1); rc=$?
check "srt help doctor: the doctor's usage" eval 'test $rc = 0 && grep -q "^usage: srt doctor" <<<"$out"'
out=$("$SRT" doctor --help 2>&1); rc=$?
check "srt doctor --help: the doctor's usage, no probe" eval 'test $rc = 0 && grep -q "^usage: srt doctor" <<<"$out"'
"$SRT" help no-such-topic >/dev/null 2>"$WORK/err"; rc=$?
check "srt help with an unknown topic: exit 1, names it" eval 'test $rc = 1 && grep -q "no-such-topic" "$WORK/err"'
# a program called help still runs after --
mkdir -p "$WORK/bin"
printf '#!/bin/sh\necho my-help\n' >"$WORK/bin/help"; chmod 755 "$WORK/bin" "$WORK/bin/help"
out=$(PATH="$WORK/bin:$PATH" srt__run -s "$S" -- help 2>/dev/null)
check "srt -- PROGRAM runs a program even when named help" test "$out" = my-help

echo "1..$_tap_n"
exit $_tap_failed
