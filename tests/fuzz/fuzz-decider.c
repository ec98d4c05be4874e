/* libFuzzer harness: what a decider sends (proxies/decider.h). The input
 * is read as a stream of frames, exactly as the link reads it, and each
 * frame's payload goes through the strict JSON reader and the message
 * checks; the whole input is also parsed as one payload. Checks: a frame
 * is never complete past the input nor longer than the limit, and
 * complete at the same size with more bytes after it; an accepted hello
 * has only valid, unique entries; an accepted verdict has a positive id,
 * a status in 400..599 for deny, a max in range for need_body, header
 * names lower-case tokens that are neither framing headers nor (when set)
 * credential headers, values without CR, LF or NUL, and a credential of
 * printable ASCII with its class. Then the input split on newlines is sent
 * the other way as a request: a frame built is exactly as long as it says
 * and holds no raw control byte. */
#include "config.h"

#include <stdbool.h>

#include "fuzz.h"
#include "proxies/decider.h"

static void check_name(const char *n, bool set)
{
	const char *p;

	FUZZ_CHECK(*n, "empty header name");
	for (p = n; *p; p++)
		FUZZ_CHECK(!(*p >= 'A' && *p <= 'Z') && (unsigned char)*p > 0x20 && *p != ':',
			   "header name \"%s\" not a lower-case token", n);
	FUZZ_CHECK(!srt__decider_framing_header(n), "framing header %s passed", n);
	if (set)
		FUZZ_CHECK(!srt__decider_credential_header(n), "credential header %s set", n);
}

static void check_msg(const struct srt__decider_msg *m)
{
	const struct srt__decider_verdict *v = &m->verdict;
	size_t i, k;

	if (m->type == SRT__DM_HELLO) {
		for (i = 0; i < m->hello.nallowed; i++) {
			FUZZ_CHECK(srt__decider_entry_valid(m->hello.allowed[i]), "bad allowed entry");
			for (k = 0; k < i; k++)
				FUZZ_CHECK(strcmp(m->hello.allowed[i], m->hello.allowed[k]), "repeat");
		}
		for (i = 0; i < m->hello.ndenied; i++)
			FUZZ_CHECK(srt__decider_entry_valid(m->hello.denied[i]), "bad denied entry");
		return;
	}
	FUZZ_CHECK(m->type == SRT__DM_VERDICT, "type %d", m->type);
	FUZZ_CHECK(v->id >= 1, "id 0");
	switch (v->action) {
	case SRT__DV_DENY:
		FUZZ_CHECK(v->status >= 400 && v->status <= 599, "status %d", v->status);
		if (v->reason) {
			FUZZ_CHECK(strlen(v->reason) <= SRT__DECIDER_REASON_MAX, "long reason");
			for (i = 0; v->reason[i]; i++)
				FUZZ_CHECK((unsigned char)v->reason[i] >= 0x20 && v->reason[i] != 0x7f,
					   "control byte in the reason");
		}
		break;
	case SRT__DV_NEED_BODY:
		FUZZ_CHECK(v->max >= 1 && v->max <= SRT__DECIDER_BODY_MAX, "max %llu",
			   (unsigned long long)v->max);
		break;
	case SRT__DV_ALLOW:
		for (i = 0; i < v->nset; i++) {
			check_name(v->set[i].name, true);
			FUZZ_CHECK(!strpbrk(v->set[i].value, "\r\n"), "CR/LF in a value");
		}
		for (i = 0; i < v->nremove; i++)
			check_name(v->remove[i], false);
		FUZZ_CHECK(!v->cred == !v->credential, "cred without credential");
		if (v->credential) {
			size_t l = strlen(v->credential);
			FUZZ_CHECK(l >= 1 && l <= SRT__DECIDER_CREDENTIAL_MAX, "credential length");
			for (i = 0; i < l; i++)
				FUZZ_CHECK(v->credential[i] >= 0x21 && v->credential[i] <= 0x7e,
					   "credential byte");
		}
		break;
	default:
		FUZZ_CHECK(0, "action %d", v->action);
	}
}

static void one_payload(const uint8_t *p, size_t n)
{
	struct srt__decider_msg m;
	char why[200];

	why[0] = 'x';
	if (srt__decider_parse(p, n, &m, why, sizeof(why)) < 0) {
		FUZZ_CHECK(why[0] && strlen(why) < sizeof(why), "a violation without a reason");
		return;
	}
	check_msg(&m);
	srt__decider_msg_release(&m);
}

static void frames(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		long k = srt__decider_frame(data + off, size - off);
		if (k <= 0)
			return;
		FUZZ_CHECK((size_t)k <= size - off && (size_t)k <= 4 + SRT__DECIDER_FRAME_MAX,
			   "frame of %ld past the input", k);
		FUZZ_CHECK(srt__decider_frame(data + off, (size_t)k) == k, "frame not stable");
		FUZZ_CHECK(srt__decider_frame(data + off, (size_t)k - 1) == 0, "complete early");
		one_payload(data + off + 4, (size_t)k - 4);
		off += (size_t)k;
	}
}

static void build(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *f[8] = { 0 }, *save = NULL, *t;
	struct srt__decider_field h[3];
	struct srt__decider_req r;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, i, nf = 0;
	char why[200];

	for (t = strtok_r(s, "\n", &save); t && nf < 8; t = strtok_r(NULL, "\n", &save))
		f[nf++] = t;
	if (nf < 3) {
		free(s);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.method = f[0];
	r.host = f[1];
	r.port = 443;
	r.path = f[2];
	r.query = f[3];
	r.sni = f[4];
	for (i = 0; i < 3 && 5 + i < nf; i++) {
		h[i].name = i == 2 ? "host" : "x-h";
		h[i].value = f[5 + i];
		r.nheaders++;
	}
	r.headers = h;
	if (srt__decider_build_req(&buf, &len, &cap, 1, &r, why, sizeof(why)) == 0) {
		FUZZ_CHECK(srt__decider_frame(buf, len) == (long)len, "built frame length");
		for (i = 4; i < len; i++)
			FUZZ_CHECK(buf[i] >= 0x20 && buf[i] != 0x7f, "raw control byte in a req");
	} else
		FUZZ_CHECK(len == 0, "a refused req left bytes behind");
	free(buf);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	frames(data, size);
	one_payload(data, size);
	build(data, size);
	return 0;
}
