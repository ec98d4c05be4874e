#!/bin/bash
# The CLI's cleanup guard waits to start (backends/linux-bwrap/guard.c):
# a process that shares srt's memory holds the guard's pipe and
# descriptors, and srt-linux-init --guard is executed only when srt is
# gone (its records then read from the pipe) or when the pipe is about to
# fill (srt wakes it before a write could block). At srt's normal end the
# waiting process is ended and reaped. Checked here: a normal run executes
# no guard (the old code spawned one at every start); the waiting process
# outlives the terminal's signals and still cleans up after a SIGKILLed
# srt; a run whose records fill more than the pipe neither hangs nor leaves
# a placeholder, ended normally or killed; nothing of a run is left after
# it ends.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
plan 9
P="$WORK/proj"
# a unique sleep argument marks every process of a run
MARK="300.0$$$RANDOM"
S=$(fs s '{"denyRead":["./missing-secret"],"allowWrite":["."],"denyWrite":[]}')
# CMD in the background without the EXIT trap in the fork (see
# tests/escape/lib.sh: a signal landing before the exec would run it)
fork_notrap() { local t; t=$(trap -p EXIT); trap - EXIT; "$@" & eval "${t:-trap - EXIT}"; }

# the run's processes and their programs, from the kernel's view
if command -v strace >/dev/null 2>&1; then
	timeout -k 5 30 strace -f -qq -e trace=execve,clone,clone3 -o "$WORK/st.txt" \
		env LD_LIBRARY_PATH="$SRT_LIBS" "$SRT" --backend="$BACKEND" -s "$S" -c true >/dev/null 2>&1
	guards=$(grep -c 'execve(.*"--guard"' "$WORK/st.txt")
	waiters=$(grep -E '^[0-9]+ +clone3?\(' "$WORK/st.txt" | grep 'CLONE_VM' | grep -v 'CLONE_VFORK' | grep -vc 'CLONE_THREAD')
	if grep -q 'CLONE_VM|CLONE_PIDFD' "$WORK/st.txt" || [ "$guards" != 0 ]; then
		check "a run that ends normally executes no cleanup guard (strace: $guards execs of --guard)" test "$guards" = 0
		check "its guard waits in one process sharing srt's memory (strace: $waiters clones with CLONE_VM, without CLONE_THREAD or CLONE_VFORK)" \
			test "$waiters" -ge 1
	else
		skip "no waiting guard on this machine (architecture or kernel): the guard is spawned at once"
		skip "no waiting guard on this machine"
	fi
else
	skip "strace missing"; skip "strace missing"
fi

# srt killed mid-run after its waiting guard got the terminal's signals:
# the guard still removes the run's TMPDIR and its placeholders
rm -f "$WORK/tname"
fork_notrap bash -c 'cd "$1" && exec env LD_LIBRARY_PATH="$2" "$3" --backend="$4" -s "$5" -c "echo \$TMPDIR; exec sleep $6" >"$7" 2>/dev/null' \
	_ "$P" "$SRT_LIBS" "$SRT" "$BACKEND" "$S" "$MARK" "$WORK/tname"
K=$!
for _ in $(seq 100); do [ -s "$WORK/tname" ] && break; sleep 0.1; done
t=$(cat "$WORK/tname")
waiter=$(ps -o pid=,comm= --ppid "$K" | awk '$2 != "bwrap" { print $1; exit }')
if [ -n "$waiter" ]; then
	# the terminal's signals, a Ctrl-Z's stop, and others that would end
	# or stop it once it starts (32 and 33: the C library's own, whose
	# handlers are srt's: they must never run in srt's memory here)
	for sig in INT TERM HUP QUIT TSTP TTIN TTOU USR1 USR2 ALRM 32 33 34; do kill -s "$sig" "$waiter" 2>/dev/null; done
	sleep 0.3
fi
state=$(awk '{ print $3 }' "/proc/${waiter:-none}/stat" 2>/dev/null)
check "the guard outlives the terminal's signals, a stop and others sent while it waits (${waiter:-no guard found}, state ${state:-gone})" \
	test -n "$waiter" -a -d "/proc/${waiter:-none}" -a "$state" != T
up=no; [ -n "$t" ] && [ -d "$t" ] && [ -e "$P/missing-secret" ] && up=yes
kill -KILL "$K"
wait "$K" 2>/dev/null
for _ in $(seq 100); do [ -n "$t" ] && [ ! -e "$t" ] && [ ! -e "$P/missing-secret" ] && break; sleep 0.1; done
check "then srt SIGKILLed: the guard still removes the run's TMPDIR and its placeholder (${t:-none}, both there before: $up)" \
	test "$up" = yes -a ! -e "$t" -a ! -e "$P/missing-secret"
for _ in $(seq 50); do pgrep -f "sleep $MARK" >/dev/null || break; sleep 0.1; done
check "nothing of the killed run is left" test -z "$(pgrep -f "$MARK")"

# a normal end leaves no process behind (the waiting one shares srt's
# command line, so the mark finds it too)
srt__run -s "$S" -c "true $MARK" >/dev/null 2>&1
for _ in $(seq 20); do pgrep -f "$MARK" >/dev/null || break; sleep 0.1; done
check "a run that ended normally leaves no process (its guard was ended and reaped)" test -z "$(pgrep -f "$MARK")"

# records past what the pipe holds: 400 placeholders of 200-byte names,
# over 80 KiB of records; srt wakes the guard, which reads them all
names=$(for i in $(seq 400); do printf '"./m%03d-%0190d",' "$i" 0; done)
M=$(fs many "{\"denyRead\":[${names%,}],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
out=$(cd "$P" && timeout -k 5 60 env LD_LIBRARY_PATH="$SRT_LIBS" "$SRT" --backend="$BACKEND" -s "$M" -c 'ls | grep -c "^m[0-9]"' 2>&1)
rc=$?
check "400 placeholders (80 KiB of records): the run ends by itself (rc=$rc, saw ${out:-nothing})" \
	test "$rc" = 0 -a "$out" = 400
check "and leaves none of them" test -z "$(ls "$P" | grep '^m[0-9]')"
rm -f "$WORK/mname"
fork_notrap bash -c 'cd "$1" && exec env LD_LIBRARY_PATH="$2" "$3" --backend="$4" -s "$5" -c "ls | grep -c ^m[0-9]; exec sleep $6" >"$7" 2>/dev/null' \
	_ "$P" "$SRT_LIBS" "$SRT" "$BACKEND" "$M" "$MARK" "$WORK/mname"
K=$!
for _ in $(seq 100); do [ -s "$WORK/mname" ] && break; sleep 0.1; done
seen=$(cat "$WORK/mname")
kill -KILL "$K"
wait "$K" 2>/dev/null
for _ in $(seq 100); do [ -z "$(ls "$P" | grep '^m[0-9]')" ] && break; sleep 0.1; done
check "the same run SIGKILLed: the guard removes all 400 (the command saw ${seen:-none})" \
	test "$seen" = 400 -a -z "$(ls "$P" | grep '^m[0-9]')"
pkill -KILL -f "$MARK" 2>/dev/null || true
