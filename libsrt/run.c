/* Spawning and waiting (POSIX only: vfork, execve, sigtimedwait, waitpid). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <srt/backend.h>

#include "common/platform.h"
#include "platform.h"
#include "run.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

static size_t name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq ? (size_t)(eq - kv) : strlen(kv);
}

int srt__env_build(char *const *base, const struct srt__strv *set, char ***out)
{
	size_t nb = 0, n = 0, i, j;
	char **env;

	while (base && base[nb])
		nb++;
	env = calloc(nb + (set ? set->n : 0) + 1, sizeof(*env));
	if (!env)
		return SRT_E_NOMEM;
	for (i = 0; i < nb; i++) {
		size_t l = name_len(base[i]);
		int replaced = 0;
		for (j = 0; set && j < set->n; j++)
			if (name_len(set->v[j]) == l && !strncmp(set->v[j], base[i], l))
				replaced = 1;
		if (replaced)
			continue;
		if (!(env[n++] = strdup(base[i])))
			goto nomem;
	}
	for (j = 0; set && j < set->n; j++)
		if (!(env[n++] = strdup(set->v[j])))
			goto nomem;
	*out = env;
	return SRT_OK;
nomem:
	srt__env_free(env);
	return SRT_E_NOMEM;
}

void srt__env_free(char **env)
{
	size_t i;

	if (!env)
		return;
	for (i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* The child between vfork() and execve(): it shares srt's memory (and
 * runs on its stack) until the exec, so it only makes system calls and
 * touches nothing of the parent's but what it reads; it never returns.
 * Its own descriptor table, signal dispositions and limits are copies. */
static __attribute__((noinline, noreturn)) void spawn_child(const struct srt__spawn_args *sp,
							    pid_t parent, int errfd)
{
	sigset_t none;
	size_t i;
	int k, e;

	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		signal(forwarded[i], SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (sp->new_pgrp && setpgid(0, 0) != 0)
		goto fail;
	/* Die with srt even before the sandbox's own die-with-parent is
	 * armed (bwrap sets it only once it runs); if srt is already gone,
	 * do not start at all. */
	if (srt__plat_die_with_parent() != 0)
		_exit(127);
	if (getppid() != parent)
		_exit(127);
	if (sp->announce_fd > 2) {
		/* "K<pid>\0", formatted by hand: no stdio in this child */
		char rec[32], dig[24];
		long v = (long)getpid();
		int l = 0, n = 0;

		do
			dig[n++] = (char)('0' + v % 10);
		while ((v /= 10) > 0 && n < (int)sizeof(dig));
		rec[l++] = 'K';
		while (n > 0)
			rec[l++] = dig[--n];
		rec[l++] = '\0';
		/* shorter than PIPE_BUF: one atomic write */
		if (write(sp->announce_fd, rec, (size_t)l) != l)
			goto fail;
		/* before the guard for the OOM killer; a score that stays as
		 * it was (none on this system) does not stop the run */
		if (srt__os_oom_target(SRT_GUARD_OOM_RAISE, &k) == 0)
			srt__os_oom_at_least(k);
	}
	/* Nothing of the caller's but stdin/stdout/stderr and the descriptors
	 * the backend asked for reaches the sandbox: an inherited directory
	 * descriptor would open every path the mounts hide
	 * (/proc/self/fd/N/...). */
	if (srt__plat_cloexec_from(3) != 0)
		goto fail;
	if (sp->nofile_soft) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > sp->nofile_soft) {
			rl.rlim_cur = (rlim_t)sp->nofile_soft;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* close-on-exec is the only descriptor flag: one call each */
	for (k = 0; k < sp->n_keep_fds; k++)
		fcntl(sp->keep_fds[k], F_SETFD, 0);
	if (sp->null_fd >= 3) {
		int nfd = open("/dev/null", O_RDONLY);
		if (nfd < 0 || (nfd != sp->null_fd && dup2(nfd, sp->null_fd) < 0))
			goto fail;
		if (nfd != sp->null_fd)
			close(nfd);
	}
	srt__plat_execvpe(sp->argv[0], sp->argv, sp->envp);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0) {
		/* nothing more to do: the parent sees EOF and exit 127 */
	}
	_exit(127);
}

int srt__spawn(const struct srt__spawn_args *sp, pid_t *pid, struct srt_diag *diag)
{
	pid_t p, parent;
	int errpipe[2];
	int child_errno = 0;
	ssize_t r;

	/* The child reports an exec failure through a CLOEXEC pipe, so srt can
	 * say why instead of returning a bare 127. */
	if (srt__os_pipe(errpipe, false) != 0)
		return srt_diag_set(diag, SRT_E_IO, sp->argv[0], "cannot start \"%s\": pipe: %s", sp->argv[0],
				    strerror(errno));
	parent = getpid();
	/* vfork: no copy of srt's page tables for a child that only execs,
	 * and no copy-on-write faults in srt afterwards (a plain fork cost
	 * about half a millisecond of every start here). srt resumes once
	 * the child has exec'd or failed. */
	p = vfork();
	if (p == 0)
		spawn_child(sp, parent, errpipe[1]);
	if (p < 0) {
		int e = errno;
		close(errpipe[0]);
		close(errpipe[1]);
		return srt_diag_set(diag, SRT_E_IO, sp->argv[0], "cannot start \"%s\": vfork: %s", sp->argv[0],
				    strerror(e));
	}
	close(errpipe[1]);
	/* vfork returns once the child has exec'd or exited, and a child
	 * that failed wrote its errno before it exited: what is in the pipe
	 * now is all there will be. Waiting for its end of file instead would
	 * wait for every process another thread of the caller forked
	 * meanwhile (a copy of the write end lives in each until it execs). */
	fcntl(errpipe[0], F_SETFL, O_NONBLOCK);
	do
		r = read(errpipe[0], &child_errno, sizeof(child_errno));
	while (r < 0 && errno == EINTR);
	close(errpipe[0]);
	if (r == (ssize_t)sizeof(child_errno)) {
		waitpid(p, NULL, 0);
		if (diag)
			diag->saved_errno = child_errno;
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, sp->argv[0],
				    "cannot execute \"%s\": %s", sp->argv[0], strerror(child_errno));
	}
	*pid = p;
	return SRT_OK;
}

struct srt__spawner {
	struct srt__spawn_args sp;
	int keep[16];
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state; /* 0 spawning, 1 spawned (rc, pid, diag), 2 told to end */
	int rc;
	pid_t pid;
	struct srt_diag diag;
};

static void *spawner_main(void *arg)
{
	struct srt__spawner *s = arg;
	struct srt_diag d;
	pid_t pid = 0;
	int rc;

	memset(&d, 0, sizeof(d));
	rc = srt__spawn(&s->sp, &pid, &d);
	/* the child has its copy now, or never will */
	if (s->sp.close_after_spawn > 2)
		close(s->sp.close_after_spawn);
	pthread_mutex_lock(&s->mu);
	s->rc = rc;
	s->pid = pid;
	s->diag = d;
	s->state = 1;
	pthread_cond_broadcast(&s->cv);
	while (s->state != 2)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int srt__spawn_begin(const struct srt__spawn_args *sp, struct srt__spawner **out,
		     struct srt_diag *diag)
{
	struct srt__spawner *s;
	int e;

	if (sp->n_keep_fds < 0 || (size_t)sp->n_keep_fds > sizeof(s->keep) / sizeof(s->keep[0]))
		return srt_diag_set(diag, SRT_E_LIMIT, "", "spawn: %d descriptors to keep (limit %zu)",
				    sp->n_keep_fds, sizeof(s->keep) / sizeof(s->keep[0]));
	if (!(s = calloc(1, sizeof(*s))))
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	s->sp = *sp;
	if (sp->n_keep_fds)
		memcpy(s->keep, sp->keep_fds, (size_t)sp->n_keep_fds * sizeof(int));
	s->sp.keep_fds = s->keep;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* the thread inherits the caller's signal mask: signals forwarded
	 * to the command stay blocked in it, as the caller's contract asks */
	e = pthread_create(&s->thread, NULL, spawner_main, s);
	if (e) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return srt_diag_set(diag, SRT_E_IO, sp->argv[0], "cannot start \"%s\": a thread to start it: %s",
				    sp->argv[0], strerror(e));
	}
	*out = s;
	return SRT_OK;
}

int srt__spawn_wait(struct srt__spawner *s, pid_t *pid, struct srt_diag *diag)
{
	int rc;

	pthread_mutex_lock(&s->mu);
	while (s->state == 0)
		pthread_cond_wait(&s->cv, &s->mu);
	rc = s->rc;
	*pid = s->pid;
	if (rc && diag)
		*diag = s->diag;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void srt__spawn_end(struct srt__spawner *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	while (s->state == 0) /* never end the thread inside its vfork */
		pthread_cond_wait(&s->cv, &s->mu);
	s->state = 2;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static int decode_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

int srt__wait(pid_t pid, const volatile pid_t *signal_pid, int forward,
	      int *status, struct srt_diag *diag)
{
	sigset_t set, old;
	size_t i;
	int ws;
	pid_t r;

	if (!forward) {
		do
			r = waitpid(pid, &ws, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return srt_diag_set(diag, SRT_E_IO, "", "waitpid: %s", strerror(errno));
		*status = decode_status(ws);
		return SRT_OK;
	}

	/* The caller has SIGCHLD blocked in every thread (srt_run_options
	 * contract), so it arrives here; the timeout is only a safety net for a
	 * caller that broke that contract (then a SIGCHLD taken by another
	 * thread would otherwise be lost). */
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (;;) {
		struct timespec ts = { 1, 0 };
		int sig;

		r = waitpid(pid, &ws, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			return srt_diag_set(diag, SRT_E_IO, "", "waitpid: %s", strerror(errno));
		}
		sig = srt__plat_sigtimedwait(&set, &ts);
		if (sig <= 0 || sig == SIGCHLD)
			continue;
		{
			pid_t target = signal_pid && *signal_pid > 0 ? *signal_pid : pid;
			kill(target, sig);
			/* a stopped command keeps a terminating signal pending:
			 * continue it, as kill(1) and timeout(1) users expect
			 * (linux-bwrap's helper does the same below it) */
			if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
				kill(target, SIGCONT);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*status = decode_status(ws);
	return SRT_OK;
}

/* The pids of this process's children, up to cap; -1 when the system
 * cannot tell: then nothing can be said of the children, and the caller
 * must not take that for none. */
static ssize_t list_children(pid_t *out, size_t cap)
{
	return srt__plat_children(out, cap);
}

/* See run.h. First every child is stopped, round after round, until a
 * round finds none that is not stopped yet: a stopped process cannot fork,
 * so a chain of processes that fork and exit cannot stay ahead of the
 * kills. Then all are killed and reaped. Bounded in rounds; 0, or -1 when
 * children were still appearing at the bound or could not be listed. */
int srt__end_children(void)
{
	pid_t stopped[4096];
	size_t ns = 0;
	int round, fresh = 1;

	for (round = 0; round < 1000 && fresh; round++) {
		pid_t kids[512];
		ssize_t n;
		size_t i, j;

		/* the ones that exited: a chain leaves one at every step, and
		 * unreaped they would crowd the live ones out of the list */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = list_children(kids, sizeof(kids) / sizeof(kids[0]));
		if (n < 0)
			return -1;
		fresh = 0;
		for (i = 0; i < (size_t)n; i++) {
			for (j = 0; j < ns && stopped[j] != kids[i]; j++)
				;
			if (j < ns)
				continue;
			kill(kids[i], SIGSTOP);
			fresh = 1;
			if (ns < sizeof(stopped) / sizeof(stopped[0]))
				stopped[ns++] = kids[i];
		}
	}
	for (round = 0; round < 1000; round++) {
		pid_t kids[512];
		ssize_t n = list_children(kids, sizeof(kids) / sizeof(kids[0]));
		size_t i;

		if (n <= 0)
			return n < 0 ? -1 : 0;
		for (i = 0; i < (size_t)n; i++)
			kill(kids[i], SIGKILL);
		for (i = 0; i < (size_t)n; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
	return -1;
}
