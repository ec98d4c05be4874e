/* Unit tests of the linux-landlock planner (backends/linux-common/landlock-plan.c):
 * the complement expansion for nested deny/allow rules, the write denies
 * inside write roots, and every refusal, on trees built in a temp dir. The
 * host directories outside the temp dir only appear as siblings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/landlock-abi.h"

static char T[PATH_MAX];

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *b = buf[k++ % 8];

	if (strlen(T) + 1 + strlen(rel) >= PATH_MAX)
		abort();
	strcpy(b, T);
	strcat(b, "/");
	strcat(b, rel);
	return b;
}

static void mk(const char *rel)
{
	char path[PATH_MAX];
	const char *p = P(rel);
	size_t l = strlen(p);
	char *s;

	memcpy(path, p, l + 1);
	for (s = path + strlen(T) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	if (l && p[l - 1] == '/') {
		mkdir(path, 0755);
	} else {
		FILE *f = fopen(path, "w");
		if (f) {
			fputs("x\n", f);
			fclose(f);
		}
	}
}

struct pol {
	struct srt_policy p;
	struct srt_rule r[4][16];
};

static void add(struct pol *x, int list, const char *path, unsigned flags, const char *origin)
{
	struct srt_rules *rs = list == 0 ? &x->p.deny_read : list == 1 ? &x->p.allow_read :
			       list == 2 ? &x->p.allow_write : &x->p.deny_write;
	struct srt_rule *r = &x->r[list][rs->n];

	r->path = strdup(path);
	r->flags = flags;
	r->origin = strdup(origin);
	rs->v = x->r[list];
	rs->n++;
}

enum { DR, AR, AW, DW };

static void pol_init(struct pol *x)
{
	memset(x, 0, sizeof(*x));
	x->p.mandatory_deny_depth = 3;
	x->p.cwd = strdup("/");
}

static void pol_free(struct pol *x)
{
	int l;
	size_t i;
	struct srt_rules *lists[4] = { &x->p.deny_read, &x->p.allow_read, &x->p.allow_write,
				       &x->p.deny_write };

	for (l = 0; l < 4; l++)
		for (i = 0; i < lists[l]->n; i++) {
			free(lists[l]->v[i].path);
			free(lists[l]->v[i].origin);
		}
	free(x->p.cwd);
}

static uint64_t rights(const struct srt__ll_plan *pl, const char *path)
{
	const struct srt__ll_rule *r = srt__ll_plan_find(pl, path);
	return r ? r->access : 0;
}

#define READS(pl, p) ((rights(pl, p) & LANDLOCK_ACCESS_FS_READ_FILE) != 0)
#define WRITES(pl, p) ((rights(pl, p) & LANDLOCK_ACCESS_FS_WRITE_FILE) != 0)
#define MAKES(pl, p) ((rights(pl, p) & LANDLOCK_ACCESS_FS_MAKE_REG) != 0)

/* Some rule covers path for the right bit: the path itself or an ancestor
 * carries it (what the kernel does at access time). */
static int covered(const struct srt__ll_plan *pl, const char *path, uint64_t bit)
{
	char buf[PATH_MAX];
	char *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (rights(pl, buf) & bit)
			return 1;
		if (!strcmp(buf, "/"))
			return 0;
		s = strrchr(buf, '/');
		if (s == buf)
			s[1] = '\0';
		else
			*s = '\0';
	}
}

static int has_note(const struct srt__ll_plan *pl, const char *needle)
{
	size_t i;

	for (i = 0; i < pl->n_notes; i++)
		if (strstr(pl->notes[i], needle))
			return 1;
	return 0;
}

static void test_reads_nested(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	int rc;

	mk("r/home/.ssh/id");
	mk("r/home/.ssh/pub/key.pub");
	mk("r/home/.ssh/pub/inner/secret");
	mk("r/home/.ssh/pub/inner2/ok");
	mk("r/home/docs/a");
	mk("r/home/notes.txt");
	mk("r/other/b");
	pol_init(&x);
	add(&x, DR, P("r/home/.ssh"), 0, "filesystem.denyRead[0]");
	add(&x, AR, P("r/home/.ssh/pub"), 0, "filesystem.allowRead[0]");
	add(&x, DR, P("r/home/.ssh/pub/inner"), 0, "filesystem.denyRead[1]");
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0, "reads: plan builds (%s)", d.message);
	if (rc) {
		pol_free(&x);
		return;
	}
	ok(!srt__ll_plan_find(&pl, "/"), "reads: \"/\" is not granted wholesale");
	ok(READS(&pl, "/usr") || access("/usr", F_OK) != 0, "reads: /usr, a sibling on the way, is granted");
	ok(!covered(&pl, P("r/home/.ssh/id"), LANDLOCK_ACCESS_FS_READ_FILE), "reads: the denied file is not covered");
	ok(!covered(&pl, P("r/home/.ssh"), LANDLOCK_ACCESS_FS_READ_DIR), "reads: the denied directory cannot be listed");
	ok(!covered(&pl, P("r/home"), LANDLOCK_ACCESS_FS_READ_DIR), "reads: its parent cannot be listed either");
	ok(covered(&pl, P("r/home/docs/a"), LANDLOCK_ACCESS_FS_READ_FILE) && READS(&pl, P("r/home/docs")),
	   "reads: a sibling directory is granted whole");
	ok(READS(&pl, P("r/home/notes.txt")) &&
	   !(rights(&pl, P("r/home/notes.txt")) & LANDLOCK_ACCESS_FS_READ_DIR),
	   "reads: a sibling file is granted with file rights only");
	ok(READS(&pl, P("r/other")), "reads: an unrelated tree is granted whole");
	ok(covered(&pl, P("r/home/.ssh/pub/key.pub"), LANDLOCK_ACCESS_FS_READ_FILE),
	   "reads: allowRead re-opens inside the denied directory");
	ok(!covered(&pl, P("r/home/.ssh/pub/inner/secret"), LANDLOCK_ACCESS_FS_READ_FILE),
	   "reads: a deny inside the allowRead wins (most specific)");
	ok(covered(&pl, P("r/home/.ssh/pub/inner2/ok"), LANDLOCK_ACCESS_FS_READ_FILE) &&
	   !srt__ll_plan_find(&pl, P("r/home/.ssh/pub")),
	   "reads: the allowRead is itself split around the inner deny");
	ok(!covered(&pl, P("r/home/.ssh/id"), LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "reads: nothing outside the write roots is writable");
	ok(has_note(&pl, "cannot be listed"), "reads: explain notes the unlistable directories");
	ok(!covered(&pl, "/dev/sda", LANDLOCK_ACCESS_FS_READ_FILE) &&
	   covered(&pl, "/dev/null", LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "reads: /dev is the bwrap --dev set only");
	ok(pl.block_inet && pl.handled_net == (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP) &&
	   pl.scoped == (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL),
	   "network: sockets blocked, TCP refused by Landlock, IPC scoped on ABI 7");
	srt__ll_plan_release(&pl);
	pol_free(&x);
}

static void test_writes(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	int rc;

	mk("w/proj/src/main.c");
	mk("w/proj/.git/hooks/pre-commit");
	mk("w/proj/.git/config");
	mk("w/proj/.git/objects/");
	mk("w/proj/locked/file");
	mk("w/proj/data/");
	mk("w/proj/sub/.bashrc");
	mk("w/proj/secret/key");
	mk("w/ro/inner/x");
	mk("w/outside/f");
	pol_init(&x);
	free(x.p.cwd);
	x.p.cwd = strdup(P("w/proj"));
	add(&x, AW, P("w/proj"), 0, "filesystem.allowWrite[0]");
	add(&x, DW, P("w/proj/locked"), 0, "filesystem.denyWrite[0]");
	add(&x, DW, P("w/proj/nothere/deeper"), 0, "filesystem.denyWrite[1]");
	add(&x, DW, P("w/ro"), 0, "filesystem.denyWrite[2]");
	add(&x, AW, P("w/ro/inner"), 0, "filesystem.allowWrite[1]");
	add(&x, DR, P("w/proj/secret"), 0, "filesystem.denyRead[0]");
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0, "writes: plan builds (%s)", d.message);
	if (rc) {
		pol_free(&x);
		return;
	}
	ok(covered(&pl, P("w/proj/src/main.c"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   MAKES(&pl, P("w/proj/src")), "writes: an existing subdirectory of the root is writable whole");
	ok(!MAKES(&pl, P("w/proj")) && !covered(&pl, P("w/proj/.bashrc"), LANDLOCK_ACCESS_FS_MAKE_REG),
	   "writes: the working directory cannot gain entries (absent .bashrc stays absent)");
	ok(!covered(&pl, P("w/proj/.git/hooks/pre-commit"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !covered(&pl, P("w/proj/.git/hooks"), LANDLOCK_ACCESS_FS_MAKE_REG),
	   "writes: mandatory .git/hooks is read-only");
	ok(!covered(&pl, P("w/proj/.git/config"), LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "writes: mandatory .git/config is read-only");
	ok(MAKES(&pl, P("w/proj/.git/objects")), "writes: the rest of .git stays writable");
	ok(!covered(&pl, P("w/proj/sub/.bashrc"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !MAKES(&pl, P("w/proj/sub")), "writes: a nested .bashrc (depth 1) is read-only, its directory fixed");
	ok(!covered(&pl, P("w/proj/locked/file"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !covered(&pl, P("w/proj/locked"), LANDLOCK_ACCESS_FS_MAKE_REG), "writes: denyWrite inside the root wins");
	ok(covered(&pl, P("w/proj/locked/file"), LANDLOCK_ACCESS_FS_READ_FILE), "writes: the denied tree stays readable");
	ok(!covered(&pl, P("w/ro/inner/x"), LANDLOCK_ACCESS_FS_WRITE_FILE) && has_note(&pl, "the deny wins"),
	   "writes: allowWrite inside a denyWrite stays read-only");
	ok(!covered(&pl, P("w/outside/f"), LANDLOCK_ACCESS_FS_WRITE_FILE), "writes: outside the roots is read-only");
	ok(!covered(&pl, P("w/proj/secret/key"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !covered(&pl, P("w/proj/secret/key"), LANDLOCK_ACCESS_FS_READ_FILE),
	   "writes: a denyRead inside a write root is neither readable nor writable");
	ok(covered(&pl, P("w/proj/data"), LANDLOCK_ACCESS_FS_REFER) &&
	   covered(&pl, P("w/proj/data"), LANDLOCK_ACCESS_FS_TRUNCATE), "writes: refer and truncate granted in roots");
	ok(has_note(&pl, "nothing can be created"), "writes: explain notes the directories that cannot gain entries");
	srt__ll_plan_release(&pl);
	pol_free(&x);
}

/* What linux-landlock must not open that linux-bwrap keeps shut: an allow
 * rule through a link a sandboxed run could have planted, the host's other
 * terminals in /dev/pts, and absent startup files of a writable $HOME. */
static void test_host_doors(void)
{
	struct srt__ll_plan pl;
	struct srt__ll_plan_limits lim = { 0, 0, 1 };
	struct srt_diag d = { 0 };
	struct pol x;
	char link[PATH_MAX];
	int rc;

	mk("hd/proj/sub/");
	mk("hd/victim/.ssh/authorized_keys");
	mk("hd/home/me/notes");
	snprintf(link, sizeof(link), "%s", P("hd/proj/sub/build"));
	if (symlink(P("hd/victim"), link) != 0)
		abort();
	pol_init(&x);
	add(&x, AW, P("hd/proj"), 0, "filesystem.allowWrite[0]");
	add(&x, AW, P("hd/proj/sub/build"), 0, "filesystem.allowWrite[1]");
	add(&x, AW, P("hd/home"), 0, "filesystem.allowWrite[2]");
	add(&x, AR, P("hd/proj/sub/build/.ssh"), 0, "filesystem.allowRead[0]");
	x.p.home = strdup(P("hd/home/me"));
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0, "doors: plan builds (%s)", d.message);
	if (rc) {
		free(x.p.home);
		pol_free(&x);
		return;
	}
	ok(!covered(&pl, P("hd/victim/.ssh/authorized_keys"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   has_note(&pl, "filesystem.allowWrite[1] \"") && has_note(&pl, "symbolic link in a directory that can be written"),
	   "doors: allowWrite through a link planted in a write root is not followed, and said");
	ok(!srt__ll_plan_find(&pl, P("hd/victim/.ssh")) && has_note(&pl, "filesystem.allowRead[0] \""),
	   "doors: nor is allowRead");
	{
		int tty = isatty(0) || isatty(1) || isatty(2);

		ok(!srt__ll_plan_find(&pl, "/dev/pts") && !covered(&pl, "/dev/pts/0", LANDLOCK_ACCESS_FS_READ_FILE) &&
		   covered(&pl, "/dev/ptmx", LANDLOCK_ACCESS_FS_WRITE_FILE) &&
		   covered(&pl, "/dev/tty", LANDLOCK_ACCESS_FS_WRITE_FILE) == tty,
		   "doors: the host's /dev/pts is not granted, /dev/ptmx is, /dev/tty only with a terminal on stdio (%d)",
		   tty);
	}
	ok(!MAKES(&pl, P("hd/home/me")) && covered(&pl, P("hd/home/me/notes"), LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "doors: a writable $HOME cannot gain startup files; what is in it stays writable");
	srt__ll_plan_release(&pl);
	rc = srt__ll_plan_build(&x.p, 7, &lim, &pl, &d);
	ok(rc == 0 && READS(&pl, "/dev/pts") && WRITES(&pl, "/dev/pts") && WRITES(&pl, "/dev/tty"),
	   "doors: where /dev is the sandbox's own (linux-bwrap's layer), /dev/pts and /dev/tty are granted");
	if (!rc)
		srt__ll_plan_release(&pl);
	free(x.p.home);
	x.p.home = NULL;
	pol_free(&x);
}

static void test_symlink_deny(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	char target[PATH_MAX];
	int rc;

	mk("l/root/keep/x");
	mk("l/dot/bashrc");
	strcpy(target, P("l/dot/bashrc"));
	symlink(target, P("l/root/keep/.zshrc"));
	pol_init(&x);
	add(&x, AW, P("l"), 0, "filesystem.allowWrite[0]");
	add(&x, DW, P("l/root/keep/.zshrc"), 0, "filesystem.denyWrite[0]");
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0 && !covered(&pl, P("l/dot/bashrc"), LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "symlink: the deny covers the link's target (%s)", d.message);
	ok(rc == 0 && !MAKES(&pl, P("l/root/keep")) && !covered(&pl, P("l/root/keep"), LANDLOCK_ACCESS_FS_REMOVE_FILE),
	   "symlink: the link itself cannot be replaced");
	ok(rc == 0 && WRITES(&pl, P("l/root/keep/x")), "symlink: its siblings stay writable");
	if (!rc)
		srt__ll_plan_release(&pl);
	pol_free(&x);
}

/* A symbolic link denied right after an absent name of the same directory:
 * the planner resolves the second name through the directory it resolved
 * for the first, and the link's target must still be covered (an lstat
 * that found the link must not be read as the absent name's ENOENT). */
static void test_symlink_deny_after_absent(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	char target[PATH_MAX];
	int rc;

	mk("la/root/keep/x");
	mk("la/dot/bashrc");
	strcpy(target, P("la/dot/bashrc"));
	symlink(target, P("la/root/keep/.zshrc"));
	pol_init(&x);
	add(&x, AW, P("la"), 0, "filesystem.allowWrite[0]");
	add(&x, DW, P("la/root/keep/absent"), 0, "filesystem.denyWrite[0]");
	add(&x, DW, P("la/root/keep/.zshrc"), 0, "filesystem.denyWrite[1]");
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0 && !covered(&pl, P("la/dot/bashrc"), LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "symlink after an absent name: the deny covers the link's target (%s)", d.message);
	ok(rc == 0 && WRITES(&pl, P("la/root/keep/x")), "symlink after an absent name: siblings stay writable");
	if (!rc)
		srt__ll_plan_release(&pl);
	pol_free(&x);
}

/* allowWrite "/" (a working directory of "/" with allowWrite ".") still
 * leaves the pseudo filesystems read-only, and the --dev set writable. */
static void test_root_write(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	int rc;

	pol_init(&x);
	add(&x, AW, "/", 0, "filesystem.allowWrite[0]");
	x.p.mandatory_deny_depth = 1;
	free(x.p.cwd);
	x.p.cwd = strdup(T);
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0, "allowWrite \"/\": plan builds (%s)", d.message);
	if (rc) {
		pol_free(&x);
		return;
	}
	ok(!covered(&pl, "/proc/sys/kernel/hostname", LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !covered(&pl, "/sys/kernel/mm", LANDLOCK_ACCESS_FS_WRITE_FILE) &&
	   !covered(&pl, "/dev/sda", LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "allowWrite \"/\": /proc, /sys and the rest of /dev stay read-only");
	ok(covered(&pl, "/dev/null", LANDLOCK_ACCESS_FS_WRITE_FILE) && covered(&pl, "/usr", LANDLOCK_ACCESS_FS_WRITE_FILE),
	   "allowWrite \"/\": /dev/null and ordinary trees writable");
	srt__ll_plan_release(&pl);
	pol_free(&x);
}

/* allowWrite "." is the working directory: its mandatory-deny scan runs
 * once, not once as the cwd and again as a write root. With a budget that
 * one scan fits and two would not, the plan builds; a smaller budget still
 * stops it with the key to change. */
static void test_scan_once(void)
{
	struct srt__ll_plan_limits lim = { 0, 50, 0 };
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	char name[32];
	int i, rc;

	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "once/f%d", i);
		mk(name);
	}
	pol_init(&x);
	free(x.p.cwd);
	x.p.cwd = strdup(P("once"));
	add(&x, AW, P("once"), 0, "filesystem.allowWrite[0]");
	/* the root's listing is 32 entries: one scan fits in 50, two do not */
	rc = srt__ll_plan_build(&x.p, 7, &lim, &pl, &d);
	ok(rc == 0, "allowWrite \".\": the working directory is scanned once (%s)", d.message);
	if (rc == 0) {
		ok(!covered(&pl, P("once/.bashrc"), LANDLOCK_ACCESS_FS_WRITE_FILE) &&
		   covered(&pl, P("once/f1"), LANDLOCK_ACCESS_FS_WRITE_FILE),
		   "allowWrite \".\": the absent .bashrc stays denied, the rest is writable");
		srt__ll_plan_release(&pl);
	} else {
		ok(0, "allowWrite \".\": the absent .bashrc stays denied, the rest is writable");
	}
	lim.scan_budget = 20;
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 7, &lim, &pl, &d);
	ok(rc == SRT_E_LIMIT && !strcmp(d.key, "mandatoryDenySearchDepth") &&
	   contains(d.message, "stopped after 20 entries"),
	   "a scan over its budget still refuses the plan (%s: %s)", d.key, d.message);
	if (rc == 0)
		srt__ll_plan_release(&pl);
	pol_free(&x);
}

static void test_refusals(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d;
	struct pol x;
	int rc;

	/* the proxy */
	pol_init(&x);
	x.p.proxy_socket = "/tmp/x/proxy.sock";
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == SRT_E_UNSUPPORTED && contains(d.message, "cannot reach the proxy yet"),
	   "refuse: a proxy (%s)", d.message);
	x.p.proxy_socket = NULL;

	/* ABI too old for filesystem rules, fine without them */
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 2, NULL, &pl, &d);
	ok(rc == SRT_E_UNAVAILABLE && contains(d.message, "ABI 3"), "refuse: filesystem rules on ABI 2 (%s)",
	   d.message);
	x.p.fs_disabled = 1;
	rc = srt__ll_plan_build(&x.p, 1, NULL, &pl, &d);
	ok(rc == 0 && pl.handled_fs == 0 && pl.n_rules == 0 && pl.handled_net == 0 && pl.block_inet,
	   "ABI 1 with filesystem.disabled: sockets blocked by seccomp only");
	if (!rc)
		srt__ll_plan_release(&pl);
	x.p.fs_disabled = 0;

	/* allowAllUnixSockets before ABI 6 */
	x.p.allow_all_unix_sockets = 1;
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 5, NULL, &pl, &d);
	ok(rc == SRT_E_UNAVAILABLE && !strcmp(d.key, "network.allowAllUnixSockets"),
	   "refuse: allowAllUnixSockets on ABI 5 (%s)", d.message);
	x.p.allow_all_unix_sockets = 0;
	pol_free(&x);

	/* a deny glob is expanded now; one based at "/" is refused */
	mk("g/a.pem");
	mk("g/b.txt");
	mk("g/sub/c.pem");
	mk("g/open/d.pem");
	pol_init(&x);
	add(&x, DR, P("g/**/*.pem"), SRT_RULE_GLOB, "filesystem.denyRead[0]");
	add(&x, AR, P("g/op[e]n/*.pem"), SRT_RULE_GLOB, "filesystem.allowRead[0]");
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == 0 && !covered(&pl, P("g/a.pem"), LANDLOCK_ACCESS_FS_READ_FILE) &&
	   !covered(&pl, P("g/sub/c.pem"), LANDLOCK_ACCESS_FS_READ_FILE) &&
	   covered(&pl, P("g/b.txt"), LANDLOCK_ACCESS_FS_READ_FILE),
	   "glob: denyRead matches are denied, the rest readable (%s)", d.message);
	ok(rc == 0 && covered(&pl, P("g/open/d.pem"), LANDLOCK_ACCESS_FS_READ_FILE),
	   "glob: an allowRead glob re-opens its matches");
	if (!rc)
		srt__ll_plan_release(&pl);
	pol_free(&x);
	pol_init(&x);
	add(&x, DR, "/*.pem", SRT_RULE_GLOB, "filesystem.denyRead[0]");
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc != 0 && contains(d.message, "filesystem.denyRead[0]"), "refuse: a deny glob based at \"/\" (%s)",
	   d.message);
	pol_free(&x);

	/* a denied file with another hard link */
	mk("h/a");
	link(P("h/a"), P("h/b"));
	pol_init(&x);
	add(&x, DR, P("h/a"), 0, "filesystem.denyRead[0]");
	memset(&d, 0, sizeof(d));
	rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
	ok(rc == SRT_E_UNAVAILABLE && contains(d.message, "hard links") && !strcmp(d.key, "filesystem.denyRead[0]"),
	   "refuse: a denied file with two links (%s)", d.message);
	pol_free(&x);

	/* too many rules */
	mk("m/d/");
	{
		int i;
		char n[64];
		for (i = 0; i < 40; i++) {
			snprintf(n, sizeof(n), "m/d/f%02d", i);
			mk(n);
		}
	}
	pol_init(&x);
	add(&x, DR, P("m/d/f00"), 0, "filesystem.denyRead[0]");
	{
		struct srt__ll_plan_limits lim = { 30, 0, 0 };
		memset(&d, 0, sizeof(d));
		rc = srt__ll_plan_build(&x.p, 7, &lim, &pl, &d);
		ok(rc == SRT_E_LIMIT && contains(d.message, "more than 30 rules"), "refuse: over the rule limit (%s)",
		   d.message);
	}
	pol_free(&x);
}

/* The split directory cannot be listed: refuse, naming the rule. Root
 * lists anything, so the child drops its capabilities first. */
static void test_unlistable(void)
{
	pid_t pid;
	int st;

	mk("u/locked/inner/secret");
	mk("u/locked/other");
	pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct data[2];
		struct srt__ll_plan pl;
		struct srt_diag d = { 0 };
		struct pol x;
		int rc;

		memset(data, 0, sizeof(data));
		if (syscall(SYS_capset, &hdr, data) != 0)
			_exit(3);
		chmod(P("u/locked"), 0);
		pol_init(&x);
		add(&x, DR, P("u/locked/inner/secret"), 0, "filesystem.denyRead[0]");
		rc = srt__ll_plan_build(&x.p, 7, NULL, &pl, &d);
		chmod(P("u/locked"), 0755);
		_exit(rc == SRT_E_UNAVAILABLE && strstr(d.message, "cannot be listed") &&
		      !strcmp(d.key, "filesystem.denyRead[0]") ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "refuse: a directory on the way that cannot be listed");
}

static void test_serialize(void)
{
	struct srt__ll_plan pl;
	struct srt_diag d = { 0 };
	struct pol x;
	char *buf = NULL;
	size_t len = 0, recs = 0, i;
	int rc;

	mk("s/a/b");
	pol_init(&x);
	add(&x, DR, P("s/a"), 0, "filesystem.denyRead[0]");
	rc = srt__ll_plan_build(&x.p, 4, NULL, &pl, &d);
	ok(rc == 0 && pl.scoped == 0 && pl.handled_net != 0 &&
	   !(pl.handled_fs & LANDLOCK_ACCESS_FS_IOCTL_DEV) && (pl.handled_fs & LANDLOCK_ACCESS_FS_TRUNCATE),
	   "ABI 4: net handled, no scopes");
	if (rc) {
		pol_free(&x);
		return;
	}
	rc = srt__ll_plan_serialize(&pl, &buf, &len);
	for (i = 0; buf && i < len; i++)
		if (buf[i] == '\0')
			recs++;
	ok(rc == 0 && len > 0 && !strcmp(buf, SRT_LL_PLAN_MAGIC) && buf[len - 1] == '\0' &&
	   !strcmp(buf + len - 4, "end") && recs == pl.n_rules + 10,
	   "serialize: magic, %zu records, end", recs);
	free(buf);
	srt__ll_plan_release(&pl);
	pol_free(&x);
}

int main(void)
{
	char tmpl[] = "/tmp/srt-ll-unit.XXXXXX";
	char cmd[PATH_MAX + 16];

	if (!mkdtemp(tmpl) || !realpath(tmpl, T)) {
		printf("1..0 # SKIP cannot make a temp dir\n");
		return 0;
	}
	TAP_RUN(test_reads_nested);
	TAP_RUN(test_writes);
	TAP_RUN(test_symlink_deny);
	TAP_RUN(test_symlink_deny_after_absent);
	TAP_RUN(test_host_doors);
	TAP_RUN(test_root_write);
	TAP_RUN(test_scan_once);
	TAP_RUN(test_refusals);
	TAP_RUN(test_unlistable);
	TAP_RUN(test_serialize);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", T);
	return tap_done();
}
