/* A test client of srt.exe's proxy under Wine (win/test.sh), on Winsock
 * alone, none of srt's code: it connects to 127.0.0.1:PORT, sends REQUEST
 * (with \r, \n and \xHH written as escapes, so a shell can pass any byte),
 * shuts its sending side when asked (-s), and copies what comes back to
 * stdout until the proxy closes the connection or 10 s pass.
 *
 *   proxy-client.exe [-s] PORT REQUEST
 *
 * Exit status: 0 when the connection was made and the request sent, 1
 * otherwise (the reason on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape s into out (at most cap bytes): its length, or -1. */
static int unescape(const char *s, char *out, int cap)
{
	int n = 0;

	while (*s) {
		int c = (unsigned char)*s++;

		if (c == '\\' && *s) {
			c = (unsigned char)*s++;
			if (c == 'r')
				c = '\r';
			else if (c == 'n')
				c = '\n';
			else if (c == 'x' && hex(s[0]) >= 0 && hex(s[1]) >= 0) {
				c = hex(s[0]) * 16 + hex(s[1]);
				s += 2;
			}
		}
		if (n >= cap)
			return -1;
		out[n++] = (char)c;
	}
	return n;
}

int main(int argc, char **argv)
{
	static char req[65536];
	struct sockaddr_in a = { .sin_family = AF_INET };
	int shut = 0, n, off = 0, port;
	DWORD tmo = 10000;
	WSADATA wd;
	SOCKET s;
	char buf[4096];

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		shut = 1;
		argv++;
		argc--;
	}
	if (argc != 3 || (port = atoi(argv[1])) <= 0 || port > 65535 ||
	    (n = unescape(argv[2], req, sizeof(req))) < 0) {
		fprintf(stderr, "usage: proxy-client.exe [-s] PORT REQUEST\n");
		return 1;
	}
	if (WSAStartup(MAKEWORD(2, 2), &wd) != 0) {
		fprintf(stderr, "proxy-client: WSAStartup failed\n");
		return 1;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons((u_short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s == INVALID_SOCKET || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "proxy-client: cannot connect to 127.0.0.1:%d (WSA error %d)\n", port,
			WSAGetLastError());
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tmo, sizeof(tmo));
	while (off < n) {
		int w = send(s, req + off, n - off, 0);

		if (w <= 0) {
			fprintf(stderr, "proxy-client: send failed (WSA error %d)\n", WSAGetLastError());
			return 1;
		}
		off += w;
	}
	if (shut)
		shutdown(s, SD_SEND);
	while ((n = recv(s, buf, sizeof(buf), 0)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
	closesocket(s);
	WSACleanup();
	return 0;
}
