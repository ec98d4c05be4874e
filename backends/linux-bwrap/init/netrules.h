/* The interception rules of the sandbox's network namespace (netrules.c):
 * a default IPv4 route over lo, every TCP connection to an address
 * outside 127.0.0.0/8 redirected to 127.0.0.1:<port>, everything else
 * addressed outside 127.0.0.0/8 dropped, and logged to a netlink group
 * the bridge reads to record each as a violation. */
#ifndef SRT_INIT_NETRULES_H
#define SRT_INIT_NETRULES_H

#include <stddef.h>

#define SRT_NETRULES_TABLE "srt-intercept"

#include <stdint.h>

/* The netlink log group the rules copy dropped packets to (the
 * namespace's own: no other listener can be there), at most
 * SRT_NETRULES_LOG_RATE packets a second, their first SNAP bytes. */
#define SRT_NETRULES_LOG_GROUP 7
#define SRT_NETRULES_LOG_RATE 50
#define SRT_NETRULES_LOG_SNAP 64

/* Install them; needs CAP_NET_ADMIN over the namespace. 0, or -1 with the
 * step and the kernel's error in why. */
int srt__netrules_install(int port, char *why, size_t cap);

/* Bind the log group (before srt__netrules_install, also with
 * CAP_NET_ADMIN): the non-blocking socket its packets arrive on, or -1
 * with the reason in why. Reading it needs no capability. */
int srt__netrules_log_open(char *why, size_t cap);

/* A dropped packet: IP protocol, destination (network order) and, for
 * UDP and TCP, destination port (host order; 0 when unknown). */
struct srt__dropped {
	uint8_t proto;
	uint32_t daddr;
	uint16_t dport;
};

/* The packets one read of the log socket brings (at most max): their
 * count, 0 when none is waiting, -1 on a socket error. */
int srt__netrules_log_read(int fd, struct srt__dropped *out, int max);
/* An IPv4 packet's first n bytes to *d: 0, or -1 when they are not one. */
int srt__netrules_parse_ip(const uint8_t *p, size_t n, struct srt__dropped *d);

#endif
