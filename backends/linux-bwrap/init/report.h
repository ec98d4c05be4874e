/* srt-linux-init: how the helper reports, shared by all its files: one
 * write(2) per line on stderr, and setup failures on the --status-fd
 * descriptor when srt gave one (srt then prints them as its own error). */
#ifndef SRT_INIT_REPORT_H
#define SRT_INIT_REPORT_H

/* --status-fd, or -1 */
extern int srt__init_status_fd;

/* One line on stderr. */
void srt__init_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a setup failure: "E" and the line on the status fd, else stderr. */
void srt__init_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* srt__init_failf("srt-linux-init: <step>: <strerror(err)>"). */
void srt__init_fail(const char *step, int err);

#endif
