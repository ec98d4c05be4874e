/* Linux backends: the $PATH search both the bwrap lookup and the setuid
 * check use, so they agree on which bwrap srt runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/linux-common/path-search.h"

int srt__path_search(const char *name, int (*accept)(const char *path, const void *arg),
		     const void *arg, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	const char *p, *e;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		size_t l;
		e = strchrnul(p, ':');
		l = (size_t)(e - p);
		/* only absolute PATH entries: "." or "" would pick up a file
		 * from the working directory */
		if (l == 0 || p[0] != '/')
			continue;
		if (snprintf(out, outlen, "%.*s/%s", (int)l, p, name) >= (int)outlen)
			continue;
		if (access(out, X_OK) == 0 && (!accept || accept(out, arg)))
			return 0;
	}
	return -1;
}
