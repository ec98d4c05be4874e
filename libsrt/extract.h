/* The pattern engine that judges a credentials extract pattern when the
 * settings are checked (libsrt/settings-sections.c).
 *
 * One implementation, extract-pcre2.c, on every system: PCRE2 with the
 * credentials module's own compile options (common/credmask.h), so the
 * check and the module that applies the pattern judge it alike (a check
 * with another engine, such as the C library's POSIX regcomp, refuses
 * PCRE2 syntax such as "(?:a|b)" or "\d" that the module would apply,
 * and counts groups differently). */
#ifndef SRT_LIBSRT_EXTRACT_H
#define SRT_LIBSRT_EXTRACT_H

#include <stddef.h>

/* Compile pattern and throw it away. 0: it compiles, *groups is the
 * number of its capturing groups. -1: it does not, err (errlen bytes,
 * NUL-terminated) says why in the engine's words; *groups is untouched. */
int srt__extract_compile(const char *pattern, size_t *groups, char *err, size_t errlen);

#endif
