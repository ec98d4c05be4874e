/* The module loader refuses every incompatible module with a message that
 * names the file and the versions, and never calls into it. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsrt/backend-call.h"
#include "libsrt/loader.h"
#include "tap.h"

static char dir[4096];

static int load(const char *name, struct srt_diag *d)
{
	char path[4200];
	struct srt__module *m = NULL;
	const struct srt_backend *vt = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	memset(d, 0, sizeof(*d));
	rc = srt__module_load_backend(path, &m, &vt, d);
	if (rc == 0)
		srt__module_free(m);
	return rc;
}

static void case_ok(void)
{
	struct srt_diag d;

	ok(load("fake_ok", &d) == 0, "a compatible module loads (%s)", d.message);
}

static void case_bad_major(void)
{
	struct srt_diag d;
	char want[64];

	ok(load("fake_bad_major", &d) == SRT_E_MODULE, "wrong ABI major refused");
	snprintf(want, sizeof(want), "ABI %d.%d", SRT_BACKEND_ABI_MAJOR + 1, SRT_BACKEND_ABI_MINOR);
	ok(contains(d.message, "fake_bad_major.so") && contains(d.message, want),
	   "message names the file and the found version: %s", d.message);
	snprintf(want, sizeof(want), "needs ABI %d.x", SRT_BACKEND_ABI_MAJOR);
	ok(contains(d.message, want), "message names the wanted version");
}

static void case_bad_magic(void)
{
	struct srt_diag d;

	ok(load("fake_bad_magic", &d) == SRT_E_MODULE, "wrong magic refused");
	ok(contains(d.message, "fake_bad_magic.so") && contains(d.message, "0x12345678") &&
	   contains(d.message, "not an srt backend"), "magic message: %s", d.message);
}

static void case_truncated(void)
{
	struct srt_diag d;
	char want[64];

	ok(load("fake_truncated", &d) == SRT_E_MODULE, "truncated size refused");
	snprintf(want, sizeof(want), "ABI %d.%d", SRT_BACKEND_ABI_MAJOR, SRT_BACKEND_ABI_MINOR);
	ok(contains(d.message, "fake_truncated.so") && contains(d.message, "truncated") &&
	   contains(d.message, want), "truncated message: %s", d.message);
}

static void case_newer_minor(void)
{
	struct srt_diag d;

	ok(load("fake_newer_minor", &d) == SRT_E_MODULE, "newer ABI minor refused");
	ok(contains(d.message, "upgrade srt"), "minor message: %s", d.message);
}

static void case_null_slot(void)
{
	struct srt_diag d;

	ok(load("fake_null_slot", &d) == SRT_E_MODULE, "empty mandatory slot refused");
}

static void case_partial_spawn(void)
{
	struct srt_diag d;

	ok(load("fake_partial_spawn", &d) == SRT_E_MODULE && strstr(d.message, "wait_proc"),
	   "spawn without wait_proc and end_proc refused (%s)", d.message);
}

static void case_missing(void)
{
	struct srt_diag d;

	ok(load("does_not_exist", &d) == SRT_E_MODULE && contains(d.message, "does_not_exist.so"),
	   "missing module named: %s", d.message);
}

static void case_names(void)
{
	struct srt__module *m = NULL;
	const struct srt_backend *vt = NULL;
	struct srt_diag d;

	memset(&d, 0, sizeof(d));
	ok(srt__module_load_backend("../evil", &m, &vt, &d) == SRT_E_INVAL,
	   "relative path refused: %s", d.message);
	ok(srt__module_load_backend("a/b", &m, &vt, &d) == SRT_E_INVAL,
	   "name with a slash refused");
	ok(srt__module_load_backend("", &m, &vt, &d) == SRT_E_INVAL, "empty name refused");
	/* the case runs in its own process: the environment changes here
	 * reach no other case */
	unsetenv("SRT_BACKEND_DIR");
	ok(srt__module_load_backend("no-such-backend", &m, &vt, &d) == SRT_E_MODULE &&
	   contains(d.message, SRT_BACKENDDIR "/no_such_backend.so"),
	   "a name is looked up only in the configured directory: %s", d.message);
	setenv("SRT_BACKEND_DIR", "/nonexistent/srt-modules", 1);
	ok(srt__module_load_backend("no-such-backend", &m, &vt, &d) == SRT_E_MODULE &&
	   contains(d.message, "\"/nonexistent/srt-modules\" (SRT_BACKEND_DIR)"),
	   "an absolute SRT_BACKEND_DIR replaces the directory, and a missing one is named: %s",
	   d.message);
	setenv("SRT_BACKEND_DIR", "relative/dir", 1);
	ok(srt__module_load_backend("no-such-backend", &m, &vt, &d) == SRT_E_MODULE &&
	   contains(d.message, SRT_BACKENDDIR "/no_such_backend.so"),
	   "a relative SRT_BACKEND_DIR is ignored (never a path from the working directory)");
	setenv("SRT_BACKEND_DIR", dir, 1);
	ok(srt__module_load_backend("fake-ok", &m, &vt, &d) == SRT_OK,
	   "a plain name loads from SRT_BACKEND_DIR, '-' spelled '_'");
	srt__module_free(m);
	m = NULL;
	{
		/* a directory others can write: somebody else could have put
		 * the module there */
		char open_dir[] = "/tmp/srt-loader-open.XXXXXX", link_path[PATH_MAX], target[sizeof(dir) + 16];

		if (mkdtemp(open_dir) && chmod(open_dir, 0777) == 0) {
			snprintf(link_path, sizeof(link_path), "%s/fake_ok.so", open_dir);
			snprintf(target, sizeof(target), "%s/fake_ok.so", dir);
			if (symlink(target, link_path) < 0)
				link_path[0] = '\0';
			setenv("SRT_BACKEND_DIR", open_dir, 1);
			memset(&d, 0, sizeof(d));
			ok(srt__module_load_backend("fake-ok", &m, &vt, &d) == SRT_E_MODULE &&
			   contains(d.message, "SRT_BACKEND_DIR") && contains(d.message, "nobody else can write"),
			   "a world-writable SRT_BACKEND_DIR is refused, nothing loaded: %s", d.message);
			srt__module_free(m);
			if (link_path[0])
				unlink(link_path);
			rmdir(open_dir);
		} else {
			ok(0, "could not make a test directory: %s", strerror(errno));
		}
	}
}

static void count_layer(void *ctx, const char *layer, int works,
			const char *detail, const char *fix)
{
	(void)layer; (void)works; (void)detail; (void)fix;
	++*(int *)ctx;
}

/* A module of the current minor: its optional slot is called through the
 * wrapper; the slots it leaves NULL read as absent. */
static void test_current_minor(void)
{
	char path[4200];
	struct srt__module *m = NULL;
	const struct srt_backend *vt = NULL;
	struct srt_diag d;
	int reports = 0;

	snprintf(path, sizeof(path), "%s/fake_ok.so", dir);
	memset(&d, 0, sizeof(d));
	if (srt__module_load_backend(path, &m, &vt, &d) != 0) {
		ok(0, "fake_ok loads: %s", d.message);
		return;
	}
	ok(srt__backend_diagnose(vt, count_layer, &reports) == SRT_OK && reports == 1,
	   "a present optional slot is called through its wrapper");
	ok(srt__backend_explain(vt, NULL, NULL, stdout) == SRT_E_UNSUPPORTED,
	   "a NULL optional slot is unsupported");
	srt__module_free(m);
}

/* A module built against the ABI 1.0 header (tests/fake/fake_abi_1_0.c):
 * it loads and runs, and the slot appended after 1.0 reads as absent
 * without the core reading the trap that follows the declared size. */
static void test_older_minor(void)
{
	char path[4200];
	struct srt__module *m = NULL;
	const struct srt_backend *vt = NULL;
	struct srt_diag d;
	void *state = NULL;
	int reports = 0;

	snprintf(path, sizeof(path), "%s/fake_abi_1_0.so", dir);
	memset(&d, 0, sizeof(d));
	ok(srt__module_load_backend(path, &m, &vt, &d) == 0,
	   "a module built for ABI %d.0 loads (%s)", SRT_BACKEND_ABI_MAJOR, d.message);
	if (!vt)
		return;
	ok(vt->hdr.abi_minor == 0 && vt->hdr.size == offsetof(struct srt_backend, diagnose),
	   "its struct ends where the diagnose slot begins (size %u)", (unsigned)vt->hdr.size);
	ok(vt->probe(NULL, &d) == SRT_OK && vt->prepare(NULL, &state, &d) == SRT_OK,
	   "its mandatory slots run");
	vt->teardown(state);
	ok(srt__backend_diagnose(vt, count_layer, &reports) == SRT_E_UNSUPPORTED,
	   "a slot past its size is unsupported");
	ok(reports == 0, "and what lies past its size is never called");
	ok(srt__backend_started(vt, NULL, NULL, 0, &d) == SRT_E_UNSUPPORTED &&
	   srt__backend_explain(vt, NULL, NULL, stdout) == SRT_E_UNSUPPORTED,
	   "its NULL optional slots are unsupported");
	srt__module_free(m);
}

/* The process slots of ABI minor 5, on modules held in memory: a module
 * whose size stops before them (built for 1.4) reads as one that does not
 * spawn, even with something set past its size; a full set is called in
 * order spawn, wait_proc, end_proc and hands back the exit code; end_proc
 * also runs when the wait fails. */
static int calls[8], ncalls;
static int s_spawn(void *st, struct srt_command *c, char *const *envp, void **proc,
		   struct srt_diag *d)
{
	(void)st; (void)c; (void)envp; (void)d;
	calls[ncalls++] = 1;
	*proc = &calls[0];
	return SRT_OK;
}
static int s_wait(void *st, void *proc, int *status, struct srt_diag *d)
{
	(void)st; (void)d;
	calls[ncalls++] = proc == &calls[0] ? 2 : -2;
	*status = 7;
	return SRT_OK;
}
static int s_wait_fails(void *st, void *proc, int *status, struct srt_diag *d)
{
	(void)st; (void)proc; (void)status;
	calls[ncalls++] = 2;
	return srt_diag_set(d, SRT_E_IO, "", "wait failed");
}
static void s_end(void *st, void *proc)
{
	(void)st;
	calls[ncalls++] = proc == &calls[0] ? 3 : -3;
}

static void test_spawn_slots(void)
{
	struct srt_backend be;
	struct srt_command cmd;
	struct srt_diag d;
	int status = -1;

	memset(&be, 0, sizeof(be));
	memset(&cmd, 0, sizeof(cmd));
	memset(&d, 0, sizeof(d));
	be.spawn = s_spawn;
	be.wait_proc = s_wait;
	be.end_proc = s_end;
	be.hdr.size = offsetof(struct srt_backend, spawn);
	ok(!srt__backend_spawns(&be) &&
	   srt__backend_run(&be, NULL, &cmd, NULL, &status, &d) == SRT_E_UNSUPPORTED && ncalls == 0,
	   "a module of minor 4 does not spawn, whatever lies past its size");
	be.hdr.size = offsetof(struct srt_backend, end_proc);
	ok(!srt__backend_spawns(&be), "a size that stops before end_proc does not spawn");
	be.hdr.size = sizeof(be);
	ok(srt__backend_spawns(&be), "a full set spawns");
	ok(srt__backend_run(&be, NULL, &cmd, NULL, &status, &d) == SRT_OK && status == 7,
	   "the run hands back the exit code wait_proc saw");
	ok(ncalls == 3 && calls[0] == 1 && calls[1] == 2 && calls[2] == 3,
	   "spawn, wait_proc, end_proc in order with the handle spawn gave");
	ncalls = 0;
	be.wait_proc = s_wait_fails;
	ok(srt__backend_run(&be, NULL, &cmd, NULL, &status, &d) == SRT_E_IO &&
	   ncalls == 3 && calls[2] == 3, "a failed wait still ends the run");
	ncalls = 0;
	be.end_proc = NULL;
	ok(!srt__backend_spawns(&be) &&
	   srt__backend_run(&be, NULL, &cmd, NULL, &status, &d) == SRT_E_UNSUPPORTED && ncalls == 0,
	   "a partial set is never called");
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(dir, sizeof(dir), "%s/tests/fake/.libs", b ? b : ".");
	TAP_RUN(case_ok);
	TAP_RUN(case_bad_major);
	TAP_RUN(case_bad_magic);
	TAP_RUN(case_truncated);
	TAP_RUN(case_newer_minor);
	TAP_RUN(case_null_slot);
	TAP_RUN(case_partial_spawn);
	TAP_RUN(test_current_minor);
	TAP_RUN(test_older_minor);
	TAP_RUN(test_spawn_slots);
	TAP_RUN(case_missing);
	TAP_RUN(case_names);
	return tap_done();
}
