/* escape-preload: a hostile LD_PRELOAD library for the escape battery.
 *
 * Loaded through LD_PRELOAD given to srt it lands in every dynamically
 * linked process srt starts, srt-linux-init included. It notes where it
 * was loaded (SRT_ESCAPE_PRELOAD_LOG, one "<pid> <exe>" line each) and,
 * with SRT_ESCAPE_PRELOAD_SKIP set, interposes libseccomp's seccomp_load:
 *   SKIP=all     no filter is ever loaded, success is reported
 *   SKIP=later   the first filter loads (the observe filter and its
 *                listener), every later one is skipped
 * The battery then checks from inside the sandbox that the command still
 * runs under its filters, or did not run at all. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void srt__escape_preload_init(void) __attribute__((constructor));
int seccomp_load(void *ctx);

static void note(const char *what)
{
	const char *log = getenv("SRT_ESCAPE_PRELOAD_LOG");
	char exe[256], line[400];
	ssize_t n;
	int fd, len;

	if (!log || !*log)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	len = snprintf(line, sizeof(line), "%ld %s %s\n", (long)getpid(), exe, what);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (len > 0 && write(fd, line, (size_t)len) < 0) {
		/* nothing to do: the log is best effort */
	}
	close(fd);
}

void srt__escape_preload_init(void)
{
	note("loaded");
}

int seccomp_load(void *ctx)
{
	static int calls;
	const char *skip = getenv("SRT_ESCAPE_PRELOAD_SKIP");
	int (*real)(void *) = (int (*)(void *))dlsym(RTLD_NEXT, "seccomp_load");

	calls++;
	if (skip && (!strcmp(skip, "all") || (!strcmp(skip, "later") && calls > 1))) {
		note("seccomp_load skipped");
		return 0;
	}
	note("seccomp_load passed through");
	return real ? real(ctx) : -1;
}
