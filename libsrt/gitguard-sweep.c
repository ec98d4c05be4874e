/* srt-gitguard-sweep: the git guard's sweep (gitguard.h) for a srt that
 * was killed mid-run. srt's cleanup guard runs it once nothing sandboxed
 * is left, with the write roots the snapshot opened as descriptors 3 ..
 * 2 + N and the snapshot's state (srt__gitguard_orphan_program) as 3 + N:
 *
 *     srt-gitguard-sweep --roots N
 *
 * Nobody is left to report to; the quarantine itself is what counts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitguard.h"

#define SWEEP_ROOTS_MAX 4096

int main(int argc, char **argv)
{
	static int fds[SWEEP_ROOTS_MAX];
	struct srt__gitguard *g;
	unsigned long n;
	char *end;

	if (argc != 3 || strcmp(argv[1], "--roots") != 0) {
		fprintf(stderr, "srt-gitguard-sweep: usage: srt-gitguard-sweep --roots N (started by srt's cleanup guard)\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 10);
	if (*end || n == 0 || n > SWEEP_ROOTS_MAX) {
		fprintf(stderr, "srt-gitguard-sweep: --roots: \"%s\" is not a count from 1 to %d\n", argv[2],
			SWEEP_ROOTS_MAX);
		return 2;
	}
	for (unsigned long i = 0; i < n; i++)
		fds[i] = (int)(3 + i);
	g = srt__gitguard_import((int)(3 + n), fds, n);
	if (!g) {
		fprintf(stderr, "srt-gitguard-sweep: descriptor %lu holds no state of this build's git guard\n",
			3 + n);
		return 1;
	}
	srt__gitguard_sweep(g, NULL, NULL);
	return 0;
}
