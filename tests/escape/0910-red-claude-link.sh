#!/bin/bash
# Escape class H7: under linux-landlock a protected place reached through a
# symbolic link of the command's making. The supervisor refuses
# .claude/commands (and .claude/agents) as names, but a link named .claude
# (in the working directory, or in a directory below it within the
# mandatory deny depth) made with symlink() or renamed into place points
# those names at a directory the command writes freely: the host's agent
# then loads its slash commands and agents from there. Each line asserts
# that no file is reachable at the protected name on the host afterwards.
. "$(dirname "$0")/lib.sh"
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
ll() { timeout -k 5 60 "$SRT" --backend="$LL" "$@"; }
P="$WORK/proj"
mkdir -p "$P"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
if ! out=$(ll -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 5 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi
ll -s "$S" -c '
	mkdir -p evil/commands evil/agents sub deep/a
	ln -s evil .claude
	ln -s ../evil sub/.claude
	ln -s ../../evil l2 && mv -T l2 deep/a/.claude
	echo pwn > evil/commands/x.md; echo pwn > evil/agents/y.md
	true' >"$WORK/out" 2>&1
attempt H7 "no .claude link in the working directory leads .claude/commands elsewhere" \
	test ! -e "$P/.claude/commands/x.md" -a ! -e "$P/.claude/agents/y.md"
attempt H7 "no .claude link made in a subdirectory" test ! -e "$P/sub/.claude/commands/x.md"
attempt H7 "no .claude link renamed into place two levels down" test ! -e "$P/deep/a/.claude/commands/x.md"
attempt H7 "the refusals were reported" grep -q "deny .*\.claude" "$WORK/out"

# a .claude link made deeper than the patterns reach, in a directory then
# renamed up to where they do
ll -s "$S" -c "
	mkdir -p evil2/commands deep2/a/b/c/d
	ln -s $P/evil2 deep2/a/b/c/d/.claude
	mv deep2/a/b/c/d sub2
	echo pwn > evil2/commands/x.md
	true" >"$WORK/out2" 2>&1
attempt H7 "no .claude link brought into reach inside a renamed directory" \
	test ! -e "$P/sub2/.claude/commands/x.md"
echo "1..$_tap_n"
