/* win/include: the C library's <stdlib.h>, plus realpath and mkdtemp
 * (see README). */
#ifndef SRT_WIN_STDLIB_H
#define SRT_WIN_STDLIB_H
#include_next <stdlib.h>
/* the absolute name of an existing file; a reparse point along it is not
 * resolved: ENOSYS when path itself is one */
char *realpath(const char *path, char *resolved);
char *mkdtemp(char *tmpl);
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);
#endif
