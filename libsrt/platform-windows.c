/* libsrt/platform.h on Windows (mingw-w64; win/build.sh builds it). The
 * command is started, waited for and ended by the backend's process
 * slots (a job object that kills the tree), never by the POSIX spawn
 * these calls serve: each of those refuses with ENOSYS, which srt's
 * messages read as "not supported on Windows". */
#include "config.h"

#include <direct.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <windows.h>

#include "common/winpath.h"
#include "platform.h"

/* The command's tree dies with srt through the backend's kill-on-close
 * job object; this call only runs in a forked child, which Windows never
 * makes. */
int srt__plat_die_with_parent(void)
{
	errno = ENOSYS;
	return -1;
}

int srt__plat_cloexec_from(int lowfd)
{
	(void)lowfd;
	errno = ENOSYS;
	return -1;
}

int srt__plat_execvpe(const char *file, char *const argv[], char *const envp[])
{
	(void)file; (void)argv; (void)envp;
	errno = ENOSYS;
	return -1;
}

int srt__plat_sigtimedwait(const sigset_t *set, const struct timespec *ts)
{
	(void)set; (void)ts;
	errno = ENOSYS;
	return -1;
}

ssize_t srt__plat_children(pid_t *out, size_t cap)
{
	(void)out; (void)cap;
	errno = ENOSYS;
	return -1;
}

/* Windows has no directory descriptors in the C library. */
int srt__plat_open_dir_ref(const char *path)
{
	(void)path;
	errno = ENOSYS;
	return -1;
}

int srt__plat_path_in_dir(char *out, size_t cap, int dirfd, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	(void)dirfd;
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void srt__plat_fd_path(int fd, char out[PATH_MAX])
{
	(void)fd;
	out[0] = '\0';
}

/* The times of a name relative to the current directory (Windows has no
 * directory descriptors: any other dfd is refused): born is NTFS's
 * creation time, changed its last change (the C library's st_ctime is
 * the creation time there, so the attribute data is read instead). */
static struct timespec ft_ts(FILETIME f)
{
	ULARGE_INTEGER u;
	struct timespec t;

	u.LowPart = f.dwLowDateTime;
	u.HighPart = f.dwHighDateTime;
	/* 100 ns ticks since 1601 -> the Unix epoch */
	u.QuadPart -= 116444736000000000ULL;
	t.tv_sec = (time_t)(u.QuadPart / 10000000ULL);
	t.tv_nsec = (long)(u.QuadPart % 10000000ULL) * 100;
	return t;
}

int srt__plat_file_times(int dfd, const char *name, struct srt__ftimes *t)
{
	WIN32_FILE_ATTRIBUTE_DATA a;

	memset(t, 0, sizeof(*t));
	if (dfd != -100) { /* AT_FDCWD */
		errno = ENOSYS;
		return -1;
	}
	if (!GetFileAttributesExA(name, GetFileExInfoStandard, &a)) {
		errno = ENOENT;
		return -1;
	}
	t->born = ft_ts(a.ftCreationTime);
	t->changed = ft_ts(a.ftLastWriteTime);
	t->modified = ft_ts(a.ftLastWriteTime);
	return 0;
}

struct timespec srt__plat_stat_ctime(const struct stat *st)
{
	struct timespec t = { st->st_mtime, 0 };

	return t;
}

void srt__plat_file_clock(struct timespec *now)
{
	FILETIME f;

	GetSystemTimePreciseAsFileTime(&f);
	*now = ft_ts(f);
}

/* Windows has no set-uid programs. */
const char *srt__plat_secure_getenv(const char *name)
{
	return getenv(name);
}

const char srt__plat_module_ext[] = ".dll";
const char srt__plat_program_ext[] = ".exe";

/* The core's "/x" is a path on the current drive, the current
 * directory's (common/platform-windows.c spells paths from it too). */
int srt__plat_program_spell(const char *path, char *out, size_t cap)
{
	char cur[MAX_PATH];

	if (!_getcwd(cur, sizeof(cur)) || cur[1] != ':') {
		errno = ENOSYS;
		return -1;
	}
	return srt__winpath_from_core(path, cur[0], out, cap);
}

int srt__plat_path_absolute(const char *p)
{
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	       (p[2] == '\\' || p[2] == '/');
}

/* The directory of the libsrt DLL (this code's own file): modules are
 * installed beside it, whatever the build configured. Looked up once;
 * "" when Windows cannot tell, so no module is found rather than one
 * from the current directory. */
static char module_dir[MAX_PATH * 3];

static BOOL CALLBACK find_module_dir(PINIT_ONCE once, PVOID arg, PVOID *ctx)
{
	HMODULE self;
	DWORD n;
	char *slash;

	(void)once; (void)arg; (void)ctx;
	if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
				GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
				(LPCSTR)(void *)find_module_dir, &self))
		return TRUE;
	n = GetModuleFileNameA(self, module_dir, sizeof(module_dir));
	if (n == 0 || n >= sizeof(module_dir) || !(slash = strrchr(module_dir, '\\'))) {
		module_dir[0] = '\0';
		return TRUE;
	}
	*slash = '\0';
	return TRUE;
}

const char *srt__plat_module_dir(const char *configured)
{
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

	(void)configured;
	InitOnceExecuteOnce(&once, find_module_dir, NULL, NULL);
	return module_dir;
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
