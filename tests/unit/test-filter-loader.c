/* The loader applied to request-filter modules: the one header check the
 * backends also go through refuses every wrong filter module naming the
 * file and the versions; a module built against the frozen ABI 1.0 header
 * loads, runs through the chain, and its slot that 1.1 appended reads as
 * absent (the chain never calls what lies past the module's size). */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libsrt/loader.h"
#include "proxies/filter-chain.h"
#include "tap.h"

static char dir[4096];

static int load(const char *name, struct srt__module **m, const struct srt_filter **vt,
		struct srt_diag *d)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	memset(d, 0, sizeof(*d));
	*m = NULL;
	return srt__module_load_filter(path, m, vt, d);
}

static void refused(const char *name, const char *want, const char *what)
{
	struct srt__module *m;
	const struct srt_filter *vt = NULL;
	struct srt_diag d;

	ok(load(name, &m, &vt, &d) == SRT_E_MODULE && m == NULL, "%s refused", what);
	ok(contains(d.message, name) && contains(d.message, want), "%s: %s", what, d.message);
}

static void test_wrong_modules(void)
{
	char want[64];

	refused("fake_filter_bad_magic", "not an srt filter module", "a backend's magic");
	snprintf(want, sizeof(want), "built for ABI %d.%d", SRT_FILTER_ABI_MAJOR + 1,
		 SRT_FILTER_ABI_MINOR);
	refused("fake_filter_newer_major", want, "a newer major");
	refused("fake_filter_short", "truncated", "a size short of the mandatory slots");
	refused("fake_filter_no_create", "mandatory slot empty", "create left NULL");
	refused("fake_filter_newer_minor", "upgrade srt", "a newer minor");
	refused("fake_ok", "does not export srt_filter_entry", "a backend module");
}

static void test_header_check_shared(void)
{
	struct srt_module_header h = { SRT_FILTER_MAGIC, SRT_FILTER_ABI_MAJOR, 0,
				       (uint32_t)SRT__FILTER_MIN_SIZE, "x" };
	struct srt_diag d;

	ok(srt__module_check_header(&h, "/m.so", &srt__filter_abi, &d) == SRT_OK,
	   "a filter header at the minimum size passes the filter check");
	ok(srt__module_check_header(&h, "/m.so", &srt__backend_abi, &d) == SRT_E_MODULE &&
	   contains(d.message, "not an srt backend module"),
	   "and the same function refuses it as a backend: %s", d.message);
	h.size--;
	ok(srt__module_check_header(&h, "/m.so", &srt__filter_abi, &d) == SRT_E_MODULE,
	   "one byte short of destroy is truncated");
}

struct logged {
	int past;
};

static void on_log(void *ctx, int is_debug, const char *line)
{
	struct logged *l = ctx;

	(void)is_debug;
	if (strstr(line, "read past the module's size"))
		l->past++;
}

static void on_done(void *ctx, struct srt__filter_txn *t, enum srt__filter_step s,
		    const struct srt__filter_outcome *o)
{
	(void)ctx;
	(void)t;
	(void)s;
	(void)o;
}

static void test_older_minor(void)
{
	struct srt_filter_conn conn = { sizeof(conn), "example.com", 80, NULL, "http", NULL, 1 };
	struct srt_filter_request r = { sizeof(r), &conn, "GET", "http://example.com/",
					"example.com", 80, "/", -1, NULL, 1 };
	struct srt__filter_chain *ch = NULL;
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_error err;
	struct srt__module *m;
	const struct srt_filter *vt = NULL;
	struct srt__fheaders fh;
	struct logged l = { 0 };
	struct srt_diag d;

	ok(load("fake_filter_abi_1_0", &m, &vt, &d) == SRT_OK,
	   "a filter built for ABI %d.0 loads (%s)", SRT_FILTER_ABI_MAJOR, d.message);
	if (!vt)
		return;
	ok(vt->hdr.abi_minor == 0 && vt->hdr.size == offsetof(struct srt_filter, cancel),
	   "its struct ends where the 1.1 cancel slot begins (size %u)", (unsigned)vt->hdr.size);
	srt__fheaders_init(&fh, 4096);
	r.headers = &fh.api;
	srt__filter_chain_new(0, on_log, &l, &ch);
	ok(srt__filter_chain_add(ch, vt, "old", NULL, &err) == SRT_OK, "it is created");
	t = srt__filter_txn_new(ch, &conn);
	ok(srt__filter_txn_request_head(t, &r, on_done, NULL, &o) == SRT__FILTER_WAIT,
	   "its hook runs (GET is pending)");
	srt__filter_txn_finish(t, NULL); /* abandons the pending call: cancel if present */
	ok(l.past == 0, "the slot past its size reads as absent: never called");
	r.method = "POST";
	t = srt__filter_txn_new(ch, &conn);
	ok(srt__filter_txn_request_head(t, &r, on_done, NULL, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_DENY && o.status == 403, "and it decides (%s)", o.reason);
	srt__filter_txn_finish(t, NULL);
	srt__filter_chain_free(ch);
	srt__fheaders_release(&fh);
	srt__module_free(m);
}

/* A module built for 1.2 (before rewrite_body) loads, runs, and its
 * requests are never body-rewritten: the slot past its size is absent. */
static void test_minor_1_2(void)
{
	struct srt_filter_conn conn = { sizeof(conn), "example.com", 443, NULL, "https", NULL, 1 };
	struct srt_filter_request r = { sizeof(r), &conn, "POST", "http://example.com/",
					"example.com", 443, "/", 10, NULL, 1 };
	struct srt__filter_chain *ch = NULL;
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_error err;
	struct srt__module *m;
	const struct srt_filter *vt = NULL;
	struct srt__fheaders fh;
	struct logged l = { 0 };
	struct srt_diag d;

	ok(load("fake_filter_abi_1_2", &m, &vt, &d) == SRT_OK,
	   "a filter built for ABI %d.2 loads (%s)", SRT_FILTER_ABI_MAJOR, d.message);
	if (!vt)
		return;
	ok(vt->hdr.abi_minor == 2 && vt->hdr.size == offsetof(struct srt_filter, rewrite_body),
	   "its struct ends where the 1.3 rewrite_body slot begins (size %u)", (unsigned)vt->hdr.size);
	srt__fheaders_init(&fh, 4096);
	r.headers = &fh.api;
	srt__filter_chain_new(0, on_log, &l, &ch);
	ok(srt__filter_chain_add(ch, vt, "old", NULL, &err) == SRT_OK, "it is created");
	t = srt__filter_txn_new(ch, &conn);
	ok(srt__filter_txn_request_head(t, &r, on_done, NULL, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_ALLOW, "its request-head hook runs and the request is allowed");
	ok(srt__filter_txn_rewrite_mode(t) == 0 &&
	   srt__filter_txn_rewrite(t, "0123456789", 10, 1, NULL) == SRT_E_STATE && l.past == 0,
	   "its body is not rewritten: the slot past its size reads as absent, never called");
	srt__filter_txn_finish(t, NULL);
	srt__filter_chain_free(ch);
	srt__fheaders_release(&fh);
	srt__module_free(m);
}

static void test_good_and_config_error(void)
{
	struct srt__filter_chain *ch = NULL;
	struct srt_filter_error err;
	struct srt__module *m;
	const struct srt_filter *vt = NULL;
	struct srt_diag d;

	ok(load("fake_filter_ok", &m, &vt, &d) == SRT_OK, "a current filter module loads (%s)",
	   d.message);
	if (!vt)
		return;
	srt__filter_chain_new(0, NULL, NULL, &ch);
	ok(srt__filter_chain_add(ch, vt, "fake", "{\"x\":1}", &err) != SRT_OK &&
	   !strcmp(err.path, "unknown"), "a bad config comes back with its key path");
	ok(srt__filter_chain_add(ch, vt, "fake", "{}", &err) == SRT_OK, "a good config is taken");
	srt__filter_chain_free(ch);
	srt__module_free(m);
}

static void test_names(void)
{
	struct srt__module *m = NULL;
	const struct srt_filter *vt;
	struct srt_diag d;

	ok(srt__module_load_filter("../evil", &m, &vt, &d) == SRT_E_INVAL &&
	   contains(d.message, "neither a name"), "a relative path is refused: %s", d.message);
	setenv("SRT_FILTER_DIR", dir, 1);
	ok(srt__module_load_filter("fake_filter_ok", &m, &vt, &d) == SRT_OK,
	   "a plain name loads from the filter directory (%s)", d.message);
	srt__module_free(m);
	ok(srt__module_load_filter("no-such-filter", &m, &vt, &d) == SRT_E_MODULE &&
	   contains(d.message, "filter module") && contains(d.message, "no-such-filter.so"),
	   "a missing filter is named: %s", d.message);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(dir, sizeof(dir), "%s/tests/fake/.libs", b ? b : ".");
	TAP_RUN(test_wrong_modules);
	TAP_RUN(test_header_check_shared);
	TAP_RUN(test_older_minor);
	TAP_RUN(test_minor_1_2);
	TAP_RUN(test_good_and_config_error);
	TAP_RUN(test_names);
	return tap_done();
}
