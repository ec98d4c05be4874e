/* The in-sandbox bridge: TCP on 127.0.0.1 and [::1] relayed to the proxy's
 * Unix socket by one relay process. Runs in a private network namespace
 * (a user namespace when not root) so the ports are ours alone. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/un.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/bridge.h"
#include "proxies/auth.h"
#include "proxies/proxy.h"
#include "proxies/pump.h"
#include "proxies/wire.h"
#include "tests/helpers/netkit.h"
#include "tests/unit/tap.h"

#define TOKEN "fedcba9876543210fedcba9876543210"

static int echo_port;
static char auth[256];

static int tcp_connect(int family, int port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct timeval tv = { 10, 0 };
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		s->sin6_addr = in6addr_loopback;
		sl = sizeof(*s);
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int http_tunnel(int family, int port)
{
	char req[512], resp[128];
	static const char est[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
	int fd = tcp_connect(family, port);

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\n%s\r\n", echo_port, auth);
	netkit_send_all(fd, req, strlen(req));
	if (netkit_recv_n(fd, resp, sizeof(est) - 1) != sizeof(est) - 1 ||
	    memcmp(resp, est, sizeof(est) - 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool roundtrip(int fd, const char *msg)
{
	char b[256];
	size_t n = strlen(msg);

	return netkit_send_all(fd, msg, n) == 0 && netkit_recv_n(fd, b, n) == n && !memcmp(b, msg, n);
}

static int count_socket_fds(void)
{
	char path[64], link[128];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l > 0) {
			link[l] = '\0';
			if (!strncmp(link, "socket:", 7))
				n++;
		}
	}
	return n;
}

/* Sockets of this process bound locally to `port` (accepted ends). */
static int count_local_port(int port)
{
	int n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int type = 0;
		socklen_t tl = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM ||
		    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
			continue;
		if (ss.ss_family == AF_INET &&
		    ntohs(((struct sockaddr_in *)&ss)->sin_port) == port) {
			int acc = 1;
			socklen_t al = sizeof(acc);
			getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al);
			if (!acc)
				n++;
		}
	}
	return n;
}

static char state_of(pid_t pid)
{
	char path[64], buf[256];
	int fd;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* Run srt-connect with stdin `in`; its stdout goes to out. Returns the
 * exit status, or -1 when it could not be run. */
static int run_connect(const char *prog, const char *proxy_url, const char *host, int port,
		       const char *in, char *out, size_t cap)
{
	int pin[2], pout[2], st;
	char portstr[16];
	size_t n = 0;
	pid_t pid;

	if (pipe(pin) < 0 || pipe(pout) < 0)
		return -1;
	snprintf(portstr, sizeof(portstr), "%d", port);
	pid = fork();
	if (pid == 0) {
		char env[300];
		char *envp[] = { env, NULL };
		snprintf(env, sizeof(env), "HTTPS_PROXY=%s", proxy_url);
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		close(pin[1]);
		close(pout[0]);
		execle(prog, prog, host, portstr, (char *)NULL, envp);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	if (write(pin[1], in, strlen(in)) != (ssize_t)strlen(in))
		printf("# short write to srt-connect\n");
	close(pin[1]);
	for (;;) {
		ssize_t r = read(pout[0], out + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	out[n] = '\0';
	close(pout[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A spec for the socket at path as it is now (its inode is what the
 * bridge pins). */
static struct srt__bridge_spec spec_for(const char *path, int http, int socks)
{
	struct srt__bridge_spec sp = { .socket_path = path, .http_port = http, .socks_port = socks };
	struct stat st;

	if (lstat(path, &st) == 0) {
		sp.socket_dev = (unsigned long long)st.st_dev;
		sp.socket_ino = (unsigned long long)st.st_ino;
	}
	return sp;
}

/* A Unix socket that only counts who connects: what a link planted at the
 * proxy socket's path would lead to (a host daemon's socket). */
static atomic_int decoy_hits;

static void *decoy_main(void *arg)
{
	int lfd = *(int *)arg;

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return NULL;
		atomic_fetch_add(&decoy_hits, 1);
		close(fd);
	}
}

/* A stand-in for a proxy without the socket hand-over: it closes a
 * connection whose first byte is the hello and echoes any other. */
static atomic_int hellos_refused;

static void *old_proxy_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char b[4096];
	ssize_t n = read(fd, b, sizeof(b));

	if (n > 0 && b[0] == SRT_PASS_HELLO) {
		atomic_fetch_add(&hellos_refused, 1);
		close(fd);
		return NULL;
	}
	while (n > 0) {
		if (netkit_send_all(fd, b, (size_t)n) < 0)
			break;
		n = read(fd, b, sizeof(b));
	}
	close(fd);
	return NULL;
}

static void *old_proxy(void *arg)
{
	netkit_serve_threads(*(int *)arg, old_proxy_conn, NULL);
	return NULL;
}

/* Without the hand-over the bridge relays the bytes itself. */
static void test_fallback(const char *dir)
{
	static int lfd;
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct srt__bridge_spec sp;
	pthread_t t;
	pid_t rr = 0;
	int fd, good = 0;
	char path[sizeof(su.sun_path)];

	if ((size_t)snprintf(path, sizeof(path), "%s/old.sock", dir) >= sizeof(path))
		return;
	memcpy(su.sun_path, path, sizeof(path));
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bind(lfd, (struct sockaddr *)&su, sizeof(su)) < 0 || listen(lfd, 64) < 0) {
		ok(0, "fallback: stand-in proxy listening");
		return;
	}
	pthread_create(&t, NULL, old_proxy, &lfd);
	sp = spec_for(path, 3131, 1082);
	if (srt__bridge_start(&sp, &rr) < 0) {
		ok(0, "fallback: second bridge");
		return;
	}
	for (int i = 0; i < 20; i++) {
		char m[32];
		fd = tcp_connect(AF_INET, i % 2 ? 3131 : 1082);
		snprintf(m, sizeof(m), "relayed %d", i);
		if (fd >= 0 && roundtrip(fd, m))
			good++;
		if (fd >= 0)
			close(fd);
	}
	ok(good == 20 && atomic_load(&hellos_refused) >= 1,
	   "a proxy that refuses the hand-over: the bridge relays instead (%d of 20, %d hellos refused)",
	   good, atomic_load(&hellos_refused));
	kill(rr, SIGKILL);
	waitpid(rr, NULL, 0);
	unlink(path);
}

static void test_connect_helper(void)
{
	const char *top = getenv("top_builddir");
	char prog[512], url[200], out[256];
	int rc;

	snprintf(prog, sizeof(prog), "%s/backends/linux-bwrap/srt-connect", top ? top : ".");
	if (access(prog, X_OK) < 0) {
		tap_n++;
		printf("ok %d # SKIP srt-connect not built at %s\n", tap_n, prog);
		tap_n++;
		printf("ok %d # SKIP srt-connect not built\n", tap_n);
		return;
	}
	snprintf(url, sizeof(url), "http://srt:%s@127.0.0.1:3128", TOKEN);
	rc = run_connect(prog, url, "127.0.0.1", echo_port, "SSH-2.0-test\r\n", out, sizeof(out));
	ok(rc == 0 && !strcmp(out, "SSH-2.0-test\r\n"),
	   "srt-connect (ssh ProxyCommand) tunnels stdin/stdout with the token from HTTPS_PROXY");
	rc = run_connect(prog, url, "127.0.0.1", 22, "x", out, sizeof(out));
	ok(rc == 1 && out[0] == '\0', "srt-connect to a refused target exits 1 and relays nothing");
}

static char bridge_dir[] = "/tmp/srt-bridge-test.XXXXXX";

/* the proxy, then the bridge in front of it: one case, since every check
 * after the first talks to the same proxy and relay */
static void case_bridge(void)
{
	char *dir = bridge_dir, sock[256], cred[100], b64[200];
	struct srt__net_config s;
	struct srt__proxy_config cfg;
	struct srt__proxy *p = NULL;
	struct srt__bridge_spec spec;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr_un du = { .sun_family = AF_UNIX };
	char moved[300], decoy[300], link_path[300];
	pthread_t dt;
	int dfd;
	socklen_t sl = sizeof(sa);
	pthread_t t;
	pid_t relay = 0;
	int efd, fd, before, one = 1;

	snprintf(sock, sizeof(sock), "%s/proxy.sock", dir);
	snprintf(cred, sizeof(cred), "srt:%s", TOKEN);
	srt__b64_encode((uint8_t *)cred, strlen(cred), b64, sizeof(b64));
	snprintf(auth, sizeof(auth), "Proxy-Authorization: Basic %s\r\n", b64);

	/* the proxy first, as srt does: the bridge pins its socket */
	memset(&s, 0, sizeof(s));
	srt__strv_push(&s.allowed_domains, "127.0.0.1");
	memset(&cfg, 0, sizeof(cfg));
	cfg.net = &s;
	cfg.socket_path = sock;
	cfg.token = TOKEN;
	ok(srt__proxy_new(&p, &cfg, NULL) == 0 && srt__proxy_start(p, NULL) == 0, "proxy up");
	srt__strv_release(&s.allowed_domains);

	/* a decoy socket: what a planted link would lead to */
	snprintf(decoy, sizeof(decoy), "%s.decoy", dir);
	if (strlen(decoy) >= sizeof(du.sun_path))
		exit(1);
	memcpy(du.sun_path, decoy, strlen(decoy) + 1);
	dfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bind(dfd, (struct sockaddr *)&du, sizeof(du)) < 0 || listen(dfd, 64) < 0)
		exit(1);
	pthread_create(&dt, NULL, decoy_main, &dfd);

	/* only the socket srt bound: not a link to it, not another socket */
	snprintf(link_path, sizeof(link_path), "%s/link.sock", dir);
	if (symlink(sock, link_path) < 0)
		exit(1);
	spec = spec_for(sock, 3128, 1080);
	spec.socket_path = link_path;
	ok(srt__bridge_start(&spec, &relay) != 0, "a link at the socket path fails the bridge");
	unlink(link_path);
	spec = spec_for(sock, 3128, 1080);
	spec.socket_path = decoy;
	ok(srt__bridge_start(&spec, &relay) != 0, "another socket at the path (other inode) fails the bridge");

	spec = spec_for(sock, 3128, 1080);
	before = count_socket_fds();
	ok(srt__bridge_start(&spec, &relay) == 0 && relay > 0, "bridge started (relay %d)", (int)relay);
	ok(count_socket_fds() == before, "no listening socket left in the caller");

	efd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(efd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(efd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(efd, 4096) < 0)
		exit(1);
	getsockname(efd, (struct sockaddr *)&sa, &sl);
	echo_port = ntohs(sa.sin_port);
	ok(echo_port > 0, "the bridge brought lo up (a loopback server could bind)");
	pthread_create(&t, NULL, netkit_echo_server, &efd);

	/* before the first client: the socket's directory renamed away and
	 * a link to the decoy put at its path, as a command that can write
	 * the directory's parent could. The bridge still reaches the proxy. */
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	snprintf(link_path, sizeof(link_path), "%s/proxy.sock", dir);
	if (rename(dir, moved) < 0 || mkdir(dir, 0700) < 0 || symlink(decoy, link_path) < 0)
		exit(1);
	fd = http_tunnel(AF_INET, 3128);
	ok(fd >= 0 && roundtrip(fd, "pinned"), "after the path was redirected, clients still reach the proxy");
	if (fd >= 0)
		close(fd);
	ok(atomic_load(&decoy_hits) == 0, "the link planted at the socket path was never followed (%d connections)",
	   atomic_load(&decoy_hits));
	if (unlink(link_path) < 0 || rmdir(dir) < 0 || rename(moved, dir) < 0)
		exit(1);

	fd = http_tunnel(AF_INET, 3128);
	ok(fd >= 0 && roundtrip(fd, "via 127.0.0.1:3128"), "HTTP CONNECT through 127.0.0.1:3128");
	if (fd >= 0) {
		/* half-close passes through both hops */
		char b[64];
		netkit_send_all(fd, "tail", 4);
		shutdown(fd, SHUT_WR);
		ok(netkit_recv_n(fd, b, sizeof(b)) == 4 && !memcmp(b, "tail", 4),
		   "half-close through the bridge");
		close(fd);
	}
	fd = http_tunnel(AF_INET6, 3128);
	ok(fd >= 0 && roundtrip(fd, "via [::1]:3128"), "HTTP CONNECT through [::1]:3128");
	if (fd >= 0)
		close(fd);
	fd = http_tunnel(AF_INET, 1080);
	ok(fd >= 0 && roundtrip(fd, "http on the socks port"),
	   "the SOCKS port reaches the same sniffing endpoint");
	if (fd >= 0)
		close(fd);
	{
		/* SOCKS5 with auth through 127.0.0.1:1080 */
		char req[128], conn[10], b[16];

		fd = tcp_connect(AF_INET, 1080);
		netkit_socks_loopback(conn, echo_port);
		netkit_send_all(fd, req, netkit_socks_open(req, TOKEN, conn, sizeof(conn)));
		ok(netkit_recv_n(fd, b, 14) == 14 && !memcmp(b + 4, "\x05\x00", 2) && roundtrip(fd, "socks"),
		   "SOCKS5 through 127.0.0.1:1080");
		close(fd);
	}
	{
		enum { N = 300 };
		int fds[N], good = 0;
		for (int i = 0; i < N; i++)
			fds[i] = http_tunnel(AF_INET, 3128);
		/* handed over, not relayed: the proxy (this process) holds
		 * the accepted end of every client */
		ok(count_local_port(3128) == N,
		   "the bridge passed each accepted socket to the proxy (%d of %d held there)",
		   count_local_port(3128), N);
		for (int i = 0; i < N; i++) {
			char m[32];
			snprintf(m, sizeof(m), "conn %d", i);
			if (fds[i] >= 0 && roundtrip(fds[i], m))
				good++;
			if (fds[i] >= 0)
				close(fds[i]);
		}
		ok(good == N, "%d concurrent connections through one relay (%d)", N, good);
	}
	{
		/* 256 MiB checksum through both hops */
		size_t total = 256u << 20, sent = 0, got = 0;
		char *out = malloc(1 << 16), *in = malloc(1 << 16);
		uint32_t a = 1, bsum = 1;
		struct pollfd pf[1];
		bool eof = false;
		fd = http_tunnel(AF_INET, 3128);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		for (int i = 0; i < 1 << 16; i++)
			out[i] = (char)(i * 131 + 7);
		while (!eof) {
			pf[0].fd = fd;
			pf[0].events = POLLIN | (sent < total ? POLLOUT : 0);
			if (poll(pf, 1, 10000) <= 0)
				break;
			if ((pf[0].revents & POLLOUT) && sent < total) {
				size_t n = total - sent < (1 << 16) ? total - sent : (1 << 16);
				ssize_t w = send(fd, out + (sent & 0xffff), n - (sent & 0xffff), MSG_NOSIGNAL);
				if (w > 0) {
					for (ssize_t k = 0; k < w; k++)
						a = a * 31 + (uint8_t)out[(sent + (size_t)k) & 0xffff];
					sent += (size_t)w;
					if (sent == total)
						shutdown(fd, SHUT_WR);
				}
			}
			if (pf[0].revents & (POLLIN | POLLHUP)) {
				ssize_t r = read(fd, in, 1 << 16);
				if (r == 0)
					eof = true;
				for (ssize_t k = 0; k < r; k++)
					bsum = bsum * 31 + (uint8_t)in[k];
				if (r > 0)
					got += (size_t)r;
			}
		}
		ok(got == total && a == bsum, "256 MiB echoed byte-exact through the bridge");
		close(fd);
		free(out);
		free(in);
	}
	test_connect_helper();
	test_fallback(dir);
	srt__proxy_free(p);
	{
		/* a socket at the path again (the proxy removed its own), so
		 * the bridges below start for the reason each case is about */
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		int ufd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (strlen(sock) >= sizeof(su.sun_path))
			exit(1);
		memcpy(su.sun_path, sock, strlen(sock) + 1);
		if (bind(ufd, (struct sockaddr *)&su, sizeof(su)) < 0 || listen(ufd, 4) < 0)
			exit(1);
	}

	{
		/* the relay dies with the process that started it */
		int pp[2];
		pid_t starter, r2 = 0;
		if (pipe(pp) < 0)
			exit(1);
		starter = fork();
		if (starter == 0) {
			struct srt__bridge_spec sp = spec_for(sock, 3129, 1081);
			pid_t rr = 0;
			srt__bridge_start(&sp, &rr);
			if (write(pp[1], &rr, sizeof(rr)) < 0)
				_exit(1);
			_exit(0);
		}
		if (read(pp[0], &r2, sizeof(r2)) != sizeof(r2))
			r2 = 0;
		waitpid(starter, NULL, 0);
		for (int i = 0; i < 100 && r2 > 0 && state_of(r2) && state_of(r2) != 'Z'; i++)
			usleep(20000);
		ok(r2 > 0 && (state_of(r2) == 0 || state_of(r2) == 'Z'),
		   "relay killed when its parent exits");
		fd = tcp_connect(AF_INET, 3129);
		ok(fd < 0, "its port no longer listens");
		if (fd >= 0)
			close(fd);
	}
	kill(relay, SIGKILL);
	waitpid(relay, NULL, 0);
	{
		struct srt__bridge_spec bad = spec_for(sock, 3128, 1080);
		pid_t r3 = 0;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sa.sin_port = htons(3130);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		listen(fd, 1);
		bad.http_port = 3130;
		ok(srt__bridge_start(&bad, &r3) != 0, "a port already taken fails the bridge");
		close(fd);
	}
	unlink(sock);
	unlink(decoy);
	rmdir(dir);
}

/* A pump without a pipe pool (NULL) still moves bytes: the bridge once
 * ran its first relay step with none, and took its pipe from NULL. */
static void test_pump_no_pool(void)
{
	int a[2], b[2];
	char got[8] = "";
	struct srt__pump p;
	int rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, a) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, b) < 0) {
		ok(0, "socketpairs for the pump: %s", strerror(errno));
		return;
	}
	srt__pump_init(&p);
	ok(send(a[1], "hello", 5, 0) == 5, "bytes wait at the pump's source");
	rc = srt__pump_run(&p, a[0], b[0], NULL, NULL);
	ok(rc == SRT_PUMP_BLOCKED && recv(b[1], got, sizeof(got) - 1, MSG_DONTWAIT) == 5 &&
		   !strcmp(got, "hello"),
	   "a pump with no pipe pool moves them (rc %d, got '%s')", rc, got);
	srt__pump_release(&p, NULL);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	test_pump_no_pool();
	if (!mkdtemp(bridge_dir))
		return 1;
	/* lo stays down: the bridge must bring it up */
	if (netkit_unshare(CLONE_NEWNET) < 0) {
		printf("ok 1 # SKIP cannot create a network namespace: %s\n1..1\n", strerror(errno));
		return 0;
	}
	tap_case_timeout(case_bridge, "case_bridge", 120);
	return tap_done();
}
