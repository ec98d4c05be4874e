/* srt's proxy alone, hosted in this process on a Unix socket, for timing
 * the proxy without the sandbox and the in-sandbox bridge (bench/load.c
 * -U PATH dials it). Allowed: 127.0.0.1 and localhost; no token, so
 * requests need no Proxy-Authorization.
 *
 * With -p PORT it also listens on 127.0.0.1:PORT and hands every accepted
 * TCP socket to the proxy over a control connection, as the in-sandbox
 * bridge does (proxies/wire.h), so the proxy serves TCP clients exactly as
 * in a sandbox, for `load -x http://127.0.0.1:PORT`.
 *
 * With -r FILE it runs the `rules` filter (compiled in: build with
 * plugins/filters/rules/rules.c) with FILE's JSON as its config, for
 * profiling the filtered path without a sandbox.
 *
 * Usage: proxy-host SOCKET_PATH [-p PORT] [-r RULES.json]   Prints
 * "listening" once ready; runs until killed. Built against a build tree's
 * libsrtproxy. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/strv.h"
#include "proxies/filter-chain.h"
#include "proxies/proxy.h"
#include "proxies/wire.h"

static int lfd = -1, ctl = -1;

/* The bridge's job, blocking: accept, pass, close our copy. */
static void *front(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (srt__pass_send(ctl, &fd, 1, 0) != 1)
			perror("proxy-host: pass");
		close(fd);
	}
	return NULL;
}

static int start_front(const char *path, int port)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in a = { .sin_family = AF_INET };
	pthread_t t;
	char ack;
	int one = 1;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	ctl = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ctl < 0 || connect(ctl, (struct sockaddr *)&un, sizeof(un)) < 0 ||
	    send(ctl, "", 1, MSG_NOSIGNAL) != 1 || recv(ctl, &ack, 1, 0) != 1 ||
	    ack != SRT_PASS_HELLO)
		return -1;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 4096) < 0)
		return -1;
	return pthread_create(&t, NULL, front, NULL) == 0 ? 0 : -1;
}

#ifdef PROXY_HOST_RULES
extern const struct srt_filter srt_filter_entry;

static struct srt__filter_chain *rules_chain(const char *file)
{
	static char cfg[1 << 16];
	struct srt__filter_chain *ch = NULL;
	struct srt_filter_error err;
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(cfg, 1, sizeof(cfg) - 1, f) : 0;

	if (f)
		fclose(f);
	cfg[n] = '\0';
	if (!n || srt__filter_chain_new(0, NULL, NULL, &ch) != SRT_OK ||
	    srt__filter_chain_add(ch, &srt_filter_entry, "rules", cfg, &err) != SRT_OK) {
		fprintf(stderr, "proxy-host: rules: %s %s\n", err.path, err.message);
		exit(1);
	}
	return ch;
}
#else
static struct srt__filter_chain *rules_chain(const char *file)
{
	(void)file;
	fprintf(stderr, "proxy-host: -r needs a build with plugins/filters/rules/rules.c\n");
	exit(2);
}
#endif

int main(int argc, char **argv)
{
	struct srt__net_config net;
	struct srt__proxy_config cfg;
	struct srt__proxy *p = NULL;
	struct srt_diag diag;
	sigset_t set;
	int sig;

	int port = 0, i;
	const char *rules = NULL;

	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-p"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-r"))
			rules = argv[i + 1];
		else
			break;
	}
	if (argc < 2 || i != argc) {
		fprintf(stderr, "usage: proxy-host SOCKET_PATH [-p PORT] [-r RULES.json]\n");
		return 2;
	}
	memset(&net, 0, sizeof(net));
	if (rules)
		net.filters = rules_chain(rules);
	memset(&cfg, 0, sizeof(cfg));
	memset(&diag, 0, sizeof(diag));
	if (srt__strv_push(&net.allowed_domains, "127.0.0.1") < 0 ||
	    srt__strv_push(&net.allowed_domains, "localhost") < 0)
		return 1;
	cfg.net = &net;
	cfg.socket_path = argv[1];
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (srt__proxy_new(&p, &cfg, &diag) != 0 || srt__proxy_start(p, &diag) != 0) {
		fprintf(stderr, "proxy-host: %s\n", diag.message);
		return 1;
	}
	if (port && start_front(argv[1], port) < 0) {
		perror("proxy-host: TCP front");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	sigwait(&set, &sig);
	srt__proxy_free(p);
	srt__strv_release(&net.allowed_domains);
	return 0;
}
