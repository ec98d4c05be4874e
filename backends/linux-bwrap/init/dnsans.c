/* The in-sandbox DNS answerer and the interception sockets: see dnsans.h. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/dnsans.h"
#include "backends/linux-bwrap/init/dnsmsg.h"
#include "backends/linux-bwrap/init/netrules.h"
#include "proxies/wire.h"

#define SYNTH_MAX 131070 /* 198.18.0.1 .. 198.19.255.254 */
#define HASH_SIZE 262144 /* power of two, twice SYNTH_MAX */
#define ANSWER_TTL 60
#define ASK_TIMEOUT_MS 2000

static char **names;       /* names[i] has 198.18.0.0 + 1 + i */
static uint32_t nnames;
static int32_t *slots;     /* open addressing: index + 1, 0 empty */
static struct sockaddr_un proxy_sa;
static const char *proxy_token;
static int nq = -1;        /* the name-question connection */
static unsigned long nq_id;

static int bind_sock(int type, const char *addr, int port, int *out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (fd < 0)
		return -1;
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*out = fd;
	return 0;
}

void srt__icept_close(struct srt__icept_fds *f)
{
	if (f->tcp >= 0)
		close(f->tcp);
	if (f->dns_udp >= 0)
		close(f->dns_udp);
	if (f->dns_tcp >= 0)
		close(f->dns_tcp);
	if (f->dns_udp_lo >= 0)
		close(f->dns_udp_lo);
	if (f->dns_tcp_lo >= 0)
		close(f->dns_tcp_lo);
	if (f->log >= 0)
		close(f->log);
	f->tcp = f->dns_udp = f->dns_tcp = f->dns_udp_lo = f->dns_tcp_lo = f->log = -1;
}

int srt__icept_open(struct srt__icept_fds *f, char *why, size_t cap)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	f->tcp = f->dns_udp = f->dns_tcp = f->dns_udp_lo = f->dns_tcp_lo = f->log = -1;
	if (bind_sock(SOCK_STREAM, "127.0.0.1", 0, &f->tcp) < 0 ||
	    getsockname(f->tcp, (struct sockaddr *)&sa, &sl) < 0) {
		snprintf(why, cap, "listen for intercepted connections on 127.0.0.1: %s",
			 strerror(errno));
		goto fail;
	}
	if (bind_sock(SOCK_DGRAM, SRT_DNS_ADDR, 53, &f->dns_udp) < 0 ||
	    bind_sock(SOCK_STREAM, SRT_DNS_ADDR, 53, &f->dns_tcp) < 0 ||
	    bind_sock(SOCK_DGRAM, "127.0.0.1", 53, &f->dns_udp_lo) < 0 ||
	    bind_sock(SOCK_STREAM, "127.0.0.1", 53, &f->dns_tcp_lo) < 0) {
		snprintf(why, cap, "bind the DNS answerer to %s:53 and 127.0.0.1:53: %s",
			 SRT_DNS_ADDR, strerror(errno));
		goto fail;
	}
	f->log = srt__netrules_log_open(why, cap);
	if (f->log < 0 || srt__netrules_install(ntohs(sa.sin_port), why, cap) < 0)
		goto fail;
	return 0;
fail:
	srt__icept_close(f);
	return -1;
}

void srt__dnsans_init(const char *sock_path, const char *token)
{
	memset(&proxy_sa, 0, sizeof(proxy_sa));
	proxy_sa.sun_family = AF_UNIX;
	snprintf(proxy_sa.sun_path, sizeof(proxy_sa.sun_path), "%s", sock_path);
	proxy_token = token;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The synthetic address (host order) of name, given one if new; 0 when
 * the range is used up or memory is short. */
static uint32_t synth_addr(const char *name)
{
	uint32_t h;

	if (!slots) {
		slots = calloc(HASH_SIZE, sizeof(*slots));
		names = calloc(SYNTH_MAX, sizeof(*names));
		if (!slots || !names) {
			free(slots);
			free(names);
			slots = NULL;
			names = NULL;
			return 0;
		}
	}
	for (h = hash(name) & (HASH_SIZE - 1);; h = (h + 1) & (HASH_SIZE - 1)) {
		int32_t v = slots[h];

		if (!v)
			break;
		if (!strcmp(names[v - 1], name))
			return SRT_SYNTH_NET + 1 + (uint32_t)(v - 1);
	}
	if (nnames >= SYNTH_MAX || !(names[nnames] = strdup(name)))
		return 0;
	slots[h] = (int32_t)++nnames;
	return SRT_SYNTH_NET + nnames;
}

const char *srt__dnsans_name_of(uint32_t addr)
{
	uint32_t a = ntohl(addr);

	if ((a & SRT_SYNTH_MASK) != SRT_SYNTH_NET || a <= SRT_SYNTH_NET)
		return NULL;
	a -= SRT_SYNTH_NET + 1;
	return a < nnames ? names[a] : NULL;
}

static void nq_drop(void)
{
	if (nq >= 0)
		close(nq);
	nq = -1;
}

static bool nq_send(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = send(nq, buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

static bool nq_open(void)
{
	char hello = SRT_NAME_HELLO;

	if (nq >= 0)
		return true;
	nq = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (nq < 0)
		return false;
	if (connect(nq, (struct sockaddr *)&proxy_sa, sizeof(proxy_sa)) < 0 ||
	    !nq_send(&hello, 1) ||
	    (proxy_token && *proxy_token && !nq_send(proxy_token, strlen(proxy_token))) ||
	    !nq_send("\n", 1)) {
		nq_drop();
		return false;
	}
	return true;
}

/* The proxy's answer about name: 1 allowed, 0 refused, -1 no answer. */
static int ask(const char *name)
{
	char line[SRT_NAME_LINE_MAX + 2], want[32];
	size_t got = 0, wl;
	int n;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (!nq_open())
			continue;
		n = snprintf(line, sizeof(line), "%lu %s\n", ++nq_id, name);
		if (n < 0 || (size_t)n >= sizeof(line) || !nq_send(line, (size_t)n)) {
			nq_drop();
			continue;
		}
		wl = (size_t)snprintf(want, sizeof(want), "%lu ", nq_id);
		got = 0;
		/* answers come in order: read up to this one's newline */
		while (got < sizeof(line) - 1) {
			struct pollfd pf = { .fd = nq, .events = POLLIN };
			ssize_t r;
			char *nl;

			if (poll(&pf, 1, ASK_TIMEOUT_MS) != 1)
				break;
			r = recv(nq, line + got, sizeof(line) - 1 - got, 0);
			if (r <= 0)
				break;
			got += (size_t)r;
			line[got] = '\0';
			nl = strchr(line, '\n');
			if (!nl)
				continue;
			if (nl - line == (ptrdiff_t)wl + 1 && !strncmp(line, want, wl) &&
			    (line[wl] == '0' || line[wl] == '1') && nl + 1 == line + got)
				return line[wl] == '1';
			break;
		}
		nq_drop();
		return -1;
	}
	return -1;
}

/* The answer to one query of n bytes in msg; its length in out, 0 for
 * none (a response, or too short to answer). */
static size_t answer(const uint8_t *msg, size_t n, uint8_t *out, size_t cap)
{
	struct srt__dns_q q;
	int rc = srt__dns_parse(msg, n, &q), allowed;
	uint32_t a;

	if (rc == -1)
		return 0;
	if (rc == -2) {
		q.qend = 0;
		return srt__dns_answer(msg, &q, SRT_DNS_FORMERR, NULL, 0, out, cap);
	}
	if (q.qclass != SRT_DNS_CLASS_IN || !q.name[0])
		return srt__dns_answer(msg, &q, SRT_DNS_REFUSED, NULL, 0, out, cap);
	allowed = ask(q.name);
	if (allowed < 0)
		return srt__dns_answer(msg, &q, SRT_DNS_SERVFAIL, NULL, 0, out, cap);
	if (!allowed)
		return srt__dns_answer(msg, &q, SRT_DNS_NXDOMAIN, NULL, 0, out, cap);
	if (q.qtype != SRT_DNS_TYPE_A)
		return srt__dns_answer(msg, &q, SRT_DNS_NOERROR, NULL, 0, out, cap);
	a = synth_addr(q.name);
	if (!a)
		return srt__dns_answer(msg, &q, SRT_DNS_SERVFAIL, NULL, 0, out, cap);
	a = htonl(a);
	return srt__dns_answer(msg, &q, SRT_DNS_NOERROR, &a, ANSWER_TTL, out, cap);
}

void srt__dnsans_udp(int fd)
{
	for (int budget = 0; budget < 256; budget++) {
		uint8_t in[SRT_DNS_MAX_MSG], out[SRT_DNS_MAX_MSG];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, in, sizeof(in), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		size_t len;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		len = answer(in, (size_t)n, out, sizeof(out));
		if (len)
			sendto(fd, out, len, MSG_DONTWAIT, (struct sockaddr *)&from, fl);
	}
}

void srt__dnsans_tcp(int lfd)
{
	for (int budget = 0; budget < 64; budget++) {
		uint8_t in[2 + SRT_DNS_MAX_MSG], out[2 + SRT_DNS_MAX_MSG];
		size_t got = 0, want = 2, len;
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		while (got < want) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			ssize_t r;

			if (poll(&pf, 1, 500) != 1)
				break;
			r = recv(fd, in + got, want - got, 0);
			if (r <= 0)
				break;
			got += (size_t)r;
			if (got == 2 && want == 2) {
				want = 2 + (size_t)(in[0] << 8 | in[1]);
				if (want > sizeof(in) || want == 2)
					break;
			}
		}
		if (got == want && want > 2) {
			len = answer(in + 2, want - 2, out + 2, sizeof(out) - 2);
			if (len) {
				out[0] = (uint8_t)(len >> 8);
				out[1] = (uint8_t)len;
				send(fd, out, len + 2, MSG_NOSIGNAL | MSG_DONTWAIT);
			}
		}
		close(fd);
	}
}

/* Destinations told recently: a command that sends a stream of datagrams
 * to one place is one violation, not one per packet. */
#define TOLD_MAX 32
#define TOLD_MS 10000

static struct {
	uint32_t daddr;
	uint16_t dport;
	uint8_t proto;
	int64_t at;
} told[TOLD_MAX];

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool told_recently(const struct srt__dropped *d)
{
	int64_t t = now_ms();
	int oldest = 0;

	for (int i = 0; i < TOLD_MAX; i++) {
		if (told[i].at && told[i].daddr == d->daddr && told[i].dport == d->dport &&
		    told[i].proto == d->proto && t - told[i].at < TOLD_MS)
			return true;
		if (told[i].at < told[oldest].at)
			oldest = i;
	}
	told[oldest].daddr = d->daddr;
	told[oldest].dport = d->dport;
	told[oldest].proto = d->proto;
	told[oldest].at = t ? t : 1;
	return false;
}

static void tell_dropped(const struct srt__dropped *d)
{
	char host[256], line[SRT_NAME_LINE_MAX + 2];
	const char *name = srt__dnsans_name_of(d->daddr);
	int n;

	if (told_recently(d))
		return;
	if (name)
		snprintf(host, sizeof(host), "%s", name);
	else if (!inet_ntop(AF_INET, &d->daddr, host, sizeof(host)))
		return;
	if (d->dport)
		n = snprintf(line, sizeof(line), "%s %u %s:%u\n", SRT_DROP_WORD, d->proto, host,
			     d->dport);
	else
		n = snprintf(line, sizeof(line), "%s %u %s\n", SRT_DROP_WORD, d->proto, host);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	/* no answer comes: the question stream's answers stay in step */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (nq_open() && nq_send(line, (size_t)n))
			return;
		nq_drop();
	}
}

void srt__dnsans_dropped(int log_fd)
{
	for (int budget = 0; budget < 64; budget++) {
		struct srt__dropped d[16];
		int n = srt__netrules_log_read(log_fd, d, 16);

		if (n <= 0)
			return;
		for (int i = 0; i < n; i++)
			tell_dropped(&d[i]);
	}
}
