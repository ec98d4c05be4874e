/* Where an allowed Unix socket path is (see unix-path.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/linux-common/mountinfo.h"
#include "backends/linux-common/unix-path.h"

int srt__real_location(const char *p, char out[PATH_MAX])
{
	char buf[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(p);
	char *cut;

	if (p[0] != '/' || len >= sizeof(buf))
		return -1;
	if (srt__realpath_memo(p, out) == 0)
		return 0;
	memcpy(buf, p, len + 1);
	for (;;) {
		cut = strrchr(buf, '/');
		if (!cut)
			return -1;
		if (cut == buf)
			return snprintf(out, PATH_MAX, "%s", p) < PATH_MAX ? 0 : -1;
		*cut = '\0';
		if (srt__realpath_memo(buf, real) == 0) {
			int n = snprintf(out, PATH_MAX, "%s%s", strcmp(real, "/") ? real : "", p + (cut - buf));
			return n >= 0 && n < PATH_MAX ? 0 : -1;
		}
	}
}

int srt__unix_path_spelling(const char *p, char out[PATH_MAX])
{
	const char *slash = strrchr(p, '/');
	char dir[PATH_MAX], real[PATH_MAX];

	if (p[0] != '/' || !slash || !slash[1] || (size_t)(slash - p) >= sizeof(dir))
		return -1;
	memcpy(dir, p, (size_t)(slash - p));
	dir[slash - p] = '\0';
	if (srt__real_location(dir[0] ? dir : "/", real) != 0 ||
	    snprintf(out, PATH_MAX, "%s%s", strcmp(real, "/") ? real : "", slash) >= PATH_MAX ||
	    strlen(out) > SRT_UNIX_PATH_MAX)
		return -2;
	return 0;
}
