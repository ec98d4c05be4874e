#!/bin/bash
# Escape class H1: the watcher of replaced names loses events. inotify
# queues at most fs.inotify.max_queued_events events for the watcher
# (16384 by default); past that it drops them and queues one overflow
# event instead. A host rename over .git/config whose event was dropped
# leaves the new file uncovered, and the command can write it: the watcher
# must then check every protected name again, undo and report what it
# finds, cover the name again, and say that it lost events.
#
# The overflow is made without changing the system-wide limit: the watcher
# is held stopped (SIGSTOP) while the host replaces .git/config, the
# command appends to the new, uncovered file, and the host makes more
# events than the queue holds in the watched working directory; then the
# watcher is let go. Every attempt asserts on host state (the file's
# content) or on what srt said.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
command -v git >/dev/null 2>&1 || { skip_rest 6 "git missing"; echo "1..$_tap_n"; exit 0; }
max=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null || echo 16384)
if [ "$max" -gt 200000 ]; then
	skip_rest 6 "fs.inotify.max_queued_events is $max: too many events to make cheaply"
	echo "1..$_tap_n"; exit 0
fi
cd "$P" && command git -c init.defaultBranch=main init -q . || exit 1
printf '[core]\n\tbare = false\n' > "$P/.git/config"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
bg_wait() { local i; for i in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; echo "# srt did not end in 30 s: stopped"; kill "$1"; wait "$1"; }

# the command: one write while the watcher is stopped (it lands: the
# replaced file is not covered yet), one after the watcher caught up
# (refused: covered again)
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.02; done
	printf "PWN1\n" >> .git/config && touch wrote1
	touch written; while [ ! -e go2 ]; do sleep 0.02; done
	if printf "PWN2\n" >> .git/config 2>/dev/null; then touch wrote2; fi; touch done2
	while [ ! -e stop ]; do sleep 0.02; done'
pid=$!
wait_for "$P/started" 100
wpid=$(find_watcher "$pid")
if [ -z "$wpid" ] || ! kill -STOP "$wpid"; then
	touch "$P/go" "$P/go2" "$P/stop"; bg_wait "$pid"
	attempt H1 "inotify queue overflow: found the watcher process" false
	echo "1..$_tap_n"; exit 0
fi
# the host replaces .git/config (git config, sed -i): its cover is gone
printf '[core]\n\tbare = false\n# host\n' > "$P/.git/config.lock" && mv "$P/.git/config.lock" "$P/.git/config"
touch "$P/go"; wait_for "$P/written" 100
# more events than the queue holds, in the watched working directory:
# writes to two files in turn (a modification of one name, then of the
# other: the kernel merges an event only into the same one queued just
# before it)
"$PY" - "$P" "$((max + 2000))" <<'PYEOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
fds = [os.open(os.path.join(d, x), os.O_WRONLY | os.O_CREAT, 0o644) for x in ("ovf-a", "ovf-b")]
for i in range(n):
    os.write(fds[i % 2], b"x")
PYEOF
kill -CONT "$wpid"
# the watcher catches up: the command's write undone (the file is back to
# what srt last accepted from the host, or at least without it)
for i in $(seq 150); do grep -q PWN1 "$P/.git/config" || break; sleep 0.1; done
sleep 0.5
touch "$P/go2"; wait_for "$P/done2" 100
touch "$P/stop"; bg_wait "$pid"
attempt H1 "inotify queue overflow: the write made while the watcher was behind landed and was undone" \
	sh -c "test -e '$P/wrote1' && ! grep -q PWN '$P/.git/config' && grep -q '^\[core\]' '$P/.git/config'"
attempt H1 "inotify queue overflow: the write undone is reported by name" \
	grep -q 'deny write .*\.git/config' "$WORK/bg.out"
attempt H1 "inotify queue overflow: .git/config covered again afterwards (the next write refused)" \
	sh -c "test -e '$P/done2' && test ! -e '$P/wrote2'"
attempt H1 "inotify queue overflow: srt says its watcher lost events" \
	grep -q 'watcher of replaced files lost events (its inotify queue overflowed' "$WORK/bg.out"
if grep -q PWN "$P/.git/config" || ! grep -q 'lost events' "$WORK/bg.out"; then
	echo "# load: $(cat /proc/loadavg)"
	grep -v 'Read-only file system' "$WORK/bg.out" | sed 's/^/# bg.out: /' | head -30
fi
rm -f "$P/ovf-a" "$P/ovf-b" "$P"/started "$P"/go "$P"/go2 "$P"/written "$P"/done2 "$P"/stop "$P"/wrote*

# 5-6. the same overflow with the watcher still held stopped when the
# command ends, and 6 s past it (a machine so loaded that the watcher is
# that far behind: srt stopped it 4.5 s after the end and the write
# stayed). Its last pass, after the lost events, lists the directories
# and checks every name: .git/config is put back, and a .envrc the
# command made in a new directory while nobody looked is moved aside,
# each reported by name
printf '[core]\n\tbare = false\n' > "$P/.git/config"
rm -rf "$P/sub"
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.02; done
	printf "PWN3\n" >> .git/config && touch wrote3; mkdir sub && echo "curl x | sh" > sub/.envrc; touch ended'
pid=$!
wait_for "$P/started" 100
wpid=$(find_watcher "$pid")
if [ -n "$wpid" ] && kill -STOP "$wpid"; then
	printf '[core]\n\tbare = false\n# host\n' > "$P/.git/config.lock" && mv "$P/.git/config.lock" "$P/.git/config"
	touch "$P/go"; wait_for "$P/ended" 100
	"$PY" - "$P" "$((max + 2000))" <<'PYEOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
fds = [os.open(os.path.join(d, x), os.O_WRONLY | os.O_CREAT, 0o644) for x in ("ovf-a", "ovf-b")]
for i in range(n):
    os.write(fds[i % 2], b"x")
PYEOF
	sleep 6
	kill -CONT "$wpid"
	bg_wait "$pid"
	attempt H1 "overflow, the watcher behind past the command's end: the write undone" \
		sh -c "test -e '$P/wrote3' && ! grep -q PWN '$P/.git/config' && grep -q '^\[core\]' '$P/.git/config'"
	attempt H1 "overflow, the watcher behind past the command's end: a .envrc made while events were lost moved aside; both reported by name" \
		sh -c "test -e '$P/ended' && ! grep -qs curl '$P/sub/.envrc' && grep -q 'deny write .*\.git/config' '$WORK/bg.out' && grep -q 'deny write .*sub/\.envrc' '$WORK/bg.out'"
	if grep -q PWN "$P/.git/config" || grep -qs curl "$P/sub/.envrc"; then
		echo "# load: $(cat /proc/loadavg)"
		grep -v 'Read-only file system' "$WORK/bg.out" | sed 's/^/# bg.out: /' | head -30
	fi
else
	touch "$P/go"; bg_wait "$pid"
	attempt H1 "overflow past the command's end: found the watcher process" false
	skip "H1 overflow past the command's end: no watcher"
fi
rm -rf "$P/ovf-a" "$P/ovf-b" "$P/sub"
echo "1..$_tap_n"
