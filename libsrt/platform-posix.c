/* libsrt/platform.h with POSIX alone: for systems other than Linux, and
 * built on Linux by configure --with-platform=posix. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* No portable way to die with the parent: srt ends the command itself
 * (its process group, and the backend's own means). */
int srt__plat_die_with_parent(void)
{
	return 0;
}

int srt__plat_cloexec_from(int lowfd)
{
	long fd, max = sysconf(_SC_OPEN_MAX);

	for (fd = lowfd; fd < max && fd < 65536; fd++)
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Called between vfork and exec, where the child shares srt's memory:
 * environ must not be touched, so the command is looked up here, in the
 * PATH of the environment it gets (as execvpe does; the default path when
 * it has none), with execve. No allocation, no stdio. */
int srt__plat_execvpe(const char *file, char *const argv[], char *const envp[])
{
	const char *path = "/usr/local/bin:/usr/bin:/bin", *p;
	char buf[PATH_MAX];
	int err = ENOENT;
	size_t fl = strlen(file), i;

	if (strchr(file, '/'))
		return execve(file, argv, envp);
	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "PATH=", 5)) {
			path = envp[i] + 5;
			break;
		}
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t dl = end ? (size_t)(end - p) : strlen(p);

		if (dl == 0) {
			buf[0] = '.';
			dl = 1;
		} else if (dl < sizeof(buf)) {
			memcpy(buf, p, dl);
		}
		if (dl + 1 + fl < sizeof(buf)) {
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
			execve(buf, argv, envp);
			if (errno == EACCES)
				err = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR)
				err = errno;
		}
		if (!end)
			break;
		p = end;
	}
	errno = err;
	return -1;
}

/* POSIX leaves sigtimedwait optional (macOS lacks it): the pending set is
 * looked at every 5 ms until the timeout, and a pending signal of set is
 * taken with sigwait, which then returns at once. */
int srt__plat_sigtimedwait(const sigset_t *set, const struct timespec *ts)
{
	long left_ms = ts->tv_sec * 1000 + ts->tv_nsec / 1000000;

	for (;;) {
		sigset_t pend;
		int sig;

		if (sigpending(&pend) == 0) {
			for (sig = 1; sig < 65; sig++) {
				sigset_t one;

				if (sigismember(set, sig) != 1 || sigismember(&pend, sig) != 1)
					continue;
				sigemptyset(&one);
				sigaddset(&one, sig);
				if (sigwait(&one, &sig) == 0)
					return sig;
			}
		}
		if (left_ms <= 0)
			break;
		{
			struct timespec step = { 0, 5 * 1000000L };
			nanosleep(&step, NULL);
			left_ms -= 5;
		}
	}
	errno = EAGAIN;
	return -1;
}

ssize_t srt__plat_children(pid_t *out, size_t cap)
{
	(void)out;
	(void)cap;
	errno = ENOSYS;
	return -1;
}

int srt__plat_open_dir_ref(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int srt__plat_path_in_dir(char *out, size_t cap, int dirfd, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	(void)dirfd;
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void srt__plat_fd_path(int fd, char out[PATH_MAX])
{
	out[0] = '\0';
#ifdef F_GETPATH
	if (fcntl(fd, F_GETPATH, out) != 0)
		out[0] = '\0';
#else
	(void)fd;
#endif
}

int srt__plat_file_times(int dfd, const char *name, struct srt__ftimes *t)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
#ifdef HAVE_STRUCT_STAT_ST_BIRTHTIMESPEC
	t->born = st.st_birthtimespec;
#endif
	t->changed = srt__plat_stat_ctime(&st);
#if defined(__APPLE__)
	t->modified = st.st_mtimespec;
#else
	t->modified = st.st_mtim;
#endif
	return 0;
}

struct timespec srt__plat_stat_ctime(const struct stat *st)
{
#if defined(__APPLE__)
	return st->st_ctimespec;
#else
	return st->st_ctim; /* POSIX 2008 */
#endif
}

void srt__plat_file_clock(struct timespec *now)
{
	clock_gettime(CLOCK_REALTIME, now);
}

const char *srt__plat_secure_getenv(const char *name)
{
	if (getuid() != geteuid() || getgid() != getegid())
		return NULL;
	return getenv(name);
}

const char srt__plat_module_ext[] = ".so";
const char srt__plat_program_ext[] = "";

int srt__plat_program_spell(const char *path, char *out, size_t cap)
{
	if (strlen(path) >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, path, strlen(path) + 1);
	return 0;
}

int srt__plat_path_absolute(const char *p)
{
	return p[0] == '/';
}

const char *srt__plat_module_dir(const char *configured)
{
	return configured;
}

/* No sealed memfds here: the cleanup guard, where there is one, is a copy
 * of srt (gitguard.h). */
int srt__plat_trusted_program_copy(const char *dir, const char *name, const struct srt__plat_trust *t)
{
	(void)dir;
	(void)name;
	(void)t;
	errno = ENOSYS;
	return -1;
}

int srt__plat_sealed_data(const char *name, const void *buf, size_t len)
{
	(void)name;
	(void)buf;
	(void)len;
	errno = ENOSYS;
	return -1;
}

int srt__plat_fd_exec_path(char *out, size_t cap, int fdnum)
{
	(void)out;
	(void)cap;
	(void)fdnum;
	return -1;
}
