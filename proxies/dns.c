/* c-ares in the proxy's event loop. Results are queued and delivered from
 * srt__dns_tick() so a lookup answered synchronously (from /etc/hosts)
 * never re-enters the caller. */
#include "config.h"

#include <ares.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/dns.h"
#include "proxies/evloop.h"

#define DNS_MAX_ADDRS 32

struct dns_sock {
	uint32_t tag; /* SRT_EP_DNS: must be first */
	int fd;
	bool dead;
	struct dns_sock *next;
};

struct srt__dns_query {
	struct srt__dns *d;
	srt__dns_cb cb;
	void *arg;
	bool cancelled;
	int status;
	struct srt__ip addrs[DNS_MAX_ADDRS];
	size_t n;
	struct srt__dns_query *next; /* done list */
};

struct srt__dns {
	struct srt__evloop *ev;
	ares_channel ch;
	bool have_channel;
	bool destroying;
	struct dns_sock *socks;
	struct srt__dns_query *done, **done_tail;
	unsigned long count;
};

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_status;

static void lib_init(void)
{
	lib_status = ares_library_init(ARES_LIB_INIT_ALL);
}

static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct srt__dns *d = data;
	struct dns_sock *s;
	uint32_t ev;

	for (s = d->socks; s; s = s->next)
		if (!s->dead && s->fd == fd)
			break;
	if (!readable && !writable) {
		if (s) {
			srt__evloop_del(d->ev, fd);
			s->dead = true; /* freed in the tick: an event may still point at it */
		}
		return;
	}
	ev = (readable ? SRT_EV_IN : 0) | (writable ? SRT_EV_OUT : 0);
	if (s) {
		srt__evloop_mod(d->ev, fd, ev, s);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return; /* the query times out instead */
	s->tag = SRT_EP_DNS;
	s->fd = fd;
	s->next = d->socks;
	d->socks = s;
	srt__evloop_add(d->ev, fd, ev, s);
}

/* The resolver is made at the first lookup, not with the proxy: most
 * sandboxes allow no name at all (the proxy then only answers 403), and
 * c-ares's start reads /etc/resolv.conf, /etc/nsswitch.conf and
 * /dev/urandom, work every start paid before the command could run. A
 * resolver that cannot be made fails that lookup (and each later one
 * tries again), so nothing goes out without it. */
static int channel_open(struct srt__dns *d)
{
	struct ares_options o;
	int rc;

	if (d->have_channel)
		return ARES_SUCCESS;
	pthread_once(&lib_once, lib_init);
	if (lib_status != ARES_SUCCESS)
		return lib_status;
	memset(&o, 0, sizeof(o));
	o.sock_state_cb = sock_state;
	o.sock_state_cb_data = d;
	o.timeout = 5000;
	o.tries = 2;
	rc = ares_init_options(&d->ch, &o, ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS |
				ARES_OPT_TRIES);
	if (rc == ARES_SUCCESS)
		d->have_channel = true;
	return rc;
}

int srt__dns_new(struct srt__dns **out, struct srt__evloop *ev, struct srt_diag *diag)
{
	struct srt__dns *d = calloc(1, sizeof(*d));

	if (!d)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	d->ev = ev;
	d->done_tail = &d->done;
	*out = d;
	return SRT_OK;
}

static void reap_socks(struct srt__dns *d)
{
	struct dns_sock **pp = &d->socks;

	while (*pp) {
		struct dns_sock *s = *pp;
		if (s->dead) {
			*pp = s->next;
			free(s);
		} else {
			pp = &s->next;
		}
	}
}

void srt__dns_free(struct srt__dns *d)
{
	struct srt__dns_query *q, *n;

	if (!d)
		return;
	d->destroying = true;
	if (d->have_channel)
		ares_destroy(d->ch); /* every pending callback runs (and frees) */
	for (q = d->done; q; q = n) {
		n = q->next;
		free(q);
	}
	for (struct dns_sock *s = d->socks, *sn; s; s = sn) {
		sn = s->next;
		free(s);
	}
	free(d);
}

static void on_result(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct srt__dns_query *q = arg;
	struct srt__dns *d = q->d;

	if (q->cancelled || d->destroying) {
		if (res)
			ares_freeaddrinfo(res);
		free(q);
		return;
	}
	q->status = status;
	q->n = 0;
	if (status == ARES_SUCCESS && res) {
		for (struct ares_addrinfo_node *a = res->nodes; a && q->n < DNS_MAX_ADDRS;
		     a = a->ai_next) {
			struct srt__ip *ip = &q->addrs[q->n];
			memset(ip, 0, sizeof(*ip));
			if (a->ai_family == AF_INET && a->ai_addr) {
				ip->family = AF_INET;
				memcpy(ip->a, &((struct sockaddr_in *)(void *)a->ai_addr)->sin_addr, 4);
			} else if (a->ai_family == AF_INET6 && a->ai_addr) {
				ip->family = AF_INET6;
				memcpy(ip->a, &((struct sockaddr_in6 *)(void *)a->ai_addr)->sin6_addr, 16);
			} else {
				continue;
			}
			q->n++;
		}
	}
	if (res)
		ares_freeaddrinfo(res);
	*d->done_tail = q;
	d->done_tail = &q->next;
}

struct srt__dns_query *srt__dns_lookup(struct srt__dns *d, const char *name,
				      srt__dns_cb cb, void *arg)
{
	struct ares_addrinfo_hints hints;
	struct srt__dns_query *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return NULL;
	q->d = d;
	q->cb = cb;
	q->arg = arg;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	d->count++;
	rc = channel_open(d);
	if (rc != ARES_SUCCESS) {
		/* answered from the tick, as every result: never from here */
		fprintf(stderr, "srt-proxy: cannot create a resolver for %s: %s\n", name,
			ares_strerror(rc));
		q->status = rc;
		*d->done_tail = q;
		d->done_tail = &q->next;
		return q;
	}
	ares_getaddrinfo(d->ch, name, NULL, &hints, on_result, q);
	return q;
}

void srt__dns_cancel(struct srt__dns_query *q)
{
	if (q)
		q->cancelled = true;
}

void srt__dns_event(struct srt__dns *d, void *ep, uint32_t events)
{
	struct dns_sock *s = ep;

	if (s->dead || !d->have_channel)
		return;
	ares_process_fd(d->ch,
			(events & (SRT_EV_IN | SRT_EV_ERR | SRT_EV_HUP)) ? s->fd : ARES_SOCKET_BAD,
			(events & SRT_EV_OUT) ? s->fd : ARES_SOCKET_BAD);
}

void srt__dns_tick(struct srt__dns *d)
{
	struct srt__dns_query *q;

	if (d->have_channel)
		ares_process_fd(d->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	while ((q = d->done)) {
		d->done = q->next;
		if (!d->done)
			d->done_tail = &d->done;
		if (!q->cancelled)
			q->cb(q->arg, q->status == ARES_SUCCESS ? 0 : -1, q->addrs, q->n);
		free(q);
	}
	reap_socks(d);
}

int srt__dns_timeout(struct srt__dns *d, int max_ms)
{
	struct timeval maxtv = { max_ms / 1000, (max_ms % 1000) * 1000 }, tv, *t;

	if (d->done)
		return 0;
	if (!d->have_channel)
		return max_ms;
	t = ares_timeout(d->ch, &maxtv, &tv);
	if (!t)
		return max_ms;
	return (int)(t->tv_sec * 1000 + (t->tv_usec + 999) / 1000);
}

unsigned long srt__dns_count(const struct srt__dns *d)
{
	return d->count;
}
