/* srt-connect HOST PORT: an ssh ProxyCommand that needs no socat or nc.
 * Reads the proxy URL (with the per-run credentials) from $HTTPS_PROXY,
 * asks the proxy for a CONNECT tunnel with Proxy-Authorization and then
 * relays stdin/stdout (proxies/connect.h: the relay is per system). The
 * credentials come from the environment, never from argv. Built for
 * Linux and the other POSIX systems (proxies/Makemodule.am) and for
 * Windows (win/build.sh: srt-connect.exe). */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/platform.h"
#include "proxies/auth.h"
#include "proxies/connect.h"

/* MSG_NOSIGNAL is POSIX, but macOS lacks it: there a send on a tunnel the
 * proxy closed raises SIGPIPE, which ends srt-connect as write(2) did */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void pct_decode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '%' && unhex(s[1]) >= 0 && unhex(s[2]) >= 0) {
			*o++ = (char)(unhex(s[1]) << 4 | unhex(s[2]));
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int srt__connect_send(int sock, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n;

		/* send, not write: a socket is no file descriptor on Windows,
		 * where Winsock leaves errno alone (hence it is cleared) */
		errno = 0;
		n = send(sock, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* HOST as ssh's %h gives it, to paste into the request line: a name, an
 * IPv4 address or an IPv6 one (bare, or in brackets), with a zone ("%eth0")
 * at most; anything else (a CR LF would add header lines of its own to
 * the request, a space a second word to its request line) is refused. */
static int host_ok(const char *h)
{
	size_t n = strlen(h), i, from = 0;

	if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
		from = 1;
		n--;
	}
	if (n <= from || n - from > 255)
		return 0;
	for (i = from; i < n; i++)
		if (!((h[i] >= 'A' && h[i] <= 'Z') || (h[i] >= 'a' && h[i] <= 'z') ||
		      (h[i] >= '0' && h[i] <= '9') || strchr(".-_:%", h[i])))
			return 0;
	return 1;
}

/* PORT: a decimal number 1-65535, nothing else. */
static int port_ok(const char *p)
{
	long v = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		if (p[i] < '0' || p[i] > '9' || i >= 5)
			return 0;
		v = v * 10 + (p[i] - '0');
	}
	return i > 0 && v >= 1 && v <= 65535;
}

int main(int argc, char **argv)
{
	const char *url = getenv("HTTPS_PROXY");
	char buf[8192], host[256], port[16], cred[600] = "", auth[900] = "";
	char *rest, *at, *colon, *slash;
	struct addrinfo hints, *res = NULL, *ai;
	int fd = -1;
	size_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: srt-connect HOST PORT\n");
		return 2;
	}
	/* ssh passes %h and %p from whatever URL it was given (a submodule's
	 * may be the repository's choice): they go into the request only as
	 * a host and a port (red team: a CR LF in either added header lines) */
	if (!host_ok(argv[1]) || !port_ok(argv[2])) {
		fprintf(stderr, "srt-connect: %s\n", !host_ok(argv[1]) ?
			"HOST must be a host name or an IP address" : "PORT must be a number 1-65535");
		return 2;
	}
	if (!url || !*url)
		url = getenv("https_proxy");
	if (!url || !*url)
		url = getenv("HTTP_PROXY");
	if (!url || !*url) {
		fprintf(stderr, "srt-connect: 'HTTPS_PROXY' is not set\n");
		return 1;
	}
	if (strncmp(url, "http://", 7) != 0 || strlen(url) >= sizeof(buf)) {
		fprintf(stderr, "srt-connect: 'HTTPS_PROXY' is not an http:// url\n");
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s", url + 7);
	rest = buf;
	if ((slash = strchr(rest, '/')))
		*slash = '\0';
	if ((at = strrchr(rest, '@'))) {
		*at = '\0';
		if (strlen(rest) >= sizeof(cred)) {
			fprintf(stderr, "srt-connect: proxy credentials too long\n");
			return 1;
		}
		memcpy(cred, rest, strlen(rest) + 1);
		rest = at + 1;
		/* percent-decoding only shrinks, so it can run in place on each part */
		if ((colon = strchr(cred, ':'))) {
			size_t ul;
			*colon = '\0';
			pct_decode(cred);
			pct_decode(colon + 1);
			ul = strlen(cred);
			cred[ul] = ':';
			memmove(cred + ul + 1, colon + 1, strlen(colon + 1) + 1);
		}
		srt__b64_encode((const uint8_t *)cred, strlen(cred), auth, sizeof(auth));
	}
	colon = strrchr(rest, ':');
	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - rest) : (int)strlen(rest), rest);
	snprintf(port, sizeof(port), "%s", colon ? colon + 1 : "80");

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (srt__os_net_init() < 0) {
		fprintf(stderr, "srt-connect: cannot start the socket layer: %s\n", strerror(errno));
		return 1;
	}
	if (getaddrinfo(host, port, &hints, &res) != 0) {
		fprintf(stderr, "srt-connect: cannot resolve the proxy '%s'\n", host);
		return 1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = srt__os_socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol, false);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		srt__os_sock_close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "srt-connect: cannot connect to the proxy '%s:%s'\n", host, port);
		return 1;
	}
	{
		const char *h = argv[1];
		int v6 = strchr(h, ':') != NULL && h[0] != '[';
		int len = snprintf(buf, sizeof(buf),
				   "CONNECT %s%s%s:%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n%s%s%s\r\n",
				   v6 ? "[" : "", h, v6 ? "]" : "", argv[2], v6 ? "[" : "", h,
				   v6 ? "]" : "", argv[2], *auth ? "Proxy-Authorization: Basic " : "",
				   auth, *auth ? "\r\n" : "");
		if (len < 0 || (size_t)len >= sizeof(buf) || srt__connect_send(fd, buf, (size_t)len) < 0) {
			fprintf(stderr, "srt-connect: cannot send the request\n");
			return 1;
		}
	}
	/* read the head byte by byte: nothing after it may be swallowed */
	n = 0;
	while (n < sizeof(buf) - 1) {
		ssize_t r;

		errno = 0;
		r = recv(fd, buf + n, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "srt-connect: the proxy closed the connection\n");
			return 1;
		}
		n++;
		if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	buf[n] = '\0';
	/* a head longer than buf: the rest of it would reach ssh as if the
	 * far side had sent it (red team) */
	if (n < 4 || memcmp(buf + n - 4, "\r\n\r\n", 4) != 0) {
		fprintf(stderr, "srt-connect: the proxy's reply head is too long (over %zu bytes)\n", n);
		return 1;
	}
	if (strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ' || buf[9] != '2') {
		char *eol = strstr(buf, "\r\n");
		if (eol)
			*eol = '\0';
		/* the status line goes to a terminal: nothing in it may steer it */
		for (eol = buf; *eol; eol++)
			if ((unsigned char)*eol < 0x20 || (unsigned char)*eol >= 0x7f)
				*eol = '?';
		fprintf(stderr, "srt-connect: the proxy refused %s:%s: %s\n", argv[1], argv[2], buf);
		return 1;
	}
	return srt__connect_relay(fd);
}
