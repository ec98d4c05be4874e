/* linux-bwrap: resolving a rule's path on the host (see mount-resolve.h).
 * Every rule of the mount plan is applied where its path really leads, and
 * the planner must know which links it went through and where a missing
 * path starts to be missing. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/mountinfo.h"
#include "mount-resolve.h"

#define MAX_LINKS 40

/* The directories one plan found on its way are the plan's memo's
 * (srt__plan_dir_known, backends/linux-common/mountinfo.h): the rules and
 * protected names below one working directory do not lstat every directory
 * above it again (a plan in /a/b/c with 40 names below c otherwise makes
 * 160 lstat calls for the same three directories), and the mount plan
 * shares what the Landlock plan's resolutions found. */
void srt__mount_resolve_memo_begin(void)
{
	srt__mountinfo_dirs_memo(1);
}

void srt__mount_resolve_memo_end(void)
{
	srt__mountinfo_dirs_memo(0);
}

int srt__mount_resolve(const char *in, char *out, int *type, size_t *missing_at,
		   struct srt__strv *link_dirs)
{
	char todo[PATH_MAX * 2], res[PATH_MAX], comp[NAME_MAX + 1];
	size_t rlen = 0, links = 0;
	const char *p;
	int missing = 0;
	struct stat st;

	size_t inlen = strlen(in);

	if (inlen >= sizeof(todo) / 2)
		return ENAMETOOLONG;
	memcpy(todo, in, inlen + 1);
	res[0] = '\0';
	*type = T_DIR; /* "/" */
	p = todo;
	while (*p) {
		size_t clen;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		clen = strcspn(p, "/");
		if (clen > NAME_MAX)
			return ENAMETOOLONG;
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		p += clen;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (rlen > 0 && res[rlen - 1] != '/')
				rlen--;
			if (rlen > 0)
				rlen--;
			res[rlen] = '\0';
			continue;
		}
		if (rlen + 1 + clen + 1 > sizeof(res))
			return ENAMETOOLONG;
		res[rlen] = '/';
		memcpy(res + rlen + 1, comp, clen + 1);
		if (missing) {
			rlen += 1 + clen;
			continue;
		}
		if (srt__plan_dir_known(res)) {
			rlen += 1 + clen;
			*type = T_DIR;
			continue;
		}
		if (lstat(res, &st) != 0) {
			int e = errno;

			if (e == ENOENT) {
				*missing_at = rlen ? rlen : 1;
				missing = 1;
				rlen += 1 + clen;
				continue;
			}
			/* out names the directory that could not be looked into */
			snprintf(out, PATH_MAX, "%.*s", (int)(rlen ? rlen : 1), res);
			return e;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], rest[PATH_MAX * 2];
			ssize_t tl;

			if (++links > MAX_LINKS)
				return ELOOP;
			tl = readlink(res, target, sizeof(target) - 1);
			if (tl < 0)
				return errno;
			target[tl] = '\0';
			if (link_dirs) {
				char dir[PATH_MAX];

				snprintf(dir, sizeof(dir), "%.*s", (int)(rlen ? rlen : 1), res);
				if (srt__strv_push(link_dirs, dir))
					return ENOMEM;
			}
			{
				size_t tl2 = strlen(target), pl = strlen(p);

				if (tl2 + 1 + pl + 1 > sizeof(rest))
					return ENAMETOOLONG;
				memcpy(rest, target, tl2);
				rest[tl2] = '/';
				memcpy(rest + tl2 + 1, p, pl + 1);
				memcpy(todo, rest, tl2 + 1 + pl + 1);
			}
			p = todo;
			res[rlen] = '\0';
			if (target[0] == '/') {
				rlen = 0;
				res[0] = '\0';
			}
			continue;
		}
		rlen += 1 + clen;
		if (!S_ISDIR(st.st_mode)) {
			const char *q = p;

			while (*q == '/')
				q++;
			if (*q) {
				snprintf(out, PATH_MAX, "%s", res);
				return ENOTDIR;
			}
			*type = T_OTHER;
		} else {
			*type = T_DIR;
			srt__plan_dir_remember(res);
		}
	}
	/* res is PATH_MAX long, as out is */
	if (rlen == 0)
		memcpy(out, "/", 2);
	else
		memcpy(out, res, rlen + 1);
	if (missing)
		*type = T_MISSING;
	return 0;
}
