/* linux-bwrap: putting back, after the run, the protected symbolic links a
 * command replaced or removed (plan->links; see mounts.c for why a link's
 * own name cannot be protected by a mount alone). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/aside.h"
#include "mount-placeholders.h"
#include "mounts.h"

size_t srt__bwrap_plan_restore_links(const struct srt__strv *links, FILE *report)
{
	size_t i, restored = 0;

	for (i = 0; links && i + 1 < links->n; i += 2) {
		const char *path = links->v[i], *target = links->v[i + 1];
		char parent[PATH_MAX], now[PATH_MAX], aside[NAME_MAX + 1];
		const char *base = strrchr(path, '/');
		struct stat st;
		ssize_t nl;
		int pfd, err, moved = 0;

		if (!base || !base[1] || (size_t)(base - path) >= sizeof(parent))
			continue;
		snprintf(parent, sizeof(parent), "%.*s", base == path ? 1 : (int)(base - path), path);
		base++;
		/* the parent as planned, not through a link swapped in since */
		pfd = srt__mount_open_dir_nofollow(parent);
		if (pfd < 0) {
			if (report)
				fprintf(report, "srt: deny filesystem-write %s: the directory of this protected link cannot be opened without following a link (%s); inspect it\n",
					path, strerror(errno));
			continue;
		}
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			nl = readlinkat(pfd, base, now, sizeof(now) - 1);
			if (nl >= 0 && (size_t)nl < sizeof(now) - 1) {
				now[nl] = '\0';
				if (!strcmp(now, target)) {
					close(pfd);
					continue;
				}
			}
		}
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			err = srt__rename_aside(pfd, base, aside);
			if (err) {
				if (report)
					fprintf(report, "srt: deny filesystem-write %s: this protected link was replaced inside the sandbox and srt could not move the replacement aside (%s); inspect it before using it\n",
						path, strerror(err));
				close(pfd);
				continue;
			}
			moved = 1;
		}
		if (symlinkat(target, pfd, base) != 0) {
			if (report)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was %s inside the sandbox and srt could not put it back (%s); it pointed to %s\n",
					path, moved ? "replaced" : "removed", strerror(errno), target);
		} else {
			restored++;
			if (report && moved)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was replaced inside the sandbox; the replacement is now %s/%s and the link to %s is back\n",
					path, parent, aside, target);
			else if (report)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was removed inside the sandbox; the link to %s is back\n",
					path, target);
		}
		close(pfd);
	}
	return restored;
}
