/* srt_quote_argv: argv as one shell string, the command's key in the
 * violation store and the text shown for it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <srt/srt.h>

/* Bare when the word matches [A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*,
 * otherwise single-quoted with ' spelled '"'"'. */
static int word_is_bare(const char *w)
{
	const char *p;

	if (!*w || *w == '=')
		return 0;
	for (p = w; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      strchr("_./:@+,-=", c)))
			return 0;
	}
	return 1;
}

int srt_quote_argv(const char *const *argv, char **out)
{
	size_t cap = 1, i, o = 0;
	const char *p;
	char *s;

	for (i = 0; argv[i]; i++)
		cap += strlen(argv[i]) * 5 + 3;
	if (!(s = malloc(cap)))
		return SRT_E_NOMEM;
	for (i = 0; argv[i]; i++) {
		if (i)
			s[o++] = ' ';
		if (word_is_bare(argv[i])) {
			memcpy(s + o, argv[i], strlen(argv[i]));
			o += strlen(argv[i]);
			continue;
		}
		s[o++] = '\'';
		for (p = argv[i]; *p; p++) {
			if (*p == '\'') {
				memcpy(s + o, "'\"'\"'", 5);
				o += 5;
			} else {
				s[o++] = *p;
			}
		}
		s[o++] = '\'';
	}
	s[o] = '\0';
	*out = s;
	return SRT_OK;
}
