/* The JSON front end: settings text checked for what cJSON lets through
 * (number grammar, NUL and control characters, UTF-8, nesting depth),
 * parsed with cJSON and copied into the settings document tree, which
 * settings-sections.c validates. cJSON objects never leave this file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "settings.h"
#include "settings-node.h"
#include "settings-sections.h"

static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static int syntax_error(struct srt_diag *diag, const char *origin, const char *text,
			size_t len, size_t off, const char *what)
{
	size_t line, col;
	char near[16];

	line_col(text, off, &line, &col);
	if (off >= len)
		snprintf(near, sizeof(near), "end of input");
	else if ((unsigned char)text[off] >= 0x21 && (unsigned char)text[off] < 0x7f)
		snprintf(near, sizeof(near), "'%c'", text[off]);
	else
		snprintf(near, sizeof(near), "byte 0x%02x", (unsigned char)text[off]);
	return srt_diag_set(diag, SRT_E_SETTINGS, "(root)",
			    "%s is not valid JSON: %s at line %zu, column %zu (at %s)", origin, what,
			    line, col, near);
}

static bool is_json_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Length of a valid UTF-8 sequence at p (0 when invalid): overlongs,
 * surrogates and code points past U+10FFFF are refused. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned int cp;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Checks cJSON does not make, before it runs: JSON's number grammar (cJSON
 * hands any run of "+-.eE0-9" to strtod, accepting "01" and "+1"), raw
 * control characters and "\u0000" in strings (a NUL would silently cut a
 * path short), valid UTF-8, and the nesting bound (cJSON recurses). */
static int json_prescan(const char *t, size_t len, const char *origin, struct srt_diag *diag)
{
	size_t i = 0, depth = 0, n;
	bool in_str = false;

	while (i < len) {
		unsigned char ch = (unsigned char)t[i];

		if (ch >= 0x80) {
			n = utf8_seq((const unsigned char *)t + i, len - i);
			if (!n)
				return syntax_error(diag, origin, t, len, i, "invalid UTF-8");
			i += n;
			continue;
		}
		if (in_str) {
			if (ch == '"') {
				in_str = false;
			} else if (ch < 0x20) {
				return syntax_error(diag, origin, t, len, i,
						    "control character in a string");
			} else if (ch == '\\') {
				if (i + 5 < len && t[i + 1] == 'u' && memcmp(t + i + 2, "0000", 4) == 0)
					return syntax_error(diag, origin, t, len, i,
							    "\"\\u0000\" (NUL) in a string");
				i += 2;
				continue;
			}
			i++;
			continue;
		}
		if (ch == '"') {
			in_str = true;
		} else if (ch == '{' || ch == '[') {
			if (++depth > SRT_SETTINGS_MAX_DEPTH) {
				char what[64];

				snprintf(what, sizeof(what), "nested deeper than %d levels",
					 SRT_SETTINGS_MAX_DEPTH);
				return syntax_error(diag, origin, t, len, i, what);
			}
		} else if (ch == '}' || ch == ']') {
			if (depth)
				depth--;
		} else if (ch == '-' || (ch >= '0' && ch <= '9') || ch == '+' || ch == '.') {
			size_t j = i;

			if (t[j] == '-')
				j++;
			if (j < len && t[j] == '0')
				j++;
			else if (j < len && t[j] >= '1' && t[j] <= '9')
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			else
				return syntax_error(diag, origin, t, len, j, "invalid number");
			if (j < len && t[j] == '.') {
				j++;
				if (j >= len || t[j] < '0' || t[j] > '9')
					return syntax_error(diag, origin, t, len, j, "invalid number");
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			}
			if (j < len && (t[j] == 'e' || t[j] == 'E')) {
				j++;
				if (j < len && (t[j] == '+' || t[j] == '-'))
					j++;
				if (j >= len || t[j] < '0' || t[j] > '9')
					return syntax_error(diag, origin, t, len, j, "invalid number");
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			}
			if (j < len && strchr("+-.eE0123456789", t[j]))
				return syntax_error(diag, origin, t, len, j, "invalid number");
			i = j;
			continue;
		}
		i++;
	}
	return SRT_OK;
}

static int from_cjson(const cJSON *j, struct srt__snode **out)
{
	struct srt__snode *n = NULL, *ch;
	const cJSON *e;

	if (cJSON_IsNull(j))
		n = srt__snode_new(SRT_SNODE_NULL);
	else if (cJSON_IsBool(j)) {
		n = srt__snode_new(SRT_SNODE_BOOL);
		if (n)
			n->boolean = cJSON_IsTrue(j);
	} else if (cJSON_IsNumber(j)) {
		n = srt__snode_new(SRT_SNODE_NUMBER);
		if (n)
			n->number = j->valuedouble;
	} else if (cJSON_IsString(j)) {
		n = srt__snode_new(SRT_SNODE_STRING);
		if (n && !(n->string = strdup(j->valuestring))) {
			free(n);
			n = NULL;
		}
	} else if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		n = srt__snode_new(cJSON_IsArray(j) ? SRT_SNODE_ARRAY : SRT_SNODE_OBJECT);
		if (!n)
			return SRT_E_NOMEM;
		for (e = j->child; e; e = e->next) {
			if (from_cjson(e, &ch) != SRT_OK) {
				srt__snode_free(n);
				return SRT_E_NOMEM;
			}
			if (n->type == SRT_SNODE_OBJECT && !(ch->key = strdup(e->string))) {
				srt__snode_free(ch);
				srt__snode_free(n);
				return SRT_E_NOMEM;
			}
			srt__snode_append(n, ch);
		}
	} else {
		return SRT_E_INVAL;
	}
	if (!n)
		return SRT_E_NOMEM;
	*out = n;
	return SRT_OK;
}

int srt__settings_parse_json(struct srt__settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag)
{
	struct srt__snode *root = NULL;
	cJSON *j = NULL;
	const char *end = NULL;
	size_t off = 0, i;
	int rc;

	if (!origin)
		origin = "settings";
	if (!s || (!text && len)) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "(root)", "%s: no settings text", origin);
		goto out;
	}
	if (len > SRT_SETTINGS_MAX_BYTES) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)",
				  "%s is too large (%zu bytes; the limit is %u bytes)", origin, len,
				  SRT_SETTINGS_MAX_BYTES);
		goto out;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		off = 3;
	for (i = off; i < len && is_json_ws(text[i]); i++)
		;
	if (i == len) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)", "%s is empty", origin);
		goto out;
	}
	if (memchr(text, '\0', len)) {
		rc = syntax_error(diag, origin, text, len, (size_t)((const char *)memchr(text, '\0', len) - text),
				  "NUL byte in the text");
		goto out;
	}
	if ((rc = json_prescan(text + off, len - off, origin, diag)) != SRT_OK)
		goto out;
	j = cJSON_ParseWithLengthOpts(text + off, len - off, &end, 0);
	if (!j) {
		size_t pos = end && end >= text + off && end <= text + len ? (size_t)(end - text) : len;

		rc = syntax_error(diag, origin, text, len, pos, "syntax error");
		goto out;
	}
	for (i = (size_t)(end - text); i < len && is_json_ws(text[i]); i++)
		;
	if (i < len) {
		rc = syntax_error(diag, origin, text, len, i, "unexpected text after the JSON value");
		goto out;
	}
	if ((rc = from_cjson(j, &root)) != SRT_OK) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", origin);
		goto out;
	}
	rc = srt__settings_from_snode(s, root, origin, diag);
	s = NULL;
out:
	if (rc && s)
		srt__settings_release(s);
	cJSON_Delete(j);
	srt__snode_free(root);
	return rc;
}
