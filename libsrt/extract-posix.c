/* libsrt/extract.h with the C library's regcomp (extended syntax): the
 * Linux and macOS builds, whose libsrt links no PCRE2 (only the
 * credentials module does). */
#include "config.h"

#include <regex.h>

#include "extract.h"

int srt__extract_compile(const char *pattern, size_t *groups, char *err, size_t errlen)
{
	regex_t re;
	int r = regcomp(&re, pattern, REG_EXTENDED);

	if (r != 0) {
		regerror(r, &re, err, errlen);
		return -1;
	}
	*groups = re.re_nsub;
	regfree(&re);
	return 0;
}
