/* windows-wfp: settings -> access control entries and WFP filters
 * (plan.h). No OS calls: the filesystem comes in through struct srt__winfs. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/windows-wfp/plan.h"
#include "common/protected.h"

#define PATH_BYTES 1024
#define DEFAULT_BUDGET 20000

struct ctx {
	const struct srt_policy *pol;
	const struct srt__winplan_opts *o;
	const struct srt__winfs *fs;
	struct srt__winplan *p;
	struct srt_diag *diag;
	size_t budget;
	int truncated;
};

/* ---- small helpers ---------------------------------------------------- */

static char *dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static int note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct ctx *c, const char *fmt, ...)
{
	struct srt__winplan *p = c->p;
	char line[PATH_BYTES * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (p->n_notes == p->alloc_notes) {
		size_t n = p->alloc_notes ? p->alloc_notes * 2 : 8;
		char **v = realloc(p->notes, n * sizeof(*v));

		if (!v)
			return SRT_E_NOMEM;
		p->notes = v;
		p->alloc_notes = n;
	}
	if (!(p->notes[p->n_notes] = dup(line)))
		return SRT_E_NOMEM;
	p->n_notes++;
	return SRT_OK;
}

static int join(char *out, const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int n;

	if (dl && dir[dl - 1] == '/')
		n = snprintf(out, PATH_BYTES, "%s%s", dir, name);
	else
		n = snprintf(out, PATH_BYTES, "%s/%s", dir, name);
	return n > 0 && n < PATH_BYTES ? 0 : -1;
}

/* Is path equal to dir or below it (whole components)? */
static int at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

/* The parent of an absolute path; 0, or -1 for a root ("/", "C:/"). */
static int parent_of(const char *path, char *out)
{
	const char *s = strrchr(path, '/');
	size_t n;

	if (!s || s[1] == '\0')
		return -1;
	n = (size_t)(s - path);
	if (n == 0 || (n == 2 && path[1] == ':'))
		n++; /* keep the root's slash */
	if (n >= PATH_BYTES)
		return -1;
	memcpy(out, path, n);
	out[n] = '\0';
	return 0;
}

/* ---- access control entries ------------------------------------------ */

static struct srt__win_ace *find_ace(struct srt__winplan *p, const char *path,
				     enum srt__win_ace_type type, uint32_t mask)
{
	size_t i;

	for (i = 0; i < p->n_aces; i++)
		if (p->aces[i].type == type && p->aces[i].mask == mask &&
		    !strcmp(p->aces[i].path, path))
			return &p->aces[i];
	return NULL;
}

static int add_ace(struct ctx *c, const char *path, enum srt__win_ace_type type,
		   uint32_t mask, uint32_t inherit, int keep, const char *why)
{
	struct srt__winplan *p = c->p;
	struct srt__win_ace *a;

	if (find_ace(p, path, type, mask))
		return SRT_OK; /* one entry per (path, type, mask): the first reason stays */
	if (p->n_aces == p->alloc_aces) {
		size_t n = p->alloc_aces ? p->alloc_aces * 2 : 16;
		struct srt__win_ace *v = realloc(p->aces, n * sizeof(*v));

		if (!v)
			return SRT_E_NOMEM;
		p->aces = v;
		p->alloc_aces = n;
	}
	a = &p->aces[p->n_aces];
	memset(a, 0, sizeof(*a));
	a->path = dup(path);
	a->why = dup(why);
	if (!a->path || !a->why) {
		free(a->path);
		free(a->why);
		return SRT_E_NOMEM;
	}
	a->type = type;
	a->mask = mask;
	a->inherit = inherit;
	a->keep = keep;
	p->n_aces++;
	return SRT_OK;
}

static uint32_t inherit_for(enum srt__winfs_kind k)
{
	return k == SRT__WINFS_DIR ? SRT__W_OBJECT_INHERIT | SRT__W_CONTAINER_INHERIT : 0;
}

/* A deny on path, and FILE_DELETE_CHILD denied on its parent, so the name
 * can be neither deleted nor renamed away and replaced. */
static int add_deny(struct ctx *c, const char *path, enum srt__winfs_kind k, uint32_t mask,
		    const char *why)
{
	char parent[PATH_BYTES];
	int rc;

	if (k == SRT__WINFS_DIR && (mask & SRT__W_WRITE_DATA))
		mask |= SRT__W_DELETE_CHILD;
	if ((rc = add_ace(c, path, SRT__W_DENY, mask, inherit_for(k), 0, why)))
		return rc;
	if (parent_of(path, parent))
		return SRT_OK;
	return add_ace(c, parent, SRT__W_DENY, SRT__W_DELETE_CHILD, 0, 0, why);
}

/* ---- globs ------------------------------------------------------------ */

/* "[set]" at p: its end (after "]") and whether ch is a member; NULL when
 * the bracket spells no set (then it is literal text). */
static const char *set_match(const char *p, char ch, int *hit)
{
	const char *q = p + 1, *end = strchr(q, ']');

	if (!end || end == q)
		return NULL;
	*hit = 0;
	for (; q < end; q++) {
		if (q + 2 < end && q[1] == '-') {
			if ((unsigned char)q[0] > (unsigned char)q[2])
				return NULL;
			if ((unsigned char)ch >= (unsigned char)q[0] &&
			    (unsigned char)ch <= (unsigned char)q[2])
				*hit = 1;
			q += 2;
		} else if (*q == ch) {
			*hit = 1;
		}
	}
	return end + 1;
}

static int gmatch(const char *p, const char *s, int depth)
{
	if (depth > 64)
		return 0;
	for (; *p; p++, s++) {
		if (*p == '*') {
			int stars = 0;

			while (*p == '*') {
				p++;
				stars++;
			}
			if (stars >= 2 && *p == '/') {
				/* any run of whole directories, including none */
				const char *t = s;

				if (gmatch(p + 1, t, depth + 1))
					return 1;
				for (; *t; t++)
					if (*t == '/' && gmatch(p + 1, t + 1, depth + 1))
						return 1;
				return 0;
			}
			for (;; s++) {
				if (gmatch(p, s, depth + 1))
					return 1;
				if (!*s || (stars == 1 && *s == '/'))
					return 0;
			}
		}
		if (!*s)
			return 0;
		if (*p == '?') {
			if (*s == '/')
				return 0;
			continue;
		}
		if (*p == '[') {
			int hit;
			const char *next = set_match(p, *s, &hit);

			if (next) {
				if (!hit)
					return 0;
				p = next - 1;
				continue;
			}
		}
		if (*p != *s)
			return 0;
	}
	return *s == '\0';
}

int srt__winglob_match(const char *pat, const char *path)
{
	return gmatch(pat, path, 0);
}

/* The fixed directory before the first component holding a glob
 * character; -1 when that is a root (the walk would cover a whole disk). */
static int glob_base(const char *pat, char *out)
{
	size_t i, slash = 0;

	for (i = 0; pat[i]; i++) {
		if (pat[i] == '/')
			slash = i;
		if (strchr("*?[", pat[i]))
			break;
	}
	if (slash == 0 || (slash == 2 && pat[1] == ':') || slash >= PATH_BYTES)
		return -1;
	memcpy(out, pat, slash);
	out[slash] = '\0';
	return 0;
}

struct gwalk {
	struct ctx *c;
	const char *pat;
	const char *dir;
	int depth, max_depth;
	int (*hit)(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg);
	void *arg;
};

static int gwalk_dir(struct gwalk *g, const char *dir, int depth);

static int gwalk_entry(void *v, const char *name, enum srt__winfs_kind k)
{
	struct gwalk *g = v;
	char path[PATH_BYTES];

	if (g->c->budget == 0)
		return SRT_E_LIMIT;
	g->c->budget--;
	if (join(path, g->dir, name))
		return SRT_OK; /* too long to be named: cannot match a rule */
	if (srt__winglob_match(g->pat, path))
		return g->hit(g->c, path, k, g->arg); /* a match covers what is below it */
	if (k == SRT__WINFS_DIR && (g->max_depth < 0 || g->depth + 1 < g->max_depth))
		return gwalk_dir(g, path, g->depth + 1);
	return SRT_OK;
}

static int gwalk_dir(struct gwalk *g, const char *dir, int depth)
{
	struct gwalk sub = *g;
	int rc;

	sub.dir = dir;
	sub.depth = depth;
	rc = g->c->fs->list(g->c->fs->ctx, dir, gwalk_entry, &sub);
	return rc < 0 && rc != SRT_E_LIMIT && rc != SRT_E_NOMEM ? SRT_OK : rc;
}

/* Components after the base, or -1 when "**" lets the pattern go deeper. */
static int glob_depth(const char *rest)
{
	int n = 0;

	if (strstr(rest, "**"))
		return -1;
	for (; *rest; rest++)
		if (*rest == '/')
			n++;
	return n;
}

typedef int (*rule_fn)(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg);

/* Call fn for the rule's path, or for every name its glob matches. */
static int each_target(struct ctx *c, const struct srt_rule *r, rule_fn fn, void *arg)
{
	char base[PATH_BYTES];
	struct gwalk g;
	int rc;

	if (!(r->flags & SRT_RULE_GLOB) || (r->flags & SRT_RULE_LITERAL))
		return fn(c, r->path, c->fs->kind(c->fs->ctx, r->path), arg);
	if (glob_base(r->path, base))
		return srt_diag_set(c->diag, SRT_E_INVAL, r->origin,
				    "%s: glob %s would walk a whole disk: name a directory before "
				    "the first wildcard", r->origin, r->path);
	if (c->fs->kind(c->fs->ctx, base) != SRT__WINFS_DIR)
		return note(c, "%s: %s matches nothing (%s is not a directory)", r->origin,
			    r->path, base);
	memset(&g, 0, sizeof(g));
	g.c = c;
	g.pat = r->path;
	g.max_depth = glob_depth(r->path + strlen(base));
	g.hit = fn;
	g.arg = arg;
	rc = gwalk_dir(&g, base, 0);
	if (rc == SRT_E_LIMIT)
		return srt_diag_set(c->diag, SRT_E_LIMIT, r->origin,
				    "%s: glob %s: more than the walk's budget of directory entries "
				    "below %s; name a narrower directory", r->origin, r->path, base);
	return rc;
}

/* ---- the rules --------------------------------------------------------- */

struct rule_arg {
	const struct srt_rule *r;
};

static int is_denied_write(struct ctx *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->pol->deny_write.n; i++)
		if (!(c->pol->deny_write.v[i].flags & SRT_RULE_GLOB) &&
		    at_or_below(path, c->pol->deny_write.v[i].path))
			return 1;
	return 0;
}

static int is_denied_read(struct ctx *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->pol->deny_read.n; i++)
		if (!(c->pol->deny_read.v[i].flags & SRT_RULE_GLOB) &&
		    at_or_below(path, c->pol->deny_read.v[i].path))
			return 1;
	return 0;
}

static int on_allow_read(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg)
{
	const struct srt_rule *r = ((struct rule_arg *)arg)->r;

	if (k == SRT__WINFS_MISSING || k == SRT__WINFS_LINK)
		return note(c, "%s: %s %s: no entry", r->origin, path,
			    k ? "is a link (never followed)" : "does not exist");
	return add_ace(c, path, SRT__W_ALLOW, SRT__W_MASK_READ, inherit_for(k), 0, r->origin);
}

static int on_allow_write(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg)
{
	const struct srt_rule *r = ((struct rule_arg *)arg)->r;
	uint32_t mask = SRT__W_MASK_MODIFY;

	if (k == SRT__WINFS_MISSING || k == SRT__WINFS_LINK)
		return note(c, "%s: %s %s: no entry", r->origin, path,
			    k ? "is a link (never followed)" : "does not exist");
	/* An entry of its own below a deny would outrank the inherited deny
	 * (NTFS ranks explicit entries above inherited ones): not granted. */
	if (is_denied_write(c, path))
		return note(c, "%s: %s is inside a denyWrite path: not granted", r->origin, path);
	if (is_denied_read(c, path)) {
		mask &= ~(uint32_t)SRT__W_MASK_DENY_READ;
		if (note(c, "%s: %s is inside a denyRead path: granted without read", r->origin,
			 path))
			return SRT_E_NOMEM;
	}
	return add_ace(c, path, SRT__W_ALLOW, mask, inherit_for(k),
		       !(r->flags & SRT_RULE_DEFAULT), r->origin);
}

static int on_deny(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg,
		   uint32_t mask)
{
	const struct srt_rule *r = ((struct rule_arg *)arg)->r;

	if (k == SRT__WINFS_MISSING)
		return note(c, "%s: %s does not exist: no entry can name it (its parent's "
			    "entries cover a file created there)", r->origin, path);
	if (k == SRT__WINFS_LINK) {
		/* the entry goes on the link itself (its target is another name,
		 * denied only when a rule names it) */
		int rc = note(c, "%s: %s is a link: the entry covers the link, not what it "
			      "points to", r->origin, path);

		if (rc)
			return rc;
		k = SRT__WINFS_FILE;
	}
	return add_deny(c, path, k, mask, r->origin);
}

static int on_deny_read(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg)
{
	return on_deny(c, path, k, arg, SRT__W_MASK_DENY_READ);
}

static int on_deny_write(struct ctx *c, const char *path, enum srt__winfs_kind k, void *arg)
{
	return on_deny(c, path, k, arg, SRT__W_MASK_DENY_WRITE);
}

static int each_rule(struct ctx *c, const struct srt_rules *rs, rule_fn fn)
{
	size_t i;
	int rc;

	for (i = 0; i < rs->n; i++) {
		struct rule_arg a = { &rs->v[i] };

		if ((rc = each_target(c, &rs->v[i], fn, &a)))
			return rc;
	}
	return SRT_OK;
}

/* ---- the mandatory write denies ----------------------------------------
 * The depth rule of the other backends: a protected file counts when the
 * directory holding it is at depth <= D-1 below the write root (the root
 * is 0), a protected directory when its parent is at depth <= D-2 or is
 * the root. Links are never followed, node_modules and .git are not
 * descended into; names match case-insensitively. */

struct mwalk {
	struct ctx *c;
	const char *root;
	const char *dir;
	int depth;
};

static int released(struct ctx *c, const struct srt__protected *p)
{
	if (p->kind == SRT__PROT_GIT && !strcasecmp(p->name, ".git/config") &&
	    c->pol->allow_git_config)
		return 1;
	return srt__protected_released(p, (const char *const *)c->pol->protected_released);
}

static int protect(struct ctx *c, const char *path, enum srt__winfs_kind k,
		   const struct srt__protected *p)
{
	char why[128];

	snprintf(why, sizeof(why), "mandatory %s", p->name);
	if (k == SRT__WINFS_LINK)
		k = SRT__WINFS_FILE;
	return add_deny(c, path, k, SRT__W_MASK_DENY_WRITE, why);
}

/* The entries "dir/child" (.claude/hooks, .git/config) under a directory
 * named dir. */
static int protect_sub(struct ctx *c, const char *dirpath, const char *dirname)
{
	size_t i, dl = strlen(dirname);
	int rc;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		char path[PATH_BYTES];
		enum srt__winfs_kind k;

		if (p->kind != SRT__PROT_SUB && p->kind != SRT__PROT_GIT)
			continue;
		if (strncasecmp(p->path, dirname, dl) || p->path[dl] != '/' || released(c, p))
			continue;
		if (join(path, dirpath, p->path + dl + 1))
			continue;
		k = c->fs->kind(c->fs->ctx, path);
		if (k == SRT__WINFS_MISSING)
			continue;
		if ((rc = protect(c, path, k, p)))
			return rc;
	}
	return SRT_OK;
}

static int mwalk_dir(struct ctx *c, const char *root, const char *dir, int depth);

static int mwalk_entry(void *v, const char *name, enum srt__winfs_kind k)
{
	struct mwalk *m = v;
	struct ctx *c = m->c;
	int D = c->pol->mandatory_deny_depth > 0 ? c->pol->mandatory_deny_depth : 3;
	char path[PATH_BYTES];
	size_t i;
	int rc;

	if (c->budget == 0) {
		c->truncated = 1;
		return 1;
	}
	c->budget--;
	if (join(path, m->dir, name))
		return SRT_OK;
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (strcasecmp(p->path, name) || released(c, p))
			continue;
		if (p->kind == SRT__PROT_FILE && m->depth <= D - 1)
			return protect(c, path, k, p);
		if (p->kind == SRT__PROT_DIR && (m->depth <= D - 2 || m->depth == 0))
			return protect(c, path, k, p);
	}
	if (k != SRT__WINFS_DIR)
		return SRT_OK;
	if (m->depth <= D - 2 || m->depth == 0)
		if ((rc = protect_sub(c, path, name)))
			return rc;
	if (!strcasecmp(name, "node_modules") || !strcasecmp(name, ".git") || m->depth + 1 > D - 1)
		return SRT_OK;
	return mwalk_dir(c, m->root, path, m->depth + 1);
}

static int mwalk_dir(struct ctx *c, const char *root, const char *dir, int depth)
{
	struct mwalk m = { c, root, dir, depth };
	int rc = c->fs->list(c->fs->ctx, dir, mwalk_entry, &m);

	if (rc == 1)
		return SRT_OK; /* budget spent: noted by the caller */
	return rc < 0 && rc != SRT_E_NOMEM ? SRT_OK : rc;
}

/* The names below $HOME, in a write root that holds them. */
static int protect_home(struct ctx *c, const char *root)
{
	size_t i;
	int rc;

	if (!c->pol->home)
		return SRT_OK;
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		char path[PATH_BYTES];
		enum srt__winfs_kind k;

		if (p->kind != SRT__PROT_HOME || released(c, p) || join(path, c->pol->home, p->path))
			continue;
		if (!at_or_below(path, root))
			continue;
		k = c->fs->kind(c->fs->ctx, path);
		if (k == SRT__WINFS_MISSING)
			continue;
		if ((rc = protect(c, path, k, p)))
			return rc;
	}
	return SRT_OK;
}

/* The protected names a write root lacks at its top: an entry cannot name
 * a file that does not exist, so the plan says so instead of pretending. */
static int note_absent(struct ctx *c, const char *root)
{
	size_t i;
	int rc;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		char path[PATH_BYTES];

		if ((p->kind != SRT__PROT_FILE && p->kind != SRT__PROT_DIR) || released(c, p))
			continue;
		if (join(path, root, p->path) || c->fs->kind(c->fs->ctx, path) != SRT__WINFS_MISSING)
			continue;
		if ((rc = note(c, "mandatory %s: %s does not exist; creating it stays possible "
			       "(no entry can name a missing file)", p->name, path)))
			return rc;
	}
	return SRT_OK;
}

static int mandatory(struct ctx *c)
{
	size_t i, n = c->p->n_aces;
	int rc;

	/* the write roots are the allow entries of allowWrite made so far */
	for (i = 0; i < n; i++) {
		char root[PATH_BYTES];

		if (c->p->aces[i].type != SRT__W_ALLOW || c->p->aces[i].mask == SRT__W_MASK_READ ||
		    !c->p->aces[i].inherit)
			continue;
		snprintf(root, sizeof(root), "%s", c->p->aces[i].path);
		if ((rc = mwalk_dir(c, root, root, 0)) || (rc = protect_home(c, root)))
			return rc;
		if ((c->p->aces[i].why && strstr(c->p->aces[i].why, "allowWrite")) &&
		    (rc = note_absent(c, root)))
			return rc;
	}
	if (c->truncated)
		return note(c, "mandatory: the walk stopped after its budget of directory "
			    "entries; deeper protected names are not covered");
	return SRT_OK;
}

/* ---- the network ------------------------------------------------------ */

static void add_filter(struct srt__winplan *p, enum srt__wfp_layer layer, int permit,
		       uint8_t weight, int loopback, int lo, int hi, int port_not,
		       const char *name)
{
	struct srt__wfp_filter *f = &p->filters[p->n_filters++];

	f->layer = layer;
	f->permit = permit;
	f->weight = weight;
	f->loopback = loopback;
	f->port_lo = lo;
	f->port_hi = hi;
	f->port_not = port_not;
	f->name = name;
}

static void network(struct ctx *c)
{
	struct srt__winplan *p = c->p;
	int layer;

	for (layer = SRT__WFP_CONNECT_V4; layer <= SRT__WFP_CONNECT_V6; layer++)
		add_filter(p, layer, 1, 15, 1, p->port_lo, p->port_hi, 0,
			   "srt: sandbox to the proxy's loopback ports");
	if (c->o && c->o->allow_loopback)
		for (layer = SRT__WFP_CONNECT_V4; layer <= SRT__WFP_CONNECT_V6; layer++)
			add_filter(p, layer, 1, 14, 1, 0, 0, 1,
				   "srt: sandbox to loopback (allowLocalBinding)");
	for (layer = SRT__WFP_CONNECT_V4; layer <= SRT__WFP_CONNECT_V6; layer++)
		add_filter(p, layer, 0, 0, 0, 0, 0, 0, "srt: block the sandbox account");
}

/* ---- entry points ------------------------------------------------------ */

static int fill_opts(struct srt__winplan *p, const struct srt__winplan_opts *o,
		     struct srt_diag *diag)
{
	const char *user = o && o->user ? o->user : "srt-sandbox";
	const char *group = o && o->group ? o->group : "sandbox-runtime-users";

	if (strlen(user) >= sizeof(p->user) || strlen(group) >= sizeof(p->group))
		return srt_diag_set(diag, SRT_E_INVAL, "windows.sandboxUser",
				    "windows.sandboxUser: name too long");
	strcpy(p->user, user);
	strcpy(p->group, group);
	p->port_lo = o && o->port_lo ? o->port_lo : 60080;
	p->port_hi = o && o->port_hi ? o->port_hi : 60089;
	if (p->port_lo < 1 || p->port_hi > 65535 || p->port_lo > p->port_hi)
		return srt_diag_set(diag, SRT_E_INVAL, "windows.proxyPortRange",
				    "windows.proxyPortRange: [%d, %d] is not a port range",
				    p->port_lo, p->port_hi);
	return SRT_OK;
}

int srt__winplan_check_installed_ports(int lo, int hi, int ilo, int ihi, struct srt_diag *diag)
{
	if (!lo && !hi) {
		lo = 60080;
		hi = 60089;
	}
	if (!ilo && !ihi)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows.proxyPortRange",
				    "windows-wfp: the installed WFP filters do not record which proxy ports they permit "
				    "(installed by an older srt-win): run srt-win windows-uninstall, then "
				    "srt-win windows-install --ports %d-%d, from an elevated prompt", lo, hi);
	if (lo >= ilo && hi <= ihi)
		return SRT_OK;
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows.proxyPortRange",
			    "windows.proxyPortRange %d-%d is outside the ports the installed WFP filters permit "
			    "(%d-%d): choose a range inside %d-%d, or run srt-win windows-uninstall, then "
			    "srt-win windows-install --ports %d-%d, from an elevated prompt",
			    lo, hi, ilo, ihi, ilo, ihi, lo, hi);
}

int srt__winplan_build(const struct srt_policy *pol, const struct srt__winplan_opts *o,
		       const struct srt__winfs *fs, struct srt__winplan *out,
		       struct srt_diag *diag)
{
	struct ctx c;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.pol = pol;
	c.o = o;
	c.fs = fs;
	c.p = out;
	c.diag = diag;
	c.budget = o && o->budget ? o->budget : DEFAULT_BUDGET;
	if ((rc = fill_opts(out, o, diag)))
		goto fail;
	if (pol->fs_disabled) {
		rc = note(&c, "filesystem.disabled: no filesystem entries");
	} else if (!(rc = each_rule(&c, &pol->allow_read, on_allow_read)) &&
		   !(rc = each_rule(&c, &pol->allow_write, on_allow_write)) &&
		   !(rc = each_rule(&c, &pol->deny_read, on_deny_read)) &&
		   !(rc = each_rule(&c, &pol->deny_write, on_deny_write))) {
		rc = mandatory(&c);
	}
	if (rc)
		goto fail;
	network(&c);
	return SRT_OK;
fail:
	if (rc == SRT_E_NOMEM && !diag->message[0])
		srt_diag_set(diag, rc, "", "out of memory while planning the Windows sandbox");
	srt__winplan_free(out);
	return rc;
}

void srt__winplan_free(struct srt__winplan *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_aces; i++) {
		free(p->aces[i].path);
		free(p->aces[i].why);
	}
	for (i = 0; i < p->n_notes; i++)
		free(p->notes[i]);
	free(p->aces);
	free(p->notes);
	memset(p, 0, sizeof(*p));
}

static const char *inherit_name(uint32_t f)
{
	switch (f & 3) {
	case 3: return "oi|ci";
	case 1: return "oi";
	case 2: return "ci";
	default: return "-";
	}
}

void srt__winplan_print(const struct srt__winplan *p, FILE *out)
{
	size_t i;

	fprintf(out, "account %s (created by windows-install, password kept with DPAPI)\n",
		p->user);
	fprintf(out, "group %s\n", p->group);
	for (i = 0; i < p->n_aces; i++) {
		const struct srt__win_ace *a = &p->aces[i];

		fprintf(out, "ace %s %s 0x%08x %s %s%s [%s]\n",
			a->type == SRT__W_ALLOW ? "allow" : "deny", SRT__W_SID_USER, a->mask,
			inherit_name(a->inherit), a->path, a->keep ? " keep" : "", a->why);
	}
	for (i = 0; i < p->n_filters; i++) {
		const struct srt__wfp_filter *f = &p->filters[i];

		fprintf(out, "wfp %s %s weight %u user=%s",
			f->layer == SRT__WFP_CONNECT_V4 ? "ALE_AUTH_CONNECT_V4" : "ALE_AUTH_CONNECT_V6",
			f->permit ? "permit" : "block", f->weight, SRT__W_SID_USER);
		if (f->loopback)
			fprintf(out, " remote=%s", f->layer == SRT__WFP_CONNECT_V4 ? "127.0.0.0/8" : "::1");
		if (f->port_lo)
			fprintf(out, " port=%d-%d", f->port_lo, f->port_hi);
		if (f->port_not)
			fprintf(out, " port!=%d", f->port_not);
		fprintf(out, " [%s]\n", f->name);
	}
	for (i = 0; i < p->n_notes; i++)
		fprintf(out, "note %s\n", p->notes[i]);
}
