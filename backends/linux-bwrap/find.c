/* linux-bwrap: finding bwrap on $PATH and the helper next to the module,
 * refusing a program a sandboxed command could have planted. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <srt/backend.h>

#include "backends/linux-common/path-search.h"
#include "backends/linux-common/sibling.h"
#include "find.h"

/* Whether a program found on PATH may be trusted to build the sandbox: a
 * sandboxed command must not be able to plant it. So: a regular file that
 * neither it nor its directory lets group or others write, and that, when
 * it lies inside a write root of the policy (where a previous run could
 * have written), this user cannot write either (nor its directory). The
 * owner is not checked: inside a user namespace the real root shows as the
 * overflow uid. */
int srt__bwrap_trusted_program(const char *path, const struct srt_policy *pol)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	char *slash;
	size_t i;
	int in_root = 0;

	if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 022))
		return 0;
	snprintf(dir, sizeof(dir), "%s", real);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (stat(dir, &st) != 0 || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
		return 0;
	for (i = 0; pol && i < pol->allow_write.n; i++) {
		const char *root = pol->allow_write.v[i].path;
		size_t l = strlen(root);
		if (!strcmp(root, "/") || (!strncmp(real, root, l) && (real[l] == '/' || real[l] == '\0')))
			in_root = 1;
	}
	if (in_root && (access(real, W_OK) == 0 || access(dir, W_OK) == 0))
		return 0;
	return 1;
}

static int accept_trusted(const char *path, const void *pol)
{
	return srt__bwrap_trusted_program(path, pol);
}

int srt__bwrap_find_on_path(const char *name, const struct srt_policy *pol, char *out, size_t outlen)
{
	return srt__path_search(name, accept_trusted, pol, out, outlen);
}

int srt__bwrap_find_helper(char *out, size_t outlen)
{
	extern const struct srt_backend srt_backend_entry;

	return srt__module_sibling(&srt_backend_entry, "srt-linux-init", out, outlen);
}
