/* common/rmtree.h on Windows: the tree is walked by name with
 * FindFirstFile, as Windows has no directory descriptors. A reparse point
 * (a junction or symbolic link the command made) is removed as the link
 * it is, never entered, so the walk cannot leave the tree; a read-only
 * file is made writable first (it is this user's). The C library keeps
 * no inode numbers, so the directory's identity is what Windows can tell
 * of a name: still a directory, and no reparse point. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "common/rmtree.h"

#define RM_DEPTH_MAX 256

static int is_plain_dir(DWORD a)
{
	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) &&
	       !(a & FILE_ATTRIBUTE_REPARSE_POINT);
}

/* Remove what is below dir (not dir itself). */
static void rm_below(const char *dir, int depth)
{
	WIN32_FIND_DATAA fd;
	HANDLE h;
	char pat[MAX_PATH * 2], p[MAX_PATH * 2];

	if (snprintf(pat, sizeof(pat), "%s\\*", dir) >= (int)sizeof(pat))
		return;
	h = FindFirstFileA(pat, &fd);
	if (h == INVALID_HANDLE_VALUE)
		return;
	do {
		const char *n = fd.cFileName;
		DWORD a = fd.dwFileAttributes;

		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (snprintf(p, sizeof(p), "%s\\%s", dir, n) >= (int)sizeof(p))
			continue;
		if (a & FILE_ATTRIBUTE_READONLY)
			(void)SetFileAttributesA(p, a & ~FILE_ATTRIBUTE_READONLY);
		if (!(a & FILE_ATTRIBUTE_DIRECTORY)) {
			(void)DeleteFileA(p); /* a file, or a link to one */
		} else if (a & FILE_ATTRIBUTE_REPARSE_POINT) {
			(void)RemoveDirectoryA(p); /* the junction, not its target */
		} else if (depth < RM_DEPTH_MAX) {
			rm_below(p, depth + 1);
			(void)RemoveDirectoryA(p);
		}
	} while (FindNextFileA(h, &fd));
	FindClose(h);
}

void srt__rm_tree_same(const char *path, dev_t dev, ino_t ino)
{
	(void)dev;
	(void)ino;
	if (!is_plain_dir(GetFileAttributesA(path)))
		return;
	rm_below(path, 0);
	(void)RemoveDirectoryA(path);
}

/* Nothing is marked on Windows (no lock, below): a plain mkdtemp. */
char *srt__rundir_make(char *tmpl)
{
	return mkdtemp(tmpl);
}

/* Windows has no lock srt takes on a directory (the C library has no
 * flock): what a killed srt left is never taken for abandoned, and stays. */
int srt__rundir_hold(int dfd)
{
	(void)dfd;
	return -ENOSYS;
}

int srt__rm_below_budget(int dfd, struct srt__rm_budget *b)
{
	(void)dfd;
	(void)b;
	return 0;
}

int srt__rm_budget_spent(const struct srt__rm_budget *b)
{
	(void)b;
	return 1;
}

void srt__rundir_sweep(const char *base, int (*match)(const char *name), unsigned mask, unsigned want,
		       int (*remove)(int basefd, const char *name, int dfd, struct srt__rm_budget *b))
{
	(void)base;
	(void)match;
	(void)mask;
	(void)want;
	(void)remove;
}
