/* bench/opencost.c: the cost of one open, for splitting a sandboxed
 * build's extra CPU time by its cause.
 *
 *   opencost FILE N      open FILE read-only and close it, N times
 *
 * bench/run (the build section) runs it with N = 1 and N = 20,000 outside,
 * in srt with FILE inside a write root and outside one, and with denyRead
 * (every read open observed), under `perf stat -e task-clock`: the
 * difference of the whole tree's CPU time divided by N is what one open
 * costs there, the command's own call plus whatever other processes of the
 * sandbox do because of it (the read observer's round trip, the watcher's
 * inotify events in a write root). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) < 1 || n > 100000000) {
		fprintf(stderr, "usage: opencost FILE N (N >= 1)\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		close(fd);
	}
	return 0;
}
