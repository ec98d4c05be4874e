/* linux-landlock: policy -> Landlock rule plan (see plan.h for the model).
 *
 * Two independent domains are planned the same way, then merged per object:
 *  - reads: allowed by default; denyRead (and /dev outside the bwrap --dev
 *    set) deny; allowRead and the write roots re-open; the most specific
 *    rule wins, allow wins a tie.
 *  - writes: denied by default; allowWrite opens; denyWrite, the loaded
 *    settings files and the mandatory denies close and win over any allow
 *    at or below them; a denyRead path is unwritable too but, like a read
 *    deny, is most-specific-wins against a write root inside it.
 * A domain is a sorted list of path rules; process() walks the tree from
 * "/" and emits grants: a whole subtree when nothing below it differs, and
 * otherwise the complement, entry by entry, of the directory it must split. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/unix-path.h"
#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/glob.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/mountinfo.h"
#include "backends/linux-common/seccomp.h"
#include "common/platform.h"
#include "common/protected.h"

#define DEFAULT_SCAN_BUDGET 200000

struct lrule {
	char *path;
	int allow;
	int strong; /* writes: a denyWrite, wins over any allow at or below it */
	char *origin;
};

struct domain {
	const char *name; /* "reads" or "writes" */
	struct lrule *v;
	size_t n, alloc;
	int dflt_allow;
	const char *dflt_origin;
	uint64_t dir_rights, file_rights;
};

struct planner {
	const struct srt_policy *pol;
	struct srt__ll_plan *plan;
	struct srt_diag *diag;
	size_t max_rules;
	size_t glob_budget; /* directory entries the deny globs may visit */
	size_t scan_budget; /* and the mandatory-deny scan of the write roots */
	int private_dev;    /* srt__ll_plan_limits.private_dev */
	/* the last parent directory add_deny resolved, and where it is: the
	 * mandatory denies come in runs of names in one directory, and each
	 * resolve() of a deep path costs a readlink per component */
	char dir_in[PATH_MAX], dir_real[PATH_MAX];
	int dir_ok;
};

/* The bwrap --dev set: what a command sees of /dev under linux-bwrap. Any
 * other device (disks, /dev/sg*, /dev/nvme*) would read around every file
 * rule, so it stays out of reach. */
static const char *const dev_read[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/ptmx", "/dev/console",
};
static const char *const dev_write[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/ptmx",
};

/* '/' sorts before every other byte, so a directory's descendants follow
 * it contiguously ("/a", "/a/x", "/a-b"). */
static int path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
		if (ca == '/')
			ca = 1;
		if (cb == '/')
			cb = 1;
		if (ca != cb || !ca)
			return (int)ca - (int)cb;
	}
}

static int lrule_cmp(const void *a, const void *b)
{
	const struct lrule *x = a, *y = b;
	return path_cmp(x->path, y->path);
}

static int rule_cmp(const void *a, const void *b)
{
	const struct srt__ll_rule *x = a, *y = b;
	return path_cmp(x->path, y->path);
}

static int note(struct srt__ll_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct srt__ll_plan *plan, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (plan->n_notes == plan->alloc_notes) {
		size_t na = plan->alloc_notes ? plan->alloc_notes * 2 : 16;
		char **nv = realloc(plan->notes, na * sizeof(*nv));
		if (!nv)
			return SRT_E_NOMEM;
		plan->notes = nv;
		plan->alloc_notes = na;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return SRT_E_NOMEM;
	plan->notes[plan->n_notes++] = s;
	return SRT_OK;
}

static int domain_add(struct domain *d, const char *path, int allow, int strong,
		      const char *origin)
{
	struct lrule *r;

	if (d->n == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 32;
		struct lrule *nv = realloc(d->v, na * sizeof(*nv));
		if (!nv)
			return SRT_E_NOMEM;
		d->v = nv;
		d->alloc = na;
	}
	r = &d->v[d->n];
	r->path = strdup(path);
	r->origin = strdup(origin ? origin : "");
	if (!r->path || !r->origin) {
		free(r->path);
		free(r->origin);
		return SRT_E_NOMEM;
	}
	r->allow = allow;
	r->strong = strong;
	d->n++;
	return SRT_OK;
}

static void domain_release(struct domain *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].origin);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = 0;
}

/* p's real location: realpath when it exists, else the realpath of its
 * deepest existing ancestor with the rest appended. 0 or -1. */
static int resolve(const char *p, char out[PATH_MAX])
{
	return srt__real_location(p, out);
}

/* resolve() of a parent directory, remembering the last one asked for. */
static int resolve_dir(struct planner *pl, const char *dir, char out[PATH_MAX])
{
	if (pl->dir_ok && !strcmp(pl->dir_in, dir)) {
		memcpy(out, pl->dir_real, strlen(pl->dir_real) + 1);
		return 0;
	}
	pl->dir_ok = 0;
	if (resolve(dir, out) != 0)
		return -1;
	if (strlen(dir) < sizeof(pl->dir_in)) {
		memcpy(pl->dir_in, dir, strlen(dir) + 1);
		memcpy(pl->dir_real, out, strlen(out) + 1);
		pl->dir_ok = 1;
	}
	return 0;
}

/* named: p's last name in its parent's real location, or "" when p has no
 * such name (no parent, ".", "..", too long, unresolvable parent). */
static void name_in_real_parent(struct planner *pl, const char *p, char named[PATH_MAX])
{
	char parent[PATH_MAX];
	const char *slash = strrchr(p, '/');

	named[0] = '\0';
	if (!slash || slash == p || !slash[1] || !strcmp(slash, "/.") || !strcmp(slash, "/..") ||
	    (size_t)(slash - p) >= sizeof(parent))
		return;
	memcpy(parent, p, (size_t)(slash - p));
	parent[slash - p] = '\0';
	if (resolve_dir(pl, parent, named) != 0) {
		named[0] = '\0';
		return;
	}
	if (strlen(named) + strlen(slash) >= PATH_MAX) {
		named[0] = '\0';
		return;
	}
	if (strcmp(named, "/") == 0)
		named[0] = '\0';
	strcat(named, slash);
}

/* The deny of p covers the object it names (symlinks resolved) and the name
 * itself in its real parent directory: a symbolic link at p must not be
 * replaceable by a file the command writes. When that name is not a
 * symbolic link (or does not exist), it is also where p resolves to, which
 * spares a resolve() of the whole path. */
static int add_deny(struct planner *pl, struct domain *d, const char *p, int strong,
		    const char *origin)
{
	char real[PATH_MAX], named[PATH_MAX];
	struct stat st;
	int rc, have_st = 0, lrc = -1, lerr = 0;

	name_in_real_parent(pl, p, named);
	if (named[0]) {
		lrc = lstat(named, &st);
		lerr = lrc ? errno : 0;
	}
	if (named[0] && lrc == 0 && !S_ISLNK(st.st_mode)) {
		memcpy(real, named, strlen(named) + 1);
		have_st = 1;
	} else if (named[0] && lrc != 0 && lerr == ENOENT) {
		memcpy(real, named, strlen(named) + 1);
	} else if (resolve(p, real) != 0) {
		/* out of descriptors or memory is no property of the policy:
		 * SRT_E_IO, which a caller must not take for a refusal */
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == EIO)
			return srt_diag_set(pl->diag, SRT_E_IO, origin,
					    "linux-landlock cannot resolve \"%s\" (%s): %s", p, origin,
					    strerror(errno));
		return srt_diag_set(pl->diag, SRT_E_LIMIT, origin,
				    "linux-landlock cannot resolve \"%s\" (%s)", p, origin);
	} else {
		have_st = lstat(real, &st) == 0;
	}
	if (have_st && S_ISREG(st.st_mode) && st.st_nlink > 1)
		return srt_diag_set(pl->diag, SRT_E_UNAVAILABLE, origin,
				    "linux-landlock cannot enforce %s \"%s\": the file has %lu hard links and a link elsewhere would not be covered; remove the extra links or use the linux-bwrap backend",
				    origin, p, (unsigned long)st.st_nlink);
	rc = domain_add(d, real, 0, strong, origin);
	if (rc || !named[0] || strcmp(named, real) == 0)
		return rc;
	return domain_add(d, named, 0, strong, origin);
}

/* Sort, drop allows under a strong deny (denyWrite wins over any allow), and merge
 * rules on the same path: a strong deny wins, else an allow wins. */
static int domain_finish(struct planner *pl, struct domain *d)
{
	size_t i, j, o;
	int rc;

	if (d->n) /* qsort wants a non-NULL base even for no elements */
		qsort(d->v, d->n, sizeof(d->v[0]), lrule_cmp);
	for (i = 0; i < d->n; i++) {
		size_t l;
		if (!d->v[i].strong)
			continue;
		l = strlen(d->v[i].path);
		for (j = i + 1; j < d->n && !strncmp(d->v[j].path, d->v[i].path, l) &&
			     (d->v[j].path[l] == '/' || d->v[j].path[l] == '\0' || l == 1);
		     j++) {
			if (!d->v[j].allow)
				continue;
			rc = note(pl->plan, "%s: \"%s\" (%s) lies inside \"%s\" (%s): read-only, the deny wins",
				  d->name, d->v[j].path, d->v[j].origin, d->v[i].path, d->v[i].origin);
			if (rc)
				return rc;
			d->v[j].allow = 0;
			d->v[j].strong = 1;
		}
		/* a strong deny after an equal-path allow that sorted first */
		for (j = i; j > 0 && !strcmp(d->v[j - 1].path, d->v[i].path); j--) {
			d->v[j - 1].allow = 0;
			d->v[j - 1].strong = 1;
		}
	}
	for (i = 0, o = 0; i < d->n; i++) {
		if (o > 0 && !strcmp(d->v[o - 1].path, d->v[i].path)) {
			struct lrule *k = &d->v[o - 1];
			if (d->v[i].strong && !k->strong) {
				k->allow = 0;
				k->strong = 1;
				free(k->origin);
				k->origin = d->v[i].origin;
				d->v[i].origin = NULL;
			} else if (!k->strong && d->v[i].allow && !k->allow) {
				k->allow = 1;
				free(k->origin);
				k->origin = d->v[i].origin;
				d->v[i].origin = NULL;
			}
			free(d->v[i].path);
			free(d->v[i].origin);
			continue;
		}
		d->v[o++] = d->v[i];
	}
	d->n = o;
	return SRT_OK;
}

/* Index of the first rule not below path_cmp order of key. */
static size_t lower_bound(const struct domain *d, const char *key)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (path_cmp(d->v[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct lrule *find_exact(const struct domain *d, const char *path)
{
	size_t i = lower_bound(d, path);

	if (i < d->n && !strcmp(d->v[i].path, path))
		return &d->v[i];
	return NULL;
}

/* The rules strictly below directory p: [*lo, *hi). */
static void range_under(const struct domain *d, const char *p, size_t *lo, size_t *hi)
{
	size_t pl = strlen(p), i;

	if (pl == 1) {
		/* "/": everything but "/" itself */
		i = lower_bound(d, "/");
		if (i < d->n && !strcmp(d->v[i].path, "/"))
			i++;
		*lo = i;
		*hi = d->n;
		return;
	}
	i = lower_bound(d, p);
	if (i < d->n && !strcmp(d->v[i].path, p))
		i++;
	*lo = i;
	while (i < d->n && !strncmp(d->v[i].path, p, pl) && d->v[i].path[pl] == '/')
		i++;
	*hi = i;
}

static int join(char out[PATH_MAX], const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "", name);
	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

static int grant(struct planner *pl, const struct domain *d, const char *path,
		 const struct stat *st, const char *why)
{
	struct srt__ll_plan *plan = pl->plan;
	struct srt__ll_rule *r;
	int is_dir = S_ISDIR(st->st_mode);
	uint64_t access = (is_dir ? d->dir_rights : d->file_rights) & plan->handled_fs;

	if (!access)
		return SRT_OK;
	if (plan->n_rules >= pl->max_rules)
		return srt_diag_set(pl->diag, SRT_E_LIMIT, why,
				    "linux-landlock: the plan needs more than %zu rules (at \"%s\", %s); narrow the filesystem rules or use the linux-bwrap backend",
				    pl->max_rules, path, why);
	if (plan->n_rules == plan->alloc_rules) {
		size_t na = plan->alloc_rules ? plan->alloc_rules * 2 : 64;
		struct srt__ll_rule *nv = realloc(plan->rules, na * sizeof(*nv));
		if (!nv)
			return SRT_E_NOMEM;
		plan->rules = nv;
		plan->alloc_rules = na;
	}
	r = &plan->rules[plan->n_rules];
	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	if (asprintf(&r->why, "%s: %s", d->name, why) < 0)
		r->why = NULL;
	if (!r->path || !r->why) {
		free(r->path);
		free(r->why);
		return SRT_E_NOMEM;
	}
	r->access = access;
	r->dev = (uint64_t)st->st_dev;
	r->ino = (uint64_t)st->st_ino;
	r->is_dir = is_dir;
	plan->n_rules++;
	return SRT_OK;
}

static int process(struct planner *pl, const struct domain *d, const char *p, int allow,
		   const char *origin);

/* Grant, entry by entry, everything in directory p except what deny (the
 * first deny rule below p) and the other rules below p take out. */
static int split(struct planner *pl, const struct domain *d, const char *p, int allow,
		 const char *origin, const struct lrule *deny)
{
	struct dirent *de;
	DIR *dir;
	int fd, rc = SRT_OK;

	fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return srt_diag_set(pl->diag, SRT_E_UNAVAILABLE, deny->origin,
				    "linux-landlock cannot enforce %s \"%s\": the directory \"%s\" on its way cannot be listed (%s), so its other entries cannot be granted one by one; make it listable or use the linux-bwrap backend",
				    deny->origin, deny->path, p, strerror(e));
	}
	if (!strcmp(d->name, "reads"))
		rc = note(pl->plan,
			  "reads: \"%s\" is granted entry by entry to keep \"%s\" (%s) unreadable: it cannot be listed itself, and entries that appear in it later are unreadable",
			  p, deny->path, deny->origin);
	else
		rc = note(pl->plan,
			  "writes: \"%s\" is granted entry by entry to keep \"%s\" (%s) read-only: nothing can be created, removed or renamed directly in it; its existing entries stay writable",
			  p, deny->path, deny->origin);
	while (!rc && (de = readdir(dir))) {
		char child[PATH_MAX];
		const struct lrule *r;
		struct stat st;
		size_t lo, hi;
		int callow;
		const char *corigin;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (join(child, p, de->d_name) != 0) {
			rc = srt_diag_set(pl->diag, SRT_E_LIMIT, deny->origin,
					  "linux-landlock: a name in \"%s\" is too long to grant", p);
			break;
		}
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue; /* gone since readdir: nothing to grant */
		if (S_ISLNK(st.st_mode))
			continue; /* the target is covered where it really lives */
		r = find_exact(d, child);
		callow = r ? r->allow : allow;
		corigin = r ? r->origin : origin;
		if (S_ISDIR(st.st_mode)) {
			range_under(d, child, &lo, &hi);
			if (r || lo < hi) {
				rc = process(pl, d, child, callow, corigin);
				continue;
			}
		}
		if (callow)
			rc = grant(pl, d, child, &st, corigin);
	}
	closedir(dir);
	return rc;
}

static int process(struct planner *pl, const struct domain *d, const char *p, int allow,
		   const char *origin)
{
	struct stat st;
	size_t lo, hi, i;

	if (lstat(p, &st) != 0 || S_ISLNK(st.st_mode))
		return SRT_OK; /* absent, or a link: nothing to grant here */
	range_under(d, p, &lo, &hi);
	if (allow) {
		for (i = lo; i < hi; i++)
			if (!d->v[i].allow)
				break;
		if (i == hi || !S_ISDIR(st.st_mode))
			return grant(pl, d, p, &st, origin);
		return split(pl, d, p, allow, origin, &d->v[i]);
	}
	/* A denied region: descend only towards the allows inside it, by the
	 * names the rules spell, without listing anything. */
	for (i = lo; i < hi;) {
		const char *rest = d->v[i].path + (strlen(p) == 1 ? 1 : strlen(p) + 1);
		size_t clen = strcspn(rest, "/"), j, cl;
		char child[PATH_MAX];
		const struct lrule *r;
		int any_allow = 0, rc;

		if (snprintf(child, sizeof(child), "%.*s", (int)(rest - d->v[i].path + clen),
			     d->v[i].path) >= (int)sizeof(child))
			return srt_diag_set(pl->diag, SRT_E_LIMIT, d->v[i].origin,
					    "linux-landlock: \"%s\" is too long", d->v[i].path);
		cl = strlen(child);
		for (j = i; j < d->n && !strncmp(d->v[j].path, child, cl) &&
			    (d->v[j].path[cl] == '/' || d->v[j].path[cl] == '\0');
		     j++)
			if (d->v[j].allow)
				any_allow = 1;
		if (any_allow) {
			r = find_exact(d, child);
			rc = process(pl, d, child, r ? r->allow : 0, r ? r->origin : origin);
			if (rc)
				return rc;
		}
		i = j;
	}
	return SRT_OK;
}

/* "/" may carry a rule itself (allowWrite "/", denyRead "/"). */
static int process_root(struct planner *pl, const struct domain *d)
{
	const struct lrule *r = find_exact(d, "/");

	return process(pl, d, "/", r ? r->allow : d->dflt_allow, r ? r->origin : d->dflt_origin);
}

/* Sort the grants and merge those on one object (a read and a write grant
 * of the same directory become one rule). */
static int merge_rules(struct srt__ll_plan *plan)
{
	size_t i, o;

	if (plan->n_rules)
		qsort(plan->rules, plan->n_rules, sizeof(plan->rules[0]), rule_cmp);
	for (i = 0, o = 0; i < plan->n_rules; i++) {
		struct srt__ll_rule *r = &plan->rules[i];
		if (o > 0 && !strcmp(plan->rules[o - 1].path, r->path)) {
			struct srt__ll_rule *k = &plan->rules[o - 1];
			char *why;
			k->access |= r->access;
			if (asprintf(&why, "%s; %s", k->why, r->why) < 0)
				return SRT_E_NOMEM;
			free(k->why);
			k->why = why;
			free(r->path);
			free(r->why);
			continue;
		}
		plan->rules[o++] = *r;
	}
	plan->n_rules = o;
	return SRT_OK;
}

static int refuse_glob(struct planner *pl, const struct srt_rule *r)
{
	return srt_diag_set(pl->diag, SRT_E_UNSUPPORTED, r->origin,
			    "linux-landlock cannot enforce the glob %s \"%s\" (Landlock rules name existing paths); spell the paths out or use the linux-bwrap backend",
			    r->origin, r->path);
}

/* A denyRead glob is expanded now (grammar in glob.h, as linux-bwrap
 * does): every match, links included, is denied like a literal entry. */
static int deny_glob(struct planner *pl, struct domain *d, const struct srt_rule *x)
{
	struct srt__strv m = { 0 };
	struct srt_diag gd;
	size_t j;
	int rc;

	memset(&gd, 0, sizeof(gd));
	rc = srt__glob_expand(x->path, 1, &pl->glob_budget, &m, &gd);
	if (rc) {
		srt__strv_release(&m);
		return srt_diag_set(pl->diag, rc, x->origin, "linux-landlock cannot expand %s \"%s\": %s",
				    x->origin, x->path, gd.message);
	}
	for (j = 0; j < m.n && !rc; j++)
		rc = add_deny(pl, d, m.v[j], 0, x->origin);
	if (!rc)
		rc = note(pl->plan,
			  "reads: %s \"%s\" matched %zu paths when the plan was made; a path created later that matches it is not denied unless it lands in a directory split for another rule",
			  x->origin, x->path, m.n);
	srt__strv_release(&m);
	return rc;
}

static int under_any(const char *path, const struct domain *d, int want_allow)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		size_t l = strlen(d->v[i].path);
		if (d->v[i].allow != want_allow)
			continue;
		if (l == 1 || (!strncmp(path, d->v[i].path, l) && (path[l] == '/' || path[l] == '\0')))
			return 1;
	}
	return 0;
}

struct scan_ctx {
	struct planner *pl;
	struct domain *w;
	struct domain *r;
};

static int on_mandatory(void *vctx, const char *path, const char *what)
{
	struct scan_ctx *c = vctx;
	char origin[128];

	snprintf(origin, sizeof(origin), "mandatory deny %s", what);
	return add_deny(c->pl, c->w, path, 1, origin);
}

/* A hard link to a denyRead file: denied to reading like the file (a
 * file with several links is refused by add_deny, fail closed). */
static int on_mandatory_read(void *vctx, const char *path, const char *what)
{
	struct scan_ctx *c = vctx;
	char origin[192];

	snprintf(origin, sizeof(origin), "mandatory deny %s", what);
	return add_deny(c->pl, c->r, path, 0, origin);
}

/* /dev/pts and /dev/tty: inside linux-bwrap a devpts of the sandbox's own
 * and a new session; elsewhere the host's, where every terminal of this
 * user would be open to reading keystrokes and writing into them, and
 * /dev/tty is the caller's controlling terminal even when the command was
 * given no terminal (srt ... </dev/null >log from an interactive shell).
 * There only the terminals the command is started on (stdin, stdout,
 * stderr) are granted, and /dev/tty only when it has one; a terminal the
 * command makes with /dev/ptmx is reached through its master
 * (TIOCGPTPEER), not by its name. */
static int grant_pts(struct planner *pl, struct domain *d, const char *origin)
{
	int fd, rc = SRT_OK, any = 0;

	if (pl->private_dev) {
		rc = domain_add(d, "/dev/pts", 1, 0, origin);
		return rc ? rc : domain_add(d, "/dev/tty", 1, 0, origin);
	}
	for (fd = 0; fd <= 2 && !rc; fd++) {
		char link[32], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 9 || (size_t)n >= sizeof(target) - 1)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/dev/pts/", 9) != 0 || strchr(target + 9, '/'))
			continue;
		any = 1;
		rc = domain_add(d, target, 1, 0, "linux-landlock: the terminal the command is started on");
	}
	if (!rc && any)
		rc = domain_add(d, "/dev/tty", 1, 0, "linux-landlock: the terminal the command is started on");
	return rc;
}

/* Is the link at path one a sandboxed command could have planted: in a
 * write root of pol, or in any directory this user can write or owns (see
 * srt__os_dir_ours_to_write)? (Also the link_fn of srt__ll_allow_real's
 * resolution.) */
static int link_planted(void *ctx, const char *link)
{
	const struct srt_policy *pol = ctx;
	char dir[PATH_MAX];
	size_t j;

	snprintf(dir, sizeof(dir), "%s", link);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (srt__os_dir_ours_to_write(dir))
		return 1;
	for (j = 0; j < pol->allow_write.n; j++) {
		const char *root = pol->allow_write.v[j].path;
		size_t l = strlen(root);

		if (!strcmp(root, "/") || (!strncmp(dir, root, l) && (dir[l] == '/' || dir[l] == '\0')))
			return 1;
	}
	return 0;
}

/* Does p lead through a symbolic link that a sandboxed command could have
 * planted: one in a write root of this policy, or in any directory this
 * user can write? An allow rule never follows such a link (as linux-bwrap:
 * a run could turn its own directory into a door to anywhere for the next
 * run). */
static int via_planted_link(const struct srt_policy *pol, const char *p)
{
	char cur[PATH_MAX];
	size_t len = strlen(p), i;

	if (p[0] != '/' || len >= sizeof(cur))
		return 0;
	for (i = 1; i <= len; i++) {
		struct stat st;

		if (p[i] != '/' && p[i] != '\0')
			continue;
		memcpy(cur, p, i);
		cur[i] = '\0';
		if (lstat(cur, &st) != 0)
			return 0; /* the rest does not exist: nothing to follow */
		if (S_ISLNK(st.st_mode) && link_planted((void *)pol, cur))
			return 1;
	}
	return 0;
}

int srt__ll_allow_real(const struct srt_policy *pol, const char *p, char out[PATH_MAX],
		       struct stat *st)
{
	struct open_how how;
	char again[PATH_MAX];
	int rc, fd;

	if (via_planted_link(pol, p))
		return 1;
	rc = srt__mountinfo_resolve_links(p, again, sizeof(again), link_planted, (void *)pol);
	if (rc == 1)
		return 1;
	if (rc != 0 || resolve(p, out) != 0)
		return -1;
	/* the second look (realpath) must land where the checked one did: a
	 * link flipped in between would otherwise be granted unchecked */
	if (strcmp(out, again))
		return 1;
	if (!st)
		return 0;
	/* the object there now, reached without following any link (the
	 * resolved path has none: one that has become a link since is a
	 * change, not a way somewhere else) */
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, out, &how, sizeof(how));
	if (fd < 0)
		return 1; /* gone, a link on the way now, or not to be checked: refused */
	rc = fstat(fd, st);
	close(fd);
	return rc != 0 || S_ISLNK(st->st_mode) ? 1 : 0;
}

static int build_reads(struct planner *pl, struct domain *r, const struct domain *w)
{
	const struct srt_policy *pol = pl->pol;
	char real[PATH_MAX];
	size_t i;
	int rc, k;

	for (i = 0; i < pol->deny_read.n; i++) {
		const struct srt_rule *x = &pol->deny_read.v[i];
		if (x->flags & SRT_RULE_GLOB)
			rc = deny_glob(pl, r, x);
		else
			rc = add_deny(pl, r, x->path, 0, x->origin);
		if (rc)
			return rc;
	}
	for (i = 0; i < pol->allow_read.n; i++) {
		const struct srt_rule *x = &pol->allow_read.v[i];
		if (x->flags & SRT_RULE_GLOB) {
			struct srt__strv m = { 0 };
			struct srt_diag gd;
			size_t j;

			/* matches only, links not followed (see glob.h) */
			memset(&gd, 0, sizeof(gd));
			rc = srt__glob_expand(x->path, 0, &pl->glob_budget, &m, &gd);
			if (rc) {
				srt__strv_release(&m);
				return srt_diag_set(pl->diag, rc, x->origin,
						    "linux-landlock cannot expand %s \"%s\": %s",
						    x->origin, x->path, gd.message);
			}
			for (j = 0; j < m.n && !rc; j++)
				if (resolve(m.v[j], real) == 0)
					rc = domain_add(r, real, 1, 0, x->origin);
			srt__strv_release(&m);
			if (rc)
				return rc;
			continue;
		}
		k = srt__ll_allow_real(pol, x->path, real, NULL);
		if (k == 1) {
			rc = note(pl->plan, "warning: %s \"%s\" is not applied: it goes through a symbolic link in a directory that can be written (a sandboxed command could have planted it), or it changed while srt looked; name the real path instead",
				  x->origin, x->path);
			if (rc)
				return rc;
			continue;
		}
		if (k == 0 && (rc = domain_add(r, real, 1, 0, x->origin)))
			return rc;
	}
	/* a write root is readable (bwrap binds it back inside a denied dir) */
	for (i = 0; i < w->n; i++)
		if (w->v[i].allow && (rc = domain_add(r, w->v[i].path, 1, 0, w->v[i].origin)))
			return rc;
	rc = domain_add(r, "/dev", 0, 0, "linux-landlock: /dev outside the bwrap --dev set");
	for (i = 0; !rc && i < sizeof(dev_read) / sizeof(dev_read[0]); i++)
		rc = domain_add(r, dev_read[i], 1, 0, "linux-landlock: the bwrap --dev set");
	if (!rc)
		rc = grant_pts(pl, r, "linux-landlock: the bwrap --dev set");
	return rc;
}

/* The mandatory-deny walk of one root, once: a root already walked
 * (allowWrite "." is the working directory, whose walk also reported the
 * absent names) would only report the same paths again. */
static int scan_root(struct planner *pl, const struct srt__mandatory_opts *mo, const char *real,
		     size_t *budget, int *truncated, struct scan_ctx *sc, struct srt__strv *scanned)
{
	size_t j;
	int rc;

	for (j = 0; j < scanned->n; j++)
		if (!strcmp(scanned->v[j], real))
			return SRT_OK;
	rc = srt__mandatory_scan_error(srt__mandatory_scan(real, mo, budget, truncated, on_mandatory, sc),
				       real, pl->diag);
	if (!rc && srt__strv_push(scanned, real))
		rc = srt_diag_set(pl->diag, SRT_E_NOMEM, "", "out of memory");
	return rc;
}

static int build_writes(struct planner *pl, struct domain *w, struct domain *rd)
{
	const struct srt_policy *pol = pl->pol;
	struct srt__mandatory_opts mo;
	struct scan_ctx sc;
	struct srt__strv scanned = { 0 };
	char real[PATH_MAX], home_real[PATH_MAX];
	size_t i, budget;
	int rc, truncated = 0;

	for (i = 0; i < pol->allow_write.n; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];
		if (x->flags & SRT_RULE_GLOB)
			return refuse_glob(pl, x);
		if (!strncmp(x->path, "/dev/", 5) || !strcmp(x->path, "/dev"))
			continue; /* the --dev set below, as linux-bwrap does */
		if (resolve(x->path, real) != 0 || access(real, F_OK) != 0) {
			/* a plan only printed names the run's own TMPDIR, which
			 * each run makes before planning */
			int made = pol->plan_only && pol->tmpdir && !strcmp(x->path, pol->tmpdir);

			rc = note(pl->plan, made ? "writes: %s \"%s\": made by each run, writable" :
						   "writes: %s \"%s\" does not exist: skipped",
				  x->origin, x->path);
			if (rc)
				return rc;
			continue;
		}
		if (srt__ll_allow_real(pol, x->path, real, NULL) != 0) {
			rc = note(pl->plan, "warning: %s \"%s\" is not applied: it goes through a symbolic link in a directory that can be written (a sandboxed command could have planted it), or it changed while srt looked; check where it leads and, if that is the place you meant, name that path instead",
				  x->origin, x->path);
			if (rc)
				return rc;
			continue;
		}
		rc = domain_add(w, real, 1, 0, x->origin);
		if (rc)
			return rc;
	}
	for (i = 0; i < sizeof(dev_write) / sizeof(dev_write[0]); i++)
		if ((rc = domain_add(w, dev_write[i], 1, 0, "linux-landlock: the bwrap --dev set")))
			return rc;
	if ((rc = grant_pts(pl, w, "linux-landlock: the bwrap --dev set")))
		return rc;
	for (i = 0; i < pol->deny_write.n; i++) {
		const struct srt_rule *x = &pol->deny_write.v[i];
		if (x->flags & SRT_RULE_GLOB)
			return refuse_glob(pl, x);
		rc = add_deny(pl, w, x->path, 1, x->origin);
		if (rc)
			return rc;
	}
	/* Mandatory denies (mandatory.h): in the working directory, names even when
	 * absent, and in every write root what exists. Only what lies in a
	 * write root matters: elsewhere nothing is writable anyway. */
	memset(&mo, 0, sizeof(mo));
	mo.depth = pol->mandatory_deny_depth > 0 ? pol->mandatory_deny_depth : 3;
	mo.allow_git_config = pol->allow_git_config;
	mo.released = (const char *const *)pol->protected_released;
	mo.pol = pol;
	mo.read_fn = on_mandatory_read;
	/* the roots are walked resolved: $HOME too, to find its names there */
	/* $HOME as spelled: the scan finds its names where they really
	 * lie, and each link on the way there, $HOME's own path included,
	 * that a write root holds (red team: a link in the write root that
	 * led to $HOME was pointed at a directory of the command's making) */
	if (pol->home && resolve(pol->home, home_real) == 0)
		mo.home = pol->home;
	budget = pl->scan_budget;
	sc.pl = pl;
	sc.w = w;
	sc.r = rd;
	rc = SRT_OK;
	mo.root_names = 1;
	if (pol->cwd && resolve(pol->cwd, real) == 0 && under_any(real, w, 1) &&
	    (rc = scan_root(pl, &mo, real, &budget, &truncated, &sc, &scanned)))
		goto out;
	/* $HOME inside a write root: the shells read its startup files, so
	 * its absent ones are held like the working directory's */
	if (!truncated && pol->home && resolve(pol->home, real) == 0 && strcmp(real, "/") != 0 &&
	    under_any(real, w, 1) && (rc = scan_root(pl, &mo, real, &budget, &truncated, &sc, &scanned)))
		goto out;
	mo.root_names = 0;
	for (i = 0; i < pol->allow_write.n && !truncated; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];
		struct stat st;

		if (!strncmp(x->path, "/dev/", 5) || resolve(x->path, real) != 0 ||
		    stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = scan_root(pl, &mo, real, &budget, &truncated, &sc, &scanned);
		if (rc)
			goto out;
	}
	if (truncated)
		rc = srt_diag_set(pl->diag, SRT_E_LIMIT, "mandatoryDenySearchDepth",
				  "linux-landlock: the mandatory deny scan of the write roots stopped after %zu entries, so some dangerous files could stay writable; narrow filesystem.allowWrite or lower mandatoryDenySearchDepth",
				  pl->scan_budget);
out:
	srt__strv_release(&scanned);
	return rc;
}

/* The refusals that depend only on the policy and the ABI. */
int srt__ll_plan_check(const struct srt_policy *pol, int abi, struct srt_diag *diag)
{
	if (abi < 1)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "landlock", "landlock is not available");
	if (pol->proxy_socket)
		return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.allowedDomains",
				    "linux-landlock cannot reach the proxy yet (network.allowedDomains needs linux-bwrap)");
	/* Without a network namespace the host's abstract Unix sockets would
	 * be reachable; ABI 6 scopes them to the sandbox. */
	if (pol->allow_all_unix_sockets && abi < 6)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "network.allowAllUnixSockets",
				    "linux-landlock: network.allowAllUnixSockets needs Landlock ABI 6 (Linux 6.12) to keep the host's abstract Unix sockets out of reach; this kernel has ABI %d: use linux-bwrap or remove the setting",
				    abi);
	/* Before ABI 3 truncate(2) and open(O_RDONLY|O_TRUNC) are not checked:
	 * every write deny could be emptied. */
	if (!pol->fs_disabled && abi < 3)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "filesystem",
				    "linux-landlock: Landlock ABI %d cannot stop truncate(2) and O_TRUNC on read-only files (needs ABI 3, Linux 6.2); use linux-bwrap or a newer kernel",
				    abi);
	return SRT_OK;
}

/* ---- second names of a denied path (other mounts) ----------------------
 * Landlock attaches a rule to the inode of the path it names. A bind mount
 * shows a directory (or file) of a filesystem at a second path: a rule the
 * plan grants there, or on a directory above it, reaches the denied files
 * under that second path, and a rule on the second path's own root (a
 * sibling the plan grants on its way to a deny) is on the very inode of the
 * denied directory or of one above it, so it reaches the denied files under
 * their own names too (red team: a `mount --bind ~ /mnt/home` made ~/.ssh
 * readable at ~/.ssh). /proc/self/mountinfo says which part of its
 * filesystem each mount shows (its root field): for each deny, every other
 * mount of the same filesystem whose root holds the denied path or lies
 * inside it refuses the plan when a read grant covers the second path, or
 * a write grant lies at or below that mount's point (on its own inodes). */
struct ll_mount {
	unsigned maj, min;
	char *root, *mnt;
	char **layers; /* an overlay's layer directories (mountinfo.h); else NULL */
	size_t n_lower; /* the first n_lower are lower layers, the rest its upper one */
};

static int ll_covers(const char *a, const char *b)
{
	size_t l = strlen(a);

	return !strcmp(a, "/") || (!strncmp(a, b, l) && (b[l] == '/' || b[l] == '\0'));
}

static void ll_mounts_free(struct ll_mount *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].root);
		free(v[i].mnt);
		srt__mountinfo_layers_free(v[i].layers);
	}
	free(v);
}

/* Our mount table: SRT_OK, SRT_E_NOMEM, or SRT_E_IO (unreadable). */
static int ll_mounts_read(struct ll_mount **out, size_t *nout)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct ll_mount *v = NULL;
	size_t n = 0, alloc = 0, cap = 0;
	char *line = NULL;
	int rc = SRT_OK;

	if (!f)
		return SRT_E_IO;
	while (getline(&line, &cap, f) > 0) {
		char *root = malloc(strlen(line) + 1), *mnt = malloc(strlen(line) + 1);
		unsigned maj, min;

		if (root && mnt && n == alloc) {
			size_t na = alloc ? alloc * 2 : 64;
			struct ll_mount *nv = realloc(v, na * sizeof(*nv));

			if (nv) {
				v = nv;
				alloc = na;
			}
		}
		if (!root || !mnt || n == alloc) {
			free(root);
			free(mnt);
			rc = SRT_E_NOMEM;
			break;
		}
		if (sscanf(line, "%*d %*d %u:%u %s %s", &maj, &min, root, mnt) != 4) {
			free(root);
			free(mnt);
			continue;
		}
		srt__mountinfo_unescape(root);
		srt__mountinfo_unescape(mnt);
		if (srt__mountinfo_overlay(line, &v[n].layers, &v[n].n_lower) < 0) {
			free(root);
			free(mnt);
			rc = SRT_E_NOMEM;
			break;
		}
		v[n].maj = maj;
		v[n].min = min;
		v[n].root = root;
		v[n].mnt = mnt;
		n++;
	}
	/* a read that failed part way is no end of the table */
	if (!rc && (ferror(f) || !feof(f)))
		rc = SRT_E_IO;
	free(line);
	fclose(f);
	if (rc) {
		ll_mounts_free(v, n);
		return rc;
	}
	*out = v;
	*nout = n;
	return SRT_OK;
}

/* The mount path lives on: the last mounted of the longest mount point
 * holding it; -1 for none. */
static long ll_mount_of(const struct ll_mount *v, size_t n, const char *path)
{
	long best = -1;
	size_t bl = 0;

	for (size_t i = 0; i < n; i++)
		if (ll_covers(v[i].mnt, path) && strlen(v[i].mnt) >= bl) {
			bl = strlen(v[i].mnt);
			best = (long)i;
		}
	return best;
}

/* path as its filesystem names it: mount k's root joined with what
 * follows k's mount point. 0, or -1 when it does not fit in cap. */
static int ll_fs_path(const struct ll_mount *m, const char *path, char *out, size_t cap)
{
	return (size_t)snprintf(out, cap, "%s%s", strcmp(m->root, "/") ? m->root : "",
				strcmp(m->mnt, "/") ? path + strlen(m->mnt) : path) >= cap ? -1 : 0;
}

/* Where mount m shows the filesystem path rel: rel's own place when m's
 * root holds it, m's mount point when rel holds m's root (a directory
 * inside rel shown whole there). 0, or -1 when m shows none of rel or
 * the path does not fit in cap. */
static int ll_shown_at(const struct ll_mount *m, const char *rel, char *out, size_t cap)
{
	if (ll_covers(m->root, rel)) {
		const char *t = strcmp(m->root, "/") ? rel + strlen(m->root) : rel;

		return (size_t)snprintf(out, cap, "%s%s", strcmp(m->mnt, "/") || !*t ? m->mnt : "", t) >=
		       cap ? -1 : 0;
	}
	if (ll_covers(rel, m->root)) {
		snprintf(out, cap, "%s", m->mnt);
		return 0;
	}
	return -1;
}

/* Does a grant of rights in the plan cover path? With floor, only a grant
 * at or below floor counts. */
static const struct srt__ll_rule *ll_granted(const struct srt__ll_plan *plan, const char *path,
					     uint64_t rights, const char *floor)
{
	for (size_t i = 0; i < plan->n_rules; i++)
		if ((plan->rules[i].access & rights) && ll_covers(plan->rules[i].path, path) &&
		    (!floor || ll_covers(floor, plan->rules[i].path)))
			return &plan->rules[i];
	return NULL;
}

static int ll_check_mounts_of(struct planner *pl, const struct domain *d, const struct ll_mount *v,
			      size_t n, uint64_t rights)
{
	char rel[PATH_MAX * 2], alias[PATH_MAX * 3];
	int reads = !strcmp(d->name, "reads");

	for (size_t i = 0; i < d->n; i++) {
		const struct lrule *x = &d->v[i];
		long k;

		if (x->allow || (k = ll_mount_of(v, n, x->path)) < 0 ||
		    ll_fs_path(&v[k], x->path, rel, sizeof(rel)))
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct srt__ll_rule *g;

			if ((long)j == k || v[j].maj != v[k].maj || v[j].min != v[k].min ||
			    ll_shown_at(&v[j], rel, alias, sizeof(alias)))
				continue;
			/* writes: only a grant on the mount's own inodes, which
			 * reaches the path by its own name too; one above the
			 * mount point opens the second path as any path in a
			 * write root is (linux-bwrap's binds do the same) */
			if (ll_covers(x->path, alias) ||
			    !(g = ll_granted(pl->plan, alias, rights, reads ? NULL : v[j].mnt)))
				continue;
			return srt_diag_set(pl->diag, SRT_E_UNAVAILABLE, x->origin,
					    "linux-landlock cannot enforce %s \"%s\": it is also at \"%s\" (another mount of its filesystem), where the plan grants %s (\"%s\": %s), and Landlock's rule would reach \"%s\" %s; add \"%s\" to filesystem.%s, unmount it, or use the linux-bwrap backend",
					    x->origin, x->path, alias, d->name, g->path, g->why ? g->why : "",
					    x->path, reads ? "under both names" : "under its own name too", alias,
					    reads ? "denyRead" : "denyWrite");
		}
	}
	return SRT_OK;
}

/* An overlay shows its layers' files under inodes of its own, so a grant
 * on it reaches no denied file by its own name; but a read grant covering
 * it reads a denied path through a layer that holds it (or lies inside
 * it) at the overlay's path. */
static int ll_check_overlays(struct planner *pl, const struct domain *d, const struct ll_mount *v,
			     size_t n)
{
	char alias[PATH_MAX * 3];

	for (size_t i = 0; i < d->n; i++) {
		const struct lrule *x = &d->v[i];

		for (size_t j = 0; !x->allow && j < n; j++) {
			for (size_t k = 0; v[j].layers && v[j].layers[k]; k++) {
				const char *l = v[j].layers[k];
				const struct srt__ll_rule *g;

				if (l[0] != '/') {
					/* a layer srt cannot place (a relative name) may
					 * hold the path: the overlay counts, unless the
					 * path is on it (a container's root) or the user
					 * cannot reach it */
					if (ll_covers(v[j].mnt, x->path) || access(v[j].mnt, X_OK) != 0)
						continue;
					snprintf(alias, sizeof(alias), "%s", v[j].mnt);
				} else if (ll_covers(l, x->path)) {
					const char *t = strcmp(l, "/") ? x->path + strlen(l) : x->path;

					if ((size_t)snprintf(alias, sizeof(alias), "%s%s",
							     strcmp(v[j].mnt, "/") || !*t ? v[j].mnt : "",
							     t) >= sizeof(alias))
						continue;
				} else if (ll_covers(x->path, l)) {
					snprintf(alias, sizeof(alias), "%s", v[j].mnt);
				} else {
					continue;
				}
				if (ll_covers(x->path, alias) ||
				    !(g = ll_granted(pl->plan, alias, SRT_LL_READ_FILE_RIGHTS, NULL)))
					continue;
				if (l[0] != '/')
					return srt_diag_set(pl->diag, SRT_E_UNAVAILABLE, x->origin,
							    "linux-landlock cannot enforce %s \"%s\": the overlay mount at \"%s\" names its layer \"%s\" by a relative path that srt cannot place, so it may show \"%s\" there, and the plan grants reads (\"%s\": %s); add \"%s\" to filesystem.denyRead, unmount it, or use the linux-bwrap backend",
							    x->origin, x->path, alias, l, x->path, g->path, g->why ? g->why : "", alias);
				return srt_diag_set(pl->diag, SRT_E_UNAVAILABLE, x->origin,
						    "linux-landlock cannot enforce %s \"%s\": it is also at \"%s\" (an overlay mount with \"%s\" as a layer), where the plan grants reads (\"%s\": %s); add \"%s\" to filesystem.denyRead, unmount it, or use the linux-bwrap backend",
						    x->origin, x->path, alias, l, g->path, g->why ? g->why : "", alias);
			}
		}
	}
	return SRT_OK;
}

/* Is path in a write root of pol, and not below one of its denyWrite
 * paths (the nearest of them decides)? */
static int ll_pol_writable(const struct srt_policy *pol, const char *path)
{
	const struct srt_rules *l[2] = { &pol->allow_write, &pol->deny_write };
	size_t best = 0;
	int allow = 0;

	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < l[w]->n; i++) {
			char real[PATH_MAX];
			size_t len;

			if ((l[w]->v[i].flags & SRT_RULE_GLOB) || srt__realpath_memo(l[w]->v[i].path, real) != 0 ||
			    !ll_covers(real, path) || (len = strlen(real)) < best)
				continue;
			best = len;
			allow = w == 0;
		}
	return allow;
}

/* The refusal when alias, a second path of the protected name p at path
 * (another mount's, what), is in a write root of pol; else SRT_OK. */
static int ll_protected_alias(const struct srt_policy *pol, struct srt_diag *diag,
			      const struct srt__protected *p, const char *path, const char *alias,
			      const char *what)
{
	if (!strcmp(alias, path) || !ll_pol_writable(pol, alias))
		return SRT_OK;
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "filesystem.allowWrite",
			    "linux-landlock cannot hold the protected name %s \"%s\": it is also at \"%s\" (%s), in a write root; add \"%s\" to filesystem.denyWrite, or unmount it",
			    p->name, path, alias, what, alias);
}

int srt__ll_check_protected_mounts(const struct srt_policy *pol, struct srt_diag *diag)
{
	char home[PATH_MAX], name[PATH_MAX * 2], path[PATH_MAX], rel[PATH_MAX * 3], alias[PATH_MAX * 4];
	struct ll_mount *v;
	size_t n;
	int rc;

	if (!pol->home || srt__realpath_memo(pol->home, home) != 0)
		return SRT_OK;
	rc = ll_mounts_read(&v, &n);
	if (rc == SRT_E_NOMEM)
		return rc;
	if (rc)
		return srt_diag_set(diag, SRT_E_IO, "filesystem",
				    "linux-landlock: cannot read /proc/self/mountinfo to find other mounts of the protected names: %s",
				    strerror(errno));
	for (size_t i = 0; !rc && i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		long k;

		/* every protected name as it lies in $HOME, not only the ~/...
		 * ones (red team: a bind of the file ~/.bashrc in the write
		 * root, under another name, let the command append to it); the
		 * name where it is: ~/.config may be a link into a
		 * dotfiles directory (red team: a bind of that directory in
		 * the write root was not matched) */
		if (p->kind == SRT__PROT_GIT ||
		    srt__protected_released(p, (const char *const *)pol->protected_released) ||
		    (size_t)snprintf(name, sizeof(name), "%s/%s", strcmp(home, "/") ? home : "", p->path) >=
			    sizeof(name) ||
		    srt__mountinfo_resolve(name, path, sizeof(path)) < 0)
			continue;
		/* an overlay whose upper layer holds the name, or lies inside
		 * it, takes the writes made at its own path (red team: an
		 * overlay with ~/.config as upperdir added a systemd user unit) */
		for (size_t j = 0; !rc && j < n; j++)
			for (size_t u = v[j].n_lower; !rc && v[j].layers && v[j].layers[u]; u++) {
				const char *l = v[j].layers[u];

				if (l[0] != '/') {
					/* an upper layer srt cannot place (a relative
					 * name) may hold the name */
					if (ll_covers(v[j].mnt, path) || access(v[j].mnt, X_OK) != 0)
						continue;
					snprintf(alias, sizeof(alias), "%s", v[j].mnt);
					rc = ll_protected_alias(pol, diag, p, path, alias,
								"an overlay mount whose upper layer is named by a relative path srt cannot place");
					continue;
				} else if (ll_covers(l, path)) {
					const char *t = strcmp(l, "/") ? path + strlen(l) : path;

					if ((size_t)snprintf(alias, sizeof(alias), "%s%s",
							     strcmp(v[j].mnt, "/") || !*t ? v[j].mnt : "", t) >=
					    sizeof(alias))
						continue;
				} else if (ll_covers(path, l)) {
					snprintf(alias, sizeof(alias), "%s", v[j].mnt);
				} else {
					continue;
				}
				rc = ll_protected_alias(pol, diag, p, path, alias, "an overlay mount");
			}
		if (rc || (k = ll_mount_of(v, n, path)) < 0 || ll_fs_path(&v[k], path, rel, sizeof(rel)))
			continue;
		/* a mount showing a directory inside the name counts too: a
		 * protected directory is protected whole (red team: a bind of
		 * ~/.config/systemd/user/app.service.d added a drop-in) */
		for (size_t j = 0; !rc && j < n; j++) {
			if ((long)j == k || v[j].maj != v[k].maj || v[j].min != v[k].min ||
			    ll_shown_at(&v[j], rel, alias, sizeof(alias)))
				continue;
			rc = ll_protected_alias(pol, diag, p, path, alias, "another mount of its filesystem");
		}
	}
	ll_mounts_free(v, n);
	return rc;
}

static int ll_check_mounts(struct planner *pl, const struct domain *rd, const struct domain *wr)
{
	struct ll_mount *v;
	size_t n;
	int rc = ll_mounts_read(&v, &n);

	if (rc == SRT_E_NOMEM)
		return rc;
	if (rc)
		return srt_diag_set(pl->diag, SRT_E_IO, "filesystem",
				    "linux-landlock: cannot read /proc/self/mountinfo to find other mounts of the denied paths: %s",
				    strerror(errno));
	rc = ll_check_mounts_of(pl, rd, v, n, SRT_LL_READ_FILE_RIGHTS);
	if (!rc)
		rc = ll_check_overlays(pl, rd, v, n);
	if (!rc)
		rc = ll_check_mounts_of(pl, wr, v, n, SRT_LL_WRITE_FILE_RIGHTS);
	ll_mounts_free(v, n);
	return rc;
}

int srt__ll_plan_build(const struct srt_policy *pol, int abi,
		       const struct srt__ll_plan_limits *limits,
		       struct srt__ll_plan *plan, struct srt_diag *diag)
{
	struct domain rd = { .name = "reads", .dflt_allow = 1, .dflt_origin = "reads allowed by default",
			     .dir_rights = SRT_LL_READ_RIGHTS, .file_rights = SRT_LL_READ_FILE_RIGHTS };
	struct domain wr = { .name = "writes", .dflt_allow = 0, .dflt_origin = "writes denied by default",
			     .dir_rights = SRT_LL_WRITE_RIGHTS, .file_rights = SRT_LL_WRITE_FILE_RIGHTS };
	struct planner pl;
	int rc;

	memset(plan, 0, sizeof(*plan));
	memset(&pl, 0, sizeof(pl));
	pl.pol = pol;
	pl.plan = plan;
	pl.diag = diag;
	pl.max_rules = limits && limits->max_rules ? limits->max_rules : SRT_LL_MAX_RULES;
	pl.glob_budget = limits && limits->scan_budget ? limits->scan_budget : DEFAULT_SCAN_BUDGET;
	pl.scan_budget = pl.glob_budget;
	pl.private_dev = limits && limits->private_dev;
	plan->abi = abi;

	rc = srt__ll_plan_check(pol, abi, diag);
	if (rc)
		goto out;

	plan->seccomp_flags = (pol->allow_all_unix_sockets ? SRT_SECCOMP_ALLOW_UNIX : 0) |
			      (pol->allow_nested_userns ? SRT_SECCOMP_ALLOW_USERNS : 0);
	/* No network namespace: every socket family but AF_UNIX is refused,
	 * and from ABI 4 Landlock refuses TCP connect and bind as well. */
	plan->block_inet = 1;
	if (abi >= 4)
		plan->handled_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	if (abi >= 6)
		plan->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	if (pol->allow_local_binding && (rc = note(plan, "network: network.allowLocalBinding cannot apply without a network namespace: no socket but AF_UNIX can be created")))
		goto out;
	if (abi < 6 && (rc = note(plan, "ipc: Landlock ABI %d cannot scope signals: the command can signal other processes of this user", abi)))
		goto out;
	rc = note(plan, "processes: no pid namespace: the command sees the host's processes and their command lines (ptrace and /proc/PID/{mem,environ,fd,root} of processes outside the sandbox are refused by Landlock) and srt ends what it leaves behind when it ends (srt is their reaper), but not when srt itself is killed with SIGKILL; the command itself is killed when srt dies");
	if (rc)
		goto out;

	if (pol->fs_disabled) {
		rc = note(plan, "filesystem: disabled (filesystem.disabled): no Landlock filesystem rules");
		goto out;
	}
	plan->handled_fs = srt__ll_fs_rights_for_abi(abi);
	/* Landlock has no metadata right: seccomp refuses chown and xattr
	 * changes and the dangerous chmod modes; under linux-landlock the
	 * other chmod modes and utimes go to the write supervisor, which
	 * allows them in the write roots on unprotected names only (tools
	 * need them there). */
	plan->block_meta = 1;
	rc = note(plan, "metadata: chown(2), setxattr(2) and chmod(2) to set-id or group/other-writable modes refused everywhere; other chmod(2) modes and utimensat(2) (Landlock ABI %d has no right for them) checked by the write supervisor: allowed in the write roots on names that are not protected, refused elsewhere", abi);
	if (rc)
		goto out;
	plan->stdio_access = SRT_LL_WRITE_FILE_RIGHTS & plan->handled_fs;

	rc = build_writes(&pl, &wr, &rd);
	if (rc)
		goto out;
	/* reads need the write roots first, and writes the read denies */
	rc = build_reads(&pl, &rd, &wr);
	if (rc)
		goto out;
	/* a read-denied path is unwritable too (as under linux-bwrap, where it is a read-only tmpfs) */
	{
		size_t i;
		for (i = 0; i < rd.n; i++)
			if (!rd.v[i].allow && strcmp(rd.v[i].path, "/dev") &&
			    (rc = domain_add(&wr, rd.v[i].path, 0, 0, rd.v[i].origin)))
				goto out;
	}
	/* A write root at or above them never covers the pseudo filesystems:
	 * linux-bwrap gives a fresh /dev and read-only /proc/sys and /sys, and
	 * a uid-0 command without capabilities could still write many
	 * sysctls, or a disk, through plain file permissions. */
	rc = domain_add(&wr, "/dev", 0, 0, "linux-landlock: /dev outside the bwrap --dev set");
	if (!rc)
		rc = domain_add(&wr, "/proc", 0, 0, "linux-landlock: /proc is never a write root");
	if (!rc)
		rc = domain_add(&wr, "/sys", 0, 0, "linux-landlock: /sys is never a write root");
	if (rc)
		goto out;
	rc = domain_finish(&pl, &rd);
	if (!rc)
		rc = domain_finish(&pl, &wr);
	if (!rc)
		rc = process_root(&pl, &rd);
	if (!rc)
		rc = process_root(&pl, &wr);
	if (!rc)
		rc = ll_check_mounts(&pl, &rd, &wr);
	if (!rc)
		rc = merge_rules(plan);
out:
	domain_release(&rd);
	domain_release(&wr);
	if (rc)
		srt__ll_plan_release(plan);
	return rc;
}

void srt__ll_plan_release(struct srt__ll_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n_rules; i++) {
		free(plan->rules[i].path);
		free(plan->rules[i].why);
	}
	for (i = 0; i < plan->n_notes; i++)
		free(plan->notes[i]);
	free(plan->rules);
	free(plan->notes);
	memset(plan, 0, sizeof(*plan));
}

const struct srt__ll_rule *srt__ll_plan_find(const struct srt__ll_plan *plan, const char *path)
{
	size_t i;

	for (i = 0; i < plan->n_rules; i++)
		if (!strcmp(plan->rules[i].path, path))
			return &plan->rules[i];
	return NULL;
}

int srt__ll_rec(struct srt__ll_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return SRT_E_INVAL;
		if ((size_t)n + 1 <= room) {
			b->len += (size_t)n + 1; /* keep the NUL: it ends the record */
			return SRT_OK;
		}
		{
			size_t nc = b->cap * 2 + (size_t)n + 1;
			char *np;
			if (nc > SRT_LL_PLAN_MAX_BYTES)
				return SRT_E_LIMIT;
			np = realloc(b->p, nc);
			if (!np)
				return SRT_E_NOMEM;
			b->p = np;
			b->cap = nc;
		}
	}
}

int srt__ll_plan_serialize(const struct srt__ll_plan *plan, char **out, size_t *outlen)
{
	struct srt__ll_buf b = { 0 };
	size_t i;
	int rc;

	b.cap = 4096 + plan->n_rules * 96;
	b.p = malloc(b.cap);
	if (!b.p)
		return SRT_E_NOMEM;
	rc = srt__ll_rec(&b, "%s", SRT_LL_PLAN_MAGIC);
	if (!rc) rc = srt__ll_rec(&b, "abi %x", (unsigned)plan->abi);
	if (!rc) rc = srt__ll_rec(&b, "fs %" PRIx64, plan->handled_fs);
	if (!rc) rc = srt__ll_rec(&b, "net %" PRIx64, plan->handled_net);
	if (!rc) rc = srt__ll_rec(&b, "scope %" PRIx64, plan->scoped);
	if (!rc) rc = srt__ll_rec(&b, "seccomp %x", plan->seccomp_flags);
	if (!rc) rc = srt__ll_rec(&b, "inet-block %d", plan->block_inet ? 1 : 0);
	if (!rc) rc = srt__ll_rec(&b, "meta-block %d", plan->block_meta ? 1 : 0);
	if (!rc) rc = srt__ll_rec(&b, "stdio %" PRIx64, plan->stdio_access);
	for (i = 0; !rc && i < plan->n_rules; i++) {
		const struct srt__ll_rule *r = &plan->rules[i];
		rc = srt__ll_rec(&b, "rule %" PRIx64 " %" PRIu64 " %" PRIu64 " %s", r->access, r->dev, r->ino,
			 r->path);
	}
	if (!rc)
		rc = srt__ll_rec(&b, "end");
	if (rc) {
		free(b.p);
		return rc;
	}
	*out = b.p;
	*outlen = b.len;
	return SRT_OK;
}

void srt__ll_access_names(uint64_t access, char *out, size_t outlen)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ LANDLOCK_ACCESS_FS_READ_FILE, "read-file" },
		{ LANDLOCK_ACCESS_FS_READ_DIR, "read-dir" },
		{ LANDLOCK_ACCESS_FS_EXECUTE, "execute" },
		{ LANDLOCK_ACCESS_FS_WRITE_FILE, "write-file" },
		{ LANDLOCK_ACCESS_FS_TRUNCATE, "truncate" },
		{ LANDLOCK_ACCESS_FS_MAKE_REG, "make-reg" },
		{ LANDLOCK_ACCESS_FS_MAKE_DIR, "make-dir" },
		{ LANDLOCK_ACCESS_FS_MAKE_SYM, "make-sym" },
		{ LANDLOCK_ACCESS_FS_MAKE_SOCK, "make-sock" },
		{ LANDLOCK_ACCESS_FS_MAKE_FIFO, "make-fifo" },
		{ LANDLOCK_ACCESS_FS_MAKE_CHAR, "make-char" },
		{ LANDLOCK_ACCESS_FS_MAKE_BLOCK, "make-block" },
		{ LANDLOCK_ACCESS_FS_REMOVE_FILE, "remove-file" },
		{ LANDLOCK_ACCESS_FS_REMOVE_DIR, "remove-dir" },
		{ LANDLOCK_ACCESS_FS_REFER, "refer" },
		{ LANDLOCK_ACCESS_FS_IOCTL_DEV, "ioctl-dev" },
	};
	size_t i, o = 0;

	if (outlen)
		out[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n;
		if (!(access & names[i].bit))
			continue;
		n = snprintf(out + o, outlen - o, "%s%s", o ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= outlen - o)
			return;
		o += (size_t)n;
	}
}
