/* SOCKS5 clients: greeting, username/password authentication, the
 * request, and the in-band refusal an ssh ProxyCommand can show. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/domain.h"
#include "proxies/auth.h"
#include "proxies/conn.h"
#include "proxies/socks.h"

/* A SOCKS message is still incomplete: read more (up to `max` buffered) and
 * parse again with `step`; EOF, an error or a full buffer closes. */
static void socks_read_more(struct srt__conn *c, size_t max, void (*step)(struct srt__conn *))
{
	int rc = srt__io_fill(c->cio, &c->cs, &c->in, max);

	if (rc == SRT_FILL_DATA)
		step(c);
	else if (rc != SRT_FILL_AGAIN)
		srt__conn_close(c);
}

void srt__serve_socks_greet(struct srt__conn *c)
{
	uint32_t offers = 0;
	int n = srt__socks_parse_greeting((uint8_t *)c->in.p, c->in.len, &offers);
	uint8_t rep[2] = { 5, 0 };

	if (n == 0) {
		socks_read_more(c, 512, srt__serve_socks_greet);
		return;
	}
	if (n < 0) {
		srt__conn_close(c); /* SOCKS4 or garbage */
		return;
	}
	srt__buf_consume(&c->in, (size_t)n);
	if (!c->p->token) {
		if (!(offers & 1u << SRT_SOCKS_METHOD_NONE)) {
			rep[1] = 0xff;
			srt__reply_and_close(c, rep, 2);
			return;
		}
		c->phase = SRT_PH_SOCKS_REQ;
	} else if (offers & 1u << SRT_SOCKS_METHOD_USERPASS) {
		rep[1] = SRT_SOCKS_METHOD_USERPASS;
		c->phase = SRT_PH_SOCKS_AUTH;
	} else {
		/* pretend no-auth so an ssh ProxyCommand (which cannot send
		 * credentials) reaches the in-band refusal and learns why */
		c->socks_noauth = true;
		c->phase = SRT_PH_SOCKS_REQ;
		srt__timed_set(c, SRT_SOCKS_NOAUTH_MS);
	}
	if (srt__buf_add(&c->cout, rep, 2) < 0)
		srt__conn_close(c);
}

void srt__serve_socks_auth(struct srt__conn *c)
{
	const char *user, *pass;
	size_t ul, pl;
	int n = srt__socks_parse_auth((uint8_t *)c->in.p, c->in.len, &user, &ul, &pass, &pl);
	uint8_t ok[2] = { 1, 0 }, bad[2] = { 1, 1 };

	if (n == 0) {
		socks_read_more(c, 1024, srt__serve_socks_auth);
		return;
	}
	if (n < 0) {
		srt__conn_close(c);
		return;
	}
	free(c->key);
	c->key = NULL;
	if (!srt__auth_socks_check(user, ul, pass, pl, c->p->token, &c->key)) {
		srt__reply_and_close(c, bad, 2);
		return;
	}
	srt__buf_consume(&c->in, (size_t)n);
	if (srt__buf_add(&c->cout, ok, 2) < 0) {
		srt__conn_close(c);
		return;
	}
	c->phase = SRT_PH_SOCKS_REQ;
}

static void socks_refuse_unauthenticated(struct srt__conn *c)
{
	static const char dflt[] = "This proxy requires authentication, and this client "
		"did not offer an authentication method, so the connection was refused.";
	char reason[512];
	uint8_t msg[2048 + 10];
	size_t n;
	bool denied;

	pthread_mutex_lock(&c->p->lock);
	denied = srt__net_rules_denied(c->p->rules, c->host, c->port, reason, sizeof(reason));
	pthread_mutex_unlock(&c->p->lock);
	if (denied)
		srt__conn_violation(c, reason);
	if (c->port != 22 || !srt__host_is_valid(c->host)) {
		srt__socks_reply(msg, 2);
		srt__reply_and_close(c, msg, 10);
		return;
	}
	srt__socks_reply(msg, 0);
	n = srt__ssh_refusal(denied ? reason : dflt, msg + 10, sizeof(msg) - 10);
	srt__reply_and_close(c, msg, 10 + n);
}

/* The target passed the domain lists: with request filters, the
 * connection hook once the stream's ClientHello is read (a SOCKS5 stream
 * is opaque), else the way there. */
static void socks_go(struct srt__conn *c)
{
	if (srt__filter_active(c)) {
		srt__tunnel_open(c);
		return;
	}
	if (srt__choose_route(c, false) < 0) {
		srt__conn_close(c);
		return;
	}
	srt__dial(c);
}

/* The domain lists (and a question to the application, which brings this
 * back: the request is consumed by now, its target is in c->host). */
static void socks_judge(struct srt__conn *c)
{
	if (srt__conn_judge(c, socks_judge) != SRT__ASK_GO)
		return;
	srt__net_canon(c->host, c->canon, sizeof(c->canon));
	socks_go(c);
}

void srt__serve_socks_req(struct srt__conn *c)
{
	struct srt__socks_request r;
	int bad_atyp = 0;
	int n = srt__socks_parse_request((uint8_t *)c->in.p, c->in.len, &r, &bad_atyp);
	uint8_t rep[10];

	if (n == 0) {
		socks_read_more(c, 1024, srt__serve_socks_req);
		return;
	}
	if (n < 0) {
		if (bad_atyp) {
			srt__socks_reply(rep, 8);
			srt__reply_and_close(c, rep, sizeof(rep));
		} else {
			srt__conn_close(c);
		}
		return;
	}
	srt__buf_consume(&c->in, (size_t)n);
	srt__copy_str(c->host, sizeof(c->host), r.host);
	c->port = r.port;
	if (r.cmd != 1) {
		uint8_t unsupported[2] = { 5, 7 };
		srt__reply_and_close(c, unsupported, 2);
		return;
	}
	if (r.port == 0) {
		/* no such destination (the HTTP side answers 400): general
		 * failure, nothing dialled */
		srt__socks_reply(rep, 1);
		srt__reply_and_close(c, rep, sizeof(rep));
		return;
	}
	if (c->socks_noauth) {
		socks_refuse_unauthenticated(c);
		return;
	}
	if (srt__rule_flag(c, SRT_FLAG_REFUSE_OPAQUE)) {
		char line[600];
		snprintf(line, sizeof(line), "deny socks-tunnel %s:%d (refuseOpaqueTunnels)",
			 c->host, c->port);
		if (c->p->on_violation)
			c->p->on_violation(c->p->ctx, c->key, line);
		srt__socks_reply(rep, 1);
		srt__reply_and_close(c, rep, sizeof(rep));
		return;
	}
	socks_judge(c);
}
