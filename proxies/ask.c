/* The ask broker (proxies/ask.h): questions from the proxy's thread to the
 * application's callback on the broker's thread, answers back through an
 * eventfd the proxy's loop watches. One lock guards the lists; no
 * callback runs under it, and the callback gets its own copies of the
 * strings, so a question cancelled meanwhile is simply gone. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <srt/error.h>
#include "proxies/ask.h"
#include "proxies/wakeup.h"

enum q_state { Q_QUEUED, Q_ASKED, Q_ANSWERED };

struct question {
	uint64_t id;
	enum q_state state;
	char *host, *canon, *cmd;
	int port;
	srt__ask_done_fn done;
	void *ctx;
	struct srt__ask_result res;
	struct question *next;
};

struct memo {
	char *canon;
	int port;
	struct srt__ask_result res;
	struct memo *next;
};

struct srt__ask {
	srt_ask_fn fn;
	void *ctx;
	unsigned timeout_ms;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool stop;
	struct srt__wakeup *wake; /* the proxy's loop watches it */
	uint64_t next_id;
	struct question *qs;
	size_t n_qs;
	struct memo *memos;
	size_t n_memos;
};

static void question_free(struct question *q)
{
	free(q->host);
	free(q->canon);
	free(q->cmd);
	free(q);
}

/* Unlink and return the question with this id (lock held), or NULL. */
static struct question *unlink_q(struct srt__ask *a, uint64_t id)
{
	for (struct question **pp = &a->qs; *pp; pp = &(*pp)->next) {
		struct question *q = *pp;
		if (q->id == id) {
			*pp = q->next;
			q->next = NULL;
			a->n_qs--;
			return q;
		}
	}
	return NULL;
}

static struct question *find_q(struct srt__ask *a, uint64_t id)
{
	for (struct question *q = a->qs; q; q = q->next)
		if (q->id == id)
			return q;
	return NULL;
}

static void wake_proxy(struct srt__ask *a)
{
	srt__wakeup_signal(a->wake);
}

/* Utf-8 decoding of one character at s (n bytes left): its code point
 * and length, or -1 for a malformed sequence (length 1). */
static long utf8_next(const unsigned char *s, size_t n, size_t *len)
{
	long cp;
	size_t k;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07;
	else
		return -1;
	if (n < k)
		return -1;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return -1;
	*len = k;
	return cp;
}

/* Controls and the characters that hide or reorder text. */
static bool invisible(long cp)
{
	return cp < 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xad ||
	       cp == 0x61c || (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 ||
	       cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0xfeff || (cp >= 0xe0000 && cp <= 0xe007f);
}

void srt__ask_sanitize(const char *in, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t n = strlen((const char *)s), o = 0, chars = 0;
	bool space = false;

	if (!cap)
		return;
	while (n && chars < SRT_ASK_REASON_MAX) {
		size_t len;
		long cp = utf8_next(s, n, &len);

		s += len;
		n -= len;
		if (cp == '<' || cp == '>')
			continue;
		if (invisible(cp) || cp == ' ') {
			space = o > 0; /* leading runs vanish */
			continue;
		}
		if (space) {
			if (o + 1 >= cap || chars + 1 >= SRT_ASK_REASON_MAX)
				break;
			out[o++] = ' ';
			chars++;
			space = false;
		}
		if (o + len >= cap)
			break;
		memcpy(out + o, s - len, len);
		o += len;
		chars++;
	}
	out[o] = '\0';
	if (!o) {
		strncpy(out, "user denied", cap - 1);
		out[cap - 1] = '\0';
	}
}

/* The broker's thread: one callback at a time, with copies of the
 * question's strings (a cancel may free the question meanwhile). */
static void *ask_loop(void *arg)
{
	struct srt__ask *a = arg;

	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		struct question *q;
		struct srt_ask_request req;
		char host[256], cmd[256];
		bool has_cmd;
		int rc;

		for (q = a->qs; q && q->state != Q_QUEUED; q = q->next)
			;
		if (!q) {
			pthread_cond_wait(&a->cond, &a->lock);
			continue;
		}
		q->state = Q_ASKED;
		memset(&req, 0, sizeof(req));
		req.ticket = q->id;
		req.port = q->port;
		strncpy(host, q->host, sizeof(host) - 1);
		host[sizeof(host) - 1] = '\0';
		has_cmd = q->cmd != NULL;
		if (has_cmd) {
			strncpy(cmd, q->cmd, sizeof(cmd) - 1);
			cmd[sizeof(cmd) - 1] = '\0';
		}
		req.host = host;
		req.command_id = has_cmd ? cmd : NULL;
		pthread_mutex_unlock(&a->lock);
		rc = a->fn(a->ctx, &req);
		if (rc != 0)
			srt__ask_answer(a, req.ticket, SRT_ASK_FAIL, NULL, 0);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int srt__ask_new(srt_ask_fn fn, void *ctx, unsigned timeout_ms, struct srt__ask **out)
{
	struct srt__ask *a = calloc(1, sizeof(*a));

	if (!a)
		return SRT_E_NOMEM;
	a->fn = fn;
	a->ctx = ctx;
	a->timeout_ms = timeout_ms ? timeout_ms : SRT__ASK_TIMEOUT_MS;
	a->next_id = 1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if (srt__wakeup_new(&a->wake) < 0) {
		free(a);
		return SRT_E_IO;
	}
	if (pthread_create(&a->thread, NULL, ask_loop, a) != 0) {
		srt__wakeup_free(a->wake);
		free(a);
		return SRT_E_IO;
	}
	*out = a;
	return SRT_OK;
}

void srt__ask_free(struct srt__ask *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	while (a->qs) {
		struct question *q = a->qs;
		a->qs = q->next;
		question_free(q);
	}
	while (a->memos) {
		struct memo *m = a->memos;
		a->memos = m->next;
		free(m->canon);
		free(m);
	}
	srt__wakeup_free(a->wake);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

unsigned srt__ask_timeout_ms(const struct srt__ask *a)
{
	return a->timeout_ms;
}

int srt__ask_fd(const struct srt__ask *a)
{
	return srt__wakeup_fd(a->wake);
}

bool srt__ask_recall(struct srt__ask *a, const char *canon, int port,
		     struct srt__ask_result *res)
{
	bool found = false;

	pthread_mutex_lock(&a->lock);
	for (struct memo *m = a->memos; m; m = m->next) {
		if (m->port == port && strcmp(m->canon, canon) == 0) {
			*res = m->res;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return found;
}

int srt__ask_submit(struct srt__ask *a, const char *host, const char *canon, int port,
		    const char *command_id, srt__ask_done_fn done, void *ctx, uint64_t *id)
{
	struct question *q = calloc(1, sizeof(*q));

	if (!q)
		return SRT_E_NOMEM;
	q->host = strdup(host);
	q->canon = strdup(canon);
	q->cmd = command_id ? strdup(command_id) : NULL;
	if (!q->host || !q->canon || (command_id && !q->cmd)) {
		question_free(q);
		return SRT_E_NOMEM;
	}
	q->port = port;
	q->done = done;
	q->ctx = ctx;
	q->state = Q_QUEUED;
	pthread_mutex_lock(&a->lock);
	if (a->n_qs >= SRT__ASK_OPEN_MAX) {
		pthread_mutex_unlock(&a->lock);
		question_free(q);
		return SRT_E_LIMIT;
	}
	a->n_qs++;
	q->id = a->next_id++;
	q->next = a->qs;
	a->qs = q;
	*id = q->id;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return SRT_OK;
}

void srt__ask_cancel(struct srt__ask *a, uint64_t id)
{
	struct question *q;

	pthread_mutex_lock(&a->lock);
	q = unlink_q(a, id);
	pthread_mutex_unlock(&a->lock);
	if (q)
		question_free(q);
}

/* Keep an answer for canon:port (lock held); a full table keeps none. */
static void remember(struct srt__ask *a, const struct question *q)
{
	struct memo *m;

	for (m = a->memos; m; m = m->next) {
		if (m->port == q->port && strcmp(m->canon, q->canon) == 0) {
			m->res = q->res;
			return;
		}
	}
	if (a->n_memos >= SRT__ASK_REMEMBER_MAX || !(m = calloc(1, sizeof(*m))))
		return;
	if (!(m->canon = strdup(q->canon))) {
		free(m);
		return;
	}
	m->port = q->port;
	m->res = q->res;
	m->next = a->memos;
	a->memos = m;
	a->n_memos++;
}

int srt__ask_answer(struct srt__ask *a, uint64_t ticket, enum srt_ask_verdict v,
		    const char *reason, unsigned flags)
{
	struct question *q;

	if ((v != SRT_ASK_DENY && v != SRT_ASK_ALLOW && v != SRT_ASK_FAIL) ||
	    (flags & ~SRT_ASK_REMEMBER))
		return SRT_E_INVAL;
	pthread_mutex_lock(&a->lock);
	q = find_q(a, ticket);
	if (!q || q->state == Q_ANSWERED) {
		pthread_mutex_unlock(&a->lock);
		return SRT_E_STATE;
	}
	q->state = Q_ANSWERED;
	q->res.allow = v == SRT_ASK_ALLOW;
	if (v == SRT_ASK_FAIL)
		strcpy(q->res.reason, "permission prompt failed");
	else if (v == SRT_ASK_DENY)
		srt__ask_sanitize(reason, q->res.reason, sizeof(q->res.reason));
	else
		q->res.reason[0] = '\0';
	/* a failed prompt is not an answer to keep */
	if ((flags & SRT_ASK_REMEMBER) && v != SRT_ASK_FAIL)
		remember(a, q);
	pthread_mutex_unlock(&a->lock);
	wake_proxy(a);
	return SRT_OK;
}

void srt__ask_service(struct srt__ask *a)
{
	struct question *ready = NULL, **tail = &ready;
	srt__wakeup_clear(a->wake);
	pthread_mutex_lock(&a->lock);
	for (struct question **pp = &a->qs; *pp;) {
		struct question *q = *pp;
		if (q->state != Q_ANSWERED) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->next = NULL;
		a->n_qs--;
		*tail = q;
		tail = &q->next;
	}
	pthread_mutex_unlock(&a->lock);
	/* `done` may cancel or submit (it resumes a connection): the lock is
	 * not held, and these questions are off the list already */
	while (ready) {
		struct question *q = ready;
		ready = q->next;
		q->done(q->ctx, q->id, &q->res);
		question_free(q);
	}
}
