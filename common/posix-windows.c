/* The POSIX calls srt's portable files make that Windows lacks, for the
 * mingw-w64 build (win/build.sh; win/include declares them under their
 * POSIX header names). Where Windows has the same operation it is done
 * (realpath, mkdtemp, a no-follow open, a pipe no child inherits); where
 * it has none (fork, waitpid, kill, directory descriptors, resource
 * limits, terminals, regular expressions) the call fails with ENOSYS,
 * and strerror(ENOSYS) reads "not supported on Windows": the caller's
 * message names what it was doing, so the refusal names the feature.
 * Nothing here succeeds while doing less than its POSIX namesake. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <pwd.h>
#include <regex.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <winsock2.h>
#include <windows.h>

#include "common/platform.h"
#include "common/winpath.h"

#undef strerror
#undef open
#undef mkdir
#undef signal
#undef pipe
#undef strndup
#undef getcwd

static int refuse(void)
{
	errno = ENOSYS;
	return -1;
}

char *srt__win_strerror(int e)
{
	static char enosys[] = "not supported on Windows";

	return e == ENOSYS ? enosys : strerror(e);
}

char *srt__win_strndup(const char *s, size_t n)
{
	size_t l = strnlen(s, n);
	char *p = malloc(l + 1);

	if (!p)
		return NULL;
	memcpy(p, s, l);
	p[l] = '\0';
	return p;
}

/* glibc's memmem: the first place needle occurs in hay, hay itself for
 * an empty needle, NULL when it does not occur. */
void *srt__win_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
	const unsigned char *h = hay, *end, *p;
	const unsigned char *n = needle;

	if (nlen == 0)
		return (void *)h;
	if (nlen > hlen)
		return NULL;
	end = h + (hlen - nlen) + 1; /* the last place needle can start, plus one */
	for (p = h; p < end && (p = memchr(p, n[0], (size_t)(end - p))); p++)
		if (!memcmp(p, n, nlen))
			return (void *)p;
	return NULL;
}

char *stpcpy(char *dst, const char *src)
{
	size_t l = strlen(src);

	memcpy(dst, src, l + 1);
	return dst + l;
}

/* ---- paths -----------------------------------------------------------
 * The core spells every path POSIX's way: from "/", names between "/".
 * On Windows that is a rooted path on the current drive ("/a/b" is
 * "<drive>:\a\b" to every Windows call), so a native path on the current
 * drive is spelled by dropping its drive and turning its separators; a
 * path on another drive or share has no such spelling and is refused
 * (ENOSYS): srt runs on one drive, the current directory's. The rules
 * are common/winpath.c's, tested natively. */
static int to_core_path(char *p)
{
	char cur[MAX_PATH];

	/* a path Windows returns is drive-absolute or a share: never a
	 * relative one, which would pass through unchanged */
	if (!_getcwd(cur, sizeof(cur)) || cur[1] != ':' || p[0] == '\\' || p[0] == '/' ||
	    !p[0] || p[1] != ':') {
		errno = ENOSYS;
		return -1;
	}
	/* in place: the result is never longer than p */
	return srt__winpath_to_core(p, cur[0], p, strlen(p) + 1);
}

char *srt__win_getcwd(char *buf, size_t len)
{
	char tmp[MAX_PATH];

	if (!_getcwd(tmp, sizeof(tmp)))
		return NULL;
	if (to_core_path(tmp) < 0)
		return NULL;
	if (strlen(tmp) + 1 > len) {
		errno = ERANGE;
		return NULL;
	}
	memcpy(buf, tmp, strlen(tmp) + 1);
	return buf;
}

/* ---- processes: none without CreateProcess (the backend's spawn slot) */

int fork(void) { return refuse(); }
int vfork(void) { return refuse(); }
pid_t getppid(void) { return refuse(); }
pid_t getpgrp(void) { return refuse(); }
int setpgid(pid_t pid, pid_t pgid) { (void)pid; (void)pgid; return refuse(); }
pid_t setsid(void) { return refuse(); }
pid_t waitpid(pid_t pid, int *status, int options)
{
	(void)pid; (void)status; (void)options;
	return refuse();
}
int kill(pid_t pid, int sig) { (void)pid; (void)sig; return refuse(); }

/* The C library's stat reports owner 0 for every file: 0 is "this user"
 * for every comparison of an owner with the caller's ids. */
uid_t getuid(void) { return 0; }
uid_t geteuid(void) { return 0; }
gid_t getgid(void) { return 0; }
gid_t getegid(void) { return 0; }

int getrlimit(int res, struct rlimit *rl) { (void)res; (void)rl; return refuse(); }
int setrlimit(int res, const struct rlimit *rl) { (void)res; (void)rl; return refuse(); }
/* Only the processor count (the TLS module's crypto threads size their
 * pool by it); Windows has no descriptor table to bound. */
long sysconf(int name)
{
	if (name == _SC_NPROCESSORS_ONLN)
		return (long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	return refuse();
}

/* ---- signals: only the C library's own ones exist ------------------- */

int sigemptyset(sigset_t *s) { *s = 0; return 0; }
int sigfillset(sigset_t *s) { *s = ~(sigset_t)0; return 0; }

static int sig_ok(int sig)
{
	if (sig > 0 && sig < (int)(8 * sizeof(sigset_t)))
		return 1;
	errno = EINVAL;
	return 0;
}

int sigaddset(sigset_t *s, int sig)
{
	if (!sig_ok(sig))
		return -1;
	*s |= (sigset_t)1 << sig;
	return 0;
}

int sigdelset(sigset_t *s, int sig)
{
	if (!sig_ok(sig))
		return -1;
	*s &= ~((sigset_t)1 << sig);
	return 0;
}

int sigismember(const sigset_t *s, int sig)
{
	if (!sig_ok(sig))
		return -1;
	return (*s >> sig) & 1;
}

/* Nothing is delivered asynchronously that a mask could hold back: the
 * console's events arrive on a thread of their own
 * (common/platform-windows.c, srt__os_signal_fd). */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	(void)how; (void)set;
	if (old)
		*old = 0;
	return 0;
}

srt__win_sighandler srt__win_signal(int sig, srt__win_sighandler fn)
{
	switch (sig) {
	case SIGINT: case SIGILL: case SIGFPE: case SIGSEGV: case SIGTERM:
	case SIGBREAK: case SIGABRT:
		return signal(sig, fn);
	default:
		return SIG_DFL;
	}
}

/* ---- files ------------------------------------------------------------ */

static int is_reparse(const char *path)
{
	DWORD a = GetFileAttributesA(path);

	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT);
}

static int is_dir(const char *path)
{
	DWORD a = GetFileAttributesA(path);

	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

/* open(2): O_NOFOLLOW refuses a reparse point (ELOOP, as for a link on
 * POSIX; between the check and the open the name could change: Windows
 * needs CreateFile's FILE_FLAG_OPEN_REPARSE_POINT to close that window,
 * which the C library does not pass); a directory is refused (ENOSYS), as
 * the C library opens none; O_NONBLOCK changes nothing for the files the
 * C library opens. */
int srt__win_open(const char *path, int flags, ...)
{
	int mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if ((flags & O_NOFOLLOW) && is_reparse(path)) {
		errno = ELOOP;
		return -1;
	}
	if ((flags & O_DIRECTORY) || is_dir(path))
		return refuse();
	flags &= ~(O_NOFOLLOW | O_NONBLOCK);
	return open(path, flags | O_BINARY, mode & 0600);
}

int openat(int dfd, const char *path, int flags, ...)
{
	int mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (dfd != AT_FDCWD)
		return refuse();
	return srt__win_open(path, flags, mode);
}

/* F_GETFD/F_SETFD: a descriptor's inheritance; F_GETFL: open or not;
 * F_SETFL's O_NONBLOCK needs a socket (srt__os_socket makes them
 * non-blocking at birth) and is refused. */
int fcntl(int fd, int cmd, ...)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	DWORD f;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	switch (cmd) {
	case F_GETFD:
		if (!GetHandleInformation(h, &f)) {
			errno = EBADF;
			return -1;
		}
		return (f & HANDLE_FLAG_INHERIT) ? 0 : FD_CLOEXEC;
	case F_SETFD: {
		va_list ap;
		int v;

		va_start(ap, cmd);
		v = va_arg(ap, int);
		va_end(ap);
		if (!SetHandleInformation(h, HANDLE_FLAG_INHERIT, (v & FD_CLOEXEC) ? 0 : HANDLE_FLAG_INHERIT)) {
			errno = EBADF;
			return -1;
		}
		return 0;
	}
	case F_GETFL:
		return O_RDWR;
	default:
		return refuse();
	}
}

int srt__win_pipe(int fds[2])
{
	return _pipe(fds, 65536, _O_BINARY | _O_NOINHERIT);
}

ssize_t readlink(const char *path, char *buf, size_t len)
{
	(void)buf; (void)len;
	if (is_reparse(path))
		return refuse();
	errno = GetFileAttributesA(path) == INVALID_FILE_ATTRIBUTES ? ENOENT : EINVAL;
	return -1;
}

int symlink(const char *target, const char *path) { (void)target; (void)path; return refuse(); }
int link(const char *from, const char *to) { (void)from; (void)to; return refuse(); }
int fsync(int fd) { return _commit(fd); }

int lstat(const char *path, struct stat *st)
{
	if (is_reparse(path))
		return refuse();
	return stat(path, st);
}

int fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	if (dfd != AT_FDCWD)
		return refuse();
	return (flags & AT_SYMLINK_NOFOLLOW) ? lstat(path, st) : stat(path, st);
}

int mkdirat(int dfd, const char *path, mode_t mode)
{
	if (dfd != AT_FDCWD)
		return refuse();
	return srt__win_mkdir(path, mode);
}

int unlinkat(int dfd, const char *path, int flags)
{
	if (dfd != AT_FDCWD)
		return refuse();
	return (flags & AT_REMOVEDIR) ? _rmdir(path) : _unlink(path);
}

int fchmod(int fd, mode_t mode) { (void)fd; (void)mode; return refuse(); }

/* The directory gets the ACL its parent passes down: POSIX's mode bits
 * have no meaning there. */
int srt__win_mkdir(const char *path, mode_t mode)
{
	(void)mode;
	return _mkdir(path);
}

struct srt__win_dir {
	HANDLE h;
	int first;
	WIN32_FIND_DATAA fd;
	struct dirent de;
};

DIR *opendir(const char *path)
{
	char pat[MAX_PATH];
	DIR *d;

	if (snprintf(pat, sizeof(pat), "%s/*", path) >= (int)sizeof(pat)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!(d = calloc(1, sizeof(*d))))
		return NULL;
	d->h = FindFirstFileA(pat, &d->fd);
	if (d->h == INVALID_HANDLE_VALUE) {
		errno = GetLastError() == ERROR_ACCESS_DENIED ? EACCES : ENOENT;
		free(d);
		return NULL;
	}
	d->first = 1;
	return d;
}

struct dirent *readdir(DIR *d)
{
	if (!d->first && !FindNextFileA(d->h, &d->fd))
		return NULL;
	d->first = 0;
	snprintf(d->de.d_name, sizeof(d->de.d_name), "%s", d->fd.cFileName);
	d->de.d_type = (d->fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? DT_LNK :
		       (d->fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? DT_DIR : DT_REG;
	return &d->de;
}

int closedir(DIR *d)
{
	FindClose(d->h);
	free(d);
	return 0;
}

DIR *fdopendir(int fd)
{
	(void)fd;
	errno = ENOSYS;
	return NULL;
}

int dirfd(DIR *d) { (void)d; return refuse(); }

char *realpath(const char *path, char *resolved)
{
	char *r;

	if (is_reparse(path)) {
		errno = ENOSYS;
		return NULL;
	}
	if (GetFileAttributesA(path) == INVALID_FILE_ATTRIBUTES) {
		errno = ENOENT;
		return NULL;
	}
	r = _fullpath(resolved, path, resolved ? PATH_MAX : 0);
	if (!r) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (to_core_path(r) < 0) {
		if (r != resolved)
			free(r);
		return NULL;
	}
	return r;
}

/* XXXXXX replaced by random letters until a new directory is made. */
char *mkdtemp(char *tmpl)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t l = strlen(tmpl), i;
	int tries;

	if (l < 6 || strcmp(tmpl + l - 6, "XXXXXX")) {
		errno = EINVAL;
		return NULL;
	}
	for (tries = 0; tries < 100; tries++) {
		unsigned char r[6];

		if (srt__os_random(r, sizeof(r)) != 0) {
			errno = EIO;
			return NULL;
		}
		for (i = 0; i < 6; i++)
			tmpl[l - 6 + i] = set[r[i] % (sizeof(set) - 1)];
		if (_mkdir(tmpl) == 0)
			return tmpl;
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

int setenv(const char *name, const char *value, int overwrite)
{
	if (!overwrite && getenv(name))
		return 0;
	return _putenv_s(name, value) == 0 ? 0 : (errno = EINVAL, -1);
}

int unsetenv(const char *name)
{
	return _putenv_s(name, "") == 0 ? 0 : (errno = EINVAL, -1);
}

/* ---- the user: Windows' profile, not a password entry --------------- */

struct passwd *getpwuid(uid_t uid)
{
	static struct passwd pw;
	static char name[256], dir[MAX_PATH];
	DWORD n = GetEnvironmentVariableA("USERPROFILE", dir, sizeof(dir));

	(void)uid;
	if (n == 0 || n >= sizeof(dir)) {
		errno = ENOENT;
		return NULL;
	}
	if (to_core_path(dir) < 0)
		return NULL;
	n = GetEnvironmentVariableA("USERNAME", name, sizeof(name));
	if (n == 0 || n >= sizeof(name))
		snprintf(name, sizeof(name), "user");
	pw.pw_name = name;
	pw.pw_dir = dir;
	pw.pw_shell = (char *)"cmd.exe";
	return &pw;
}

/* ---- terminals, interfaces, regular expressions: none --------------- */

int tcgetattr(int fd, struct termios *t) { (void)fd; (void)t; errno = ENOTTY; return -1; }
int tcsetattr(int fd, int how, const struct termios *t)
{
	(void)fd; (void)how; (void)t;
	errno = ENOTTY;
	return -1;
}
int tcflow(int fd, int action) { (void)fd; (void)action; errno = ENOTTY; return -1; }
int ioctl(int fd, unsigned long req, ...) { (void)fd; (void)req; errno = ENOTTY; return -1; }

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	(void)fd; (void)m; (void)flags;
	return refuse();
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	(void)fd; (void)m; (void)flags;
	return refuse();
}

pid_t tcgetpgrp(int fd) { (void)fd; errno = ENOTTY; return -1; }

int getifaddrs(struct ifaddrs **out) { (void)out; return refuse(); }
void freeifaddrs(struct ifaddrs *ifa) { (void)ifa; }

int regcomp(regex_t *re, const char *pattern, int flags)
{
	(void)pattern; (void)flags;
	re->re_nsub = 0;
	re->impl = NULL;
	return REG_ESPACE;
}

int regexec(const regex_t *re, const char *s, size_t n, regmatch_t m[], int flags)
{
	(void)re; (void)s; (void)n; (void)m; (void)flags;
	return REG_ESPACE;
}

size_t regerror(int code, const regex_t *re, char *buf, size_t len)
{
	static const char msg[] = "regular expressions are not supported on Windows";

	(void)code; (void)re;
	if (len)
		snprintf(buf, len, "%s", msg);
	return sizeof(msg);
}

void regfree(regex_t *re) { (void)re; }

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return sigprocmask(how, set, old);
}
