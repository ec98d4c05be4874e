/* What every benchmark server does before it listens: refuse any address
 * outside the loopback range (the benchmarks never serve anything else),
 * ignore SIGPIPE from clients that hang up, raise the descriptor limit to
 * the hard limit for the many-connection runs, and fill the address to
 * bind. Header-only: bench/run compiles each server from one .c file. */
#ifndef SRT_BENCH_SERVER_H
#define SRT_BENCH_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

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

#endif
