/* SOCKS5 wire formats. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "proxies/socks.h"

int srt__socks_parse_greeting(const uint8_t *b, size_t n, uint32_t *offers)
{
	size_t nm;

	if (n < 1)
		return 0;
	if (b[0] != 5)
		return -1;
	if (n < 2)
		return 0;
	nm = b[1];
	if (nm == 0)
		return -1;
	if (n < 2 + nm)
		return 0;
	*offers = 0;
	for (size_t i = 0; i < nm; i++)
		if (b[2 + i] < 32)
			*offers |= 1u << b[2 + i];
	return (int)(2 + nm);
}

int srt__socks_parse_auth(const uint8_t *b, size_t n, const char **user,
			  size_t *ulen, const char **pass, size_t *plen)
{
	size_t ul, pl;

	if (n < 1)
		return 0;
	if (b[0] != 1)
		return -1;
	if (n < 2)
		return 0;
	ul = b[1];
	if (n < 3 + ul)
		return 0;
	pl = b[2 + ul];
	if (n < 3 + ul + pl)
		return 0;
	*user = (const char *)b + 2;
	*ulen = ul;
	*pass = (const char *)b + 3 + ul;
	*plen = pl;
	return (int)(3 + ul + pl);
}

int srt__socks_parse_request(const uint8_t *b, size_t n,
			     struct srt__socks_request *r, int *bad_atyp)
{
	size_t need;

	*bad_atyp = 0;
	if (n < 4)
		return 0;
	if (b[0] != 5 || b[2] != 0)
		return -1;
	r->cmd = b[1];
	r->atyp = b[3];
	switch (b[3]) {
	case 1:
		need = 4 + 4 + 2;
		if (n < need)
			return 0;
		snprintf(r->host, sizeof(r->host), "%u.%u.%u.%u", b[4], b[5], b[6], b[7]);
		break;
	case 3:
		if (n < 5)
			return 0;
		need = 5 + (size_t)b[4] + 2;
		if (n < need)
			return 0;
		if (b[4] == 0 || memchr(b + 5, 0, b[4]))
			return -1;
		memcpy(r->host, b + 5, b[4]);
		r->host[b[4]] = '\0';
		break;
	case 4:
		need = 4 + 16 + 2;
		if (n < need)
			return 0;
		snprintf(r->host, sizeof(r->host),
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
			 b[14], b[15], b[16], b[17], b[18], b[19]);
		break;
	default:
		*bad_atyp = 1;
		return -1;
	}
	r->port = b[need - 2] << 8 | b[need - 1];
	return (int)need;
}

void srt__socks_reply(uint8_t out[10], int rep)
{
	memset(out, 0, 10);
	out[0] = 5;
	out[1] = (uint8_t)rep;
	out[3] = 1;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

size_t srt__ssh_refusal(const char *desc, uint8_t *out, size_t cap)
{
	static const char ident[] = "SSH-2.0-policy_refusal\r\n";
	char d[1001];
	size_t dl = 0, payload, pad, plen, o;
	int in_ctl = 0;

	/* C0, DEL and C1 runs become one space (C1 as UTF-8 is C2 80..9F) */
	for (const unsigned char *s = (const unsigned char *)desc; *s && dl < 1000; s++) {
		int ctl = *s < 0x20 || *s == 0x7f;
		if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
			ctl = 1;
			s++;
		}
		if (ctl) {
			if (!in_ctl)
				d[dl++] = ' ';
			in_ctl = 1;
			continue;
		}
		in_ctl = 0;
		d[dl++] = (char)*s;
	}
	d[dl] = '\0';
	/* byte msg, uint32 reason, string desc, string lang */
	payload = 1 + 4 + 4 + dl + 4;
	pad = 8 - (4 + 1 + payload) % 8;
	if (pad < 4)
		pad += 8;
	plen = 1 + payload + pad;
	if (cap < sizeof(ident) - 1 + 4 + plen)
		return 0;
	memcpy(out, ident, sizeof(ident) - 1);
	o = sizeof(ident) - 1;
	put32(out + o, (uint32_t)plen);
	o += 4;
	out[o++] = (uint8_t)pad;
	out[o++] = 1; /* SSH_MSG_DISCONNECT */
	put32(out + o, 1);
	o += 4;
	put32(out + o, (uint32_t)dl);
	o += 4;
	memcpy(out + o, d, dl);
	o += dl;
	put32(out + o, 0);
	o += 4;
	memset(out + o, 0, pad);
	o += pad;
	return o;
}
