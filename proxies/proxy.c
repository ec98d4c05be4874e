/* The filtering proxy: one thread, one event loop (proxies/evloop.h), one Unix socket serving
 * HTTP (absolute-form and CONNECT) and SOCKS5 chosen by the first byte.
 * This file holds the loop, accepting, the bridge's hand-over and the
 * public functions; proxies/conn.h says where the rest lives. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/domain.h"
#include "common/platform.h"
#include "proxies/auth.h"
#include "proxies/dns.h"
#include "proxies/guard.h"
#include "proxies/http.h"
#include "proxies/conn.h"
#include "proxies/filter-chain.h"
#include "proxies/ask.h"
#include "proxies/proxy.h"
#include "proxies/pump.h"
#include "proxies/route.h"
#include "proxies/rules.h"
#include "proxies/sni.h"
#include "proxies/socks.h"
#include "proxies/wire.h"

/* A new client socket (accepted here or passed by the bridge) becomes a
 * connection in SRT_PH_SNIFF; the fd is closed on failure. */
/* A client on fd. `head` (len bytes, or NULL) is an intercepted
 * connection's CONNECT head (proxies/wire.h), served as if it had sent it. */
static void new_client(struct srt__proxy *p, int fd, bool unix_client, const char *head,
		       size_t len)
{
	struct srt__conn *c = calloc(1, sizeof(*c));

	if (!c || (head && srt__buf_add(&c->in, head, len) < 0)) {
		free(c);
		srt__os_sock_close(fd);
		return;
	}
	c->icept_pending = head != NULL;
	c->cep.tag = SRT_EP_CLIENT;
	c->uep.tag = SRT_EP_UP;
	c->p = p;
	srt__layer_socket(&c->cl, fd);
	srt__layer_socket(&c->ul, -1);
	c->cio = &c->cl;
	c->uio = &c->ul;
	c->cs.rd = true;
	c->unix_client = unix_client;
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
	if (srt__evloop_add(p->ev, fd, SRT__CONN_EVENTS, &c->cep) < 0) {
		srt__os_sock_close(fd);
		free(c);
		return;
	}
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->nclients++;
	c->phase = SRT_PH_SNIFF;
	srt__timed_set(c, SRT_FIRST_BYTE_MS);
	srt__conn_run(c);
}

/* Said once per run on stderr: the command is holding as many
 * connections as this process can serve. */
static void warn_once(bool *done, const char *what)
{
	if (*done)
		return;
	*done = true;
	fprintf(stderr, "srt: proxy: %s\n", what);
}

static void on_accept(struct srt__proxy *p)
{
	for (;;) {
		int fd = srt__os_accept(p->lfd);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* the listener is level-triggered: stop watching
				 * it until a connection closes (or the sweep
				 * retries), instead of spinning on the error */
				if (srt__evloop_mod(p->ev, p->lfd, 0, &p->lep) == 0)
					p->accept_paused = true;
				warn_once(&p->warned_nofile,
					  "out of file descriptors; new connections wait until others close");
			}
			return; /* EAGAIN: the backlog is empty */
		}
		if (p->nclients >= p->max_clients) {
			/* refused at once, so the client is not left hanging */
			srt__os_sock_close(fd);
			warn_once(&p->warned_limit,
				  "the sandbox holds as many connections as srt can serve; "
				  "new ones are refused until others close");
			continue;
		}
		/* a TCP listener's clients are never the bridge: they
		 * cannot open a control connection (conn.c) */
		new_client(p, fd, p->path != NULL, NULL, 0);
	}
}

/* A descriptor from the control connection is untrusted: only a connected
 * TCP socket (what the bridge accepted) is served, as one more client that
 * must still authenticate; anything else is closed unused. */
static void adopt_passed(struct srt__proxy *p, int fd, const char *head, size_t len)
{
	if (!srt__os_is_socket(fd))
		goto refuse;
	if (!srt__os_is_tcp_stream(fd))
		goto refuse;
	if (p->nclients >= p->max_clients) {
		warn_once(&p->warned_limit,
			  "the sandbox holds as many connections as srt can serve; "
			  "new ones are refused until others close");
		goto refuse;
	}
	/* the sender may keep a copy of the open file: every read and write
	 * here also passes MSG_DONTWAIT, this only serves splice */
	if (srt__os_set_nonblock(fd) < 0)
		goto refuse;
	new_client(p, fd, false, head, len);
	return;
refuse:
	srt__os_sock_close(fd);
}

/* The control connection: each message is a byte (ignored) with at most
 * SRT_PASS_MAX_FDS descriptors, or an intercepted connection's CONNECT
 * head with its one descriptor (proxies/wire.h). Received descriptors are close-on-exec
 * from the start; a truncated set (more than the bridge ever sends) or a
 * message with anything but SCM_RIGHTS ends the connection, every
 * descriptor received with it closed. */
void srt__fd_recv(struct srt__conn *c)
{
	struct srt__proxy *p = c->p;

	if (c->cout.len && srt__io_flush(c->cio, &c->cout, &c->cout_off) < 0) {
		srt__conn_close(c);
		return;
	}
	for (;;) {
		union {
			char b[CMSG_SPACE(sizeof(int) * SRT_PASS_MAX_FDS)];
			struct cmsghdr align;
		} cbuf;
		char sink[SRT_PASS_DATA_MAX + 1];
		struct iovec iov = { sink, sizeof(sink) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b) };
		int fds[SRT_PASS_MAX_FDS], nfd = 0;
		bool bad = false;
		ssize_t n;

		if (!c->cs.rd && !c->cs.hup)
			return;
		n = srt__os_recvmsg(c->cl.fd, &m);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				c->cs.rd = false;
				srt__evloop_drained(c->cl.fd, SRT_EV_IN);
				return;
			}
			srt__conn_close(c);
			return;
		}
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			size_t k;
			if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
			    h->cmsg_len < CMSG_LEN(0)) {
				bad = true;
				continue;
			}
			k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
				if (nfd < SRT_PASS_MAX_FDS)
					fds[nfd++] = fd;
				else
					srt__os_sock_close(fd); /* cannot happen with this buffer */
			}
		}
		if (bad || (m.msg_flags & MSG_CTRUNC)) {
			for (int i = 0; i < nfd; i++)
				srt__os_sock_close(fds[i]);
			srt__conn_close(c);
			return;
		}
		if (n > 0 && sink[0] == SRT_PASS_ICEPT) {
			/* one descriptor and one whole CONNECT head */
			if (nfd == 1 && n > 5 && !(m.msg_flags & MSG_TRUNC) &&
			    memcmp(sink + n - 4, "\r\n\r\n", 4) == 0) {
				adopt_passed(p, fds[0], sink + 1, (size_t)n - 1);
			} else {
				for (int i = 0; i < nfd; i++)
					srt__os_sock_close(fds[i]);
			}
			nfd = 0;
		}
		for (int i = 0; i < nfd; i++)
			adopt_passed(p, fds[i], NULL, 0);
		if (n == 0) {
			srt__conn_close(c);
			return;
		}
		if (c->dead)
			return;
	}
}

static void sweep(struct srt__proxy *p)
{
	int64_t t = srt__now_ms();

	for (struct srt__conn *c = p->timed, *n; c; c = n) {
		n = c->tnext;
		if (c->deadline > t)
			continue;
		if (p->debug)
			fprintf(stderr, "srt-proxy: connection timed out (phase %d)\n", c->phase);
		if (c->phase == SRT_PH_RESOLVE || c->phase == SRT_PH_CONNECT || c->phase == SRT_PH_PROXY_HS) {
			srt__timed_clear(c);
			srt__bad_gateway(c);
			if (!c->dead)
				srt__conn_run(c);
		} else if (c->phase == SRT_PH_ASK) {
			srt__ask_expired(c);
		} else if (c->phase == SRT_PH_PEEK) {
			srt__tunnel_peek_expired(c);
			if (!c->dead)
				srt__conn_run(c);
		} else {
			srt__conn_close(c);
		}
	}
}

static void reap(struct srt__proxy *p)
{
	while (p->dead) {
		struct srt__conn *c = p->dead;
		p->dead = c->next;
		free(c);
	}
}

static void note_events(struct srt__side *sd, uint32_t ev)
{
	if (ev & (SRT_EV_IN | SRT_EV_ERR | SRT_EV_HUP | SRT_EV_RDHUP))
		sd->rd = true;
	if (ev & (SRT_EV_ERR | SRT_EV_HUP | SRT_EV_RDHUP))
		sd->hup = true;
}

/* A kept upstream between requests that speaks or closes is done. */
static void idle_upstream_check(struct srt__conn *c)
{
	char b;
	ssize_t n = srt__os_recv(c->ul.fd, &b, 1, MSG_PEEK);

	if (n >= 0 || errno != EAGAIN) {
		srt__close_upstream(c);
	} else {
		c->us.rd = false;
		srt__evloop_drained(c->ul.fd, SRT_EV_IN);
	}
}

static void *loop(void *arg)
{
	struct srt__proxy *p = arg;
	struct srt__event evs[256];
	int64_t next_sweep = srt__now_ms() + 250;
	sigset_t pipe_set;

	/* splice() into a socket the peer closed raises SIGPIPE at this
	 * thread; blocked, it stays pending instead of killing srt */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	srt__evloop_enter(p->ev);

	while (!atomic_load(&p->stop)) {
		int timeout = srt__dns_timeout(p->dns, 250);
		int n = srt__evloop_wait(p->ev, evs, 256, timeout);

		for (int i = 0; i < n; i++) {
			struct srt__ep *e = evs[i].ptr;
			struct srt__conn *c;

			switch (e->tag) {
			case SRT_EP_LISTEN:
				on_accept(p);
				break;
			case SRT_EP_WAKE: {
				char sink[SRT_PASS_DATA_MAX + 1];
				while (srt__os_recv(p->wakefd[0], sink, sizeof(sink), 0) > 0)
					;
				break;
			}
			case SRT_EP_FILTER:
				/* pending filter calls completed or timed out:
				 * their connections resume from here */
				srt__filter_chain_service(p->filters);
				break;
			case SRT_EP_ASK:
				/* answers from the application: their
				 * connections resume from here */
				srt__ask_service(p->ask);
				break;
			case SRT_EP_DNS:
				srt__dns_event(p->dns, e, evs[i].events);
				break;
			case SRT_EP_CLIENT:
				c = (struct srt__conn *)((char *)e - offsetof(struct srt__conn, cep));
				if (c->dead)
					break;
				note_events(&c->cs, evs[i].events);
				srt__conn_run(c);
				break;
			case SRT_EP_UP:
				c = (struct srt__conn *)((char *)e - offsetof(struct srt__conn, uep));
				if (c->dead)
					break;
				note_events(&c->us, evs[i].events);
				if (c->phase == SRT_PH_CONNECT)
					srt__check_connect(c);
				else if (c->phase == SRT_PH_HTTP_HEAD && c->ul.fd >= 0 && c->us.rd)
					idle_upstream_check(c);
				if (!c->dead)
					srt__conn_run(c);
				break;
			}
		}
		srt__dns_tick(p->dns);
		if (srt__now_ms() >= next_sweep) {
			sweep(p);
			/* descriptors freed elsewhere (pipes, DNS) count too */
			srt__resume_accept(p);
			next_sweep = srt__now_ms() + 250;
		}
		reap(p);
	}
	return NULL;
}

/* Tunnels hold two descriptors each; take what the hard limit allows. */
static size_t raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1u << 30 ? 1u << 30 :
									(size_t)rl.rlim_cur;
}

int srt__proxy_new(struct srt__proxy **out, const struct srt__proxy_config *cfg,
		   struct srt_diag *diag)
{
	struct srt__proxy *p = NULL;
	struct sockaddr_un sa;
	int listener = cfg && !cfg->socket_path ? cfg->tcp_listener : -1;
	int err;

	if (!cfg || !cfg->net || (!cfg->socket_path && cfg->tcp_listener < 0)) {
		err = srt_diag_set(diag, SRT_E_INVAL, "", "proxy: missing settings or socket path");
		goto out;
	}
	if (cfg->socket_path && strlen(cfg->socket_path) >= sizeof(sa.sun_path)) {
		err = srt_diag_set(diag, SRT_E_INVAL, cfg->socket_path,
				   "proxy socket path '%s' is too long", cfg->socket_path);
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}
	p->lfd = p->wakefd[0] = p->wakefd[1] = -1;
	p->lep.tag = SRT_EP_LISTEN;
	p->wep.tag = SRT_EP_WAKE;
	p->fep.tag = SRT_EP_FILTER;
	pthread_mutex_init(&p->lock, NULL);
	p->on_violation = cfg->on_violation;
	p->ctx = cfg->ctx;
	p->debug = cfg->debug;
	if (!cfg->socket_path) {
		p->lfd = cfg->tcp_listener;
		listener = -1; /* the proxy's now */
	}
	p->path = cfg->socket_path ? strdup(cfg->socket_path) : NULL;
	p->token = cfg->token && *cfg->token ? strdup(cfg->token) : NULL;
	if ((cfg->socket_path && !p->path) || (cfg->token && *cfg->token && !p->token)) {
		err = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}
	err = srt__net_rules_new(&p->rules, cfg->net, diag);
	if (err)
		goto out;
	{
		/* two descriptors per client (client and upstream), a
		 * reserve for pipes, DNS and srt itself: clients beyond it
		 * are refused (passed sockets arrive faster than accept's
		 * backlog could hold them back) */
		size_t nofile = raise_nofile();
		p->max_clients = cfg->max_passed ? cfg->max_passed :
				 nofile > 512 ? (nofile - 256) / 2 : nofile / 4;
	}
	/* the wake-up is a socket pair: poll on Windows watches sockets only */
	if (srt__evloop_new(&p->ev) < 0 || srt__os_socketpair(p->wakefd) < 0) {
		err = srt_diag_set(diag, SRT_E_IO, "", "cannot create the proxy's event loop: %s",
				   strerror(errno));
		goto out;
	}
	/* a loop that cannot see edges itself (poll) is never handed
	 * splice's pipes: every byte takes the copy path */
	p->copy_only = !srt__evloop_sees_edges(p->ev);
	err = srt__dns_new(&p->dns, p->ev, diag);
	if (err)
		goto out;
	if (p->path && !cfg->plan_only && !cfg->listen_later) {
		err = srt__proxy_listen(p, NULL, NULL, diag);
		if (err)
			goto out;
	}
	p->listen_pending = p->path && !cfg->plan_only && cfg->listen_later;
	if (!p->path && p->lfd >= 0 && srt__evloop_add(p->ev, p->lfd, SRT_EV_IN, &p->lep) < 0)
		goto io;
	if (srt__evloop_add(p->ev, p->wakefd[0], SRT_EV_IN, &p->wep) < 0)
		goto io;
	if (cfg->net->filters) {
		/* the chain's completions and timeouts wake the loop; from
		 * here on every connection and request meets the filters, and
		 * the core may run a sandbox that names them */
		if (srt__evloop_add(p->ev, srt__filter_chain_fd(cfg->net->filters), SRT_EV_IN,
				    &p->fep) < 0)
			goto io;
		p->filters = cfg->net->filters;
		srt__filter_chain_attach(p->filters);
	}
	if (cfg->ask) {
		p->aep.tag = SRT_EP_ASK;
		if (srt__evloop_add(p->ev, srt__ask_fd(cfg->ask), SRT_EV_IN, &p->aep) < 0)
			goto io;
		p->ask = cfg->ask;
	}
	if (srt__tls_setup(p, cfg) < 0)
		goto io;
	*out = p;
	p = NULL;
	err = SRT_OK;
	goto out;
io:
	err = srt_diag_set(diag, SRT_E_IO, "", "proxy event loop: %s", strerror(errno));
out:
	srt__proxy_free(p);
	if (listener >= 0)
		srt__os_sock_close(listener);
	return err;
}

int srt__proxy_listen(struct srt__proxy *p, const char *path, const char *bind_path,
		      struct srt_diag *diag)
{
	struct sockaddr_un sa;
	size_t len;

	if (!p || !p->path || p->lfd >= 0)
		return srt_diag_set(diag, SRT_E_STATE, "", "proxy: no socket to listen on, or listening already");
	if (path) {
		char *d = strdup(path);

		if (!d)
			return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		free(p->path);
		p->path = d;
	}
	if (!bind_path)
		bind_path = p->path;
	len = strlen(bind_path);
	if (len >= sizeof(sa.sun_path))
		return srt_diag_set(diag, SRT_E_INVAL, bind_path, "proxy socket path '%s' is too long", bind_path);
	p->lfd = srt__os_socket(AF_UNIX, SOCK_STREAM, 0, true);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, bind_path, len);
	unlink(bind_path); /* a stale socket of an earlier run */
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(bind_path, 0600) < 0 || listen(p->lfd, 4096) < 0) {
		int e = errno;

		/* named by its path, not the one through a descriptor */
		srt_diag_set(diag, SRT_E_IO, p->path, "cannot listen on the proxy socket '%s': %s",
			     p->path, strerror(e));
		if (diag)
			diag->saved_errno = e;
		return SRT_E_IO;
	}
	if (srt__evloop_add(p->ev, p->lfd, SRT_EV_IN, &p->lep) < 0)
		return srt_diag_set(diag, SRT_E_IO, "", "proxy event loop: %s", strerror(errno));
	p->listen_pending = false;
	return SRT_OK;
}

int srt__proxy_start(struct srt__proxy *p, struct srt_diag *diag)
{
	int rc;

	if (!p || p->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "proxy already started");
	/* a loop without its listener would serve nobody, and quietly */
	if (p->listen_pending)
		return srt_diag_set(diag, SRT_E_STATE, "", "proxy started before its socket was bound");
	rc = pthread_create(&p->thread, NULL, loop, p);
	if (rc)
		return srt_diag_set(diag, SRT_E_IO, "", "cannot start the proxy thread: %s",
				    strerror(rc));
	p->started = true;
	return SRT_OK;
}

int srt__proxy_update(struct srt__proxy *p, const struct srt__net_config *net,
		      struct srt_diag *diag)
{
	struct srt__net_rules *r = NULL, *old;
	int err;

	if (!p || !net)
		return srt_diag_set(diag, SRT_E_INVAL, "", "proxy: missing settings");
	/* on failure the old rules stay: never fail open */
	err = srt__net_rules_new(&r, net, diag);
	if (err)
		return err;
	pthread_mutex_lock(&p->lock);
	old = p->rules;
	p->rules = r;
	atomic_fetch_add(&p->gen, 1);
	pthread_mutex_unlock(&p->lock);
	srt__net_rules_free(old);
	return SRT_OK;
}

static void cmd_list_free(struct srt__cmd_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->key);
	free(l);
}

int srt__proxy_command_domains(struct srt__proxy *p, const char *command_key,
			       const struct srt__strv *allowed, struct srt_diag *diag)
{
	struct srt__cmd_list *l = NULL, **pp, *old = NULL;
	char key[101];

	if (!p || !command_key || !*command_key)
		return srt_diag_set(diag, SRT_E_INVAL, "", "per-command list without a command key");
	/* the username carries at most the first 100 bytes of the key */
	snprintf(key, sizeof(key), "%s", command_key);
	if (allowed && allowed->n) {
		l = calloc(1, sizeof(*l));
		if (!l || !(l->key = strdup(key)) || !(l->v = calloc(allowed->n, sizeof(char *))))
			goto nomem;
		for (size_t i = 0; i < allowed->n; i++) {
			if (!(l->v[i] = strdup(allowed->v[i])))
				goto nomem;
			l->n = i + 1;
		}
	}
	pthread_mutex_lock(&p->lock);
	for (pp = &p->cmds; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->key, key)) {
			old = *pp;
			*pp = old->next;
			break;
		}
	}
	if (l) {
		l->next = p->cmds;
		p->cmds = l;
	}
	pthread_mutex_unlock(&p->lock);
	cmd_list_free(old);
	return SRT_OK;
nomem:
	cmd_list_free(l);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
}

void srt__proxy_free(struct srt__proxy *p)
{
	if (!p)
		return;
	if (p->started) {
		char one = 1;
		atomic_store(&p->stop, true);
		if (srt__os_send(p->wakefd[1], &one, sizeof(one)) < 0) {
			/* the loop still wakes within its 250 ms timeout */
		}
		pthread_join(p->thread, NULL);
	}
	while (p->conns)
		srt__conn_close(p->conns);
	reap(p);
	srt__dns_free(p->dns);
	srt__pipe_pool_drain(&p->pool);
	if (p->lfd >= 0) {
		srt__os_sock_close(p->lfd);
		if (p->path)
			unlink(p->path);
	}
	srt__evloop_free(p->ev);
	if (p->wakefd[0] >= 0) {
		srt__os_sock_close(p->wakefd[0]);
		srt__os_sock_close(p->wakefd[1]);
	}
	srt__net_rules_free(p->rules);
	srt__tls_teardown(p);
	while (p->cmds) {
		struct srt__cmd_list *n = p->cmds->next;
		cmd_list_free(p->cmds);
		p->cmds = n;
	}
	pthread_mutex_destroy(&p->lock);
	free(p->local);
	free(p->path);
	free(p->token);
	free(p);
}

unsigned long srt__proxy_dns_count(struct srt__proxy *p)
{
	return srt__dns_count(p->dns);
}
