/* The server name (SNI) of a TLS ClientHello, read from the first bytes a
 * client sends into a tunnel, so a CONNECT to an allowed host cannot name
 * another host inside TLS (domain fronting). Pure; no I/O. */
#ifndef SRT_PROXY_SNI_H
#define SRT_PROXY_SNI_H

#include <stddef.h>
#include <stdint.h>

/* Largest prefix we buffer to find the ClientHello (its records). */
#define SRT_SNI_PEEK_MAX (16 * 1024 + 512)

enum {
	SRT_SNI_FOUND = 1,      /* name written to out */
	SRT_SNI_NONE = 0,       /* a complete ClientHello without a server name */
	SRT_SNI_MORE = -1,      /* a ClientHello has begun; more bytes needed */
	SRT_SNI_NOT_TLS = -2,   /* the stream does not start with a handshake record */
	SRT_SNI_MALFORMED = -3, /* starts like TLS but is not a valid ClientHello */
};

/* Look for the ClientHello in buf (handshake fragments may span several
 * records). out gets the host name, lower-cased, NUL-terminated. */
int srt__sni_find(const uint8_t *buf, size_t len, char *out, size_t cap);

#endif
