/* SOCKS5 (RFC 1928, RFC 1929) messages for the proxy, and the in-band SSH
 * refusal sent to an ssh client that probes without credentials. Pure functions; no I/O. Each parser
 * returns the bytes consumed (> 0), 0 when more bytes are needed, or -1
 * when the message is invalid. */
#ifndef SRT_PROXY_SOCKS_H
#define SRT_PROXY_SOCKS_H

#include <stddef.h>
#include <stdint.h>

#define SRT_SOCKS_METHOD_NONE 0x00
#define SRT_SOCKS_METHOD_USERPASS 0x02

/* Greeting: 05 n methods...; *offers gets bit (1 << method) for methods
 * 0..31 the client offers. */
int srt__socks_parse_greeting(const uint8_t *b, size_t n, uint32_t *offers);

/* RFC 1929: 01 ulen user plen pass. user/pass point into b. */
int srt__socks_parse_auth(const uint8_t *b, size_t n, const char **user,
			  size_t *ulen, const char **pass, size_t *plen);

struct srt__socks_request {
	int cmd;        /* 1 CONNECT, 2 BIND, 3 UDP ASSOCIATE */
	int atyp;       /* 1, 3 or 4 */
	char host[256]; /* dotted quad, raw domain name, or IPv6 as 8 groups */
	int port;
};

/* Request: 05 cmd 00 atyp addr port. A domain name with a NUL byte or an
 * unknown address type is invalid (-1); *bad_atyp is set for the latter
 * so the caller can answer 08. */
int srt__socks_parse_request(const uint8_t *b, size_t n,
			     struct srt__socks_request *r, int *bad_atyp);

/* 10-byte reply 05 <rep> 00 01 0.0.0.0:0 into out. */
void srt__socks_reply(uint8_t out[10], int rep);

/* The SSH identification line and an unencrypted SSH_MSG_DISCONNECT
 * (reason 1, HOST_NOT_ALLOWED_TO_CONNECT) carrying `desc` with control
 * characters collapsed and cut to 1000 characters. Returns the length or
 * 0 when cap is too small (2 KiB is always enough). */
size_t srt__ssh_refusal(const char *desc, uint8_t *out, size_t cap);

#endif
