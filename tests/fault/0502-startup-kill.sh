#!/bin/bash
# srt killed with SIGKILL at random points of its startup (0-100 ms after
# exec), with settings that create placeholders in the work dir and start
# the proxy. Afterwards: no process of the run is left (srt, its cleanup
# guard, bwrap, the helper, the command: all carry a unique marker in their
# command line), the host's mounts are unchanged, the work dir holds
# exactly what it held before (no placeholder left), and no proxy
# directory srt-<pid>-* of a killed srt is left in TMPDIR.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$top_srcdir/tests/fault/fault-lib.sh"

ITER=${FAULT_KILL_ITER:-40}
plan 15
mkdir -p "$WORK/tmp" && chmod 700 "$WORK/tmp"
export TMPDIR="$WORK/tmp"
S=$(settings '{"network":{"allowedDomains":["example.invalid"],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh","./missing-secret"],"allowWrite":["."],"denyWrite":["./missing-dir/deep/x","./missing-file"]}}')
echo data > "$WORK/proj/existing"
# a unique sleep argument marks every process of a run (srt, its guard,
# bwrap, the helper, the command) and, at the start of a command line, the
# sandboxed command itself
MARK="30.0$$$RANDOM"

# one normal run first: the placeholders and the proxy are really made
out=$(srt__run -s "$S" -- sh -c "ls -A; ls -d \$TMPDIR/../tmp/srt-* 2>/dev/null | wc -l; : $MARK" 2>&1)
if printf '%s\n' "$out" | grep -qx 'missing-file' && printf '%s\n' "$out" | grep -qx '.bashrc'; then
	ok "a normal run creates placeholders in the work dir (missing-file, .bashrc)"
else
	not_ok "a normal run creates placeholders in the work dir"; diag "$out"
fi

before_ls=$(listing "$WORK/proj")
before_mnt=$(mount_points)
left_procs=0 left_ph=0 left_dirs=0 changed_mnt=0 killed_running=0 killed_early=0
for i in $(seq "$ITER"); do
	# 0-100 ms (startup); every fourth run waits (up to 10 s) until the
	# command runs and then 0-100 ms more, so that some kills land while
	# the command runs however slow the machine is (a sanitizer build
	# beside another test pass starts in more than 400 ms)
	ms=$((RANDOM % 101))
	# and every fourth, one later, is killed at once: srt now starts its
	# command within 10 ms, so random delays alone once gave no kill
	# before the command (0 of 40)
	[ $((i % 4)) = 1 ] && ms=0
	delay=$(printf '0.%03d' "$ms")
	"$SRT" --backend="$BACKEND" -s "$S" -- sleep "$MARK" >/dev/null 2>&1 &
	pid=$!
	if [ $((i % 4)) = 0 ]; then
		n=200
		while ! pgrep -f -- "^sleep $MARK" >/dev/null && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
		delay="running+$delay"
	fi
	sleep "${delay#running+}"
	if pgrep -f -- "^sleep $MARK" >/dev/null; then
		killed_running=$((killed_running + 1))
	else
		killed_early=$((killed_early + 1))
	fi
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if ! wait_gone "$MARK" 3; then
		left_procs=$((left_procs + 1))
		diag "iteration $i (delay $delay): still running 3 s after srt was killed:" \
			"$(proc_pids "$MARK" | xargs -r ps -o pid=,ppid=,wchan:20=,args= -p | cut -c1-110 | head -5)"
		for p in $(proc_pids "$MARK"); do kill -KILL "$p" 2>/dev/null; done
	fi
	# the cleanup guard removes placeholders once srt is gone: allow it 3 s
	n=60
	while [ "$(listing "$WORK/proj")" != "$before_ls" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	if [ "$(listing "$WORK/proj")" != "$before_ls" ]; then
		left_ph=$((left_ph + 1))
		diag "iteration $i (delay $delay): work dir changed:" \
			"$(diff <(printf '%s\n' "$before_ls") <(listing "$WORK/proj") | grep '^[<>]' | head -5)"
		# restore, so later iterations are judged on their own
		( cd "$WORK/proj" && find . -mindepth 1 -maxdepth 1 ! -name existing -exec rm -rf {} + )
	fi
	if ls -d "$TMPDIR/srt-$pid-"* >/dev/null 2>&1; then
		left_dirs=$((left_dirs + 1))
	fi
	if [ "$(mount_points)" != "$before_mnt" ]; then
		changed_mnt=$((changed_mnt + 1))
		diag "iteration $i: mounts changed: $(diff <(printf '%s\n' "$before_mnt") <(mount_points) | grep '^[<>]' | head -3)"
		before_mnt=$(mount_points)
	fi
done
diag "$ITER kills: $killed_early before the command ran, $killed_running while it ran"
check "no process of a killed run is left (srt, guard, bwrap, helper, command) ($left_procs of $ITER runs left some)" \
	test "$left_procs" = 0
check "the host's mount table is unchanged after every kill ($changed_mnt changes)" test "$changed_mnt" = 0
check "no placeholder is left in the work dir after any kill ($left_ph of $ITER runs left some)" \
	test "$left_ph" = 0
check "kills landed both before and after the command started ($killed_early/$killed_running)" \
	test "$killed_early" -gt 0 -a "$killed_running" -gt 0

# --dry-run and --explain only plan: no placeholder is made (the plan names
# them), so no cleanup guard is started either: srt-linux-init is never
# executed. Killed while it plans, srt leaves nothing behind.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -s 4096 -e trace=execve -o "$WORK/dry.strace" "$SRT" --backend="$BACKEND" -s "$S" --dry-run -- true >/dev/null 2>&1
	check "--dry-run execs no guard and no helper ($(grep -c 'srt-linux-init' "$WORK/dry.strace") execve of srt-linux-init)" \
		test "$(grep -c 'execve(.*srt-linux-init' "$WORK/dry.strace")" = 0 -a -s "$WORK/dry.strace"
else
	skip "--dry-run execs no guard: strace is not installed"
fi
left_ph=0 left_guards=0
for i in $(seq 20); do
	"$SRT" --backend="$BACKEND" -s "$S" --dry-run -- true >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((RANDOM % 10))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	n=60
	while [ "$(listing "$WORK/proj")" != "$before_ls" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	if [ "$(listing "$WORK/proj")" != "$before_ls" ]; then
		left_ph=$((left_ph + 1))
		( cd "$WORK/proj" && find . -mindepth 1 -maxdepth 1 ! -name existing -exec rm -rf {} + )
	fi
done
# a killed srt's guard is inherited by PID 1 and ends once it cleaned up
n=60
while [ -n "$(pgrep -P 1 -f -- 'srt-linux-init --guard$')" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
check "--dry-run killed while planning: no placeholder left ($left_ph of 20 runs left some)" test "$left_ph" = 0
check "no spawned guard outlives its cleanup" test -z "$(pgrep -P 1 -f -- 'srt-linux-init --guard$')"
out=$(srt__run -s "$S" --dry-run -- true 2>&1)
check "--dry-run prints the plan (exit $?)" \
	sh -c "printf '%s' \"\$1\" | grep -q 'effective policy'" _ "$out"

# A SIGKILLed srt cannot remove its own proxy directory; the next start
# sweeps the ones of its user that carry srt's mark (the sticky bit) and
# that no process holds, once nothing changed them for 2 s
# (common/rmtree.h). One start spends at most 10 ms on it: under the
# sanitizers beside another test pass a start can be preempted past that,
# so up to three starts may share the work. Each directory left is named
# with its mode and age: one left unmarked (mode 700) is never swept, as
# when srt made it unmarked and was killed before marking it (once, under
# the sanitizers in a CI-like run; srt now makes it marked: 0210 #21-#24).
diag "$left_dirs of $ITER killed runs left their proxy directory until the next start"
left_now=$(find "$TMPDIR" -maxdepth 1 -name 'srt-*' | wc -l)
diag "proxy directories in TMPDIR after the last kill: $left_now"
sleep 2.5
for starts in 1 2 3; do
	out=$(srt__run -s "$S" -- true 2>&1)
	stale=$(find "$TMPDIR" -maxdepth 1 -name 'srt-*' | wc -l)
	[ "$stale" = 0 ] && break
done
what=$(find "$TMPDIR" -maxdepth 1 -name 'srt-*' -printf '%f mode %m changed %Ts, ' 2>/dev/null)
sep=", "
[ -n "$what" ] && sep=": $what"
check "no proxy directory of a killed srt survives the next srt starts ($stale left after $starts start(s)${sep}now $(date +%s))" \
	test "$stale" = 0
# The kills above leave a directory only now and then (the guard usually
# removes it), so the sweep itself is checked on directories made here: a
# dead run's, shaped like srt's (marked, holding proxy.sock), goes; one a
# process holds (a live srt's), one without the mark (an earlier srt's,
# which took no lock) and one with another mode stay. It runs after the
# spawn now: check it ran at all.
mkdir -m 700 "$TMPDIR/srt-$$-AAAAAA" "$TMPDIR/srt-$$-BBBBBB" "$TMPDIR/srt-$$-CCCCCC" "$TMPDIR/srt-$$-DDDDDD"
chmod 1700 "$TMPDIR/srt-$$-AAAAAA" "$TMPDIR/srt-$$-BBBBBB"
chmod 755 "$TMPDIR/srt-$$-CCCCCC"
: > "$TMPDIR/srt-$$-BBBBBB/proxy.sock"
: > "$TMPDIR/srt-$$-DDDDDD/proxy.sock"
flock "$TMPDIR/srt-$$-AAAAAA" sleep 30 &
holder=$!
sleep 2.5
out=$(srt__run -s "$S" -- true 2>&1)
rc=$?
check "the start ran (exit $rc${out:+: $out})" test "$rc" = 0
check "a live srt's proxy directory (held) is not swept by another start" test -d "$TMPDIR/srt-$$-AAAAAA"
check "a dead srt's proxy directory is swept by the next start" test ! -e "$TMPDIR/srt-$$-BBBBBB"
check "a directory that is not mode 0700 is not swept" test -d "$TMPDIR/srt-$$-CCCCCC"
check "an unmarked one (an earlier srt's) is not swept" test -e "$TMPDIR/srt-$$-DDDDDD/proxy.sock"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -rf "$TMPDIR/srt-$$-AAAAAA" "$TMPDIR/srt-$$-CCCCCC" "$TMPDIR/srt-$$-DDDDDD"
exit 0
