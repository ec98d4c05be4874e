/* common/winpath.h: see there. */
#include <errno.h>
#include <string.h>

#include "common/winpath.h"

static int is_sep(char c)
{
	return c == '\\' || c == '/';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int srt__winpath_to_core(const char *in, char drive, char *out, size_t cap)
{
	const char *rest = in;
	size_t n, i;

	if (!in || !*in) {
		errno = EINVAL;
		return -1;
	}
	if (is_letter(in[0]) && in[1] == ':') {
		/* "C:x" names a path relative to drive C's own current
		 * directory, which the core cannot know */
		if (!is_sep(in[2]) || !is_letter(drive) || lower(in[0]) != lower(drive)) {
			errno = ENOSYS;
			return -1;
		}
		rest = in + 2;
	} else if (is_sep(in[0]) && is_sep(in[1])) {
		/* "\\server\share", "//server/share", "\\?\C:\x", "\\.\pipe":
		 * no spelling from the current drive's root */
		errno = ENOSYS;
		return -1;
	}
	n = strlen(rest);
	if (n + 1 > cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < n; i++)
		out[i] = rest[i] == '\\' ? '/' : rest[i];
	out[n] = '\0';
	return 0;
}

int srt__winpath_from_core(const char *in, char drive, char *out, size_t cap)
{
	size_t n;

	if (!in || in[0] != '/' || in[1] == '/' || strchr(in, '\\') || !is_letter(drive)) {
		errno = EINVAL;
		return -1;
	}
	n = strlen(in);
	if (n + 3 > cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[0] = drive;
	out[1] = ':';
	memcpy(out + 2, in, n + 1);
	return 0;
}
