/* The network rules and the decision on a host. The rules are a private
 * copy so a settings update on another thread swaps them whole (never
 * half-applied), and a failed copy keeps the old rules: a policy change
 * never fails open. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/domain.h"
#include "proxies/rules.h"
#include "proxies/guard.h"

static int copy_list(char ***out, size_t *n, const struct srt__strv *in)
{
	*out = calloc(in->n ? in->n : 1, sizeof(char *));
	*n = 0;
	if (!*out)
		return -1;
	for (size_t i = 0; i < in->n; i++) {
		if (!((*out)[i] = strdup(in->v[i])))
			return -1;
		*n = i + 1;
	}
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void srt__net_rules_free(struct srt__net_rules *r)
{
	if (!r)
		return;
	free_list(r->allowed, r->n_allowed);
	free_list(r->denied, r->n_denied);
	free_list(r->reason_keys, r->n_reasons);
	free_list(r->reason_values, r->n_reasons);
	free(r->denied_addrs);
	free_list(r->strip, r->n_strip);
	srt__routes_release(&r->routes);
	free(r);
}

int srt__net_rules_new(struct srt__net_rules **out, const struct srt__net_config *s,
		   struct srt_diag *diag)
{
	struct srt__net_rules *r = calloc(1, sizeof(*r));
	int err = SRT_E_NOMEM;
	size_t n = s->n_denied_domain_reasons;

	if (!r)
		goto out;
	if (copy_list(&r->allowed, &r->n_allowed, &s->allowed_domains) < 0 ||
	    copy_list(&r->denied, &r->n_denied, &s->denied_domains) < 0)
		goto out;
	r->reason_keys = calloc(n ? n : 1, sizeof(char *));
	r->reason_values = calloc(n ? n : 1, sizeof(char *));
	if (!r->reason_keys || !r->reason_values)
		goto out;
	for (size_t i = 0; i < n; i++) {
		r->reason_keys[i] = strdup(s->denied_domain_reasons[i].domain);
		r->reason_values[i] = strdup(s->denied_domain_reasons[i].reason);
		r->n_reasons = i + 1;
		if (!r->reason_keys[i] || !r->reason_values[i])
			goto out;
	}
	r->strict = s->strict_allowlist;
	r->private_mode = s->private_addresses;
	r->refuse_opaque = s->refuse_opaque_tunnels;
	r->ext_http_port = s->http_proxy_port;
	r->ext_socks_port = s->socks_proxy_port;
	r->require_host_match = s->require_host_match;
	r->ambiguous_target = s->ambiguous_target;
	if (copy_list(&r->strip, &r->n_strip, &s->strip_response_headers) < 0)
		goto out;
	err = srt__routes_init(&r->routes, s, diag);
	if (err)
		goto out;
	err = SRT_E_NOMEM;
	n = s->denied_resolved_addresses.n;
	r->denied_addrs = calloc(n ? n : 1, sizeof(*r->denied_addrs));
	if (!r->denied_addrs)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (srt__cidr_parse(s->denied_resolved_addresses.v[i],
				    &r->denied_addrs[i]) < 0) {
			err = srt_diag_set(diag, SRT_E_INVAL,
					   "network.deniedResolvedAddresses",
					   "invalid address range '%s'",
					   s->denied_resolved_addresses.v[i]);
			goto out;
		}
		r->n_denied_addrs = i + 1;
	}
	*out = r;
	r = NULL;
	err = SRT_OK;
out:
	if (err == SRT_E_NOMEM)
		srt_diag_set(diag, err, "", "out of memory copying the network rules");
	srt__net_rules_free(r);
	return err;
}

void srt__net_canon(const char *host, char *out, size_t cap)
{
	size_t i;

	if (srt__host_canonicalize(host, out, cap) == 0)
		return;
	for (i = 0; host[i] && i + 1 < cap; i++)
		out[i] = (char)tolower((unsigned char)host[i]);
	if (cap)
		out[i] = '\0';
}

/* Runs for every decision: a bounded copy, not printf. */
static void set_reason(char *reason, size_t cap, const char *text)
{
	size_t n;

	if (!cap)
		return;
	n = strnlen(text, cap - 1);
	memcpy(reason, text, n);
	reason[n] = '\0';
}

static const char *deny_reason(const struct srt__net_rules *r, const char *entry)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (strcmp(r->reason_keys[i], entry) == 0)
			return r->reason_values[i];
	return "host is on the deny list";
}

/* The deny list's verdict; `canon` is filled with the host's canonical
 * form when it has one. */
static bool denied_canon(const struct srt__net_rules *r, const char *host, int port,
			 char *canon, size_t canon_cap, char *reason, size_t cap)
{
	if (!r) {
		set_reason(reason, cap, "sandbox policy unavailable");
		return true;
	}
	/* a host with no canonical form (an empty label: ".a.b", "a..b")
	 * must not be matched raw: an exact deny would miss it while an
	 * allowed wildcard caught it */
	if (!srt__host_is_valid(host) || srt__host_canonicalize(host, canon, canon_cap) != SRT_OK) {
		set_reason(reason, cap, "malformed host");
		return true;
	}
	for (size_t i = 0; i < r->n_denied; i++) {
		if (srt__domain_match(canon, port, r->denied[i])) {
			set_reason(reason, cap, deny_reason(r, r->denied[i]));
			return true;
		}
	}
	return false;
}

bool srt__net_rules_denied(const struct srt__net_rules *r, const char *host, int port,
			char *reason, size_t cap)
{
	char canon[300];

	return denied_canon(r, host, port, canon, sizeof(canon), reason, cap);
}

enum srt__verdict srt__net_rules_judge(const struct srt__net_rules *r, const char *host, int port,
				       char *const *cmd_allowed, size_t n_cmd, char *reason,
				       size_t cap)
{
	char canon[300];

	/* one canonical form for both lists (what srt__net_canon would give:
	 * a host without one was denied above) */
	if (denied_canon(r, host, port, canon, sizeof(canon), reason, cap))
		return SRT__VERDICT_DENY;
	for (size_t i = 0; i < r->n_allowed; i++)
		if (srt__domain_match(canon, port, r->allowed[i]))
			return SRT__VERDICT_ALLOW;
	set_reason(reason, cap, "host is not on the allow list");
	if (r->strict)
		return SRT__VERDICT_DENY;
	for (size_t i = 0; i < n_cmd; i++)
		if (srt__domain_match(canon, port, cmd_allowed[i]))
			return SRT__VERDICT_ALLOW;
	return SRT__VERDICT_ASK;
}

bool srt__net_rules_decide(const struct srt__net_rules *r, const char *host, int port,
			char *const *cmd_allowed, size_t n_cmd, char *reason, size_t cap)
{
	return srt__net_rules_judge(r, host, port, cmd_allowed, n_cmd, reason, cap) ==
	       SRT__VERDICT_ALLOW;
}

static bool is_wildcard(const char *pattern)
{
	return pattern[0] == '*';
}

static bool named_in(const char *canon, int port, char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_wildcard(list[i]) && srt__domain_match(canon, port, list[i]))
			return true;
	return false;
}

bool srt__net_rules_named(const struct srt__net_rules *r, const char *host, int port,
			  char *const *cmd_allowed, size_t n_cmd)
{
	char canon[300];

	if (!r)
		return false;
	srt__net_canon(host, canon, sizeof(canon));
	if (named_in(canon, port, r->allowed, r->n_allowed))
		return true;
	return !r->strict && named_in(canon, port, cmd_allowed, n_cmd);
}
