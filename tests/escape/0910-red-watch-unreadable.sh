#!/bin/bash
# Escape class H2 (protected directories made during the run), linux-bwrap:
# a directory the command makes with mode 0300 (write and search, no read)
# cannot be watched (inotify needs read), yet the command can create names
# in it. The watcher let such a directory go as it does one of mode 0
# (watched once its mode changes), so a .vscode or .claude/commands made in
# it was never covered: the command wrote d/.vscode/tasks.json for the
# whole run, and a host VS Code opened on d reads it by path (search is
# enough). The run must stop (or the name be covered) before the command
# writes there at leisure, and say why; one an earlier run left behind
# must not serve either. Asserts on the host's files.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
mkdir -p "$P"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$S" -c '
	mkdir -m 0300 d && mkdir d/.vscode d/.claude d/.claude/commands
	sleep 1
	echo "{\"tasks\":\"pwn-late\"}" > d/.vscode/tasks.json
	echo pwn-late > d/.claude/commands/x.md
	true' >"$WORK/out" 2>&1
chmod 0700 "$P/d" 2>/dev/null
attempt H2 "nothing written into .vscode or .claude/commands of an unreadable directory a second after it was made" \
	sh -c "! grep -q pwn-late '$P/d/.vscode/tasks.json' '$P/d/.claude/commands/x.md' 2>/dev/null"
attempt H2 "the unwatchable directory was reported" grep -q "deny .*$P/d" "$WORK/out"

# the same directory left by an earlier run: there at the start
mkdir -m 0300 "$P/e"
srt__run -s "$S" -c '
	mkdir e/.vscode
	sleep 1
	echo "{\"tasks\":\"pwn-late\"}" > e/.vscode/tasks.json
	true' >"$WORK/out2" 2>&1
chmod 0700 "$P/e" 2>/dev/null
attempt H2 "nothing written into .vscode of an unreadable directory there at the start" \
	sh -c "! grep -q pwn-late '$P/e/.vscode/tasks.json' 2>/dev/null"
echo "1..$_tap_n"
