/* Minimal TAP helpers for unit tests (one header, no framework).
 *
 * Each case runs in its own forked process with a timeout, because seccomp
 * filters, namespaces, rlimits and a crash cannot be undone in the process
 * that met them: tap_case(fn, "name") (or TAP_RUN(fn)) runs fn in a child
 * and, when the child dies by a signal, exits non-zero or overruns its
 * time, prints
 *     not ok N - name: killed by signal S (...)
 *     not ok N - name: exited with status S
 *     not ok N - name: timed out after T s
 * and the program goes on with the next case. ok() lines printed by the
 * child keep their place: the counter and the failure flag live in a
 * shared anonymous mapping, and the child's stdout is flushed line by line.
 *
 * Timeouts: TAP_TIMEOUT_DEFAULT seconds, or the case's own
 * (tap_case_timeout). The environment variable TAP_TIMEOUT replaces the
 * default, TAP_TIMEOUT_MULTIPLIER multiplies every timeout (a slow machine,
 * valgrind). A timed-out case is killed with SIGKILL.
 *
 * State that a later case reads must be set up in main() before the cases
 * (a child's writes to its memory die with it). */
#ifndef SRT_TEST_TAP_H
#define SRT_TEST_TAP_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TAP_TIMEOUT_DEFAULT 120

struct tap_state {
	int n;    /* the last test number printed, by any process */
	int fail; /* a "not ok" since the current case started */
};

/* The shared counter, mapped on first use so a fork sees the same page. */
static inline struct tap_state *tap_state(void)
{
	static struct tap_state *st;

	if (!st) {
		void *m = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			printf("Bail out! tap: cannot map the shared counter: %s\n", strerror(errno));
			exit(1);
		}
		st = m;
	}
	return st;
}

/* Failures of the cases already finished, kept in the parent only: a
 * case's child may reset tap_fail for its own subprocess bookkeeping. */
static inline int *tap_failed_before(void)
{
	static int failed;

	return &failed;
}

#define tap_n (tap_state()->n)
#define tap_fail (tap_state()->fail)

#define ok(cond, ...) do { \
	tap_n++; \
	if (cond) printf("ok %d - ", tap_n); \
	else { printf("not ok %d - ", tap_n); tap_fail = 1; } \
	printf(__VA_ARGS__); printf("\n"); \
	fflush(stdout); \
} while (0)

#define contains(hay, needle) (strstr((hay), (needle)) != NULL)

#define tap_done() (printf("1..%d\n", tap_n), (tap_fail || *tap_failed_before()))

/* A positive integer from the environment, or dflt. */
static inline unsigned tap_env_uint(const char *name, unsigned dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 86400)
		return dflt;
	return (unsigned)v;
}

/* What the parent prints for a child that ended with status st (0: the
 * child ended normally, its own ok() lines said everything). */
static inline void tap_case_report(const char *name, int st, int timed_out, unsigned limit)
{
	if (timed_out) {
		ok(0, "%s: timed out after %u s", name, limit);
	} else if (WIFSIGNALED(st)) {
		ok(0, "%s: killed by signal %d (%s)", name, WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		ok(0, "%s: exited with status %d", name, WEXITSTATUS(st));
	} else if (!WIFEXITED(st)) {
		ok(0, "%s: ended with wait status %#x", name, st);
	}
}

static inline double tap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run fn in a child process with a timeout of secs seconds (0: the
 * default); see the top of this file. */
static inline void tap_case_timeout(void (*fn)(void), const char *name, unsigned secs)
{
	unsigned limit = secs ? secs : tap_env_uint("TAP_TIMEOUT", TAP_TIMEOUT_DEFAULT);
	struct timespec step = { 0, 1000000 };
	int st = 0, timed_out = 0;
	double deadline;
	pid_t pid, r;

	limit *= tap_env_uint("TAP_TIMEOUT_MULTIPLIER", 1);
	tap_state();
	*tap_failed_before() |= tap_fail;
	tap_fail = 0;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ok(0, "%s: cannot fork: %s", name, strerror(errno));
		return;
	}
	if (pid == 0) {
		/* what the child printed must be out before it can die */
		setvbuf(stdout, NULL, _IOLBF, 0);
		fn();
		fflush(stdout);
		exit(0);
	}
	deadline = tap_now() + limit;
	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			ok(0, "%s: cannot wait for the case: %s", name, strerror(errno));
			return;
		}
		if (tap_now() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			timed_out = 1;
			break;
		}
		nanosleep(&step, NULL);
		if (step.tv_nsec < 64000000)
			step.tv_nsec *= 2;
	}
	fflush(stdout);
	tap_case_report(name, st, timed_out, limit);
	*tap_failed_before() |= tap_fail;
}

static inline void tap_case(void (*fn)(void), const char *name)
{
	tap_case_timeout(fn, name, 0);
}

/* The case named after its function. */
#define TAP_RUN(fn) tap_case((fn), #fn)

#endif
