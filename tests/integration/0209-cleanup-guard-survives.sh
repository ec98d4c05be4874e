#!/bin/bash
# The cleanup guard (backends/linux-bwrap/guard.c) undoes a run whose srt
# died: it quarantines a git repository the command planted in a write root
# (the git guard's sweep), removes srt's placeholders and the run's TMPDIR.
# It must outlive the ways srt is commonly ended:
# - a harness that ends a timed-out command kills its whole process group
#   with SIGKILL: the guard has a process group of its own (in srt's it
#   died with srt, and nothing was undone);
# - the terminal's Ctrl-C, Ctrl-Z and hang-up (the guard ignores them, and
#   a Ctrl-Z no longer stops it with srt's job);
# - the kernel's OOM killer choosing srt, in a memory cgroup the command
#   fills through a tmpfs: the guard is a program of its own, with memory of
#   its own (a guard that waited in srt's memory, tried and dropped, was
#   killed with srt: the kernel kills every process that shares a victim's
#   memory);
#   and the OOM killer going on past srt: every process of the sandbox
#   comes before the guard (their OOM score raised above srt's, whoever
#   spawns bwrap);
# - records past what its pipe holds (400 placeholders).
# A guard that ends before it is in place stops that run, and the next run
# of the same sandbox gets a guard of its own.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
plan 14
P="$WORK/proj"
# a unique sleep argument marks every process of a run
MARK="300.0$$$RANDOM"
S=$(fs s '{"denyRead":["./missing-secret"],"allowWrite":["."],"denyWrite":[]}')
# CMD in the background without the EXIT trap in the fork (see
# tests/escape/lib.sh: a signal landing before the exec would run it)
fork_notrap() { local t; t=$(trap -p EXIT); trap - EXIT; "$@" & eval "${t:-trap - EXIT}"; }
# what the command plants and leaves: a repository whose fsmonitor a host
# git would run, its TMPDIR's name on stdout, then it waits
PLANT='git init -q planted && git -C planted config core.fsmonitor "touch PWNED; false" && echo $TMPDIR'
# undone: the repository quarantined, the placeholder and TMPDIR gone
undone() { # TMPDIR
	[ -n "$1" ] && [ ! -e "$1" ] && [ ! -e "$P/missing-secret" ] && [ ! -e "$P/planted/.git" ] &&
		[ -e "$P/planted/.git.srt-quarantine" ]
}
wait_undone() { for _ in $(seq 100); do undone "$1" && return 0; sleep 0.1; done; return 1; }
wait_out() { for _ in $(seq 150); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
# the guard: srt's child that is not bwrap
guard_of() { ps -o pid=,comm= --ppid "$1" | awk '$2 != "bwrap" { print $1; exit }'; }
reset_proj() { cd "$WORK" && rm -rf "$P" && mkdir -p "$P" && cd "$P"; }
# srt in the background in the project, as a job of a shell with job
# control in a session of its own (as a harness or a terminal starts a
# command): srt leads a process group whose parent shell is in another
# group of the same session, so the group is not orphaned and a SIGTSTP
# stops what is in it (the kernel drops the job-control stops for an
# orphaned group). OUT its output; sets K (srt). With SRT_SCORE, srt
# starts with that OOM score (raised from the test's).
#   bg_srt SETTINGS OUT COMMAND
bg_srt() {
	rm -f "$WORK/jobpid"
	fork_notrap setsid bash -c 'set -m; cd "$1" || exit 1; [ -z "$9" ] || echo "$9" >/proc/self/oom_score_adj || exit 1; env LD_LIBRARY_PATH="$2" "$3" --backend="$4" -s "$5" -c "$6" >"$7" 2>/dev/null & echo $! >"$8"; wait' \
		_ "$P" "$SRT_LIBS" "$SRT" "$BACKEND" "$1" "$3" "$2" "$WORK/jobpid" "${SRT_SCORE:-}"
	for _ in $(seq 100); do [ -s "$WORK/jobpid" ] && break; sleep 0.1; done
	K=$(cat "$WORK/jobpid" 2>/dev/null)
}
# a fresh project and a run that plants there and waits, output in OUT:
# sets K (srt), t (its TMPDIR), g (its guard, also kept in GUARDS)
GUARDS=
start_planted() {
	reset_proj
	bg_srt "$S" "$1" "$PLANT && exec sleep $MARK"
	wait_out "$1"
	t=$(head -1 "$1")
	g=$(guard_of "${K:-0}")
	GUARDS="$GUARDS $g"
}

have_git=1
command -v git >/dev/null 2>&1 || have_git=0

# 1. srt's process group SIGKILLed, as a harness's timeout does
if [ $have_git = 1 ]; then
	start_planted "$WORK/o1"
	gpg=$(ps -o pgid= -p "${g:-0}" 2>/dev/null | tr -d ' ')
	check "the guard has a process group of its own (guard ${g:-none} in ${gpg:-none}, srt's is $K)" \
		test -n "$gpg" -a "$gpg" != "$K"
	kill -KILL -- "-$K" 2>/dev/null
	wait "$K" 2>/dev/null
	check "srt's whole process group SIGKILLed: the guard quarantines the planted repository, removes the placeholder and TMPDIR (${t:-none})" \
		wait_undone "$t"
else
	skip "git missing"; skip "git missing"
fi

# 2. the terminal's signals and a job-control stop sent to the guard, then
# srt SIGKILLed
if [ $have_git = 1 ]; then
	start_planted "$WORK/o2"
	if [ -n "$g" ]; then
		for sig in INT TERM HUP QUIT TSTP TTIN TTOU; do kill -s "$sig" "$g" 2>/dev/null; done
		sleep 0.3
	fi
	state=$(awk '{ print $3 }' "/proc/${g:-none}/stat" 2>/dev/null)
	check "the guard outlives SIGINT, SIGTERM, SIGHUP and SIGQUIT and is not stopped by SIGTSTP, SIGTTIN or SIGTTOU (${g:-no guard found}, state ${state:-gone})" \
		test -n "$g" -a -n "$state" -a "$state" != T
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	check "then srt SIGKILLed: the guard still undoes the run (${t:-none})" wait_undone "$t"
else
	skip "git missing"; skip "git missing"
fi

# 3. the OOM killer choosing srt: root, and a memory cgroup this test can
# make below its own (cgroup v1's memory controller, or v2 with memory
# enabled for children). The sandbox's processes come before srt (#11), so
# srt asks to be chosen first (an OOM score of 1000, as a harness that
# would rather lose it than anything else might): the sandbox cannot be
# raised past it, and the guard must lower its own to come after the
# sandbox. The killer goes on choosing until the sandbox, whose tmpfs
# holds the memory, is gone; the guard, chosen before the smaller of the
# sandbox's processes (built with the sanitizers, before all of them),
# was killed with nothing undone.
#   oom_cgroup NAME: prints the cgroup's directory
oom_cgroup() {
	local base d
	is_root || return 1
	base=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3; exit }' /proc/self/cgroup)
	if [ -d "$base" ] && [ -w "$base" ]; then
		d="$base/$1"
		mkdir "$d" 2>/dev/null && echo $((64 << 20)) >"$d/memory.limit_in_bytes" 2>/dev/null
		[ -w "$d/cgroup.procs" ] && [ "$(cat "$d/memory.limit_in_bytes" 2>/dev/null)" = $((64 << 20)) ] &&
			echo "$d" && return 0
		rmdir "$d" 2>/dev/null
	fi
	base=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w "$base" ]; then
		d="$base/$1"
		mkdir "$d" 2>/dev/null && [ -w "$d/memory.max" ] && echo $((64 << 20)) >"$d/memory.max" 2>/dev/null &&
			echo "$d" && return 0
		rmdir "$d" 2>/dev/null
	fi
	return 1
}
cgroup_remove() { # CGROUP
	for _ in $(seq 100); do rmdir "$1" 2>/dev/null && break; sleep 0.1; done
	if [ -d "$1" ]; then
		# what is left in it (a guard that hangs): ended, so the cgroup goes
		for q in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -KILL "$q" 2>/dev/null; done
		for _ in $(seq 50); do rmdir "$1" 2>/dev/null && break; sleep 0.1; done
		diag "the test's cgroup $1 still held processes after the run: ended"
	fi
}
# the processes the OOM killer chose in a cgroup of this test, in order
oom_victims() { # NAME
	dmesg 2>/dev/null | grep -F "oom_memcg=" | grep -F "/$1,task_memcg" |
		sed -n 's/.*,task=\([^,]*\),pid=\([0-9]*\),.*/\1 \2/p' | tr '\n' ' '
}
if [ $have_git = 0 ]; then
	skip "git missing"
elif ! CG=$(oom_cgroup "srt-test-oom-$$"); then
	skip "no memory cgroup this test can make here (needs root and a memory controller for a child cgroup): the OOM case is not run"
else
	reset_proj
	rm -f "$WORK/o3" "$WORK/oompid"
	(cd "$P" && timeout -k 5 60 sh -c 'echo 1000 >/proc/self/oom_score_adj && echo $$ >"$1/cgroup.procs" && echo $$ >"$2" && shift 2 && exec "$@"' _ "$CG" \
		"$WORK/oompid" env LD_LIBRARY_PATH="$SRT_LIBS" "$SRT" --backend="$BACKEND" -s "$S" \
		-c "$PLANT && exec dd if=/dev/zero of=/dev/shm/fill bs=64k" >"$WORK/o3" 2>/dev/null)
	rc=$?
	t=$(head -1 "$WORK/o3")
	pid=$(cat "$WORK/oompid" 2>/dev/null)
	# the check is about srt itself chosen: a run where only the command
	# was killed ends with srt's own cleanup, which proves nothing here
	if ! log=$(dmesg 2>/dev/null) || [ -z "$log" ]; then
		skip "the kernel's log cannot be read here, so whether the OOM killer chose srt cannot be told (srt exit $rc)"
	elif ! printf '%s\n' "$log" | grep -q "Killed process ${pid:-none} (srt)"; then
		skip "the OOM killer did not choose srt (pid ${pid:-unknown}, exit $rc) in this run: the case was not reproduced"
	else
		check "srt ($pid) killed by the OOM killer (exit $rc): the guard quarantines the planted repository, removes the placeholder and TMPDIR (${t:-none}; chosen: $(oom_victims "srt-test-oom-$$"))" \
			wait_undone "$t"
	fi
	cgroup_remove "$CG"
fi

# 4. records past what the guard's pipe holds: 400 placeholders of
# 200-byte names, over 80 KiB of records
reset_proj
names=$(for i in $(seq 400); do printf '"./m%03d-%0190d",' "$i" 0; done)
M=$(fs many "{\"denyRead\":[${names%,}],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
out=$(cd "$P" && timeout -k 5 60 env LD_LIBRARY_PATH="$SRT_LIBS" "$SRT" --backend="$BACKEND" -s "$M" -c 'ls | grep -c "^m[0-9]"' 2>&1)
rc=$?
check "400 placeholders (80 KiB of records): the run ends by itself (rc=$rc, saw ${out:-nothing})" \
	test "$rc" = 0 -a "$out" = 400
check "and leaves none of them" test -z "$(ls "$P" | grep '^m[0-9]')"
bg_srt "$M" "$WORK/o4" "ls | grep -c ^m[0-9]; exec sleep $MARK"
wait_out "$WORK/o4"
seen=$(head -1 "$WORK/o4")
kill -KILL "$K"
wait "$K" 2>/dev/null
for _ in $(seq 100); do [ -z "$(ls "$P" | grep '^m[0-9]')" ] && break; sleep 0.1; done
check "the same run SIGKILLed: the guard removes all 400 (the command saw ${seen:-none})" \
	test "$seen" = 400 -a -z "$(ls "$P" | grep '^m[0-9]')"

# nothing of any run is left, and a normal end leaves no process: no
# process carries the mark (srt, bwrap, the helper, the command), and no
# guard seen above is still running (its command line has no mark)
srt__run -s "$S" -c "true $MARK" >/dev/null 2>&1
guards_left() {
	local q
	for q in $GUARDS; do
		grep -qa -- --guard "/proc/$q/cmdline" 2>/dev/null && echo "$q"
	done
}
for _ in $(seq 50); do [ -z "$(pgrep -f "$MARK")$(guards_left)" ] && break; sleep 0.1; done
check "nothing of the runs is left (no process carries the mark; guards seen:${GUARDS:- none}, running: $(guards_left | tr '\n' ' '))" \
	test -z "$(pgrep -f "$MARK")$(guards_left)"
pkill -KILL -f "$MARK" 2>/dev/null || true

# 10. a guard that ends before it is in place (a shim preloaded into a
# program embedding libsrt makes the first guard's exec run /bin/false):
# that run stops, saying so; the sandbox's next run must get a guard of its
# own. The dead guard's pipe, kept, went on as the sandbox's guard: the next
# run found it "running already", and its spawned bwrap died of SIGPIPE
# writing its record there ("bubblewrap ended before it created the
# sandbox"), every later run the same. The program ignores SIGPIPE, as
# srt's CLI, its service and its Python binding do: srt's own records to a
# guard that died raise it.
cat > "$WORK/guard-once.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const[], char *const[]);
	const char *mark = getenv("GUARD_ONCE_MARK");
	int fd;

	if (!real)
		real = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	if (mark && argv && argv[0] && argv[1] && !strcmp(argv[1], "--guard") &&
	    (fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0) {
		close(fd);
		return real("/bin/false", argv, envp); /* ends without its "G" */
	}
	return real(path, argv, envp);
}
C
cat > "$WORK/twice.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <srt/srt.h>

int main(int argc, char **argv)
{
	static const char *one[] = { "/bin/sh", "-c", "echo one-ran", NULL };
	static const char *two[] = { "/bin/sh", "-c", "echo two-ran", NULL };
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	int st = -1, rc;

	signal(SIGPIPE, SIG_IGN);
	memset(&d, 0, sizeof(d));
	if (argc != 2 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	rc = srt_sandbox_run(sb, one, NULL, &st, &d);
	printf("first rc=%d %s\n", rc, rc ? d.message : "");
	memset(&d, 0, sizeof(d));
	rc = srt_sandbox_run(sb, two, NULL, &st, &d);
	printf("second rc=%d status=%d %s\n", rc, st, rc ? d.message : "");
	srt_sandbox_free(sb);
	return 0;
}
C
if ! cc -shared -fPIC -o "$WORK/guard-once.so" "$WORK/guard-once.c" -ldl 2>"$WORK/cc.err"; then
	not_ok "the guard-ending shim builds ($(head -c 200 "$WORK/cc.err"))"
elif ! libsrt_cc "$WORK/twice" "$WORK/twice.c"; then
	not_ok "the program running twice builds ($(head -c 300 "$WORK/cc.err"))"
else
	pre="$WORK/guard-once.so"
	asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && pre="$asan $pre"
	# no write root but the run's TMPDIR (a HOME without ~/.npm/_logs):
	# no orphan work, whose guard would be replaced at the next run anyway
	S10=$(fs s10 '{"denyRead":[],"allowWrite":[],"denyWrite":[]}')
	mkdir -p "$WORK/home10"
	rm -f "$WORK/guard-once.mark"
	out=$(cd "$P" && HOME="$WORK/home10" GUARD_ONCE_MARK="$WORK/guard-once.mark" LD_PRELOAD="$pre" \
		SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout -k 2 60 "$WORK/twice" "$S10" 2>&1 </dev/null); rc=$?
	diag "rc=$rc $(tr '\n' ' ' <<<"$out" | head -c 400)"
	check "a guard that ends before it is in place stops its run (nothing ran); the next run gets a guard of its own and runs" \
		test "$rc" = 0 -a -e "$WORK/guard-once.mark" -a -z "$(grep -x one-ran <<<"$out")" \
		-a -n "$(grep -x two-ran <<<"$out")" \
		-a -n "$(grep -F 'first rc=' <<<"$out" | grep 'ended before it was in place')" \
		-a -n "$(grep -x 'second rc=0 status=0 ' <<<"$out")"
fi


# 11, 12. The OOM killer goes on choosing while the command's tmpfs pages
# stay charged, largest first: every process of the sandbox must come
# before the guard, whatever its size (the guard, about 1 MB, came before
# the sandbox's smaller helpers; built with the sanitizers, before all of
# them: #5 failed so, the guard chosen third). Their OOM score is srt's
# raised by 200 (include/srt/backend.h); srt's own stays, the guard's
# stays or is lower. 12: a spawner that runs no code of srt's in the
# child (Python's subprocess, posix_spawn): bwrap keeps the caller's
# score, everything in the sandbox is raised by the helper.
# the processes below ROOT, "pid name" each
descendants() { # ROOT
	ps -e -o pid=,ppid=,comm= | awk -v root="$1" '
		{ up[$1] = $2; name[$1] = $3; order[NR] = $1 }
		END {
			for (i = 1; i <= NR; i++) {
				p = order[i]; q = up[p]
				while (q != root && (q in up) && q > 1) q = up[q]
				if (q == root) print p, name[p]
			}
		}'
}
# "name=score" of every process below ROOT but the guard (and bwrap's
# with SKIP_BWRAP=1) whose score is below WANT, then "ranked=N"
below_want() { # ROOT GUARD WANT
	local pid name adj n=0
	while read -r pid name; do
		[ "$pid" = "$2" ] && continue
		[ "${SKIP_BWRAP:-0}" = 1 ] && [ "$name" = bwrap ] && continue
		adj=$(cat "/proc/$pid/oom_score_adj" 2>/dev/null) || continue
		n=$((n + 1))
		[ "$adj" -lt "$3" ] && printf '%s=%s ' "$name" "$adj"
	done < <(descendants "$1")
	echo "ranked=$n"
}
# the spawner's score is the test's (or SRT_SCORE); the guard's (when it
# is the spawner's child: wrap mode detaches it) at most GUARD_MAX (the
# spawner's); at least the helper, the nested init, the worker and the
# command were looked at
rank_ok() { # GUARD GUARD_SCORE SRT_SCORE BELOW_WANT
	[ "$3" = "${SRT_SCORE:-$(cat /proc/self/oom_score_adj)}" ] &&
		{ [ "${GUARD_DETACHED:-0}" = 1 ] || { [ -n "$1" ] && [ -n "$2" ] && [ "$2" -le "${GUARD_MAX:-$3}" ]; }; } &&
		[[ $4 == ranked=* ]] && [ "${4#ranked=}" -ge 4 ]
}
rank_case() { # LABEL OUT (K: the spawner, in the background)
	local g= gadj= kadj want res
	wait_out "$2"
	[ "${GUARD_DETACHED:-0}" = 1 ] || g=$(guard_of "${K:-0}")
	[ -n "$g" ] && gadj=$(cat "/proc/$g/oom_score_adj" 2>/dev/null)
	kadj=$(cat "/proc/${K:-0}/oom_score_adj" 2>/dev/null)
	want=$(( ${kadj:-0} + 200 > 1000 ? 1000 : ${kadj:-0} + 200 ))
	res=$(below_want "${K:-0}" "${g:-0}" "$want")
	check "$1: every process of the sandbox has an OOM score of at least $want, srt keeps its own (${kadj:-none}), the guard ${g:-detached} at most ${GUARD_MAX:-that} (${gadj:-not looked at}); below $want: ${res}" \
		rank_ok "$g" "$gadj" "$kadj" "$res"
	kill -KILL "${K:-0}" 2>/dev/null
	wait "${K:-0}" 2>/dev/null
	pkill -KILL -f "$MARK" 2>/dev/null || true
}
reset_proj
bg_srt "$S" "$WORK/o11" "echo started; exec sleep $MARK"
rank_case "srt's own spawn" "$WORK/o11"
WRAP_RUN=$(libtool_binary "$top_builddir/tests/helpers/wrap-run" 2>/dev/null)
if [ -x "$WRAP_RUN" ]; then
	reset_proj
	rm -f "$WORK/jobpid" "$WORK/o12"
	fork_notrap env WRAP_RUN_SPAWN=parent LD_LIBRARY_PATH="$SRT_LIBS" \
		"$WRAP_RUN" --backend="$BACKEND" -s "$S" -c "echo started; exec sleep $MARK" >"$WORK/o12" 2>/dev/null
	K=$!
	SKIP_BWRAP=1 GUARD_DETACHED=1 rank_case "a spawner that runs no code in the child (wrap mode, WRAP_RUN_SPAWN=parent)" "$WORK/o12"
else
	skip "tests/helpers/wrap-run not built: the wrap mode's case is not run"
fi

# 13, 14. The guard lowers its score by up to 200, as far as the kernel
# lets it, so that it stays after the sandbox where srt's score leaves the
# sandbox no room above it. A process without CAP_SYS_RESOURCE may go down
# to the lowest score a privileged writer gave it, which is at most the
# test's own: srt raised 100 above the test's, its guard goes back at
# least to the test's (a guard that tried only the whole 200 stayed at
# srt's); srt at 1000, the sandbox stays at 1000 and the guard goes to 800
# or lower.
own=$(cat /proc/self/oom_score_adj)
if [ "$own" -gt 900 ]; then
	skip "this test runs at an OOM score of $own: no room to raise srt 100 above it"
else
	reset_proj
	SRT_SCORE=$((own + 100)) bg_srt "$S" "$WORK/o13" "echo started; exec sleep $MARK"
	SRT_SCORE=$((own + 100)) GUARD_MAX=$own rank_case "srt started at a score of $((own + 100))" "$WORK/o13"
fi
reset_proj
SRT_SCORE=1000 bg_srt "$S" "$WORK/o14" "echo started; exec sleep $MARK"
SRT_SCORE=1000 GUARD_MAX=800 rank_case "srt started at a score of 1000" "$WORK/o14"
