/* srt: the request-filter module ABI.
 *
 * A request filter is a libtool module (installed as <filterdir>/<name>.so,
 * `pkg-config --variable=filterdir srt`) exporting exactly one const data
 * symbol, `srt_filter_entry`, a struct srt_filter whose first member is the
 * module header of <srt/module.h> with magic SRT_FILTER_MAGIC. The loader
 * checks the header before it reads anything else: the magic, the ABI major
 * (equal to SRT_FILTER_ABI_MAJOR), the minor (<= ours) and the size. On a
 * mismatch it names the file and both versions, closes the module and never
 * calls into it.
 *
 * Where filters run. The filtering proxy first applies the domain lists
 * (allowedDomains, deniedDomains, the resolved-address guard); a request
 * those refuse never reaches a filter, and no verdict of a filter can let
 * through what they refused: filters only narrow. Then the filters of
 * network.filters run in the order the settings list them, followed by the
 * library callback of srt_sandbox_set_request_filter() when one is set.
 * Each hook answers a verdict:
 *
 *   SRT_FILTER_CONTINUE  no objection; the next filter decides. When every
 *                        filter continues, the request goes ahead.
 *   SRT_FILTER_ALLOW     the request goes ahead; later filters are not
 *                        asked (their finish hook still runs).
 *   SRT_FILTER_DENY      refused: call->status (400-599) and call->reason
 *                        are sent to the client and recorded as a violation
 *                        naming the filter.
 *   SRT_FILTER_PENDING   the filter must wait (for a process, a socket):
 *                        it keeps `call` and later calls
 *                        call->complete(call, verdict) exactly once, from
 *                        any thread. The proxy's event loop never blocks on
 *                        it; a call not completed within the chain's
 *                        per-request timeout is denied (503) naming the
 *                        filter, and its late completion is ignored.
 *                        The filter must not touch the request (its
 *                        headers) from another thread; a filter whose
 *                        late answer edits headers does so in its
 *                        completed hook (ABI 1.2), which the proxy's
 *                        thread calls before it acts on the completion.
 *   SRT_FILTER_ERROR     the filter failed (call->reason says how): the
 *                        request is denied (fail closed) with 502, naming
 *                        the filter.
 *
 * Any other value, a DENY whose status is outside 400-599, or a completion
 * with PENDING counts as ERROR. Hooks are called on the proxy's thread, one
 * at a time per chain; a filter's state needs no lock unless the filter
 * completes calls from a thread of its own.
 *
 * Headers. A request's or response's headers are read and changed only
 * through struct srt_filter_headers, which the proxy implements. The
 * framing headers (Host, Content-Length, Transfer-Encoding, Connection,
 * Upgrade, TE, Trailer, Keep-Alive, Proxy-Connection) can be read but
 * never set or removed: set() and remove() answer SRT_E_INVAL for them, as
 * for a name that is not an HTTP token or a value holding CR, LF or NUL.
 *
 * Rules for changing this file: never reorder anything. Adding a slot at
 * the end of struct srt_filter, or a field at the end of a struct the core
 * allocates (srt_filter_conn, srt_filter_request, srt_filter_response,
 * srt_filter_call, srt_filter_host, srt_filter_summary), bumps the minor;
 * changing or removing anything bumps the major. A module built for an
 * older minor declares a shorter struct srt_filter (its `size`): it must
 * cover the mandatory slots (create and destroy); every slot after them is
 * optional, read by the core only when it lies inside that size and is
 * non-NULL, so a slot the module was built without reads as absent. Every
 * struct the core hands a module starts with its own size, so a module of
 * a newer minor can tell which fields an older core filled.
 *
 * History: 1.0 hdr .. finish; 1.1 cancel; 1.2 completed; 1.3 rewrite_body
 * (with srt_filter_call.rewrite and struct srt_filter_sink). */
#ifndef SRT_FILTER_H
#define SRT_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <srt/error.h>
#include <srt/module.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SRT_FILTER_ABI_MAJOR 1
#define SRT_FILTER_ABI_MINOR 3

enum srt_filter_verdict {
	SRT_FILTER_CONTINUE = 0,
	SRT_FILTER_ALLOW = 1,
	SRT_FILTER_DENY = 2,
	SRT_FILTER_PENDING = 3,
	SRT_FILTER_ERROR = 4,
};

/* Longest reason kept (bytes, with the NUL); longer ones are cut. */
#define SRT_FILTER_REASON_MAX 256
/* Most request-body bytes any filter can ask for (call->body_cap). */
#define SRT_FILTER_BODY_MAX (16u * 1024 * 1024)

/* Headers of one request or response, implemented by the proxy. Names
 * compare case-insensitively. Strings handed out stay valid until the next
 * set() or remove() on the same headers, or the end of the hook. */
struct srt_filter_headers {
	size_t size; /* sizeof this struct as the core built it */
	/* Number of header lines. */
	size_t (*count)(const struct srt_filter_headers *h);
	/* The i-th line (0-based) in wire order: SRT_OK, or SRT_E_INVAL
	 * past the end. */
	int (*at)(const struct srt_filter_headers *h, size_t i, const char **name,
		  const char **value);
	/* The value of the first line named `name`, or NULL. */
	const char *(*get)(const struct srt_filter_headers *h, const char *name);
	/* Remove every line named `name`: SRT_OK (also when there was none),
	 * SRT_E_INVAL for a framing header or a name that is not a token. */
	int (*remove)(struct srt_filter_headers *h, const char *name);
	/* Replace every line named `name` by one `name: value`: SRT_OK,
	 * SRT_E_INVAL (framing header, bad name, CR/LF/NUL in the value),
	 * SRT_E_LIMIT (the head would grow past the proxy's limit),
	 * SRT_E_NOMEM. */
	int (*set)(struct srt_filter_headers *h, const char *name, const char *value);
	void *impl; /* the proxy's */
};

/* ABI 1.3: how a filter that rewrites a request body says what its
 * rewriting does to the body's length (srt_filter_call.rewrite). */
enum srt_filter_rewrite {
	SRT_FILTER_REWRITE_NONE = 0,
	/* every byte in gives exactly one byte out over the whole body: a
	 * Content-Length the client sent stays true and is kept */
	SRT_FILTER_REWRITE_SAME_LENGTH = 1,
	/* the length may change: the proxy sends the body chunked (the
	 * Content-Length header is replaced by Transfer-Encoding: chunked) */
	SRT_FILTER_REWRITE_ANY_LENGTH = 2,
};

/* ABI 1.3: where a body-rewriting filter writes what replaces the bytes
 * it was given (implemented by the proxy). write() answers SRT_OK or a
 * negative srt_err (the request then fails). */
struct srt_filter_sink {
	size_t size;
	int (*write)(struct srt_filter_sink *sink, const void *p, size_t n);
	void *impl; /* the proxy's */
};

/* One connection through the proxy (the connection hook), also reachable
 * from each request made on it. Borrowed for the hook. */
struct srt_filter_conn {
	size_t size;
	const char *host;       /* the target as the client named it, lower case
				 * (a name or an address literal) */
	uint16_t port;
	const char *sni;        /* the TLS ClientHello's server name, or NULL */
	const char *scheme;     /* "http" (plain request), "https" (terminated
				 * TLS), "connect" (opaque CONNECT tunnel),
				 * "socks" (opaque SOCKS5 stream) */
	const char *command_id; /* the command the connection is attributed to,
				 * or NULL */
	uint64_t id;            /* the proxy's connection number */
};

/* One HTTP request head (the request-head and request-body hooks). The
 * URL is the authorised one: absolute ("http://host:port/path?query"),
 * fragment cut, the request target already checked or normalised as
 * network.ambiguousRequestTarget says. Borrowed for the hook. */
struct srt_filter_request {
	size_t size;
	const struct srt_filter_conn *conn;
	const char *method;   /* as sent, e.g. "GET" */
	const char *url;
	const char *host;     /* the URL's host, lower case */
	uint16_t port;
	const char *path;     /* the URL's path and query, starting with '/' */
	long long content_length; /* declared body length; -1: chunked or none known */
	struct srt_filter_headers *headers;
	uint64_t id;          /* the proxy's request number */
};

/* One response head (the response-head hook). Borrowed for the hook. */
struct srt_filter_response {
	size_t size;
	const struct srt_filter_request *request;
	int status;
	struct srt_filter_headers *headers; /* remove() strips a header */
};

/* One hook call: how the filter answers. The core allocates and zeroes
 * it; the filter writes status and reason before it returns DENY or ERROR
 * (or before it completes a pending call with one of those). */
struct srt_filter_call {
	size_t size;
	int status;                          /* DENY: 400-599 */
	char reason[SRT_FILTER_REASON_MAX];  /* DENY, ERROR: one line, shown to
					      * the client and recorded */
	/* Request-head hook only: set to the number of body bytes the filter
	 * wants to see (<= SRT_FILTER_BODY_MAX) before it decides; its
	 * verdict must then be CONTINUE, and the body hook decides. A
	 * pending request-head call may set it too, before it completes
	 * with CONTINUE (a decider that asks for the body once it has seen
	 * the head). The proxy holds the body back until every filter that
	 * asked has decided. */
	size_t body_cap;
	/* One pointer per filter and request, NULL at first, the same in
	 * every hook of that request (and of the connection hook on its own);
	 * the filter frees what it keeps there in its finish hook. */
	void **data;
	/* Finish a PENDING call: verdict is CONTINUE, ALLOW, DENY or ERROR.
	 * Exactly once per PENDING, from any thread; `call` must not be
	 * touched afterwards. Never called for a hook that did not answer
	 * PENDING. */
	void (*complete)(struct srt_filter_call *call, enum srt_filter_verdict verdict);
	void *priv; /* the core's */
	/* ABI 1.3. Request-head hook only, answered at once (not PENDING)
	 * with CONTINUE or ALLOW: an enum srt_filter_rewrite other than NONE
	 * asks that the request body (its content, any chunked coding
	 * removed) reach the upstream through the filter's rewrite_body
	 * hook. At most one filter of a chain may ask per request (a second
	 * is an ERROR); a filter without that hook that asks is an ERROR. */
	int rewrite;
};

/* What the core offers a filter for its whole life (create .. destroy). */
struct srt_filter_host {
	size_t size;
	const char *name;     /* the plugin as network.filters spells it */
	unsigned index;       /* its position in network.filters */
	unsigned timeout_ms;  /* the chain's per-request timeout */
	/* A line for srt's log (warnings; debug lines when is_debug). Any
	 * thread. */
	void (*log)(const struct srt_filter_host *host, int is_debug, const char *line);
	void *priv; /* the core's */
};

/* How a request ended, for the finish hook (audit). */
struct srt_filter_summary {
	size_t size;
	enum srt_filter_verdict verdict; /* ALLOW (went ahead) or DENY */
	const char *decided_by;          /* the filter that allowed or denied,
					  * NULL when every filter continued */
	int status;                      /* the status the client got; 0 unknown
					  * (no response head, e.g. a tunnel) */
	const char *reason;              /* DENY: the reason; else NULL */
	uint64_t bytes_up;               /* client -> upstream (body or stream) */
	uint64_t bytes_down;             /* upstream -> client */
	long long start_ms;              /* wall clock, ms since the epoch */
	long long duration_ms;
};

/* Why create() failed: `path` is the key path inside the plugin's config
 * (e.g. "rules[2].methods", "" for the config itself) and `message` one
 * line. The core prints "network.filters[N].config.<path>: <message>". */
struct srt_filter_error {
	char path[128];
	char message[256];
};

/* The library's request filter (srt_sandbox_set_request_filter()): the
 * same contract as a module's request-head hook, after the modules. */
typedef enum srt_filter_verdict (*srt_request_filter_fn)(void *ctx,
							 struct srt_filter_request *req,
							 struct srt_filter_call *call);

/* The header every filter module's srt_filter_entry starts with, built for
 * the ABI of the filter.h it was compiled against:
 *   const struct srt_filter srt_filter_entry = {
 *           .hdr = SRT_FILTER_HEADER("my-filter"), .create = ..., ... }; */
#define SRT_FILTER_HEADER(filter_name)                  \
	{                                               \
		.magic = SRT_FILTER_MAGIC,              \
		.abi_major = SRT_FILTER_ABI_MAJOR,      \
		.abi_minor = SRT_FILTER_ABI_MINOR,      \
		.size = sizeof(struct srt_filter),      \
		.name = (filter_name),                  \
	}

struct srt_filter {
	struct srt_module_header hdr;

	/* Build the filter's state from its configuration: `config_json` is
	 * the settings entry's "config" as compact JSON text, or NULL when
	 * the entry has none. On failure fill *err and return a negative
	 * srt_err; the filter is then never called again. `host` lives until
	 * destroy(). Mandatory. */
	int (*create)(const struct srt_filter_host *host, const char *config_json,
		      void **state, struct srt_filter_error *err);

	/* Free the state. A call still PENDING must be completed (with ERROR)
	 * before destroy() returns. NULL-safe on state. Mandatory. */
	void (*destroy)(void *state);

	/* A new connection, before any byte reaches the target: the only
	 * hook an opaque tunnel (CONNECT, SOCKS5) meets. Optional. */
	enum srt_filter_verdict (*connection)(void *state, const struct srt_filter_conn *conn,
					      struct srt_filter_call *call);

	/* A request head, before anything is sent upstream. May change
	 * headers (not the framing ones). Optional. */
	enum srt_filter_verdict (*request_head)(void *state, struct srt_filter_request *req,
						struct srt_filter_call *call);

	/* The request body for a filter that set call->body_cap in its
	 * request-head hook (its content: a chunked transfer coding already
	 * removed by the proxy): the chunks in order, `len` > 0 each, then one
	 * call with `end` set (len may be 0). `truncated` is set on that last
	 * call when the body was longer than body_cap (the filter saw only
	 * body_cap bytes). CONTINUE before the end asks for more; at the end
	 * it means no objection. Optional (a filter without it that sets
	 * body_cap is an error). */
	enum srt_filter_verdict (*request_body)(void *state, struct srt_filter_request *req,
						const void *chunk, size_t len, int end,
						int truncated, struct srt_filter_call *call);

	/* A response head, before it reaches the client: may remove or set
	 * headers (not the framing ones). DENY replaces the response by the
	 * denial. Synchronous: PENDING counts as ERROR. Optional. */
	enum srt_filter_verdict (*response_head)(void *state, struct srt_filter_response *resp,
						 struct srt_filter_call *call);

	/* The request (or, with req NULL, the opaque connection) is over:
	 * how it ended. Called for every filter of the chain, also those the
	 * chain never asked (an earlier filter decided), so an audit filter
	 * sees every request. `data` is the filter's per-request pointer
	 * (see srt_filter_call.data). Optional. */
	void (*finish)(void *state, const struct srt_filter_conn *conn,
		       const struct srt_filter_request *req,
		       const struct srt_filter_summary *summary, void **data);

	/* ABI 1.1. A call this filter answered PENDING is no longer wanted:
	 * its request ended or timed out. The filter may drop the work (stop
	 * waiting for its decider) but must still complete the call, which
	 * is what frees it; the verdict is ignored. Optional. */
	void (*cancel)(void *state, struct srt_filter_call *call);

	/* ABI 1.2. A request-head or request-body call this filter answered
	 * PENDING was completed with CONTINUE or ALLOW. Called on the proxy's
	 * thread before the chain acts on that verdict, with the request,
	 * whose headers may be changed here under the same rules as in the
	 * request-head hook (the framing headers stay the client's), and the
	 * call as the completion left it (body_cap included). Answers the
	 * verdict the chain acts on: normally `verdict`; DENY or ERROR, with
	 * call->status and call->reason, when an edit the filter decided on
	 * cannot be applied, so a request never goes without the edits its
	 * filter asked for. PENDING counts as ERROR. Optional: without it the
	 * completion's verdict stands. */
	enum srt_filter_verdict (*completed)(void *state, struct srt_filter_request *req,
					     enum srt_filter_verdict verdict,
					     struct srt_filter_call *call);

	/* ABI 1.3. The body of a request whose head hook set call->rewrite:
	 * the content as it streams from the client, `len` > 0 each call,
	 * then one call with `end` set (len may be 0), after the chain
	 * allowed the request. The filter writes its replacement to `out`
	 * (it may hold bytes back across calls and must write the rest when
	 * `end` is set); under SRT_FILTER_REWRITE_SAME_LENGTH the total
	 * written must equal the total given. `data` is the filter's
	 * per-request pointer. SRT_OK, or a negative srt_err: the proxy then
	 * closes the request without sending the rest (the upstream sees a
	 * short body, never unrewritten bytes). Optional. */
	int (*rewrite_body)(void *state, struct srt_filter_request *req, const void *chunk,
			    size_t len, int end, struct srt_filter_sink *out, void **data);
};

#ifdef __cplusplus
}
#endif
#endif
