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
 * if srt dies (srt_command.orphan_dir), "D<path>" srt's proxy directory,
 * likewise, "Q" srt is ending normally, "q" after "Q" this guard is
 * retired (a library host's next command gets a guard of its own, the
 * sandbox goes on). The guard keeps a descriptor of both directories
 * until it exits, so that the costly last close of each (guard-main.c,
 * hold_dir) falls in the guard's end, not srt's: after "Q" it waits for
 * srt to remove them, after "q" it does not. At EOF, which comes when srt
 * is gone or done, it acts on what is left: nothing after "Q" or "q",
 * since srt removes its own placeholders when each command ends
 * (bw_release), so srt never waits for the guard. Killed mid-run, srt
 * leaves the guard its command's orphan work too (the git guard's sweep): done once the
 * reaper has exited. Where the work is a program (srt_command.orphan_argv,
 * srt-gitguard-sweep) the guard is srt-linux-init's guard mode, which
 * starts without copying srt (guard-main.c), and runs that program with
 * the work's descriptors; where it is only a callback into this process's
 * memory (srt_command.orphan_fn: the program is not installed), the guard
 * is a copy of srt (fork). A command without orphan work gets
 * srt-linux-init's guard mode too. Either way srt does not start bwrap
 * before the guard is known to run: a guard that cannot start stops the
 * run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

		setpgid(0, 0); /* a process group of its own: see srt__bwrap_guard_launch */
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
	/* here too, so the group is the guard's before srt goes on (a kill
	 * of srt's group could otherwise come before the child's own call) */
	setpgid(pid, pid);
	st->guard_mid = direct ? 0 : pid;
	return SRT_OK;
}

/* The child of guard_spawn's vfork: it runs on srt's stack and shares its
 * memory until the exec, so it only makes system calls and writes nothing
 * of srt's but *err. Every signal stays blocked from before the vfork
 * through the exec (the mask survives it): no handler of srt's can run
 * here, so none has to be reset first (glibc's posix_spawn asks the kernel
 * about all 64 signals and resets each, about 120 system calls while srt
 * waits for this child), and the guard unblocks them itself once its own
 * dispositions are set (srt__bwrap_guard_main). */
static __attribute__((noinline, noreturn)) void guard_child(const char *helper, char *const *argv,
							   char *const *envp, int rd, int ready,
							   const int *hi, size_t nfds, volatile int *err)
{
	size_t i;

	/* a process group of its own: see srt__bwrap_guard_launch */
	if (setpgid(0, 0) != 0)
		goto fail;
	/* ready must survive the move of rd onto 0 */
	if (ready == 0 && (ready = fcntl(ready, F_DUPFD_CLOEXEC, 3)) < 0)
		goto fail;
	/* dup2 onto itself keeps close-on-exec: clear it instead */
	if (rd == 0 ? fcntl(0, F_SETFD, 0) != 0 : dup2(rd, 0) < 0)
		goto fail;
	if (ready == 1 ? fcntl(1, F_SETFD, 0) != 0 : dup2(ready, 1) < 0)
		goto fail;
	/* the work's descriptors were put above 2 + nfds by the parent */
	for (i = 0; i < nfds; i++)
		if (dup2(hi[i], (int)(3 + i)) < 0)
			goto fail;
	execve(helper, argv, envp);
fail:
	*err = errno ? errno : EIO;
	_exit(127);
}

/* vfork with guard_child as the child, apart from guard_spawn so that
 * none of that function's variables lives across the vfork. */
static __attribute__((noinline)) pid_t guard_vfork(const char *helper, char *const *argv,
						  char *const *envp, int rd, int ready, const int *hi,
						  size_t nfds, volatile int *err)
{
	pid_t pid = vfork();

	if (pid == 0)
		guard_child(helper, argv, envp, rd, ready, hi, nfds, err);
	return pid;
}

/* The guard as srt-linux-init's guard mode, started with vfork (no copy of
 * srt's page tables, no copy-on-write fault for srt afterwards) by
 * guard_child, which reports a failed exec. The records go to its
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
	sigset_t all, old;
	volatile int child_err = 0;
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
	if (pipe2(r, O_CLOEXEC) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: pipe: %s", strerror(errno));
	/* the work's descriptors above every number they go to (3 .. 2 + n),
	 * so no move in the child lands on one not yet moved */
	if (nfds && !(hi = malloc(nfds * sizeof(*hi))))
		err = ENOMEM;
	for (i = 0; !err && i < nfds; i++)
		if ((hi[i] = fcntl(cmd->orphan_fds[i], F_DUPFD_CLOEXEC, (int)(3 + nfds))) < 0) {
			err = errno;
			while (i-- > 0)
				close(hi[i]);
		}
	if (err) {
		free(hi);
		close(r[0]);
		close(r[1]);
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: the orphan work's descriptors: %s",
				    strerror(err));
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = guard_vfork(st->helper, argv, envp, p[0], r[1], hi, nfds, &child_err);
	err = pid < 0 ? errno : child_err;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (i = 0; i < nfds; i++)
		close(hi[i]);
	free(hi);
	close(r[1]);
	if (pid > 0 && err) {
		/* the child has exited: vfork returned */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
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
		/* retired, not ending: the sandbox keeps its directories,
		 * so the guard must not wait for their removal ("q"); "Q"
		 * first, which a guard program of an earlier build, knowing
		 * no "q", needs to take the end of file for srt's normal end
		 * and not for its death */
		srt__bwrap_guard_send(st, 'Q', NULL, NULL);
		srt__bwrap_guard_send(st, 'q', NULL, NULL);
		close(st->guard_fd); /* EOF after Q and q: the guard just exits */
		st->guard_fd = -1;
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
	st->guard_used = 0;
	st->guard_gone = 0;
	st->running = 0; /* that process's commands */
	st->proxy_dir_sent = 0;
	st->proxy_dir_foreign = 1;
	st->owner = getpid();
}

/* Whatever kind, the guard runs in a process group of its own. A harness
 * that ends a command it timed out kills the command's whole process group
 * (kill(-pgid, SIGKILL)), and a terminal sends its Ctrl-C and Ctrl-Z to
 * the foreground one: in srt's group the guard died with srt (or stopped
 * with it), and nothing was undone, the git guard's sweep included. */
int srt__bwrap_guard_launch(struct srt__bwrap_state *st, const struct srt_command *cmd,
			    struct srt_diag *diag)
{
	int p[2], rc;

	if (st->guard_rd < 0)
		return SRT_OK; /* running already */
	p[0] = st->guard_rd;
	p[1] = st->guard_fd;
	if (st->pol && st->pol->debug)
		fprintf(stderr, "[srt debug] cleanup guard: %s\n",
			cmd->orphan_argv ? "srt-linux-init --guard (vfork), the git guard's sweep of write "
					   "roots other than the run's TMPDIR by its program" :
			cmd->orphan_fn ? "a fork of srt (the git guard's sweep of write roots other than the run's TMPDIR)" :
					 "srt-linux-init --guard (vfork)");
	if (cmd->orphan_fn && !cmd->orphan_argv)
		rc = guard_fork(st, cmd, p, is_subreaper(), diag);
	else
		rc = guard_spawn(st, cmd->orphan_argv ? cmd : NULL, p, is_subreaper(), diag);
	if (rc) {
		/* Both ends stay srt's until the command is released
		 * (bw_release closes a pipe whose guard never started). A
		 * command started before its plan may be writing its record
		 * for the guard by this number right now, and a number closed
		 * here goes to the next descriptor srt opens: once the
		 * spawning thread's own pipe for its child's exec error, where
		 * the record read as an exec error, and srt waited for bwrap
		 * forever. */
		return rc;
	}
	close(p[0]);
	st->guard_rd = -1;
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
		if (n != 1 || c != 'G') {
			rc = srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
					  "cleanup guard: %s --guard ended before it was in place (a helper older than this module? reinstall srt); nothing was run",
					  st->helper);
			/* Its pipe has no reader now. Kept, it went on as this
			 * sandbox's guard: the next run found it "running
			 * already", and its spawned bwrap died of SIGPIPE
			 * writing its record there. Closed when the command is
			 * released (bw_release), not here: a command started
			 * before its plan may be writing there by number. */
			if (st->guard_fd >= 0)
				st->guard_gone = 1;
		}
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

int srt__bwrap_guard_send(struct srt__bwrap_state *st, char type, const char *text,
			  struct srt_diag *diag)
{
	char rec[PATH_MAX + 2];
	size_t l, off = 0;

	if (st->guard_fd < 0 || st->guard_gone)
		return SRT_OK;
	l = (size_t)snprintf(rec, sizeof(rec), "%c%s", type, text ? text : "");
	if (l >= sizeof(rec))
		return srt_diag_set(diag, SRT_E_LIMIT, "", "cleanup guard: record too long");
	l++; /* the NUL ends the record */
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

void srt__bwrap_guard_announce(void *ctx, const char *path)
{
	/* a failed write leaves the guard without this path: srt's own
	 * cleanup still removes it unless srt dies too */
	srt__bwrap_guard_send(ctx, 'P', path, NULL);
}
