#!/bin/bash
# Escape class H6 (linux-bwrap), red team on main after b91d5b8: two ways
# past a denyRead glob while the run goes on.
# 1. A glob entry that spells a name ("./g/secret[1].txt", whose pattern
#    matches "secret1.txt") is applied as that name too when the name
#    exists at the start; made by the host during the run, it was read
#    (the pattern does not match its own spelling). The watcher now
#    covers the spelled name as it covers what the pattern matches.
# 2. The watcher watches the directories a glob may reach below its base
#    and matched new names by each directory's path as first seen. A
#    directory renamed into a matching name (g/tmpd -> g/secY, for
#    "./g/sec*/k") kept its old path: what was in it, or came into it
#    later, was read. The command could set this up itself. A renamed
#    directory's path now follows it, and it is listed again.
# All three reads failed on the code before (the canaries were printed).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","./g/secret[1].txt","./g/plain.txt"],"allowWrite":["."],"denyWrite":[]}')
# the glob alone: a plain name in g would have the watcher look at g's
# new entries for reasons of its own
S2=$(fsjson s2 '{"denyRead":["./g/sec*/k"],"allowWrite":["."],"denyWrite":[]}')

# 1: the spelled name and a plain absent name, both made by the host
rm -rf "$P/g"; mkdir -p "$P/g"
host_case spelled "$S" 'touch started; while [ ! -e go ]; do sleep 0.05; done; cat "g/secret[1].txt" g/plain.txt; true' \
	'echo "SPELLED-$CANARY" > "g/secret[1].txt"; echo "PLAIN-$CANARY" > g/plain.txt'
attempt H6 "a glob entry's spelled name, made by the host during the run, is unreadable" \
	sh -c "! grep -q 'SPELLED-' '$WORK/bg.out'"
attempt H6 "(control) a plain absent name made by the host during the run is unreadable" \
	sh -c "! grep -q 'PLAIN-' '$WORK/bg.out'"

# 2a: the command renames a directory of its own into a matching name;
# the host then writes the secret into it
rm -rf "$P/g"; mkdir -p "$P/g"
host_case renamed-by-command "$S2" 'mkdir g/tmpd; mv g/tmpd g/secY; touch started; while [ ! -e go ]; do sleep 0.05; done; cat g/secY/k; true' \
	'echo "MOVED-IN-$CANARY" > g/secY/k'
attempt H6 "a directory the command renamed into a glob's name: the secret the host writes in it is unreadable" \
	sh -c "! grep -q 'MOVED-IN-' '$WORK/bg.out'"

# 2b: a directory holding the secret from the start, renamed by the host
# into a matching name during the run
rm -rf "$P/g"; mkdir -p "$P/g/tmpd"
echo "HELD-$CANARY" > "$P/g/tmpd/k"
host_case renamed-by-host "$S2" 'touch started; while [ ! -e go ]; do sleep 0.05; done; cat g/secY/k; true' \
	'mv g/tmpd g/secY'
attempt H6 "a directory the host renamed into a glob's name with the secret in it: unreadable" \
	sh -c "! grep -q 'HELD-' '$WORK/bg.out'"
echo "1..$_tap_n"
