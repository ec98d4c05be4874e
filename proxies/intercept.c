/* The policy's answer about names, for the in-sandbox DNS answerer, and
 * the packets the sandbox's rules dropped, as violations (the protocol is
 * in proxies/wire.h). A name gets "1" when some rule would let
 * a connection to it through: the decision of srt__net_rules_decide with
 * no port, then with each port an allowedDomains entry names; a refused
 * name is reported as a violation naming it. Nothing is ever resolved
 * here, so a name the command makes up (a DNS tunnel's labels under an
 * allowed suffix) reaches no resolver: it only learns what the policy
 * says, which it could learn through CONNECT anyway. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/domain.h"
#include "proxies/auth.h"
#include "proxies/conn.h"
#include "proxies/rules.h"
#include "proxies/wire.h"

/* Under the lock: allowed for some port? reason gets the refusal. */
static bool name_allowed(struct srt__proxy *p, const char *name, char *reason, size_t cap)
{
	const struct srt__net_rules *r;
	bool ok;

	pthread_mutex_lock(&p->lock);
	r = p->rules;
	ok = srt__net_rules_decide(r, name, 0, NULL, 0, reason, cap);
	for (size_t i = 0; !ok && r && i < r->n_allowed; i++) {
		char h[256], scratch[64];
		int port = 0;

		if (srt__domain_split_port(r->allowed[i], h, sizeof(h), &port) != SRT_OK || !port)
			continue;
		ok = srt__net_rules_decide(r, name, port, NULL, 0, scratch, sizeof(scratch));
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 253)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_' || *s == '.'))
			return false;
	return true;
}

/* "drop <proto> <dest>" (proxies/wire.h): a violation naming dest. false
 * when the line is malformed. */
static bool drop_line(struct srt__conn *c, char *args)
{
	char *sp = strchr(args, ' '), *end, *colon, vline[512];
	const char *what;
	unsigned long proto, port = 0;

	if (!sp || sp == args || sp - args > 3)
		return false;
	*sp = '\0';
	proto = strtoul(args, &end, 10);
	if (*end || proto > 255)
		return false;
	colon = strchr(sp + 1, ':');
	if (colon) {
		*colon = '\0';
		port = strtoul(colon + 1, &end, 10);
		if (*end || !colon[1] || colon[1] == '0' || port > 65535 || strlen(colon + 1) > 5)
			return false;
	}
	if (!valid_name(sp + 1))
		return false;
	what = proto == 17 ? "UDP datagram" : proto == 1 ? "ICMP packet" :
	       proto == 6 ? "TCP packet" : "IP packet";
	if (colon)
		snprintf(vline, sizeof(vline),
			 "deny network-outbound %s:%lu (%s dropped: only TCP connections leave the sandbox, through the proxy; only DNS to its own answerer is served)",
			 sp + 1, port, what);
	else
		snprintf(vline, sizeof(vline),
			 "deny network-outbound %s (%s, IP protocol %lu, dropped: only TCP connections leave the sandbox, through the proxy; only DNS to its own answerer is served)",
			 sp + 1, what, proto);
	if (c->p->debug)
		fprintf(stderr, "srt-proxy: %s\n", vline);
	if (c->p->on_violation)
		c->p->on_violation(c->p->ctx, NULL, vline);
	return true;
}

/* One line (without its newline): the token, then queries and drop
 * reports. false ends the connection. */
static bool name_line(struct srt__conn *c, char *line, size_t len)
{
	char *sp, *end, reason[256], out[32], vline[512];
	unsigned long id;
	bool ok;

	if (!c->names_authed) {
		if (c->p->token && *c->p->token && !srt__token_equal(line, len, c->p->token))
			return false;
		c->names_authed = true;
		srt__timed_clear(c);
		return true;
	}
	if (len > sizeof(SRT_DROP_WORD) && !memcmp(line, SRT_DROP_WORD " ", sizeof(SRT_DROP_WORD)))
		return drop_line(c, line + sizeof(SRT_DROP_WORD));
	sp = memchr(line, ' ', len);
	if (!sp || sp == line || sp - line > 10)
		return false;
	*sp = '\0';
	id = strtoul(line, &end, 10);
	if (*end || !valid_name(sp + 1))
		return false;
	ok = name_allowed(c->p, sp + 1, reason, sizeof(reason));
	if (!ok) {
		snprintf(vline, sizeof(vline), "deny network-outbound %s (DNS query answered NXDOMAIN: %s)",
			 sp + 1, reason);
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: %s\n", vline);
		if (c->p->on_violation)
			c->p->on_violation(c->p->ctx, NULL, vline);
	}
	snprintf(out, sizeof(out), "%lu %d\n", id, ok ? 1 : 0);
	return srt__buf_add(&c->cout, out, strlen(out)) == 0;
}

void srt__serve_names(struct srt__conn *c)
{
	for (;;) {
		int rc = srt__io_fill(c->cio, &c->cs, &c->in, SRT_NAME_LINE_MAX + 2);
		size_t used = 0;
		char *nl;

		while ((nl = memchr(c->in.p + used, '\n', c->in.len - used))) {
			*nl = '\0';
			if (!name_line(c, c->in.p + used, (size_t)(nl - (c->in.p + used)))) {
				srt__conn_close(c);
				return;
			}
			used = (size_t)(nl - c->in.p) + 1;
		}
		if (used) {
			memmove(c->in.p, c->in.p + used, c->in.len - used);
			c->in.len -= used;
		}
		if (c->cout.len && srt__io_flush(c->cio, &c->cout, &c->cout_off) < 0) {
			srt__conn_close(c);
			return;
		}
		if (c->in.len > SRT_NAME_LINE_MAX || rc == SRT_FILL_EOF || rc == SRT_FILL_ERR) {
			srt__conn_close(c);
			return;
		}
		if (rc == SRT_FILL_AGAIN || (rc == SRT_FILL_DATA && !c->cs.rd))
			return;
	}
}
