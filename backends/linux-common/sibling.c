/* Finding a module's helper programs, and reading sysctls. */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/linux-common/sibling.h"
#include "backends/linux-common/small-file.h"

/* The last answer, per thread: a start asks for the same helper from the
 * probe, the prepare and the mount plan, and each realpath walks every
 * component of the module's path. The answer is remembered for the module
 * file (as the dynamic loader names it) and the helper's name, so the
 * three agree on one file; it is checked for being executable at every
 * call. */
static __thread struct {
	char module[PATH_MAX];
	char name[64];
	char out[PATH_MAX];
} last;

static int sibling_lookup(const char *module, const char *name, char *out, size_t outlen)
{
	char dir[PATH_MAX], real[PATH_MAX];
	char *slash;

	if (!realpath(module, dir))
		return -1;
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (snprintf(out, outlen, "%s/%s", dir, name) < (int)outlen && access(out, X_OK) == 0)
		return 0;
	if (snprintf(out, outlen, "%s/../%s", dir, name) < (int)outlen && access(out, X_OK) == 0 &&
	    realpath(out, real) && strlen(real) < outlen) {
		memcpy(out, real, strlen(real) + 1);
		return 0;
	}
	return -1;
}

int srt__module_sibling(const void *symbol, const char *name, char *out, size_t outlen)
{
	Dl_info info;
	size_t l;

	if (!dladdr(symbol, &info) || !info.dli_fname)
		return -1;
	if (last.module[0] && !strcmp(last.module, info.dli_fname) && !strcmp(last.name, name) &&
	    strlen(last.out) < outlen && access(last.out, X_OK) == 0) {
		memcpy(out, last.out, strlen(last.out) + 1);
		return 0;
	}
	last.module[0] = '\0';
	if (sibling_lookup(info.dli_fname, name, out, outlen) != 0)
		return -1;
	l = strlen(out);
	if (strlen(info.dli_fname) < sizeof(last.module) && strlen(name) < sizeof(last.name) &&
	    l < sizeof(last.out)) {
		memcpy(last.name, name, strlen(name) + 1);
		memcpy(last.out, out, l + 1);
		memcpy(last.module, info.dli_fname, strlen(info.dli_fname) + 1);
	}
	return 0;
}

long srt__read_long_file(const char *path)
{
	char buf[64];

	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}
