/* Violation store: what was denied, for which command.
 * Thread-safe: producers (the proxy thread, the monitor) add from any thread. */
#ifndef SRT_VIOLATIONS_H
#define SRT_VIOLATIONS_H

#include <srt/srt.h>
#include "settings.h"

#define SRT_VSTORE_KEEP 100     /* events kept, as the reference */
#define SRT_KEY_CHARS 100       /* attribution keys compare on their first 100 chars */

struct srt__vstore;

int srt__vstore_new(struct srt__vstore **out);
void srt__vstore_free(struct srt__vstore *vs);

/* Replace the ignoreViolations rules (copied). */
int srt__vstore_set_ignore(struct srt__vstore *vs, const struct srt__settings *s);
/* Remember the text of a command key (for ignoreViolations and reports). */
int srt__vstore_register(struct srt__vstore *vs, const char *key, const char *text);
/* The listener gets every recorded (not ignored) event, from the adding thread. */
void srt__vstore_listen(struct srt__vstore *vs, srt_violation_fn fn, void *ctx);

/* Record "line" for key (may be NULL). The line is sanitised (control and
 * invisible characters -> one space, '<' '>' removed, trimmed). Returns 1
 * when recorded, 0 when ignored by ignoreViolations. */
int srt__vstore_add(struct srt__vstore *vs, const char *key, const char *line);

/* Copies of the events for key (NULL: all). Free with srt_violations_free. */
int srt__vstore_get(struct srt__vstore *vs, const char *key,
		    struct srt_violation **out, size_t *n);
/* Total events ever recorded (monotonic). */
unsigned long srt__vstore_total(struct srt__vstore *vs);

/* Sanitise in place; exposed for tests. */
void srt__violation_sanitize(char *line);
/* Non-zero when settings.ignoreViolations drops the line: a rule whose
 * command pattern is "*" or a substring of command, with a line pattern
 * that is a substring of line. */
int srt__violation_ignored(const struct srt__settings *s, const char *line,
			   const char *command);

#endif
