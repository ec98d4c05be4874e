#!/bin/bash
# Escape class H6 (linux-bwrap), red team on 4abde8e (the watcher's
# renamed directories, 1018): three more ways past a denyRead glob during
# the run, each printing the host's secret on the code before.
# 1. The watcher took a watched directory arriving under a new name for a
#    second name (a bind mount) when its old path still led to it, which
#    lstat decided, through links: the command moved g/x/secY to g/secY
#    and put a link g/x -> . in place, and the directory kept its old path
#    (won every time with the watcher kept busy listing a large directory
#    moved in just before).
# 2. An exchange of two names (renameat2 RENAME_EXCHANGE of g/tmpd, which
#    holds s, and g/secY) moved the paths of the directories below by their
#    old paths' prefixes, twice: s went back to g/tmpd/s.
#    Now, on a watched directory's IN_MOVE_SELF, it and the watched
#    directories below it take the paths the kernel gives them.
# 3. A glob's base directory replaced (mv g g.old; mkdir g), by the command
#    in a write root or by the host outside one: the new base was never
#    watched. The directory above each base is watched now, and a new base
#    is watched and listed as it arrives.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

# 1: the link put where the directory was
rm -rf "$P/g" "$P/a"; mkdir -p "$P/g/x/secY" "$P/a/b/big"
(cd "$P/a/b/big" && seq 1 30000 | xargs touch)
S=$(fsjson s '{"denyRead":["./g/sec*/k"],"allowWrite":["."],"denyWrite":[]}')
host_case link "$S" "sleep 0.3; $PY -c '
import os, time
os.rename(\"a/b/big\", \"g/big\")
time.sleep(0.002)
os.rename(\"g/x/secY\", \"g/secY\"); os.rmdir(\"g/x\"); os.symlink(\".\", \"g/x\")
'; touch started; while [ ! -e go ]; do sleep 0.05; done; cat g/secY/k; true" \
	'sleep 1; echo "LINK-$CANARY" > g/secY/k'
attempt H6 "a directory renamed into a glob's name, a link left at its old place: the host's secret in it is unreadable" \
	sh -c "! grep -q 'LINK-' '$WORK/bg.out'"

# 2: the exchange
rm -rf "$P/g"; mkdir -p "$P/g"
S=$(fsjson s2 '{"denyRead":["./g/sec*/s/k"],"allowWrite":["."],"denyWrite":[]}')
host_case exchange "$S" "mkdir -p g/tmpd/s g/secY; sleep 0.3; $PY -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(\"exchange\", libc.renameat2(-100, b\"g/tmpd\", -100, b\"g/secY\", 2))
'; touch started; while [ ! -e go ]; do sleep 0.05; done; cat g/secY/s/k; true" \
	'sleep 0.3; echo "EXCHANGE-$CANARY" > g/secY/s/k'
attempt H6 "two directories' names exchanged: the host's secret below the one now at the glob's name is unreadable" \
	sh -c "grep -q 'exchange 0' '$WORK/bg.out' && ! grep -q 'EXCHANGE-' '$WORK/bg.out'"

# 3a: the command replaces the base, deeper than the write root's watched depth
rm -rf "$P/a"; mkdir -p "$P/a/b/c/d/g"
S=$(fsjson s3 '{"denyRead":["./a/b/c/d/g/sec*/k"],"allowWrite":["."],"denyWrite":[]}')
host_case base-cmd "$S" 'mv a/b/c/d/g a/b/c/d/g.old; mkdir -p a/b/c/d/g/secY; touch started; while [ ! -e go ]; do sleep 0.05; done; cat a/b/c/d/g/secY/k; true' \
	'sleep 0.3; echo "BASE-CMD-$CANARY" > a/b/c/d/g/secY/k'
attempt H6 "a glob's base directory the command replaced: the host's secret in the new one is unreadable" \
	sh -c "! grep -q 'BASE-CMD-' '$WORK/bg.out'"

# 3b: the host replaces a base outside the write roots
rm -rf "$WORK/o" "$WORK/o.old"; mkdir -p "$WORK/o"
S=$(fsjson s4 "{\"denyRead\":[\"$WORK/o/sec*/k\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
host_case base-host "$S" "touch started; while [ ! -e go ]; do sleep 0.05; done; cat $WORK/o/secY/k; true" \
	'sleep 0.3; mv "$WORK/o" "$WORK/o.old"; mkdir -p "$WORK/o/secY"; echo "BASE-HOST-$CANARY" > "$WORK/o/secY/k"'
attempt H6 "a glob's base directory the host replaced: the secret in the new one is unreadable" \
	sh -c "! grep -q 'BASE-HOST-' '$WORK/bg.out'"
echo "1..$_tap_n"
