/* macos-seatbelt: the small pieces a Seatbelt (SBPL) profile is written
 * with. Portable C: nothing here needs macOS, so the profile can be built,
 * printed and tested on any system.
 *
 * - a growing text buffer that remembers an allocation failure instead of
 *   returning one at every append;
 * - SBPL string literals (the JSON escaping sandbox-exec reads);
 * - the glob grammar of the settings turned into the regular expressions
 *   Seatbelt matches paths with;
 * - the path relations the profile's rules are chosen by. */
#ifndef SRT_MACOS_SBPL_H
#define SRT_MACOS_SBPL_H

#include <stddef.h>

struct srt__sb_buf {
	char *s;    /* NUL-terminated while not failed */
	size_t n;   /* bytes, not counting the NUL */
	size_t cap;
	int failed; /* an allocation failed: s is unusable */
};

void srt__sb_puts(struct srt__sb_buf *b, const char *s);
void srt__sb_putn(struct srt__sb_buf *b, const char *s, size_t n);
void srt__sb_printf(struct srt__sb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s as an SBPL string literal: quoted, with '"', '\\' and control bytes
 * escaped the way JSON writes them (what sandbox-exec reads back). */
void srt__sb_quote(struct srt__sb_buf *b, const char *s);
void srt__sb_release(struct srt__sb_buf *b);
/* The buffer's text, handed to the caller; NULL when an append failed. */
char *srt__sb_take(struct srt__sb_buf *b);

/* The settings' glob grammar as an anchored regex ("^...$"): "*" is one
 * name's worth of characters, "**" anything, "**" followed by "/" any
 * number of directories (none included), "?" one character that is not
 * "/", "[...]" a bracket set up to the first "]"; every other regex
 * character is escaped. malloc'd; NULL when out of memory. */
char *srt__sb_glob_regex(const char *glob);
/* The same regex, widened to everything below each match ("(/.*)?$"):
 * what a deny of a glob must cover, as a subpath does for a path. */
char *srt__sb_glob_deny_regex(const char *glob);
/* The regex for a pattern joined onto a directory of srt's own (the
 * working directory for the protected names): the directory is a name on
 * disk and is escaped whole; only tail is pattern. deny as above. */
char *srt__sb_anchored_regex(const char *anchor, const char *tail, int deny);
/* Every regex character of text escaped, for a name inside a regex. */
char *srt__sb_regex_literal(const char *text);

/* Does the extended regex re match s? -1 when re does not compile. */
int srt__sb_regex_match(const char *re, const char *s);

/* p is dir or lies below it, by whole components ("/xy" is not below "/x"). */
int srt__sb_at_or_under(const char *p, const char *dir);
/* p lies strictly below dir. */
int srt__sb_strictly_under(const char *p, const char *dir);

/* The other spelling of a path through the macOS firmlinks (/tmp, /var
 * and /etc are links into /private): "/private/tmp/x" for "/tmp/x" and
 * the reverse; NULL when there is none or out of memory. The kernel
 * reports the /private spelling; a rule written the other way would
 * match nothing, so rules carry both. */
char *srt__sb_other_spelling(const char *p);

#endif
