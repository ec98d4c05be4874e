/* DNS messages for the in-sandbox answerer (dnsans.c): reading one query
 * and writing its answer. Every byte comes from the sandboxed command. */
#ifndef SRT_INIT_DNSMSG_H
#define SRT_INIT_DNSMSG_H

#include <stddef.h>
#include <stdint.h>

#define SRT_DNS_MAX_MSG 512  /* what is read of a query and written back */
#define SRT_DNS_NAME_MAX 254 /* 253 characters and the NUL */

enum {
	SRT_DNS_NOERROR = 0,
	SRT_DNS_FORMERR = 1,
	SRT_DNS_SERVFAIL = 2,
	SRT_DNS_NXDOMAIN = 3,
	SRT_DNS_NOTIMP = 4,
	SRT_DNS_REFUSED = 5,
};

#define SRT_DNS_TYPE_A 1
#define SRT_DNS_CLASS_IN 1

struct srt__dns_q {
	uint16_t id, flags;
	char name[SRT_DNS_NAME_MAX]; /* lower case, no trailing dot; "" for the root */
	uint16_t qtype, qclass;
	size_t qend; /* offset of the end of the question in the query */
};

/* Read a standard query with exactly one question (no compression in it).
 * 0; -1 when the message is no query we answer at all (too short, or a
 * response); -2 when it is malformed but has an id to answer FORMERR to
 * (q->id and q->flags are set). */
int srt__dns_parse(const uint8_t *msg, size_t n, struct srt__dns_q *q);

/* The answer to query msg (parsed into q) in out: rcode, and when a4 is
 * not NULL one A record (network order) with a TTL of ttl seconds. With
 * rc == -2 from the parser pass qend 0: the answer then carries no
 * question. Returns its length, 0 when cap is too small. */
size_t srt__dns_answer(const uint8_t *msg, const struct srt__dns_q *q, int rcode,
		       const uint32_t *a4, uint32_t ttl, uint8_t *out, size_t cap);

#endif
