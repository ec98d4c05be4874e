/* Shared by the libFuzzer harnesses: an invariant check that aborts (so
 * the fuzzer saves the input and reports it) with the file, line and the
 * condition that failed, and a helper for NUL-terminated copies. */
#ifndef SRT_FUZZ_H
#define SRT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                   \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: invariant violated: %s: ",      \
				__FILE__, __LINE__, #cond);                     \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			abort();                                                \
		}                                                               \
	} while (0)

/* A heap copy of data[0..n) with a NUL after it, sized exactly so that
 * AddressSanitizer catches a read past the terminator. */
static inline char *fuzz_strndup(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	if (n)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

/* The text must end inside the buffer: a field of `cap` bytes holds a
 * terminator. */
static inline int fuzz_terminated(const char *buf, size_t cap)
{
	return memchr(buf, '\0', cap) != NULL;
}

#endif
