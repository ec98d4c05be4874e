/* Open tunnels: the TLS server-name check before the first client byte
 * goes on, the two-way relay, and draining a client before closing it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proxies/conn.h"
#include "proxies/sni.h"

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

/* Before the first client byte reaches the upstream: when the tunnel
 * carries TLS, its server name must pass the same policy as the CONNECT
 * target, so an allowed CONNECT cannot front for another host.
 * Bytes from the server flow meanwhile (SSH and SMTP speak first). */
void srt__sni_check(struct srt__conn *c)
{
	char sni[256], reason[512];
	int rc, r;

	if (tunnel_dir(c, c->uio, c->cio, &c->cout, &c->cout_off, &c->down, &c->cshut) < 0) {
		srt__conn_close(c);
		return;
	}
	for (;;) {
		r = srt__sni_find((const uint8_t *)(c->in.p ? c->in.p : ""), c->in.len, sni,
				 sizeof(sni));
		if (r != SRT_SNI_MORE)
			break;
		if (c->in.len >= SRT_SNI_PEEK_MAX) {
			r = SRT_SNI_MALFORMED;
			break;
		}
		rc = srt__io_fill(c->cio, &c->cs, &c->in, SRT_SNI_PEEK_MAX);
		if (rc == SRT_FILL_AGAIN) {
			/* a started hello is held in memory: it must finish in
			 * SRT_HEAD_MS, like a request head (a silent client holds
			 * nothing and keeps no deadline) */
			if (c->in.len && !c->deadline)
				srt__timed_set(c, SRT_HEAD_MS);
			return;
		}
		if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR) {
			/* nothing (or a partial hello) and EOF: nothing to check */
			r = c->in.len ? SRT_SNI_MALFORMED : SRT_SNI_NOT_TLS;
			break;
		}
	}
	if (r == SRT_SNI_MALFORMED) {
		srt__conn_violation(c, "TLS client hello could not be read");
		srt__conn_close(c);
		return;
	}
	if (r == SRT_SNI_FOUND) {
		char canon[300];
		bool ok;
		srt__net_canon(sni, canon, sizeof(canon));
		if (strcmp(canon, c->canon) != 0) {
			char saved[256];
			/* judge the name as if it had been the CONNECT target */
			snprintf(saved, sizeof(saved), "%s", c->host);
			snprintf(c->host, sizeof(c->host), "%s", sni);
			ok = srt__conn_decide(c, reason, sizeof(reason));
			if (!ok) {
				char why[1100];
				snprintf(why, sizeof(why),
					 "TLS server name does not match the request target %s: %s",
					 saved, reason);
				srt__conn_violation(c, why);
				srt__conn_close(c);
				return;
			}
			snprintf(c->host, sizeof(c->host), "%s", saved);
			if (srt__filter_active(c)) {
				/* the filters judged the CONNECT target, never this
				 * name: the tunnel would reach a host they did not see */
				char why[700];
				snprintf(why, sizeof(why),
					 "TLS server name %s differs from the request target %s, "
					 "which is all the request filters saw", sni, saved);
				srt__conn_violation(c, why);
				srt__conn_close(c);
				return;
			}
		}
	}
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
