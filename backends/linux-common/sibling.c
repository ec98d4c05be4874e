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

int srt__module_sibling(const void *symbol, const char *name, char *out, size_t outlen)
{
	char dir[PATH_MAX], real[PATH_MAX];
	Dl_info info;
	char *slash;

	if (!dladdr(symbol, &info) || !info.dli_fname || !realpath(info.dli_fname, dir))
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

long srt__read_long_file(const char *path)
{
	char buf[64];

	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}
