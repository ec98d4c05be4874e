/* The request-filter chain (filter-chain.h): runs the filters in order on
 * one connection or request, turns their verdicts into one outcome, and
 * carries pending calls across the event loop.
 *
 * A hook call lives in a struct pcall. When the hook answers PENDING the
 * pcall leaves the txn: the filter owns it until it calls complete(), which
 * queues it (any thread) and wakes the chain's descriptor; the proxy thread
 * then resumes the txn from srt__filter_chain_service(). A txn that ends or
 * times out while a call is pending only forgets the pcall (txn = NULL); the
 * pcall is freed when its completion finally arrives, so a late completion
 * never touches freed memory. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "filter-chain.h"
#include "proxies/wakeup.h"

/* Is the optional slot inside the size the module declared, and set? The
 * size test comes first so a slot past the module's struct is never read. */
#define FILTER_HAS(vt, slot) \
	(offsetof(struct srt_filter, slot) + sizeof((vt)->slot) <= (vt)->hdr.size && \
	 (vt)->slot != NULL)

#define CALLBACK_NAME "request-filter callback"

struct entry {
	const struct srt_filter *vt; /* NULL: the library callback */
	void *state;
	char *name;
	struct srt_filter_host host;
	struct srt__filter_chain *ch;
};

struct pcall {
	struct srt_filter_call call; /* first: complete() gets back here */
	struct srt__filter_chain *ch;
	struct srt__filter_txn *txn; /* proxy thread; NULL once abandoned */
	size_t entry;                /* which filter answered PENDING */
	long long deadline;          /* monotonic ms */
	struct pcall *next, *prev;   /* the chain's pending list */
	int listed;
	/* under ch->lock */
	int queued;
	enum srt_filter_verdict verdict;
	struct pcall *qnext;
};

struct srt__filter_chain {
	struct entry *e;
	size_t n, cap;
	srt_request_filter_fn cb;
	void *cb_ctx;
	struct entry cb_entry;
	unsigned timeout_ms;
	srt__filter_log_fn log;
	void *log_ctx;
	int attached;
	size_t response_hooks; /* filters with a response-head hook */
	struct srt__wakeup *wake; /* completions and the next timeout */
	struct pcall *pending; /* proxy thread */
	pthread_mutex_t lock;
	struct pcall *qhead, **qtail;
};

enum phase { PH_CONN, PH_HEAD, PH_BODY, PH_RESP, PH_DONE };

struct srt__filter_txn {
	struct srt__filter_chain *ch;
	const struct srt_filter_conn *conn;
	struct srt_filter_request *req;
	void **data;
	size_t pos;
	enum phase phase;
	struct pcall *spare;
	struct pcall *waiting;
	srt__filter_done_fn done;
	void *done_ctx;
	/* the request body held back while a filter reads it */
	unsigned char *body;
	size_t body_len, body_alloc;
	int body_end;
	size_t want, given;
	int end_sent;
	struct srt__filter_outcome out;
	int decided;
	long long start_wall, start_mono;
	/* the filter that rewrites the request body (ABI 1.3) */
	size_t rewriter;
	int rewrite; /* enum srt_filter_rewrite; NONE: nobody asked */
	int idle;    /* ended, not restarted: no passage to finish */
};

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t total(const struct srt__filter_chain *ch)
{
	return ch->n + (ch->cb ? 1 : 0);
}

static struct entry *entry_at(struct srt__filter_chain *ch, size_t i)
{
	return i < ch->n ? &ch->e[i] : &ch->cb_entry;
}

/* ------------------------------------------------------------ headers */

static const char *const framing[] = {
	"host", "content-length", "transfer-encoding", "connection", "upgrade",
	"te", "trailer", "keep-alive", "proxy-connection", NULL
};

int srt__filter_header_is_framing(const char *name)
{
	size_t i;

	for (i = 0; framing[i]; i++)
		if (!strcasecmp(name, framing[i]))
			return 1;
	return 0;
}

/* RFC 9110's tchar, as a table: every header name of every filtered
 * request is checked against it. */
static const unsigned char tchar[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1,
	['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

static int token_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!tchar[(unsigned char)s[i]])
			return 0;
	return 1;
}

static int value_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0')
			return 0;
	return 1;
}

static size_t fh_count(const struct srt_filter_headers *h)
{
	return ((const struct srt__fheaders *)h)->n;
}

static int fh_at(const struct srt_filter_headers *h, size_t i, const char **name,
		 const char **value)
{
	const struct srt__fheaders *fh = (const struct srt__fheaders *)h;

	if (i >= fh->n)
		return SRT_E_INVAL;
	*name = fh->names[i];
	*value = fh->values[i];
	return SRT_OK;
}

static const char *fh_get(const struct srt_filter_headers *h, const char *name)
{
	const struct srt__fheaders *fh = (const struct srt__fheaders *)h;
	size_t i;

	for (i = 0; i < fh->n; i++)
		if (!strcasecmp(fh->names[i], name))
			return fh->values[i];
	return NULL;
}

static void fh_drop(struct srt__fheaders *fh, size_t i)
{
	fh->bytes -= strlen(fh->names[i]) + strlen(fh->values[i]);
	if (fh->own[i])
		free(fh->names[i]); /* the value lives in the name's block */
	memmove(fh->names + i, fh->names + i + 1, (fh->n - i - 1) * sizeof(*fh->names));
	memmove(fh->values + i, fh->values + i + 1, (fh->n - i - 1) * sizeof(*fh->values));
	memmove(fh->own + i, fh->own + i + 1, (fh->n - i - 1) * sizeof(*fh->own));
	fh->n--;
}

static int fh_remove(struct srt_filter_headers *h, const char *name)
{
	struct srt__fheaders *fh = (struct srt__fheaders *)h;
	size_t i;

	if (!name || !token_ok(name, strlen(name)) || srt__filter_header_is_framing(name))
		return SRT_E_INVAL;
	for (i = fh->n; i-- > 0;)
		if (!strcasecmp(fh->names[i], name))
			fh_drop(fh, i);
	return SRT_OK;
}

/* One line in one block: the name, its NUL, the value, its NUL; in the
 * arena when it has room (*own false), else allocated (*own true). */
static char *line_block(struct srt__fheaders *fh, const char *name, size_t name_len,
			const char *value, size_t value_len, bool *own)
{
	size_t need = name_len + value_len + 2;
	char *b;

	if (fh->arena && need <= fh->arena_cap - fh->arena_len) {
		b = fh->arena + fh->arena_len;
		fh->arena_len += need;
		*own = false;
	} else {
		if (!(b = malloc(need)))
			return NULL;
		*own = true;
	}
	memcpy(b, name, name_len);
	b[name_len] = '\0';
	memcpy(b + name_len + 1, value, value_len);
	b[name_len + 1 + value_len] = '\0';
	return b;
}

static int fh_set(struct srt_filter_headers *h, const char *name, const char *value)
{
	struct srt__fheaders *fh = (struct srt__fheaders *)h;
	size_t i, first = (size_t)-1, old = 0;
	bool own;
	char *v;

	if (!name || !value || !token_ok(name, strlen(name)) ||
	    srt__filter_header_is_framing(name) || !value_ok(value, strlen(value)))
		return SRT_E_INVAL;
	for (i = 0; i < fh->n; i++)
		if (!strcasecmp(fh->names[i], name)) {
			first = i;
			old = strlen(fh->values[i]);
			break;
		}
	if (first == (size_t)-1)
		return srt__fheaders_add(fh, name, strlen(name), value, strlen(value));
	if (fh->bytes - old + strlen(value) > fh->max_bytes)
		return SRT_E_LIMIT;
	if (!(v = line_block(fh, fh->names[first], strlen(fh->names[first]), value, strlen(value),
			     &own)))
		return SRT_E_NOMEM;
	if (fh->own[first])
		free(fh->names[first]);
	fh->own[first] = own;
	fh->names[first] = v;
	fh->values[first] = v + strlen(v) + 1;
	fh->bytes = fh->bytes - old + strlen(value);
	for (i = fh->n; i-- > first + 1;)
		if (!strcasecmp(fh->names[i], name))
			fh_drop(fh, i);
	return SRT_OK;
}

void srt__fheaders_init(struct srt__fheaders *fh, size_t max_bytes)
{
	memset(fh, 0, sizeof(*fh));
	fh->api.size = sizeof(fh->api);
	fh->api.count = fh_count;
	fh->api.at = fh_at;
	fh->api.get = fh_get;
	fh->api.remove = fh_remove;
	fh->api.set = fh_set;
	fh->api.impl = fh;
	fh->max_bytes = max_bytes;
}

/* A received head's lines fit an arena of this size or less; a larger
 * one is not kept past its request. */
#define ARENA_KEEP 16384

void srt__fheaders_reserve(struct srt__fheaders *fh, size_t bytes)
{
	char *na;

	if (fh->n || bytes <= fh->arena_cap)
		return;
	bytes = (bytes + 1023) & ~(size_t)1023;
	/* no line is in the arena: it may move */
	if (!(na = realloc(fh->arena, bytes)))
		return;
	fh->arena = na;
	fh->arena_cap = bytes;
	fh->arena_len = 0;
}

int srt__fheaders_add(struct srt__fheaders *fh, const char *name, size_t name_len,
		      const char *value, size_t value_len)
{
	char *n, *v;
	bool own;

	if (!token_ok(name, name_len) || !value_ok(value, value_len))
		return SRT_E_INVAL;
	if (name_len + value_len > fh->max_bytes - fh->bytes || fh->bytes > fh->max_bytes)
		return SRT_E_LIMIT;
	if (fh->n == fh->cap) {
		size_t nc = fh->cap ? fh->cap * 2 : 16;
		char **nn = realloc(fh->names, nc * sizeof(*nn));
		bool *no;

		if (!nn)
			return SRT_E_NOMEM;
		fh->names = nn;
		nn = realloc(fh->values, nc * sizeof(*nn));
		if (!nn)
			return SRT_E_NOMEM;
		fh->values = nn;
		if (!(no = realloc(fh->own, nc * sizeof(*no))))
			return SRT_E_NOMEM;
		fh->own = no;
		fh->cap = nc;
	}
	if (!(n = line_block(fh, name, name_len, value, value_len, &own)))
		return SRT_E_NOMEM;
	v = n + name_len + 1;
	fh->names[fh->n] = n;
	fh->values[fh->n] = v;
	fh->own[fh->n] = own;
	fh->n++;
	fh->bytes += name_len + value_len;
	return SRT_OK;
}

void srt__fheaders_clear(struct srt__fheaders *fh)
{
	size_t i;

	for (i = 0; i < fh->n; i++)
		if (fh->own[i])
			free(fh->names[i]);
	fh->n = 0;
	fh->bytes = 0;
	fh->arena_len = 0;
	if (fh->arena_cap > ARENA_KEEP) {
		free(fh->arena);
		fh->arena = NULL;
		fh->arena_cap = 0;
	}
}

void srt__fheaders_release(struct srt__fheaders *fh)
{
	srt__fheaders_clear(fh);
	free(fh->arena);
	free(fh->names);
	free(fh->values);
	free(fh->own);
	fh->arena = NULL;
	fh->names = fh->values = NULL;
	fh->own = NULL;
	fh->n = fh->cap = fh->bytes = fh->arena_len = fh->arena_cap = 0;
}

/* ------------------------------------------------------------ the chain */

static void host_log(const struct srt_filter_host *host, int is_debug, const char *line)
{
	const struct entry *e = host->priv;
	char buf[600];

	if (!e->ch->log || !line)
		return;
	snprintf(buf, sizeof(buf), "request filter \"%s\": %s", e->name, line);
	e->ch->log(e->ch->log_ctx, is_debug, buf);
}

static void complete(struct srt_filter_call *call, enum srt_filter_verdict verdict)
{
	struct pcall *pc = (struct pcall *)call;
	struct srt__filter_chain *ch = pc->ch;
	pthread_mutex_lock(&ch->lock);
	if (pc->queued) {
		/* a second completion: the first one counts */
		pthread_mutex_unlock(&ch->lock);
		return;
	}
	pc->verdict = verdict;
	/* stolen() reads it without the lock */
	__atomic_store_n(&pc->queued, 1, __ATOMIC_RELEASE);
	pc->qnext = NULL;
	*ch->qtail = pc;
	ch->qtail = &pc->qnext;
	pthread_mutex_unlock(&ch->lock);
	srt__wakeup_signal(ch->wake);
}

int srt__filter_chain_new(unsigned timeout_ms, srt__filter_log_fn log, void *log_ctx,
			  struct srt__filter_chain **out)
{
	struct srt__filter_chain *ch = calloc(1, sizeof(*ch));
	if (!ch)
		return SRT_E_NOMEM;
	ch->timeout_ms = timeout_ms ? timeout_ms : SRT__FILTER_TIMEOUT_MS;
	ch->log = log;
	ch->log_ctx = log_ctx;
	ch->qtail = &ch->qhead;
	pthread_mutex_init(&ch->lock, NULL);
	if (srt__wakeup_new(&ch->wake) < 0) {
		srt__filter_chain_free(ch);
		return SRT_E_IO;
	}
	ch->cb_entry.name = (char *)CALLBACK_NAME;
	ch->cb_entry.ch = ch;
	*out = ch;
	return SRT_OK;
}

int srt__filter_chain_add(struct srt__filter_chain *ch, const struct srt_filter *vt,
			  const char *name, const char *config_json,
			  struct srt_filter_error *err)
{
	struct entry *e;
	size_t i;
	int rc;

	if (ch->n == ch->cap) {
		size_t nc = ch->cap ? ch->cap * 2 : 4;
		struct entry *ne = realloc(ch->e, nc * sizeof(*ne));

		if (!ne)
			return SRT_E_NOMEM;
		/* the hosts point at their entries */
		for (i = 0; i < ch->n; i++)
			ne[i].host.priv = &ne[i];
		ch->e = ne;
		ch->cap = nc;
	}
	e = &ch->e[ch->n];
	memset(e, 0, sizeof(*e));
	if (!(e->name = strdup(name)))
		return SRT_E_NOMEM;
	e->vt = vt;
	e->ch = ch;
	e->host.size = sizeof(e->host);
	e->host.name = e->name;
	e->host.index = (unsigned)ch->n;
	e->host.timeout_ms = ch->timeout_ms;
	e->host.log = host_log;
	e->host.priv = e;
	memset(err, 0, sizeof(*err));
	rc = vt->create(&e->host, config_json, &e->state, err);
	if (rc != SRT_OK) {
		if (rc > 0)
			rc = SRT_E_INVAL;
		if (!err->message[0])
			snprintf(err->message, sizeof(err->message), "the plugin refused its configuration");
		free(e->name);
		return rc;
	}
	if (FILTER_HAS(vt, response_head))
		ch->response_hooks++;
	ch->n++;
	return SRT_OK;
}

void srt__filter_chain_set_callback(struct srt__filter_chain *ch, srt_request_filter_fn fn,
				    void *ctx)
{
	ch->cb = fn;
	ch->cb_ctx = fn ? ctx : NULL;
}

size_t srt__filter_chain_count(const struct srt__filter_chain *ch)
{
	return ch ? total(ch) : 0;
}

int srt__filter_chain_has_response_hooks(const struct srt__filter_chain *ch)
{
	return ch && ch->response_hooks > 0;
}

void srt__filter_chain_attach(struct srt__filter_chain *ch)
{
	ch->attached = 1;
}

int srt__filter_chain_attached(const struct srt__filter_chain *ch)
{
	return ch && ch->attached;
}

int srt__filter_chain_fd(const struct srt__filter_chain *ch)
{
	return srt__wakeup_fd(ch->wake);
}

/* Empty the queue of completed calls and return what it held. */
static struct pcall *take_queue(struct srt__filter_chain *ch)
{
	struct pcall *pc;

	pthread_mutex_lock(&ch->lock);
	pc = ch->qhead;
	ch->qhead = NULL;
	ch->qtail = &ch->qhead;
	pthread_mutex_unlock(&ch->lock);
	return pc;
}

static void drain_queue_free(struct srt__filter_chain *ch)
{
	struct pcall *pc, *next;

	for (pc = take_queue(ch); pc; pc = next) {
		next = pc->qnext;
		free(pc);
	}
}

void srt__filter_chain_free(struct srt__filter_chain *ch)
{
	size_t i;

	if (!ch)
		return;
	for (i = 0; i < ch->n; i++) {
		ch->e[i].vt->destroy(ch->e[i].state);
		free(ch->e[i].name);
	}
	free(ch->e);
	/* every filter completed what it left pending in destroy() */
	drain_queue_free(ch);
	srt__wakeup_free(ch->wake);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

/* ------------------------------------------------------------ pending calls */

static void pending_unlink(struct srt__filter_chain *ch, struct pcall *pc)
{
	if (!pc->listed)
		return;
	if (pc->prev)
		pc->prev->next = pc->next;
	else
		ch->pending = pc->next;
	if (pc->next)
		pc->next->prev = pc->prev;
	pc->next = pc->prev = NULL;
	pc->listed = 0;
}

static void arm_timer(struct srt__filter_chain *ch)
{
	long long first = 0, now, d = 0;
	struct pcall *pc;

	for (pc = ch->pending; pc; pc = pc->next)
		if (!first || pc->deadline < first)
			first = pc->deadline;
	if (first) {
		now = mono_ms();
		d = first > now ? first - now : 1;
	}
	srt__wakeup_arm(ch->wake, d);
}

static struct pcall *take_call(struct srt__filter_txn *t, size_t i)
{
	struct pcall *pc = t->spare;

	if (!pc && !(pc = malloc(sizeof(*pc))))
		return NULL;
	t->spare = pc;
	memset(pc, 0, sizeof(*pc));
	pc->call.size = sizeof(pc->call);
	pc->call.data = &t->data[i];
	pc->call.complete = complete;
	pc->call.priv = pc;
	pc->ch = t->ch;
	pc->entry = i;
	return pc;
}

/* The hook answered: was complete() called anyway? Then the pcall belongs
 * to the queue and is freed from there. */
static int stolen(struct srt__filter_txn *t, struct pcall *pc)
{
	/* read without the lock (it runs after every hook call): a
	 * completion racing with it is seen or not, as it was under the lock */
	int q = __atomic_load_n(&pc->queued, __ATOMIC_ACQUIRE);

	if (q)
		t->spare = NULL;
	return q;
}

static void park(struct srt__filter_txn *t, struct pcall *pc)
{
	struct srt__filter_chain *ch = t->ch;

	t->spare = NULL;
	t->waiting = pc;
	pc->txn = t;
	pc->deadline = mono_ms() + ch->timeout_ms;
	pc->next = ch->pending;
	pc->prev = NULL;
	if (ch->pending)
		ch->pending->prev = pc;
	ch->pending = pc;
	pc->listed = 1;
	arm_timer(ch);
}

/* Forget the pending call of t: its late completion frees it. Tell the
 * filter (cancel, ABI 1.1) unless it has completed already. */
static void abandon(struct srt__filter_txn *t)
{
	struct pcall *pc = t->waiting;
	const struct entry *e;
	int q;

	if (!pc)
		return;
	t->waiting = NULL;
	pending_unlink(t->ch, pc);
	pc->txn = NULL;
	e = entry_at(t->ch, pc->entry);
	pthread_mutex_lock(&t->ch->lock);
	q = pc->queued;
	pthread_mutex_unlock(&t->ch->lock);
	if (!q && e->vt && FILTER_HAS(e->vt, cancel))
		e->vt->cancel(e->state, &pc->call);
}

/* ------------------------------------------------------------ verdicts */

static void one_line(char *dst, size_t n, const char *src)
{
	size_t i;

	snprintf(dst, n, "%s", src);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = ' ';
}

static enum srt__filter_step decide(struct srt__filter_txn *t, size_t i,
				    enum srt_filter_verdict v, int status, const char *reason)
{
	struct srt__filter_outcome *o = &t->out;

	o->verdict = v;
	o->status = v == SRT_FILTER_DENY ? status : 0;
	o->filter = i == (size_t)-1 ? NULL : entry_at(t->ch, i)->name;
	o->reason[0] = '\0';
	if (v == SRT_FILTER_DENY)
		one_line(o->reason, sizeof(o->reason), reason && *reason ? reason : "denied");
	t->decided = 1;
	t->phase = PH_DONE;
	return SRT__FILTER_DECIDED;
}

static enum srt__filter_step fail(struct srt__filter_txn *t, size_t i, int status,
				  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum srt__filter_step fail(struct srt__filter_txn *t, size_t i, int status,
				  const char *fmt, ...)
{
	char what[200], reason[SRT_FILTER_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(reason, sizeof(reason), "request filter \"%s\" %s", entry_at(t->ch, i)->name,
		 what);
	return decide(t, i, SRT_FILTER_DENY, status, reason);
}

/* A final verdict (not PENDING, not CONTINUE) of filter i. */
static enum srt__filter_step final(struct srt__filter_txn *t, size_t i,
				   enum srt_filter_verdict v, const struct srt_filter_call *c)
{
	char r[SRT_FILTER_REASON_MAX];

	switch (v) {
	case SRT_FILTER_ALLOW:
		return decide(t, i, SRT_FILTER_ALLOW, 0, NULL);
	case SRT_FILTER_DENY:
		if (c->status < 400 || c->status > 599)
			return fail(t, i, SRT__FILTER_STATUS_ERROR,
				    "denied with status %d, outside 400-599", c->status);
		memcpy(r, c->reason, sizeof(r));
		r[sizeof(r) - 1] = '\0';
		return decide(t, i, SRT_FILTER_DENY, c->status, r[0] ? r : "denied by a request filter");
	case SRT_FILTER_ERROR:
		memcpy(r, c->reason, sizeof(r));
		r[sizeof(r) - 1] = '\0';
		return fail(t, i, SRT__FILTER_STATUS_ERROR, "failed: %s",
			    r[0] ? r : "no reason given");
	default:
		return fail(t, i, SRT__FILTER_STATUS_ERROR, "answered an unknown verdict (%d)",
			    (int)v);
	}
}

/* ------------------------------------------------------------ running */

static enum srt__filter_step run(struct srt__filter_txn *t);
static enum srt__filter_step feed(struct srt__filter_txn *t);

static enum srt_filter_verdict invoke_head(struct srt__filter_txn *t, size_t i,
					   struct pcall *pc, int *absent)
{
	struct entry *e = entry_at(t->ch, i);

	if (!e->vt)
		return t->ch->cb(t->ch->cb_ctx, t->req, &pc->call);
	if (t->phase == PH_CONN) {
		if (!FILTER_HAS(e->vt, connection)) {
			*absent = 1;
			return SRT_FILTER_CONTINUE;
		}
		return e->vt->connection(e->state, t->conn, &pc->call);
	}
	if (!FILTER_HAS(e->vt, request_head)) {
		*absent = 1;
		return SRT_FILTER_CONTINUE;
	}
	return e->vt->request_head(e->state, t->req, &pc->call);
}

/* Filter i answered v to a head or connection hook (now or by completion). */
static enum srt__filter_step after_head(struct srt__filter_txn *t, size_t i,
					enum srt_filter_verdict v, struct pcall *pc)
{
	const struct entry *e = entry_at(t->ch, i);

	if (v != SRT_FILTER_CONTINUE)
		return final(t, i, v, &pc->call);
	if (t->phase != PH_HEAD || !pc->call.body_cap) {
		t->pos = i + 1;
		return run(t);
	}
	if (!e->vt || !FILTER_HAS(e->vt, request_body))
		return fail(t, i, SRT__FILTER_STATUS_ERROR, "asked for the body but has no body hook");
	t->pos = i;
	t->phase = PH_BODY;
	t->want = pc->call.body_cap < SRT_FILTER_BODY_MAX ? pc->call.body_cap : SRT_FILTER_BODY_MAX;
	t->given = 0;
	t->end_sent = 0;
	return feed(t);
}

/* Filter i asked (call->rewrite) to rewrite the request body: only in a
 * request-head hook, by a filter with the hook, one per request. */
static int take_rewrite(struct srt__filter_txn *t, size_t i, const struct srt_filter_call *c)
{
	const struct entry *e = entry_at(t->ch, i);

	if (t->rewrite || t->phase != PH_HEAD || !e->vt || !FILTER_HAS(e->vt, rewrite_body))
		return -1;
	if (c->rewrite != SRT_FILTER_REWRITE_SAME_LENGTH &&
	    c->rewrite != SRT_FILTER_REWRITE_ANY_LENGTH)
		return -1;
	t->rewriter = i;
	t->rewrite = c->rewrite;
	return 0;
}

static enum srt__filter_step run(struct srt__filter_txn *t)
{
	enum srt_filter_verdict v;
	struct pcall *pc;
	size_t i;

	for (i = t->pos; i < total(t->ch); i++) {
		int absent = 0;

		if (t->phase == PH_CONN && !entry_at(t->ch, i)->vt)
			continue; /* the callback sees request heads only */
		if (!(pc = take_call(t, i)))
			return fail(t, i, SRT__FILTER_STATUS_ERROR, "could not be called (out of memory)");
		v = invoke_head(t, i, pc, &absent);
		if (absent)
			continue;
		/* complete() may come before the hook returns PENDING (a
		 * thread of the filter's): the queue delivers it later */
		if (v == SRT_FILTER_PENDING) {
			t->pos = i;
			park(t, pc);
			return SRT__FILTER_WAIT;
		}
		if (stolen(t, pc))
			return fail(t, i, SRT__FILTER_STATUS_ERROR,
				    "completed a call it had not answered PENDING");
		if (pc->call.rewrite && (v == SRT_FILTER_CONTINUE || v == SRT_FILTER_ALLOW) &&
		    take_rewrite(t, i, &pc->call) < 0)
			return fail(t, i, SRT__FILTER_STATUS_ERROR, "%s",
				    t->rewrite ? "asked to rewrite a body another filter rewrites" :
						 "asked to rewrite the body in a way it cannot");
		if (v != SRT_FILTER_CONTINUE || (t->phase == PH_HEAD && pc->call.body_cap))
			return after_head(t, i, v, pc);
	}
	t->pos = i;
	return decide(t, (size_t)-1, SRT_FILTER_ALLOW, 0, NULL);
}

/* One body call to the current filter. */
static enum srt__filter_step body_call(struct srt__filter_txn *t, const void *p, size_t len,
				       int end, int truncated, int *more)
{
	const struct entry *e = entry_at(t->ch, t->pos);
	enum srt_filter_verdict v;
	struct pcall *pc;

	*more = 0;
	if (!(pc = take_call(t, t->pos)))
		return fail(t, t->pos, SRT__FILTER_STATUS_ERROR, "could not be called (out of memory)");
	if (end)
		t->end_sent = 1;
	v = e->vt->request_body(e->state, t->req, p, len, end, truncated, &pc->call);
	if (v == SRT_FILTER_PENDING) {
		park(t, pc);
		return SRT__FILTER_WAIT;
	}
	if (stolen(t, pc))
		return fail(t, t->pos, SRT__FILTER_STATUS_ERROR,
			    "completed a call it had not answered PENDING");
	if (v != SRT_FILTER_CONTINUE)
		return final(t, t->pos, v, &pc->call);
	*more = 1;
	return SRT__FILTER_BODY;
}

/* Give the current body filter what it has not seen of the held body. */
static enum srt__filter_step feed(struct srt__filter_txn *t)
{
	enum srt__filter_step s;
	int more;

	while (t->phase == PH_BODY) {
		size_t room = t->want - t->given, avail = t->body_len - t->given;
		size_t give = avail < room ? avail : room;

		if (t->end_sent) {
			/* it saw everything and did not object */
			t->phase = PH_HEAD;
			t->pos++;
			return run(t);
		}
		if (give) {
			const unsigned char *p = t->body + t->given;

			t->given += give;
			s = body_call(t, p, give, 0, 0, &more);
		} else if (t->body_end && t->given == t->body_len) {
			s = body_call(t, NULL, 0, 1, 0, &more);
		} else if (t->given == t->want && t->body_len > t->given) {
			s = body_call(t, NULL, 0, 1, 1, &more);
		} else {
			return SRT__FILTER_BODY; /* wants bytes not fed yet */
		}
		if (!more)
			return s;
	}
	return SRT__FILTER_DECIDED;
}

/* ------------------------------------------------------------ service */

static void notify(struct srt__filter_txn *t, enum srt__filter_step s)
{
	if (s == SRT__FILTER_WAIT)
		return;
	t->done(t->done_ctx, t, s, &t->out);
}

/* A request-head or request-body call of filter i completed with v: the
 * filter's completed hook (ABI 1.2) applies what it decided to the
 * request on this thread, and answers the verdict that stands. */
static enum srt_filter_verdict settle(struct srt__filter_txn *t, size_t i,
				      enum srt_filter_verdict v, struct pcall *pc)
{
	const struct entry *e = entry_at(t->ch, i);

	if (t->phase == PH_CONN || !t->req || !e->vt || !FILTER_HAS(e->vt, completed))
		return v;
	if (v != SRT_FILTER_CONTINUE && v != SRT_FILTER_ALLOW)
		return v;
	return e->vt->completed(e->state, t->req, v, &pc->call);
}

static void resume(struct srt__filter_txn *t, struct pcall *pc)
{
	enum srt_filter_verdict v = pc->verdict;
	enum srt__filter_step s;
	size_t i = pc->entry;

	t->waiting = NULL;
	/* reuse it for the next call: the filter let go of it */
	free(t->spare);
	t->spare = pc;
	pc->queued = 0;
	if (v == SRT_FILTER_PENDING)
		s = fail(t, i, SRT__FILTER_STATUS_ERROR, "completed a call with PENDING");
	else if (pc->call.rewrite)
		/* a body rewrite is asked for at once, never by a completion */
		s = fail(t, i, SRT__FILTER_STATUS_ERROR, "asked to rewrite the body from a pending call");
	else if ((v = settle(t, i, v, pc)) == SRT_FILTER_PENDING)
		s = fail(t, i, SRT__FILTER_STATUS_ERROR, "answered PENDING from its completed hook");
	else if (t->phase == PH_BODY) {
		if (v != SRT_FILTER_CONTINUE)
			s = final(t, i, v, &pc->call);
		else
			s = feed(t);
	} else {
		s = after_head(t, i, v, pc);
	}
	notify(t, s);
}

static void expire(struct srt__filter_chain *ch)
{
	long long now = mono_ms();
	struct pcall *pc, *next;

	for (pc = ch->pending; pc; pc = next) {
		struct srt__filter_txn *t = pc->txn;
		size_t i = pc->entry;

		next = pc->next;
		if (pc->deadline > now)
			continue;
		abandon(t); /* pc is freed when its completion arrives */
		notify(t, fail(t, i, SRT__FILTER_STATUS_TIMEOUT,
			       "did not answer within %u ms", ch->timeout_ms));
		/* notify may have finished other txns: start over */
		next = ch->pending;
		now = mono_ms();
	}
}

void srt__filter_chain_service(struct srt__filter_chain *ch)
{
	struct pcall *pc, *next;

	srt__wakeup_clear(ch->wake);
	for (pc = take_queue(ch); pc; pc = next) {
		next = pc->qnext;
		if (!pc->txn) {
			free(pc); /* abandoned: its txn ended or timed out */
			continue;
		}
		pending_unlink(ch, pc);
		resume(pc->txn, pc);
	}
	expire(ch);
	arm_timer(ch);
}

/* ------------------------------------------------------------ txn */

struct srt__filter_txn *srt__filter_txn_new(struct srt__filter_chain *ch,
					    const struct srt_filter_conn *conn)
{
	/* one allocation per request: the filters' data pointers follow
	 * the txn */
	struct srt__filter_txn *t = calloc(1, sizeof(*t) + (total(ch) + 1) * sizeof(void *));

	if (!t)
		return NULL;
	t->data = (void **)(t + 1);
	t->ch = ch;
	t->conn = conn;
	t->start_wall = wall_ms();
	t->start_mono = mono_ms();
	return t;
}

static enum srt__filter_step start(struct srt__filter_txn *t, enum phase ph,
				   srt__filter_done_fn done, void *ctx,
				   struct srt__filter_outcome *out)
{
	enum srt__filter_step s;

	t->phase = ph;
	t->pos = 0;
	t->done = done;
	t->done_ctx = ctx;
	t->decided = 0;
	s = run(t);
	if (s != SRT__FILTER_WAIT && out)
		*out = t->out;
	return s;
}

enum srt__filter_step srt__filter_txn_connection(struct srt__filter_txn *t,
						 srt__filter_done_fn done, void *ctx,
						 struct srt__filter_outcome *out)
{
	return start(t, PH_CONN, done, ctx, out);
}

enum srt__filter_step srt__filter_txn_request_head(struct srt__filter_txn *t,
						   struct srt_filter_request *req,
						   srt__filter_done_fn done, void *ctx,
						   struct srt__filter_outcome *out)
{
	t->req = req;
	return start(t, PH_HEAD, done, ctx, out);
}

enum srt__filter_step srt__filter_txn_body(struct srt__filter_txn *t, const void *chunk,
					   size_t len, int end, srt__filter_done_fn done,
					   void *ctx, struct srt__filter_outcome *out)
{
	enum srt__filter_step s;

	t->done = done;
	t->done_ctx = ctx;
	if (t->body_end)
		len = 0;
	if (len) {
		if (len > 2 * (size_t)SRT_FILTER_BODY_MAX - t->body_len) {
			s = decide(t, (size_t)-1, SRT_FILTER_DENY, 413,
				   "request body held for the request filters is too large");
			goto out;
		}
		if (t->body_len + len > t->body_alloc) {
			size_t na = t->body_alloc ? t->body_alloc : 16384;
			unsigned char *nb;

			while (na < t->body_len + len)
				na *= 2;
			if (!(nb = realloc(t->body, na))) {
				s = decide(t, (size_t)-1, SRT_FILTER_DENY, SRT__FILTER_STATUS_ERROR,
					   "out of memory holding the request body for the filters");
				goto out;
			}
			t->body = nb;
			t->body_alloc = na;
		}
		memcpy(t->body + t->body_len, chunk, len);
		t->body_len += len;
	}
	if (end)
		t->body_end = 1;
	if (t->phase != PH_BODY || t->waiting)
		/* decided already, or a filter is still thinking */
		return t->decided ? SRT__FILTER_DECIDED : t->waiting ? SRT__FILTER_WAIT
								     : SRT__FILTER_BODY;
	s = feed(t);
out:
	if (s != SRT__FILTER_WAIT && out)
		*out = t->out;
	return s;
}

const void *srt__filter_txn_held_body(const struct srt__filter_txn *t, size_t *len, int *end)
{
	*len = t->body_len;
	if (end)
		*end = t->body_end;
	return t->body;
}

enum srt__filter_step srt__filter_txn_response_head(struct srt__filter_txn *t,
						    struct srt_filter_response *resp,
						    struct srt__filter_outcome *out)
{
	struct srt__filter_outcome keep = t->out;
	int kept = t->decided;
	size_t i;

	for (i = 0; i < t->ch->n; i++) {
		const struct entry *e = &t->ch->e[i];
		enum srt_filter_verdict v;
		struct pcall *pc;

		if (!FILTER_HAS(e->vt, response_head))
			continue;
		if (!(pc = take_call(t, i)))
			return fail(t, i, SRT__FILTER_STATUS_ERROR, "could not be called (out of memory)");
		v = e->vt->response_head(e->state, resp, &pc->call);
		if (v == SRT_FILTER_PENDING)
			t->spare = NULL; /* abandoned: freed when it completes */
		if (v == SRT_FILTER_PENDING || stolen(t, pc)) {
			fail(t, i, SRT__FILTER_STATUS_ERROR,
			     "answered PENDING to a response head (not allowed there)");
			goto decided;
		}
		if (v == SRT_FILTER_CONTINUE || v == SRT_FILTER_ALLOW)
			continue;
		final(t, i, v, &pc->call);
		goto decided;
	}
	/* the request's own outcome stands */
	t->out = keep;
	t->decided = kept;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->verdict = SRT_FILTER_ALLOW;
	}
	return SRT__FILTER_DECIDED;
decided:
	if (out)
		*out = t->out;
	return SRT__FILTER_DECIDED;
}

int srt__filter_txn_rewrite_mode(const struct srt__filter_txn *t)
{
	return t && t->decided && t->out.verdict == SRT_FILTER_ALLOW ? t->rewrite : 0;
}

int srt__filter_txn_rewrite(struct srt__filter_txn *t, const void *chunk, size_t len, int end,
			    struct srt_filter_sink *out)
{
	const struct entry *e;

	if (!srt__filter_txn_rewrite_mode(t))
		return SRT_E_STATE;
	e = entry_at(t->ch, t->rewriter);
	return e->vt->rewrite_body(e->state, t->req, chunk, len, end, out, &t->data[t->rewriter]);
}

/* The finish hooks, then t is as srt__filter_txn_new() left it but for
 * its conn and start: the spare pcall and a small body buffer are kept. */
static void end(struct srt__filter_txn *t, const struct srt_filter_summary *sum)
{
	struct srt_filter_summary s;
	struct pcall *spare;
	unsigned char *body;
	size_t i, body_alloc;

	abandon(t);
	memset(&s, 0, sizeof(s));
	if (sum)
		memcpy(&s, sum, sum->size && sum->size < sizeof(s) ? sum->size : sizeof(s));
	s.size = sizeof(s);
	if (t->decided) {
		s.verdict = t->out.verdict;
		s.decided_by = t->out.filter;
		s.reason = t->out.verdict == SRT_FILTER_DENY ? t->out.reason : NULL;
	} else {
		/* ended before the chain decided: nothing went upstream */
		s.verdict = SRT_FILTER_DENY;
		s.reason = "the connection ended before the request filters decided";
	}
	s.start_ms = t->start_wall;
	s.duration_ms = mono_ms() - t->start_mono;
	for (i = 0; i < t->ch->n; i++) {
		const struct entry *e = &t->ch->e[i];

		if (FILTER_HAS(e->vt, finish))
			e->vt->finish(e->state, t->conn, t->req, &s, &t->data[i]);
	}
	spare = t->spare;
	body = t->body;
	body_alloc = t->body_alloc;
	if (body_alloc > 16384) {
		free(body);
		body = NULL;
		body_alloc = 0;
	}
	{
		struct srt__filter_chain *ch = t->ch;

		memset(t, 0, sizeof(*t) + (total(ch) + 1) * sizeof(void *));
		t->ch = ch;
	}
	t->data = (void **)(t + 1);
	t->spare = spare;
	t->body = body;
	t->body_alloc = body_alloc;
	t->idle = 1;
}

void srt__filter_txn_restart(struct srt__filter_txn *t, const struct srt_filter_conn *conn)
{
	t->idle = 0;
	t->conn = conn;
	t->start_wall = wall_ms();
	t->start_mono = mono_ms();
}

void srt__filter_txn_end(struct srt__filter_txn *t, const struct srt_filter_summary *sum)
{
	if (t && !t->idle)
		end(t, sum);
}

void srt__filter_txn_finish(struct srt__filter_txn *t, const struct srt_filter_summary *sum)
{
	if (!t)
		return;
	if (!t->idle)
		end(t, sum);
	free(t->spare);
	free(t->body);
	free(t);
}
