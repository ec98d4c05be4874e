/* The in-sandbox bridge: TCP listeners on 127.0.0.1 and [::1] inside the
 * sandbox's empty network namespace, handed to the srt proxy.
 *
 * Each accepted TCP socket is passed to the proxy over one control
 * connection on its Unix socket (SCM_RIGHTS, proxies/wire.h), so the proxy
 * serves it directly and no byte crosses this process. When passing is not
 * possible (no control connection, its buffer full, the proxy gone) the
 * connection is relayed as before: one epoll loop for every connection,
 * bytes moved with splice(2) through pipes borrowed only while data is in
 * flight (proxies/pump.h). The process dies with its parent
 * (PR_SET_PDEATHSIG) and is not dumpable, so the command can neither
 * ptrace it nor read its memory.
 *
 * With interception (dnsans.h) it also answers DNS on 127.0.0.53 and
 * accepts the TCP connections the namespace's rules redirect to it: each
 * one's original destination (SO_ORIGINAL_DST; a synthetic address maps
 * back to its name) becomes a CONNECT to the proxy, so the proxy applies
 * the same decisions as to a client that asked for it; once the proxy
 * answers 200 the bytes are relayed as above (when the control connection
 * is up, the socket is handed to the proxy with that CONNECT instead, and
 * the proxy answers nothing to the client). A connection to port 80 asks
 * the proxy to serve it as plain HTTP (SRT_SERVE_HTTP_HEADER), so each
 * request is judged and filtered. A refusal resets the client, except on
 * port 80, where the client gets the proxy's HTTP answer with its
 * reason. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/netfilter_ipv4.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/bridge.h"
#include "proxies/wire.h"
#include "proxies/pump.h"

#define MAX_LISTEN 4

struct relay_conn {
	int tcp, ux;
	struct srt__pump up, down; /* tcp -> unix, unix -> tcp */
	bool up_done, down_done, dead;
	struct relay_conn *next_dead;
	/* an intercepted connection before the proxy's answer: 1 sending
	 * the CONNECT (hbuf[hoff..hlen]), 2 reading the answer's head */
	int hs;
	int dport;
	size_t hlen, hoff;
	char hbuf[1024];
};

/* epoll tags of the interception sockets (listeners are 1..MAX_LISTEN) */
#define TAG_ICEPT 101
#define TAG_DNS_UDP 102
#define TAG_DNS_TCP 103
#define TAG_DNS_UDP_LO 104
#define TAG_DNS_TCP_LO 105
#define TAG_DROP_LOG 106

/* the Proxy-Authorization value of intercepted connections, or "" */
static char icept_auth[256];

/* Closed connections are freed after the batch of events: each has two
 * sockets, so a batch may still hold an event naming it. */
static struct relay_conn *dead_list;

/* The control connection to the proxy (-1: none), and when the proxy last
 * failed to answer its hello: then retried at most once a second (a
 * missing socket is retried at every accept: that costs one connect). */
static int ctl = -1;
static int64_t ctl_failed_at = -1;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(const char *step, int err)
{
	if (err)
		fprintf(stderr, "srt-linux-init: bridge: %s: %s\n", step, strerror(err));
	else
		fprintf(stderr, "srt-linux-init: bridge: %s\n", step);
}

/* bwrap --unshare-net brings lo up itself; without it 127.0.0.1 does not
 * answer, so make sure (and fail loudly if we cannot). */
static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0) {
		say("socket for the loopback interface", errno);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		say("read the flags of 'lo'", errno);
		goto out;
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
			say("bring the loopback interface 'lo' up", errno);
			goto out;
		}
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

/* 0: listening fd in *out; 1: address not available (IPv6 off); -1: error */
static int listen_on(int family, int port, int *out)
{
	int fd, one = 1;
	struct sockaddr_storage ss;
	socklen_t sl;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	}
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (family == AF_INET6 && errno == EAFNOSUPPORT)
			return 1;
		say("socket", errno);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		int e = errno;
		close(fd);
		if (family == AF_INET6 && (e == EADDRNOTAVAIL || e == EAFNOSUPPORT))
			return 1;
		fprintf(stderr, "srt-linux-init: bridge: bind %s:%d: %s\n",
			family == AF_INET ? "127.0.0.1" : "[::1]", port, strerror(e));
		return -1;
	}
	if (listen(fd, 4096) < 0) {
		say("listen", errno);
		close(fd);
		return -1;
	}
	*out = fd;
	return 0;
}

static void close_conn(int ep, struct relay_conn *c, struct srt__pipe_pool *pool)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->tcp, NULL);
	epoll_ctl(ep, EPOLL_CTL_DEL, c->ux, NULL);
	close(c->tcp);
	close(c->ux);
	srt__pump_release(&c->up, pool);
	srt__pump_release(&c->down, pool);
	c->dead = true;
	c->next_dead = dead_list;
	dead_list = c;
}

static int unix_connect(const struct sockaddr_un *sa, bool nonblock)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the control connection: hello, and the proxy's answer within a
 * second (a proxy that does not know the hand-over closes instead). */
static void ctl_open(const struct sockaddr_un *sa)
{
	char hello = SRT_PASS_HELLO, ack = 1;
	struct pollfd pf;
	int64_t t = mono_ms();
	int fd;

	if (ctl >= 0 || (ctl_failed_at >= 0 && t - ctl_failed_at < 1000))
		return;
	fd = unix_connect(sa, false);
	if (fd < 0)
		return;
	pf.fd = fd;
	pf.events = POLLIN;
	if (send(fd, &hello, 1, MSG_NOSIGNAL) != 1 || poll(&pf, 1, 1000) != 1 ||
	    recv(fd, &ack, 1, MSG_DONTWAIT) != 1 || ack != SRT_PASS_HELLO ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		close(fd);
		goto fail;
	}
	ctl = fd;
	ctl_failed_at = -1;
	return;
fail:
	ctl_failed_at = t;
}

/* Hand `n` accepted sockets to the proxy in one message. On success they
 * are the proxy's (closed here); otherwise the caller relays them. */
static bool pass_fds(const int *fds, int n)
{
	ssize_t r;

	if (ctl < 0 || n <= 0 || n > SRT_PASS_MAX_FDS)
		return false;
	r = srt__pass_send(ctl, fds, n, MSG_DONTWAIT);
	if (r == 1) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return true;
	}
	if (r < 0 && errno != EAGAIN && errno != ENOBUFS && errno != ETOOMANYREFS) {
		/* the proxy closed it: reconnect on a later accept */
		close(ctl);
		ctl = -1;
	}
	return false;
}

/* The fallback: relay one accepted socket through a Unix connection of
 * its own. */
static void relay_add(int ep, int tcp, const struct sockaddr_un *sa)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
	struct relay_conn *c;
	int ux = unix_connect(sa, true);

	/* a full proxy backlog (EAGAIN) drops this client, never blocks others */
	if (ux < 0) {
		close(tcp);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(ux);
		close(tcp);
		return;
	}
	c->tcp = tcp;
	c->ux = ux;
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tcp, &ev) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, ux, &ev) < 0)
		close_conn(ep, c, NULL);
}

static void accept_all(int ep, int lfd, const char *path)
{
	struct sockaddr_un sa;
	bool more = true;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	while (more) {
		int fds[SRT_PASS_MAX_FDS], n = 0;

		while (n < SRT_PASS_MAX_FDS) {
			int one = 1;
			int tcp = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (tcp < 0) {
				if (errno == EINTR || errno == ECONNABORTED)
					continue;
				more = false;
				break;
			}
			setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			fds[n++] = tcp;
		}
		if (n == 0)
			break;
		ctl_open(&sa);
		if (pass_fds(fds, n))
			continue;
		for (int i = 0; i < n; i++)
			relay_add(ep, fds[i], &sa);
	}
}

static void b64(const unsigned char *in, size_t n, char *out, size_t cap)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < cap; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
}

static void icept_auth_init(const char *token)
{
	char cred[160], enc[224];

	icept_auth[0] = '\0';
	if (!token || !*token || strlen(token) > 128)
		return;
	snprintf(cred, sizeof(cred), "srt:%s", token);
	b64((const unsigned char *)cred, strlen(cred), enc, sizeof(enc));
	snprintf(icept_auth, sizeof(icept_auth), "Proxy-Authorization: Basic %s\r\n", enc);
	explicit_bzero(cred, sizeof(cred));
}

/* Close at once with a reset: the client learns the refusal now instead
 * of waiting on a connection nothing will answer. */
static void reset_close(int ep, struct relay_conn *c, struct srt__pipe_pool *pool)
{
	struct linger l = { 1, 0 };

	setsockopt(c->tcp, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close_conn(ep, c, pool);
}

static void relay(int ep, struct relay_conn *c, struct srt__pipe_pool *pool);

/* Send the CONNECT, then read the answer's head (exactly: what follows
 * it is the tunnel's first bytes). */
static void icept_step(int ep, struct relay_conn *c, struct srt__pipe_pool *pool)
{
	char *end;
	ssize_t n;

	while (c->hs == 1 && c->hoff < c->hlen) {
		n = send(c->ux, c->hbuf + c->hoff, c->hlen - c->hoff, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			goto refuse;
		c->hoff += (size_t)n;
	}
	c->hs = 2;
	n = recv(c->ux, c->hbuf, sizeof(c->hbuf) - 1, MSG_DONTWAIT | MSG_PEEK);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		goto refuse;
	c->hbuf[n] = '\0';
	end = strstr(c->hbuf, "\r\n\r\n");
	if (!end) {
		if ((size_t)n >= sizeof(c->hbuf) - 1)
			goto refuse;
		return;
	}
	c->hlen = (size_t)(end + 4 - c->hbuf);
	if (recv(c->ux, c->hbuf, c->hlen, MSG_DONTWAIT) != (ssize_t)c->hlen)
		goto refuse;
	c->hbuf[c->hlen] = '\0';
	if (strncmp(c->hbuf, "HTTP/1.", 7) || strncmp(c->hbuf + 8, " 200", 4)) {
		/* port 80: the client speaks HTTP and is shown the reason */
		if (c->dport != 80 ||
		    send(c->tcp, c->hbuf, c->hlen, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)c->hlen)
			goto refuse;
	}
	c->hs = 0;
	relay(ep, c, pool);
	return;
refuse:
	reset_close(ep, c, pool);
}

/* Hand an intercepted socket to the proxy with its CONNECT head (wire.h):
 * no byte of it crosses this process. True when it went (and is closed
 * here); false to relay it. */
static bool icept_pass(int tcp, const char *head, size_t len, const struct sockaddr_un *sa)
{
	char msg[SRT_PASS_DATA_MAX];
	ssize_t r;

	if (len + 1 > sizeof(msg))
		return false;
	ctl_open(sa);
	if (ctl < 0)
		return false;
	msg[0] = SRT_PASS_ICEPT;
	memcpy(msg + 1, head, len);
	r = srt__pass_send_data(ctl, &tcp, 1, MSG_DONTWAIT, msg, len + 1);
	if (r == (ssize_t)len + 1) {
		close(tcp);
		return true;
	}
	if (r >= 0 || (errno != EAGAIN && errno != ENOBUFS && errno != ETOOMANYREFS)) {
		/* a short message or a closed proxy: reconnect later */
		close(ctl);
		ctl = -1;
	}
	return false;
}

/* An intercepted connection: its destination as the proxy should see it
 * (the name behind a synthetic address, else the address), as a CONNECT
 * on a Unix connection of its own. `pool` is the relay's: when the
 * proxy's answer is already there, the first icept_step goes on into the
 * relay, whose splice takes its pipe from it. */
static void icept_add(int ep, int tcp, const struct sockaddr_un *sa, struct srt__pipe_pool *pool)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
	struct sockaddr_in od;
	socklen_t ol = sizeof(od);
	struct relay_conn *c = NULL;
	char host[256];
	const char *name;
	int ux = -1, n;

	/* Not redirected: someone dialled the listener itself. With the
	 * rules' connection tracking in place the kernel still answers, with
	 * the listener's own address; the rules redirect nothing addressed
	 * to 127.0.0.0/8, so such an answer is never a redirect, and passed
	 * on it would become a CONNECT to the host's loopback port of the
	 * same number. */
	if (getsockopt(tcp, SOL_IP, SO_ORIGINAL_DST, &od, &ol) < 0 || od.sin_family != AF_INET ||
	    (ntohl(od.sin_addr.s_addr) >> 24) == 127)
		goto drop;
	name = srt__dnsans_name_of(od.sin_addr.s_addr);
	if (name)
		snprintf(host, sizeof(host), "%s", name);
	else if ((ntohl(od.sin_addr.s_addr) & SRT_SYNTH_MASK) == SRT_SYNTH_NET ||
		 !inet_ntop(AF_INET, &od.sin_addr, host, sizeof(host)))
		goto drop; /* a synthetic address no answer gave out */
	c = calloc(1, sizeof(*c));
	if (!c)
		goto drop;
	/* port 80 is served as plain HTTP, so the request filters and the
	 * rules on methods and paths see each request; elsewhere the proxy
	 * judges a TLS tunnel by its server name too, the rest is opaque */
	n = snprintf(c->hbuf, sizeof(c->hbuf), "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\n%s%s\r\n",
		     host, ntohs(od.sin_port), host, ntohs(od.sin_port), icept_auth,
		     ntohs(od.sin_port) == 80 ? SRT_SERVE_HTTP_HEADER : "");
	if (n < 0 || (size_t)n >= sizeof(c->hbuf))
		goto drop;
	if (icept_pass(tcp, c->hbuf, (size_t)n, sa)) {
		free(c);
		return;
	}
	ux = unix_connect(sa, true);
	if (ux < 0)
		goto drop;
	c->hlen = (size_t)n;
	c->hs = 1;
	c->dport = ntohs(od.sin_port);
	c->tcp = tcp;
	c->ux = ux;
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tcp, &ev) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ux, &ev) < 0) {
		close_conn(ep, c, NULL);
		return;
	}
	icept_step(ep, c, pool);
	return;
drop:
	free(c);
	if (ux >= 0)
		close(ux);
	{
		struct linger l = { 1, 0 };
		setsockopt(tcp, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	close(tcp);
}

static void icept_accept(int ep, int lfd, const char *path, struct srt__pipe_pool *pool)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	for (int budget = 0; budget < 256; budget++) {
		int one = 1, tcp = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (tcp < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		icept_add(ep, tcp, &sa, pool);
	}
}

/* Run both directions until they block; half-close passes through. */
static void relay(int ep, struct relay_conn *c, struct srt__pipe_pool *pool)
{
	int rc;

	if (c->dead)
		return;
	if (c->hs) {
		icept_step(ep, c, pool);
		return;
	}
	if (!c->up_done) {
		rc = srt__pump_run(&c->up, c->tcp, c->ux, pool, NULL);
		if (rc == SRT_PUMP_ERROR)
			goto fail;
		if (rc == SRT_PUMP_EOF) {
			shutdown(c->ux, SHUT_WR);
			c->up_done = true;
		}
	}
	if (!c->down_done) {
		rc = srt__pump_run(&c->down, c->ux, c->tcp, pool, NULL);
		if (rc == SRT_PUMP_ERROR)
			goto fail;
		if (rc == SRT_PUMP_EOF) {
			shutdown(c->tcp, SHUT_WR);
			c->down_done = true;
		}
	}
	if (c->up_done && c->down_done)
		close_conn(ep, c, pool);
	return;
fail:
	close_conn(ep, c, pool);
}

/* Only the listeners and stderr stay open in the relay. */
static void close_other_fds(const int *keep, int nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd, nul;

	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		close(nul);
	}
	if (!d)
		return;
	dfd = dirfd(d);
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name), k;
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd <= 2 || fd == dfd)
			continue;
		for (k = 0; k < nkeep && keep[k] != fd; k++)
			;
		if (k == nkeep)
			close(fd);
	}
	closedir(d);
}

static void __attribute__((noreturn))
relay_main(pid_t parent, int sockfd, const int *lfds, int nl, const struct srt__icept_fds *ic,
	   const char *token)
{
	static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct srt__pipe_pool pool = { .n = 0 };
	struct epoll_event evs[256];
	sigset_t none;
	struct rlimit rl;
	int ep;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1); /* the parent is already gone */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGPIPE && s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* the pinned inode, whatever its path names by now */
	snprintf(sock_path, sizeof(sock_path), "/proc/self/fd/%d", sockfd);
	{
		int keep[MAX_LISTEN + 7];

		memcpy(keep, lfds, (size_t)nl * sizeof(*lfds));
		keep[nl] = sockfd;
		keep[nl + 1] = ic ? ic->tcp : -1;
		keep[nl + 2] = ic ? ic->dns_udp : -1;
		keep[nl + 3] = ic ? ic->dns_tcp : -1;
		keep[nl + 4] = ic ? ic->dns_udp_lo : -1;
		keep[nl + 5] = ic ? ic->dns_tcp_lo : -1;
		keep[nl + 6] = ic ? ic->log : -1;
		close_other_fds(keep, nl + 7);
	}
	if (ic) {
		srt__dnsans_init(sock_path, token);
		icept_auth_init(token);
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		_exit(1);
	for (int i = 0; i < nl; i++) {
		/* listeners are tagged 1..nl; connections by their pointer */
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)i + 1 };
		epoll_ctl(ep, EPOLL_CTL_ADD, lfds[i], &ev);
	}
	if (ic) {
		struct epoll_event e1 = { .events = EPOLLIN, .data.u64 = TAG_ICEPT },
				   e2 = { .events = EPOLLIN, .data.u64 = TAG_DNS_UDP },
				   e3 = { .events = EPOLLIN, .data.u64 = TAG_DNS_TCP },
				   e4 = { .events = EPOLLIN, .data.u64 = TAG_DNS_UDP_LO },
				   e5 = { .events = EPOLLIN, .data.u64 = TAG_DNS_TCP_LO },
				   e6 = { .events = EPOLLIN, .data.u64 = TAG_DROP_LOG };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, ic->tcp, &e1) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ic->dns_udp, &e2) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ic->dns_tcp, &e3) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ic->dns_udp_lo, &e4) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ic->dns_tcp_lo, &e5) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ic->log, &e6) < 0)
			_exit(1);
	}
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u64 <= (uint64_t)nl) {
				accept_all(ep, lfds[evs[i].data.u64 - 1], sock_path);
				continue;
			}
			if (ic && evs[i].data.u64 == TAG_ICEPT) {
				icept_accept(ep, ic->tcp, sock_path, &pool);
				continue;
			}
			if (ic && (evs[i].data.u64 == TAG_DNS_UDP || evs[i].data.u64 == TAG_DNS_UDP_LO)) {
				srt__dnsans_udp(evs[i].data.u64 == TAG_DNS_UDP ? ic->dns_udp : ic->dns_udp_lo);
				continue;
			}
			if (ic && evs[i].data.u64 == TAG_DROP_LOG) {
				srt__dnsans_dropped(ic->log);
				continue;
			}
			if (ic && (evs[i].data.u64 == TAG_DNS_TCP || evs[i].data.u64 == TAG_DNS_TCP_LO)) {
				srt__dnsans_tcp(evs[i].data.u64 == TAG_DNS_TCP ? ic->dns_tcp : ic->dns_tcp_lo);
				continue;
			}
			relay(ep, evs[i].data.ptr, &pool);
		}
		while (dead_list) {
			struct relay_conn *c = dead_list;
			dead_list = c->next_dead;
			free(c);
		}
	}
}

/* An O_PATH descriptor of the socket srt bound, or -1 (said why). */
static int pin_socket(const struct srt__bridge_spec *spec)
{
	char via[64];
	struct stat st, vst;
	int fd = open(spec->socket_path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		say("open the proxy socket", errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    (unsigned long long)st.st_dev != spec->socket_dev ||
	    (unsigned long long)st.st_ino != spec->socket_ino) {
		fprintf(stderr, "srt-linux-init: bridge: %s is not the socket srt's proxy bound (replaced by a link or another file?)\n",
			spec->socket_path);
		close(fd);
		return -1;
	}
	/* connect() reaches it through /proc/self/fd: /proc must be there */
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	if (stat(via, &vst) != 0 || vst.st_ino != st.st_ino || vst.st_dev != st.st_dev) {
		say("the proxy socket cannot be reached through /proc/self/fd", errno);
		close(fd);
		return -1;
	}
	return fd;
}

int srt__bridge_start(const struct srt__bridge_spec *spec, pid_t *pid)
{
	int lfds[MAX_LISTEN], nl = 0, ports[2], np = 0, rc = -1, sockfd = -1;
	pid_t parent = getpid(), child;

	if (!spec || !spec->socket_path || spec->http_port <= 0 || spec->socks_port <= 0) {
		say("missing socket path or ports", 0);
		return -1;
	}
	if (strlen(spec->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		say("proxy socket path too long", 0);
		return -1;
	}
	sockfd = pin_socket(spec);
	if (sockfd < 0)
		return -1;
	if (loopback_up() < 0)
		goto out;
	ports[np++] = spec->http_port;
	if (spec->socks_port != spec->http_port)
		ports[np++] = spec->socks_port;
	for (int i = 0; i < np; i++) {
		int r = listen_on(AF_INET, ports[i], &lfds[nl]);
		if (r < 0)
			goto out;
		nl++;
		r = listen_on(AF_INET6, ports[i], &lfds[nl]);
		if (r < 0)
			goto out;
		if (r == 0)
			nl++;
	}
	child = fork();
	if (child < 0) {
		say("fork the relay", errno);
		goto out;
	}
	if (child == 0)
		relay_main(parent, sockfd, lfds, nl, spec->icept, spec->token);
	*pid = child;
	rc = 0;
out:
	/* the listeners and the pinned socket live only in the relay */
	for (int i = 0; i < nl; i++)
		close(lfds[i]);
	close(sockfd);
	if (spec->icept)
		srt__icept_close(spec->icept);
	return rc;
}
