/* What every benchmark server does up to listening: read its options
 * (-p PORT, -a ADDR, -t THREADS), refuse any address outside the loopback
 * range (the benchmarks never serve anything else), ignore SIGPIPE from
 * clients that hang up, raise the descriptor limit to the hard limit for
 * the many-connection runs, fill the address to bind and open the
 * listening socket. Header-only: bench/run compiles each server from one
 * .c file. */
#ifndef SRT_BENCH_SERVER_H
#define SRT_BENCH_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* -p PORT and -a ADDR, and -t THREADS when `threads` is not NULL: 0, or 2
 * (the usage exit code) on any other option */
static inline int bench_server_options(int argc, char **argv, int *port, const char **addr,
				       int *threads)
{
	int opt;

	while ((opt = getopt(argc, argv, threads ? "p:t:a:" : "p:a:")) != -1) {
		if (opt == 'p')
			*port = atoi(optarg);
		else if (opt == 't' && threads)
			*threads = atoi(optarg);
		else if (opt == 'a')
			*addr = optarg;
		else
			return 2;
	}
	return 0;
}

/* 0, or 2 (the servers' usage exit code) after a message naming `who` */
static inline int bench_server_prepare(const char *who, const char *addr, int port,
				       struct sockaddr_in *sa)
{
	struct rlimit rl;

	if (strncmp(addr, "127.", 4)) {
		fprintf(stderr, "%s: loopback addresses only\n", who);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1)
		return 2;
	return 0;
}

/* A non-blocking listening socket on `sa` (backlog 4096, SO_REUSEADDR, and
 * SO_REUSEPORT when `reuseport`, for one socket a thread), or -1 after a
 * message naming `who` */
static inline int bench_server_listen(const char *who, const struct sockaddr_in *sa, int reuseport)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	char what[64];

	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (reuseport)
			setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	}
	if (fd < 0 || bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ||
	    listen(fd, 4096) < 0) {
		snprintf(what, sizeof(what), "%s: bind/listen", who);
		perror(what);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

#endif
