/* sigv4: re-signing AWS Signature Version 4 requests made with a masked key.
 *
 * Inside the sandbox AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and
 * AWS_SESSION_TOKEN) hold sentinels, so an AWS client there signs its
 * requests with a key that AWS does not know. The credentials filter hands
 * each such request head to sigv4_resign(), which rebuilds the canonical
 * request exactly as AWS does, signs it with the real secret and rewrites
 * Authorization (and X-Amz-Security-Token) so the request leaves the proxy
 * as if the client had held the real key all along.
 *
 * Which requests are "ours". Only a request whose signature names the
 * masked key: Authorization "AWS4-HMAC-SHA256 Credential=<id>/...", the
 * SigV4a form "AWS4-ECDSA-P256-SHA256 Credential=<id>/...", or a presigned
 * URL whose X-Amz-Credential query parameter starts with "<id>/", where
 * <id> is exactly fake->key_id. The real key id is accepted as well, so
 * the caller may run its generic sentinel substitution over the headers
 * before or after this call (a substitution that already turned the
 * masked id into the real one leaves the request recognisable). Anything
 * else answers SIGV4_NOT_OURS with the headers untouched and `why` empty.
 *
 * What happens to ours:
 *   - header-signed AWS4-HMAC-SHA256: re-signed (SIGV4_RESIGNED) keeping the
 *     client's scope (date, region, service), its SignedHeaders and its
 *     X-Amz-Date; only the key id and signature change. X-Amz-Security-
 *     Token, when the real key has a session token, is set to the real
 *     token (it may hold the masked token, the real one, or be absent;
 *     any other value is refused) before the signature is computed.
 *   - streaming payloads (x-amz-content-sha256 "STREAMING-..."), presigned
 *     URLs and SigV4a: each chunk or the URL itself carries signatures the
 *     proxy cannot redo from the head, so they are refused (SIGV4_REFUSE,
 *     `why` says which setting lets them through) unless the matching mode
 *     is set, which answers SIGV4_NOT_OURS with `why` saying the request
 *     was passed through unchanged (for the log).
 *
 * The payload hash. S3 clients send it in x-amz-content-sha256 (a hex
 * SHA-256 or UNSIGNED-PAYLOAD) and it is used as sent; a request without
 * the header and without a body (no Content-Length, or Content-Length 0,
 * and no Transfer-Encoding) hashes the empty string. Any other request
 * needs the SHA-256 of its body as it will be forwarded: sigv4_resign()
 * refuses it naming the reason, and sigv4_resign_body() takes the hash
 * from the caller (who read the body). A caller that changes the body
 * (sentinel substitution) must pass the hash of the changed body: a
 * literal x-amz-content-sha256 is then rewritten to it.
 *
 * Bounds. The path and query at most SIGV4_MAX_TARGET bytes, a signed
 * header value at most SIGV4_MAX_VALUE, at most SIGV4_MAX_SIGNED signed
 * headers, SIGV4_MAX_PARAMS query parameters, SIGV4_MAX_HEADERS header
 * lines and an Authorization of SIGV4_MAX_AUTH bytes; past any of them a
 * request of ours is refused (never signed over a truncated view). Every
 * line is still looked at to find the Authorization, so padding a head
 * cannot hide the masked key. One workspace of fixed size (about 60 KiB)
 * is allocated per call and freed, the secret wiped, before it returns.
 *
 * Where the call belongs. Call it on the request head as it will be
 * forwarded: after any other change to a header the signature may cover
 * (a sentinel substituted in a signed header, for instance), since an
 * edit made afterwards breaks the new signature. The Authorization and
 * X-Amz-Security-Token may already hold real values by then (see above).
 * A request body changed afterwards needs sigv4_resign_body() with the
 * changed body's hash, or UNSIGNED-PAYLOAD.
 *
 * Contract: every pointer is borrowed for the call; `real` and `fake` key
 * ids and secrets must be non-NULL and non-empty (anything else answers
 * SIGV4_REFUSE). `why` (may be NULL when why_len is 0) receives one line,
 * always NUL-terminated when why_len > 0. Headers are read with get/at and
 * changed only with set (Authorization, X-Amz-Security-Token,
 * x-amz-content-sha256); when a set fails the request is refused. Thread-
 * safe: no state outside the call. */
#ifndef SRT_PLUGIN_CREDENTIALS_SIGV4_H
#define SRT_PLUGIN_CREDENTIALS_SIGV4_H

#include <stddef.h>
#include <srt/filter.h>

#define SIGV4_MAX_TARGET 8192  /* origin-form path?query, bytes */
#define SIGV4_MAX_VALUE 8192   /* one signed header's value (joined lines) */
#define SIGV4_MAX_SIGNED 64    /* names in SignedHeaders */
#define SIGV4_MAX_PARAMS 256   /* query parameters */
#define SIGV4_MAX_HEADERS 256  /* header lines in a request of ours */
#define SIGV4_MAX_AUTH 4096    /* the Authorization value */

enum sigv4_outcome {
	SIGV4_NOT_OURS, /* not signed with the masked key, or passed through by
			 * a mode: forward as is (why says which when passed) */
	SIGV4_RESIGNED, /* headers rewritten: Authorization now carries the
			 * real key id and a valid signature (why: a note
			 * for a debug log) */
	SIGV4_REFUSE,   /* must not be forwarded: why says why (403 for the
			 * client) */
};

struct sigv4_key {
	const char *key_id;
	const char *secret;
	const char *session_token; /* NULL: none */
};

/* Each 0 (the default) refuses that kind of request; 1 forwards it
 * unchanged (credentials.sigv4.streaming / presigned / sigv4a set to
 * "passthrough"). */
struct sigv4_modes {
	int streaming_passthrough;
	int presigned_passthrough;
	int sigv4a_passthrough;
};

/* Re-sign one request head. `method` as sent, `path` the origin-form
 * target (path?query, starting with '/'). See the file comment. */
enum sigv4_outcome sigv4_resign(const char *method, const char *path,
				struct srt_filter_headers *headers, const struct sigv4_key *fake,
				const struct sigv4_key *real, const struct sigv4_modes *modes,
				char *why, size_t why_len);

/* The same, with the SHA-256 of the body as it will be forwarded:
 * `body_sha256_hex` is 64 lower-case hex digits, or NULL (then exactly
 * sigv4_resign()). Used instead of the body-less rule and instead of a
 * literal x-amz-content-sha256 (which is rewritten to it when it differs);
 * UNSIGNED-PAYLOAD stays unsigned. */
enum sigv4_outcome sigv4_resign_body(const char *method, const char *path,
				     struct srt_filter_headers *headers,
				     const struct sigv4_key *fake, const struct sigv4_key *real,
				     const struct sigv4_modes *modes, const char *body_sha256_hex,
				     char *why, size_t why_len);

/* 1 when sigv4_resign() would refuse this request only because it needs
 * the body's SHA-256 (ours, header-signed, not streaming, no usable
 * x-amz-content-sha256, a body present): the caller should read the body
 * (request_body hook) and call sigv4_resign_body(). 0 otherwise. Reads
 * the headers only. */
int sigv4_wants_body(const char *path, const struct srt_filter_headers *headers,
		     const struct sigv4_key *fake, const struct sigv4_key *real);

#endif
