/* libsrt/platform.h with Linux's calls. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

int srt__plat_die_with_parent(void)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 ? 0 : -1;
}

int srt__plat_cloexec_from(int lowfd)
{
#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range((unsigned)lowfd, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
#endif
	{
		long fd, max = sysconf(_SC_OPEN_MAX);
		for (fd = lowfd; fd < max && fd < 65536; fd++)
			fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

int srt__plat_execvpe(const char *file, char *const argv[], char *const envp[])
{
	return execvpe(file, argv, envp);
}

int srt__plat_sigtimedwait(const sigset_t *set, const struct timespec *ts)
{
	siginfo_t si;

	return sigtimedwait(set, &si, ts);
}

/* From every thread's list in /proc (each list read whole). */
ssize_t srt__plat_children(pid_t *out, size_t cap)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < cap) {
		char path[64], buf[4096], *p, *end;
		size_t have = 0;
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* "pid pid ": each number ends with a space, so one that
		 * reaches the end of what was read may be cut: kept for the
		 * next piece */
		while (n < cap && (len = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
			have += (size_t)len;
			buf[have] = '\0';
			for (p = buf;; p = end) {
				long v = strtol(p, &end, 10);

				if (end == p || *end == '\0')
					break;
				if (v > 0 && n < cap)
					out[n++] = (pid_t)v;
			}
			have = strlen(p);
			memmove(buf, p, have + 1);
		}
		close(fd);
	}
	closedir(d);
	return (ssize_t)n;
}

int srt__plat_open_dir_ref(const char *path)
{
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int srt__plat_path_in_dir(char *out, size_t cap, int dirfd, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "/proc/self/fd/%d/%s", dirfd, name);

	(void)dir;
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void srt__plat_fd_path(int fd, char out[PATH_MAX])
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, PATH_MAX - 1);
	out[n > 0 && n < PATH_MAX - 1 ? n : 0] = '\0';
}

static struct timespec ts_of(struct statx_timestamp t)
{
	struct timespec r = { .tv_sec = t.tv_sec, .tv_nsec = t.tv_nsec };

	return r;
}

int srt__plat_file_times(int dfd, const char *name, struct srt__ftimes *t)
{
	struct statx sx;

	memset(t, 0, sizeof(*t));
	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_CTIME | STATX_MTIME, &sx) != 0)
		return -1;
	if (sx.stx_mask & STATX_BTIME)
		t->born = ts_of(sx.stx_btime);
	t->changed = ts_of(sx.stx_ctime);
	t->modified = ts_of(sx.stx_mtime);
	return 0;
}

struct timespec srt__plat_stat_ctime(const struct stat *st)
{
	return st->st_ctim;
}

void srt__plat_file_clock(struct timespec *now)
{
	clock_gettime(CLOCK_REALTIME_COARSE, now);
}

const char *srt__plat_secure_getenv(const char *name)
{
	return secure_getenv(name);
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
