/* The socket hand-over protocol between the in-sandbox bridge
 * (backends/linux-bwrap/init/bridge.c) and the proxy, on the proxy's Unix
 * socket. Both sides include this header and nothing else of each other.
 *
 * A client of the Unix socket whose first byte is SRT_PASS_HELLO is a
 * control connection: the proxy answers SRT_PASS_HELLO, then every message
 * on it is one byte carrying up to SRT_PASS_MAX_FDS accepted TCP sockets
 * (SCM_RIGHTS), each served as a client of its own (still
 * token-authenticated). */
#ifndef SRT_PROXY_WIRE_H
#define SRT_PROXY_WIRE_H

#define SRT_PASS_HELLO '\0'

/* A client of the Unix socket whose first byte is SRT_NAME_HELLO asks the
 * policy about names (the bridge's DNS answerer, proxies/intercept.c).
 * After that byte it sends the proxy's token and a newline (an empty line
 * when the proxy wants none), then one line per name: "<id> <name>\n",
 * id 1 to 10 digits, name in the form a DNS question carries (lower case,
 * no trailing dot). The proxy answers each with "<id> 1\n" (some rule
 * allows the name) or "<id> 0\n" (refused, and recorded as a violation
 * naming it). A wrong token or a malformed line ends the connection.
 * Nothing is resolved: the answer is the policy's alone. */
#define SRT_NAME_HELLO '\1'
#define SRT_NAME_LINE_MAX 300
/* On the same connection the bridge reports what the sandbox's rules
 * dropped (UDP other than to its DNS answerer, ICMP, any other IP
 * protocol addressed outside loopback): "drop <proto> <dest>\n", proto the
 * IP protocol number, dest a name (the one behind a synthetic address) or
 * an IPv4 address, with ":<port>" for UDP and TCP. The proxy records a
 * violation naming the destination and answers nothing. */
#define SRT_DROP_WORD "drop"
#define SRT_PASS_MAX_FDS 8

/* A CONNECT carrying this header line asks the proxy to serve the tunnel
 * as plain HTTP to the CONNECT target, not as opaque bytes: every request
 * inside is parsed and goes through the request filters and the same
 * checks as a proxied plain-HTTP request (its Host must name the target).
 * The bridge sends it for the intercepted connections to port 80. It can
 * only narrow what a client gets, so the proxy honours it from anyone. */
#define SRT_SERVE_HTTP_NAME "Srt-Serve"
#define SRT_SERVE_HTTP_HEADER SRT_SERVE_HTTP_NAME ": http\r\n"
/* control connections open at once (the bridge needs one; the rest is
 * room for its reconnects): more are closed at their hello */
#define SRT_PASS_MAX_CTL 4

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

/* An intercepted connection (the namespace's rules redirected it to the
 * bridge) is handed over the same way, without a byte of it crossing the
 * bridge: one message whose data is SRT_PASS_ICEPT followed by a whole
 * CONNECT head naming its destination (with the proxy's token, as any
 * client's), carrying exactly one descriptor. The proxy serves the socket
 * as a client that sent that head, except that the client never sees the
 * answer to it: a refusal resets the connection (on port 80, served as
 * HTTP, the client gets the HTTP answer with its reason), success goes
 * straight on into the tunnel. Such a connection is never relayed to an
 * external proxy (httpProxyPort): its CONNECT is the proxy's own to
 * judge. A message that is not exactly this closes its descriptors. */
#define SRT_PASS_ICEPT 'I'
#define SRT_PASS_DATA_MAX 1100

/* The most descriptors srt__pass_send puts in one message. The proxy takes
 * SRT_PASS_MAX_FDS and closes the rest; the bridge never sends more, a
 * hostile or test sender may. */
#define SRT_PASS_SEND_MAX 64

/* Send one pass message: the byte 'F' carrying the n descriptors of fds
 * (1 to SRT_PASS_SEND_MAX) on the control connection ctl; `flags` are added
 * to MSG_NOSIGNAL. EINTR is retried. Returns sendmsg's answer: 1 when the
 * message (and the descriptors) went, -1 with errno otherwise. The
 * descriptors stay open here either way. */
/* MSG_NOSIGNAL is POSIX, but macOS lacks it: there the proxy's threads
 * block SIGPIPE instead. */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

static inline ssize_t srt__pass_send_data(int ctl, const int *fds, int n, int flags,
					  const char *data, size_t len);

static inline ssize_t srt__pass_send(int ctl, const int *fds, int n, int flags)
{
	return srt__pass_send_data(ctl, fds, n, flags, "F", 1);
}

/* The same with `len` bytes of data (1 to SRT_PASS_DATA_MAX) instead of
 * the byte 'F'. */
static inline ssize_t srt__pass_send_data(int ctl, const int *fds, int n, int flags,
					  const char *data, size_t len)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * SRT_PASS_SEND_MAX)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)data, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.b,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
	struct cmsghdr *h;
	ssize_t r;

	if (n <= 0 || n > SRT_PASS_SEND_MAX || !len || len > SRT_PASS_DATA_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&cbuf, 0, sizeof(cbuf));
	h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(h), fds, sizeof(int) * (size_t)n);
	do
		r = sendmsg(ctl, &m, MSG_NOSIGNAL | flags);
	while (r < 0 && errno == EINTR);
	return r;
}

#endif
