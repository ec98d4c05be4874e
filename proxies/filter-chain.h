/* The request-filter chain: runs the loaded filter modules (network.filters,
 * in the settings' order) and the library's callback on connections and
 * requests the domain lists already allowed, and hands the proxy one
 * outcome: allow or deny (status, reason, the filter that decided).
 *
 * Ownership. The core builds the chain (srt__filter_chain_new, one
 * srt__filter_chain_add per loaded module, which calls the module's
 * create()), owns it, and lends it to the proxy through
 * srt__net_config.filters; the modules stay loaded until
 * srt__filter_chain_free() has destroyed every filter state.
 *
 * Threads. Everything but the completion of a pending call runs on the
 * proxy's thread. A filter that answers PENDING completes its call from any
 * thread; the completion is queued, and srt__filter_chain_fd() becomes
 * readable. The proxy watches that descriptor in its event loop and calls
 * srt__filter_chain_service() when it is readable, which delivers the queued
 * completions and the per-request timeouts to the `done` callbacks.
 *
 * Fail closed. A filter that answers ERROR, a value outside the verdicts, a
 * DENY without a status in 400-599, PENDING from a synchronous hook, a
 * body_cap it has no body hook for, or no answer within the timeout denies
 * the request, and the outcome names the filter. */
#ifndef SRT_PROXY_FILTER_CHAIN_H
#define SRT_PROXY_FILTER_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <srt/filter.h>

struct srt__filter_chain;
struct srt__filter_txn;

/* Default per-verdict timeout of a pending filter call. */
#define SRT__FILTER_TIMEOUT_MS 5000

/* Status sent when a filter failed (ERROR, garbage) and when it did not
 * answer in time. */
#define SRT__FILTER_STATUS_ERROR 502
#define SRT__FILTER_STATUS_TIMEOUT 503

/* A decision, or the wish to see the body first. */
struct srt__filter_outcome {
	enum srt_filter_verdict verdict;   /* SRT_FILTER_ALLOW or SRT_FILTER_DENY */
	int status;                        /* DENY: 400-599 */
	char reason[SRT_FILTER_REASON_MAX]; /* DENY: one line naming the filter */
	const char *filter;                /* who allowed or denied (the
					    * plugin as network.filters spells
					    * it, or "request-filter callback");
					    * NULL: every filter continued */
};

/* What the srt__filter_txn_* calls return. */
enum srt__filter_step {
	SRT__FILTER_DECIDED = 0, /* *out holds the outcome */
	SRT__FILTER_WAIT = 1,    /* pending: `done` runs later, from
				  * srt__filter_chain_service(), never
				  * from inside the call that returned this */
	SRT__FILTER_BODY = 2,    /* a filter wants the request body: feed it
				  * with srt__filter_txn_body(), holding it
				  * back from upstream */
};

/* The asynchronous end of a step that returned SRT__FILTER_WAIT: the
 * decision (DECIDED) or, for a request head, the wish for the body
 * (BODY). `out` is borrowed for the call. The proxy may finish the txn from
 * inside it. */
typedef void (*srt__filter_done_fn)(void *ctx, struct srt__filter_txn *txn,
				    enum srt__filter_step step,
				    const struct srt__filter_outcome *out);

/* Where a filter's log lines go (warnings; debug lines when is_debug). */
typedef void (*srt__filter_log_fn)(void *ctx, int is_debug, const char *line);

/* ------------------------------------------------------------ the chain */

/* An empty chain (every connection and request allowed). timeout_ms 0:
 * SRT__FILTER_TIMEOUT_MS. SRT_OK, SRT_E_NOMEM or SRT_E_IO. */
int srt__filter_chain_new(unsigned timeout_ms, srt__filter_log_fn log, void *log_ctx,
			  struct srt__filter_chain **out);

/* Append a loaded module: calls vt->create(config_json). `vt` (and the
 * module holding it) must outlive the chain; `name` is copied. On failure
 * *err says why (the key path inside the plugin's config), the filter is
 * not added, and the return is negative. The core has checked the module
 * header and that create and destroy are set. */
int srt__filter_chain_add(struct srt__filter_chain *ch, const struct srt_filter *vt,
			  const char *name, const char *config_json,
			  struct srt_filter_error *err);

/* Install (fn non-NULL) or remove the library's request filter; it runs
 * after the modules, on request heads. */
void srt__filter_chain_set_callback(struct srt__filter_chain *ch, srt_request_filter_fn fn,
				    void *ctx);

/* Number of filters (modules and the callback). A proxy may skip the
 * chain when it is 0. */
size_t srt__filter_chain_count(const struct srt__filter_chain *ch);

/* Does any filter have a response-head hook? When none does, the proxy
 * need not hand response heads to the chain. */
int srt__filter_chain_has_response_hooks(const struct srt__filter_chain *ch);

/* The proxy calls attach once it watches srt__filter_chain_fd() and runs
 * the chain on every connection and request: the core refuses to run a
 * sandbox whose filters no proxy attached to (fail closed). */
void srt__filter_chain_attach(struct srt__filter_chain *ch);
int srt__filter_chain_attached(const struct srt__filter_chain *ch);

/* Readable when srt__filter_chain_service() has work. Owned by the chain. */
int srt__filter_chain_fd(const struct srt__filter_chain *ch);

/* Deliver queued completions and expired timeouts to their `done`
 * callbacks. Proxy thread only. */
void srt__filter_chain_service(struct srt__filter_chain *ch);

/* Destroy every filter state (the filters complete what they left
 * pending), then free the chain. Every txn must be finished first.
 * NULL-safe. */
void srt__filter_chain_free(struct srt__filter_chain *ch);

/* -------------------------------------------------- one connection or request */

/* A txn is one passage through the chain: an opaque connection (the
 * connection hook) or one request (head, maybe body, response head). `conn`
 * (and later the request) is borrowed until srt__filter_txn_finish().
 * NULL on allocation failure (the proxy then refuses the request). */
struct srt__filter_txn *srt__filter_txn_new(struct srt__filter_chain *ch,
					    const struct srt_filter_conn *conn);

/* Run the connection hooks. */
enum srt__filter_step srt__filter_txn_connection(struct srt__filter_txn *t,
						 srt__filter_done_fn done, void *ctx,
						 struct srt__filter_outcome *out);

/* Run the request-head hooks (then the library callback). The filters may
 * change req->headers. BODY: feed the body. */
enum srt__filter_step srt__filter_txn_request_head(struct srt__filter_txn *t,
						   struct srt_filter_request *req,
						   srt__filter_done_fn done, void *ctx,
						   struct srt__filter_outcome *out);

/* Feed the request body after a BODY step: the next `len` bytes, `end` on
 * the last call (the body is complete; len may be 0). The chain keeps a
 * copy of every byte fed (srt__filter_txn_held_body) so the proxy can send
 * it upstream once allowed. Returns BODY when it wants more, WAIT, or
 * DECIDED. Feeding more than SRT_FILTER_BODY_MAX bytes past the largest cap
 * asked is never needed: the filter is told the body was truncated. */
enum srt__filter_step srt__filter_txn_body(struct srt__filter_txn *t, const void *chunk,
					   size_t len, int end, srt__filter_done_fn done,
					   void *ctx, struct srt__filter_outcome *out);

/* The body bytes fed so far, and whether the end was fed. */
const void *srt__filter_txn_held_body(const struct srt__filter_txn *t, size_t *len, int *end);

/* The request was allowed and a filter asked to rewrite its body: its
 * enum srt_filter_rewrite (SAME_LENGTH or ANY_LENGTH); 0 otherwise. */
int srt__filter_txn_rewrite_mode(const struct srt__filter_txn *t);
/* Hand that filter the next `len` content bytes (or the end) of the body;
 * its replacement goes to `out`. SRT_OK or a negative srt_err. */
int srt__filter_txn_rewrite(struct srt__filter_txn *t, const void *chunk, size_t len, int end,
			    struct srt_filter_sink *out);
/* Run the response-head hooks (synchronous): DECIDED with ALLOW (the
 * headers may have lost some lines) or DENY (send the denial instead). */
enum srt__filter_step srt__filter_txn_response_head(struct srt__filter_txn *t,
						    struct srt_filter_response *resp,
						    struct srt__filter_outcome *out);

/* The connection or request is over: call every filter's finish hook with
 * the summary (the chain fills verdict, decided_by, reason, start and
 * duration; the proxy gives status and byte counts, may pass NULL), and
 * free the txn. A call still pending is abandoned: its late completion is
 * dropped. */
void srt__filter_txn_finish(struct srt__filter_txn *t, const struct srt_filter_summary *sum);

/* The same finish hooks, but t is kept for the next request on the same
 * connection (no allocation per request): srt__filter_txn_restart() begins
 * that passage, srt__filter_txn_finish() frees it (without calling the
 * hooks again). NULL-safe. */
void srt__filter_txn_end(struct srt__filter_txn *t, const struct srt_filter_summary *sum);
/* Begin a passage on a txn srt__filter_txn_end() ended, as
 * srt__filter_txn_new() would, for the same chain. Cannot fail. */
void srt__filter_txn_restart(struct srt__filter_txn *t, const struct srt_filter_conn *conn);

/* ------------------------------------------------------------ headers */

/* True for the framing headers no filter may set or remove: Host,
 * Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Trailer,
 * Keep-Alive, Proxy-Connection (any case). */
int srt__filter_header_is_framing(const char *name);

/* A header list implementing struct srt_filter_headers, for the proxy:
 * fill it from the parsed head (add, which refuses nothing but malformed
 * lines), hand &fh->api to the chain, then write the head from
 * srt__fheaders_at(). Bounded by max_bytes (names + values).
 *
 * The lines added while the arena has room are copied into it (one block
 * kept from request to request, never moved while it holds lines), so a
 * request's headers cost no allocation; a line past its room, or one a
 * filter sets once the room is gone, gets a block of its own (own[i]). */
struct srt__fheaders {
	struct srt_filter_headers api;
	char **names;
	char **values;
	bool *own;     /* the line is its own block, not in the arena */
	size_t n, cap;
	size_t bytes, max_bytes;
	char *arena;
	size_t arena_len, arena_cap;
};
void srt__fheaders_init(struct srt__fheaders *fh, size_t max_bytes);
/* Make room in the arena for `bytes` of lines (each line's name and value
 * plus 2), when the list is empty; else, or when it cannot, the lines
 * simply get blocks of their own. */
void srt__fheaders_reserve(struct srt__fheaders *fh, size_t bytes);
/* Append one line as received (no framing check): SRT_OK, SRT_E_INVAL
 * (not a token, CR/LF/NUL), SRT_E_LIMIT, SRT_E_NOMEM. */
int srt__fheaders_add(struct srt__fheaders *fh, const char *name, size_t name_len,
		      const char *value, size_t value_len);
/* Drop every line, keeping the arrays and the arena for the next request. */
void srt__fheaders_clear(struct srt__fheaders *fh);
void srt__fheaders_release(struct srt__fheaders *fh);

#endif
