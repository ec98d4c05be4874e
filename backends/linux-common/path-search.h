/* Linux backends: finding a program on $PATH the way srt may trust it. */
#ifndef SRT_LINUX_PATH_SEARCH_H
#define SRT_LINUX_PATH_SEARCH_H

#include <stddef.h>

/* Look for name in each absolute entry of $PATH (or of
 * "/usr/local/bin:/usr/bin:/bin" when PATH is unset or empty), in order:
 * the first executable candidate that accept (optional) takes is written
 * to out and 0 is returned; -1 when none is. Relative entries ("." or "")
 * are skipped: they would pick up a file from the working directory. out
 * is scratch space while searching, valid only on success. */
int srt__path_search(const char *name, int (*accept)(const char *path, const void *arg),
		     const void *arg, char *out, size_t outlen);

#endif
