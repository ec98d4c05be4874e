/* Violation store: a bounded ring of the last events, with attribution by
 * command key, ignoreViolations matching, and the stderr annotation. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/platform.h"
#include "violations.h"

#define MAX_LINE 2048
#define MAX_REGISTERED 1024

struct event {
	char *line;
	char *key;
	char *command;
	long long time_ms;
};

struct reg {
	char *key;
	char *text;
};

struct srt__vstore {
	pthread_mutex_t lock;
	struct srt__vstore *next; /* in `stores`, for fork (below) */
	struct event ring[SRT_VSTORE_KEEP];
	size_t head, count;
	unsigned long total;
	struct reg regs[MAX_REGISTERED];
	size_t nregs, reg_next;
	struct srt__settings ignore; /* only ignore_violations is used */
	srt_violation_fn listener;
	void *listener_ctx;
};

static int utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80) return 1;
	if ((p[0] & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80) return 2;
	if ((p[0] & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) return 3;
	if ((p[0] & 0xf8) == 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	    (p[3] & 0xc0) == 0x80) return 4;
	return -1;
}

static uint32_t utf8_cp(const unsigned char *p, int l)
{
	switch (l) {
	case 1: return p[0];
	case 2: return ((uint32_t)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
	case 3: return ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
	default: return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3f) << 12) |
			((uint32_t)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
	}
}

/* The characters a violation line must not carry to a terminal or a log
 * reader, collapsed to one space: C0, DEL, C1, soft hyphen, bidi and
 * zero-width controls, line/paragraph separators, BOM, tag characters. */
static int invisible(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad || c == 0x61c ||
	       (c >= 0x200b && c <= 0x200f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0xfeff || (c >= 0xe0000 && c <= 0xe007f);
}

void srt__violation_sanitize(char *line)
{
	unsigned char *r = (unsigned char *)line, *w = (unsigned char *)line;
	int in_run = 0;

	while (*r) {
		int l = utf8_len(r);
		uint32_t c;

		if (l < 0) { /* invalid byte: treat as invisible */
			r++;
			if (!in_run)
				*w++ = ' ';
			in_run = 1;
			continue;
		}
		c = utf8_cp(r, l);
		if (invisible(c)) {
			if (!in_run)
				*w++ = ' ';
			in_run = 1;
			r += l;
			continue;
		}
		in_run = 0;
		if (c == '<' || c == '>') {
			r++;
			continue;
		}
		memmove(w, r, (size_t)l);
		w += l;
		r += l;
	}
	*w = '\0';
	/* trim */
	while (w > (unsigned char *)line && w[-1] == ' ')
		*--w = '\0';
	r = (unsigned char *)line;
	while (*r == ' ')
		r++;
	if (r != (unsigned char *)line)
		memmove(line, r, strlen((char *)r) + 1);
}

int srt__violation_ignored(const struct srt__settings *s, const char *line,
			   const char *command)
{
	size_t i, j;

	for (i = 0; i < s->n_ignore_violations; i++) {
		const struct srt__ignore_rule *r = &s->ignore_violations[i];
		if (strcmp(r->command_pattern, "*") != 0 &&
		    (!command || !strstr(command, r->command_pattern)))
			continue;
		for (j = 0; j < r->lines.n; j++)
			if (strstr(line, r->lines.v[j]))
				return 1;
	}
	return 0;
}

/* Keys compare on their first 100 characters (the reference counts UTF-16
 * units; we count code points, which agree for every BMP key). */
static size_t key_prefix_len(const char *k)
{
	const unsigned char *p = (const unsigned char *)k;
	size_t chars = 0;

	while (*p && chars < SRT_KEY_CHARS) {
		int l = utf8_len(p);
		p += l > 0 ? l : 1;
		chars++;
	}
	return (size_t)((const char *)p - k);
}

static int key_eq(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	la = key_prefix_len(a);
	lb = key_prefix_len(b);
	return la == lb && !memcmp(a, b, la);
}

/* A fork while another thread holds a store's lock (the proxy's thread
 * records a denied request, with the listener called under the lock)
 * would leave the child a lock no thread of its own can release, and the
 * child's first run, which registers its command here, would wait on it
 * forever. So every live store is listed, and fork takes all their locks
 * first (waiting for the holders to finish) and releases them on both
 * sides: the child gets consistent stores and free locks. */
static pthread_mutex_t stores_lock = PTHREAD_MUTEX_INITIALIZER;
static struct srt__vstore *stores;
static int fork_ready; /* the handlers are registered; under stores_lock */

static void fork_prepare(void)
{
	struct srt__vstore *vs;

	pthread_mutex_lock(&stores_lock);
	for (vs = stores; vs; vs = vs->next)
		pthread_mutex_lock(&vs->lock);
}

static void fork_done(void)
{
	struct srt__vstore *vs;

	for (vs = stores; vs; vs = vs->next)
		pthread_mutex_unlock(&vs->lock);
	pthread_mutex_unlock(&stores_lock);
}

int srt__vstore_new(struct srt__vstore **out)
{
	struct srt__vstore *vs = calloc(1, sizeof(*vs));

	if (!vs)
		return SRT_E_NOMEM;
	pthread_mutex_init(&vs->lock, NULL); /* vs->ignore: zeroed, no rules */
	pthread_mutex_lock(&stores_lock);
	/* registered once, before the first store exists, so no fork can be
	 * running these handlers here */
	if (!fork_ready && srt__os_atfork(fork_prepare, fork_done, fork_done) != 0) {
		pthread_mutex_unlock(&stores_lock);
		pthread_mutex_destroy(&vs->lock);
		free(vs);
		return SRT_E_NOMEM;
	}
	fork_ready = 1;
	vs->next = stores;
	stores = vs;
	pthread_mutex_unlock(&stores_lock);
	*out = vs;
	return SRT_OK;
}

static void event_release(struct event *e)
{
	free(e->line);
	free(e->key);
	free(e->command);
	memset(e, 0, sizeof(*e));
}

static void ignore_release(struct srt__settings *s)
{
	size_t i;

	for (i = 0; i < s->n_ignore_violations; i++) {
		free(s->ignore_violations[i].command_pattern);
		srt__strv_release(&s->ignore_violations[i].lines);
	}
	free(s->ignore_violations);
	s->ignore_violations = NULL;
	s->n_ignore_violations = 0;
}

void srt__vstore_free(struct srt__vstore *vs)
{
	struct srt__vstore **pp;
	size_t i;

	if (!vs)
		return;
	pthread_mutex_lock(&stores_lock);
	for (pp = &stores; *pp; pp = &(*pp)->next)
		if (*pp == vs) {
			*pp = vs->next;
			break;
		}
	pthread_mutex_unlock(&stores_lock);
	for (i = 0; i < SRT_VSTORE_KEEP; i++)
		event_release(&vs->ring[i]);
	for (i = 0; i < vs->nregs; i++) {
		free(vs->regs[i].key);
		free(vs->regs[i].text);
	}
	ignore_release(&vs->ignore);
	pthread_mutex_destroy(&vs->lock);
	free(vs);
}

int srt__vstore_set_ignore(struct srt__vstore *vs, const struct srt__settings *s)
{
	struct srt__settings copy;
	size_t i, j;

	memset(&copy, 0, sizeof(copy));
	if (s->n_ignore_violations) {
		copy.ignore_violations = calloc(s->n_ignore_violations, sizeof(*copy.ignore_violations));
		if (!copy.ignore_violations)
			return SRT_E_NOMEM;
	}
	for (i = 0; i < s->n_ignore_violations; i++) {
		struct srt__ignore_rule *d = &copy.ignore_violations[i];
		copy.n_ignore_violations = i + 1;
		if (!(d->command_pattern = strdup(s->ignore_violations[i].command_pattern)))
			goto nomem;
		for (j = 0; j < s->ignore_violations[i].lines.n; j++)
			if (srt__strv_push(&d->lines, s->ignore_violations[i].lines.v[j]))
				goto nomem;
	}
	pthread_mutex_lock(&vs->lock);
	ignore_release(&vs->ignore);
	vs->ignore.ignore_violations = copy.ignore_violations;
	vs->ignore.n_ignore_violations = copy.n_ignore_violations;
	pthread_mutex_unlock(&vs->lock);
	return SRT_OK;
nomem:
	ignore_release(&copy);
	return SRT_E_NOMEM;
}

int srt__vstore_register(struct srt__vstore *vs, const char *key, const char *text)
{
	char *k, *t;
	size_t i;

	if (!key)
		return SRT_OK;
	k = strdup(key);
	t = strdup(text ? text : key);
	if (!k || !t) {
		free(k);
		free(t);
		return SRT_E_NOMEM;
	}
	pthread_mutex_lock(&vs->lock);
	for (i = 0; i < vs->nregs; i++)
		if (key_eq(vs->regs[i].key, key))
			break; /* the same key again: replace its text */
	if (i == vs->nregs) {
		if (vs->nregs < MAX_REGISTERED) {
			i = vs->nregs++; /* a slot never used: NULL from calloc */
		} else { /* FIFO: replace the oldest */
			i = vs->reg_next;
			vs->reg_next = (vs->reg_next + 1) % MAX_REGISTERED;
		}
	}
	free(vs->regs[i].key);
	free(vs->regs[i].text);
	vs->regs[i].key = k;
	vs->regs[i].text = t;
	pthread_mutex_unlock(&vs->lock);
	return SRT_OK;
}

void srt__vstore_listen(struct srt__vstore *vs, srt_violation_fn fn, void *ctx)
{
	pthread_mutex_lock(&vs->lock);
	vs->listener = fn;
	vs->listener_ctx = ctx;
	pthread_mutex_unlock(&vs->lock);
}

static const char *command_text_locked(struct srt__vstore *vs, const char *key)
{
	size_t i;

	for (i = 0; key && i < vs->nregs; i++)
		if (key_eq(vs->regs[i].key, key))
			return vs->regs[i].text;
	return NULL;
}

int srt__vstore_add(struct srt__vstore *vs, const char *key, const char *line)
{
	char buf[MAX_LINE];
	struct event e;
	struct srt_violation v;
	const char *cmd;
	struct timespec ts;
	srt_violation_fn fn;
	void *ctx;
	char cmdbuf[512];

	snprintf(buf, sizeof(buf), "%s", line ? line : "");
	srt__violation_sanitize(buf);
	clock_gettime(CLOCK_REALTIME, &ts);

	pthread_mutex_lock(&vs->lock);
	cmd = command_text_locked(vs, key);
	if (!cmd && key) {
		/* an unregistered key is reported sanitised and cut to 100 chars */
		size_t l = key_prefix_len(key);
		if (l >= sizeof(cmdbuf))
			l = sizeof(cmdbuf) - 1;
		memcpy(cmdbuf, key, l);
		cmdbuf[l] = '\0';
		srt__violation_sanitize(cmdbuf);
		cmd = cmdbuf;
	}
	if (srt__violation_ignored(&vs->ignore, buf, cmd)) {
		pthread_mutex_unlock(&vs->lock);
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.line = strdup(buf);
	e.key = key ? strdup(key) : NULL;
	e.command = cmd ? strdup(cmd) : NULL;
	e.time_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (!e.line) {
		event_release(&e);
		pthread_mutex_unlock(&vs->lock);
		return 0;
	}
	{
		size_t slot = (vs->head + vs->count) % SRT_VSTORE_KEEP;
		if (vs->count == SRT_VSTORE_KEEP) {
			slot = vs->head;
			vs->head = (vs->head + 1) % SRT_VSTORE_KEEP;
			event_release(&vs->ring[slot]);
		} else {
			vs->count++;
		}
		vs->ring[slot] = e;
		vs->total++;
		v.line = vs->ring[slot].line;
		v.command = vs->ring[slot].command;
		v.key = vs->ring[slot].key;
		v.time_ms = vs->ring[slot].time_ms;
	}
	fn = vs->listener;
	ctx = vs->listener_ctx;
	/* The listener runs under the lock so the event it sees stays valid;
	 * listeners must not call back into the store, create or free a
	 * sandbox (a fork would take stores_lock, then wait for this lock),
	 * nor fork. */
	if (fn)
		fn(ctx, &v);
	pthread_mutex_unlock(&vs->lock);
	return 1;
}

int srt__vstore_get(struct srt__vstore *vs, const char *key,
		    struct srt_violation **out, size_t *n)
{
	struct srt_violation *arr;
	size_t i, k = 0;

	pthread_mutex_lock(&vs->lock);
	arr = calloc(vs->count ? vs->count : 1, sizeof(*arr));
	if (!arr) {
		pthread_mutex_unlock(&vs->lock);
		return SRT_E_NOMEM;
	}
	for (i = 0; i < vs->count; i++) {
		struct event *e = &vs->ring[(vs->head + i) % SRT_VSTORE_KEEP];
		if (key && !key_eq(e->key, key))
			continue;
		arr[k].line = strdup(e->line);
		arr[k].command = e->command ? strdup(e->command) : NULL;
		arr[k].key = e->key ? strdup(e->key) : NULL;
		arr[k].time_ms = e->time_ms;
		k++;
	}
	pthread_mutex_unlock(&vs->lock);
	*out = arr;
	*n = k;
	return SRT_OK;
}

unsigned long srt__vstore_total(struct srt__vstore *vs)
{
	unsigned long t;

	pthread_mutex_lock(&vs->lock);
	t = vs->total;
	pthread_mutex_unlock(&vs->lock);
	return t;
}

void srt_violations_free(struct srt_violation *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++) {
		free((char *)v[i].line);
		free((char *)v[i].command);
		free((char *)v[i].key);
	}
	free(v);
}
