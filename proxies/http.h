/* HTTP/1.x message heads for the proxy: a strict parser (anything
 * ambiguous is an error, never a guess), the request analysis that decides
 * what is authorised (the request-line authority), the rewritten head sent
 * upstream, and the chunked-body framing scanner. Pure functions on
 * caller-owned buffers; no I/O. */
#ifndef SRT_PROXY_HTTP_H
#define SRT_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRT_HTTP_MAX_HEAD (64 * 1024)
#define SRT_HTTP_MAX_HEADERS 128

enum {
	SRT_HTTP_NEED_MORE = 0,
	SRT_HTTP_BAD = -1,     /* malformed: 400 */
	SRT_HTTP_TOO_BIG = -2, /* head over SRT_HTTP_MAX_HEAD or too many headers: 431 */
};

struct srt__http_header {
	const char *name;
	size_t name_len;
	const char *value; /* leading/trailing whitespace trimmed */
	size_t value_len;
};

struct srt__http_head {
	/* request line, or status line of a response */
	const char *method;  /* request */
	size_t method_len;
	const char *target;  /* request */
	size_t target_len;
	int status;          /* response */
	const char *reason;  /* response */
	size_t reason_len;
	int minor;           /* HTTP/1.<minor>, 0 or 1 */
	struct srt__http_header h[SRT_HTTP_MAX_HEADERS];
	size_t n;
};

/* Parse a head at the start of buf. Returns its length including the final
 * CRLF CRLF (> 0), SRT_HTTP_NEED_MORE, SRT_HTTP_BAD or SRT_HTTP_TOO_BIG.
 * Strict: CRLF line ends only, no obsolete line folding, no whitespace
 * before the colon, token characters in names and methods, no control
 * characters in values. Pointers in h point into buf. */
int srt__http_parse_request(const char *buf, size_t len, struct srt__http_head *h);
int srt__http_parse_response(const char *buf, size_t len, struct srt__http_head *h);

/* Case-insensitive (ASCII) header name comparison. Inline: every request
 * and response head compares each of its lines against several names, and
 * with the name a literal the compiler folds its length, so most lines are
 * rejected on their length alone. */
static inline bool srt__http_name_is(const struct srt__http_header *hd, const char *name)
{
	size_t n = __builtin_strlen(name);

	if (n != hd->name_len)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char a = (unsigned char)hd->name[i], b = (unsigned char)name[i];

		if (a >= 'A' && a <= 'Z')
			a = (unsigned char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (unsigned char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return true;
}

enum srt__http_body {
	SRT_BODY_NONE,
	SRT_BODY_LENGTH,
	SRT_BODY_CHUNKED,
	SRT_BODY_EOF, /* responses only: until the upstream closes */
};

struct srt__http_request {
	bool is_connect;
	char host[256];   /* target host as spelled (brackets removed) */
	int port;
	const char *origin_target; /* path+query to send upstream (points into the head) */
	size_t origin_target_len;
	enum srt__http_body body;
	uint64_t length;
	bool keep_alive;   /* the client wants the connection kept */
	bool has_host;     /* a Host header was present */
	bool expect_continue;
	/* the client asks to switch to WebSocket (HTTP/1.1, Connection:
	 * upgrade and Upgrade lines naming websocket only): the upstream head
	 * carries both, and a 101 answer turns the connection into a two-way
	 * relay; any other Upgrade is dropped (http.c says why) */
	bool upgrade;
	const char *auth;  /* Proxy-Authorization value or NULL */
	size_t auth_len;
};

/* Why a request is refused: the status and the text for the client. */
struct srt__http_refusal {
	int status;
	const char *reason; /* status-line phrase / body */
};

/* Analyse a parsed request head: the target authority (CONNECT
 * authority-form or http:// absolute-form), the Host header agreement, the
 * body framing (Content-Length together with Transfer-Encoding is refused:
 * request smuggling), keep-alive. Returns 0, or -1 with *why filled. */
int srt__http_analyze_request(const struct srt__http_head *h,
			      struct srt__http_request *r,
			      struct srt__http_refusal *why);

/* Write the head to send upstream for a plain-HTTP request: origin-form
 * target (absolute-form when `proxy_auth` is not NULL: the next hop is a
 * proxy, and a non-empty proxy_auth is sent as its Proxy-Authorization),
 * Host rebuilt from the canonical host, hop-by-hop headers and the headers
 * named by Connection removed, the framing header re-emitted alone; an
 * upgrade request (r->upgrade) keeps its Upgrade lines, with
 * "Connection: Upgrade".
 * Returns the length, or 0 when `cap` is too small. */
size_t srt__http_build_upstream(const struct srt__http_head *h,
				const struct srt__http_request *r,
				const char *canon_host, const char *proxy_auth,
				char *out, size_t cap);

/* The normalised form of an origin-form target (path, then "?query"
 * unchanged): "\" read as "/", leading slashes as one, "." and ".."
 * segments (any spelling with %2e) resolved as RFC 3986 removes dot
 * segments. Never longer than the input: returns the length written to
 * out, or 0 when cap < n. A target that is not a path ("*", "?x") is
 * copied as it is. */
size_t srt__http_target_normalize(const char *t, size_t n, char *out, size_t cap);

/* The target reads two ways: its normalised form differs. */
bool srt__http_target_ambiguous(const char *t, size_t n);

struct srt__http_response {
	int status;
	enum srt__http_body body;
	uint64_t length;
	bool upstream_close; /* the upstream will not take another request */
	bool upgrade;        /* a 101 naming WebSocket, and it only (Upgrade header) */
};

/* Analyse a response head to a request (`head_request`: the request was
 * HEAD, so no body follows). Returns 0, or -1 when the framing is invalid
 * or ambiguous. */
int srt__http_analyze_response(const struct srt__http_head *h, bool head_request,
			       struct srt__http_response *r);

/* The response head for the client: hop-by-hop headers and the names in
 * `strip` (stripResponseHeaders: case-insensitive, '-', '_' and '.' fold
 * together) removed, framing re-emitted, "Connection: close" when `close`
 * is set; a 101 with r->upgrade keeps its Upgrade lines, with
 * "Connection: Upgrade". Returns the length or 0 when `cap` is too small. */
size_t srt__http_build_downstream(const struct srt__http_head *h,
				  const struct srt__http_response *r, bool close,
				  char *const *strip, size_t n_strip,
				  char *out, size_t cap);

/* Header names equal under the stripResponseHeaders folding. */
bool srt__http_name_folds(const char *a, size_t alen, const char *b);

/* The chunked framing scanner: finds where a chunked body ends so the next
 * message on the connection is parsed on its own. Bytes pass through
 * unchanged. */
struct srt__chunked {
	int state;
	uint64_t remaining;
	size_t line; /* bytes on the current size/extension/trailer line */
	size_t trailer;
};

void srt__chunked_init(struct srt__chunked *c);
/* Scan up to len bytes. Returns the number of bytes that belong to the
 * body (<= len; fewer only when the body ended), or -1 on a framing error.
 * *done is set when the last byte of the body was consumed. While in the
 * middle of chunk data, srt__chunked_data_left() tells how many bytes can
 * be moved without scanning. */
long srt__chunked_feed(struct srt__chunked *c, const char *buf, size_t len,
		       bool *done);
uint64_t srt__chunked_data_left(const struct srt__chunked *c);
/* Account for n bytes of chunk data moved without scanning. */
void srt__chunked_skip(struct srt__chunked *c, uint64_t n);

#endif
