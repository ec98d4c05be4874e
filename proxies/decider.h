/* The external decider protocol, version 1: a long-running program that
 * decides each HTTP request the proxy sees, written in any language.
 *
 * Framing: a 4-byte big-endian length, then exactly that many bytes of one
 * UTF-8 JSON object whose field "t" names the message. Everything the
 * decider sends is hostile: frames are capped (SRT__DECIDER_FRAME_MAX), the
 * JSON is parsed strictly (invalid UTF-8, a lone surrogate, a non-object,
 * null anywhere, a duplicate key, nesting deeper than 16 are violations),
 * and each message is checked field by field. A violation or the decider's
 * end of file kills the link: every pending request then gets the verdict
 * SRT__DV_UNAVAILABLE (the proxy answers 503), and so does every later one.
 *
 *   proxy   -> decider  {"t":"hello","proto":1}             (sent at once)
 *   decider -> proxy    {"t":"hello","proto":1,"allowedDomains":[...],
 *                        "deniedDomains":[...]}
 *   proxy   -> decider  {"t":"req","id":N,"method":...,"host":...,"port":...,
 *                        "hostHeader"?,"sni"?,"path":...,"query"?,
 *                        "headers"?:{"lower-case-name":["v",...]}}
 *   decider -> proxy    {"t":"verdict","id":N,"action":"allow",
 *                        "setHeaders"?:{name:[values]},"removeHeaders"?:[names],
 *                        "cred"?:"class","credential"?:"secret"}
 *                       {"t":"verdict","id":N,"action":"deny","status":400..599,
 *                        "reason"?:"..."}
 *                       {"t":"verdict","id":N,"action":"need_body","max":1..32 MiB}
 *   proxy   -> decider  {"t":"body","id":N,"data":"<base64>","cut"?:true}
 *
 * The proxy gives each verdict SRT__DECIDER_VERDICT_MS; past it the request
 * is answered 503 and a late verdict for its id is dropped. */
#ifndef SRT_PROXY_DECIDER_H
#define SRT_PROXY_DECIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRT__DECIDER_FRAME_MAX (1u << 20)     /* one frame, either way */
#define SRT__DECIDER_VERDICT_MS 5000          /* per verdict */
#define SRT__DECIDER_BODY_MAX (32u << 20)     /* need_body "max" */
#define SRT__DECIDER_REASON_MAX 1024          /* deny "reason", bytes */
#define SRT__DECIDER_CREDENTIAL_MAX 8192      /* "credential", bytes */
#define SRT__DECIDER_REQ_VALUES_MAX 190       /* header values in one req */
#define SRT__DECIDER_REQ_HEADER_BYTES (64u << 10) /* names + values */
#define SRT__DECIDER_REQ_FIELD_MAX (8u << 10) /* host, hostHeader, sni, path */
#define SRT__DECIDER_OUT_MAX (117u << 20)     /* unread output: decider dead */
#define SRT__DECIDER_LATE_WINDOW 4096         /* late verdicts tolerated */

/* ---- framing ---------------------------------------------------------- */

/* A complete frame at the start of buf? Returns 4 + length (the payload is
 * buf + 4, length bytes), 0 when more bytes are needed, -1 when the length
 * announced is 0 or over SRT__DECIDER_FRAME_MAX. */
long srt__decider_frame(const uint8_t *buf, size_t n);

/* ---- messages from the decider ------------------------------------------ */

enum srt__decider_action {
	SRT__DV_ALLOW = 1,
	SRT__DV_DENY,
	SRT__DV_NEED_BODY,
	SRT__DV_UNAVAILABLE, /* made by the proxy: timeout or dead link */
};

struct srt__decider_header {
	char *name;  /* lower-case */
	char *value;
};

struct srt__decider_verdict {
	uint64_t id;
	enum srt__decider_action action;
	int status;                        /* deny: 400..599; unavailable: 503 */
	char *reason;                      /* deny (optional), unavailable */
	uint64_t max;                      /* need_body */
	struct srt__decider_header *set;   /* allow: setHeaders, one per value */
	size_t nset;
	char **remove;                     /* allow: removeHeaders, lower-case */
	size_t nremove;
	char *cred;                        /* allow: both or neither */
	char *credential;
};

struct srt__decider_hello {
	char **allowed;
	size_t nallowed;
	char **denied;
	size_t ndenied;
};

enum srt__decider_msg_type { SRT__DM_HELLO = 1, SRT__DM_VERDICT };

struct srt__decider_msg {
	enum srt__decider_msg_type type;
	struct srt__decider_hello hello;
	struct srt__decider_verdict verdict;
};

/* Parse one frame's payload. 0 and *out filled (release it with
 * srt__decider_msg_release), or -1 with the violation named in why. */
int srt__decider_parse(const uint8_t *p, size_t n, struct srt__decider_msg *out,
		       char *why, size_t cap);
void srt__decider_msg_release(struct srt__decider_msg *m);
void srt__decider_verdict_release(struct srt__decider_verdict *v);

/* An egress entry of the hello's lists: an IP literal, a lower-case DNS
 * name (labels of letters, digits and inner hyphens, at most 63 bytes, the
 * whole at most 253, the last label starting with a letter) or "*." and
 * at least two such labels; optionally ":port" (1..65535, no leading
 * zero), bracketed when the host is an IPv6 literal. */
bool srt__decider_entry_valid(const char *s);

/* A header name the decider may neither set nor remove (the framing
 * headers), or set only through "cred" (the credential headers). Names
 * are compared folded: case, and '-', '_', '.' alike. */
bool srt__decider_framing_header(const char *name);
bool srt__decider_credential_header(const char *name);

/* ---- messages to the decider ------------------------------------------- */

/* A request header as received (borrowed). */
struct srt__decider_field {
	const char *name;
	const char *value;
};

struct srt__decider_req {
	const char *method;
	const char *host;        /* canonical */
	int port;
	const char *host_header; /* NULL: none */
	const char *sni;         /* NULL: none */
	const char *path;        /* as spelled */
	const char *query;       /* without '?', NULL: none */
	const struct srt__decider_field *headers; /* Host is left out */
	size_t nheaders;
};

/* Append a whole frame to *buf (malloc'd, grown; *len and *cap track it).
 * 0, or -1 with why: a field over its limit, a string that is not UTF-8,
 * a frame over SRT__DECIDER_FRAME_MAX (the request is refused 400 without
 * asking) or out of memory. */
int srt__decider_build_hello(uint8_t **buf, size_t *len, size_t *cap);
int srt__decider_build_req(uint8_t **buf, size_t *len, size_t *cap, uint64_t id,
			   const struct srt__decider_req *r, char *why, size_t whycap);
int srt__decider_build_body(uint8_t **buf, size_t *len, size_t *cap, uint64_t id,
			    const uint8_t *data, size_t n, bool cut);

/* ---- the link ----------------------------------------------------------- */

struct srt__decider;

/* A request's verdict, called once per request for allow, deny and
 * unavailable (the request is then forgotten), and once more before that
 * for need_body (answer it with srt__decider_body). v and its strings are
 * valid during the call only. */
typedef void (*srt__decider_verdict_fn)(void *ctx, const struct srt__decider_verdict *v);

struct srt__decider_ops {
	/* the decider's hello, once; its lists are valid during the call */
	void (*hello)(void *ctx, const struct srt__decider_hello *h);
	/* the link died: why names the violation, EOF or error; after every
	 * pending request had its SRT__DV_UNAVAILABLE; the descriptors are
	 * closed by then */
	void (*dead)(void *ctx, const char *why);
};

/* Callbacks (verdicts, hello, dead) run inside the link's calls and must
 * not free the link; they may ask, cancel and send bodies. */

/* A link on in_fd / out_fd (the same descriptor for a socket), both made
 * non-blocking here and owned by the link from now on. The proxy's hello
 * is queued at once. NULL when out of memory (the descriptors are closed). */
struct srt__decider *srt__decider_new(int in_fd, int out_fd,
				      const struct srt__decider_ops *ops, void *ctx);
void srt__decider_free(struct srt__decider *d);

/* Kill the link as if the decider had died (why says why): every pending
 * request gets SRT__DV_UNAVAILABLE, the descriptors are closed. */
void srt__decider_shutdown(struct srt__decider *d, const char *why);

int srt__decider_in_fd(const struct srt__decider *d);
int srt__decider_out_fd(const struct srt__decider *d);
bool srt__decider_wants_write(const struct srt__decider *d);
bool srt__decider_ready(const struct srt__decider *d); /* hello received */
bool srt__decider_dead(const struct srt__decider *d);
const char *srt__decider_why(const struct srt__decider *d); /* NULL: alive */

/* Read what the decider sent and act on it; write what is queued. Call
 * when the descriptor is readable / writable (spurious calls are fine). */
void srt__decider_on_read(struct srt__decider *d, int64_t now_ms);
void srt__decider_on_write(struct srt__decider *d);

/* Ask for a verdict. *id gets the request's id. 0; or -1 when the request
 * cannot be put to the decider (why says so: over a limit, not UTF-8),
 * answer it 400. A dead or not yet ready link answers at once through cb
 * with SRT__DV_UNAVAILABLE, and 0 is returned. */
int srt__decider_ask(struct srt__decider *d, const struct srt__decider_req *r, int64_t now_ms,
		     srt__decider_verdict_fn cb, void *ctx, uint64_t *id, char *why, size_t cap);

/* The body the decider asked for with need_body (at most its max; cut when
 * the body was longer). Restarts the verdict's clock. -1 when id is not
 * waiting for a body. */
int srt__decider_body(struct srt__decider *d, uint64_t id, const uint8_t *data, size_t n,
		      bool cut, int64_t now_ms);

/* The client went away: forget the request without calling back; a
 * verdict arriving for it later is dropped. */
void srt__decider_cancel(struct srt__decider *d, uint64_t id);

/* Answer every request whose verdict is overdue with SRT__DV_UNAVAILABLE.
 * Returns the milliseconds until the next deadline, or -1 when none. */
int srt__decider_tick(struct srt__decider *d, int64_t now_ms);

/* Requests waiting for a verdict. */
size_t srt__decider_pending(const struct srt__decider *d);

#endif
