/* linux-bwrap: the cleanup guard process and the records srt sends it.
 *
 * The guard outlives a srt that is killed (SIGKILL) and undoes what srt
 * would have: it kills the process group of a bwrap still setting up (a
 * bwrap child whose parent died mid-setup waits forever on its eventfd, and
 * --die-with-parent does not reach it yet), then removes the placeholder
 * files. It reads NUL-terminated records from a pipe: "P<path>" a
 * placeholder, "K<pid>" a process group to kill if srt dies, "k<pid>" that
 * group is finished, "R<pid>" bwrap's reaper (PID 1 of the sandbox) of the
 * running command, "X" no orphan work (see srt__bwrap_guard_start), "Q"
 * srt is ending normally. At EOF, which comes when srt is gone or done, it
 * acts on what is left: nothing after "Q", since srt removes its own
 * placeholders when each command ends (bw_release), so srt never waits for
 * the guard. Killed mid-run, srt leaves the guard
 * its command's orphan work too (srt_command.orphan_fn, the git guard's
 * sweep): done once the reaper has exited. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "mounts.h"
#define GUARD_MAX_GROUPS 64

/* Close every descriptor from 3 up but rd and the n in keep. */
static void close_all_but(int rd, const int *keep, size_t n)
{
	unsigned lo = 3;

	for (;;) {
		unsigned next = ~0U;

		/* the lowest kept descriptor at or above lo */
		if ((unsigned)rd >= lo)
			next = (unsigned)rd;
		for (size_t k = 0; k < n; k++)
			if (keep[k] >= 0 && (unsigned)keep[k] >= lo && (unsigned)keep[k] < next)
				next = (unsigned)keep[k];
		if (next == ~0U) {
			close_range(lo, ~0U, 0);
			return;
		}
		if (next > lo)
			close_range(lo, next - 1, 0);
		lo = next + 1;
	}
}

/* Has pid exited (gone, or a zombie)? */
static int exited(pid_t pid)
{
	char path[64], buf[256];
	const char *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	rp = strrchr(buf, ')'); /* the state follows the command name */
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

/* After srt died: the sandbox must be gone before the orphan work looks at
 * the write roots. bwrap's group was just killed; its reaper (bwrap's
 * PID 1, "R"), which bwrap's death kills, exits only once every process
 * of its pid namespace is gone. Without a reaper yet (srt died while bwrap
 * set up), the group leaders (bwrap), then a grace for their reapers'
 * death signal. Waits up to 5 s. */
static void guard_wait_gone(const pid_t *groups, size_t ngroups, pid_t reaper)
{
	for (int t = 0; t < 500; t++) {
		int alive = reaper > 1 && !exited(reaper);

		for (size_t g = 0; reaper <= 1 && !alive && g < ngroups; g++)
			alive = !exited(groups[g]);
		if (!alive)
			break;
		usleep(10000);
	}
	if (reaper <= 1)
		usleep(200000);
}

static void guard_main(int rd, void (*orphan_fn)(void *), void *orphan_ctx,
		       const int *orphan_fds, size_t n_orphan_fds)
{
	struct srt__strv paths = { 0 };
	pid_t groups[GUARD_MAX_GROUPS];
	size_t ngroups = 0, g;
	char buf[PATH_MAX + 2];
	size_t have = 0;
	char proxy_dir[PATH_MAX + 2] = "";
	pid_t reaper = 0;
	int i, quitting = 0;

	for (i = 0; i < 3; i++) {
		int nfd = open("/dev/null", O_RDWR);
		if (nfd >= 0 && nfd != i) {
			dup2(nfd, i);
			close(nfd);
		}
	}
	/* hold nothing of srt's but the pipe (sockets, the info pipe, ...)
	 * and what the orphan work needs (the write roots it sweeps) */
	close_all_but(rd, orphan_fn ? orphan_fds : NULL, orphan_fn ? n_orphan_fds : 0);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	for (;;) {
		ssize_t n = read(rd, buf + have, sizeof(buf) - have);
		char *nul;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nul = memchr(buf, '\0', have))) {
			size_t l = (size_t)(nul - buf) + 1;
			long pid = 0;

			if (buf[0] == 'K' || buf[0] == 'k' || buf[0] == 'R')
				pid = strtol(buf + 1, NULL, 10);
			if (buf[0] == 'P' && buf[1] == '/') {
				srt__strv_push(&paths, buf + 1);
			} else if (buf[0] == 'K' && pid > 1 && ngroups < GUARD_MAX_GROUPS) {
				groups[ngroups++] = (pid_t)pid;
			} else if (buf[0] == 'k') {
				for (g = 0; g < ngroups; g++)
					if (groups[g] == (pid_t)pid)
						groups[g] = groups[--ngroups];
				reaper = 0; /* that command's sandbox is gone */
			} else if (buf[0] == 'R' && pid > 1) {
				reaper = (pid_t)pid;
			} else if (buf[0] == 'D' && buf[1] == '/' && !proxy_dir[0]) {
				snprintf(proxy_dir, sizeof(proxy_dir), "%s", buf + 1);
			} else if (buf[0] == 'Q') {
				quitting = 1;
			} else if (buf[0] == 'X') {
				orphan_fn = NULL; /* stale: see srt__bwrap_guard_start */
			}
			memmove(buf, buf + l, have - l);
			have -= l;
		}
		if (have == sizeof(buf))
			have = 0; /* an over-long record cannot be one we sent */
	}
	/* srt ending normally has removed its placeholders itself */
	if (quitting)
		_exit(0);
	for (g = 0; g < ngroups; g++)
		kill(-groups[g], SIGKILL);
	/* srt died mid-run: what it would have done at the command's end
	 * (the git guard's sweep), once nothing sandboxed is left */
	if (orphan_fn && ngroups) {
		guard_wait_gone(groups, ngroups, reaper);
		orphan_fn(orphan_ctx);
	}
	/* srt died: its proxy directory (socket inside) goes too */
	if (proxy_dir[0]) {
		int dfd = open(proxy_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd >= 0) {
			unlinkat(dfd, "proxy.sock", 0);
			close(dfd);
			rmdir(proxy_dir);
		}
	}
	srt__bwrap_plan_cleanup(&paths);
	_exit(0);
}

/* Would a grandchild come back to this process when its parent exits?
 * It does when this process is a child subreaper (srt's CLI is one). */
static int is_subreaper(void)
{
	int v = 0;

	return prctl(PR_GET_CHILD_SUBREAPER, &v, 0, 0, 0) == 0 && v != 0;
}

/* The guard is a grandchild (a middle process forks it and exits):
 * nobody has to reap it, and srt does not wait for it. A child subreaper
 * (the CLI) gets every grandchild back as its own child when the middle
 * process exits, so there the guard is forked directly: the middle
 * process would change nothing but put its fork and exit, and srt's wait
 * for them (srt__bwrap_guard_check), before bwrap's start, a wait of up
 * to 40 ms on a loaded machine. The guard is a copy of srt made now, so a
 * command with orphan work (cmd->orphan_fn: state of this run) gets a
 * guard of its own; one left by an earlier command ends first. */
int srt__bwrap_guard_start(struct srt__bwrap_state *st, const struct srt_command *cmd,
			   struct srt_diag *diag)
{
	int p[2], direct;
	pid_t pid;

	if (st->guard_fd >= 0 && st->guard_used && cmd->orphan_fn && st->running > 0) {
		/* another command still needs this guard: keep it, without
		 * an earlier run's orphan work (its snapshot would take
		 * repositories made since for the command's) */
		srt__bwrap_guard_send(st, 'X', NULL, NULL);
	} else if (st->guard_fd >= 0 && st->guard_used && cmd->orphan_fn) {
		srt__bwrap_guard_send(st, 'Q', NULL, NULL);
		close(st->guard_fd); /* EOF after Q: the guard just exits */
		st->guard_fd = -1;
		st->guard_used = 0;
		st->proxy_dir_sent = 0;
		srt__bwrap_guard_check(st, NULL);
	}
	if (st->guard_fd >= 0)
		return SRT_OK;
	if (pipe2(p, O_CLOEXEC) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: pipe: %s", strerror(errno));
	direct = is_subreaper();
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		close(p[1]);
		if (!direct) {
			pid_t g = fork();

			if (g != 0)
				_exit(g < 0 ? 1 : 0);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		guard_main(p[0], cmd->orphan_fn, cmd->orphan_ctx, cmd->orphan_fds, cmd->n_orphan_fds);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: fork: %s", strerror(errno));
	}
	/* the middle process is reaped later (srt__bwrap_guard_check): waiting
	 * here would put its exit on every start's critical path. A guard
	 * forked directly has started once fork returned. */
	st->guard_mid = direct ? 0 : pid;
	st->guard_fd = p[1];
	return SRT_OK;
}

/* Did the guard start? Asked once the plan is made, before anything runs:
 * the guard's parent has exited by then, so the wait costs nothing, and a
 * guard that could not be started stops the run instead of being noticed
 * only at teardown (a non-blocking look would pass while that parent still
 * ran). Teardown asks too, for a run that failed before the plan. */
int srt__bwrap_guard_check(struct srt__bwrap_state *st, struct srt_diag *diag)
{
	int status = 0;
	pid_t r;

	if (st->guard_mid <= 0)
		return SRT_OK;
	do
		r = waitpid(st->guard_mid, &status, 0);
	while (r < 0 && errno == EINTR);
	st->guard_mid = 0;
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "cleanup guard: fork: the guard could not be started");
	return SRT_OK;
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
