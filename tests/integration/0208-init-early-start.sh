#!/bin/bash
# bwrap started before the plan (the backend's early slot): srt spawns
# `bwrap --args SOCKET -- srt-linux-init --options-fd MEMFD -- command`,
# plans while bwrap loads, then writes bwrap's options into the socket and
# the helper's into the memfd, seals it and closes the socket. What must
# hold: every kind of run takes that path; a plan larger than the socket's
# buffer arrives whole; a srt killed at any moment of a long plan leaves
# nothing running and never a command with part of its plan; a program
# embedding libsrt that forks without exec meanwhile does not stall the
# run, also in a child the program forked after the start, even while
# the proxy's thread holds the violation store, and such a child, ending
# with or without srt_sandbox_free, takes nothing of the parent's with
# it (proxy, run directory, cleanup guard); the proxy's
# directory is the one srt made, or the run is refused; past bwrap's
# limit of 9000 arguments srt says so itself; a plan that fails while
# bwrap is being started ends the run with the plan's own error, never a
# wait, and what the start holds of the guard's pipe goes with a process
# forked meanwhile. The helper's refusals of an incomplete memfd are in
# 0203.
. "$(dirname "$0")/lib.sh"

plan 37
need_bwrap_sandbox

# 1-3: the early path is the one every kind of run takes
S=$(fs default '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
for c in "default:$S" \
	"proxy:$(printf '{"network":{"allowedDomains":["localhost"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' > "$WORK/net.json"; echo "$WORK/net.json")" \
	"filesystem.disabled:$(printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"disabled":true,"denyRead":[],"allowWrite":[],"denyWrite":[]}}' > "$WORK/off.json"; echo "$WORK/off.json")"; do
	out=$(srt__run --debug -s "${c#*:}" -c 'echo ran' 2>&1 </dev/null)
	check "${c%%:*}: bwrap is started before the plan and the command runs" \
		test -n "$(grep -F '[srt debug] bwrap argv (options through --args):' <<<"$out")" -a -n "$(grep -x ran <<<"$out")"
done

# 4-5: a plan of about 260 KB (700 denyRead entries of 150 characters),
# more than a socket's default buffer: bwrap gets all of it, so the last
# entry is enforced
long=$(printf 'x%.0s' $(seq 150))
rules= dirs=()
for i in $(seq 700); do
	dirs+=("$WORK/long/$long$i")
	rules="$rules\"$WORK/long/$long$i\","
done
mkdir -p "${dirs[@]}"
echo "$CANARY" > "$WORK/long/${long}700/secret"
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[%s],"allowWrite":["."],"denyWrite":[]}}\n' \
	"${rules%,}" > "$WORK/long.json"
out=$(srt__run --debug -s "$WORK/long.json" -c "cat '$WORK/long/${long}700/secret' 2>&1; echo end" 2>"$WORK/long.err" </dev/null)
words=$(grep -F '[srt debug] bwrap argv (options through --args):' "$WORK/long.err" | wc -c)
check "a plan of $words bytes through the options socket: the command ran" test "$(tail -n1 <<<"$out")" = end
check "a plan of $words bytes: its last denyRead entry holds" test -z "$(grep -F "$CANARY" <<<"$out")"

# 6-7: a bwrap that ends without reading that plan (bwrapPath /bin/false):
# srt's send of more than the socket holds must fail, not wait forever
sed 's|^{|{"bwrapPath":"/bin/false",|' "$WORK/long.json" > "$WORK/longfalse.json"
s0=$(date +%s)
timeout -k 2 20 "$SRT" --backend="$BACKEND" -s "$WORK/longfalse.json" -c "touch '$WORK/false-ran'" </dev/null 2>"$WORK/false.err"; rc=$?
took=$(($(date +%s) - s0))
check "bwrap gone before it read a large plan: srt ends at once, exit 1, nothing ran (rc=$rc, ${took}s)" \
	test "$rc" = 1 -a "$took" -lt 10 -a ! -e "$WORK/false-ran"
check "bwrap gone before it read a large plan: the message names bwrap ($(head -c 200 "$WORK/false.err"))" \
	grep -q "bubblewrap (/bin/false) ended before it created the sandbox" "$WORK/false.err"

# 8-11: srt killed (SIGKILL, then SIGINT) at moments spread over that
# plan: the command either never ran or ran with the whole plan, and
# nothing of the run is left (the command sleeps past the look for
# leftovers, so one that outlived srt is seen)
M="$WORK/proj/ran"
L="$WORK/proj/leak"
ran=0 leaked=0 left=0
for sig in KILL INT; do
	for d in 0 0.005 0.02 0.05 0.1 0.2 0.4 0.8; do
		rm -f "$M" "$L"
		"$SRT" --backend="$BACKEND" -s "$WORK/long.json" -c \
			"touch '$M'; cat '$WORK/long/${long}700/secret' >> '$L' 2>/dev/null; sleep 2" \
			</dev/null >/dev/null 2>&1 &
		p=$!
		sleep "$d"
		kill -"$sig" "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		sleep 0.5
		[ -e "$M" ] && ran=$((ran + 1))
		[ -s "$L" ] && grep -q -F "$CANARY" "$L" && leaked=$((leaked + 1))
		pgrep -f "$WORK/proj/leak" >/dev/null && left=$((left + 1))
	done
	check "SIGKILL/SIGINT sweep ($sig): no run read the last denied file ($ran of 8 commands started)" test "$leaked" = 0
	check "SIGKILL/SIGINT sweep ($sig): no process of a killed run is left" test "$left" = 0
	ran=0 leaked=0 left=0
done

# 12-14: a program embedding libsrt whose other thread forks without exec
# while the run plans (a worker pool, a test runner): the copies of srt's
# descriptors those children hold must not make the run wait for them
cat > "$WORK/forker.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <srt/srt.h>

static volatile int stop;
static pid_t kids[4096];
static int n_kids;

/* forks a child that sleeps 10 s (no exec) every 200 us until told to stop:
 * a run that waited for one would take that long, while a run under the
 * sanitizer on a loaded machine was seen to take 2.1 s */
static void *forker(void *arg)
{
	(void)arg;
	while (!stop && n_kids < 4096) {
		pid_t p = fork();

		if (p == 0) {
			sleep(10);
			_exit(0);
		}
		if (p > 0)
			kids[n_kids++] = p;
		usleep(200);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	const char *cmd[] = { "/bin/true", NULL };
	struct timespec a, b;
	double worst = 0;
	int i, status, rc = 0;

	memset(&d, 0, sizeof(d));
	if (argc != 2 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	for (i = 0; i < 5; i++) {
		pthread_t t;
		double s;

		stop = 0;
		pthread_create(&t, NULL, forker, NULL);
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &a);
		rc |= srt_sandbox_run(sb, cmd, NULL, &status, &d) || status != 0;
		clock_gettime(CLOCK_MONOTONIC, &b);
		stop = 1;
		pthread_join(t, NULL);
		s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (s > worst)
			worst = s;
	}
	for (i = 0; i < n_kids; i++)
		kill(kids[i], SIGKILL);
	printf("%s %.3f %d\n", rc ? "failed" : "ran", worst, n_kids);
	fflush(stdout);
	srt_sandbox_free(sb);
	return 0;
}
C
if libsrt_cc "$WORK/forker" "$WORK/forker.c"; then
	read -r what worst kids < <(SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout 120 "$WORK/forker" "$S" 2>"$WORK/err")
	ok "the forking program built and ran ($what; $kids children forked)"
	check "forks without exec during the runs: every run ran" test "$what" = ran
	check "forks without exec during the runs: no run waited for those children (slowest ${worst}s; each child lives 10 s)" \
		awk -v w="$worst" 'BEGIN { exit !(w != "" && w < 8) }'
else
	not_ok "the forking program builds ($(head -c 300 "$WORK/cc.err"))"
	skip "the program did not build"
	skip "the program did not build"
fi

# 15-17: a program that forks after srt_sandbox_start and runs the sandbox
# in the child and in the parent (a worker pool of the fork kind). The
# proxy runs from the start in the process that started it: the child's
# command reaches it too, and neither process crashes. (Making the proxy's
# socket and thread at the first run instead, tried for a shorter start,
# had each process add its own listener to the one event loop they share
# after the fork, and the proxy's thread crashed: red team, 3 of 8.)
cat > "$WORK/forkrun.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <srt/srt.h>

/* each process's command writes its code to a file of its own: the two
 * run at once and share the output */
static const char *cmd_child[] = { "/bin/sh", "-c",
	"curl -s -o /dev/null -w '%{http_code}' -x \"$http_proxy\" http://not-allowed.invalid/ > \"$0\"",
	"code-child", NULL };
static const char *cmd_parent[] = { "/bin/sh", "-c",
	"curl -s -o /dev/null -w '%{http_code}' -x \"$http_proxy\" http://not-allowed.invalid/ > \"$0\"",
	"code-parent", NULL };

static void show(const char *who, const char *file, int rc)
{
	char code[8] = "";
	FILE *f = fopen(file, "r");

	if (f) {
		if (!fgets(code, sizeof(code), f))
			code[0] = '\0';
		fclose(f);
	}
	printf("%s-code=%s %s-rc=%d\n", who, code, who, rc);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	int st = -1, ws = -1, rc, hold[2];
	pid_t p;

	memset(&d, 0, sizeof(d));
	if (argc != 2 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	fflush(stdout);
	/* the child ends only after the parent's run: a process that ends
	 * without srt_sandbox_free leaves its cleanup guard to remove the
	 * proxy's directory, which both share (SECURITY.md; left open) */
	if (pipe(hold) != 0)
		return 2;
	p = fork();
	if (p == 0) {
		char c;

		close(hold[1]);
		rc = srt_sandbox_run(sb, cmd_child, NULL, &st, &d);
		show("child", "code-child", rc);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(rc ? 1 : 0);
	}
	close(hold[0]);
	rc = srt_sandbox_run(sb, cmd_parent, NULL, &st, &d);
	show("parent", "code-parent", rc);
	close(hold[1]);
	if (p > 0)
		waitpid(p, &ws, 0);
	printf("child-status=%d\n", WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
	srt_sandbox_free(sb);
	return 0;
}
C
cat > "$WORK/later.json" <<'J'
{"network":{"allowedDomains":["localhost"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}
J
if libsrt_cc "$WORK/forkrun" "$WORK/forkrun.c"; then
	rm -f "$WORK/proj/code-child" "$WORK/proj/code-parent"
	out=$(cd "$WORK/proj" && SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout 60 "$WORK/forkrun" "$WORK/later.json" 2>"$WORK/forkrun.err")
	diag "$(tr '\n' ' ' <<<"$out")" "$(head -c 300 "$WORK/forkrun.err")"
	# the sanitized build: gcc 12's libasan does not intercept fork(2), so
	# its allocator's locks are not taken around it, and a child forked
	# while the proxy's thread allocates can wait on one forever. Seen in
	# CI, then 1 run in 3 by hand: gdb showed the hung child in malloc
	# (asprintf of the child's environment), waiting on the mutex of the
	# sanitizer allocator's size class (SizeClassAllocator64), with no
	# other thread. The plain build (glibc's malloc is fork-safe) runs
	# these checks.
	sanitized=0
	ldd "$WORK/forkrun" 2>/dev/null | grep -q libasan && sanitized=1
	if [ $sanitized = 1 ]; then
		skip "forked after the start, the child's run: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
	else
		check "forked after the start: the child's run ends and its command got the proxy's 403" \
			grep -qx 'child-code=403 child-rc=0' <<<"$out"
	fi
	check "forked after the start: the parent's run too" grep -qx 'parent-code=403 parent-rc=0' <<<"$out"
	if [ $sanitized = 1 ]; then
		skip "forked after the start, the child's exit: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
	else
		check "forked after the start: the child exited by itself, not by a signal" grep -qx 'child-status=0' <<<"$out"
	fi
else
	not_ok "the forking program builds ($(head -c 300 "$WORK/cc.err"))"
	skip "the program did not build"
	skip "the program did not build"
fi

# 18-19: bwrap counts every argument it is given, on its command line, in
# --args and the command's own, and refuses past 9000 ("Exceeded maximum
# number of arguments"); srt said only that bwrap "ended before it created
# the sandbox". srt counts them as bwrap does: the most that runs still
# runs, one more is refused with the limit and the count, and runs nothing.
S=$(fs default '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
n=1
while :; do
	out=$(srt__run -s "$S" -- /bin/sh -c "touch '$WORK/proj/argc-ran'" x $(seq "$n") 2>&1 </dev/null)
	grep -q 'accepts at most 9000 arguments' <<<"$out" && break
	[ "$n" -gt 9000 ] && break
	n=$((n + 500))
done
# the edge: the largest count that runs, found by halving
lo=$((n - 500)) hi=$n
while [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	if srt__run -s "$S" -- /bin/sh -c ':' x $(seq "$mid") </dev/null >/dev/null 2>&1; then lo=$mid; else hi=$mid; fi
done
rm -f "$WORK/proj/argc-ran"
srt__run -s "$S" -- /bin/sh -c "touch '$WORK/proj/argc-ran'" x $(seq "$lo") </dev/null >/dev/null 2>&1
ran_lo=$?
check "the most arguments bwrap takes ($lo and the shell's 4) still run (rc=$ran_lo)" test "$ran_lo" = 0 -a -e "$WORK/proj/argc-ran"
rm -f "$WORK/proj/argc-ran"
out=$(srt__run -s "$S" -- /bin/sh -c "touch '$WORK/proj/argc-ran'" x $(seq "$hi") 2>&1 </dev/null); rc=$?
check "one more is refused by srt, naming bwrap's limit, and nothing ran (rc=$rc: $(head -c 200 <<<"$out"))" \
	test "$rc" != 0 -a ! -e "$WORK/proj/argc-ran" -a -n "$(grep 'bubblewrap accepts at most 9000 arguments, and this sandbox needs 9001 ' <<<"$out")"

# 20-22: the proxy's directory is made (srt__rundir_make) and looked at through
# a descriptor opened without following links. A TMPDIR another user owns and may rename entries of
# (not sticky) let that user swap srt's directory for one of theirs between
# the mkdir and the bind: srt bound its socket in their directory, and its
# check of the socket by path could record their socket for the bridge
# (the red team won 1 of 150 races). Made certain here: a shim swaps the
# directory at once, as the racer does when it wins. srt must refuse the
# run, bind nothing in the swapped-in directory, and run nothing.
cat > "$WORK/swap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int (*real_mkdir)(const char *, mode_t);

/* after srt made its proxy directory (srt__rundir_make's mkdir; mkdtemp
 * before): the directory moved aside and one of another user's (mode
 * 0777) put at its name */
static void swap(const char *t)
{
	char aside[4096];

	if (!strstr(t, "/srt-") || strstr(t, "/srt-run.") || !getenv("SWAP_UID"))
		return;
	snprintf(aside, sizeof(aside), "%s.aside", t);
	if (rename(t, aside) == 0 && real_mkdir(t, 0777) == 0) {
		char f[4200];
		FILE *fp;

		chmod(t, (mode_t)strtol(getenv("SWAP_MODE") ? getenv("SWAP_MODE") : "0777", NULL, 8));
		if (chown(t, (uid_t)atoi(getenv("SWAP_UID")), (gid_t)atoi(getenv("SWAP_UID"))) != 0)
			fprintf(stderr, "swap: chown failed\n");
		/* a file of the other directory's, which srt must leave */
		snprintf(f, sizeof(f), "%s/proxy.sock", t);
		if ((fp = fopen(f, "w")))
			fclose(fp);
	}
}

int mkdir(const char *t, mode_t mode)
{
	if (!real_mkdir)
		real_mkdir = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
	if (real_mkdir(t, mode) != 0)
		return -1;
	swap(t);
	return 0;
}

char *mkdtemp(char *t)
{
	static char *(*real)(char *);

	if (!real)
		real = (char *(*)(char *))dlsym(RTLD_NEXT, "mkdtemp");
	if (!real_mkdir)
		real_mkdir = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
	if (!real(t))
		return NULL;
	swap(t);
	return t;
}
C
if [ "$(id -u)" != 0 ]; then
	for _ in 1 2 3 4 5; do skip "a directory of another user swapped in needs root to make it (chown)"; done
elif ! cc -shared -fPIC -o "$WORK/swap.so" "$WORK/swap.c" -ldl 2>"$WORK/cc.err"; then
	for _ in 1 2 3 4 5; do not_ok "the swapping shim builds ($(head -c 200 "$WORK/cc.err"))"; done
else
	mkdir -p "$WORK/tswap"
	chown 65534 "$WORK/tswap"
	chmod 0755 "$WORK/tswap"
	rm -f "$WORK/proj/swap-ran"
	# a sanitized srt wants its runtime first among the preloads
	pre="$WORK/swap.so"
	asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && pre="$asan $pre"
	out=$(cd "$WORK/proj" && TMPDIR="$WORK/tswap" SWAP_UID=65534 LD_PRELOAD="$pre" \
		"$SRT" --backend="$BACKEND" -s "$WORK/later.json" -c "touch '$WORK/proj/swap-ran'" 2>&1 </dev/null); rc=$?
	diag "swapped: rc=$rc $(head -c 300 <<<"$out")" "$(ls -la "$WORK/tswap"/*/ 2>/dev/null | head -8)"
	check "the proxy's directory swapped for another user's: the run is refused, saying so" \
		test "$rc" != 0 -a -n "$(grep 'is not the private directory srt just made' <<<"$out")"
	check "the proxy's directory swapped for another user's: nothing ran" test ! -e "$WORK/proj/swap-ran"
	check "the proxy's directory swapped for another user's: no socket of srt's is in it" \
		test -z "$(find "$WORK/tswap" -mindepth 2 -maxdepth 2 -name proxy.sock -type s 2>/dev/null)"
	rm -rf "$WORK/tswap"
	# 23-24: what is put there is a directory of srt's own user (root's
	# here) that is not the fresh one: 0755, with a file (as a mount of
	# /etc over the name, which the red team showed through a TMPDIR
	# reached by /proc/PID/root of the other user's namespace). srt must
	# refuse it and leave it as it was (it made it 0700 before).
	mkdir -p "$WORK/tswap"
	chown 65534 "$WORK/tswap"
	chmod 0755 "$WORK/tswap"
	rm -f "$WORK/proj/swap-ran"
	out=$(cd "$WORK/proj" && TMPDIR="$WORK/tswap" SWAP_UID=0 SWAP_MODE=0755 LD_PRELOAD="$pre" \
		"$SRT" --backend="$BACKEND" -s "$WORK/later.json" -c "touch '$WORK/proj/swap-ran'" 2>&1 </dev/null); rc=$?
	victim=$(find "$WORK/tswap" -mindepth 1 -maxdepth 1 -type d ! -name '*.aside' | head -1)
	diag "root's directory put there: rc=$rc $(head -c 300 <<<"$out")" "$(stat -c '%a %U %n' "$victim" 2>/dev/null)"
	check "a directory of srt's user that is not the fresh one: the run is refused and nothing ran" \
		test "$rc" != 0 -a ! -e "$WORK/proj/swap-ran" -a -n "$(grep 'is not the private directory srt just made' <<<"$out")"
	check "a directory of srt's user that is not the fresh one: left as it was (mode 755, its file a file)" \
		test "$(stat -c %a "$victim" 2>/dev/null)" = 755 -a -f "$victim/proxy.sock"
	rm -rf "$WORK/tswap"
fi

# 25-26: the same kind of program forks while the proxy's thread holds the
# violation store's lock: it records the parent's denied request and calls
# the program's listener under that lock, and this listener sleeps there.
# The child's run registers its command in the store first: with the lock
# copied held into a process where no thread will release it, the child
# waited forever (libsrt before its fork handlers). The child runs only
# after the parent's run has ended: two runs at once in one write root
# share its placeholders, and the first to end removes them under the
# other (a run then fails closed; not what this checks).
cat > "$WORK/forkheld.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <srt/srt.h>

static const char *cmd_parent[] = { "/bin/sh", "-c",
	"curl -s -o /dev/null -x \"$http_proxy\" http://not-allowed.invalid/", NULL };
static const char *cmd_child[] = { "/bin/sh", "-c", "exit 0", NULL };
static int entered[2];
static struct srt_sandbox *sb;
static int parent_rc = -1;

/* the first event: say so, then hold the store for half a second */
static void listener(void *ctx, const struct srt_violation *v)
{
	static int seen;

	(void)ctx;
	(void)v;
	if (seen++)
		return;
	if (write(entered[1], "x", 1) != 1)
		return;
	usleep(500000);
}

static void *parent_run(void *arg)
{
	struct srt_diag d;
	int st = -1;

	(void)arg;
	memset(&d, 0, sizeof(d));
	parent_rc = srt_sandbox_run(sb, cmd_parent, NULL, &st, &d);
	return NULL;
}

int main(int argc, char **argv)
{
	struct srt_diag d;
	struct timespec tick = { 0, 50000000 };
	int ws = 0, hold[2], after[2], i;
	pthread_t t;
	char c;
	pid_t p, w = 0;

	memset(&d, 0, sizeof(d));
	if (argc != 2 || pipe(entered) != 0 || pipe(hold) != 0 || pipe(after) != 0 ||
	    srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	srt_sandbox_on_violation(sb, listener, NULL);
	if (srt_sandbox_start(sb, &d) || pthread_create(&t, NULL, parent_run, NULL))
		return fprintf(stderr, "start: %s\n", d.message), 2;
	if (read(entered[0], &c, 1) != 1)
		return fprintf(stderr, "the listener was not called\n"), 2;
	fflush(stdout);
	p = fork();
	if (p == 0) {
		int st = -1, rc;

		close(hold[1]);
		close(after[1]);
		while (read(after[0], &c, 1) > 0)
			; /* the parent's run has ended */
		rc = srt_sandbox_run(sb, cmd_child, NULL, &st, &d);
		printf("child-rc=%d child-status=%d%s%s\n", rc, st, rc ? " " : "", rc ? d.message : "");
		fflush(stdout);
		/* end only after the parent's run: the proxy's directory is
		 * shared (see 15-17) */
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(hold[0]);
	close(after[0]);
	pthread_join(t, NULL);
	close(after[1]);
	printf("parent-rc=%d\n", parent_rc);
	close(hold[1]);
	for (i = 0; i < 400 && p > 0 && (w = waitpid(p, &ws, WNOHANG)) == 0; i++)
		nanosleep(&tick, NULL);
	if (p > 0 && w == 0) {
		kill(p, SIGKILL);
		waitpid(p, &ws, 0);
		printf("child-hung\n");
	} else {
		printf("child-exit=%d\n", WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
	}
	srt_sandbox_free(sb);
	return 0;
}
C
if libsrt_cc "$WORK/forkheld" "$WORK/forkheld.c"; then
	out=$(cd "$WORK/proj" && SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout 60 "$WORK/forkheld" "$WORK/later.json" 2>"$WORK/forkheld.err")
	diag "$(tr '\n' ' ' <<<"$out")" "$(head -c 300 "$WORK/forkheld.err")"
	if ldd "$WORK/forkheld" 2>/dev/null | grep -q libasan; then
		# as for 15 and 17: the child allocates after a fork in a
		# threaded program, which this libasan does not make safe
		skip "forked while the store is held, the child's run: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
		check "forked while the proxy's thread holds the violation store: the parent's run ends" \
			grep -qx 'parent-rc=0' <<<"$out"
	else
		check "forked while the proxy's thread holds the violation store: the child's run ends and its command ran" \
			grep -qx 'child-rc=0 child-status=0' <<<"$out"
		check "forked while the proxy's thread holds the violation store: the parent's run ends, the child exits by itself" \
			test -n "$(grep -x 'parent-rc=0' <<<"$out")" -a -n "$(grep -x 'child-exit=0' <<<"$out")"
	fi
else
	not_ok "the program holding the store builds ($(head -c 300 "$WORK/cc.err"))"
	skip "the program did not build"
fi

# 27-32: a child forked after the start and after a run (its parent's
# cleanup guard exists) owns nothing the start made. It used to take the
# parent's things with it: its srt_sandbox_free stopped the proxy's copy
# and removed the parent's socket and directory, its guard or its free
# removed the parent's run directory (each failed the parent's later runs
# closed), and its runs wrote to the parent's guard and its free sent that
# guard the quit record of a normal end, after which a srt killed would
# leave its sandboxed command running.
cat > "$WORK/forkfree.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <srt/srt.h>

/* the command's code goes to the file $0 names */
static const char *cmd_run[] = { "/bin/sh", "-c",
	"curl -s -o /dev/null -w '%{http_code}' -x \"$http_proxy\" http://not-allowed.invalid/ > \"$0\"",
	NULL, NULL };

static int run(struct srt_sandbox *sb, const char *file)
{
	struct srt_diag d;
	char code[8] = "";
	int st = -1, rc;
	FILE *f;

	memset(&d, 0, sizeof(d));
	cmd_run[3] = file;
	unlink(file);
	rc = srt_sandbox_run(sb, cmd_run, NULL, &st, &d);
	if ((f = fopen(file, "r"))) {
		if (!fgets(code, sizeof(code), f))
			code[0] = '\0';
		fclose(f);
	}
	if (rc)
		fprintf(stderr, "%s: %s\n", file, d.message);
	return rc ? -1 : atoi(code);
}

int main(int argc, char **argv)
{
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	const char *mode;
	int ws = -1, first;
	pid_t p;

	memset(&d, 0, sizeof(d));
	if (argc != 3 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	mode = argv[2];
	/* a run first: the parent's cleanup guard exists at the fork */
	first = run(sb, "code-first");
	fflush(stdout);
	p = fork();
	if (p == 0) {
		int code = run(sb, "code-child");

		printf("child-code=%d\n", code);
		fflush(stdout);
		if (!strcmp(mode, "free")) {
			alarm(20); /* a free that waits on the parent's threads */
			srt_sandbox_free(sb);
			printf("child-freed\n");
			fflush(stdout);
		}
		_exit(0);
	}
	waitpid(p, &ws, 0);
	sleep(1); /* what the child's guard does after its exit */
	printf("first-code=%d child-status=%d later-code=%d\n", first,
	       WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), run(sb, "code-later"));
	srt_sandbox_free(sb);
	return 0;
}
C
cat > "$WORK/forkguard.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <srt/srt.h>

int main(int argc, char **argv)
{
	static const char *quick[] = { "/bin/sh", "-c", "exit 0", NULL };
	const char *slow[] = { "/bin/sh", "-c", NULL, NULL };
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	int st = -1, ws = -1;
	pid_t p;

	memset(&d, 0, sizeof(d));
	if (argc != 3 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	slow[2] = argv[2];
	/* the parent's guard exists before the fork and is kept for its runs */
	if (srt_sandbox_run(sb, quick, NULL, &st, &d))
		return fprintf(stderr, "first run: %s\n", d.message), 2;
	p = fork();
	if (p == 0) {
		int rc = srt_sandbox_run(sb, quick, NULL, &st, &d);

		srt_sandbox_free(sb);
		_exit(rc ? 1 : 0);
	}
	waitpid(p, &ws, 0);
	printf("child-exit=%d\n", WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
	fflush(stdout);
	/* killed by the test during this run: the guard must end it */
	srt_sandbox_run(sb, slow, NULL, &st, &d);
	return 0;
}
C
cat > "$WORK/guard.json" <<'J'
{"network":{"allowedDomains":["localhost"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
J
if ldd "$SRT" 2>/dev/null | grep -q libasan; then
	for i in 1 2 3 4 5 6; do
		skip "a child forked after a run: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
	done
elif libsrt_cc "$WORK/forkfree" "$WORK/forkfree.c" && libsrt_cc "$WORK/forkguard" "$WORK/forkguard.c"; then
	for m in exit free; do
		out=$(cd "$WORK/proj" && SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout 60 "$WORK/forkfree" "$WORK/later.json" $m 2>"$WORK/forkfree.err")
		diag "$m: $(tr '\n' ' ' <<<"$out")" "$(head -c 300 "$WORK/forkfree.err")"
		check "a child forked after a run, ending by $m: its own run got the proxy's 403" \
			grep -qx 'child-code=403' <<<"$out"
		check "a child forked after a run, ending by $m: the parent's later run still reaches the proxy (403)" \
			grep -qx 'first-code=403 child-status=0 later-code=403' <<<"$out"
	done
	# the parent's last run is killed with SIGKILL while its command
	# sleeps: the parent's guard, which the child must have left armed,
	# ends the command
	mark="sleep 6$$.5"
	(cd "$WORK/proj" && exec env SRT_BACKEND_DIR="$(dirname "$BACKEND")" "$WORK/forkguard" "$WORK/guard.json" "exec $mark" >"$WORK/forkguard.out" 2>&1) &
	fg=$!
	for i in $(seq 100); do pgrep -f "^$mark\$" >/dev/null && break; sleep 0.1; done
	seen=$(pgrep -f "^$mark\$")
	kill -9 $fg 2>/dev/null
	wait $fg 2>/dev/null
	for i in $(seq 50); do pgrep -f "^$mark\$" >/dev/null || break; sleep 0.1; done
	left=$(pgrep -f "^$mark\$")
	[ -n "$left" ] && kill -9 $left 2>/dev/null
	diag "forkguard: $(tr '\n' ' ' <"$WORK/forkguard.out" | head -c 300)"
	check "a child forked after a run and freed: the parent's next command runs" test -n "$seen"
	check "and when the parent is killed during it, the parent's guard ends it" test -n "$seen" -a -z "$left"
else
	not_ok "the forking programs build ($(head -c 300 "$WORK/cc.err"))"
	for i in 2 3 4 5 6; do skip "the program did not build"; done
fi

# 33-34: in a child forked after the start, srt_sandbox_update_settings
# changed the child's copy of the proxy's rules, which no proxy reads (the
# proxy's thread is the parent's), and said it was done: a program that
# narrowed the network there had its commands go on with the wider rules
# (red team: 200 after narrowing). The copy refuses now; the parent's
# update works as before.
cat > "$WORK/forkupd.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <srt/srt.h>

static const char narrow[] = "{\"network\":{\"allowedDomains\":[\"only.example.invalid\"],\"deniedDomains\":[]},"
			     "\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\"],\"denyWrite\":[]}}";

int main(int argc, char **argv)
{
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	int ws = -1, rc;
	pid_t p;

	memset(&d, 0, sizeof(d));
	if (argc != 2 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	fflush(stdout);
	p = fork();
	if (p == 0) {
		rc = srt_sandbox_update_settings(sb, narrow, strlen(narrow), &d);
		printf("child-update-rc=%d %s\n", rc, rc ? d.message : "");
		fflush(stdout);
		_exit(0);
	}
	waitpid(p, &ws, 0);
	memset(&d, 0, sizeof(d));
	rc = srt_sandbox_update_settings(sb, narrow, strlen(narrow), &d);
	printf("parent-update-rc=%d\n", rc);
	srt_sandbox_free(sb);
	return 0;
}
C
if ldd "$SRT" 2>/dev/null | grep -q libasan; then
	skip "a child's settings update: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
	skip "a child's settings update: the sanitized build (see above)"
elif libsrt_cc "$WORK/forkupd" "$WORK/forkupd.c"; then
	out=$(cd "$WORK/proj" && SRT_BACKEND_DIR=$(dirname "$BACKEND") timeout 60 "$WORK/forkupd" "$WORK/later.json" 2>"$WORK/forkupd.err")
	diag "$(tr '\n' ' ' <<<"$out")" "$(head -c 300 "$WORK/forkupd.err")"
	check "a child forked after the start cannot change the network rules it does not serve, and is told so" \
		grep -Eq "^child-update-rc=-?[1-9][0-9]* .*forked from the one that started the sandbox" <<<"$out"
	check "the process that started the sandbox still can" grep -qx 'parent-update-rc=0' <<<"$out"
else
	not_ok "the program updating settings builds ($(head -c 300 "$WORK/cc.err"))"
	skip "the program did not build"
fi

# 35-36: the plan fails while the spawning thread starts bwrap beside it
# (here its first step: the cleanup guard cannot be started, which a shim
# preloaded into srt arranges). The failed plan closes the guard's pipe,
# and the next descriptor srt opened took its number: the spawning
# thread's own pipe for the child's exec error, into which the child then
# wrote its record for the guard. The thread read that record as an exec
# error and waited for the exec'd bwrap, itself waiting for its plan,
# forever; srt ignored timeout's SIGTERM (about 1 run in 8), and the runs
# that ended said "cannot execute bwrap: Bad file descriptor".
cat > "$WORK/noguard.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

static int is_guard(char *const argv[])
{
	return argv && argv[0] && argv[1] && !strcmp(argv[1], "--guard");
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const[], char *const[]);

	if (is_guard(argv)) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	return real(path, argv, envp);
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	static int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[], char *const[]);

	if (is_guard(argv))
		return EACCES;
	if (!real)
		real = (int (*)(pid_t *, const char *, const posix_spawn_file_actions_t *,
				const posix_spawnattr_t *, char *const[], char *const[]))dlsym(RTLD_NEXT, "posix_spawn");
	return real(pid, path, fa, at, argv, envp);
}
C
if ! cc -shared -fPIC -o "$WORK/noguard.so" "$WORK/noguard.c" -ldl 2>"$WORK/cc.err"; then
	for _ in 1 2; do not_ok "the guard-failing shim builds ($(head -c 200 "$WORK/cc.err"))"; done
else
	pre="$WORK/noguard.so"
	asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && pre="$asan $pre"
	rm -f "$WORK/proj/noguard-ran"
	hung=0 other=0 named=0
	for _ in $(seq 30); do
		out=$(cd "$WORK/proj" && LD_PRELOAD="$pre" timeout -k 2 20 "$SRT" --backend="$BACKEND" \
			-s "$WORK/later.json" -c "touch '$WORK/proj/noguard-ran'" 2>&1 </dev/null); rc=$?
		case $rc in
		1) ;;
		124 | 137) hung=$((hung + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
		if grep -q 'cleanup guard: cannot start .*--guard: Permission denied; nothing was run' <<<"$out"; then
			named=$((named + 1))
		else
			diag "a run's message: $(head -c 300 <<<"$out")"
		fi
	done
	check "a plan that fails beside bwrap's start: 30 runs end at once with exit 1 ($hung hung, $other other) and nothing ran" \
		test "$hung" = 0 -a "$other" = 0 -a ! -e "$WORK/proj/noguard-ran"
	check "a plan that fails beside bwrap's start: each run names the plan's failure ($named of 30)" test "$named" = 30
fi

# 37: a program embedding libsrt forks, from another thread, all through a
# run's start (a worker pool); each child lets go of srt
# (srt_sandbox_free) and lives on. The program is then SIGKILLed: its
# cleanup guard must see the end of its pipe and undo the run (here: remove
# the run's TMPDIR) while those children live. A fix of 35-36 that gave
# the spawning thread a copy of the guard's pipe of its own left that copy
# in every child forked during the start, and the guard waited as long as
# they lived, undoing nothing (red team: 5 of 5 runs).
cat > "$WORK/forkstart.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <srt/srt.h>

static struct srt_sandbox *sb;
static volatile int forking = 1;

static void *forker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 300 && forking; i++) {
		pid_t p = fork();

		if (p == 0) {
			alarm(30);
			srt_sandbox_free(sb);
			pause();
			_exit(0);
		}
		usleep(200);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *cmd[] = { "/bin/sh", "-c", "echo \"$TMPDIR\" > \"$0\"; exec sleep 60", NULL, NULL };
	struct srt_diag d;
	pthread_t t;
	int st = -1;

	memset(&d, 0, sizeof(d));
	if (argc != 3 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) || srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	cmd[3] = argv[2];
	if (pthread_create(&t, NULL, forker, NULL) != 0)
		return 2;
	if (srt_sandbox_run(sb, cmd, NULL, &st, &d))
		fprintf(stderr, "run: %s\n", d.message);
	forking = 0;
	return 0;
}
C
if ldd "$SRT" 2>/dev/null | grep -q libasan; then
	skip "forks during the start, then SIGKILL: the sanitized build's allocator is not fork-safe in a threaded program (libasan has no fork interceptor); the plain build runs it"
elif libsrt_cc "$WORK/forkstart" "$WORK/forkstart.c"; then
	rm -f "$WORK/proj/forkstart-tmp"
	(cd "$WORK/proj" && SRT_BACKEND_DIR=$(dirname "$BACKEND") exec setsid "$WORK/forkstart" "$WORK/later.json" \
		"$WORK/proj/forkstart-tmp" </dev/null >/dev/null 2>"$WORK/forkstart.err") &
	fpid=$!
	for _ in $(seq 200); do [ -s "$WORK/proj/forkstart-tmp" ] && break; sleep 0.05; done
	ftmp=$(cat "$WORK/proj/forkstart-tmp" 2>/dev/null)
	kill -9 "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
	for _ in $(seq 100); do [ -n "$ftmp" ] && [ ! -e "$ftmp" ] && break; sleep 0.1; done
	kids=$(pgrep -c -g "$fpid" 2>/dev/null)
	diag "TMPDIR ${ftmp:-none}, children of the killed program alive: ${kids:-0}" "$(head -c 300 "$WORK/forkstart.err")"
	check "forks all through the start, then the program SIGKILLed: its guard removes the run's TMPDIR while the children live (${ftmp:-the command never started})" \
		test -n "$ftmp" -a ! -e "$ftmp" -a "${kids:-0}" -gt 0
	pkill -9 -g "$fpid" 2>/dev/null
else
	not_ok "the forking program builds ($(head -c 300 "$WORK/cc.err"))"
fi
