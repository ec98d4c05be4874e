#!/bin/bash
# Escape class H2 (protected directories made during the run), linux-bwrap:
# the watcher covers a .vscode, .idea or .claude DIRECTORY that appears in a
# watched directory, but a SYMBOLIC LINK with that name is not a directory
# (the watcher once returned early for anything but a directory, so nothing
# was covered and nothing reported; it now moves such a link aside). The command makes sub/.vscode -> ../evilv
# and sub/.claude -> ../evil and writes evilv/tasks.json and
# evil/commands/x.md whenever it likes. On the host, VS Code opened on sub
# reads sub/.vscode/tasks.json, an agent started in sub loads
# sub/.claude/commands, both the command's. (In the working directory the
# mount plan's placeholders hold the names, so only subdirectories are
# open.) Covering the link in the sandbox's namespace would not help, since
# the host follows the link: the host's name itself must stop leading to
# what the command wrote, or the run must report it.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
mkdir -p "$P"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$S" -c '
	mkdir -p sub evil/commands evilv
	ln -s ../evilv sub/.vscode
	ln -s ../evil sub/.claude
	sleep 0.5
	echo "{\"tasks\":\"pwn\"}" > evilv/tasks.json
	echo pwn > evil/commands/x.md
	true' >"$WORK/out" 2>&1
attempt H2 "no .vscode link in a subdirectory leads to what the command wrote, or it is reported" \
	sh -c "test ! -e '$P/sub/.vscode/tasks.json' || grep -q 'deny .*sub/\.vscode' '$WORK/out'"
attempt H2 "no .claude link in a subdirectory leads to what the command wrote, or it is reported" \
	sh -c "test ! -e '$P/sub/.claude/commands/x.md' || grep -q 'deny .*sub/\.claude' '$WORK/out'"
echo "1..$_tap_n"
