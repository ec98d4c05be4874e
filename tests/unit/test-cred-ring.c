/* Unit tests: backends/linux-bwrap/init/cred-ring.c, opens made with the
 * credentials another thread registered (a thread under a Landlock domain
 * that the opening thread is not under). */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "backends/linux-bwrap/init/cred-ring.h"
#include "backends/linux-common/landlock-abi.h"
#include "tests/unit/tap.h"

static char dir[64];        /* a temporary directory: allowed/, refused/ */
static int have_ring;       /* io_uring works here */
static const char *no_ring; /* why not */
static int have_landlock;

struct adopt_arg {
	struct srt__cred_ring *ring;
	int restrict_first; /* take a Landlock domain that may read allowed/ only */
	int rc;
};

/* The thread whose credentials the ring takes: restricted (reads under
 * allowed/ only) when asked, then registered. */
static void *adopter(void *p)
{
	struct adopt_arg *a = p;
	struct srt__ll_ruleset_attr ra = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
	struct srt__ll_path_beneath_attr pb;
	char path[128];
	int rs;

	if (a->restrict_first) {
		rs = srt__ll_create_ruleset(&ra, sizeof(uint64_t), 0);
		snprintf(path, sizeof(path), "%s/allowed", dir);
		pb.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE;
		pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
		if (rs < 0 || pb.parent_fd < 0 ||
		    srt__ll_add_rule(rs, SRT_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || srt__ll_restrict_self(rs, 0) != 0) {
			a->rc = -1000 - errno;
			return NULL;
		}
	}
	a->rc = srt__cred_ring_adopt(a->ring);
	return NULL;
}

static int adopt_in_thread(struct srt__cred_ring *r, int restrict_first)
{
	struct adopt_arg a = { r, restrict_first, 0 };
	pthread_t t;

	if (pthread_create(&t, NULL, adopter, &a) != 0)
		return -1;
	pthread_join(t, NULL);
	return a.rc;
}

static int sub(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static const uint64_t plain = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

static void test_not_ready_before_adopt(void)
{
	struct srt__cred_ring *r = srt__cred_ring_new();
	int d = sub("allowed");

	ok(r != NULL, "a ring is made");
	ok(!srt__cred_ring_ready(r), "a ring with no credentials adopted is not ready");
	ok(srt__cred_ring_openat(r, d, "f", O_RDONLY | O_CLOEXEC, plain) == -EPIPE,
	   "an open before any credentials are adopted is refused (EPIPE), not made with the opener's own");
	ok(!srt__cred_ring_ready(NULL), "no ring is not ready");
	srt__cred_ring_free(r);
	close(d);
}

static void test_layer_holds(void)
{
	struct srt__cred_ring *r = srt__cred_ring_new();
	int a = sub("allowed"), b = sub("refused"), f, g;
	char buf[16] = "";
	struct stat st1, st2;

	ok(adopt_in_thread(r, 1) == 0, "a thread under a Landlock domain adopts its credentials");
	ok(srt__cred_ring_ready(r), "the ring is ready then");
	f = srt__cred_ring_openat(r, a, "f", O_RDONLY | O_CLOEXEC, plain);
	ok(f >= 0 && read(f, buf, sizeof(buf) - 1) > 0 && !strncmp(buf, "yes", 3),
	   "a file the domain may read opens, and reads (%d)", f);
	g = openat(a, "f", O_RDONLY | O_CLOEXEC);
	ok(f >= 0 && g >= 0 && fstat(f, &st1) == 0 && fstat(g, &st2) == 0 && st1.st_ino == st2.st_ino,
	   "the descriptor is this process's, on the file named");
	if (f >= 0)
		close(f);
	if (g >= 0)
		close(g);
	f = srt__cred_ring_openat(r, b, "f", O_RDONLY | O_CLOEXEC, plain);
	ok(f == -EACCES, "a file outside the domain's rules is refused (EACCES) through the ring (%d)", f);
	if (f >= 0)
		close(f);
	g = openat(b, "f", O_RDONLY | O_CLOEXEC);
	ok(g >= 0, "the same open made directly by this unrestricted thread succeeds: the ring's came with the other's credentials");
	if (g >= 0)
		close(g);
	ok(srt__cred_ring_openat(r, a, "missing", O_RDONLY | O_CLOEXEC, plain) == -ENOENT,
	   "the open's own error comes back (ENOENT)");
	ok(srt__cred_ring_openat(r, a, "link", O_RDONLY | O_NOFOLLOW | O_CLOEXEC, plain) == -ELOOP,
	   "a link is not followed (ELOOP with O_NOFOLLOW)");
	ok(srt__cred_ring_ready(r), "errors of the open leave the ring ready");
	ok(adopt_in_thread(r, 0) == -EBUSY, "credentials are adopted once (EBUSY after)");
	srt__cred_ring_free(r);
	close(a);
	close(b);
}

static void test_bad_descriptor(void)
{
	struct srt__cred_ring *r = srt__cred_ring_new();
	int f;

	ok(adopt_in_thread(r, 0) == 0, "an unrestricted thread adopts its credentials");
	f = srt__cred_ring_openat(r, 999, "f", O_RDONLY | O_CLOEXEC, plain);
	ok(f == -EBADF, "a directory descriptor this process lacks: EBADF (%d)", f);
	ok(srt__cred_ring_ready(r), "and the ring stays ready");
	srt__cred_ring_free(r);
}

static int put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

int main(void)
{
	struct srt__cred_ring *r;
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/srt-test-cred-ring.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot make a temp dir\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/allowed", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/refused", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/allowed/link", dir);
	if (put("allowed/f", "yes\n") != 0 || put("refused/f", "no\n") != 0 || symlink("f", path) != 0) {
		printf("1..0 # SKIP cannot fill the temp dir\n");
		return 0;
	}
	r = srt__cred_ring_new();
	have_ring = r != NULL;
	no_ring = have_ring ? "" : strerror(errno);
	srt__cred_ring_free(r);
	have_landlock = srt__ll_create_ruleset(NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */) >= 1;
	if (!have_ring) {
		/* the monitor then hands every read open over, as
		 * tests/escape/0918 checks */
		printf("1..0 # SKIP no io_uring here (%s)\n", no_ring);
		return 0;
	}
	TAP_RUN(test_not_ready_before_adopt);
	if (have_landlock)
		TAP_RUN(test_layer_holds);
	else
		printf("ok %d # SKIP no Landlock on this kernel: the layer cannot be checked\n", ++tap_n);
	TAP_RUN(test_bad_descriptor);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	return tap_done();
}
