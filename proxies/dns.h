/* Asynchronous name resolution with c-ares inside the proxy's event loop.
 * A lookup is started only after the policy allowed the name, so a denied
 * name never produces a DNS query (a query alone can leak data out). */
#ifndef SRT_PROXY_DNS_H
#define SRT_PROXY_DNS_H

#include <stddef.h>
#include <stdint.h>
#include <srt/error.h>
#include "proxies/evloop.h"
#include "proxies/guard.h"

/* The event data of c-ares sockets starts with this tag (the proxy's own
 * registrations start with a different one). */
#define SRT_EP_DNS 0x444e53

struct srt__dns;
struct srt__dns_query;

/* status 0: addrs/n hold every A and AAAA answer (n may be 0);
 * otherwise the lookup failed. */
typedef void (*srt__dns_cb)(void *arg, int status, const struct srt__ip *addrs,
			   size_t n);

/* The resolver itself is made at the first lookup (see dns.c). */
int srt__dns_new(struct srt__dns **out, struct srt__evloop *ev, struct srt_diag *diag);
void srt__dns_free(struct srt__dns *d);

/* Start a lookup of A and AAAA. The callback runs later from
 * srt__dns_event() or srt__dns_tick(), never from inside this call, unless
 * the result is immediate (/etc/hosts): then also later, from the tick. */
struct srt__dns_query *srt__dns_lookup(struct srt__dns *d, const char *name,
				      srt__dns_cb cb, void *arg);
/* The callback of q will not be called. */
void srt__dns_cancel(struct srt__dns_query *q);

void srt__dns_event(struct srt__dns *d, void *ep, uint32_t events);
/* Process timeouts and deliver finished lookups. */
void srt__dns_tick(struct srt__dns *d);
/* Milliseconds until c-ares needs a tick, at most max_ms. */
int srt__dns_timeout(struct srt__dns *d, int max_ms);
/* Lookups started so far (tests: a denied name must not start one). */
unsigned long srt__dns_count(const struct srt__dns *d);

#endif
