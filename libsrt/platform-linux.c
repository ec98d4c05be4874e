/* libsrt/platform.h with Linux's calls. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
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

/* ---- a program srt runs outside the sandbox later (the git guard's sweep) ---- */

/* Is path root itself or below it? */
static int path_under(const char *path, const char *root)
{
	size_t l = strlen(root);

	if (l == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: an executable memfd, also where vm.memfd_noexec is 1 */
#endif
#define PROGRAM_MAX (16u << 20)

/* Is the file or directory st owned by root or by this process's user,
 * and closed to writes by group and others? */
static int owned_closed(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022);
}

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#define CHAIN_MAX 256

/* Is the mount with this id one whose root is its filesystem's own root
 * (not a directory bound from inside another tree)? From
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...". 0 when
 * it is not, or cannot be told. */
static int mount_of_whole_fs(uint64_t id)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096 + 256];
	int whole = 0, at_start = 1;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long mid;
		char *end, *field = line;
		int starts = at_start;

		/* the rest of a line longer than the buffer is no line of its own */
		at_start = strchr(line, '\n') != NULL;
		if (!starts)
			continue;
		mid = strtoull(line, &end, 10);
		if (end == line || *end != ' ' || mid != id)
			continue;
		/* the fourth field, the fields split at single spaces (the
		 * kernel writes a space, tab, newline or backslash in a path
		 * as an octal escape): "/" and nothing else */
		for (int k = 0; k < 3 && field; k++) {
			field = strchr(field, ' ');
			if (field)
				field++;
		}
		whole = field && field[0] == '/' && field[1] == ' ';
		break;
	}
	fclose(f);
	return whole;
}

/* Is the directory open at dfd, and every one above it up to "/", owned
 * by root or this process's user and closed to writes by group and others
 * (or sticky: nobody else can move what it holds), none of them one of
 * t's write roots by identity (a root reached by another name, a bind
 * mount of it), and none a mount of a directory bound from elsewhere
 * (which could be a write root's subdirectory)? Walked up by "..", so no
 * name is taken for it; a chain longer than CHAIN_MAX is refused. */
static int dir_chain_trusted(const struct srt__plat_trust *t, int dfd)
{
	struct stat st, up;
	int cur = dup(dfd), ok = cur >= 0, at_top = 0;

	for (int depth = 0; ok && depth < CHAIN_MAX; depth++) {
		struct statx sx;
		int parent;

		if (fstat(cur, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    (st.st_uid != 0 && st.st_uid != geteuid()) ||
		    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
			ok = 0;
			break;
		}
		for (size_t i = 0; ok && t->root_fds && i < t->n_roots; i++) {
			struct stat rs;

			if (fstat(t->root_fds[i], &rs) != 0 || (rs.st_dev == st.st_dev && rs.st_ino == st.st_ino))
				ok = 0;
		}
		parent = ok ? openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		if (parent < 0 || fstat(parent, &up) != 0) {
			ok = 0;
			if (parent >= 0)
				close(parent);
			break;
		}
		at_top = up.st_dev == st.st_dev && up.st_ino == st.st_ino; /* "/" */
		/* below "/", a mount of a directory bound from elsewhere */
		if (!at_top && (statx(cur, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0 ||
				((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
				 (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
				 (!(sx.stx_mask & STATX_MNT_ID) || !mount_of_whole_fs(sx.stx_mnt_id)))))
			ok = 0;
		close(cur);
		cur = parent;
		if (at_top || !ok)
			break;
	}
	if (cur >= 0)
		close(cur);
	return ok && at_top;
}

/* srt__plat_trusted_program_copy (platform.h). The copy is what the
 * cleanup guard runs, so nothing done to the file during the run (the
 * command rewriting it where it may write, a host tool renaming another
 * over it) changes what runs. The file is opened neither following a link
 * nor waiting (a FIFO, a device). Where srt runs as root, files a
 * sandboxed command made in an earlier run's write roots are root's too:
 * dir must no more name such a place than SRT_BACKEND_DIR may. -1 also
 * when the copy failed (no memfd that may be run: vm.memfd_noexec = 2). */
int srt__plat_trusted_program_copy(const char *dir, const char *name, const struct srt__plat_trust *t)
{
	char real[PATH_MAX];
	struct stat st;
	int dfd, fd, m;
	off_t off = 0;
	size_t l = strlen(dir);

	while (l > 1 && dir[l - 1] == '/')
		l--;
	if (!realpath(dir, real) || strlen(real) != l || strncmp(real, dir, l) != 0)
		return -1; /* a link on the way, or no such directory */
	for (size_t i = 0; i < t->n_roots; i++)
		if (path_under(real, t->root_paths[i]))
			return -1;
	dfd = open(real, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (!dir_chain_trusted(t, dfd)) {
		close(dfd);
		return -1;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111) || !owned_closed(&st) ||
	    st.st_nlink != 1 || st.st_size <= 0 || (uint64_t)st.st_size > PROGRAM_MAX) {
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < t->n_files; i++)
		if (t->file_devs[i] == st.st_dev && t->file_inos[i] == st.st_ino) {
			close(fd);
			return -1; /* the program itself may be written */
		}
	{
		/* a file bound onto the program's name: from where, no check
		 * here can tell */
		struct statx sx;

		if (statx(fd, "", AT_EMPTY_PATH, 0, &sx) != 0 ||
		    ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		     (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))) {
			close(fd);
			return -1;
		}
	}
	m = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (m < 0 && errno == EINVAL) /* before Linux 6.3: every memfd may be run */
		m = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	while (m >= 0 && off < st.st_size) {
		ssize_t n = sendfile(m, fd, &off, (size_t)(st.st_size - off));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(m);
			m = -1;
		}
	}
	close(fd);
	if (m >= 0 && fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(m);
		m = -1;
	}
	return m;
}

int srt__plat_sealed_data(const char *name, const void *buf, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	while (fd >= 0 && off < len) {
		ssize_t w = write(fd, (const char *)buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	if (fd >= 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int srt__plat_fd_exec_path(char *out, size_t cap, int fdnum)
{
	int n = snprintf(out, cap, "/proc/self/fd/%d", fdnum);

	return n < 0 || (size_t)n >= cap ? -1 : 0;
}
