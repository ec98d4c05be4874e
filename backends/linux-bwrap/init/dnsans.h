/* The in-sandbox DNS answerer and the interception sockets (dnsans.c).
 *
 * Set up by srt-linux-init while it still holds CAP_NET_ADMIN and
 * CAP_NET_BIND_SERVICE over the sandbox's network namespace: the DNS
 * sockets on 127.0.0.53:53 (UDP and TCP), the listener intercepted TCP
 * connections are redirected to, and the namespace's rules (netrules.h).
 * Served by the bridge's relay process afterwards.
 *
 * A question for a name is put to the proxy (SRT_NAME_HELLO, wire.h):
 * a name the policy allows gets an A record with a synthetic address of
 * 198.18.0.0/15 (one per name for the run; other types: no data), any
 * other NXDOMAIN, which the proxy records as a violation naming it.
 * Nothing is forwarded to a resolver. Other packets the rules drop (UDP to
 * anywhere else, ICMP) are read back from their log and reported to the
 * proxy the same way, as violations. The bridge maps a synthetic address
 * back to its name when a connection to it arrives, and hands the proxy a
 * CONNECT to that name: the real resolution happens there alone, behind
 * the resolved-address guard. */
#ifndef SRT_INIT_DNSANS_H
#define SRT_INIT_DNSANS_H

#include <stddef.h>
#include <stdint.h>

struct srt__icept_fds {
	int tcp;     /* intercepted TCP connections arrive here (127.0.0.1:ephemeral) */
	int dns_udp; /* 127.0.0.53:53 */
	int dns_tcp; /* 127.0.0.53:53, listening */
	/* the same on 127.0.0.1:53, where a resolver library goes when it
	 * cannot read /etc/resolv.conf (denyRead on a part of /etc makes the
	 * Landlock layer refuse the file mounted there) */
	int dns_udp_lo, dns_tcp_lo;
	/* the netlink log of the packets the rules drop (netrules.h) */
	int log;
};

#define SRT_DNS_ADDR "127.0.0.53"
/* the synthetic range: 198.18.0.0/15, reserved for benchmarking, never
 * dialled (the proxy's guard refuses it as private) */
#define SRT_SYNTH_NET 0xc6120000u
#define SRT_SYNTH_MASK 0xfffe0000u

/* Open the sockets and install the rules. 0; -1 with the reason in why
 * (every descriptor closed, f set to -1). */
int srt__icept_open(struct srt__icept_fds *f, char *why, size_t cap);
void srt__icept_close(struct srt__icept_fds *f);

/* In the relay process: the proxy's socket (as the relay reaches it) and
 * token (NULL or "": none) for the name questions. */
void srt__dnsans_init(const char *sock_path, const char *token);
/* Answer every datagram waiting on the UDP socket. */
void srt__dnsans_udp(int fd);
/* Accept one TCP client and answer its one question (a client waits at
 * most half a second to send it). */
void srt__dnsans_tcp(int lfd);
/* The name a synthetic address (network order) stands for, or NULL. */
const char *srt__dnsans_name_of(uint32_t addr);
/* Read the log of dropped packets and tell the proxy about each
 * destination (a synthetic address by its name), which records it as a
 * violation; a destination already told within the last seconds is not
 * told again. */
void srt__dnsans_dropped(int log_fd);

#endif
