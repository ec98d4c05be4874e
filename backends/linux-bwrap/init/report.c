/* srt-linux-init: its messages (report.h): lines on stderr, setup
 * failures on the status descriptor. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/report.h"

/* --status-fd, or -1 */
int srt__init_status_fd = -1;

void srt__init_say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	/* one write(2) per line: no stdio buffers to duplicate across fork */
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

/* Report a setup failure: on the status fd when srt gave us one (srt then
 * prints it as its own one-line error), else on stderr. */
void srt__init_failf(const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + 1, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 3)
		n = (int)sizeof(buf) - 3;
	if (srt__init_status_fd >= 0) {
		buf[0] = 'E';
		buf[n + 1] = '\n';
		if (write(srt__init_status_fd, buf, (size_t)n + 2) == (ssize_t)n + 2)
			return;
		buf[n + 1] = '\0'; /* srt is not listening: say it on stderr */
	}
	srt__init_say("%s", buf + 1);
}

void srt__init_fail(const char *step, int err)
{
	srt__init_failf("srt-linux-init: %s: %s", step, strerror(err));
}
