/* The in-sandbox bridge: TCP listeners on 127.0.0.1 and [::1] inside the
 * sandbox's empty network namespace, relayed to the srt proxy's Unix socket.
 *
 * One relay process with one epoll loop serves every connection (no
 * process or thread per connection) and moves bytes with splice(2) through
 * pipes borrowed only while data is in flight (proxies/pump.h). It dies
 * with its parent (PR_SET_PDEATHSIG) and is not dumpable, so the command
 * can neither ptrace it nor read its memory. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#include <sys/un.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/bridge.h"
#include "proxies/pump.h"

#define MAX_LISTEN 4

struct relay_conn {
	int tcp, ux;
	struct srt_pump up, down; /* tcp -> unix, unix -> tcp */
	bool up_done, down_done, dead;
	struct relay_conn *next_dead;
};

/* Closed connections are freed after the batch of events: each has two
 * sockets, so a batch may still hold an event naming it. */
static struct relay_conn *dead_list;

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

static void close_conn(int ep, struct relay_conn *c, struct srt_pipe_pool *pool)
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

static void accept_all(int ep, int lfd, const char *path)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
		struct relay_conn *c;
		int one = 1;
		int tcp = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int ux;

		if (tcp < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ux = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		/* a full proxy backlog (EAGAIN) drops this client, never blocks others */
		if (ux < 0 || connect(ux, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			if (ux >= 0)
				close(ux);
			close(tcp);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(ux);
			close(tcp);
			continue;
		}
		c->tcp = tcp;
		c->ux = ux;
		srt__pump_init(&c->up);
		srt__pump_init(&c->down);
		ev.data.ptr = c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tcp, &ev) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ux, &ev) < 0) {
			close_conn(ep, c, NULL);
			continue;
		}
	}
}

/* Run both directions until they block; half-close passes through. */
static void relay(int ep, struct relay_conn *c, struct srt_pipe_pool *pool)
{
	int rc;

	if (c->dead)
		return;
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
relay_main(pid_t parent, const char *path, const int *lfds, int nl)
{
	static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct srt_pipe_pool pool = { .n = 0 };
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
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	close_other_fds(lfds, nl);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		_exit(1);
	for (int i = 0; i < nl; i++) {
		/* listeners are tagged 1..nl; connections by their pointer */
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)i + 1 };
		epoll_ctl(ep, EPOLL_CTL_ADD, lfds[i], &ev);
	}
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u64 <= (uint64_t)nl) {
				accept_all(ep, lfds[evs[i].data.u64 - 1], sock_path);
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

int srt_bridge_start(const struct srt_bridge_spec *spec, pid_t *pid)
{
	int lfds[MAX_LISTEN], nl = 0, ports[2], np = 0, rc = -1;
	pid_t parent = getpid(), child;

	if (!spec || !spec->socket_path || spec->http_port <= 0 || spec->socks_port <= 0) {
		say("missing socket path or ports", 0);
		return -1;
	}
	if (strlen(spec->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		say("proxy socket path too long", 0);
		return -1;
	}
	if (loopback_up() < 0)
		return -1;
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
		relay_main(parent, spec->socket_path, lfds, nl);
	*pid = child;
	rc = 0;
out:
	/* the listeners live only in the relay */
	for (int i = 0; i < nl; i++)
		close(lfds[i]);
	return rc;
}
