/* macos-seatbelt: text buffer, SBPL strings, globs as regexes, path
 * relations (see sbpl.h). */
#include "config.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/macos-seatbelt/sbpl.h"

static int grow(struct srt__sb_buf *b, size_t more)
{
	size_t want;
	char *s;

	if (b->failed)
		return -1;
	if (b->n + more + 1 <= b->cap)
		return 0;
	want = b->cap ? b->cap : 256;
	while (want < b->n + more + 1)
		want *= 2;
	s = realloc(b->s, want);
	if (!s) {
		b->failed = 1;
		return -1;
	}
	b->s = s;
	b->cap = want;
	return 0;
}

void srt__sb_putn(struct srt__sb_buf *b, const char *s, size_t n)
{
	if (grow(b, n))
		return;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void srt__sb_puts(struct srt__sb_buf *b, const char *s)
{
	srt__sb_putn(b, s, strlen(s));
}

void srt__sb_printf(struct srt__sb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if (grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

void srt__sb_quote(struct srt__sb_buf *b, const char *s)
{
	const unsigned char *p;

	srt__sb_putn(b, "\"", 1);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': srt__sb_puts(b, "\\\""); break;
		case '\\': srt__sb_puts(b, "\\\\"); break;
		case '\b': srt__sb_puts(b, "\\b"); break;
		case '\f': srt__sb_puts(b, "\\f"); break;
		case '\n': srt__sb_puts(b, "\\n"); break;
		case '\r': srt__sb_puts(b, "\\r"); break;
		case '\t': srt__sb_puts(b, "\\t"); break;
		default:
			if (*p < 0x20)
				srt__sb_printf(b, "\\u%04x", *p);
			else
				srt__sb_putn(b, (const char *)p, 1);
		}
	}
	srt__sb_putn(b, "\"", 1);
}

void srt__sb_release(struct srt__sb_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

char *srt__sb_take(struct srt__sb_buf *b)
{
	char *s;

	if (b->failed || grow(b, 0)) {
		srt__sb_release(b);
		return NULL;
	}
	b->s[b->n] = '\0'; /* an empty buffer was never written */
	s = b->s;
	memset(b, 0, sizeof(*b));
	return s;
}

/* The glob's characters as tokens: a byte, or one of the two globstar
 * forms, kept out of band so no byte of a path can stand for one. */
#define TOK_GLOBSTAR_SLASH 256 /* "**" then "/": any directories, none included */
#define TOK_GLOBSTAR 257       /* "**": anything */

/* Replace each "**" followed by "/" (when slash) or each "**", left to
 * right and not overlapping, by tok: the order the reference's chain of
 * replacements applies. n is updated. */
static void fold_globstar(int *t, size_t *n, int slash, int tok)
{
	size_t i, o = 0;

	for (i = 0; i < *n;) {
		if (i + 1 < *n && t[i] == '*' && t[i + 1] == '*' &&
		    (!slash || (i + 2 < *n && t[i + 2] == '/'))) {
			t[o++] = tok;
			i += slash ? 3 : 2;
		} else {
			t[o++] = t[i++];
		}
	}
	*n = o;
}

static char *glob_body(const char *glob)
{
	struct srt__sb_buf b = { 0 };
	const char *p, *last_close, *open;
	size_t n, i;
	char *s;
	int *t;

	/* regex characters that are not glob syntax are escaped */
	for (p = glob; *p; p++) {
		if (strchr(".^$+{}()|\\", *p))
			srt__sb_putn(&b, "\\", 1);
		srt__sb_putn(&b, p, 1);
	}
	srt__sb_puts(&b, "");
	s = srt__sb_take(&b);
	if (!s)
		return NULL;
	/* a "[" that no "]" follows opens no set: it is the character */
	last_close = strrchr(s, ']');
	open = strchr(last_close ? last_close : s, '[');
	if (open) {
		size_t at = (size_t)(open - s);

		srt__sb_putn(&b, s, at);
		srt__sb_puts(&b, "\\");
		srt__sb_puts(&b, s + at);
		free(s);
		s = srt__sb_take(&b);
		if (!s)
			return NULL;
	}
	n = strlen(s);
	t = malloc((n + 1) * sizeof(*t));
	if (!t) {
		free(s);
		return NULL;
	}
	for (i = 0; i < n; i++)
		t[i] = (unsigned char)s[i];
	free(s);
	fold_globstar(t, &n, 1, TOK_GLOBSTAR_SLASH);
	fold_globstar(t, &n, 0, TOK_GLOBSTAR);
	for (i = 0; i < n; i++) {
		char c = (char)t[i];

		if (t[i] == TOK_GLOBSTAR_SLASH)
			srt__sb_puts(&b, "(.*/)?");
		else if (t[i] == TOK_GLOBSTAR)
			srt__sb_puts(&b, ".*");
		else if (c == '*')
			srt__sb_puts(&b, "[^/]*");
		else if (c == '?')
			srt__sb_puts(&b, "[^/]");
		else
			srt__sb_putn(&b, &c, 1);
	}
	free(t);
	srt__sb_puts(&b, "");
	return srt__sb_take(&b);
}

static char *wrap_body(const char *prefix, char *body, const char *suffix)
{
	struct srt__sb_buf b = { 0 };

	if (!body)
		return NULL;
	srt__sb_puts(&b, prefix);
	srt__sb_puts(&b, body);
	srt__sb_puts(&b, suffix);
	free(body);
	return srt__sb_take(&b);
}

char *srt__sb_glob_regex(const char *glob)
{
	return wrap_body("^", glob_body(glob), "$");
}

char *srt__sb_glob_deny_regex(const char *glob)
{
	return wrap_body("^", glob_body(glob), "(/.*)?$");
}

char *srt__sb_regex_literal(const char *text)
{
	struct srt__sb_buf b = { 0 };
	const char *p;

	for (p = text; *p; p++) {
		if (strchr(".*+?^${}()|[]\\", *p))
			srt__sb_putn(&b, "\\", 1);
		srt__sb_putn(&b, p, 1);
	}
	srt__sb_puts(&b, "");
	return srt__sb_take(&b);
}

char *srt__sb_anchored_regex(const char *anchor, const char *tail, int deny)
{
	char *lit = srt__sb_regex_literal(anchor);
	char *re;
	size_t n;

	if (!lit)
		return NULL;
	n = strlen(lit) + 1;
	re = wrap_body("", glob_body(tail), deny ? "(/.*)?$" : "$");
	if (re) {
		char *all = malloc(1 + n + strlen(re));

		if (all)
			sprintf(all, "^%s%s", lit, re);
		free(re);
		re = all;
	}
	free(lit);
	return re;
}

int srt__sb_regex_match(const char *re, const char *s)
{
	regex_t r;
	int m;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return -1;
	m = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

int srt__sb_at_or_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(p, dir))
		return 1;
	if (!strcmp(dir, "/"))
		return p[0] == '/';
	return !strncmp(p, dir, n) && p[n] == '/';
}

int srt__sb_strictly_under(const char *p, const char *dir)
{
	return strcmp(p, dir) != 0 && srt__sb_at_or_under(p, dir);
}

char *srt__sb_other_spelling(const char *p)
{
	static const char *const linked[] = { "/tmp", "/var", "/etc" };
	size_t i, n;
	char *o;

	for (i = 0; i < sizeof(linked) / sizeof(linked[0]); i++) {
		n = strlen(linked[i]);
		if (!strncmp(p, "/private", 8) && !strncmp(p + 8, linked[i], n) &&
		    (p[8 + n] == '\0' || p[8 + n] == '/'))
			return strdup(p + 8);
		if (!strncmp(p, linked[i], n) && (p[n] == '\0' || p[n] == '/')) {
			o = malloc(strlen(p) + 9);
			if (o)
				sprintf(o, "/private%s", p);
			return o;
		}
	}
	return NULL;
}
