/* The pattern engine that judges a credentials extract pattern when the
 * settings are checked (libsrt/settings-sections.c).
 *
 * One implementation per build: extract-posix.c (the C library's regcomp,
 * extended syntax; Linux and macOS) and extract-pcre2.c (PCRE2 with the
 * credentials module's own compile options, common/credmask.h; the
 * Windows build, whose C library has no regcomp, so the check and the
 * module that applies the pattern judge it alike). */
#ifndef SRT_LIBSRT_EXTRACT_H
#define SRT_LIBSRT_EXTRACT_H

#include <stddef.h>

/* Compile pattern and throw it away. 0: it compiles, *groups is the
 * number of its capturing groups. -1: it does not, err (errlen bytes,
 * NUL-terminated) says why in the engine's words; *groups is untouched. */
int srt__extract_compile(const char *pattern, size_t *groups, char *err, size_t errlen);

#endif
