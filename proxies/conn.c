/* A connection's life: deadlines, closing, the refusals answered in the
 * client's own protocol, the policy questions, and the phase driver. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/platform.h"
#include "proxies/conn.h"
#include "proxies/socks.h"
#include "proxies/wire.h"

int64_t srt__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void srt__timed_set(struct srt__conn *c, int ms)
{
	struct srt__proxy *p = c->p;

	c->deadline = srt__now_ms() + ms;
	if (c->tprev || p->timed == c)
		return;
	c->tnext = p->timed;
	if (p->timed)
		p->timed->tprev = c;
	p->timed = c;
}

void srt__timed_clear(struct srt__conn *c)
{
	struct srt__proxy *p = c->p;

	if (!c->tprev && p->timed != c)
		return;
	if (c->tprev)
		c->tprev->tnext = c->tnext;
	else
		p->timed = c->tnext;
	if (c->tnext)
		c->tnext->tprev = c->tprev;
	c->tprev = c->tnext = NULL;
	c->deadline = 0;
}

/* Close a descriptor of a connection, taking it out of the event loop
 * first: a registration belongs to the open file, not to the descriptor,
 * and a passed client socket is still open in the bridge (SCM_RIGHTS gives
 * a copy) until the bridge closes its own, so close(2) alone would leave
 * events coming for a connection that reap() has freed. */
void srt__close_registered(struct srt__proxy *p, int fd)
{
	srt__evloop_del(p->ev, fd);
	srt__os_sock_close(fd);
}

/* Accepting stopped when the process ran out of descriptors (on_accept):
 * one was just freed, so listen again. */
void srt__resume_accept(struct srt__proxy *p)
{
	if (p->accept_paused && srt__evloop_mod(p->ev, p->lfd, SRT_EV_IN, &p->lep) == 0)
		p->accept_paused = false;
}

void srt__close_upstream(struct srt__conn *c)
{
	srt__layer_release(c->uio);
	c->uio = &c->ul;
	if (c->ul.fd >= 0) {
		srt__close_registered(c->p, c->ul.fd);
		c->ul.fd = -1;
	}
	c->ushut = false;
	c->up_canon[0] = '\0';
	srt__buf_free(&c->uin);
	srt__buf_free(&c->uout);
	c->uout_off = 0;
	srt__pump_release(&c->up, &c->p->pool);
	srt__pump_release(&c->down, &c->p->pool);
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
	srt__buf_free(&c->upq);
	srt__buf_free(&c->downq);
	c->upq_off = c->downq_off = 0;
}

void srt__conn_close(struct srt__conn *c)
{
	struct srt__proxy *p = c->p;

	if (c->dead)
		return;
	c->dead = true;
	if (c->terminated)
		p->tls_open--;
	/* a pending filter call is abandoned: its completion never comes */
	srt__filter_end(c);
	srt__ask_end(c); /* and a question: its answer is refused */
	srt__timed_clear(c);
	if (c->q) {
		srt__dns_cancel(c->q);
		c->q = NULL;
	}
	srt__close_upstream(c);
	srt__layer_release(c->cio);
	c->cio = &c->cl;
	if (c->cl.fd >= 0)
		srt__close_registered(p, c->cl.fd);
	c->cl.fd = -1;
	srt__buf_free(&c->in);
	srt__buf_free(&c->cout);
	free(c->key);
	c->key = NULL;
	free(c->auth_ok);
	c->auth_ok = NULL;
	free(c->via);
	c->via = NULL;
	if (c->ctl)
		p->nctl--;
	else
		p->nclients--;
	srt__resume_accept(p);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	/* freed after the current batch of events: later events in the same
	 * batch may still point at it */
	c->next = p->dead;
	p->dead = c;
}

void srt__conn_violation(struct srt__conn *c, const char *reason)
{
	char line[1024];

	snprintf(line, sizeof(line), "deny network-outbound %s:%d (%s)", c->host,
		 c->port, reason);
	if (c->p->debug)
		fprintf(stderr, "srt-proxy: %s\n", line);
	if (c->p->on_violation)
		c->p->on_violation(c->p->ctx, c->key, line);
}

/* Queue a reply, then flush it, shut our side and drain the client until
 * it closes: closing with unread input would reset the connection and
 * could destroy the reply before the client reads it. */
void srt__reply_and_close(struct srt__conn *c, const void *data, size_t n)
{
	if (c->q) {
		srt__dns_cancel(c->q);
		c->q = NULL;
	}
	srt__close_upstream(c);
	if (c->icept_pending && !c->inner_http) {
		/* the client sent no CONNECT: it learns the refusal as a reset */
		struct linger l = { 1, 0 };

		setsockopt(c->cl.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		srt__conn_close(c);
		return;
	}
	if (n && srt__buf_add(&c->cout, data, n) < 0) {
		srt__conn_close(c);
		return;
	}
	srt__buf_free(&c->in);
	c->phase = SRT_PH_LINGER;
	srt__timed_set(c, SRT_LINGER_MS);
}

void srt__reply_text(struct srt__conn *c, const char *text)
{
	srt__reply_and_close(c, text, strlen(text));
}

/* Status-line phrase: printable ASCII only, others become '?'. */
static void sanitize_phrase(const char *in, char *out, size_t cap)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < cap; i++) {
		unsigned char ch = (unsigned char)in[i];
		out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	out[i] = '\0';
}

void srt__reply_http(struct srt__conn *c, int status, const char *phrase,
			const char *mark, const char *body)
{
	char msg[2048];

	snprintf(msg, sizeof(msg),
		 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n%s%s%sContent-Length: %zu\r\n"
		 "Connection: close\r\n\r\n%s",
		 status, phrase, mark ? "X-Proxy-Error: " : "", mark ? mark : "",
		 mark ? "\r\n" : "", strlen(body), body);
	srt__reply_text(c, msg);
}

/* A refused target, answered in the client's own protocol: a 403 with
 * `mark` in X-Proxy-Error to HTTP clients (the reason as the CONNECT status
 * phrase, then `body`; `plain_body` to plain HTTP), "not allowed by
 * ruleset" to SOCKS clients, a bare close to raw ones. */
static void deny(struct srt__conn *c, const char *reason, const char *mark, const char *body,
		 const char *plain_body)
{
	char phrase[512], msg[4096];
	uint8_t r[10];

	srt__conn_violation(c, reason);
	if (c->answered) {
		/* the tunnel's client was told it is open: only a close is left */
		srt__reply_and_close(c, NULL, 0);
		return;
	}
	switch (c->kind) {
	case SRT_K_RAW:
		srt__reply_and_close(c, NULL, 0);
		break;
	case SRT_K_HTTP_CONNECT:
		sanitize_phrase(reason, phrase, sizeof(phrase));
		snprintf(msg, sizeof(msg),
			 "HTTP/1.1 403 %s\r\nContent-Type: text/plain\r\n"
			 "X-Proxy-Error: %s\r\n\r\n%s", phrase, mark, body);
		srt__reply_text(c, msg);
		break;
	case SRT_K_HTTP_PLAIN:
		srt__reply_http(c, 403, "Forbidden", mark, plain_body);
		break;
	case SRT_K_SOCKS:
		srt__socks_reply(r, 2);
		srt__reply_and_close(c, r, sizeof(r));
		break;
	}
}

/* The policy denied the target. */
void srt__deny_policy(struct srt__conn *c, const char *reason)
{
	deny(c, reason, "blocked-by-allowlist", "Connection blocked by network allowlist",
	     "Connection blocked by network allowlist\n");
}

/* Every resolved address was refused by the guard (proxies/guard.h). */
void srt__deny_address(struct srt__conn *c, const char *reason)
{
	char body[1024];

	snprintf(body, sizeof(body), "Connection to %s blocked: %s", c->host, reason);
	deny(c, reason, "blocked-by-sandbox-runtime", body, body);
}

void srt__bad_gateway(struct srt__conn *c)
{
	uint8_t r[10];

	if (c->answered) {
		srt__reply_and_close(c, NULL, 0);
		return;
	}
	switch (c->kind) {
	case SRT_K_RAW:
		srt__reply_and_close(c, NULL, 0);
		break;
	case SRT_K_HTTP_CONNECT:
		srt__reply_text(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n");
		break;
	case SRT_K_HTTP_PLAIN:
		srt__reply_http(c, 502, "Bad Gateway", NULL, "Bad Gateway\n");
		break;
	case SRT_K_SOCKS:
		srt__socks_reply(r, 4);
		srt__reply_and_close(c, r, sizeof(r));
		break;
	}
}

bool srt__rule_flag(struct srt__conn *c, int which)
{
	bool v;

	pthread_mutex_lock(&c->p->lock);
	v = which == SRT_FLAG_REFUSE_OPAQUE ? c->p->rules->refuse_opaque :
					  c->p->rules->require_host_match;
	pthread_mutex_unlock(&c->p->lock);
	return v;
}

enum srt__verdict srt__conn_verdict(struct srt__conn *c, char *reason, size_t cap)
{
	const struct srt__cmd_list *l = NULL;
	enum srt__verdict v;

	pthread_mutex_lock(&c->p->lock);
	for (l = c->key ? c->p->cmds : NULL; l && strcmp(l->key, c->key); l = l->next)
		;
	v = srt__net_rules_judge(c->p->rules, c->host, c->port, l ? l->v : NULL, l ? l->n : 0,
				 reason, cap);
	pthread_mutex_unlock(&c->p->lock);
	return v;
}

bool srt__conn_decide(struct srt__conn *c, char *reason, size_t cap)
{
	return srt__conn_verdict(c, reason, cap) == SRT__VERDICT_ALLOW;
}

void srt__conn_run(struct srt__conn *c)
{
	for (int guard = 0; !c->dead && guard < 64; guard++) {
		enum srt__phase before = c->phase;
		int rc;

		/* anything queued for the client (100 Continue, SOCKS replies) */
		if (c->cout.len && c->phase != SRT_PH_LINGER && c->phase != SRT_PH_TUNNEL &&
		    c->phase != SRT_PH_HTTP_RESPBODY && c->phase != SRT_PH_SNI) {
			rc = srt__io_flush(c->cio, &c->cout, &c->cout_off);
			if (rc < 0) {
				srt__conn_close(c);
				return;
			}
		}
		switch (c->phase) {
		case SRT_PH_SNIFF:
			rc = srt__io_fill(c->cio, &c->cs, &c->in, 1);
			if (c->in.len >= 1 && c->in.p[0] == SRT_PASS_HELLO && c->unix_client) {
				/* the bridge: from now on it hands over TCP sockets.
				 * It needs one such connection (a new one after a
				 * failure); a client relayed by a bridge in fallback
				 * mode can start with the same byte, so they are
				 * bounded, having no timeout */
				static const char ack = SRT_PASS_HELLO;
				if (c->p->nctl >= SRT_PASS_MAX_CTL) {
					srt__conn_close(c);
					break;
				}
				c->ctl = true;
				c->p->nctl++;
				c->p->nclients--; /* counted in nctl from now on */
				srt__buf_free(&c->in);
				srt__timed_clear(c);
				c->phase = SRT_PH_FDRECV;
				if (srt__buf_add(&c->cout, &ack, 1) < 0)
					srt__conn_close(c);
			} else if (c->in.len >= 1 && c->in.p[0] == SRT_NAME_HELLO && c->unix_client) {
				memmove(c->in.p, c->in.p + 1, c->in.len - 1);
				c->in.len--;
				c->phase = SRT_PH_NAMES;
			} else if (c->in.len >= 1) {
				uint8_t b = (uint8_t)c->in.p[0];
				c->phase = (b == 4 || b == 5) ? SRT_PH_SOCKS_GREET : SRT_PH_HTTP_HEAD;
				c->kind = (b == 4 || b == 5) ? SRT_K_SOCKS : SRT_K_HTTP_PLAIN;
				srt__timed_set(c, SRT_HEAD_MS);
				srt__start_external(c);
			} else if (rc != SRT_FILL_AGAIN) {
				srt__conn_close(c);
			}
			break;
		case SRT_PH_HTTP_HEAD:
			srt__serve_http_head(c);
			break;
		case SRT_PH_NAMES:
			srt__serve_names(c);
			return;
		case SRT_PH_SOCKS_GREET:
			srt__serve_socks_greet(c);
			break;
		case SRT_PH_SOCKS_AUTH:
			srt__serve_socks_auth(c);
			break;
		case SRT_PH_SOCKS_REQ:
			srt__serve_socks_req(c);
			break;
		case SRT_PH_RESOLVE:
			return;
		case SRT_PH_CONNECT:
			return; /* srt__check_connect() runs on the upstream's event */
		case SRT_PH_HTTP_REQBODY:
			srt__serve_http_reqbody(c);
			break;
		case SRT_PH_HTTP_RESPHEAD:
			srt__serve_http_resphead(c);
			break;
		case SRT_PH_HTTP_RESPBODY:
			srt__serve_http_respbody(c);
			break;
		case SRT_PH_PROXY_HS:
			srt__proxy_handshake(c);
			break;
		case SRT_PH_SNI:
			srt__sni_check(c);
			break;
		case SRT_PH_TUNNEL:
			srt__tunnel(c);
			return;
		case SRT_PH_LINGER:
			srt__linger(c);
			return;
		case SRT_PH_FDRECV:
			srt__fd_recv(c);
			return;
		case SRT_PH_FILTER:
			return; /* the filter's completion resumes it */
		case SRT_PH_ASK:
			return; /* the application's answer resumes it */
		case SRT_PH_TLS_HS:
			srt__tls_handshakes(c);
			break;
		case SRT_PH_FILTER_BODY:
			srt__filter_body(c);
			break;
		case SRT_PH_PEEK:
			srt__tunnel_peek(c);
			break;
		}
		if (c->phase == before)
			return;
	}
}
