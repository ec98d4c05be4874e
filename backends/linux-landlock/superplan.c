/* linux-landlock: the write supervisor's plan (see superplan.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/protected.h"
#include "common/strv.h"
#include "backends/linux-common/glob.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/supervisor.h"
#include "backends/linux-common/unix-path.h"
#include "backends/linux-landlock/superplan.h"

#define SCAN_BUDGET 200000

struct sp_build {
	const struct srt_policy *pol;
	struct srt__ll_super *sp;
	struct srt__ll_buf b;
	struct srt_diag *diag;
	const char *root; /* the root being scanned, for the name patterns */
	size_t root_len;
};

static int is_dev(const char *p)
{
	return !strcmp(p, "/dev") || !strncmp(p, "/dev/", 5);
}

static int resolve(const char *p, char out[PATH_MAX])
{
	return srt__real_location(p, out);
}

/* The reason text of a record: no tab, no control bytes. */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20)
			*s = ' ';
}

static int rec_deny(struct sp_build *b, const char *why, const char *path)
{
	char w[256];

	snprintf(w, sizeof(w), "%s", why);
	clean(w);
	b->sp->n_deny++;
	return srt__ll_rec(&b->b, "deny %s\t%s", w, path);
}

/* A protected path: the object it names (links resolved) and the name in
 * its real parent (a link there must not be replaced by a file). */
static int deny_path(struct sp_build *b, const char *why, const char *p)
{
	char real[PATH_MAX], parent[PATH_MAX], named[PATH_MAX];
	const char *slash = strrchr(p, '/');
	int rc;

	if (resolve(p, real) != 0)
		return srt_diag_set(b->diag, SRT_E_LIMIT, why, "linux-landlock cannot resolve \"%s\" (%s)", p, why);
	rc = rec_deny(b, why, real);
	if (rc || !slash || slash == p || (size_t)(slash - p) >= sizeof(parent))
		return rc;
	memcpy(parent, p, (size_t)(slash - p));
	parent[slash - p] = '\0';
	if (resolve(parent, named) != 0 || strlen(named) + strlen(slash) >= sizeof(named))
		return SRT_OK;
	if (!strcmp(named, "/"))
		named[0] = '\0';
	strcat(named, slash);
	return strcmp(named, real) ? rec_deny(b, why, named) : SRT_OK;
}

static int on_mandatory(void *ctx, const char *path, const char *what)
{
	struct sp_build *b = ctx;
	char why[160];

	snprintf(why, sizeof(why), "mandatory deny %s", what);
	return deny_path(b, why, path);
}

/* The name patterns: what the mandatory-deny walker reports for the names
 * of an empty root (root_names), each spelled relative to it. The walker's
 * table stays the one list of protected names. */
static int on_name(void *ctx, const char *path, const char *what)
{
	struct sp_build *b = ctx;
	char why[160];

	if (strncmp(path, b->root, b->root_len) != 0 || path[b->root_len] != '/')
		return SRT_OK;
	snprintf(why, sizeof(why), "mandatory deny %s", what);
	clean(why);
	b->sp->n_names++;
	return srt__ll_rec(&b->b, "name %s\t%s", why, path + b->root_len + 1);
}

static int name_patterns(struct sp_build *b, const struct srt__mandatory_opts *base)
{
	char dir[] = "/tmp/srt-names-XXXXXX";
	struct srt__mandatory_opts mo = *base;
	size_t budget = 1000;
	int truncated = 0, rc;

	mo.root_names = 1;
	if (!mkdtemp(dir))
		return srt_diag_set(b->diag, SRT_E_IO, "filesystem",
				    "linux-landlock: cannot make an empty directory to list the protected names: %s",
				    strerror(errno));
	b->root = dir;
	b->root_len = strlen(dir);
	rc = srt__mandatory_scan_error(srt__mandatory_scan(dir, &mo, &budget, &truncated, on_name, b), dir,
				       b->diag);
	rmdir(dir);
	b->root = NULL;
	return rc;
}

/* The names inside a git directory (.git/config, .git/hooks): held by the
 * supervisor in every repository that exists in a write root, at any depth,
 * where the walk above finds only those within mandatoryDenySearchDepth. A
 * repository the command makes is the repository guard's (git init must
 * work), so these are their own kind of record. */
static int repo_patterns(struct sp_build *b, const struct srt__mandatory_opts *mo)
{
	size_t i;
	int rc;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		char why[160];

		if (p->kind != SRT__PROT_GIT || strncmp(p->path, ".git/", 5) != 0 ||
		    srt__protected_released(p, mo->released) ||
		    (mo->allow_git_config && !strcmp(p->path, ".git/config")))
			continue;
		snprintf(why, sizeof(why), "mandatory deny %s", p->name);
		clean(why);
		rc = srt__ll_rec(&b->b, "repo %s\t%s", why, p->path);
		if (rc)
			return rc;
		b->sp->n_names++;
	}
	return SRT_OK;
}

static int under_root(const struct srt_policy *pol, const char *real)
{
	char r[PATH_MAX];
	size_t i, l;

	for (i = 0; i < pol->allow_write.n; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];

		if ((x->flags & SRT_RULE_GLOB) || is_dev(x->path) || resolve(x->path, r) != 0)
			continue;
		l = strcmp(r, "/") ? strlen(r) : 0;
		if (l == 0 || (!strncmp(real, r, l) && (real[l] == '/' || real[l] == '\0')))
			return 1;
	}
	return 0;
}

static int push_rule(struct srt_rule **v, size_t *n, const struct srt_rule *r)
{
	struct srt_rule *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return SRT_E_NOMEM;
	nv[(*n)++] = *r;
	*v = nv;
	return SRT_OK;
}

/* The write roots: directories to the supervisor (and readable to the
 * command), files and the /dev set kept as Landlock write grants. */
static int roots(struct sp_build *b)
{
	const struct srt_policy *pol = b->pol;
	struct srt_policy *lp = &b->sp->landlock_pol;
	size_t i, nr = 0, nw = 0;
	int rc;

	for (i = 0; i < pol->allow_read.n; i++)
		if ((rc = push_rule(&b->sp->allow_read, &nr, &pol->allow_read.v[i])))
			return rc;
	for (i = 0; i < pol->allow_write.n; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];
		char real[PATH_MAX];
		struct stat st;
		int k = -1;

		/* resolved once with every link on the way checked, looked at
		 * again, and the directory's identity taken from the object
		 * reached without following any link (as linux-bwrap's
		 * grants): a root flipped between a directory and a link by
		 * another sandboxed run is never the supervisor's */
		if (!(x->flags & SRT_RULE_GLOB) && !is_dev(x->path))
			k = srt__ll_allow_real(pol, x->path, real, &st);
		if (k == 1) {
			fprintf(stderr, "srt: warning: %s \"%s\" is not applied: it goes through a symbolic link in a directory that can be written (a sandboxed command could have planted it), or it changed while srt looked; name the real path instead\n",
				x->origin, x->path);
			continue;
		}
		if (k != 0 || !S_ISDIR(st.st_mode)) {
			/* the planner refuses globs, skips what is missing
			 * and grants the rest on its own */
			if ((rc = push_rule(&b->sp->allow_write, &nw, x)))
				return rc;
			continue;
		}
		if ((rc = push_rule(&b->sp->allow_read, &nr, x)))
			return rc;
		rc = srt__ll_rec(&b->b, "root %llu %llu %s", (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino, real);
		if (rc)
			return rc;
		b->sp->n_roots++;
	}
	lp->allow_read.v = b->sp->allow_read;
	lp->allow_read.n = nr;
	lp->allow_write.v = b->sp->allow_write;
	lp->allow_write.n = nw;
	return SRT_OK;
}

static int denies(struct sp_build *b)
{
	const struct srt_policy *pol = b->pol;
	size_t i, j, budget = SCAN_BUDGET;
	int rc;

	for (i = 0; i < pol->deny_write.n; i++) {
		const struct srt_rule *x = &pol->deny_write.v[i];
		if (!(x->flags & SRT_RULE_GLOB) && (rc = deny_path(b, x->origin, x->path)))
			return rc;
	}
	for (i = 0; i < pol->deny_read.n; i++) {
		const struct srt_rule *x = &pol->deny_read.v[i];
		struct srt__strv m = { 0 };
		struct srt_diag gd;

		if (!(x->flags & SRT_RULE_GLOB)) {
			if ((rc = deny_path(b, x->origin, x->path)))
				return rc;
			continue;
		}
		memset(&gd, 0, sizeof(gd));
		rc = srt__glob_expand(x->path, 1, &budget, &m, &gd);
		for (j = 0; !rc && j < m.n; j++)
			rc = deny_path(b, x->origin, m.v[j]);
		srt__strv_release(&m);
		if (rc)
			return srt_diag_set(b->diag, rc, x->origin, "linux-landlock cannot expand %s \"%s\": %s",
					    x->origin, x->path, gd.message[0] ? gd.message : "too many entries");
	}
	return SRT_OK;
}

static int scan_once(struct sp_build *b, struct srt__strv *done, const struct srt__mandatory_opts *mo,
		     const char *real, size_t *budget, int *truncated)
{
	size_t i;
	int rc;

	for (i = 0; i < done->n; i++)
		if (!strcmp(done->v[i], real))
			return SRT_OK;
	rc = srt__mandatory_scan_error(srt__mandatory_scan(real, mo, budget, truncated, on_mandatory, b),
				       real, b->diag);
	if (!rc && srt__strv_push(done, real))
		rc = SRT_E_NOMEM;
	return rc;
}

/* The mandatory denies that exist now (and the names absent in the working
 * directory and $HOME), as the Landlock planner walked them. */
static int mandatory(struct sp_build *b, const struct srt__mandatory_opts *base)
{
	const struct srt_policy *pol = b->pol;
	struct srt__mandatory_opts mo = *base;
	struct srt__strv done = { 0 };
	char real[PATH_MAX];
	size_t budget = SCAN_BUDGET, i;
	int truncated = 0, rc = SRT_OK;

	mo.root_names = 1;
	if (pol->cwd && resolve(pol->cwd, real) == 0 && under_root(pol, real))
		rc = scan_once(b, &done, &mo, real, &budget, &truncated);
	if (!rc && pol->home && resolve(pol->home, real) == 0 && strcmp(real, "/") && under_root(pol, real))
		rc = scan_once(b, &done, &mo, real, &budget, &truncated);
	mo.root_names = 0;
	for (i = 0; !rc && !truncated && i < pol->allow_write.n; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];
		struct stat st;

		if ((x->flags & SRT_RULE_GLOB) || is_dev(x->path) || resolve(x->path, real) != 0 ||
		    stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = scan_once(b, &done, &mo, real, &budget, &truncated);
	}
	srt__strv_release(&done);
	if (!rc && truncated)
		rc = srt_diag_set(b->diag, SRT_E_LIMIT, "mandatoryDenySearchDepth",
				  "linux-landlock: the mandatory deny scan of the write roots stopped after %d entries, so some dangerous files could stay writable; narrow filesystem.allowWrite or lower mandatoryDenySearchDepth",
				  SCAN_BUDGET);
	return rc;
}

/* The allowed socket paths, spelled as the supervisor compares them: the
 * real path of the directory and the socket's own name (it may not exist
 * yet, and a link at the name is not followed: connect(2) would, so the
 * supervisor connects to this spelling). allowAllUnixSockets covers them. */
static int unix_paths(struct sp_build *b)
{
	const struct srt_policy *pol = b->pol;
	size_t i;
	int rc;

	if (pol->allow_all_unix_sockets)
		return SRT_OK;
	for (i = 0; i < pol->allow_unix_sockets.n; i++) {
		const struct srt_rule *x = &pol->allow_unix_sockets.v[i];
		char full[PATH_MAX];
		int k = srt__unix_path_spelling(x->path, full);

		if (k == -1)
			return srt_diag_set(b->diag, SRT_E_INVAL, x->origin, "%s: \"%s\" is not a socket path",
					    x->origin, x->path);
		if (k != 0)
			return srt_diag_set(b->diag, SRT_E_INVAL, x->origin,
					    "%s: \"%s\" is too long for a Unix socket address (at most 107 bytes once resolved)",
					    x->origin, x->path);
		rc = srt__ll_rec(&b->b, "unix %s", full);
		if (rc)
			return rc;
		b->sp->n_unix++;
	}
	return SRT_OK;
}

int srt__ll_super_build(const struct srt_policy *pol, struct srt__ll_super *sp, struct srt_diag *diag)
{
	char home_real[PATH_MAX];
	struct srt__mandatory_opts mo;
	struct sp_build b;
	int rc;

	memset(sp, 0, sizeof(*sp));
	memset(&b, 0, sizeof(b));
	b.pol = pol;
	b.sp = sp;
	b.diag = diag;
	sp->landlock_pol = *pol;
	memset(&mo, 0, sizeof(mo));
	mo.depth = pol->mandatory_deny_depth > 0 ? pol->mandatory_deny_depth : 3;
	mo.allow_git_config = pol->allow_git_config;
	/* the protected list's releases, $HOME's names and hard links */
	mo.released = (const char *const *)pol->protected_released;
	mo.pol = pol;
	/* $HOME as spelled: the scan finds its names where they really
	 * lie, and each link on the way there, $HOME's own path included,
	 * that a write root holds (red team: a link in the write root that
	 * led to $HOME was pointed at a directory of the command's making) */
	if (pol->home && resolve(pol->home, home_real) == 0)
		mo.home = pol->home;

	rc = srt__ll_rec(&b.b, "%s", SRT_SUPER_PLAN_MAGIC);
	if (!rc)
		rc = roots(&b);
	if (!rc && sp->n_roots) {
		/* the kernel's own objects: the command's rights there are
		 * Landlock's (the /dev set), never the supervisor's */
		rc = srt__ll_rec(&b.b, "pass /dev");
		if (!rc)
			rc = srt__ll_rec(&b.b, "pass /proc");
		if (!rc)
			rc = srt__ll_rec(&b.b, "pass /sys");
		if (!rc)
			rc = denies(&b);
		if (!rc)
			rc = mandatory(&b, &mo);
		if (!rc)
			rc = name_patterns(&b, &mo);
		if (!rc)
			rc = repo_patterns(&b, &mo);
	}
	if (!rc)
		rc = unix_paths(&b);
	if (!rc)
		rc = srt__ll_rec(&b.b, "end");
	if (rc) {
		free(b.b.p);
		free(sp->allow_read);
		free(sp->allow_write);
		memset(sp, 0, sizeof(*sp));
		if (rc == SRT_E_LIMIT && !(diag && diag->message[0]))
			return srt_diag_set(diag, rc, "filesystem",
					    "linux-landlock: the supervisor plan is over %u bytes; narrow the filesystem rules",
					    SRT_LL_PLAN_MAX_BYTES);
		return rc;
	}
	sp->buf = b.b.p;
	sp->len = b.b.len;
	return SRT_OK;
}

void srt__ll_super_release(struct srt__ll_super *sp)
{
	free(sp->buf);
	free(sp->allow_read);
	free(sp->allow_write);
	memset(sp, 0, sizeof(*sp));
}
