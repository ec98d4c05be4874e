/* The settings schema: which keys each section of the file has, what
 * they may hold, and where they go in struct srt__settings. Each section
 * is a table of keys read in order by the engine in settings-check.c, plus
 * the checks that span several keys; the first error wins and names its
 * key path. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>

#include "settings-sections.h"
#include "settings-check.h"
#include "caches.h"
#include "extract.h"
#include "common/domain.h"
#include "common/protected.h"

#define S(field) offsetof(struct srt__settings, field)
#define NONEMPTY "String must contain at least 1 character(s)"

/* ------------------------------------------------------ value checks */

static int check_domain(struct srt__check *c, const char *v, enum srt__domain_list list)
{
	struct srt_diag d = { 0 };

	if (srt__domain_pattern_check(v, list, &d) != SRT_OK)
		return srt__check_fail(c, "%s", d.message);
	return SRT_OK;
}

static int check_allowed_domain(struct srt__check *c, const char *v)
{
	return check_domain(c, v, SRT_LIST_ALLOWED);
}

static int check_denied_domain(struct srt__check *c, const char *v)
{
	return check_domain(c, v, SRT_LIST_DENIED);
}

/* An address or range for deniedResolvedAddresses: addr[/prefix], an IPv6
 * zone ("%eth0") dropped, IPv6 without brackets. */
static bool address_range_valid(const char *v)
{
	char addr[64];
	const char *slash = strchr(v, '/'), *pct;
	size_t alen = slash ? (size_t)(slash - v) : strlen(v), i;
	unsigned char a[16];
	int prefix = -1, max;

	if (slash) {
		size_t plen = strlen(slash + 1);

		if (plen < 1 || plen > 3)
			return false;
		prefix = 0;
		for (i = 0; i < plen; i++) {
			if (slash[1 + i] < '0' || slash[1 + i] > '9')
				return false;
			prefix = prefix * 10 + (slash[1 + i] - '0');
		}
	}
	pct = memchr(v, '%', alen);
	if (pct)
		alen = (size_t)(pct - v);
	if (alen == 0 || alen >= sizeof(addr))
		return false;
	memcpy(addr, v, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, a) == 1) {
		max = 32;
	} else if (inet_pton(AF_INET6, addr, a) == 1) {
		static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

		max = 128;
		/* A mapped range is turned into the IPv4 rule; below /96
		 * it would not be an IPv4 range at all. */
		if (memcmp(a, mapped, sizeof(mapped)) == 0 && prefix >= 0 && prefix < 96)
			return false;
	} else {
		return false;
	}
	return prefix <= max;
}

static int check_address_range(struct srt__check *c, const char *v)
{
	if (!address_range_valid(v))
		return srt__check_fail(c, "%s is not valid: Invalid IP address or CIDR range. Use an IPv4/IPv6 "
				       "literal or CIDR, e.g. \"10.0.0.0/8\", \"192.168.1.10\", \"fc00::/7\" "
				       "(IPv6 unbracketed).", srt__check_quote(c, v));
	return SRT_OK;
}

static int check_mach_lookup(struct srt__check *c, const char *v)
{
	const char *star = strchr(v, '*');

	if (star && star[1] != '\0')
		return srt__check_fail(c, "%s is not valid: Wildcards are only allowed as a single trailing "
				       "\"*\" (e.g., \"com.example.*\" or \"*\" for all services).", srt__check_quote(c, v));
	return SRT_OK;
}

static int check_abs_path(struct srt__check *c, const char *v)
{
	if (!*v)
		return srt__check_fail(c, "\"\" is empty: Path cannot be empty");
	if (v[0] != '/')
		return srt__check_fail(c, "%s is not valid: Binary path must be absolute",
				       srt__check_quote(c, v));
	return SRT_OK;
}

static bool has_glob_chars(const char *v)
{
	return strpbrk(v, "*?[]") != NULL;
}

/* A deny glob ending in "/" can match no path, so the rule would silently
 * protect nothing: refuse it and say what to write. Not checked when
 * filesystem.disabled turns the rules off (the filesystem section reads
 * "disabled" before its deny lists, and credentials come after it). */
static int check_deny_glob(struct srt__check *c, const char *v)
{
	char fixed[160];
	size_t len = strlen(v);

	if (c->s->fs_disabled || len == 0 || v[len - 1] != '/' || !has_glob_chars(v))
		return SRT_OK;
	if (!(v[0] == '/' || v[0] == '~'))
		return SRT_OK;
	if (v[0] == '~' && v[1] != '/' && v[1] != '\0')
		return SRT_OK;
	while (len > 1 && v[len - 1] == '/')
		len--;
	snprintf(fixed, sizeof(fixed), "%.*s", (int)(len < 150 ? len : 150), v);
	return srt__check_fail(c, "Deny glob %s ends in a separator, so as a pattern it can match "
			       "no path. Write %s, which is also read as the path of that name "
			       "where it exists, or add a \"**\" segment to match at any depth.",
			       srt__check_quote(c, v), srt__check_quote(c, fixed));
}

/* A proxy URL: http:// or https:// with an authority, or schemeless
 * host:port (which the parent proxy code reads as http://). */
static int check_proxy_url(struct srt__check *c, const char *v)
{
	const char *rest = v, *p;

	if (strncasecmp(v, "http://", 7) == 0)
		rest = v + 7;
	else if (strncasecmp(v, "https://", 8) == 0)
		rest = v + 8;
	else if (strstr(v, "://") || !strchr(v, ':'))
		return srt__check_fail(c, "%s is not valid: Invalid url (expected \"http://host:port\", "
				       "\"https://host:port\" or \"host:port\")", srt__check_quote(c, v));
	if (!*rest || *rest == '/' || *rest == '?' || *rest == '#')
		return srt__check_fail(c, "%s is not valid: Invalid url (it names no host)",
				       srt__check_quote(c, v));
	for (p = v; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return srt__check_fail(c, "%s is not valid: Invalid url (it contains a space or a "
					       "control character)", srt__check_quote(c, v));
	return SRT_OK;
}

/* -------------------------------------------------------------- network */

static int parse_tls_terminate(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "caCertPath", "caKeyPath", "excludeDomains",
					    "extraCaCertPaths", "maxTunnels",
					    "handshakeTimeoutMs", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("caCertPath", S(tls_ca_cert_path), 0, NONEMPTY, NULL),
		SRT_KEY_STRING("caKeyPath", S(tls_ca_key_path), 0, NONEMPTY, NULL),
		SRT_KEY_STRV("excludeDomains", S(tls_exclude_domains), 0, NULL,
			     check_allowed_domain),
		SRT_KEY_STRV("extraCaCertPaths", S(tls_extra_ca_cert_paths), 0, NULL, NULL),
		SRT_KEY_INT("maxTunnels", S(tls_max_tunnels), 1, 65536),
		SRT_KEY_INT("handshakeTimeoutMs", S(tls_handshake_timeout_ms), 100, 600000),
		SRT_KEY_END
	};
	struct srt__settings *s = c->s;
	int rc;

	if ((rc = srt__check_members(c, obj, keys, false)))
		return rc;
	s->has_tls_terminate = true;
	if ((rc = srt__check_rules(c, obj, rules, s)))
		return rc;
	if (!s->tls_ca_cert_path != !s->tls_ca_key_path)
		return srt__check_fail(c, "caCertPath and caKeyPath must be provided together "
				       "(only %s is set)",
				       s->tls_ca_cert_path ? "caCertPath" : "caKeyPath");
	return SRT_OK;
}

static int parse_parent_proxy(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "http", "https", "noProxy", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("http", S(parent_http), 0, NULL, NULL),
		SRT_KEY_STRING("https", S(parent_https), 0, NULL, NULL),
		SRT_KEY_STRING("noProxy", S(parent_no_proxy), 0, NULL, NULL),
		SRT_KEY_END
	};
	struct srt__settings *s = c->s;
	int rc;

	if ((rc = srt__check_members(c, obj, keys, false)))
		return rc;
	s->has_parent_proxy = true;
	/* The URLs are checked once all three keys have their type. */
	if ((rc = srt__check_rules(c, obj, rules, s)) ||
	    (rc = srt__check_at(c, "http", check_proxy_url, s->parent_http)))
		return rc;
	return srt__check_at(c, "https", check_proxy_url, s->parent_https);
}

static int parse_mitm_proxy(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "socketPath", "domains", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("socketPath", S(mitm_socket_path), SRT_RULE_REQUIRED, NONEMPTY,
			       NULL),
		SRT_KEY_STRV("domains", S(mitm_domains), SRT_RULE_REQUIRED, NULL,
			     check_allowed_domain),
		SRT_KEY_END
	};
	struct srt__settings *s = c->s;
	int rc;

	if ((rc = srt__check_members(c, obj, keys, false)))
		return rc;
	s->has_mitm_proxy = true;
	if ((rc = srt__check_rules(c, obj, rules, s)))
		return rc;
	if (s->mitm_domains.n == 0)
		return srt__check_fail_at(c, "domains",
					  "[] is empty: Array must contain at least 1 element(s)");
	return SRT_OK;
}

static int parse_filters(struct srt__check *c, const struct srt__snode *arr)
{
	static const char *const keys[] = { "plugin", "config", NULL };
	struct srt__settings *s = c->s;
	const struct srt__snode *e, *cfg;
	size_t i, old;
	int rc = SRT_OK;

	if (arr->type != SRT_SNODE_ARRAY)
		return srt__check_type_error(c, arr, "an array of { \"plugin\": ..., "
					     "\"config\": ... } objects");
	s->has_filters = true;
	if (arr->n_children) {
		s->filters = calloc(arr->n_children, sizeof(*s->filters));
		if (!s->filters)
			return srt__check_nomem(c);
	}
	for (i = 0, e = arr->child; e; e = e->next, i++) {
		struct srt__filter_spec *f = &s->filters[i];

		old = srt__check_push_index(c, i);
		s->n_filters++;
		/* The plugin gets its config as JSON text, whichever
		 * spelling the settings file used. */
		if (!(rc = srt__check_members(c, e, keys, false)) &&
		    !(rc = srt__check_opt_string(c, e, "plugin", true, NONEMPTY, &f->plugin)) &&
		    (cfg = srt__snode_member(e, "config")) &&
		    srt__snode_to_json(cfg, &f->config_json) != SRT_OK)
			rc = srt__check_nomem(c);
		srt__check_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int parse_denied_domain_reasons(struct srt__check *c, const struct srt__snode *obj)
{
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old, i;
	int rc = SRT_OK;

	if (obj->type != SRT_SNODE_OBJECT)
		return srt__check_type_error(c, obj, "an object mapping deniedDomains entries to reasons");
	if (obj->n_children) {
		s->denied_domain_reasons = calloc(obj->n_children, sizeof(*s->denied_domain_reasons));
		if (!s->denied_domain_reasons)
			return srt__check_nomem(c);
	}
	for (m = obj->child; m; m = m->next) {
		struct srt__kv *kv = &s->denied_domain_reasons[s->n_denied_domain_reasons];
		bool found = false;

		old = srt__check_push_key(c, m->key);
		rc = srt__check_get_string(c, m, "String must contain at least 1 character(s)", &kv->value);
		if (!rc && !(kv->key = strdup(m->key)))
			rc = srt__check_nomem(c);
		if (!rc) {
			s->n_denied_domain_reasons++;
			/* Keyed by the exact deny entry: a reason for a
			 * spelling that is not on the list is never shown. */
			for (i = 0; i < s->denied_domains.n; i++)
				if (strcmp(s->denied_domains.v[i], m->key) == 0)
					found = true;
			if (!found)
				rc = srt__check_warn(c, "%s: the key %s is not a network.deniedDomains entry, so "
						     "this reason is never used", srt__check_path(c), srt__check_quote(c, m->key));
		} else {
			free(kv->value);
			kv->value = NULL;
		}
		srt__check_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int refuse_filter_request(struct srt__check *c, const struct srt__snode *n)
{
	(void)n;
	return srt__check_fail(c, "filterRequest must be a function: it can only be set through "
			       "the library API (use network.filters for request-filter plugins)");
}

static int parse_network(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = {
		"allowedDomains", "deniedDomains", "deniedDomainReasons", "strictAllowlist",
		"deniedResolvedAddresses", "privateAddresses", "allowUnixSockets", "allowAllUnixSockets",
		"allowLocalBinding", "allowMachLookup", "httpProxyPort", "socksProxyPort",
		"mitmProxy", "filterRequest", "allowPlaintextHeaderSet", "stripResponseHeaders",
		"refuseOpaqueTunnels", "requireHostMatch", "ambiguousRequestTarget",
		"tlsTerminate", "parentProxy", "filters", "intercept", NULL
	};
	static const char *const ambiguous[] = { "refuse", "asSpelled", "normalize", NULL };
	static const char *const private_modes[] = { "refuseForWildcards", "refuse", "allow",
						     NULL };
	static const char *const intercept_modes[] = { "required", "optional", "off", NULL };
	/* deniedDomainReasons comes after deniedDomains: it warns about a
	 * reason for a spelling that is not on that list. */
	static const struct srt__rule rules[] = {
		SRT_KEY_STRV("allowedDomains", S(allowed_domains), SRT_RULE_REQUIRED, NULL,
			     check_allowed_domain),
		SRT_KEY_STRV("deniedDomains", S(denied_domains), SRT_RULE_REQUIRED, NULL,
			     check_denied_domain),
		SRT_KEY_NODE("deniedDomainReasons", 0, parse_denied_domain_reasons),
		SRT_KEY_BOOL("strictAllowlist", S(strict_allowlist)),
		SRT_KEY_STRV("deniedResolvedAddresses", S(denied_resolved_addresses), 0, NULL,
			     check_address_range),
		SRT_KEY_ENUM("privateAddresses", S(private_addresses), 0, private_modes),
		SRT_KEY_ENUM("intercept", S(intercept), 0, intercept_modes),
		SRT_KEY_STRV("allowUnixSockets", S(allow_unix_sockets), 0, NULL, NULL),
		SRT_KEY_BOOL("allowAllUnixSockets", S(allow_all_unix_sockets)),
		SRT_KEY_BOOL("allowLocalBinding", S(allow_local_binding)),
		SRT_KEY_STRV("allowMachLookup", S(allow_mach_lookup), 0, NULL, check_mach_lookup),
		SRT_KEY_INT("httpProxyPort", S(http_proxy_port), 1, 65535),
		SRT_KEY_INT("socksProxyPort", S(socks_proxy_port), 1, 65535),
		SRT_KEY_BOOL("allowPlaintextHeaderSet", S(allow_plaintext_header_set)),
		SRT_KEY_STRV("stripResponseHeaders", S(strip_response_headers), 0, NONEMPTY, NULL),
		SRT_KEY_BOOL("refuseOpaqueTunnels", S(refuse_opaque_tunnels)),
		SRT_KEY_BOOL("requireHostMatch", S(require_host_match)),
		SRT_KEY_ENUM("ambiguousRequestTarget", S(ambiguous_request_target), 0, ambiguous),
		SRT_KEY_NODE("filterRequest", 0, refuse_filter_request),
		SRT_KEY_NODE("mitmProxy", 0, parse_mitm_proxy),
		SRT_KEY_NODE("tlsTerminate", 0, parse_tls_terminate),
		SRT_KEY_NODE("parentProxy", 0, parse_parent_proxy),
		SRT_KEY_NODE("filters", 0, parse_filters),
		SRT_KEY_END
	};
	int rc;

	if ((rc = srt__check_object(c, obj, keys, false, rules, c->s)))
		return rc;
	/* The proxy would refuse this pair when it starts; refusing the
	 * file up front gives the same outcome with the key named. */
	if (c->s->has_tls_terminate && c->s->has_mitm_proxy)
		return srt__check_fail(c, "network.tlsTerminate and network.mitmProxy are mutually "
				       "exclusive");
	return SRT_OK;
}

/* ----------------------------------------------------------- filesystem */

/* A name filesystem.allowProtectedNames releases: one of the table's. */
static int check_protected_name(struct srt__check *c, const char *v)
{
	const struct srt__protected *p = srt__protected_find(v);

	if (p && !strcmp(p->name, ".git/config"))
		return srt__check_fail(c, "%s is released by filesystem.allowGitConfig, not here",
				       srt__check_quote(c, v));
	if (!p)
		return srt__check_fail(c, "%s is not a protected name (srt --explain lists them)",
				       srt__check_quote(c, v));
	return SRT_OK;
}

/* filesystem.allowCaches: a name of a cache caches.c knows. */
static int check_cache_name(struct srt__check *c, const char *v)
{
	if (srt__cache_known(v))
		return SRT_OK;
	return srt__check_fail(c, "%s is not a cache srt knows (one of %s)", srt__check_quote(c, v),
			       srt__cache_names);
}

static int parse_filesystem(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "disabled", "denyRead", "allowRead", "allowWrite",
					    "denyWrite", "allowGitConfig", "allowProtectedNames", "allowCaches",
					    "enableWeakerNameProtection", NULL };
	/* "disabled" comes first: the deny-glob check depends on it. */
	static const struct srt__rule rules[] = {
		SRT_KEY_BOOL("disabled", S(fs_disabled)),
		SRT_KEY_PATHS("denyRead", S(deny_read), SRT_RULE_REQUIRED, check_deny_glob),
		SRT_KEY_PATHS("allowRead", S(allow_read), 0, NULL),
		SRT_KEY_PATHS("allowWrite", S(allow_write), SRT_RULE_REQUIRED, NULL),
		SRT_KEY_PATHS("denyWrite", S(deny_write), SRT_RULE_REQUIRED, check_deny_glob),
		SRT_KEY_BOOL("allowGitConfig", S(allow_git_config)),
		SRT_KEY_STRV("allowProtectedNames", S(allow_protected_names), 0,
			     "an empty name releases nothing", check_protected_name),
		SRT_KEY_STRV("allowCaches", S(allow_caches), 0, NULL, check_cache_name),
		SRT_KEY_BOOL("enableWeakerNameProtection", S(enable_weaker_name_protection)),
		SRT_KEY_END
	};

	return srt__check_object(c, obj, keys, false, rules, c->s);
}

/* ---------------------------------------------------------- credentials */

static int check_env_name(struct srt__check *c, const char *v)
{
	size_t i;
	bool ok = *v && !(v[0] >= '0' && v[0] <= '9');

	for (i = 0; ok && v[i]; i++) {
		char ch = v[i];

		ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		     (ch >= '0' && ch <= '9') || ch == '_';
	}
	if (!ok)
		return srt__check_fail(c, "%s is not valid: Environment variable name must start with a letter "
				       "or underscore and contain only letters, digits, and underscores",
				       srt__check_quote(c, v));
	return SRT_OK;
}

/* Nested or stacked repetitions multiply the work an engine may do with a
 * pattern: "((b{1,255}){1,255}){1,255}" or "(a+++...+)" with 40 '+' take
 * tens of GiB and minutes in an engine that copies a subexpression per
 * bound (glibc's regcomp), and give a backtracking one (PCRE2, which
 * checks and applies them here) that many paths to try on a file's bytes.
 * Estimate the expanded size (atoms times the copies of every repetition
 * around them) and refuse a pattern past a small budget, before the
 * engine sees it. */
#define EXTRACT_MAX_LEN 1024
#define EXTRACT_MAX_EXPANSION 20000

static bool extract_too_complex(const char *v)
{
	unsigned long long group[33], last = 0, b;
	size_t depth = 0, i, n = strlen(v);

	if (n > EXTRACT_MAX_LEN)
		return true;
	group[0] = 0;
	for (i = 0; i < n; i++) {
		switch (v[i]) {
		case '\\':
			if (i + 1 < n)
				i++;
			last = 1;
			group[depth] += 1;
			break;
		case '[':
			/* a bracket expression is one atom: skip "[^]...]" and
			 * "[:class:]" inside it */
			i++;
			if (i < n && v[i] == '^')
				i++;
			if (i < n && v[i] == ']')
				i++;
			while (i < n && v[i] != ']') {
				if (v[i] == '[' && i + 1 < n &&
				    (v[i + 1] == ':' || v[i + 1] == '.' || v[i + 1] == '=')) {
					const char *e = strchr(v + i + 2, v[i + 1]);
					if (!e || e[1] != ']')
						return false; /* the engine reports it */
					i = (size_t)(e - v) + 2;
					continue;
				}
				i++;
			}
			last = 1;
			group[depth] += 1;
			break;
		case '(':
			if (depth + 1 >= sizeof(group) / sizeof(group[0]))
				return true;
			group[++depth] = 0;
			break;
		case ')':
			if (depth == 0)
				return false; /* the engine reports it */
			last = group[depth] ? group[depth] : 1;
			depth--;
			group[depth] += last;
			break;
		case '+':
			/* "x+" is compiled as "xx*": the atom twice */
			group[depth] += last;
			last *= 2;
			break;
		case '{':
			b = 0;
			for (i++; i < n && v[i] != '}'; i++)
				if (v[i] >= '0' && v[i] <= '9') {
					unsigned long long x = 0;
					while (i < n && v[i] >= '0' && v[i] <= '9' && x < 100000)
						x = x * 10 + (unsigned long long)(v[i++] - '0');
					i--;
					if (x > b)
						b = x;
				} else if (v[i] == ',' && i + 1 < n && v[i + 1] == '}') {
					b++; /* "{m,}": m copies and a star */
				}
			/* the atom now counts b times instead of once */
			if (b > 1) {
				group[depth] += last * (b - 1);
				last *= b;
			}
			break;
		default:
			last = 1;
			group[depth] += 1;
			break;
		}
		if (group[depth] > EXTRACT_MAX_EXPANSION || last > EXTRACT_MAX_EXPANSION)
			return true;
	}
	return false;
}

static int check_extract(struct srt__check *c, const char *v)
{
	char err[200];
	size_t groups;

	if (extract_too_complex(v))
		return srt__check_fail(c, "%s: extract is too complex (nested or large repetition "
				       "counts); simplify the regular expression", srt__check_quote(c, v));
	if (srt__extract_compile(v, &groups, err, sizeof(err)))
		return srt__check_fail(c, "%s: extract is not a valid regular expression: %s",
				       srt__check_quote(c, v), err);
	if (groups < 1)
		return srt__check_fail(c, "%s: extract must contain at least one capturing group \xe2\x80\x94 "
				       "group 1 is the credential value to mask (e.g. \"token:\\s*(\\S+)\").",
				       srt__check_quote(c, v));
	return SRT_OK;
}

static int parse_credential(struct srt__check *c, const struct srt__snode *obj, bool is_file,
			    struct srt__credential *cr)
{
	static const char *const file_keys[] = { "path", "mode", "extract", "onExtractNoMatch",
						 "decode", "maskClaims", "maskDuplicates",
						 "injectHosts", NULL };
	static const char *const env_keys[] = { "name", "mode", "extract", "onExtractNoMatch",
						"decode", "maskClaims", "injectHosts", NULL };
	static const char *const modes[] = { "deny", "mask", NULL };
	static const char *const no_match[] = { "warn", "deny", "error", NULL };
	static const char *const decodes[] = { "jwt", NULL };
	char *mode = NULL, *decode = NULL;
	size_t old;
	int rc;

	if ((rc = srt__check_members(c, obj, is_file ? file_keys : env_keys, false)))
		goto out;
	if (is_file)
		rc = srt__check_opt_string(c, obj, "path", true, "Path cannot be empty", &cr->path);
	else if (!(rc = srt__check_opt_string(c, obj, "name", true, NULL, &cr->name)))
		rc = srt__check_at(c, "name", check_env_name, cr->name);
	if (rc)
		goto out;
	if (!srt__snode_member(obj, "mode")) {
		old = srt__check_push_key(c, "mode");
		rc = srt__check_missing(c, "\"deny\" or \"mask\"");
		srt__check_pop(c, old);
		goto out;
	}
	if ((rc = srt__check_opt_enum(c, obj, "mode", modes, &mode)))
		goto out;
	cr->mask = strcmp(mode, "mask") == 0;
	if ((rc = srt__check_opt_string(c, obj, "extract", false, NULL, &cr->extract)) ||
	    (rc = srt__check_at(c, "extract", check_extract, cr->extract)) ||
	    (rc = srt__check_opt_enum(c, obj, "onExtractNoMatch", no_match,
				      &cr->on_extract_no_match)) ||
	    (rc = srt__check_opt_enum(c, obj, "decode", decodes, &decode)) ||
	    (rc = srt__check_opt_strv(c, obj, "maskClaims", false, NONEMPTY, NULL,
				      &cr->mask_claims, &cr->has_mask_claims)) ||
	    (is_file && (rc = srt__check_opt_bool(c, obj, "maskDuplicates",
						  &cr->mask_duplicates))) ||
	    (rc = srt__check_opt_strv(c, obj, "injectHosts", false, NULL, check_allowed_domain,
				      &cr->inject_hosts, &cr->has_inject_hosts)))
		goto out;
	cr->decode_jwt = decode != NULL;
out:
	free(mode);
	free(decode);
	return rc;
}

/* Does `list` cover host pattern h (ports ignored)? A wildcard is covered
 * only by a wildcard of the same or an ancestor base. */
static bool pattern_covered(const char *h, const struct srt__strv *list)
{
	char hh[256], pp[256];
	size_t i, bl;
	int port;

	if (srt__domain_split_port(h, hh, sizeof(hh), &port) != SRT_OK)
		return false;
	for (i = 0; i < list->n; i++) {
		const char *base;

		if (srt__domain_split_port(list->v[i], pp, sizeof(pp), &port) != SRT_OK)
			continue;
		if (strcmp(pp, "*") == 0)
			return true;
		if (strncmp(pp, "*.", 2) == 0) {
			const char *x = strncmp(hh, "*.", 2) == 0 ? hh + 2 : hh;
			size_t xl = strlen(x);

			base = pp + 2;
			bl = strlen(base);
			if (x != hh && strcasecmp(x, base) == 0)
				return true;
			if (xl > bl + 1 && x[xl - bl - 1] == '.' && strcasecmp(x + xl - bl, base) == 0)
				return true;
		} else if (strncmp(hh, "*.", 2) != 0 && strcasecmp(hh, pp) == 0) {
			return true;
		}
	}
	return false;
}

static int check_credential_rules(struct srt__check *c, const struct srt__credential *cr,
				  bool is_file)
{
	struct srt__settings *s = c->s;
	size_t old, j, old2;
	int rc = SRT_OK;

	if (is_file && !cr->mask)
		rc = srt__check_at(c, "path", check_deny_glob, cr->path);
	else if (is_file && cr->path[strlen(cr->path) - 1] == '/')
		rc = srt__check_fail_at(c, "path", "Credential mode \"mask\" applies to a single file, "
					"not a directory. Use mode \"deny\" for %s, or point at the "
					"credential file inside it.", srt__check_quote(c, cr->path));
	if (rc)
		return rc;
	if (cr->has_mask_claims && !cr->decode_jwt)
		return srt__check_fail_at(c, "maskClaims", "maskClaims requires decode \xe2\x80\x94 "
					  "it names claims inside the decoded payload. Set decode "
					  "(e.g. \"jwt\"), or remove maskClaims to %s",
					  is_file ? "mask the extracted value whole." :
					  "mask the whole value.");
	if (cr->has_mask_claims && cr->mask_claims.n == 0)
		return srt__check_fail_at(c, "maskClaims", "maskClaims is explicitly empty "
					  "\xe2\x80\x94 no claim would ever be masked. Omit "
					  "maskClaims to mask the whole token, or list the claims to "
					  "protect.");
	if (cr->mask && cr->has_inject_hosts && cr->inject_hosts.n == 0)
		return srt__check_fail(c, "injectHosts is explicitly empty \xe2\x80\x94 the credential would be "
				       "masked but never injected. Omit injectHosts to default to "
				       "network.allowedDomains, or list the intended hosts.");
	old = srt__check_push_key(c, "injectHosts");
	for (j = 0; j < cr->inject_hosts.n; j++) {
		const char *h = cr->inject_hosts.v[j];

		old2 = srt__check_push_index(c, j);
		if (!pattern_covered(h, &s->allowed_domains))
			rc = srt__check_fail(c, "injectHosts entry %s is not reachable via network.allowedDomains "
					     "\xe2\x80\x94 add %s (or a covering wildcard) to allowedDomains, or "
					     "remove it from injectHosts.", srt__check_quote(c, h), srt__check_quote(c, h));
		else if (cr->mask && pattern_covered(h, &s->tls_exclude_domains))
			rc = srt__check_fail(c, "injectHosts entry %s is entirely covered by "
					     "network.tlsTerminate.excludeDomains. Credential injection only runs "
					     "on TLS-terminated connections, so this host would receive the "
					     "placeholder instead of the credential. Remove it from one of the two "
					     "lists.", srt__check_quote(c, h));
		srt__check_pop(c, old2);
		if (rc)
			break;
	}
	srt__check_pop(c, old);
	if (rc)
		return rc;
	if (cr->mask && !cr->has_inject_hosts && s->allowed_domains.n > 0 &&
	    s->tls_exclude_domains.n > 0) {
		bool all = true;

		for (j = 0; j < s->allowed_domains.n && all; j++)
			all = pattern_covered(s->allowed_domains.v[j], &s->tls_exclude_domains);
		if (all)
			return srt__check_fail(c, "This masked credential has no injectHosts, so it defaults to "
					       "network.allowedDomains \xe2\x80\x94 but "
					       "network.tlsTerminate.excludeDomains covers every allowed domain, so "
					       "it could never be injected anywhere. Credential injection only runs "
					       "on TLS-terminated connections.");
	}
	return SRT_OK;
}

static int parse_cred_list(struct srt__check *c, const struct srt__snode *arr, bool is_file,
			   struct srt__credential **out, size_t *n_out)
{
	const struct srt__snode *e;
	size_t i, old;
	int rc;

	if (arr->type != SRT_SNODE_ARRAY)
		return srt__check_type_error(c, arr, "an array of objects");
	if (arr->n_children) {
		*out = calloc(arr->n_children, sizeof(**out));
		if (!*out)
			return srt__check_nomem(c);
	}
	for (i = 0, e = arr->child; e; e = e->next, i++) {
		old = srt__check_push_index(c, i);
		(*n_out)++;
		rc = parse_credential(c, e, is_file, &(*out)[i]);
		if (!rc)
			rc = check_credential_rules(c, &(*out)[i], is_file);
		srt__check_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int parse_cred_files(struct srt__check *c, const struct srt__snode *arr)
{
	return parse_cred_list(c, arr, true, &c->s->cred_files, &c->s->n_cred_files);
}

static int parse_cred_env_vars(struct srt__check *c, const struct srt__snode *arr)
{
	return parse_cred_list(c, arr, false, &c->s->cred_env_vars, &c->s->n_cred_env_vars);
}

static int parse_aws_pairs(struct srt__check *c, const struct srt__snode *arr)
{
	static const char *const keys[] = { "accessKeyIdVar", "secretAccessKeyVar",
					    "sessionTokenVar", NULL };
	/* Three slots, in the order of vals[] below. */
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("accessKeyIdVar", offsetof(struct srt__aws_pair, access_key_id_var),
			       SRT_RULE_REQUIRED, NULL, NULL),
		SRT_KEY_STRING("secretAccessKeyVar",
			       offsetof(struct srt__aws_pair, secret_access_key_var),
			       SRT_RULE_REQUIRED, NULL, NULL),
		SRT_KEY_STRING("sessionTokenVar", offsetof(struct srt__aws_pair, session_token_var),
			       0, NULL, NULL),
		SRT_KEY_END
	};
	struct srt__settings *s = c->s;
	const struct srt__snode *e;
	struct srt__strv seen = { 0 };
	size_t i, k, j, old, old2;
	int rc = SRT_OK;

	if (arr->type != SRT_SNODE_ARRAY)
		return srt__check_type_error(c, arr, "an array of objects");
	if (arr->n_children) {
		s->aws_pairs = calloc(arr->n_children, sizeof(*s->aws_pairs));
		if (!s->aws_pairs)
			return srt__check_nomem(c);
	}
	for (i = 0, e = arr->child; e && !rc; e = e->next, i++) {
		struct srt__aws_pair *p = &s->aws_pairs[i];
		char **vals[3] = { &p->access_key_id_var, &p->secret_access_key_var,
				   &p->session_token_var };

		old = srt__check_push_index(c, i);
		s->n_aws_pairs++;
		if ((rc = srt__check_object(c, e, keys, true, rules, p))) {
			srt__check_pop(c, old);
			break;
		}
		for (k = 0; k < 3 && !rc; k++) {
			const char *v = *vals[k];
			const struct srt__credential *env = NULL;

			if (!v)
				continue;
			old2 = srt__check_push_key(c, rules[k].key);
			for (j = 0; j < seen.n; j++)
				if (strcmp(seen.v[j], v) == 0)
					break;
			for (size_t x = 0; x < s->n_cred_env_vars; x++)
				if (s->cred_env_vars[x].mask && strcmp(s->cred_env_vars[x].name, v) == 0)
					env = &s->cred_env_vars[x];
			if (j < seen.n)
				rc = srt__check_fail(c, "%s appears in more than one awsPairs slot (within or across "
						     "pairs) \xe2\x80\x94 each variable can fill exactly one slot.",
						     srt__check_quote(c, v));
			else if (!env)
				rc = srt__check_fail(c, "%s does not reference a credentials.envVars entry with mode "
						     "\"mask\" \xe2\x80\x94 an AWS pair links already-masked variables; "
						     "add the entry (masking is the opt-in for SigV4 re-signing).",
						     srt__check_quote(c, v));
			else if (env->extract || env->decode_jwt)
				rc = srt__check_fail(c, "%s uses extract/decode, but an AWS pair member must be masked "
						     "whole-value: the SigV4 trigger is an exact match of the fake "
						     "access key id, and the signer needs the entire real value.",
						     srt__check_quote(c, v));
			else if (srt__strv_push(&seen, v) != SRT_OK)
				rc = srt__check_nomem(c);
			srt__check_pop(c, old2);
		}
		srt__check_pop(c, old);
	}
	srt__strv_release(&seen);
	return rc;
}


static int parse_sigv4(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "streaming", "presigned", "sigv4a", NULL };
	static const char *const modes[] = { "deny", "passthrough", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_ENUM("streaming", S(sigv4_streaming), 0, modes),
		SRT_KEY_ENUM("presigned", S(sigv4_presigned), 0, modes),
		SRT_KEY_ENUM("sigv4a", S(sigv4_sigv4a), 0, modes),
		SRT_KEY_END
	};

	return srt__check_object(c, obj, keys, true, rules, c->s);
}

static int parse_credentials(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "files", "envVars", "allowPlaintextInject",
					    "awsPairs", "sigv4", NULL };
	/* awsPairs comes after envVars: a pair names masked envVars entries. */
	static const struct srt__rule rules[] = {
		SRT_KEY_BOOL("allowPlaintextInject", S(cred_allow_plaintext_inject)),
		SRT_KEY_NODE("files", 0, parse_cred_files),
		SRT_KEY_NODE("envVars", 0, parse_cred_env_vars),
		SRT_KEY_NODE("awsPairs", 0, parse_aws_pairs),
		SRT_KEY_NODE("sigv4", 0, parse_sigv4),
		SRT_KEY_END
	};
	struct srt__settings *s = c->s;
	size_t i;
	bool masked = false;
	int rc;

	if ((rc = srt__check_members(c, obj, keys, true)))
		return rc;
	s->has_credentials = true;
	if ((rc = srt__check_rules(c, obj, rules, s)))
		return rc;
	for (i = 0; i < s->n_cred_files; i++)
		masked |= s->cred_files[i].mask;
	for (i = 0; i < s->n_cred_env_vars; i++)
		masked |= s->cred_env_vars[i].mask;
	if (masked && !s->has_tls_terminate && !s->cred_allow_plaintext_inject)
		return srt__check_fail(c, "Credential masking requires network.tlsTerminate so "
				       "substitution runs only over a verified TLS connection. Enable "
				       "tlsTerminate, or set credentials.allowPlaintextInject to opt "
				       "out (not recommended).");
	return SRT_OK;
}

/* ------------------------------------------------------------- the rest */

static int parse_ignore_violations(struct srt__check *c, const struct srt__snode *obj)
{
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old;
	int rc;

	if (obj->type != SRT_SNODE_OBJECT)
		return srt__check_type_error(c, obj, "an object mapping command patterns to arrays of strings");
	if (obj->n_children) {
		s->ignore_violations = calloc(obj->n_children, sizeof(*s->ignore_violations));
		if (!s->ignore_violations)
			return srt__check_nomem(c);
	}
	for (m = obj->child; m; m = m->next) {
		struct srt__ignore_rule *r = &s->ignore_violations[s->n_ignore_violations];

		old = srt__check_push_key(c, m->key);
		rc = srt__check_get_strv(c, m, NULL, NULL, &r->lines);
		if (!rc && !(r->command_pattern = strdup(m->key)))
			rc = srt__check_nomem(c);
		srt__check_pop(c, old);
		s->n_ignore_violations++;
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static bool is_uuid(const char *v)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	size_t g, i;

	for (g = 0; g < 5; g++) {
		for (i = 0; i < (size_t)groups[g]; i++, v++) {
			char ch = *v;

			if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
			      (ch >= 'A' && ch <= 'F')))
				return false;
		}
		if (g < 4 && *v++ != '-')
			return false;
	}
	return *v == '\0';
}

static size_t utf8_chars(const char *v)
{
	size_t n = 0;

	for (; *v; v++)
		if (((unsigned char)*v & 0xc0) != 0x80)
			n++;
	return n;
}

static int check_uuid(struct srt__check *c, const char *v)
{
	if (!is_uuid(v))
		return srt__check_fail(c, "%s is not valid: Invalid uuid", srt__check_quote(c, v));
	return SRT_OK;
}

static int check_sandbox_user(struct srt__check *c, const char *v)
{
	if (utf8_chars(v) > 20)
		return srt__check_fail(c, "%s is too long: Windows local usernames are limited to 20 "
				       "characters", srt__check_quote(c, v));
	return SRT_OK;
}

static int parse_proxy_port_range(struct srt__check *c, const struct srt__snode *m)
{
	size_t old;
	int lo = 0, hi = 0, rc;

	if (m->type != SRT_SNODE_ARRAY || m->n_children != 2)
		return srt__check_type_error(c, m, "an array of two port numbers [low, high]");
	old = srt__check_push_index(c, 0);
	rc = srt__check_get_int(c, m->child, 1, 65535, &lo);
	srt__check_pop(c, old);
	if (!rc) {
		old = srt__check_push_index(c, 1);
		rc = srt__check_get_int(c, m->child->next, 1, 65535, &hi);
		srt__check_pop(c, old);
	}
	if (!rc && !(lo <= hi && hi - lo <= 64))
		rc = srt__check_fail(c, "[%d, %d] is not valid: low must be \xe2\x89\xa4 high and "
				     "range width \xe2\x89\xa4 64", lo, hi);
	if (!rc) {
		c->s->win_proxy_port_lo = lo;
		c->s->win_proxy_port_hi = hi;
	}
	return rc;
}

static int parse_srt_win(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "path", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("path", 0, SRT_RULE_REQUIRED | SRT_RULE_DISCARD, NONEMPTY, NULL),
		SRT_KEY_END
	};

	return srt__check_object(c, obj, keys, false, rules, c->s);
}

/* Validated so a Windows file is not silently wrong; only proxyPortRange
 * is kept (a backend with SRT_CAP_LOOPBACK_PROXY serves the proxy in it). */
static int parse_windows(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "backend", "sandboxUser", "sublayerGuid",
					    "wfpSublayerGuid", "proxyPortRange", "srtWin", NULL };
	static const char *const backends[] = { "mxc", "srt-win", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_ENUM("backend", 0, SRT_RULE_DISCARD, backends),
		SRT_KEY_STRING("sandboxUser", 0, SRT_RULE_DISCARD, NULL, check_sandbox_user),
		SRT_KEY_STRING("sublayerGuid", 0, SRT_RULE_DISCARD, NULL, check_uuid),
		SRT_KEY_STRING("wfpSublayerGuid", 0, SRT_RULE_DISCARD, NULL, check_uuid),
		SRT_KEY_NODE("proxyPortRange", 0, parse_proxy_port_range),
		SRT_KEY_NODE("srtWin", 0, parse_srt_win),
		SRT_KEY_END
	};
	int rc;

	if ((rc = srt__check_members(c, obj, keys, false)))
		return rc;
	c->s->has_windows = true;
	return srt__check_rules(c, obj, rules, c->s);
}

/* A section accepted for compatibility and otherwise ignored: recorded in
 * ignored_keys (with its key still on the path) once it is valid. */
static int record_ignored(struct srt__check *c, const char *key)
{
	if (srt__strv_push(&c->s->ignored_keys, key) != SRT_OK)
		return srt__check_nomem(c);
	return SRT_OK;
}

static int parse_ripgrep(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "command", "args", "argv0", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("command", 0, SRT_RULE_REQUIRED | SRT_RULE_DISCARD, NULL, NULL),
		SRT_KEY_STRV("args", 0, SRT_RULE_DISCARD, NULL, NULL),
		SRT_KEY_STRING("argv0", 0, SRT_RULE_DISCARD, NULL, NULL),
		SRT_KEY_END
	};
	int rc = srt__check_object(c, obj, keys, false, rules, c->s);

	return rc ? rc : record_ignored(c, "ripgrep");
}

static int parse_seccomp(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "applyPath", "argv0", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRING("applyPath", 0, SRT_RULE_DISCARD, NULL, NULL),
		SRT_KEY_STRING("argv0", 0, SRT_RULE_DISCARD, NULL, NULL),
		SRT_KEY_END
	};
	int rc = srt__check_object(c, obj, keys, false, rules, c->s);

	return rc ? rc : record_ignored(c, "seccomp");
}

static int parse_git(struct srt__check *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "safeDirectories", NULL };
	static const struct srt__rule rules[] = {
		SRT_KEY_STRV("safeDirectories", S(git_safe_directories), 0, NULL, NULL),
		SRT_KEY_END
	};

	return srt__check_object(c, obj, keys, false, rules, c->s);
}

/* ------------------------------------------------------------- top level */

static int validate(struct srt__check *c, const struct srt__snode *root)
{
	static const char *const keys[] = {
		"network", "filesystem", "credentials", "ignoreViolations",
		"enableWeakerNestedSandbox", "allowNestedUserNamespaces",
		"enableWeakerNetworkIsolation", "allowAppleEvents", "ripgrep",
		"mandatoryDenySearchDepth", "allowPty", "seccomp", "bwrapPath", "socatPath",
		"javaAgentJarPath", "windows", "git", NULL
	};
	/* credentials comes after network and filesystem: its checks read
	 * allowedDomains, tlsTerminate and filesystem.disabled. */
	static const struct srt__rule rules[] = {
		SRT_KEY_NODE("network", SRT_RULE_REQUIRED, parse_network),
		SRT_KEY_NODE("filesystem", SRT_RULE_REQUIRED, parse_filesystem),
		SRT_KEY_NODE("credentials", 0, parse_credentials),
		SRT_KEY_NODE("ignoreViolations", 0, parse_ignore_violations),
		SRT_KEY_BOOL("enableWeakerNestedSandbox", S(enable_weaker_nested_sandbox)),
		SRT_KEY_BOOL("allowNestedUserNamespaces", S(allow_nested_user_namespaces)),
		SRT_KEY_BOOL("enableWeakerNetworkIsolation", S(enable_weaker_network_isolation)),
		SRT_KEY_BOOL("allowAppleEvents", S(allow_apple_events)),
		SRT_KEY_NODE("ripgrep", 0, parse_ripgrep),
		SRT_KEY_INT("mandatoryDenySearchDepth", S(mandatory_deny_search_depth), 1, 10),
		SRT_KEY_BOOL("allowPty", S(allow_pty)),
		SRT_KEY_NODE("seccomp", 0, parse_seccomp),
		SRT_KEY_STRING("bwrapPath", S(bwrap_path), 0, NULL, check_abs_path),
		SRT_KEY_STRING("socatPath", 0, SRT_RULE_DISCARD | SRT_RULE_COMPAT, NULL,
			       check_abs_path),
		SRT_KEY_STRING("javaAgentJarPath", 0, SRT_RULE_DISCARD | SRT_RULE_COMPAT, NULL,
			       check_abs_path),
		SRT_KEY_NODE("windows", 0, parse_windows),
		SRT_KEY_NODE("git", 0, parse_git),
		SRT_KEY_END
	};
	int rc;

	if (!root)
		return srt__check_fail(c, "expected an object, got an empty document");
	if ((rc = srt__check_duplicates(c, root)) ||
	    (rc = srt__check_object(c, root, keys, false, rules, c->s)))
		return rc;
	return srt__check_finish(c);
}

int srt__settings_from_snode(struct srt__settings *s, const struct srt__snode *root,
			     const char *origin, struct srt_diag *diag)
{
	struct srt__check *c;
	int rc;

	c = malloc(sizeof(*c));
	if (!c) {
		srt__settings_release(s);
		return srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", origin);
	}
	srt__check_init(c, s, origin, diag);
	rc = validate(c, root);
	if (rc)
		srt__settings_release(s);
	free(c);
	return rc;
}
