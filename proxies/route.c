/* Routes to upstream proxies. Filtering always happens first: a route only
 * decides how an allowed connection leaves, never whether it may. */
#include "config.h"

#include <ctype.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/platform.h"
#include "common/domain.h"
#include "proxies/auth.h"
#include "proxies/guard.h"
#include "proxies/route.h"

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t pct_decode(const char *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		if (in[i] == '%' && i + 2 < n && unhex(in[i + 1]) >= 0 && unhex(in[i + 2]) >= 0) {
			out[o++] = (char)(unhex(in[i + 1]) << 4 | unhex(in[i + 2]));
			i += 2;
		} else {
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
	return o;
}

int srt__upstream_parse(const char *url, struct srt__upstream *up)
{
	const char *p = url, *end, *at, *hs, *he;
	int port = 80;

	memset(up, 0, sizeof(*up));
	if (!url || !*url)
		return -1;
	if (!strncasecmp(p, "https://", 8))
		return -2;
	if (!strncasecmp(p, "http://", 7))
		p += 7;
	else if (strstr(p, "://"))
		return -1;
	end = p + strcspn(p, "/?#");
	at = srt__os_memrchr(p, '@', (size_t)(end - p));
	if (at) {
		char cred[360], b64[490];
		size_t n = pct_decode(p, (size_t)(at - p), cred, sizeof(cred));
		if (!memchr(cred, ':', n) || !srt__b64_encode((const uint8_t *)cred, n, b64, sizeof(b64)))
			return -1;
		snprintf(up->auth, sizeof(up->auth), "Basic %s", b64);
		p = at + 1;
	}
	if (*p == '[') {
		hs = p + 1;
		he = memchr(p, ']', (size_t)(end - p));
		if (!he)
			return -1;
		p = he + 1;
	} else {
		hs = p;
		he = memchr(p, ':', (size_t)(end - p));
		if (!he)
			he = end;
		p = he;
	}
	if (he == hs || (size_t)(he - hs) >= sizeof(up->host))
		return -1;
	if (p < end) {
		if (*p != ':')
			return -1;
		port = 0;
		for (p++; p < end; p++) {
			if (*p < '0' || *p > '9' || port > 65535)
				return -1;
			port = port * 10 + (*p - '0');
		}
		if (port < 1 || port > 65535)
			return -1;
	}
	memcpy(up->host, hs, (size_t)(he - hs));
	up->host[he - hs] = '\0';
	if (!srt__host_is_valid(up->host))
		return -1;
	up->port = port;
	up->set = true;
	return 0;
}

static const char *env2(const char *a, const char *b)
{
	const char *v = getenv(a);

	if (!v || !*v)
		v = getenv(b);
	return v && *v ? v : NULL;
}

static int push(char ***v, size_t *n, const char *s, size_t len)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));

	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strndup(s, len)))
		return -1;
	(*n)++;
	return 0;
}

void srt__routes_release(struct srt__routes *rt)
{
	for (size_t i = 0; i < rt->n_no_proxy; i++)
		free(rt->no_proxy[i]);
	free(rt->no_proxy);
	for (size_t i = 0; i < rt->n_mitm_domains; i++)
		free(rt->mitm_domains[i]);
	free(rt->mitm_domains);
	memset(rt, 0, sizeof(*rt));
}

int srt__routes_init(struct srt__routes *rt, const struct srt__net_config *s,
		     struct srt_diag *diag)
{
	const char *http = s->parent_http;
	const char *https = s->parent_https;
	const char *nop = s->parent_no_proxy;
	bool http_cfg = http != NULL, https_cfg = https != NULL;
	int rc;

	memset(rt, 0, sizeof(*rt));
	if (!http)
		http = env2("HTTP_PROXY", "http_proxy");
	if (!https)
		https = env2("HTTPS_PROXY", "https_proxy");
	if (!nop)
		nop = env2("NO_PROXY", "no_proxy");
	if (http) {
		rc = srt__upstream_parse(http, &rt->parent_http);
		if (rc == -2 && http_cfg)
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.parentProxy.http",
					    "https:// parent proxies are not supported; use an http:// parent");
		if (rc < 0 && http_cfg)
			return srt_diag_set(diag, SRT_E_INVAL, "network.parentProxy.http",
					    "invalid parent proxy url '%s'", http);
	}
	if (https) {
		rc = srt__upstream_parse(https, &rt->parent_https);
		if (rc == -2 && https_cfg)
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.parentProxy.https",
					    "https:// parent proxies are not supported; use an http:// parent");
		if (rc < 0 && https_cfg)
			return srt_diag_set(diag, SRT_E_INVAL, "network.parentProxy.https",
					    "invalid parent proxy url '%s'", https);
	}
	/* HTTPS/CONNECT/SOCKS use https ?? http */
	if (!rt->parent_https.set && rt->parent_http.set)
		rt->parent_https = rt->parent_http;
	for (const char *p = nop; p && *p;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *b = p + n;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b > a && push(&rt->no_proxy, &rt->n_no_proxy, a, (size_t)(b - a)) < 0)
			goto nomem;
		p += n + (p[n] == ',');
	}
	if (s->mitm_socket_path) {
		if (strlen(s->mitm_socket_path) >= sizeof(rt->mitm.path))
			return srt_diag_set(diag, SRT_E_INVAL, "network.mitmProxy.socketPath",
					    "mitmProxy socket path '%s' is too long", s->mitm_socket_path);
		rt->mitm.set = true;
		rt->mitm.is_unix = true;
		snprintf(rt->mitm.path, sizeof(rt->mitm.path), "%s", s->mitm_socket_path);
		for (size_t i = 0; i < s->mitm_domains.n; i++)
			if (push(&rt->mitm_domains, &rt->n_mitm_domains, s->mitm_domains.v[i],
				 strlen(s->mitm_domains.v[i])) < 0)
				goto nomem;
	}
	return SRT_OK;
nomem:
	srt__routes_release(rt);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
}

static bool is_loopback_name(const char *canon)
{
	struct srt__ip ip;

	if (!strcmp(canon, "localhost") ||
	    (strlen(canon) > 10 && !strcmp(canon + strlen(canon) - 10, ".localhost")))
		return true;
	if (srt__ip_parse(canon, &ip) < 0)
		return false;
	return (ip.family == AF_INET && ip.a[0] == 127) ||
	       (ip.family == AF_INET6 && !memcmp(ip.a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16));
}

bool srt__no_proxy_match(char *const *list, size_t n, const char *canon)
{
	struct srt__ip ip;
	bool is_ip = srt__ip_parse(canon, &ip) == 0;

	if (is_loopback_name(canon))
		return true;
	for (size_t i = 0; i < n; i++) {
		char e[300], canon_e[300];
		const char *x = list[i];
		size_t l, cl = strlen(canon);

		if (!strcmp(x, "*"))
			return true;
		if (strchr(x, '/')) {
			struct srt__cidr c;
			if (is_ip && srt__cidr_parse(x, &c) == 0 && srt__cidr_contains(&c, &ip))
				return true;
			continue;
		}
		snprintf(e, sizeof(e), "%s", x[0] == '*' && x[1] == '.' ? x + 1 : x);
		/* ":port" is ignored; brackets come off IPv6 */
		if (e[0] == '[') {
			char *rb = strchr(e, ']');
			if (rb)
				*rb = '\0';
			memmove(e, e + 1, strlen(e));
		} else if (strchr(e, ':') == strrchr(e, ':') && strchr(e, ':')) {
			*strchr(e, ':') = '\0';
		}
		for (char *q = e; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		if (srt__host_canonicalize(e[0] == '.' ? e + 1 : e, canon_e, sizeof(canon_e)) < 0)
			snprintf(canon_e, sizeof(canon_e), "%s", e[0] == '.' ? e + 1 : e);
		l = strlen(canon_e);
		if (!strcmp(canon, canon_e))
			return true;
		/* "x" and ".x" both cover the subdomains of x */
		if (!is_ip && cl > l + 1 && canon[cl - l - 1] == '.' && !strcmp(canon + cl - l, canon_e))
			return true;
	}
	return false;
}

enum srt__route srt__route_for(const struct srt__routes *rt, const char *canon, int port,
			      bool plain_http, struct srt__upstream *via)
{
	const struct srt__upstream *parent;

	if (rt->mitm.set) {
		for (size_t i = 0; i < rt->n_mitm_domains; i++) {
			if (srt__domain_match(canon, port, rt->mitm_domains[i])) {
				*via = rt->mitm;
				return SRT_ROUTE_MITM;
			}
		}
	}
	parent = plain_http ? &rt->parent_http : &rt->parent_https;
	if (parent->set && !srt__no_proxy_match(rt->no_proxy, rt->n_no_proxy, canon)) {
		*via = *parent;
		return SRT_ROUTE_PARENT;
	}
	return SRT_ROUTE_DIRECT;
}
