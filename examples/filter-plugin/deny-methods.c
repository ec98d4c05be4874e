/* deny-methods: a request filter built out of srt's tree, as a third party
 * would write one. It refuses the HTTP methods its config lists, with 405:
 *
 *   {"plugin": "deny-methods", "config": {"methods": ["DELETE", "PATCH"]}}
 *
 * It parses its config by hand to need nothing but srt's headers; a real
 * filter would use a JSON library. Build: make (see Makefile). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <srt/filter.h>

#define MAX_METHODS 16

struct state {
	char methods[MAX_METHODS][24];
	int n;
};

/* Read "methods": ["A", "B"] from the config text. */
static int parse(const char *cfg, struct state *s, struct srt_filter_error *err)
{
	const char *p = cfg ? strstr(cfg, "\"methods\"") : NULL;
	size_t n;

	if (!p || !(p = strchr(p, '['))) {
		snprintf(err->path, sizeof(err->path), "methods");
		snprintf(err->message, sizeof(err->message), "missing: a list of HTTP methods");
		return SRT_E_INVAL;
	}
	for (p++; *p && *p != ']';) {
		if (*p != '"') {
			p++;
			continue;
		}
		n = strcspn(++p, "\"");
		if (s->n == MAX_METHODS || n == 0 || n >= sizeof(s->methods[0])) {
			snprintf(err->path, sizeof(err->path), "methods[%d]", s->n);
			snprintf(err->message, sizeof(err->message), "expected a method name");
			return SRT_E_INVAL;
		}
		memcpy(s->methods[s->n], p, n);
		s->methods[s->n][n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (!isupper((unsigned char)p[i])) {
				snprintf(err->path, sizeof(err->path), "methods[%d]", s->n);
				snprintf(err->message, sizeof(err->message),
					 "\"%s\" is not an upper-case method name", s->methods[s->n]);
				return SRT_E_INVAL;
			}
		s->n++;
		p += n + 1;
	}
	return SRT_OK;
}

static int dm_create(const struct srt_filter_host *host, const char *config_json,
		     void **state, struct srt_filter_error *err)
{
	struct state *s = calloc(1, sizeof(*s));

	(void)host;
	if (!s)
		return SRT_E_NOMEM;
	if (parse(config_json, s, err) != SRT_OK) {
		free(s);
		return SRT_E_INVAL;
	}
	*state = s;
	return SRT_OK;
}

static void dm_destroy(void *state)
{
	free(state);
}

static enum srt_filter_verdict dm_head(void *state, struct srt_filter_request *req,
				       struct srt_filter_call *call)
{
	const struct state *s = state;

	for (int i = 0; i < s->n; i++)
		if (!strcmp(req->method, s->methods[i])) {
			call->status = 405;
			snprintf(call->reason, sizeof(call->reason), "%s is not allowed here",
				 req->method);
			return SRT_FILTER_DENY;
		}
	return SRT_FILTER_CONTINUE;
}

const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("deny-methods"),
	.create = dm_create,
	.destroy = dm_destroy,
	.request_head = dm_head,
};
