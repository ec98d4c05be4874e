/* Minimal TAP helpers for unit tests (one header, no framework). */
#ifndef SRT_TEST_TAP_H
#define SRT_TEST_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

#define ok(cond, ...) do { \
	tap_n++; \
	if (cond) printf("ok %d - ", tap_n); \
	else { printf("not ok %d - ", tap_n); tap_fail = 1; } \
	printf(__VA_ARGS__); printf("\n"); \
} while (0)

#define contains(hay, needle) (strstr((hay), (needle)) != NULL)

#define tap_done() (printf("1..%d\n", tap_n), tap_fail)

#endif
