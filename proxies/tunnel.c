/* Open tunnels: with request filters, the client's ClientHello read before
 * the connection hook and the dial; the TLS server-name check before the
 * first client byte goes on; the two-way relay; draining a client before
 * closing it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proxies/conn.h"
#include "proxies/sni.h"
#include "proxies/socks.h"

/* One direction of a tunnel: first what is queued for dst, then bytes
 * moved from src (srt__io_move); EOF from src goes on as a FIN to dst (*shut). Returns
 * -1 on error, else 0. */
static int tunnel_dir(struct srt__conn *c, struct srt__layer *src, struct srt__layer *dst,
		      struct srt__buf *queued, size_t *off, struct srt__pump *pump, bool *shut)
{
	int rc = srt__io_flush(dst, queued, off);

	if (rc < 0)
		return -1;
	if (rc > 0 && !*shut) {
		rc = srt__io_move(c, src, dst, pump, NULL);
		if (rc == SRT_PUMP_ERROR)
			return -1;
		if (rc == SRT_PUMP_EOF) {
			srt__layer_shutdown(dst);
			*shut = true;
		}
	}
	return 0;
}

/* Read the client's first bytes until they say whether a ClientHello is
 * there and which server name it asks for: an srt__sni_find answer, or
 * SRT_SNI_MORE when the client must send more first. */
static int read_hello(struct srt__conn *c, char *sni, size_t cap)
{
	for (;;) {
		int rc, r = srt__sni_find((const uint8_t *)(c->in.p ? c->in.p : ""), c->in.len,
					  sni, cap);

		if (r != SRT_SNI_MORE)
			return r;
		if (c->in.len >= SRT_SNI_PEEK_MAX)
			return SRT_SNI_MALFORMED;
		rc = srt__io_fill(c->cio, &c->cs, &c->in, SRT_SNI_PEEK_MAX);
		if (rc == SRT_FILL_AGAIN)
			return SRT_SNI_MORE;
		/* nothing (or a partial hello) and EOF: nothing to check */
		if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR)
			return c->in.len ? SRT_SNI_MALFORMED : SRT_SNI_NOT_TLS;
	}
}

/* A ClientHello's server name must pass the same policy as the CONNECT
 * target, so an allowed CONNECT cannot front for another host; with
 * request filters it must be the target itself, the name the filters
 * judged. False once the tunnel is refused (the violation recorded, the
 * connection closed). */
static bool sni_allowed(struct srt__conn *c, const char *sni)
{
	char canon[300], saved[256], reason[512], why[1100];

	srt__net_canon(sni, canon, sizeof(canon));
	if (strcmp(canon, c->canon) == 0)
		return true;
	/* judge the name as if it had been the CONNECT target */
	snprintf(saved, sizeof(saved), "%s", c->host);
	snprintf(c->host, sizeof(c->host), "%s", sni);
	if (!srt__conn_decide(c, reason, sizeof(reason))) {
		snprintf(why, sizeof(why), "TLS server name does not match the request target %s: %s",
			 saved, reason);
		srt__conn_violation(c, why);
		srt__conn_close(c);
		return false;
	}
	snprintf(c->host, sizeof(c->host), "%s", saved);
	if (srt__filter_active(c)) {
		/* the filters judge a connection by its target: a tunnel whose
		 * hello names another host would reach a host they never judged
		 * as a target (and a name arriving after the connection hook
		 * ran was never shown to them at all) */
		snprintf(why, sizeof(why),
			 "TLS server name %s differs from the request target %s, "
			 "which is all the request filters judged", sni, saved);
		srt__conn_violation(c, why);
		srt__conn_close(c);
		return false;
	}
	return true;
}

/* Before the first client byte reaches the upstream: when the tunnel
 * carries TLS, its server name must pass sni_allowed().
 * Bytes from the server flow meanwhile (SSH and SMTP speak first). */
void srt__sni_check(struct srt__conn *c)
{
	char sni[256];
	int r;

	if (tunnel_dir(c, c->uio, c->cio, &c->cout, &c->cout_off, &c->down, &c->cshut) < 0) {
		srt__conn_close(c);
		return;
	}
	r = read_hello(c, sni, sizeof(sni));
	if (r == SRT_SNI_MORE) {
		/* a started hello is held in memory: it must finish in
		 * SRT_HEAD_MS, like a request head (a silent client holds
		 * nothing and keeps no deadline) */
		if (c->in.len && !c->deadline)
			srt__timed_set(c, SRT_HEAD_MS);
		return;
	}
	if (r == SRT_SNI_MALFORMED) {
		srt__conn_violation(c, "TLS client hello could not be read");
		srt__conn_close(c);
		return;
	}
	if (r == SRT_SNI_FOUND && !sni_allowed(c, sni))
		return;
	if (srt__tls_take(c, r == SRT_SNI_FOUND ? sni : NULL))
		return;
	if (c->kind == SRT_K_HTTP_CONNECT && srt__rule_flag(c, SRT_FLAG_REFUSE_OPAQUE)) {
		/* let through at CONNECT time for termination, but what the
		 * client sent is no TLS hello: nothing in it could be seen */
		srt__conn_violation(c, "opaque tunnel refused: the tunnel carries no TLS to terminate");
		srt__conn_close(c);
		return;
	}
	if (c->in.len && srt__buf_add(&c->uout, c->in.p, c->in.len) < 0) {
		srt__conn_close(c);
		return;
	}
	c->moved_up += c->in.len;
	srt__buf_free(&c->in);
	srt__timed_clear(c);
	c->phase = SRT_PH_TUNNEL;
}

/* With request filters the connection hook runs before anything is
 * dialled, with the server name the client's ClientHello asks for: the
 * client is told the tunnel is open first (a TLS client sends its hello
 * only then), so a refusal from here on can only close the tunnel. */
void srt__tunnel_open(struct srt__conn *c)
{
	static const char est[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
	uint8_t r[10];
	int rc;

	if (c->icept_pending) {
		/* handed over by the bridge: its client sent no CONNECT and
		 * is told nothing (a refusal from here on is a reset) */
		rc = 0;
	} else if (c->kind == SRT_K_SOCKS) {
		srt__socks_reply(r, 0);
		rc = srt__buf_add(&c->cout, r, sizeof(r));
	} else {
		rc = srt__buf_add(&c->cout, est, sizeof(est) - 1);
	}
	if (rc < 0) {
		srt__conn_close(c);
		return;
	}
	c->answered = true;
	c->sni[0] = '\0';
	c->phase = SRT_PH_PEEK;
	srt__timed_set(c, SRT_PEEK_MS);
}

/* The connection hook with what the peek learnt, then the way to the
 * target. A pending verdict brings this back. */
static void peek_go(struct srt__conn *c)
{
	if (srt__filter_connection(c, c->kind == SRT_K_SOCKS ? "socks" : "connect",
				   c->sni[0] ? c->sni : NULL, peek_go) != SRT__FILTER_GO)
		return;
	if (srt__choose_route(c, false) < 0) {
		srt__conn_close(c);
		return;
	}
	srt__dial(c);
}

static void peek_done(struct srt__conn *c, const char *sni)
{
	srt__timed_clear(c);
	snprintf(c->sni, sizeof(c->sni), "%s", sni ? sni : "");
	peek_go(c);
}

/* SRT_PH_PEEK. The hello stays in c->in: the SNI check after the dial
 * reads it again and hands it on (or to TLS termination). */
void srt__tunnel_peek(struct srt__conn *c)
{
	char sni[256];
	int r = read_hello(c, sni, sizeof(sni));

	if (r == SRT_SNI_MORE)
		return; /* SRT_PEEK_MS bounds the wait */
	if (r == SRT_SNI_MALFORMED) {
		srt__conn_violation(c, "TLS client hello could not be read");
		srt__conn_close(c);
		return;
	}
	if (r == SRT_SNI_NOT_TLS && !c->in.len) {
		/* the client left before sending anything: nothing to dial */
		srt__conn_close(c);
		return;
	}
	if (r == SRT_SNI_FOUND && !sni_allowed(c, sni))
		return;
	peek_done(c, r == SRT_SNI_FOUND ? sni : NULL);
}

void srt__tunnel_peek_expired(struct srt__conn *c)
{
	/* a silent client (the server speaks first) or a hello still
	 * incomplete: the hook runs without a name, and the SNI check after
	 * the dial still judges a hello that completes later */
	peek_done(c, NULL);
}

void srt__tunnel(struct srt__conn *c)
{
	if (tunnel_dir(c, c->cio, c->uio, &c->uout, &c->uout_off, &c->up, &c->ushut) < 0 ||
	    tunnel_dir(c, c->uio, c->cio, &c->cout, &c->cout_off, &c->down, &c->cshut) < 0 ||
	    (c->ushut && c->cshut))
		srt__conn_close(c);
}

void srt__linger(struct srt__conn *c)
{
	char sink[4096];
	int rc = srt__io_flush(c->cio, &c->cout, &c->cout_off);

	if (rc < 0) {
		srt__conn_close(c);
		return;
	}
	if (rc == 0)
		return;
	if (!c->cshut) {
		srt__layer_shutdown(c->cio);
		c->cshut = true;
	}
	for (;;) {
		ssize_t n = srt__layer_recv(c->cio, sink, sizeof(sink));
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		srt__conn_close(c);
		return;
	}
}
