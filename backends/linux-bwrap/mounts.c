/* linux-bwrap: the filesystem mount plan.
 *
 * Model. Every rule is applied at the path it resolves to on the host (deny
 * rules follow symbolic links; allow rules only follow links nobody inside a
 * sandbox could have planted). For any path p:
 *   readable(p): the deepest of denyRead / allowRead / allowWrite at or
 *     above p decides; at one path allowRead beats denyRead beats allowWrite.
 *     Default: readable.
 *   writable(p): readable(p), an allowWrite at or above p, and no
 *     denyWrite at or above p: for writes the deny wins even over a deeper
 *     allow (the plan notes the allow it overrides).
 *     Default: read-only.
 * So the outcome never depends on the order the settings list rules in,
 * a denied directory is neither readable nor writable, and an allowRead
 * under a denyRead re-opens the real files (writable only when an allowWrite
 * covers them).
 *
 * Mounts. Nodes (rule paths) are visited shallow first; a node gets a mount
 * only when its state differs from what the nearest mount above it already
 * gives, so a deeper rule is always emitted after a shallower one and every
 * deeper deny is re-applied under a re-opened allow:
 *   readable+writable  --bind P P
 *   read-only          --ro-bind P P
 *   denied directory   --perms 0000|0755 --tmpfs P ... --remount-ro P
 *   denied file        --ro-bind /dev/null P   (bwrap binds it nodev, so
 *                       opening it fails with EACCES, for reads and writes)
 * bwrap's --remount-ro also remounts every mount below P read-only, so the
 * mount points a re-open needs inside a denied directory are made first
 * (--dir, or the final read-only file mount), then P is made read-only,
 * then the re-opens are mounted on top.
 *
 * Paths that do not exist yet. A deny on a missing path inside a writable
 * directory gets a placeholder on the host at its first missing component
 * (an empty file, or an empty 0700 directory when more denies lie below),
 * mounted over read-only, recorded in plan->created and removed again by
 * srt__bwrap_plan_cleanup(). Without it the command could create the path
 * and read or write it freely.
 *
 * Renames. Each existing directory between a protected mount and the
 * writable mount above it is "pinned" with --ro-bind D D before that
 * writable mount is made. The pin is buried (the writable bind covers it)
 * but D stays a mount point in this namespace, so rename(2) and rmdir(2) of
 * D fail with EBUSY: a protected file cannot be moved away from its rule by
 * renaming a parent.
 *
 * Limits (best effort, noted here rather than hidden):
 *  - bwrap resolves mount destinations again when it runs. Paths are
 *    inspected with lstat() component by component here; a concurrent
 *    sandbox that swaps a component for a link between planning and bwrap
 *    could move a mount. Mounts of the /dev/null and read-only kinds stay
 *    read-only wherever they land.
 *  - A deny rule that names a symbolic link inside a writable directory is
 *    enforced at the link's target: bwrap's mounts follow the link. Where
 *    the helper takes files (hide_max > 0, the mount API), it also mounts a
 *    read-only copy on the link itself (plan->pinned_links, --pin-link), so the
 *    command cannot replace the name while it runs. Without that, the
 *    command can replace the link by a file of its own, which is live on
 *    the host until the run ends (it never reaches the protected target);
 *    in both cases the link is put back after the run (plan->links,
 *    srt__bwrap_plan_restore_links) and a replacement moved aside.
 *  - Glob read rules are expanded when the plan is made; files created
 *    later are not covered. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/aside.h"
#include "backends/linux-common/sibling.h"
#include "backends/linux-common/glob.h"
#include "backends/linux-common/mandatory.h"
#include "mounts.h"

#define MAX_NODES 20000
#define WALK_BUDGET 200000
size_t srt__bwrap_walk_budget = WALK_BUDGET;
#define MAX_LINKS 40

enum { K_DR = 1, K_AR = 2, K_AW = 4, K_DW = 8 };
enum { T_MISSING, T_DIR, T_OTHER };
enum mkind { M_NONE, M_RW, M_RO, M_TMPFS, M_NULL, M_PH_FILE, M_PH_DIR };

struct node {
	char *path;
	size_t depth;
	unsigned kinds;
	char *origin;
	int type;
	size_t missing_at; /* T_MISSING: length of the prefix that exists */
	int dflt;          /* only default write roots put it here */
	int forced;        /* placeholder mount kind, or M_NONE */
	int mount;         /* decided mount kind */
	long parent;       /* nearest mounted ancestor node, -1 = "/" */
	int has_kids;      /* some mounted node has this one as parent */
	int done;          /* already emitted while preparing a tmpfs */
	int skip;
};

struct ctx {
	const struct srt_policy *pol;
	struct srt__mount_plan *plan;
	struct srt_diag *diag;
	srt__plan_create_fn announce; /* told of each path before it is created */
	void *announce_ctx;
	struct node *v;
	size_t n, alloc;
	long *tab; /* open addressing: node index + 1, 0 = empty */
	size_t tab_size;
	struct srt__strv wroots; /* allowWrite spellings and targets */
	int root_rw;
	int err; /* set when node_get() fails */
	size_t budget;
	size_t hide_max; /* hidden files the helper may take (plan->hidden) */
};

static int push3(struct ctx *c, const char *a, const char *b, const char *d)
{
	if (srt__strv_push(&c->plan->words, a) || (b && srt__strv_push(&c->plan->words, b)) ||
	    (d && srt__strv_push(&c->plan->words, d)))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

static int note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct ctx *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (srt__strv_push(&c->plan->notes, buf))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

static int resolve(const char *in, char *out, int *type, size_t *missing_at,
		   struct srt__strv *link_dirs);

/* A link for the helper to pin (plan->pinned_links), its parent directory
 * resolved: the helper opens it refusing every link on the way. */
static int add_pin(struct ctx *c, const char *origin, const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], full[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0, missing_at;
	int err, type;

	if (!slash || !slash[1] || dl >= sizeof(dir))
		return srt_diag_set(c->diag, SRT_E_INVAL, origin,
				    "%s: \"%s\" cannot be pinned (not a file name)", origin, path);
	if (dl == 0)
		dl = 1; /* a link in "/" */
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	if ((err = resolve(dir, real, &type, &missing_at, NULL)) != 0 || type != T_DIR)
		return srt_diag_set(c->diag, SRT_E_IO, origin,
				    "%s: cannot resolve the directory of the link \"%s\": %s", origin,
				    path, strerror(err ? err : ENOTDIR));
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", strcmp(real, "/") ? real : "", slash + 1) >=
	    sizeof(full))
		return srt_diag_set(c->diag, SRT_E_LIMIT, origin, "%s: path too long: %s", origin, path);
	if (srt__strv_push(&c->plan->pinned_links, full))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

/* ---- paths ------------------------------------------------------------ */

static int covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

static size_t depth_of(const char *p)
{
	size_t d = 0;

	if (strcmp(p, "/") == 0)
		return 0;
	for (; *p; p++)
		if (*p == '/')
			d++;
	return d;
}

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Index of the node spelled by the first n bytes of p, or -1. */
static long lookup(const struct ctx *c, const char *p, size_t n)
{
	size_t i;

	if (!c->tab_size)
		return -1;
	for (i = hash(p, n) & (c->tab_size - 1);; i = (i + 1) & (c->tab_size - 1)) {
		long k = c->tab[i];

		if (!k)
			return -1;
		if (strlen(c->v[k - 1].path) == n && memcmp(c->v[k - 1].path, p, n) == 0)
			return k - 1;
	}
}

static int tab_insert(struct ctx *c, size_t idx)
{
	size_t i;

	if ((c->n + 1) * 2 > c->tab_size) {
		size_t ns = c->tab_size ? c->tab_size * 2 : 256, j;
		long *nt = calloc(ns, sizeof(*nt));

		if (!nt)
			return SRT_E_NOMEM;
		for (j = 0; j < c->tab_size; j++) {
			long k = c->tab[j];
			size_t h;

			if (!k)
				continue;
			for (h = hash(c->v[k - 1].path, strlen(c->v[k - 1].path)) & (ns - 1); nt[h];
			     h = (h + 1) & (ns - 1))
				;
			nt[h] = k;
		}
		free(c->tab);
		c->tab = nt;
		c->tab_size = ns;
	}
	for (i = hash(c->v[idx].path, strlen(c->v[idx].path)) & (c->tab_size - 1); c->tab[i];
	     i = (i + 1) & (c->tab_size - 1))
		;
	c->tab[i] = (long)idx + 1;
	return SRT_OK;
}

/* Find or add the node for an absolute, resolved path. */
static long node_get(struct ctx *c, const char *path)
{
	long k = lookup(c, path, strlen(path));
	struct node *nd;

	if (k >= 0)
		return k;
	if (c->n >= MAX_NODES) {
		c->err = srt_diag_set(c->diag, SRT_E_LIMIT, "filesystem",
				      "more than %d filesystem rules after expansion; narrow the rules",
				      MAX_NODES);
		return -1;
	}
	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 64;
		struct node *nv = realloc(c->v, na * sizeof(*nv));

		if (!nv)
			goto nomem;
		c->v = nv;
		c->alloc = na;
	}
	nd = &c->v[c->n];
	memset(nd, 0, sizeof(*nd));
	nd->path = strdup(path);
	if (!nd->path)
		goto nomem;
	nd->depth = depth_of(path);
	nd->parent = -1;
	nd->dflt = 1;
	if (tab_insert(c, c->n)) {
		free(nd->path);
		goto nomem;
	}
	return (long)c->n++;
nomem:
	c->err = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return -1;
}

/* Resolve an absolute path component by component with lstat(), following
 * links (at most MAX_LINKS). out gets the resolved spelling. *type is
 * T_MISSING when a component does not exist; then *missing_at is the length
 * of the existing prefix. A non-directory met before the last component
 * yields ENOTDIR with out = that non-directory; a directory that cannot be
 * searched yields EACCES with out = that directory. link_dirs (optional) gets
 * the directory holding each link followed. Returns 0 or an errno. */
static int resolve(const char *in, char *out, int *type, size_t *missing_at,
		   struct srt__strv *link_dirs)
{
	char todo[PATH_MAX * 2], res[PATH_MAX], comp[NAME_MAX + 1];
	size_t rlen = 0, links = 0;
	const char *p;
	int missing = 0;
	struct stat st;

	if (strlen(in) >= sizeof(todo) / 2)
		return ENAMETOOLONG;
	snprintf(todo, sizeof(todo), "%s", in);
	res[0] = '\0';
	*type = T_DIR; /* "/" */
	p = todo;
	while (*p) {
		size_t clen;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		clen = strcspn(p, "/");
		if (clen > NAME_MAX)
			return ENAMETOOLONG;
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		p += clen;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (rlen > 0 && res[rlen - 1] != '/')
				rlen--;
			if (rlen > 0)
				rlen--;
			res[rlen] = '\0';
			continue;
		}
		if (rlen + 1 + clen + 1 > sizeof(res))
			return ENAMETOOLONG;
		res[rlen] = '/';
		memcpy(res + rlen + 1, comp, clen + 1);
		if (missing) {
			rlen += 1 + clen;
			continue;
		}
		if (lstat(res, &st) != 0) {
			int e = errno;

			if (e == ENOENT) {
				*missing_at = rlen ? rlen : 1;
				missing = 1;
				rlen += 1 + clen;
				continue;
			}
			/* out names the directory that could not be looked into */
			snprintf(out, PATH_MAX, "%.*s", (int)(rlen ? rlen : 1), res);
			return e;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], rest[PATH_MAX * 2];
			ssize_t tl;

			if (++links > MAX_LINKS)
				return ELOOP;
			tl = readlink(res, target, sizeof(target) - 1);
			if (tl < 0)
				return errno;
			target[tl] = '\0';
			if (link_dirs) {
				char dir[PATH_MAX];

				snprintf(dir, sizeof(dir), "%.*s", (int)(rlen ? rlen : 1), res);
				if (srt__strv_push(link_dirs, dir))
					return ENOMEM;
			}
			{
				size_t tl2 = strlen(target), pl = strlen(p);

				if (tl2 + 1 + pl + 1 > sizeof(rest))
					return ENAMETOOLONG;
				memcpy(rest, target, tl2);
				rest[tl2] = '/';
				memcpy(rest + tl2 + 1, p, pl + 1);
				memcpy(todo, rest, tl2 + 1 + pl + 1);
			}
			p = todo;
			res[rlen] = '\0';
			if (target[0] == '/') {
				rlen = 0;
				res[0] = '\0';
			}
			continue;
		}
		rlen += 1 + clen;
		if (!S_ISDIR(st.st_mode)) {
			const char *q = p;

			while (*q == '/')
				q++;
			if (*q) {
				snprintf(out, PATH_MAX, "%s", res);
				return ENOTDIR;
			}
			*type = T_OTHER;
		} else {
			*type = T_DIR;
		}
	}
	if (rlen == 0)
		snprintf(out, PATH_MAX, "/");
	else
		snprintf(out, PATH_MAX, "%s", res);
	if (missing)
		*type = T_MISSING;
	return 0;
}

/* ---- state ------------------------------------------------------------ */

struct state {
	int r, w;
};

/* The model of the header comment, from the rules at p and above. */
static struct state state_of(const struct ctx *c, const char *p)
{
	struct state s;
	size_t len = strlen(p), i;
	int r = 1, aw = 0, dw = 0;

	for (i = 0; i <= len; i++) {
		long k;
		unsigned kd;

		if (i == 0)
			k = lookup(c, "/", 1);
		else if (i == len || p[i] == '/')
			k = i > 1 || i == len ? lookup(c, p, i) : -1;
		else
			continue;
		if (k < 0)
			continue;
		kd = c->v[k].kinds;
		if (kd & K_AR)
			r = 1;
		else if (kd & K_DR)
			r = 0;
		else if (kd & K_AW)
			r = 1;
		if (kd & K_DW)
			dw = 1;
		if (kd & K_AW)
			aw = 1;
		if (i == len)
			break;
	}
	s.r = r;
	s.w = r && aw && !dw;
	return s;
}

/* ---- rules -> nodes ---------------------------------------------------- */

static const char *kind_name(unsigned k)
{
	switch (k) {
	case K_DR: return "denyRead";
	case K_AR: return "allowRead";
	case K_AW: return "allowWrite";
	default: return "denyWrite";
	}
}

/* A link followed by an allow rule must not live where a sandboxed command
 * could have planted it: inside any allowWrite path. */
static int links_untrusted(const struct ctx *c, const struct srt__strv *dirs)
{
	size_t i, j;

	for (i = 0; i < dirs->n; i++)
		for (j = 0; j < c->wroots.n; j++)
			if (covers(c->wroots.v[j], dirs->v[i]))
				return 1;
	return 0;
}

/* A symbolic link in a directory this user can write may have been
 * planted by an earlier sandboxed run that could write there, even when no
 * write root of this run covers it. An allow rule never follows one. */
static int links_in_writable_dirs(const struct srt__strv *dirs)
{
	size_t i;

	for (i = 0; i < dirs->n; i++)
		if (access(dirs->v[i], W_OK) == 0)
			return 1;
	return 0;
}

static int add_rule(struct ctx *c, const char *path, unsigned kind, const char *origin,
		    int dflt)
{
	char res[PATH_MAX];
	struct srt__strv links = { 0 };
	size_t missing_at = 0;
	int type = T_MISSING, err, rc = SRT_OK;
	int deny = kind & (K_DR | K_DW);
	long k;

	err = resolve(path, res, &type, &missing_at, &links);
	if (err == ENOTDIR && deny) {
		/* A file stands where the rule needs a directory: hold that file
		 * read-only, or the command could swap it for a directory and
		 * create the denied path below it. resolve() left its name in res. */
		rc = note(c, "%s %s: \"%s\" is not a directory; it is held read-only", origin,
			  path, res);
		if (rc)
			goto out;
		kind = K_DW;
		type = T_OTHER;
		err = 0;
		deny = 1;
	}
	if (err) {
		if (err == ENOMEM) {
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		} else if (err == EACCES && deny) {
			struct stat st;

			/* The sandbox runs as this user: a directory it cannot
			 * search stays closed inside too, unless it is ours (an
			 * owner can chmod it back open). Then the whole directory
			 * gets the rule: wider than asked, never narrower. */
			if (lstat(res, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
			    strcmp(res, "/") != 0) {
				rc = note(c, "%s %s: \"%s\" cannot be searched; the rule covers all of it",
					  origin, path, res);
				if (!rc)
					rc = add_rule(c, res, kind, origin, dflt);
			} else {
				rc = note(c, "%s %s: not accessible to this user (%s); already unreadable",
					  origin, path, strerror(err));
			}
		} else if (deny) {
			rc = srt_diag_set(c->diag, SRT_E_UNAVAILABLE, origin,
					  "%s: cannot resolve \"%s\": %s; the rule cannot be enforced",
					  origin, path, strerror(err));
		} else {
			rc = note(c, "%s %s: skipped, cannot resolve it: %s", origin, path,
				  strerror(err));
		}
		goto out;
	}
	if (!deny && links.n && (links_untrusted(c, &links) || links_in_writable_dirs(&links))) {
		rc = note(c, "warning: %s \"%s\" is not applied: it goes through a symbolic link "
			  "in a directory that can be written (a sandboxed command could have "
			  "planted it); name the real path \"%s\" instead", origin, path, res);
		goto out;
	}
	if (covers("/dev", res) || covers("/proc", res)) {
		rc = note(c, "%s %s: skipped: the sandbox gets its own %s", origin, path,
			  covers("/dev", res) ? "/dev" : "/proc");
		goto out;
	}
	if (!deny && type == T_MISSING) {
		rc = note(c, "%s %s: skipped: does not exist", origin, path);
		goto out;
	}
	if (strcmp(res, path) != 0 && links.n) {
		struct stat st;

		rc = note(c, "%s %s: resolves to %s; enforced there", origin, path, res);
		/* see the header comment: a link's name is not a mount point */
		if (!rc && deny && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
		    links_untrusted(c, &links)) {
			char target[PATH_MAX];
			ssize_t tl = readlink(path, target, sizeof(target) - 1);
			size_t li;
			int dup = 0;

			if (tl <= 0 || (size_t)tl >= sizeof(target) - 1) {
				rc = srt_diag_set(c->diag, SRT_E_UNAVAILABLE, origin,
						  "%s: cannot read the symbolic link \"%s\"; the rule cannot be enforced",
						  origin, path);
				goto out;
			}
			target[tl] = '\0';
			for (li = 0; li + 1 < c->plan->links.n; li += 2)
				dup |= !strcmp(c->plan->links.v[li], path); /* an earlier rule's */
			rc = note(c, "%s %s: is a symbolic link inside a writable directory; its "
				  "target is protected, %s", origin, path,
				  c->hide_max ? "and the link itself gets a read-only mount (helper)"
					      : "and the link is put back after the run if the command replaces it");
			if (!rc && !dup && (srt__strv_push(&c->plan->links, path) ||
					    srt__strv_push(&c->plan->links, target)))
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			if (!rc && !dup && c->hide_max)
				rc = add_pin(c, origin, path);
		}
		if (rc)
			goto out;
	}
	if ((kind & K_DR) && strcmp(res, "/") == 0) {
		/* A deny of "/" hides each top-level directory instead; /proc,
		 * /dev and /sys are the sandbox's own. */
		static const char *const keep[] = { "proc", "dev", "sys" };
		DIR *d = opendir("/");
		struct dirent *de;

		if (!d) {
			rc = srt_diag_set(c->diag, SRT_E_IO, origin, "%s: cannot list \"/\"", origin);
			goto out;
		}
		while ((de = readdir(d))) {
			char child[PATH_MAX];
			size_t i, skip = 0;

			if (de->d_name[0] == '.' &&
			    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			for (i = 0; i < 3; i++)
				if (strcmp(de->d_name, keep[i]) == 0)
					skip = 1;
			if (skip)
				continue;
			snprintf(child, sizeof(child), "/%s", de->d_name);
			rc = add_rule(c, child, K_DR, origin, dflt);
			if (rc)
				break;
		}
		closedir(d);
		goto out;
	}
	k = node_get(c, res);
	if (k < 0) {
		rc = c->err;
		goto out;
	}
	c->v[k].kinds |= kind;
	c->v[k].type = type;
	c->v[k].missing_at = missing_at;
	if (!dflt)
		c->v[k].dflt = 0;
	if (!c->v[k].origin) {
		char o[512];

		snprintf(o, sizeof(o), "%s (%s %s)", origin, kind_name(kind), path);
		c->v[k].origin = strdup(o);
		if (!c->v[k].origin)
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
out:
	srt__strv_release(&links);
	return rc;
}

static int add_rules(struct ctx *c, const struct srt_rules *rules, unsigned kind)
{
	size_t i, j;
	int rc;

	for (i = 0; i < rules->n; i++) {
		const struct srt_rule *r = &rules->v[i];
		int dflt = !!(r->flags & SRT_RULE_DEFAULT);

		if (r->flags & SRT_RULE_GLOB) {
			struct srt__strv m = { 0 };

			if (kind & (K_AW | K_DW))
				return srt_diag_set(c->diag, SRT_E_SETTINGS, r->origin,
						    "%s: \"%s\": glob patterns in write rules cannot be "
						    "enforced on Linux; list the paths instead",
						    r->origin, r->path);
			rc = srt__glob_expand(r->path, kind == K_DR, &c->budget, &m, c->diag);
			if (rc) {
				char msg[sizeof(c->diag->message)];

				srt__strv_release(&m);
				if (kind == K_AR && rc == SRT_E_LIMIT)
					return note(c, "%s %s: expansion stopped (too many entries); "
						    "nothing re-opened", r->origin, r->path);
				if (c->diag) {
					snprintf(msg, sizeof(msg), "%s", c->diag->message);
					srt_diag_set(c->diag, rc, r->origin, "%s: %s", r->origin, msg);
				}
				return rc;
			}
			rc = note(c, "%s %s: glob matched %zu path(s) now; paths created later "
				  "are not covered", r->origin, r->path, m.n);
			for (j = 0; !rc && j < m.n; j++)
				rc = add_rule(c, m.v[j], kind, r->origin, dflt);
			srt__strv_release(&m);
			if (rc)
				return rc;
			continue;
		}
		rc = add_rule(c, r->path, kind, r->origin, dflt);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int mandatory_cb(void *vctx, const char *path, const char *what)
{
	char origin[128];

	snprintf(origin, sizeof(origin), "mandatory deny %s", what);
	return add_rule(vctx, path, K_DW, origin, 0);
}

/* The mandatory write denies (srt__mandatory_scan: the shells' startup
 * files, git configuration and hooks, editor settings) in the working
 * directory and in every writable root. */
static int add_mandatory(struct ctx *c)
{
	const struct srt_policy *pol = c->pol;
	struct srt__strv roots = { 0 };
	struct srt__mandatory_opts o;
	size_t i, nroots, nfull = 0;
	int rc = SRT_OK, truncated = 0;
	char *full = NULL;

	/* roots first (the node array grows while scanning) */
	full = calloc(c->n + 2, 1);
	if (!full)
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	if (pol->cwd && state_of(c, pol->cwd).w) {
		if (srt__strv_push(&roots, pol->cwd))
			goto nomem;
		full[nfull++] = 1;
	}
	/* $HOME below the top of a write root: the shells read its startup
	 * files wherever it lies, so its absent ones are held like a root's */
	if (pol->home && pol->home[0] == '/' && strcmp(pol->home, "/") != 0 &&
	    state_of(c, pol->home).w) {
		if (srt__strv_push(&roots, pol->home))
			goto nomem;
		full[nfull++] = 1;
	}
	nroots = c->n;
	for (i = 0; i < nroots; i++) {
		const struct node *nd = &c->v[i];

		if (!(nd->kinds & K_AW) || nd->type != T_DIR || !state_of(c, nd->path).w)
			continue;
		if (srt__strv_push(&roots, nd->path))
			goto nomem;
		full[nfull++] = !nd->dflt;
	}
	memset(&o, 0, sizeof(o));
	o.depth = pol->mandatory_deny_depth >= 1 && pol->mandatory_deny_depth <= 10 ?
		  pol->mandatory_deny_depth : 3;
	o.allow_git_config = pol->allow_git_config;
	for (i = 0; i < roots.n && !rc; i++) {
		size_t j, budget = srt__bwrap_walk_budget;
		int dup = 0;

		for (j = 0; j < i; j++)
			if (strcmp(roots.v[j], roots.v[i]) == 0)
				dup = 1;
		if (dup)
			continue;
		/* each root gets its own bound, so one huge root cannot leave
		 * the others unscanned */
		o.root_names = full[i];
		truncated = 0;
		rc = srt__mandatory_scan(roots.v[i], &o, &budget, &truncated, mandatory_cb, c);
		/* fail closed: past the bound, repositories and rc files an
		 * earlier run could have pushed there would stay writable */
		if (!rc && truncated)
			rc = srt_diag_set(c->diag, SRT_E_LIMIT, "mandatoryDenySearchDepth",
					  "the mandatory deny scan of %s stopped after %zu entries, so dangerous files and "
					  "repositories deeper there could not be protected; lower mandatoryDenySearchDepth "
					  "or narrow filesystem.allowWrite",
					  roots.v[i], srt__bwrap_walk_budget);
	}
	free(full);
	srt__strv_release(&roots);
	return rc;
nomem:
	free(full);
	srt__strv_release(&roots);
	return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
}

/* ---- placeholders ------------------------------------------------------ */

#ifdef SYS_openat2
struct srt__open_how {
	uint64_t flags, mode, resolve;
};
#endif

/* Open a resolved directory without following any link on the way, so a
 * component swapped for a link since it was inspected is refused. */
static int open_dir_nofollow(const char *dir)
{
#ifdef SYS_openat2
	struct srt__open_how how = { O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
				    0x04 /* RESOLVE_NO_SYMLINKS */ };
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EINVAL && errno != EPERM))
		return (int)fd;
#endif
	return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Concurrent runs in one directory share placeholders: each run holds a
 * shared POSIX lock on every placeholder it mounts, and cleanup removes one
 * only when it can take the exclusive lock. POSIX locks belong to the
 * process, so a second sandbox in the same process shares them (limit). */
static int keep_lock(struct ctx *c, int fd)
{
	struct srt__mount_plan *pl = c->plan;
	int *nv = realloc(pl->lock_fds, (pl->n_lock_fds + 1) * sizeof(*nv));

	if (!nv) {
		close(fd);
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
	pl->lock_fds = nv;
	pl->lock_fds[pl->n_lock_fds++] = fd;
	return SRT_OK;
}

static int open_locked(const char *path, int is_dir)
{
	struct flock fl;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (is_dir ? O_DIRECTORY : 0));

	if (fd < 0)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Does another process hold a lock on fd's file? (Our own never count.) */
static int locked_by_other(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	return fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

/* Is path a placeholder another live run holds? Then take our shared lock
 * on it and return the descriptor, else -1. A file must still be empty. */
static int adopt_foreign(const char *path, int is_dir)
{
	struct flock fl;
	struct stat st, now;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (is_dir ? O_DIRECTORY : 0));

	if (fd < 0)
		return -1;
	if (!locked_by_other(fd))
		goto no;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	/* that run's cleanup may have removed it meanwhile: only a name that
	 * still leads to the locked inode counts */
	if (fcntl(fd, F_SETLK, &fl) != 0 || fstat(fd, &st) != 0 || st.st_nlink == 0 ||
	    lstat(path, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev)
		goto no;
	if (is_dir ? !S_ISDIR(st.st_mode) : !(S_ISREG(st.st_mode) && st.st_size == 0))
		goto no;
	return fd;
no:
	close(fd);
	return -1;
}

static int adopt_node(struct ctx *c, long k, int fd, int as_dir)
{
	int rc;

	if (srt__strv_push(&c->plan->created, c->v[k].path)) {
		close(fd);
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
	rc = keep_lock(c, fd);
	if (rc)
		return rc;
	c->v[k].kinds |= K_DW;
	c->v[k].type = as_dir ? T_DIR : T_OTHER;
	c->v[k].forced = as_dir ? M_PH_DIR : M_PH_FILE;
	c->v[k].skip = 0;
	return note(c, "%s: placeholder shared with a concurrent run", c->v[k].path);
}

static int make_placeholder(struct ctx *c, const char *m, int as_dir, const char *why,
			    int *made)
{
	char parent[PATH_MAX];
	const char *name = strrchr(m, '/');
	struct stat st;
	int pfd, fd, err, rc = SRT_OK;

	*made = 0;
	snprintf(parent, sizeof(parent), "%.*s", (int)(name == m ? 1 : name - m), m);
	name++;
	pfd = open_dir_nofollow(parent);
	if (pfd < 0)
		return srt_diag_set(c->diag, SRT_E_IO, why,
				    "%s: cannot open \"%s\" to protect \"%s\": %s", why, parent, m,
				    strerror(errno));
	if (c->announce)
		c->announce(c->announce_ctx, m);
	if (as_dir) {
		err = mkdirat(pfd, name, 0700) == 0 ? 0 : errno;
	} else {
		fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		err = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
	}
	if (!err) {
		int lfd;

		if (srt__strv_push(&c->plan->created, m)) {
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
		*made = 1;
		lfd = open_locked(m, as_dir);
		rc = lfd < 0 ? srt_diag_set(c->diag, SRT_E_IO, why, "%s: cannot lock \"%s\": %s",
					    why, m, strerror(errno)) :
			       keep_lock(c, lfd);
	} else if (err == EEXIST) {
		/* a concurrent run created it between our look and now: give it a
		 * moment to take its lock, then share the placeholder */
		int i, lfd = -1;

		for (i = 0; i < 50 && lfd < 0; i++) {
			lfd = adopt_foreign(m, as_dir);
			if (lfd < 0)
				usleep(1000);
		}
		if (lfd < 0) {
			rc = srt_diag_set(c->diag, SRT_E_STATE, why,
					  "%s: \"%s\" appeared while the sandbox was being planned; "
					  "run again", why, m);
		} else {
			*made = 2;
			rc = keep_lock(c, lfd);
			if (!rc && srt__strv_push(&c->plan->created, m))
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		}
	} else if (err == EROFS || err == EPERM ||
		   (err == EACCES && fstat(pfd, &st) == 0 && st.st_uid != geteuid())) {
		/* nobody running as this user can create it, inside or out */
		rc = note(c, "%s: \"%s\" cannot be created by this user (%s); nothing to protect",
			  why, m, strerror(err));
	} else {
		rc = srt_diag_set(c->diag, SRT_E_IO, why,
				  "%s: cannot create a placeholder at \"%s\" to protect it: %s", why, m,
				  strerror(err));
	}
out:
	close(pfd);
	return rc;
}

static int plan_placeholders(struct ctx *c)
{
	size_t i, j, n = c->n;
	int rc = SRT_OK;

	/* Placeholders of a concurrent run: existing deny paths that are its
	 * locked empty files or directories, and the deepest existing
	 * directory above a missing deny path. */
	for (i = 0; i < n && !rc; i++) {
		struct node *nd = &c->v[i];
		char parent[PATH_MAX];
		long k = (long)i;
		int fd, as_dir;

		if (nd->skip || nd->forced || !(nd->kinds & (K_DR | K_DW)))
			continue;
		if (nd->type == T_MISSING)
			snprintf(parent, sizeof(parent), "%.*s",
				 (int)(nd->missing_at ? nd->missing_at : 1), nd->path);
		else
			snprintf(parent, sizeof(parent), "%s", nd->path);
		if (strcmp(parent, "/") == 0 || (k = lookup(c, parent, strlen(parent)), k >= 0 &&
						 c->v[k].forced))
			continue;
		as_dir = nd->type != T_OTHER;
		fd = adopt_foreign(parent, as_dir);
		if (fd < 0)
			continue;
		k = node_get(c, parent);
		if (k < 0) {
			close(fd);
			rc = c->err;
			break;
		}
		rc = adopt_node(c, k, fd, as_dir);
	}
	if (rc)
		return rc;

	for (i = 0; i < n; i++) {
		struct node *nd = &c->v[i];
		char m[PATH_MAX], parent[PATH_MAX];
		const char *slash;
		int as_dir = 0, made;
		long k;

		if (nd->type != T_MISSING || nd->skip || !(nd->kinds & (K_DR | K_DW)))
			continue;
		/* first missing component */
		slash = strchr(nd->path + nd->missing_at + 1, '/');
		snprintf(m, sizeof(m), "%.*s",
			 (int)(slash ? (size_t)(slash - nd->path) : strlen(nd->path)), nd->path);
		snprintf(parent, sizeof(parent), "%.*s",
			 (int)(nd->missing_at ? nd->missing_at : 1), nd->path);
		k = lookup(c, parent, strlen(parent));
		if (!state_of(c, parent).w || (k >= 0 && c->v[k].forced)) {
			nd->skip = 1;
			continue;
		}
		k = lookup(c, m, strlen(m));
		if (k >= 0 && c->v[k].forced) {
			nd->skip = 1;
			continue;
		}
		/* a directory when some other missing deny lies below m */
		for (j = 0; j < n && !as_dir; j++)
			if (c->v[j].type == T_MISSING && (c->v[j].kinds & (K_DR | K_DW)) &&
			    strlen(c->v[j].path) > strlen(m) && covers(m, c->v[j].path))
				as_dir = 1;
		rc = make_placeholder(c, m, as_dir, nd->origin ? nd->origin : "deny rule", &made);
		if (rc)
			break;
		nd->skip = 1;
		if (!made)
			continue;
		if (made == 2 && note(c, "%s: placeholder shared with a concurrent run", m)) {
			rc = SRT_E_NOMEM;
			break;
		}
		k = node_get(c, m);
		if (k < 0) {
			rc = c->err;
			break;
		}
		nd = &c->v[i]; /* node_get may have moved the array */
		c->v[k].kinds |= K_DW;
		c->v[k].type = as_dir ? T_DIR : T_OTHER;
		c->v[k].forced = as_dir ? M_PH_DIR : M_PH_FILE;
		c->v[k].skip = 0;
		if (!c->v[k].origin) {
			c->v[k].origin = strdup(nd->origin ? nd->origin : "deny rule");
			if (!c->v[k].origin) {
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
				break;
			}
		}
		rc = note(c, "%s does not exist: placeholder %s %s created for the run, read-only",
			  nd->path, as_dir ? "directory" : "file", m);
		if (rc)
			break;
	}
	/* deny nodes below a placeholder are covered by it */
	for (i = 0; i < c->n; i++)
		if (c->v[i].type == T_MISSING)
			c->v[i].skip = 1;
	return rc;
}

/* ---- emission ---------------------------------------------------------- */

static int cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct node *v = arg;
	const struct node *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* qsort order for path strings: shallow first, then by name */
static int cmp_paths(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t dx = depth_of(x), dy = depth_of(y);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x, y);
}

static long mounted_ancestor(const struct ctx *c, const char *p)
{
	size_t len = strlen(p);

	for (;;) {
		long k;

		while (len > 0 && p[len - 1] != '/')
			len--;
		if (len <= 1)
			return -1; /* the parent is "/" */
		len--;
		k = lookup(c, p, len);
		if (k >= 0 && c->v[k].mount != M_NONE)
			return k;
	}
}

static const char *mkind_name(int m)
{
	switch (m) {
	case M_RW: return "read-write";
	case M_RO: return "read-only";
	case M_TMPFS: return "hidden directory (empty, read-only)";
	case M_NULL: return "hidden file (EACCES)";
	case M_PH_FILE: return "placeholder file (EACCES)";
	case M_PH_DIR: return "placeholder directory (empty, read-only)";
	}
	return "unchanged";
}

static int emit_mount(struct ctx *c, struct node *nd)
{
	switch (nd->mount) {
	case M_RW:
		return push3(c, "--bind", nd->path, nd->path);
	case M_RO:
	case M_PH_DIR:
		return push3(c, "--ro-bind", nd->path, nd->path);
	case M_NULL:
	case M_PH_FILE:
		return push3(c, "--ro-bind", "/dev/null", nd->path);
	}
	return SRT_OK;
}


/* The directories above path, deepest first, down to (not including) the
 * first top bytes of it (the writable mount above), each pushed to pins;
 * /proc, /dev and /sys are the sandbox's own and end the climb. */
static int pin_ancestors(struct srt__strv *pins, const char *path, size_t top)
{
	char d[PATH_MAX];
	size_t len;

	snprintf(d, sizeof(d), "%s", path);
	len = strlen(d);
	for (;;) {
		while (len > 0 && d[len - 1] != '/')
			len--;
		if (len <= 1)
			return SRT_OK;
		len--;
		if (len <= top)
			return SRT_OK;
		d[len] = '\0';
		if (covers("/proc", d) || covers("/dev", d) || covers("/sys", d))
			return SRT_OK;
		if (srt__strv_push(pins, d))
			return SRT_E_NOMEM;
	}
}

static int emit(struct ctx *c)
{
	const int root_kind = c->root_rw ? M_RW : M_RO;
	struct srt__strv pins = { 0 }, covers_w = { 0 };
	size_t *order = NULL, i, j, n = 0;
	int rc = SRT_OK;

	order = calloc(c->n + 1, sizeof(*order));
	if (!order)
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	for (i = 0; i < c->n; i++)
		if (!c->v[i].skip && c->v[i].type != T_MISSING && strcmp(c->v[i].path, "/") != 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_nodes, c->v);

	/* decide */
	for (i = 0; i < n; i++) {
		struct node *nd = &c->v[order[i]];
		long a = mounted_ancestor(c, nd->path);
		int inh = a >= 0 ? c->v[a].mount : root_kind, want;

		if (nd->forced) {
			want = nd->forced;
		} else {
			struct state s = state_of(c, nd->path);

			want = !s.r ? (nd->type == T_DIR ? M_TMPFS : M_NULL) : s.w ? M_RW : M_RO;
			if ((nd->kinds & K_AW) && s.r && !s.w && !(nd->kinds & K_DW) &&
			    note(c, "%s: inside a denyWrite rule, which wins: read-only",
				 nd->origin ? nd->origin : nd->path)) {
				rc = SRT_E_NOMEM;
				goto out;
			}
		}
		if (inh == M_NULL || inh == M_PH_FILE || inh == M_PH_DIR)
			continue;
		if (inh == M_TMPFS && (want == M_TMPFS || want == M_NULL))
			continue;
		if (inh == want && (want == M_RW || want == M_RO))
			continue;
		nd->mount = want;
		nd->parent = a;
		if (a >= 0)
			c->v[a].has_kids = 1;
	}

	/* pins: existing directories between a protecting mount and the
	 * writable mount above it */
	for (i = 0; i < n && !rc; i++) {
		struct node *nd = &c->v[order[i]];
		const char *top = nd->parent >= 0 ? c->v[nd->parent].path : "/";
		int inh = nd->parent >= 0 ? c->v[nd->parent].mount : root_kind;
		char d[PATH_MAX];
		size_t tlen = strcmp(top, "/") == 0 ? 0 : strlen(top);

		if (nd->mount == M_NONE || nd->mount == M_RW || inh != M_RW)
			continue;
		rc = pin_ancestors(&pins, nd->path, tlen);
		if (!rc && nd->parent < 0 && c->root_rw) {
			/* "/" itself is writable: bury the pins under a top-level cover */
			const char *s2 = strchr(nd->path + 1, '/');

			if (s2) {
				snprintf(d, sizeof(d), "%.*s", (int)(s2 - nd->path), nd->path);
				if (!covers("/proc", d) && !covers("/dev", d) && !covers("/sys", d))
					rc = srt__strv_push(&covers_w, d) ? SRT_E_NOMEM : SRT_OK;
			}
		}
	}
	/* and the directories between a protected symbolic link and the
	 * write root it lies in: renaming one away and putting a link to a
	 * directory of the command's in its place would change what the
	 * link's name reaches without touching the link */
	for (i = 0; !rc && i + 1 < c->plan->links.n; i += 2) {
		const char *lp = c->plan->links.v[i];
		size_t best = 0, k;

		for (k = 0; k < c->wroots.n; k++) {
			size_t l = strlen(c->wroots.v[k]);

			if (covers(c->wroots.v[k], lp) && l > best && strcmp(c->wroots.v[k], lp) != 0)
				best = l;
		}
		if (best)
			rc = pin_ancestors(&pins, lp, best);
	}
	if (rc) {
		rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}

	rc = push3(c, c->root_rw ? "--bind" : "--ro-bind", "/", "/");
	if (!rc)
		rc = note(c, "/ %s", c->root_rw ? "read-write (allowWrite \"/\")" :
			  "read-only (writes only where allowWrite says)");
	/* shallow first, duplicates dropped */
	if (pins.n) /* qsort wants a non-NULL base even for no elements */
		qsort(pins.v, pins.n, sizeof(*pins.v), cmp_paths);
	for (i = 0; i < pins.n && !rc; i++) {
		if (i > 0 && strcmp(pins.v[i - 1], pins.v[i]) == 0)
			continue;
		rc = push3(c, "--ro-bind", pins.v[i], pins.v[i]);
		if (!rc)
			rc = note(c, "%s pinned (rename and rmdir fail with EBUSY)", pins.v[i]);
	}
	if (covers_w.n)
		qsort(covers_w.v, covers_w.n, sizeof(*covers_w.v), cmp_paths);
	for (i = 0; i < covers_w.n && !rc; i++)
		if (i == 0 || strcmp(covers_w.v[i - 1], covers_w.v[i]) != 0)
			rc = push3(c, "--bind", covers_w.v[i], covers_w.v[i]);

	for (i = 0; i < n && !rc; i++) {
		struct node *nd = &c->v[order[i]];

		if (nd->mount == M_NONE || nd->done)
			continue;
		rc = note(c, "%s %s: %s", nd->path, mkind_name(nd->mount),
			  nd->origin ? nd->origin : "");
		if (rc)
			break;
		if ((nd->mount == M_NULL || nd->mount == M_PH_FILE) &&
		    c->plan->hidden.n < c->hide_max) {
			/* a leaf outside any hidden directory (those are the
			 * kids below, mounted before their --remount-ro) */
			if (srt__strv_push(&c->plan->hidden, nd->path))
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			continue;
		}
		if (nd->mount != M_TMPFS) {
			rc = emit_mount(c, nd);
			continue;
		}
		rc = push3(c, "--perms", nd->has_kids ? "0755" : "0000", NULL);
		if (!rc)
			rc = push3(c, "--tmpfs", nd->path, NULL);
		/* mount points for what is re-opened inside, before it turns
		 * read-only (bwrap's --remount-ro also covers what is below) */
		for (j = i + 1; j < n && !rc; j++) {
			struct node *kid = &c->v[order[j]];

			if (kid->mount == M_NONE || kid->parent != (long)order[i])
				continue;
			if (kid->type == T_DIR) {
				rc = push3(c, "--dir", kid->path, NULL);
			} else if (kid->mount == M_RW) {
				rc = push3(c, "--ro-bind", kid->path, kid->path);
			} else {
				rc = note(c, "%s %s: %s", kid->path, mkind_name(kid->mount),
					  kid->origin ? kid->origin : "");
				if (!rc)
					rc = emit_mount(c, kid);
				kid->done = 1;
			}
		}
		if (!rc)
			rc = push3(c, "--remount-ro", nd->path, NULL);
	}
out:
	free(order);
	srt__strv_release(&pins);
	srt__strv_release(&covers_w);
	return rc;
}

/* ---- entry points ----------------------------------------------------- */

/* Weak: programs that build this file without backends/common (unit tests
 * of other areas) simply have no helper to keep reachable. */
#pragma weak srt__module_sibling

int srt__bwrap_plan_mounts(const struct srt_policy *pol, struct srt__mount_plan *plan,
			   struct srt_diag *diag)
{
	return srt__bwrap_plan_mounts_ex(pol, plan, NULL, NULL, 0, diag);
}

int srt__bwrap_plan_mounts_ex(const struct srt_policy *pol, struct srt__mount_plan *plan,
			      srt__plan_create_fn announce, void *announce_ctx, size_t hide_max,
			      struct srt_diag *diag)
{
	struct ctx c;
	size_t i;
	int rc;

	memset(plan, 0, sizeof(*plan));
	memset(&c, 0, sizeof(c));
	c.announce = announce;
	c.announce_ctx = announce_ctx;
	c.pol = pol;
	c.plan = plan;
	c.diag = diag;
	c.budget = WALK_BUDGET;
	c.hide_max = hide_max;

	if (pol->fs_disabled) {
		rc = push3(&c, "--bind", "/", "/");
		if (!rc)
			rc = note(&c, "filesystem.disabled: the whole filesystem is writable, "
				  "no rules, no mandatory denies");
		goto out;
	}

	/* Where a sandboxed command may have planted links: every allowWrite
	 * spelling and what it resolves to. */
	for (i = 0; i < pol->allow_write.n; i++) {
		char res[PATH_MAX];
		size_t ma;
		int type, err;

		if (pol->allow_write.v[i].flags & SRT_RULE_GLOB)
			continue;
		if (srt__strv_push(&c.wroots, pol->allow_write.v[i].path)) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
		err = resolve(pol->allow_write.v[i].path, res, &type, &ma, NULL);
		if (!err && srt__strv_push(&c.wroots, res)) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
	}

	rc = add_rules(&c, &pol->allow_write, K_AW);
	if (!rc)
		rc = add_rules(&c, &pol->deny_write, K_DW);
	if (!rc)
		rc = add_rules(&c, &pol->deny_read, K_DR);
	if (!rc)
		rc = add_rules(&c, &pol->allow_read, K_AR);
	if (!rc && pol->proxy_dir)
		/* the proxy sockets must stay reachable under any denyRead */
		rc = add_rule(&c, pol->proxy_dir, K_AR, "srt proxy directory", 1);
	if (!rc) {
		/* so must the helper bwrap runs first (a broad denyRead hiding
		 * it would make every command fail) */
		char helper[PATH_MAX];

		if (srt__module_sibling &&
		    srt__module_sibling((const void *)srt__bwrap_plan_mounts, "srt-linux-init",
					helper, sizeof(helper)) == 0)
			rc = add_rule(&c, helper, K_AR, "srt sandbox helper", 1);
	}
	if (rc)
		goto out;
	{
		long r = lookup(&c, "/", 1);

		c.root_rw = r >= 0 && (c.v[r].kinds & K_AW) && !(c.v[r].kinds & K_DW);
	}
	if (pol->tmpdir && !state_of(&c, pol->tmpdir).w)
		rc = note(&c, "TMPDIR %s is covered by a deny rule and is not writable",
			  pol->tmpdir);
	if (!rc)
		rc = add_mandatory(&c);
	if (!rc)
		rc = plan_placeholders(&c);
	if (!rc)
		rc = emit(&c);
out:
	for (i = 0; i < c.n; i++) {
		free(c.v[i].path);
		free(c.v[i].origin);
	}
	free(c.v);
	free(c.tab);
	srt__strv_release(&c.wroots);
	if (rc) {
		srt__bwrap_plan_cleanup(&plan->created);
		srt__bwrap_plan_release(plan);
	}
	return rc;
}

void srt__bwrap_plan_release(struct srt__mount_plan *plan)
{
	if (!plan)
		return;
	srt__strv_release(&plan->words);
	srt__strv_release(&plan->created);
	srt__strv_release(&plan->notes);
	srt__strv_release(&plan->hidden);
	srt__strv_release(&plan->links);
	srt__strv_release(&plan->pinned_links);
	while (plan->n_lock_fds > 0)
		close(plan->lock_fds[--plan->n_lock_fds]);
	free(plan->lock_fds);
	plan->lock_fds = NULL;
}

size_t srt__bwrap_plan_restore_links(const struct srt__strv *links, FILE *report)
{
	size_t i, restored = 0;

	for (i = 0; links && i + 1 < links->n; i += 2) {
		const char *path = links->v[i], *target = links->v[i + 1];
		char parent[PATH_MAX], now[PATH_MAX], aside[NAME_MAX + 1];
		const char *base = strrchr(path, '/');
		struct stat st;
		ssize_t nl;
		int pfd, err, moved = 0;

		if (!base || !base[1] || (size_t)(base - path) >= sizeof(parent))
			continue;
		snprintf(parent, sizeof(parent), "%.*s", base == path ? 1 : (int)(base - path), path);
		base++;
		/* the parent as planned, not through a link swapped in since */
		pfd = open_dir_nofollow(parent);
		if (pfd < 0) {
			if (report)
				fprintf(report, "srt: deny filesystem-write %s: the directory of this protected link cannot be opened without following a link (%s); inspect it\n",
					path, strerror(errno));
			continue;
		}
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			nl = readlinkat(pfd, base, now, sizeof(now) - 1);
			if (nl >= 0 && (size_t)nl < sizeof(now) - 1) {
				now[nl] = '\0';
				if (!strcmp(now, target)) {
					close(pfd);
					continue;
				}
			}
		}
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			err = srt__rename_aside(pfd, base, aside);
			if (err) {
				if (report)
					fprintf(report, "srt: deny filesystem-write %s: this protected link was replaced inside the sandbox and srt could not move the replacement aside (%s); inspect it before using it\n",
						path, strerror(err));
				close(pfd);
				continue;
			}
			moved = 1;
		}
		if (symlinkat(target, pfd, base) != 0) {
			if (report)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was %s inside the sandbox and srt could not put it back (%s); it pointed to %s\n",
					path, moved ? "replaced" : "removed", strerror(errno), target);
		} else {
			restored++;
			if (report && moved)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was replaced inside the sandbox; the replacement is now %s/%s and the link to %s is back\n",
					path, parent, aside, target);
			else if (report)
				fprintf(report, "srt: deny filesystem-write %s: this protected link was removed inside the sandbox; the link to %s is back\n",
					path, target);
		}
		close(pfd);
	}
	return restored;
}

void srt__bwrap_plan_cleanup(const struct srt__strv *created)
{
	size_t i;

	if (!created)
		return;
	for (i = created->n; i-- > 0;) {
		const char *p = created->v[i];
		struct stat st, now;
		int fd;

		if (!p || lstat(p, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			     (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
		if (fd < 0)
			continue;
		/* another live run still mounts it: the last one out removes it */
		if (locked_by_other(fd)) {
			close(fd);
			continue;
		}
		/* remove only what we locked, never something swapped in since */
		if (fstat(fd, &now) == 0 && lstat(p, &st) == 0 && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev) {
			if (S_ISDIR(now.st_mode))
				rmdir(p); /* fails, as it should, when no longer empty */
			else if (S_ISREG(now.st_mode) && now.st_size == 0)
				unlink(p);
		}
		close(fd);
	}
}
