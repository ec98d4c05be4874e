#!/bin/bash
# Escape class H1 (linux-bwrap), the read observer's cost: with denyRead
# each read open is judged by the monitor thread and performed by a thread
# restricted with the command's Landlock layer, which the monitor wakes.
# A futex wake-up goes to an idle CPU when there is one (an interrupt, and
# on a virtual machine exits on both CPUs), while the monitor, about to
# block, leaves its own CPU free: so under a fair-class policy the monitor
# now allows that thread its own current CPU only before it wakes it (the
# kernel does the same for the caller and the monitor themselves). Checked
# here, under SCHED_OTHER on two CPUs or more: after a burst of read opens
# and creates one thread of the helper may run on one CPU only while the
# helper itself may use more (the old code left every thread on the whole
# mask), every open still read the file it named, every create made its
# file, and a read of a denied file after the burst is refused, reported,
# and its content never reaches the command.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
if [ "$(nproc)" -lt 2 ]; then
	skip_rest 4 "one CPU: nothing to follow"
	echo "1..$_tap_n"
	exit 0
fi
if ! chrt -p $$ 2>/dev/null | grep -q 'SCHED_OTHER'; then
	skip_rest 4 "not under SCHED_OTHER: the helper keeps its threads' CPU masks then"
	echo "1..$_tap_n"
	exit 0
fi
echo "SECRET-$CANARY" > "$P/.env"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env"],"allowWrite":["."],"denyWrite":[]}')
N=600
bg_wait() { local i; for i in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; echo "# srt did not end in 30 s: stopped"; kill "$1"; wait "$1"; }
# one CPU: a list without "," or "-"
one_cpu() { case "$1" in *,* | *-* | "") return 1 ;; *) return 0 ;; esac; }
for i in $(seq 8); do echo "content-$i" > "$P/r$i"; done
srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.02; done
	/usr/bin/python3 -c "
import os
bad = 0
for i in range('"$N"'):
    n = \"r%d\" % (i % 8 + 1)
    fd = os.open(n, os.O_RDONLY)
    if os.read(fd, 64) != (\"content-%d\\n\" % (i % 8 + 1)).encode(): bad += 1
    os.close(fd)
    if i % 50 == 0:
        fd = os.open(\"c%d\" % i, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b\"made\")
        os.close(fd)
open(\"bad\", \"w\").write(str(bad))
try:
    print(open(\".env\").read())
except OSError as e:
    print(\"refused\", e.errno)
"
	touch burst; while [ ! -e stop ]; do sleep 0.02; done'
pid=$!
wait_for "$P/started" 100
helper=$(monitor_helper "$pid")
touch "$P/go"; wait_for "$P/burst" 600
whole="" pinned=0 lists=""
if [ -n "$helper" ]; then
	whole=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$helper"/status 2>/dev/null)
	for t in /proc/"$helper"/task/*; do
		l=$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status" 2>/dev/null)
		lists="$lists ${t##*/}:$l"
		one_cpu "$l" && pinned=$((pinned + 1))
	done
fi
touch "$P/stop"; bg_wait "$pid"
made=$(grep -l made "$P"/c[0-9]* 2>/dev/null | wc -l)
echo "# helper $helper: the process may use CPUs $whole; its threads:$lists"
if [ -z "$helper" ]; then
	attempt H1 "read opens with denyRead: found the helper's monitor" false
else
	follows=0
	if ! one_cpu "$whole" && [ "$pinned" -ge 1 ]; then follows=1; fi
	attempt H1 "read opens with denyRead: one thread of the helper follows the monitor's CPU ($pinned on one CPU, the helper on $whole)" \
		test "$follows" = 1
fi
attempt H1 "read opens with denyRead: every open read the file it named (bad: $(cat "$P/bad" 2>/dev/null)), every create made its file ($made of $((N / 50)))" \
	test "$(cat "$P/bad" 2>/dev/null)" = 0 -a "$made" = $((N / 50))
attempt H1 "read opens with denyRead: the denied .env refused after the burst, and reported" \
	sh -c "grep -q '^refused' '$WORK/bg.out' && grep -q 'deny open.* $P/.env' '$WORK/bg.out'"
attempt H1 "read opens with denyRead: the denied content never reached the command" no_leak "$WORK/bg.out"
if ! grep -q '^refused' "$WORK/bg.out"; then
	sed 's/^/# bg.out: /' "$WORK/bg.out" | head -20
fi
rm -f "$P"/started "$P"/go "$P"/burst "$P"/stop "$P"/bad "$P"/r[0-9] "$P"/c[0-9]* "$P/.env"
echo "1..$_tap_n"
