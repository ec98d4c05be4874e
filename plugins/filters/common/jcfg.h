/* Reading a filter's JSON configuration with cJSON, for the shipped
 * filters: every error names the key path inside the config
 * ("rules[2].methods[0]"), which the core prefixes with
 * "network.filters[N].config.". Static functions: each module compiles its
 * own copy, so no module depends on another. */
#ifndef SRT_FILTERS_JCFG_H
#define SRT_FILTERS_JCFG_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <srt/filter.h>

/* Fill err with path and a printf message; returns SRT_E_INVAL. */
static __attribute__((format(printf, 3, 4), unused)) int
jcfg_fail(struct srt_filter_error *err, const char *path, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->path, sizeof(err->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return SRT_E_INVAL;
}

/* "base.key" or "key" when base is empty. */
static __attribute__((unused)) void jcfg_key(char *out, size_t n, const char *base,
					     const char *key)
{
	/* a path cut short still names where the error is */
	if (snprintf(out, n, "%s%s%s", base, *base ? "." : "", key) >= (int)n)
		out[n - 1] = '\0';
}

/* "base[i]". */
static __attribute__((unused)) void jcfg_index(char *out, size_t n, const char *base,
					       size_t i)
{
	if (snprintf(out, n, "%s[%zu]", base, i) >= (int)n)
		out[n - 1] = '\0';
}

/* Refuse members of obj not in `known` (NULL-terminated). */
static __attribute__((unused)) int jcfg_members(const cJSON *obj, const char *base,
						const char *const *known,
						struct srt_filter_error *err)
{
	const cJSON *m;
	char path[128];
	size_t i;

	if (!cJSON_IsObject(obj))
		return jcfg_fail(err, base, "expected an object");
	cJSON_ArrayForEach(m, obj) {
		for (i = 0; known[i]; i++)
			if (!strcmp(m->string, known[i]))
				break;
		if (!known[i]) {
			jcfg_key(path, sizeof(path), base, m->string);
			return jcfg_fail(err, path, "unknown key");
		}
	}
	return SRT_OK;
}

/* Parse the config text: NULL text gives an empty object. */
static __attribute__((unused)) int jcfg_parse(const char *text, cJSON **out,
					      struct srt_filter_error *err)
{
	*out = text ? cJSON_Parse(text) : cJSON_CreateObject();
	if (!*out)
		return jcfg_fail(err, "", "not valid JSON");
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return jcfg_fail(err, "", "expected an object");
	}
	return SRT_OK;
}

#endif
