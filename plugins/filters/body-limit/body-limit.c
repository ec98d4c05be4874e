/* body-limit: caps request bodies per host; past the cap, 413.
 *
 *   {"default": 1048576,
 *    "hosts": [{"host": "uploads.example.com", "max": 104857600},
 *              {"host": "*.example.com", "max": 0}]}
 *
 * The first `hosts` entry whose glob (any case) matches the request's host
 * gives its cap in bytes; no entry matching: `default` (no cap when it is
 * absent). A declared Content-Length past the cap is refused from the head
 * alone. A body without one (chunked) is read as it comes, held back from
 * the target, and refused once it passes the cap; such a body can be held
 * only up to SRT_FILTER_BODY_MAX (16 MiB), so with a larger cap a chunked
 * body past 16 MiB is refused too (fail closed: it cannot be counted). */
#include "config.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <srt/filter.h>

#include "plugins/filters/common/jcfg.h"

struct limit {
	char *host;
	uint64_t max;
};

struct body_limit {
	struct limit *l;
	size_t n;
	int has_default;
	uint64_t dflt;
};

static void bl_free(struct body_limit *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n; i++)
		free(b->l[i].host);
	free(b->l);
	free(b);
}

static int parse_size(const cJSON *j, const char *path, uint64_t *out,
		      struct srt_filter_error *err)
{
	/* integers up to 2^53 are exact in a double */
	if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > 9007199254740992.0 ||
	    j->valuedouble != (double)(uint64_t)j->valuedouble)
		return jcfg_fail(err, path, "expected a whole number of bytes (0 or more)");
	*out = (uint64_t)j->valuedouble;
	return SRT_OK;
}

static int parse_hosts(const cJSON *list, struct body_limit *b, struct srt_filter_error *err)
{
	static const char *const known[] = { "host", "max", NULL };
	const cJSON *e, *h, *m;
	char base[64], path[96];
	size_t i = 0;
	int rc;

	if (!cJSON_IsArray(list))
		return jcfg_fail(err, "hosts", "expected an array of {\"host\", \"max\"}");
	b->l = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*b->l));
	if (!b->l)
		return SRT_E_NOMEM;
	cJSON_ArrayForEach(e, list) {
		jcfg_index(base, sizeof(base), "hosts", i++);
		if ((rc = jcfg_members(e, base, known, err)))
			return rc;
		h = cJSON_GetObjectItemCaseSensitive(e, "host");
		m = cJSON_GetObjectItemCaseSensitive(e, "max");
		jcfg_key(path, sizeof(path), base, "host");
		if (!cJSON_IsString(h) || !*h->valuestring)
			return jcfg_fail(err, path, "expected a host glob such as \"*.example.com\"");
		jcfg_key(path, sizeof(path), base, "max");
		if (!m)
			return jcfg_fail(err, path, "missing: the cap in bytes");
		if ((rc = parse_size(m, path, &b->l[b->n].max, err)))
			return rc;
		if (!(b->l[b->n].host = strdup(h->valuestring)))
			return SRT_E_NOMEM;
		b->n++;
	}
	return SRT_OK;
}

static int bl_create(const struct srt_filter_host *host, const char *config_json,
		     void **state, struct srt_filter_error *err)
{
	static const char *const known[] = { "default", "hosts", NULL };
	struct body_limit *b = calloc(1, sizeof(*b));
	const cJSON *d, *h;
	cJSON *root = NULL;
	int rc;

	(void)host;
	if (!b)
		return SRT_E_NOMEM;
	if ((rc = jcfg_parse(config_json, &root, err)) || (rc = jcfg_members(root, "", known, err)))
		goto out;
	d = cJSON_GetObjectItemCaseSensitive(root, "default");
	h = cJSON_GetObjectItemCaseSensitive(root, "hosts");
	if (!d && !h) {
		rc = jcfg_fail(err, "", "needs \"default\", \"hosts\" or both");
		goto out;
	}
	if (d) {
		if ((rc = parse_size(d, "default", &b->dflt, err)))
			goto out;
		b->has_default = 1;
	}
	if (h && (rc = parse_hosts(h, b, err)))
		goto out;
out:
	cJSON_Delete(root);
	if (rc) {
		bl_free(b);
		return rc;
	}
	*state = b;
	return SRT_OK;
}

static void bl_destroy(void *state)
{
	bl_free(state);
}

/* The cap for host, or 0 with *capped 0 when none applies. */
static uint64_t cap_for(const struct body_limit *b, const char *host, int *capped)
{
	size_t i;

	*capped = 1;
	for (i = 0; i < b->n; i++)
		if (fnmatch(b->l[i].host, host, FNM_CASEFOLD) == 0)
			return b->l[i].max;
	*capped = b->has_default;
	return b->dflt;
}

static enum srt_filter_verdict too_large(struct srt_filter_call *call, uint64_t max,
					 const char *host)
{
	call->status = 413;
	snprintf(call->reason, sizeof(call->reason),
		 "request body larger than the %llu bytes allowed for %s",
		 (unsigned long long)max, host);
	return SRT_FILTER_DENY;
}

static enum srt_filter_verdict bl_head(void *state, struct srt_filter_request *req,
				       struct srt_filter_call *call)
{
	const struct body_limit *b = state;
	const char *te;
	int capped;
	uint64_t max = cap_for(b, req->host, &capped);

	if (!capped)
		return SRT_FILTER_CONTINUE;
	if (req->content_length >= 0)
		return (uint64_t)req->content_length > max ? too_large(call, max, req->host)
							   : SRT_FILTER_CONTINUE;
	te = req->headers->get(req->headers, "Transfer-Encoding");
	if (!te)
		return SRT_FILTER_CONTINUE; /* no body */
	/* counted as it comes; see the end of the body in bl_body */
	call->body_cap = max < SRT_FILTER_BODY_MAX ? (size_t)max : SRT_FILTER_BODY_MAX;
	if (!call->body_cap)
		call->body_cap = 1; /* a cap of 0: any byte at all is too many */
	return SRT_FILTER_CONTINUE;
}

static enum srt_filter_verdict bl_body(void *state, struct srt_filter_request *req,
				       const void *chunk, size_t len, int end, int truncated,
				       struct srt_filter_call *call)
{
	const struct body_limit *b = state;
	int capped;
	uint64_t max = cap_for(b, req->host, &capped);

	(void)chunk;
	if (max == 0 && len)
		return too_large(call, max, req->host);
	if (end && truncated) {
		if (max > SRT_FILTER_BODY_MAX) {
			call->status = 413;
			snprintf(call->reason, sizeof(call->reason),
				 "a request body without a length past %u bytes cannot be counted",
				 SRT_FILTER_BODY_MAX);
			return SRT_FILTER_DENY;
		}
		return too_large(call, max, req->host);
	}
	return SRT_FILTER_CONTINUE;
}

const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("body-limit"),
	.create = bl_create,
	.destroy = bl_destroy,
	.request_head = bl_head,
	.request_body = bl_body,
};
