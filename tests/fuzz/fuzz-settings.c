/* libFuzzer harness: the settings parser, JSON (srt__settings_parse_json)
 * or YAML (srt__settings_parse_yaml with -DFUZZ_SETTINGS_YAML), on every
 * input: init, parse, release. Beyond "no crash, no leak" it checks what
 * the rest of srt relies on after a successful parse (every domain entry
 * passed the pattern check, numbers in range) and that a failed parse
 * leaves the settings as after init. */
#include "config.h"

#include <stdbool.h>

#include "fuzz.h"
#include "common/domain.h"
#include "libsrt/settings.h"

#ifdef FUZZ_SETTINGS_YAML
#define PARSE srt__settings_parse_yaml
#define ORIGIN "fuzz.yaml"
#else
#define PARSE srt__settings_parse_json
#define ORIGIN "fuzz.json"
#endif

static void check_domains(const struct srt__strv *v, enum srt__domain_list list,
			  const char *what)
{
	struct srt_diag d;

	for (size_t i = 0; i < v->n; i++) {
		FUZZ_CHECK(v->v[i] != NULL, "%s[%zu] is NULL", what, i);
		FUZZ_CHECK(srt__domain_pattern_check(v->v[i], list, &d) == SRT_OK,
			   "%s[%zu] \"%s\" was accepted but fails the pattern check: %s",
			   what, i, v->v[i], d.message);
	}
}

static void check_strv(const struct srt__strv *v, const char *what)
{
	FUZZ_CHECK(v->n == 0 || v->v != NULL, "%s has %zu entries and no array", what, v->n);
	for (size_t i = 0; i < v->n; i++)
		FUZZ_CHECK(v->v[i] != NULL, "%s[%zu] is NULL", what, i);
}

static void check_parsed(const struct srt__settings *s)
{
	check_domains(&s->allowed_domains, SRT_LIST_ALLOWED, "allowedDomains");
	check_domains(&s->denied_domains, SRT_LIST_DENIED, "deniedDomains");
	check_domains(&s->mitm_domains, SRT_LIST_ALLOWED, "mitmProxy.domains");
	check_domains(&s->tls_exclude_domains, SRT_LIST_ALLOWED,
		      "tlsTerminate.excludeDomains");
	check_strv(&s->warnings, "warnings");
	check_strv(&s->ignored_keys, "ignored keys");
	check_strv(&s->allow_unix_sockets, "allowUnixSockets");
	check_strv(&s->denied_resolved_addresses, "deniedResolvedAddresses");
	FUZZ_CHECK(s->http_proxy_port >= 0 && s->http_proxy_port <= 65535,
		   "httpProxyPort %d", s->http_proxy_port);
	FUZZ_CHECK(s->socks_proxy_port >= 0 && s->socks_proxy_port <= 65535,
		   "socksProxyPort %d", s->socks_proxy_port);
	FUZZ_CHECK(s->mandatory_deny_search_depth >= 1 &&
		   s->mandatory_deny_search_depth <= 10,
		   "mandatoryDenySearchDepth %d", s->mandatory_deny_search_depth);
	for (size_t i = 0; i < s->allow_write.n; i++)
		FUZZ_CHECK(s->allow_write.v[i].path != NULL, "allowWrite[%zu] is NULL", i);
	for (size_t i = 0; i < s->deny_read.n; i++)
		FUZZ_CHECK(s->deny_read.v[i].path != NULL, "denyRead[%zu] is NULL", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srt__settings s, fresh;
	struct srt_diag diag;
	int rc;

	memset(&diag, 0x5a, sizeof(diag));
	srt__settings_init(&s);
	srt__settings_init(&fresh);
	rc = PARSE(&s, (const char *)data, size, ORIGIN, &diag);
	if (rc == SRT_OK) {
		check_parsed(&s);
	} else {
		FUZZ_CHECK(rc < 0, "parse returned %d", rc);
		FUZZ_CHECK(fuzz_terminated(diag.message, sizeof(diag.message)),
			   "diag message not terminated");
		FUZZ_CHECK(fuzz_terminated(diag.key, sizeof(diag.key)),
			   "diag key not terminated");
		FUZZ_CHECK(diag.message[0] != '\0', "failure without a message");
		/* the contract: on failure s is released */
		FUZZ_CHECK(memcmp(&s, &fresh, sizeof(s)) == 0,
			   "failed parse left settings that differ from init: %s",
			   diag.message);
	}
	srt__settings_release(&s);
	FUZZ_CHECK(memcmp(&s, &fresh, sizeof(s)) == 0,
		   "release did not leave the settings as after init");
	/* release twice is harmless (fields were reset) */
	srt__settings_release(&s);
	return 0;
}
