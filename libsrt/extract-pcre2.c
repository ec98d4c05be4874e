/* libsrt/extract.h with PCRE2, compiled with the credentials module's
 * own options (SRT__CREDMASK_PCRE2_OPTIONS). libsrt links PCRE2 for this
 * file alone (on Windows win/build.sh links it statically into
 * libsrt-0.dll); the patterns are applied in the credentials module. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "common/credmask.h"
#include "extract.h"

int srt__extract_compile(const char *pattern, size_t *groups, char *err, size_t errlen)
{
	pcre2_code *re;
	PCRE2_SIZE at;
	uint32_t n = 0;
	int code;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, SRT__CREDMASK_PCRE2_OPTIONS,
			   &code, &at, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];

		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "PCRE2 error %d", code);
		snprintf(err, errlen, "%s at offset %zu", (const char *)msg, (size_t)at);
		return -1;
	}
	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &n);
	pcre2_code_free(re);
	*groups = n;
	return 0;
}
