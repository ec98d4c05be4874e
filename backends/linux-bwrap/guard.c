/* linux-bwrap: the cleanup guard process and the records srt sends it.
 *
 * The guard outlives a srt that is killed (SIGKILL) and undoes what srt
 * would have: it kills the process group of a bwrap still setting up (a
 * bwrap child whose parent died mid-setup waits forever on its eventfd, and
 * --die-with-parent does not reach it yet), then removes the placeholder
 * files. It reads NUL-terminated records from a pipe: "P<path>" a
 * placeholder, "K<pid>" a process group to kill if srt dies, "k<pid>" that
 * group is finished, "R<pid>" bwrap's reaper (PID 1 of the sandbox) of the
 * running command, "X" no orphan work (see srt__bwrap_guard_start),
 * "T<dev>:<ino>:<path>" the run's own temporary directory, to be removed
 * if srt dies (srt_command.orphan_dir), "Q"
 * srt is ending normally. At EOF, which comes when srt is gone or done, it
 * acts on what is left: nothing after "Q", since srt removes its own
 * placeholders when each command ends (bw_release), so srt never waits for
 * the guard. Killed mid-run, srt leaves the guard
 * its command's orphan work too (the git guard's sweep): done once the
 * reaper has exited. Where the work is a program (srt_command.orphan_argv,
 * srt-gitguard-sweep) the guard is srt-linux-init's guard mode, which
 * starts without copying srt (guard-main.c), and runs that program with
 * the work's descriptors; where it is only a callback into this process's
 * memory (srt_command.orphan_fn: the program is not installed), the guard
 * is a copy of srt (fork). A command without orphan work gets
 * srt-linux-init's guard mode too. Either way srt does not start bwrap
 * before the guard is known to run: a guard that cannot start stops the
 * run.
 *
 * Where srt is a child subreaper (the CLI), srt-linux-init's guard mode
 * is not started at all while srt lives: a process that shares srt's
 * memory (clone with CLONE_VM: no exec, no copy of srt's page tables)
 * holds the guard's pipe and descriptors and waits (guard_wait). It
 * starts the guard mode, with everything in place as posix_spawn would
 * have put it, when srt is gone (the pipe's last writer closed: the
 * records wait in the pipe, read then as they would have been during the
 * run) or when the pipe is about to fill (srt wakes it: a guard that
 * reads must be there before a write could block). srt ends it at its
 * own normal end. An exec and a static program's start of 1 to 2 ms
 * of CPU went from every start to the starts whose srt died. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "guard-main.h"

/* Would a grandchild come back to this process when its parent exits?
 * It does when this process is a child subreaper (srt's CLI is one). */
static int is_subreaper(void)
{
	int v = 0;

	return prctl(PR_GET_CHILD_SUBREAPER, &v, 0, 0, 0) == 0 && v != 0;
}

/* In the guard that is a copy of srt: close every descriptor from 3 up
 * but keep[]. srt's others include the ends of another command's pipes
 * and sockets (bwrap's options, its info pipe, the helper's status and
 * events), whose readers wait for their end of file: a guard that lived
 * the whole run holding them would stall that command. */
static void close_all_but(int keep0, const int *keep, size_t n)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (fd = 3; fd < max; fd++) {
		size_t i;
		int kept = fd == keep0;

		for (i = 0; !kept && i < n; i++)
			kept = keep[i] == fd;
		if (kept)
			continue;
#ifdef SYS_close_range
		{
			/* the run up to the next kept descriptor, at once */
			int next = (int)max;

			if (keep0 > fd && keep0 < next)
				next = keep0;
			for (i = 0; i < n; i++)
				if (keep[i] > fd && keep[i] < next)
					next = keep[i];
			if (syscall(SYS_close_range, (unsigned)fd, (unsigned)next - 1, 0) == 0) {
				fd = next - 1;
				continue;
			}
		}
#endif
		close(fd);
	}
}

/* The guard as a copy of srt, for a command with orphan work (its
 * callback and context are this process's memory). */
static int guard_fork(struct srt__bwrap_state *st, const struct srt_command *cmd, int p[2],
		      int direct, struct srt_diag *diag)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t none;

		close(p[1]);
		close_all_but(p[0], cmd->orphan_fds, cmd->n_orphan_fds);
		if (!direct) {
			pid_t g = fork();

			if (g != 0)
				_exit(g < 0 ? 1 : 0);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		struct srt__guard_orphan orphan = { cmd->orphan_fn, cmd->orphan_ctx, NULL, cmd->orphan_fds,
						    cmd->n_orphan_fds };

		srt__bwrap_guard_main(p[0], -1, &orphan);
	}
	if (pid < 0)
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: fork: %s", strerror(errno));
	st->guard_mid = direct ? 0 : pid;
	return SRT_OK;
}

/* ---- the guard that starts only when needed --------------------------
 *
 * guard_wait_main runs in a process made by clone(CLONE_VM): srt's own
 * address space, while srt goes on. It must touch nothing srt uses: no C
 * library call (errno and the allocator are srt's thread's), no stack
 * protector (its canary is in that thread's TLS, which a library host's
 * thread may free), no sanitizer's run-time; only the system calls below,
 * its own stack and the block srt made for it (struct guard_wait), which
 * srt unmaps only after it has reaped this process. srt blocks every
 * signal around the clone, so srt's handlers never run here. */
#if defined(__x86_64__) || defined(__aarch64__)
#define GUARD_WAIT 1
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define GW_NO_SSP __attribute__((no_stack_protector))
#endif
#endif
#ifndef GW_NO_SSP
#define GW_NO_SSP __attribute__((optimize("no-stack-protector")))
#endif
#define GW_CHILD GW_NO_SSP __attribute__((no_sanitize_address, no_sanitize("undefined"), noinline))

static inline __attribute__((always_inline)) long gw_sys(long nr, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
	return x0;
#endif
}

/* The kernel's struct sigaction (x86-64 and arm64 alike): handler,
 * flags, restorer, mask. */
struct gw_sigaction {
	unsigned long handler, flags, restorer, mask;
};

struct guard_wait {
	int n;          /* the orphan work's descriptors, as 3 .. 2 + n */
	int rd;         /* the records' pipe, as 0 */
	int devnull;    /* as 1 and 2 (the guard mode moves them to /dev/null itself) */
	int helper;     /* srt-linux-init, O_PATH: executed as itself */
	int wake;       /* a byte, or the hang-up when srt is gone */
	unsigned fd_max; /* close these, past the ones kept, where close_range is missing */
	int *src;       /* the orphan work's descriptors, in order */
	char **argv;
	char *envp[1];
};

static int GW_CHILD guard_wait_main(void *arg)
{
	const struct guard_wait *g = arg;
	/* the terminal's signals reach srt's whole process group: ignored
	 * now (which also drops one pending), and still after the exec, so
	 * the guard mode outlives a srt they kill before it ignores them;
	 * and a Ctrl-Z's stop, held pending here, must not stop the guard
	 * when it starts long after the job was continued */
	const int quiet[7] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU };
	const long zero[2] = { 0, 0 };
	unsigned long none = 0, all = ~0UL;
	struct gw_sigaction ign;
	struct pollfd pf[2];
	int i, k, n = g->n;

	ign.handler = (unsigned long)SIG_IGN;
	ign.flags = 0;
	ign.restorer = 0;
	ign.mask = 0;
	for (i = 0; i < 7; i++)
		gw_sys(SYS_rt_sigaction, quiet[i], (long)&ign, 0, sizeof(ign.mask), 0);
	/* every descriptor as posix_spawn would have placed it; every
	 * other copy of srt's (the write end of this pipe among them) goes */
	if (gw_sys(SYS_dup3, g->rd, 0, 0, 0, 0) < 0 || gw_sys(SYS_dup3, g->devnull, 1, 0, 0, 0) < 0 ||
	    gw_sys(SYS_dup3, g->devnull, 2, 0, 0, 0) < 0)
		gw_sys(SYS_exit_group, 127, 0, 0, 0, 0);
	for (i = 0; i < n; i++)
		if (gw_sys(SYS_dup3, g->src[i], 3 + i, 0, 0, 0) < 0)
			gw_sys(SYS_exit_group, 127, 0, 0, 0, 0);
	if (gw_sys(SYS_dup3, g->helper, 3 + n, O_CLOEXEC, 0, 0) < 0 ||
	    gw_sys(SYS_dup3, g->wake, 4 + n, O_CLOEXEC, 0, 0) < 0)
		gw_sys(SYS_exit_group, 127, 0, 0, 0, 0);
	if (gw_sys(SYS_close_range, 5 + n, ~0U, 0, 0, 0) != 0)
		for (unsigned fd = (unsigned)(5 + n); fd <= g->fd_max; fd++)
			gw_sys(SYS_close, fd, 0, 0, 0, 0);
	/* wait: for the hang-up of the pipe (srt gone: its records wait in
	 * the pipe) or of the wake pipe, or for a byte on the latter */
	for (;;) {
		long r;

		pf[0].fd = 0;
		pf[0].events = 0;
		pf[0].revents = 0;
		pf[1].fd = 4 + n;
		pf[1].events = POLLIN;
		pf[1].revents = 0;
		r = gw_sys(SYS_ppoll, (long)pf, 2, 0, 0, 0);
		if (r != -EINTR)
			break;
	}
	/* srt's handlers (the C library's own among them) are in this
	 * table too: none may run here, so a signal pending when the mask
	 * goes takes its default action instead */
	ign.handler = (unsigned long)SIG_DFL;
	for (i = 1; i <= 64; i++) {
		for (k = 0; k < 7 && quiet[k] != i; k++)
			;
		if (k == 7 && i != SIGKILL && i != SIGSTOP)
			gw_sys(SYS_rt_sigaction, i, (long)&ign, 0, sizeof(ign.mask), 0);
	}
	/* and what waits pending goes unread: the guard starts whatever
	 * was sent to this process while it waited (bounded: a queue of
	 * real-time signals ends, and 4096 takes are plenty) */
	for (i = 0; i < 4096 && gw_sys(SYS_rt_sigtimedwait, (long)&all, 0, (long)zero, sizeof(all), 0) > 0; i++)
		;
	gw_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof(none), 0);
	gw_sys(SYS_execveat, 3 + n, (long)"", (long)g->argv, (long)g->envp, AT_EMPTY_PATH);
	gw_sys(SYS_exit_group, 127, 0, 0, 0, 0);
	return 127;
}

#define GUARD_WAIT_STACK (64 * 1024)

/* Start the waiting process for a guard whose command line is argv (argv[0]
 * srt-linux-init) and whose records come on rd, with the orphan work's
 * descriptors src[0 .. n-1] (placed at or above 3 + n). 0, or -1 with
 * errno: then nothing was started and the caller spawns the guard mode at
 * once. */
static int guard_wait(struct srt__bwrap_state *st, char *const *argv, int rd, const int *src, size_t n)
{
	size_t argc = 0, strs = 0, len, i, off, av;
	struct guard_wait *g;
	unsigned long all, old = 0;
	int pidfd = -1, w[2] = { -1, -1 }, fds[3] = { -1, -1, -1 }, e, floor_fd;
	struct rlimit rl;
	char *mem, *p;
	pid_t pid;

	while (argv[argc])
		strs += strlen(argv[argc++]) + 1;
	/* the block: g, src[n], argv[argc + 1] (aligned for a pointer),
	 * the strings, then the stack at its end */
	av = (sizeof(*g) + n * sizeof(int) + sizeof(char *) - 1) / sizeof(char *) * sizeof(char *);
	off = av + (argc + 1) * sizeof(char *);
	len = (off + strs + 15) / 16 * 16;
	len = (len + GUARD_WAIT_STACK + 4095) / 4096 * 4096;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	g = (struct guard_wait *)(void *)mem;
	g->n = (int)n;
	g->src = (int *)(void *)(mem + sizeof(*g));
	g->argv = (char **)(void *)(mem + av);
	p = mem + off;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(p, argv[i], l);
		g->argv[i] = p;
		p += l;
	}
	g->argv[argc] = NULL;
	g->envp[0] = NULL;
	for (i = 0; i < n; i++)
		g->src[i] = src[i];
	g->fd_max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1U << 20)
			    ? (unsigned)rl.rlim_cur : (1U << 20);
	/* every descriptor the child moves starts above every number it
	 * moves one to (0 .. 4 + n) */
	floor_fd = (int)(5 + n);
	if (pipe2(w, O_CLOEXEC) != 0)
		goto fail;
	fds[0] = fcntl(rd, F_DUPFD_CLOEXEC, floor_fd);
	fds[1] = open("/dev/null", O_RDWR | O_CLOEXEC);
	fds[2] = open(st->helper, O_PATH | O_CLOEXEC);
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0)
		goto fail;
	g->rd = fds[0];
	if ((g->devnull = fcntl(fds[1], F_DUPFD_CLOEXEC, floor_fd)) < 0)
		goto fail;
	close(fds[1]);
	fds[1] = g->devnull;
	if ((g->helper = fcntl(fds[2], F_DUPFD_CLOEXEC, floor_fd)) < 0)
		goto fail;
	close(fds[2]);
	fds[2] = g->helper;
	if ((g->wake = fcntl(w[0], F_DUPFD_CLOEXEC, floor_fd)) < 0)
		goto fail;
	close(w[0]);
	w[0] = g->wake;
	/* every signal blocked, the C library's own too (pthread_sigmask
	 * leaves those out), for the child to inherit; this thread's mask
	 * is back right after */
	all = ~0UL;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all));
	pid = clone(guard_wait_main, mem + len, CLONE_VM | CLONE_PIDFD | SIGCHLD, g, &pidfd);
	e = errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	errno = e;
	if (pid < 0)
		goto fail;
	for (i = 0; i < 3; i++)
		close(fds[i]);
	close(w[0]);
	st->wait_pid = pid;
	st->wait_pidfd = pidfd;
	st->wait_wake = w[1];
	st->wait_mem = mem;
	st->wait_len = len;
	st->wait_cap = fcntl(st->guard_fd, F_GETPIPE_SZ);
	srt__bwrap_guard_reserve(st, 0); /* what was written before */
	return 0;
fail:
	e = errno;
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (w[0] >= 0)
		close(w[0]);
	if (w[1] >= 0)
		close(w[1]);
	munmap(mem, len);
	errno = e;
	return -1;
}
#endif

/* Start the guard now if a process waits to (the pipe is about to fill). */
static void guard_wake(struct srt__bwrap_state *st)
{
	ssize_t w;

	if (st->wait_wake < 0)
		return;
	do
		w = write(st->wait_wake, "w", 1);
	while (w < 0 && errno == EINTR);
	close(st->wait_wake);
	st->wait_wake = -1;
}

/* End and reap the waiting process (or the guard mode it started), at
 * srt's normal end: nothing is left for a guard to do. */
static void guard_wait_end(struct srt__bwrap_state *st)
{
	if (st->wait_pid <= 0)
		return;
	if (st->wait_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, st->wait_pidfd, SIGKILL, NULL, 0);
	while (waitpid(st->wait_pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (st->wait_pidfd >= 0)
		close(st->wait_pidfd);
	if (st->wait_wake >= 0)
		close(st->wait_wake);
	munmap(st->wait_mem, st->wait_len);
	st->wait_pid = 0;
	st->wait_pidfd = st->wait_wake = -1;
	st->wait_mem = NULL;
	st->wait_len = 0;
}

/* The guard as srt-linux-init's guard mode, started with posix_spawn:
 * glibc's is a vfork (no copy of srt's page tables, no copy-on-write fault
 * for srt afterwards) and reports a failed exec. The records go to its
 * descriptor 0; it says "G" on its descriptor 1 once it is in place, which
 * srt__bwrap_guard_check waits for. A command's orphan work as a program
 * (cmd->orphan_argv; cmd NULL: none) goes on its command line, with the
 * work's descriptors as its 3, 4, ... */
#define GUARD_ARGV_MAX 64
static int guard_spawn(struct srt__bwrap_state *st, const struct srt_command *cmd, int p[2],
		       int direct, struct srt_diag *diag)
{
	char *argv[GUARD_ARGV_MAX], keep[24];
	char *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	int r[2], err = 0, *hi = NULL;
	size_t n = 0, i, nfds = cmd ? cmd->n_orphan_fds : 0;
	pid_t pid;

	argv[n++] = st->helper;
	argv[n++] = (char *)"--guard";
	if (!direct)
		argv[n++] = (char *)"--detach";
	if (cmd) {
		snprintf(keep, sizeof(keep), "%zu", nfds);
		argv[n++] = (char *)"--keep";
		argv[n++] = keep;
		argv[n++] = (char *)"--";
		for (i = 0; cmd->orphan_argv[i]; i++) {
			if (n + 1 >= GUARD_ARGV_MAX)
				return srt_diag_set(diag, SRT_E_LIMIT, "", "cleanup guard: the orphan work's "
						    "command line is longer than %d words", GUARD_ARGV_MAX - 8);
			argv[n++] = cmd->orphan_argv[i];
		}
		if (!nfds || !cmd->orphan_argv[0] || cmd->orphan_argv[0][0] != '/')
			return srt_diag_set(diag, SRT_E_INVAL, "", "cleanup guard: the orphan work's "
					    "program is not an absolute path with descriptors");
	}
	argv[n] = NULL;
	/* the work's descriptors above every number they go to (3 .. 2 + n,
	 * and 4 + n for a waiting process), so no move in the child lands
	 * on one not yet moved */
	if (nfds && !(hi = malloc(nfds * sizeof(*hi))))
		err = ENOMEM;
	for (i = 0; !err && i < nfds; i++)
		if ((hi[i] = fcntl(cmd->orphan_fds[i], F_DUPFD_CLOEXEC, (int)(5 + nfds))) < 0) {
			err = errno;
			while (i-- > 0)
				close(hi[i]);
		}
	if (err) {
		free(hi);
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: the orphan work's descriptors: %s",
				    strerror(err));
	}
#ifdef GUARD_WAIT
	if (direct) {
		if (guard_wait(st, argv, p[0], hi, nfds) == 0) {
			for (i = 0; i < nfds; i++)
				close(hi[i]);
			free(hi);
			st->guard_mid = 0;
			return SRT_OK;
		}
		if (st->pol && st->pol->debug)
			fprintf(stderr, "[srt debug] cleanup guard: no process to wait in (%s): started at once\n",
				strerror(errno));
	}
#endif
	if (pipe2(r, O_CLOEXEC) != 0) {
		err = errno;
		for (i = 0; i < nfds; i++)
			close(hi[i]);
		free(hi);
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: pipe: %s", strerror(err));
	}
	sigemptyset(&none);
	err = posix_spawn_file_actions_init(&fa);
	if (!err && (err = posix_spawnattr_init(&at)) != 0)
		posix_spawn_file_actions_destroy(&fa);
	if (err) {
		for (i = 0; i < nfds; i++)
			close(hi[i]);
		free(hi);
		close(r[0]);
		close(r[1]);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "cleanup guard: posix_spawn: %s", strerror(err));
	}
	err = posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, r[1], 1);
	for (i = 0; !err && i < nfds; i++)
		err = posix_spawn_file_actions_adddup2(&fa, hi[i], (int)(3 + i));
	if (!err && !(err = posix_spawnattr_setsigmask(&at, &none)) &&
	    !(err = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK)))
		err = posix_spawn(&pid, st->helper, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	for (i = 0; i < nfds; i++)
		close(hi[i]);
	free(hi);
	close(r[1]);
	if (err) {
		close(r[0]);
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
				    "cleanup guard: cannot start %s --guard: %s; nothing was run",
				    st->helper, strerror(err));
	}
	st->guard_mid = direct ? 0 : pid;
	st->guard_ready = r[0];
	return SRT_OK;
}

/* The guard is a grandchild (a middle process forks it and exits):
 * nobody has to reap it, and srt does not wait for it. A child subreaper
 * (the CLI) gets every grandchild back as its own child when the middle
 * process exits, so there the guard is started directly: the middle
 * process would change nothing but put its fork and exit, and srt's wait
 * for them (srt__bwrap_guard_check), before bwrap's start, a wait of up
 * to 40 ms on a loaded machine. A command with orphan work (cmd->orphan_fn:
 * state of this run, in this process's memory) gets a guard of its own,
 * a copy of srt made now; one left by an earlier command ends first. Any
 * other guard is srt-linux-init's guard mode (guard_spawn). */
int srt__bwrap_guard_open(struct srt__bwrap_state *st, const struct srt_command *cmd,
			  struct srt_diag *diag)
{
	int p[2];

	if (st->guard_fd >= 0 && st->guard_used && cmd->orphan_fn && st->running > 0) {
		/* another command still needs this guard: keep it, without
		 * an earlier run's orphan work (its snapshot would take
		 * repositories made since for the command's) */
		srt__bwrap_guard_send(st, 'X', NULL, NULL);
	} else if (st->guard_fd >= 0 && st->guard_used && cmd->orphan_fn) {
		srt__bwrap_guard_quit(st);
		st->guard_used = 0;
		st->proxy_dir_sent = 0;
		srt__bwrap_guard_check(st, NULL);
	}
	if (st->guard_fd >= 0)
		return SRT_OK;
	if (pipe2(p, O_CLOEXEC) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: pipe: %s", strerror(errno));
	st->guard_rd = p[0];
	st->guard_fd = p[1];
	st->guard_bytes = 0;
	return SRT_OK;
}

void srt__bwrap_guard_adopt(struct srt__bwrap_state *st)
{
	if (st->owner == getpid())
		return;
	if (st->guard_rd >= 0)
		close(st->guard_rd);
	if (st->guard_fd >= 0)
		close(st->guard_fd);
	if (st->guard_ready >= 0)
		close(st->guard_ready);
	st->guard_rd = st->guard_fd = st->guard_ready = -1;
	st->guard_mid = 0; /* the other process's child */
	if (st->wait_pidfd >= 0)
		close(st->wait_pidfd);
	if (st->wait_wake >= 0)
		close(st->wait_wake);
	if (st->wait_mem)
		munmap(st->wait_mem, st->wait_len); /* this copy of it: the other's is the one in use */
	st->wait_pid = 0; /* the other process's, sharing the other's memory */
	st->wait_pidfd = st->wait_wake = -1;
	st->wait_mem = NULL;
	st->wait_len = 0;
	st->guard_used = 0;
	st->running = 0; /* that process's commands */
	st->proxy_dir_sent = 0;
	st->proxy_dir_foreign = 1;
	st->owner = getpid();
}

int srt__bwrap_guard_launch(struct srt__bwrap_state *st, const struct srt_command *cmd,
			    struct srt_diag *diag)
{
	int p[2], rc, direct;

	if (st->guard_rd < 0)
		return SRT_OK; /* running already */
	p[0] = st->guard_rd;
	p[1] = st->guard_fd;
	direct = is_subreaper();
	if (st->pol && st->pol->debug)
		fprintf(stderr, "[srt debug] cleanup guard: %s%s\n",
			cmd->orphan_argv ? "srt-linux-init --guard, the git guard's sweep of write "
					   "roots other than the run's TMPDIR by its program" :
			cmd->orphan_fn ? "a fork of srt (the git guard's sweep of write roots other than the run's TMPDIR)" :
					 "srt-linux-init --guard",
			cmd->orphan_fn && !cmd->orphan_argv ? "" :
#ifdef GUARD_WAIT
			direct ? " (started only if srt dies or its pipe fills: a process sharing srt's memory waits till then)" :
#endif
				 " (posix_spawn)");
	if (cmd->orphan_fn && !cmd->orphan_argv)
		rc = guard_fork(st, cmd, p, direct, diag);
	else
		rc = guard_spawn(st, cmd->orphan_argv ? cmd : NULL, p, direct, diag);
	close(p[0]);
	st->guard_rd = -1;
	if (rc) {
		close(p[1]);
		st->guard_fd = -1;
		return rc;
	}
	/* a middle process is reaped later (srt__bwrap_guard_check): waiting
	 * here would put its exit on every start's critical path */
	return SRT_OK;
}

int srt__bwrap_guard_start(struct srt__bwrap_state *st, const struct srt_command *cmd,
			   struct srt_diag *diag)
{
	int rc = srt__bwrap_guard_open(st, cmd, diag);

	return rc ? rc : srt__bwrap_guard_launch(st, cmd, diag);
}

/* Did the guard start? Asked once the plan is made, before anything runs:
 * the guard's parent has exited by then, so the wait costs nothing, and a
 * guard that could not be started stops the run instead of being noticed
 * only at teardown (a non-blocking look would pass while that parent still
 * ran). Teardown asks too, for a run that failed before the plan. */
int srt__bwrap_guard_check(struct srt__bwrap_state *st, struct srt_diag *diag)
{
	int status = 0, rc = SRT_OK;
	pid_t r;

	if (st->guard_ready >= 0) {
		char c = 0;
		ssize_t n;

		do
			n = read(st->guard_ready, &c, 1);
		while (n < 0 && errno == EINTR);
		close(st->guard_ready);
		st->guard_ready = -1;
		if (n != 1 || c != 'G')
			rc = srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
					  "cleanup guard: %s --guard ended before it was in place (a helper older than this module? reinstall srt); nothing was run",
					  st->helper);
	}
	if (st->guard_mid <= 0)
		return rc;
	do
		r = waitpid(st->guard_mid, &status, 0);
	while (r < 0 && errno == EINTR);
	st->guard_mid = 0;
	if (!rc && (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		rc = srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: fork: the guard could not be started");
	return rc;
}

/* Nobody reads the pipe while the guard waits to start, so it starts
 * before a write could block. A pipe holds wait_cap / 4096 pages, and a
 * write that does not fit in the last page's free room starts a new one:
 * the room left behind is smaller than that write, so the pages in use
 * never take more than twice the bytes written (plus the last page). */
void srt__bwrap_guard_reserve(struct srt__bwrap_state *st, size_t bytes)
{
	size_t pages = st->wait_cap > 0 ? (size_t)st->wait_cap / 4096 : 0;

	st->guard_bytes += bytes;
	if (st->wait_wake >= 0 && (pages < 2 || 2 * st->guard_bytes + 4096 > (pages - 1) * 4096))
		guard_wake(st);
}

int srt__bwrap_guard_send(struct srt__bwrap_state *st, char type, const char *text,
			  struct srt_diag *diag)
{
	char rec[PATH_MAX + 2];
	size_t l, off = 0;

	if (st->guard_fd < 0)
		return SRT_OK;
	l = (size_t)snprintf(rec, sizeof(rec), "%c%s", type, text ? text : "");
	if (l >= sizeof(rec))
		return srt_diag_set(diag, SRT_E_LIMIT, "", "cleanup guard: record too long");
	l++; /* the NUL ends the record */
	srt__bwrap_guard_reserve(st, l);
	while (off < l) {
		ssize_t w = write(st->guard_fd, rec + off, l - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: write: %s", strerror(errno));
		off += (size_t)w;
	}
	return SRT_OK;
}

void srt__bwrap_guard_quit(struct srt__bwrap_state *st)
{
	if (st->guard_fd < 0)
		return;
	srt__bwrap_guard_send(st, 'Q', NULL, NULL);
#ifdef GUARD_WAIT
	guard_wait_end(st);
#endif
	close(st->guard_fd); /* EOF after Q: the guard just exits */
	st->guard_fd = -1;
}

void srt__bwrap_guard_announce(void *ctx, const char *path)
{
	/* a failed write leaves the guard without this path: srt's own
	 * cleanup still removes it unless srt dies too */
	srt__bwrap_guard_send(ctx, 'P', path, NULL);
}
