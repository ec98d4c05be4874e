/* How much of bwrap's start could run beside srt's planning.
 *
 *   argsblock RUNS BWRAP
 *
 * srt plans first and starts bwrap after; bwrap could instead be started
 * first, with `--args FD` naming a pipe it reads its options from, and the
 * plan written into that pipe as it is made. What such a start would gain
 * is bounded by how long bwrap works before it waits for its options: its
 * exec, dynamic loading and early checks. This measures that bound.
 *
 * Each run starts BWRAP --args 3 -- /bin/true (vfork+exec, as srt and
 * bench/floor.c start it), reads /proc/PID/syscall until the process
 * waits in read(3, ...), then writes the options of the startup row's bare
 * bwrap into the pipe, closes it and waits for the exit. It prints the
 * medians of both parts in ms: "before" (the spawn until bwrap waits for
 * its options: the most a start that overlaps planning with bwrap's start
 * can take off) and "after" (the options written until bwrap's exit).
 * The watcher's reads of /proc cost the other CPU, not bwrap, and add at
 * most one read's time (a few us) to "before". Run as root (bare bwrap's
 * options need a user namespace or root). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Is pid waiting in read() on descriptor 3? -1 once it has exited (it
 * never asked for its options: the run is wrong, not slow); *st is then
 * its status. */
static int waits_on_args(pid_t pid, int *st)
{
	char path[64], buf[128], want[32];
	ssize_t n;
	int fd;

	if (waitpid(pid, st, WNOHANG) == pid)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the number of read(2) on this architecture, first argument 0x3 */
	snprintf(want, sizeof(want), "%ld 0x3 ", (long)SYS_read);
	return strncmp(buf, want, strlen(want)) == 0;
}

static int one_run(const char *bwrap, double *before, double *after)
{
	static const char opts[] = "--ro-bind\0/\0/\0--dev\0/dev\0--proc\0/proc\0"
				   "--unshare-net\0--unshare-pid";
	double t0, t1;
	int p[2], st, w;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	t0 = now_ms();
	pid = vfork();
	if (pid == 0) {
		/* descriptor 3 without close-on-exec, whatever pipe2 gave */
		if (p[0] == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(p[0], 3) != 3)
			_exit(126);
		execl(bwrap, bwrap, "--args", "3", "--", "/bin/true", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	/* the yield lets bwrap run on a machine with one CPU */
	while ((w = waits_on_args(pid, &st)) == 0)
		sched_yield();
	t1 = now_ms();
	if (w < 0) {
		close(p[1]);
		return -1;
	}
	if (write(p[1], opts, sizeof(opts)) != (ssize_t)sizeof(opts))
		w = -1;
	close(p[1]);
	if (waitpid(pid, &st, 0) != pid || w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	*before = t1 - t0;
	*after = now_ms() - t1;
	return 0;
}

int main(int argc, char **argv)
{
	double *before, *after;
	int runs, i;

	if (argc != 3 || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: argsblock RUNS BWRAP\n");
		return 2;
	}
	before = calloc((size_t)runs, sizeof(*before));
	after = calloc((size_t)runs, sizeof(*after));
	if (!before || !after)
		return 1;
	for (i = 0; i < runs; i++) {
		if (one_run(argv[2], &before[i], &after[i]) != 0) {
			fprintf(stderr, "argsblock: run %d: %s did not read its options from --args 3 and exit 0\n",
				i + 1, argv[2]);
			return 1;
		}
	}
	printf("%.3f\t%.3f\n", median(before, runs), median(after, runs));
	free(before);
	free(after);
	return 0;
}
