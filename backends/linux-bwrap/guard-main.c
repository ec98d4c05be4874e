/* linux-bwrap: the cleanup guard's own process: the record loop, and what
 * it undoes when srt is gone (guard.c describes the records and starts
 * it). Also srt-linux-init's guard mode, the program srt starts as its
 * guard when the command has no orphan work: a fork of srt copies its
 * page tables (about 3 ms here with srt's libraries mapped) and makes
 * every page srt writes afterwards a copy-on-write fault, while a vfork
 * and exec of this static program copies nothing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <srt/backend.h>

#include "common/platform.h"
#include "common/rmtree.h"
#include "guard-main.h"
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
 * the write roots and the run's directory is removed. bwrap's group was
 * just killed; its reaper (bwrap's
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

/* The orphan work as a program: fds[i] as descriptor 3 + i, nothing else
 * past 2 (the guard's are /dev/null), waited for. */
static void run_orphan_program(char *const *argv, const int *fds, size_t n)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int *hi = malloc(n * sizeof(*hi));
		size_t i;

		/* moved up first, so no descriptor lands on one not yet moved */
		for (i = 0; hi && i < n; i++)
			if ((hi[i] = fcntl(fds[i], F_DUPFD, (int)(3 + n))) < 0)
				_exit(127);
		for (i = 0; hi && i < n; i++)
			if (dup2(hi[i], (int)(3 + i)) < 0)
				_exit(127);
		if (!hi)
			_exit(127);
		close_range((unsigned)(3 + n), ~0U, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* A descriptor of one of srt's directories for this run (the proxy's,
 * "D"; the run's TMPDIR, "T", only when it is still the directory srt
 * named, dev and ino; 0 and 0: any), or -1. The guard holds it until it
 * exits and never uses it: it is there so that srt's own removal of the
 * directory at the run's end is not the last reference to it. The last
 * reference's close frees the inode and its block, and on ext4 mounted
 * with `discard` that close waits for the disk's discard of the block
 * (0.25 to 0.9 ms a directory on the machine bench/README.md describes):
 * held here, that wait comes at the guard's exit, after srt has ended,
 * instead of in srt's end. A directory that is already gone is simply
 * not held. */
static int hold_dir(const char *path, unsigned long long dev, unsigned long long ino)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (dev || ino) &&
	    (fstat(fd, &st) != 0 || (unsigned long long)st.st_dev != dev ||
	     (unsigned long long)st.st_ino != ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Has the directory fd holds been removed (or is fd -1)? Its link count
 * says so where the filesystem keeps one for directories; its path, which
 * no longer leads to it, says so everywhere. */
static int held_gone(int fd, const char *path)
{
	struct stat st, now;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_nlink == 0)
		return 1;
	return lstat(path, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino;
}

/* The guard's end: the references hold_dir took go with it. After srt's
 * "Q" the guard has its end of file before srt removes the directories
 * (srt's backend ends before its proxy and policy are released), so when
 * srt is ending normally (wait) the guard first waits, a millisecond at a
 * time and for 200 ms at most, until both are removed: exiting sooner
 * would hand the last reference back to srt. Past the bound (a srt held
 * up by load, a file system that will not let the directory go) it exits
 * all the same; srt then pays the close itself, as without the hold. A
 * guard retired while its sandbox lives on ("q") does not wait. */
static __attribute__((noreturn)) void release_held(int proxy, const char *proxy_path, int run,
							const char *run_path, int wait)
{
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += 200 * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (wait && !(held_gone(proxy, proxy_path) && held_gone(run, run_path)) &&
	       clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
	       (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec))) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	if (proxy >= 0)
		close(proxy);
	if (run >= 0)
		close(run);
	_exit(0);
}

void srt__bwrap_guard_main(int rd, int ready_fd, const struct srt__guard_orphan *orphan)
{
	void (*orphan_fn)(void *) = orphan ? orphan->fn : NULL;
	char *const *orphan_argv = orphan ? orphan->argv : NULL;
	struct srt__strv paths = { 0 };
	pid_t groups[GUARD_MAX_GROUPS];
	size_t ngroups = 0, g;
	char buf[PATH_MAX + 2];
	size_t have = 0;
	char proxy_dir[PATH_MAX + 2] = "";
	char run_dir[PATH_MAX + 2] = "";
	unsigned long long run_dev = 0, run_ino = 0;
	pid_t reaper = 0;
	sigset_t none;
	int i, quitting = 0;
	/* a reference to each of srt's directories for this run, held until
	 * the guard exits: see hold_dir */
	int held_proxy = -1, held_run = -1;

	/* the terminal's signals and a harness's kill reach a process
	 * group: the guard has one of its own (guard.c) and ignores these
	 * besides, so it outlives a srt they kill and is not stopped with
	 * srt's job */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	/* its "G" to a srt that died meanwhile fails (EPIPE) instead of
	 * ending it: it has that run to undo (a library host that does not
	 * ignore SIGPIPE leaves it at its default) */
	signal(SIGPIPE, SIG_IGN);
	/* srt starts the program with every signal blocked (guard.c: no
	 * handler of srt's may run between its vfork and the exec); the
	 * dispositions are the guard's own now */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 0; i < 3; i++) {
		int nfd = open("/dev/null", O_RDWR);
		if (nfd >= 0 && nfd != i) {
			dup2(nfd, i);
			close(nfd);
		}
	}
	/* nothing below can fail: srt may count on the guard from here */
	if (ready_fd >= 0) {
		ssize_t w;

		do
			w = write(ready_fd, "G", 1);
		while (w < 0 && errno == EINTR);
		close(ready_fd);
	}
	/* after the sandbox for the OOM killer: the sandbox is raised above
	 * srt's score (include/srt/backend.h), which cannot go past 1000; the
	 * guard also lowers its own by as much, as far as the kernel lets it
	 * (all the way with CAP_SYS_RESOURCE; without, down to the lowest
	 * score a privileged writer gave srt) */
	{
		int t;

		if (srt__os_oom_target(-SRT_GUARD_OOM_RAISE, &t) == 0)
			srt__os_oom_at_most(t);
	}
	/* hold nothing of srt's but the pipe (sockets, the info pipe, ...)
	 * and what the orphan work needs (the write roots it sweeps) */
	close_all_but(rd, orphan ? orphan->fds : NULL, orphan ? orphan->n_fds : 0);
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
				held_proxy = hold_dir(proxy_dir, 0, 0);
			} else if (buf[0] == 'T') {
				char *e1, *e2;
				unsigned long long dv = strtoull(buf + 1, &e1, 10), in = 0;

				if (*e1 == ':')
					in = strtoull(e1 + 1, &e2, 10);
				if (*e1 == ':' && *e2 == ':' && e2[1] == '/') {
					snprintf(run_dir, sizeof(run_dir), "%s", e2 + 1);
					run_dev = dv;
					run_ino = in;
					if (held_run < 0)
						held_run = hold_dir(run_dir, dv, in);
				}
			} else if (buf[0] == 'Q') {
				quitting = 1;
			} else if (buf[0] == 'q') {
				quitting = 2; /* retired: see release_held */
			} else if (buf[0] == 'X') {
				/* stale: see srt__bwrap_guard_start */
				orphan_fn = NULL;
				orphan_argv = NULL;
			}
			memmove(buf, buf + l, have - l);
			have -= l;
		}
		if (have == sizeof(buf))
			have = 0; /* an over-long record cannot be one we sent */
	}
	/* srt ending normally has removed its placeholders itself; the
	 * directories held above go now, after srt's end */
	if (quitting)
		release_held(held_proxy, proxy_dir, held_run, run_dir, quitting == 1);
	for (g = 0; g < ngroups; g++)
		kill(-groups[g], SIGKILL);
	/* srt died mid-run: what it would have done at the command's end
	 * (the git guard's sweep), once nothing sandboxed is left */
	if ((orphan_fn || orphan_argv || run_dir[0]) && ngroups)
		guard_wait_gone(groups, ngroups, reaper);
	if (orphan_fn && ngroups)
		orphan_fn(orphan->ctx);
	else if (orphan_argv && ngroups)
		run_orphan_program(orphan_argv, orphan->fds, orphan->n_fds);
	/* srt died: the run's own TMPDIR, which it would have removed at its
	 * end, goes with everything the command left there (also a git
	 * repository, which the sweep above therefore leaves to this) */
	if (run_dir[0])
		srt__rm_tree_same(run_dir, (dev_t)run_dev, (ino_t)run_ino);
	/* srt died: its proxy directory (socket inside) goes too, when the
	 * name still leads to the directory held since srt named it */
	if (proxy_dir[0]) {
		int dfd = open(proxy_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat a, b;

		if (dfd >= 0 && (held_proxy < 0 || (fstat(dfd, &a) == 0 && fstat(held_proxy, &b) == 0 &&
						    a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
			unlinkat(dfd, "proxy.sock", 0);
			rmdir(proxy_dir);
		}
		if (dfd >= 0)
			close(dfd);
	}
	srt__bwrap_plan_cleanup(&paths);
	release_held(held_proxy, proxy_dir, held_run, run_dir, 0);
}

#ifdef SYS_openat2
struct srt__open_how {
	uint64_t flags, mode, resolve;
};
#endif

int srt__mount_open_dir_nofollow(const char *dir)
{
#ifdef SYS_openat2
	struct srt__open_how how = { O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
				    0x04 /* RESOLVE_NO_SYMLINKS */ };
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EINVAL && errno != EPERM))
		return (int)fd;
#endif
	return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int srt__bwrap_locked_by_other(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	return fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

/* Placeholders (mount-placeholders.c) go in reverse order, deepest first,
 * and only while no live run holds them. Each is removed relative to its
 * directory, reached without following a link: a directory of the path
 * that a concurrent run's command swapped for a link to $HOME (in its
 * write root) since the placeholder was made must not carry the removal
 * to the user's own empty file of that name. */
void srt__bwrap_plan_cleanup(const struct srt__strv *created)
{
	size_t i;

	if (!created)
		return;
	for (i = created->n; i-- > 0;) {
		const char *p = created->v[i], *name = p ? strrchr(p, '/') : NULL;
		char parent[PATH_MAX];
		struct stat st, now;
		int pfd, fd;

		if (!name || !name[1])
			continue;
		snprintf(parent, sizeof(parent), "%.*s", (int)(name == p ? 1 : name - p), p);
		name++;
		pfd = srt__mount_open_dir_nofollow(parent);
		if (pfd < 0)
			continue;
		fd = -1;
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
						      (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
		/* another live run still mounts it: the last one out removes it;
		 * else remove only what we locked, never something swapped in
		 * since */
		if (fd >= 0 && !srt__bwrap_locked_by_other(fd) && fstat(fd, &now) == 0 &&
		    fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev) {
			if (S_ISDIR(now.st_mode))
				unlinkat(pfd, name, AT_REMOVEDIR); /* fails, as it should, when no longer empty */
			else if (S_ISREG(now.st_mode) && now.st_size == 0)
				unlinkat(pfd, name, 0);
		}
		if (fd >= 0)
			close(fd);
		close(pfd);
	}
}

#define GUARD_KEEP_MAX 4098 /* the git guard's most write roots, its state and its program */

int srt__bwrap_guard_mode(int argc, char **argv)
{
	static int keep[GUARD_KEEP_MAX];
	struct srt__guard_orphan orphan = { 0 };
	int i = 2, detach = 0, rd, ready;

	if (argc < 2 || strcmp(argv[1], "--guard") != 0)
		goto usage;
	if (i < argc && !strcmp(argv[i], "--detach")) {
		detach = 1;
		i++;
	}
	if (i < argc) {
		char *end;
		unsigned long n;

		if (strcmp(argv[i], "--keep") != 0 || i + 3 >= argc || strcmp(argv[i + 2], "--") != 0 ||
		    argv[i + 3][0] != '/')
			goto usage;
		n = strtoul(argv[i + 1], &end, 10);
		if (*end || n == 0 || n > GUARD_KEEP_MAX)
			goto usage;
		for (unsigned long k = 0; k < n; k++) {
			keep[k] = (int)(3 + k);
			if (fcntl(keep[k], F_GETFD) < 0)
				return 125; /* srt reads EOF instead of "G" and stops */
		}
		orphan.argv = argv + i + 3;
		orphan.fds = keep;
		orphan.n_fds = n;
	}
	/* above 2, where srt__bwrap_guard_main puts /dev/null */
	rd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	ready = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (rd < 0 || ready < 0)
		return 125; /* srt reads EOF instead of "G" and stops */
	if (detach) {
		pid_t pid = fork();

		if (pid != 0)
			_exit(pid < 0 ? 1 : 0);
	}
	srt__bwrap_guard_main(rd, ready, orphan.argv ? &orphan : NULL);
usage:
	fprintf(stderr, "srt-linux-init: usage: srt-linux-init --guard [--detach] [--keep N -- PROGRAM ARG...] "
			"(started by srt)\n");
	return 125;
}
