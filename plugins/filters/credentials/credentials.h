/* The credentials filter's state and its request-time work (credentials.c),
 * shared with the unit tests. */
#ifndef SRT_PLUGIN_CREDENTIALS_H
#define SRT_PLUGIN_CREDENTIALS_H

#include <stddef.h>
#include <srt/filter.h>

#include "sha256.h"
#include "sigv4.h"
#include "subst.h"

/* One sentinel and the real value it stands for, and where it may go. */
struct cred_pair {
	char *name;     /* "env:NAME#0", "file:/path#1": for the log */
	char *sentinel;
	char *real;
	char **hosts;   /* domain patterns (injectHosts) */
	size_t n_hosts;
};

struct cred_aws {
	char *id_var, *secret_var, *token_var;
};

struct cred_state {
	const struct srt_filter_host *host;
	struct cred_pair *p;
	size_t n;
	int plaintext; /* allowPlaintextInject */
	struct cred_aws *aws;
	size_t n_aws;
	int sigv4_streaming, sigv4_presigned, sigv4_sigv4a; /* 1: passthrough */
};

/* One request: the pairs injectable toward its host. */
struct cred_req {
	struct subst_pair *pairs;
	size_t n;
	int same_length;   /* every injectable sentinel has its value's length */
	int streaming;     /* stream initialised */
	struct subst_stream stream;
	unsigned long long body_replaced;
	/* SigV4 with a masked key */
	int sigv4_payload_signed; /* the body must leave as it was hashed */
	int sigv4_body;           /* its hash is being computed */
	struct aws_keys_copy {
		struct sigv4_key fake, real;
	} sigv4_keys;
	struct srt__sha256 sha;
};

int cred_parse(const char *config_json, struct cred_state **out, struct srt_filter_error *err);
void cred_free(struct cred_state *st);
/* Does an injectHosts pattern take host:port? */
int cred_host_match(const char *host, unsigned port, const char *pattern);
/* Is the pair's real value allowed toward host:port? */
int cred_injectable(const struct cred_pair *p, const char *host, unsigned port);
/* Does the request travel where substitution may run (terminated TLS, or
 * plain HTTP with allowPlaintextInject)? */
int cred_transport_ok(const struct cred_state *st, const struct srt_filter_request *req);
struct cred_req *cred_req_new(const struct cred_state *st, const char *host, unsigned port);
void cred_req_free(struct cred_req *r);
/* Replace the sentinels in every header but the framing ones: 0 (*total
 * replacements), or -1 with why. */
int cred_headers(const struct cred_req *r, struct srt_filter_headers *h, char *why,
		 size_t why_len, unsigned long long *total);

#endif
