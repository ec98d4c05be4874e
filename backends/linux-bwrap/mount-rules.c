/* linux-bwrap: the policy's rules as nodes of the mount model. Each rule
 * is resolved on the host (mount-resolve.c) and recorded at the path it
 * really names; allow rules never go through a link a sandboxed command
 * could have planted, globs are expanded now, and the mandatory write
 * denies are found by scanning every writable root. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/glob.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/mountinfo.h"
#include "common/pathcat.h"
#include "common/platform.h"
#include "common/protected.h"
#include "mount-rules.h"

/* A link for the helper to pin (plan->pinned_links), its parent directory
 * resolved: the helper opens it refusing every link on the way. */
static int add_pin(struct srt__mount_ctx *c, const char *origin, const char *path)
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
	if ((err = srt__mount_resolve(dir, real, &type, &missing_at, NULL)) != 0 || type != T_DIR)
		return srt_diag_set(c->diag, SRT_E_IO, origin,
				    "%s: cannot resolve the directory of the link \"%s\": %s", origin,
				    path, strerror(err ? err : ENOTDIR));
	if (srt__pathcat(full, sizeof(full), real, strcmp(real, "/") ? strlen(real) : 0, "/", slash + 1,
			 NULL, NULL) >= sizeof(full))
		return srt_diag_set(c->diag, SRT_E_LIMIT, origin, "%s: path too long: %s", origin, path);
	if (srt__strv_push(&c->plan->pinned_links, full))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

static const char *kind_name(unsigned k)
{
	switch (k & ~(unsigned)K_DIR) {
	case K_DR: return "denyRead";
	case K_AR: return "allowRead";
	case K_AW: return "allowWrite";
	default: return "denyWrite";
	}
}

/* A link followed by an allow rule must not live where a sandboxed command
 * could have planted it: inside any allowWrite path. */
static int links_untrusted(const struct srt__mount_ctx *c, const struct srt__strv *dirs)
{
	size_t i, j;

	for (i = 0; i < dirs->n; i++)
		for (j = 0; j < c->wroots.n; j++)
			if (srt__mount_covers(c->wroots.v[j], dirs->v[i]))
				return 1;
	return 0;
}

/* A symbolic link in a directory this user can write (or owns, and so
 * may make writable again) may have been planted by an earlier sandboxed
 * run that could write there, even when no write root of this run covers
 * it. An allow rule never follows one. */
static int links_in_writable_dirs(const struct srt__strv *dirs)
{
	size_t i;

	for (i = 0; i < dirs->n; i++)
		if (srt__os_dir_ours_to_write(dirs->v[i]))
			return 1;
	return 0;
}

int srt__mount_add_rule(struct srt__mount_ctx *c, const char *path, unsigned kind,
			const char *origin, int dflt)
{
	char res[PATH_MAX];
	struct srt__strv links = { 0 };
	size_t missing_at = 0;
	int type = T_MISSING, err, rc = SRT_OK;
	int deny = kind & (K_DR | K_DW);
	long k;

	err = srt__mount_resolve(path, res, &type, &missing_at, &links);
	if (err == ENOTDIR && deny) {
		/* A file stands where the rule needs a directory: hold that file
		 * read-only, or the command could swap it for a directory and
		 * create the denied path below it. srt__mount_resolve() left its name in res. */
		rc = srt__mount_note(c, "%s %s: \"%s\" is not a directory; it is held read-only", origin,
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
			int lr = lstat(res, &st);

			if (lr != 0 && errno != ENOENT && errno != ENOTDIR && errno != EACCES) {
				/* not known to be someone else's: no proof the
				 * command cannot open it (red team: a failed lstat
				 * here dropped the rule, and the key was read) */
				rc = srt_diag_set(c->diag, SRT_E_IO, origin,
						  "%s: cannot tell who owns \"%s\": %s; the rule cannot be "
						  "enforced", origin, res, strerror(errno));
			} else if (lr == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
				   strcmp(res, "/") != 0) {
				rc = srt__mount_note(c, "%s %s: \"%s\" cannot be searched; the rule covers all of it",
					  origin, path, res);
				if (!rc)
					rc = srt__mount_add_rule(c, res, kind, origin, dflt);
			} else {
				rc = srt__mount_note(c, "%s %s: not accessible to this user (%s); already unreadable",
					  origin, path, strerror(err));
			}
		} else if (deny) {
			rc = srt_diag_set(c->diag, SRT_E_UNAVAILABLE, origin,
					  "%s: cannot resolve \"%s\": %s; the rule cannot be enforced",
					  origin, path, strerror(err));
		} else {
			rc = srt__mount_note(c, "%s %s: skipped, cannot resolve it: %s", origin, path,
				  strerror(err));
		}
		goto out;
	}
	if (!deny && links.n && (links_untrusted(c, &links) || links_in_writable_dirs(&links))) {
		rc = srt__mount_note(c, "warning: %s \"%s\" is not applied: it goes through a symbolic link "
			  "in a directory that can be written (a sandboxed command could have "
			  "planted it); check where it leads (\"%s\") and, if that is the place you "
			  "meant, name that path instead", origin, path, res);
		goto out;
	}
	if (srt__mount_covers("/dev", res) || srt__mount_covers("/proc", res)) {
		rc = srt__mount_note(c, "%s %s: skipped: the sandbox gets its own %s", origin, path,
			  srt__mount_covers("/dev", res) ? "/dev" : "/proc");
		goto out;
	}
	if (!deny && type == T_MISSING && c->pol->plan_only && c->pol->tmpdir &&
	    !strcmp(path, c->pol->tmpdir)) {
		/* a plan only printed names the run's own TMPDIR, which each
		 * run makes: planned as the directory it will be */
		type = T_DIR;
		missing_at = 0;
		rc = srt__mount_note(c, "%s %s: made by each run", origin, path);
		if (rc)
			goto out;
	} else if (!deny && type == T_MISSING) {
		rc = srt__mount_note(c, "%s %s: skipped: does not exist", origin, path);
		goto out;
	}
	if (strcmp(res, path) != 0 && links.n) {
		struct stat st;
		int is_link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);

		rc = srt__mount_note(c, "%s %s: resolves to %s; enforced there", origin, path, res);
		/* a denied name that is a link: the host may point it elsewhere
		 * during the run (a dotfile manager's ln -sfn and mv -T), and
		 * what it leads to then is what the rule means; the watcher
		 * covers the name itself when anything new arrives there */
		if (!rc && (kind & K_DR) && is_link && srt__strv_push(&c->plan->watch_deny, path))
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		/* see mounts.c: a link's name is not a mount point */
		if (!rc && deny && is_link && links_untrusted(c, &links)) {
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
			rc = srt__mount_note(c, "%s %s: is a symbolic link inside a writable directory; its "
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
			rc = srt__mount_add_rule(c, child, K_DR, origin, dflt);
			if (rc)
				break;
		}
		closedir(d);
		goto out;
	}
	k = srt__mount_node_get(c, res);
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

		srt__pathcat(o, sizeof(o), origin, strlen(origin), " (", kind_name(kind), " ", path);
		if (strlen(o) + 1 < sizeof(o))
			strcat(o, ")");
		c->v[k].origin = strdup(o);
		if (!c->v[k].origin)
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
out:
	srt__strv_release(&links);
	return rc;
}

int srt__mount_add_rules(struct srt__mount_ctx *c, const struct srt_rules *rules, unsigned kind)
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
					return srt__mount_note(c, "%s %s: expansion stopped (too many entries); "
						    "nothing re-opened", r->origin, r->path);
				if (c->diag) {
					snprintf(msg, sizeof(msg), "%s", c->diag->message);
					srt_diag_set(c->diag, rc, r->origin, "%s: %s", r->origin, msg);
				}
				return rc;
			}
			rc = srt__mount_note(c, "%s %s: glob matched %zu path(s) now; paths created later "
				  "are not covered", r->origin, r->path, m.n);
			for (j = 0; !rc && j < m.n; j++)
				rc = srt__mount_add_rule(c, m.v[j], kind, r->origin, dflt);
			srt__strv_release(&m);
			if (rc)
				return rc;
			continue;
		}
		rc = srt__mount_add_rule(c, r->path, kind, r->origin, dflt);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

/* Is name a protected directory's (.vscode, .idea, .husky)? */
static int protected_dir_name(const char *name)
{
	size_t i;

	for (i = 0; i < srt__protected_count; i++)
		if (srt__protected_names[i].kind == SRT__PROT_DIR &&
		    !strcasecmp(srt__protected_names[i].path, name))
			return 1;
	return 0;
}

static int mandatory_cb(void *vctx, const char *path, const char *what)
{
	const char *base = strrchr(path, '/');
	char origin[128];

	snprintf(origin, sizeof(origin), "mandatory deny %s", what);
	return srt__mount_add_rule(vctx, path, K_DW | (protected_dir_name(base ? base + 1 : path) ? K_DIR : 0),
				   origin, 0);
}

/* A hard link to a denyRead file (srt__mandatory_opts.read_fn): hidden
 * like the file. */
static int mandatory_read_cb(void *vctx, const char *path, const char *what)
{
	char origin[192];

	snprintf(origin, sizeof(origin), "mandatory deny %s", what);
	return srt__mount_add_rule(vctx, path, K_DR, origin, 0);
}

/* The mandatory write denies (srt__mandatory_scan: the shells' startup
 * files, git configuration and hooks, editor settings) in the working
 * directory and in every writable root. */
int srt__mount_add_mandatory(struct srt__mount_ctx *c)
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
	if (pol->cwd && srt__mount_state_of(c, pol->cwd).w) {
		if (srt__strv_push(&roots, pol->cwd))
			goto nomem;
		full[nfull++] = 1;
	}
	/* $HOME below the top of a write root: the shells read its startup
	 * files wherever it lies, so its absent ones are held like a root's.
	 * Where it really lies: $HOME a link into a write root is walked at
	 * the link's target, as the roots are (red team: with $HOME a link
	 * into the write root, its names there were not held) */
	if (pol->home && pol->home[0] == '/' && strcmp(pol->home, "/") != 0) {
		char hreal[PATH_MAX];
		const char *h = realpath(pol->home, hreal) ? hreal : pol->home;

		if (strcmp(h, "/") != 0 && srt__mount_state_of(c, h).w) {
			if (srt__strv_push(&roots, h))
				goto nomem;
			full[nfull++] = 1;
		}
	}
	nroots = c->n;
	for (i = 0; i < nroots; i++) {
		const struct srt__mount_node *nd = &c->v[i];

		if (!(nd->kinds & K_AW) || nd->type != T_DIR || !srt__mount_state_of(c, nd->path).w)
			continue;
		if (srt__strv_push(&roots, nd->path))
			goto nomem;
		full[nfull++] = !nd->dflt;
	}
	memset(&o, 0, sizeof(o));
	o.depth = pol->mandatory_deny_depth >= 1 && pol->mandatory_deny_depth <= 10 ?
		  pol->mandatory_deny_depth : 3;
	o.allow_git_config = pol->allow_git_config;
	o.home = pol->home;
	o.released = (const char *const *)pol->protected_released;
	o.pol = pol;
	o.read_fn = mandatory_read_cb;
	/* a protected directory counts in a directory at depth <= D-2 below
	 * a root (and at the root): the watcher watches those levels */
	c->plan->watch_depth = o.depth > 2 ? o.depth - 1 : 1;
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
		if (full[i] && srt__strv_push(&c->plan->watch_trees, roots.v[i]))
			goto nomem;
		truncated = 0;
		rc = srt__mandatory_scan_error(srt__mandatory_scan(roots.v[i], &o, &budget, &truncated,
								   mandatory_cb, c),
					       roots.v[i], c->diag);
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

/* ---- other names of the files the command must not read ---------------
 * A hard link is the same file under another name, and the kernel counts
 * the names (st_nlink). A denyRead file, a file of a denyRead directory
 * or a masked credentials file is hidden (or shown as its copy) by name:
 * the mandatory walk finds and hides its other names in the write roots,
 * to mandatoryDenySearchDepth, and nowhere else, so a link the host
 * already had elsewhere (a backup, a dotfile manager, a deeper directory)
 * read the real content. Each name found is counted; a file with more
 * names than that refuses the run, naming the file and the fix. A name
 * the listing finds under an allowRead path inside a denied directory
 * counts as found: the user allowed that one. The denied directories are
 * listed to LINK_LIST_MAX entries in all and LINK_DIR_DEPTH levels; the
 * files past that are not counted (a note says so). */
#define LINK_LIST_MAX 10000
#define LINK_DIR_DEPTH 8

struct lname {
	dev_t dev, pdev; /* the file, and the directory holding this name */
	ino_t ino, pino;
	nlink_t nlink;
	int hidden;      /* this name is hidden (or the masked copy's) */
	char *path;
	char *base;      /* path's last component */
	const char *what;
};

struct lnames {
	struct lname *v;
	size_t n, alloc;
	size_t left; /* entries the listing of denied directories may take */
	int cut;     /* it stopped there */
};

static int lnames_add(struct lnames *l, const char *path, const struct stat *st, int hidden,
		      const char *what)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat pst;
	struct lname *e;

	if (!S_ISREG(st->st_mode) || st->st_nlink < 2 || !slash || (size_t)(slash - path) >= sizeof(dir))
		return SRT_OK;
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (lstat(dir, &pst) != 0)
		return SRT_OK;
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 32;
		struct lname *nv = realloc(l->v, na * sizeof(*nv));

		if (!nv)
			return SRT_E_NOMEM;
		l->v = nv;
		l->alloc = na;
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->nlink = st->st_nlink;
	e->pdev = pst.st_dev;
	e->pino = pst.st_ino;
	e->hidden = hidden;
	e->what = what;
	e->path = strdup(path);
	if (!e->path)
		return SRT_E_NOMEM;
	e->base = e->path + (slash - path) + 1;
	l->n++;
	return SRT_OK;
}

/* The regular files below the denied directory dfd (path), each name. */
static int lnames_list(struct srt__mount_ctx *c, struct lnames *l, int dfd, const char *path,
		       int depth, const char *what)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = SRT_OK;

	if (!d) {
		close(dfd);
		return SRT_OK;
	}
	while (!rc && (de = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (l->left == 0) {
			l->cut = 1;
			break;
		}
		l->left--;
		if (srt__pathcat(child, sizeof(child), path, strcmp(path, "/") ? strlen(path) : 0, "/",
				 de->d_name, NULL, NULL) >= sizeof(child))
			continue;
		if (de->d_type == DT_DIR) {
			/* one level too deep, or a directory we cannot list:
			 * its files go unchecked, which the note says */
			int cfd = depth < LINK_DIR_DEPTH ?
				  openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

			if (cfd >= 0)
				rc = lnames_list(c, l, cfd, child, depth + 1, what);
			else
				l->cut = 1;
			continue;
		}
		if ((de->d_type == DT_REG || de->d_type == DT_UNKNOWN) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = lnames_add(l, child, &st, !srt__mount_state_of(c, child).r, what);
	}
	closedir(d);
	return rc;
}

/* By file, then by name: a file's names side by side, each name's
 * copies (found twice: a file named by a rule and listed in its directory
 * too) next to each other. */
static int lname_cmp(const void *pa, const void *pb)
{
	const struct lname *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->pdev != b->pdev)
		return a->pdev < b->pdev ? -1 : 1;
	if (a->pino != b->pino)
		return a->pino < b->pino ? -1 : 1;
	return strcmp(a->base, b->base);
}

int srt__mount_check_links(struct srt__mount_ctx *c)
{
	const struct srt_policy *pol = c->pol;
	struct lnames l = { NULL, 0, 0, LINK_LIST_MAX, 0 };
	size_t i, j, n = c->n;
	int rc = SRT_OK;

	/* every denied path (the mandatory walk's hidden links among them) */
	for (i = 0; !rc && i < n; i++) {
		const struct srt__mount_node *nd = &c->v[i];
		const char *what = nd->origin ? nd->origin : "filesystem.denyRead";
		struct stat st;

		if (!(nd->kinds & K_DR) || srt__mount_state_of(c, nd->path).r || lstat(nd->path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int fd = open(nd->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0)
				rc = lnames_list(c, &l, fd, nd->path, 0, what);
			else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP && errno != EACCES)
				/* out of descriptors: its files' other names unchecked */
				rc = srt_diag_set(c->diag, SRT_E_IO, what,
						  "%s: cannot list \"%s\" for other names (hard links) of its "
						  "files: %s; the run stops", what, nd->path, strerror(errno));
		} else {
			rc = lnames_add(&l, nd->path, &st, 1, what);
		}
	}
	for (i = 0; !rc && i < pol->n_masked_files; i++) {
		struct stat st;

		if (pol->masked_files[i].path && lstat(pol->masked_files[i].path, &st) == 0)
			rc = lnames_add(&l, pol->masked_files[i].path, &st, 1,
					pol->masked_files[i].origin ? pol->masked_files[i].origin :
					"credentials.files");
	}
	if (!rc && l.cut)
		rc = srt__mount_note(c, "denied directories: srt listed their first %d entries, %d levels "
				     "deep, for other names (hard links) of their files; files past them, "
				     "or in a directory it could not open, are not checked",
				     LINK_LIST_MAX, LINK_DIR_DEPTH);
	/* a file with a hidden name whose names were not all found */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), lname_cmp);
	for (i = 0; !rc && i < l.n; i = j) {
		const struct lname *shown = NULL;
		nlink_t nlink = 0;
		size_t found = 0;

		for (j = i; j < l.n && l.v[j].dev == l.v[i].dev && l.v[j].ino == l.v[i].ino; j++) {
			if (j == i || lname_cmp(&l.v[j - 1], &l.v[j]) != 0)
				found++; /* each name once */
			/* the message names the denied or masked file itself
			 * rather than a link the walk found to it */
			if (l.v[j].hidden && (!shown || (!strncmp(shown->what, "mandatory deny", 14) &&
							 strncmp(l.v[j].what, "mandatory deny", 14))))
				shown = &l.v[j];
			if (l.v[j].nlink > nlink)
				nlink = l.v[j].nlink;
		}
		if (shown && found < nlink)
			rc = srt_diag_set(c->diag, SRT_E_SETTINGS, shown->what,
					  "%s: \"%s\" has %lu names (hard links) but srt found only %zu of "
					  "them (in the denied paths, and in the write roots to "
					  "mandatoryDenySearchDepth), so the command could read it through "
					  "another; remove the other links (find / -xdev -samefile '%s' lists "
					  "them) or add the directories that hold them to filesystem.denyRead",
					  shown->what, shown->path, (unsigned long)nlink, found, shown->path);
	}
	for (i = 0; i < l.n; i++)
		free(l.v[i].path);
	free(l.v);
	return rc == SRT_E_NOMEM ? srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory") : rc;
}

/* ---- other mounts of what the command must not read ----------------------
 * A bind mount shows a directory of a filesystem at a second place (the
 * host's own `mount --bind ~ /mnt/home`, a container's volume, the whole
 * btrfs mounted beside its subvolumes): the same files under another path,
 * which the covers, made by name on the denied paths, do not hide, and
 * which st_nlink does not count. /proc/self/mountinfo says which part of
 * its filesystem each mount shows (its root). For each denied path and
 * masked file, every other mount of the same filesystem whose root holds
 * it, or lies inside it, shows it (or part of it) at a second path; unless
 * that path is denied too, the run is refused, naming both paths and the
 * fix. An over-mounted second mount counts too (refused: fail closed).
 * An overlay mount shows its layers' files under its own device number,
 * so for it the layers its options name (lowerdir, upperdir) are what it
 * shows: a layer that holds a denied path, or lies inside one, is a
 * second name the same way (red team: an overlay with $HOME as its lower
 * layer read ~/.ssh). A layer named by a relative path cannot be placed,
 * so its overlay may show anything: it counts as a second path of every
 * denied path not on it, wherever the command could reach it (red team:
 * lowerdir "home", $HOME named from its parent, read ~/.ssh). */
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

struct minfo {
	long id;
	unsigned maj, min;
	char *root, *mnt;
	char **layers; /* an overlay's layer directories, NULL-terminated; else NULL */
	size_t n_lower; /* the first n_lower are lower layers, the rest its upper one */
};

static void mi_free(struct minfo *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].root);
		free(v[i].mnt);
		srt__mountinfo_layers_free(v[i].layers);
	}
	free(v);
}

/* Our mount table; SRT_OK, SRT_E_NOMEM, or SRT_E_IO (unreadable). */
static int mi_read(struct minfo **out, size_t *nout)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct minfo *v = NULL;
	size_t n = 0, alloc = 0, cap = 0;
	char *line = NULL;

	*out = NULL;
	*nout = 0;
	if (!f)
		return SRT_E_IO;
	while (getline(&line, &cap, f) > 0) {
		/* as long as the line: escaped, a path of PATH_MAX bytes
		 * takes up to four times that (a space is "\040"), and a
		 * field cut short would run into the next (red team: a bind
		 * below five directories of 250 spaces was named "0   ...") */
		char root[PATH_MAX], mnt[PATH_MAX], *fr = malloc(strlen(line) + 1),
						    *fm = malloc(strlen(line) + 1);
		struct minfo e;
		int got;

		if (!fr || !fm) {
			free(fr);
			free(fm);
			goto nomem;
		}
		got = sscanf(line, "%ld %*d %u:%u %s %s", &e.id, &e.maj, &e.min, fr, fm);
		if (got == 5) {
			srt__mountinfo_unescape(fr);
			srt__mountinfo_unescape(fm);
		}
		if (got != 5 || strlen(fr) >= sizeof(root) || strlen(fm) >= sizeof(mnt)) {
			free(fr);
			free(fm);
			continue;
		}
		memcpy(root, fr, strlen(fr) + 1);
		memcpy(mnt, fm, strlen(fm) + 1);
		free(fr);
		free(fm);
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 64;
			struct minfo *nv = realloc(v, na * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			alloc = na;
		}
		if (srt__mountinfo_overlay(line, &e.layers, &e.n_lower) < 0)
			goto nomem;
		e.root = strdup(root);
		e.mnt = strdup(mnt);
		if (!e.root || !e.mnt) {
			free(e.root);
			free(e.mnt);
			srt__mountinfo_layers_free(e.layers);
			goto nomem;
		}
		v[n++] = e;
	}
	/* a read that failed part way is no end of the table: a mount of
	 * a denied path past it would go unseen */
	if (ferror(f) || !feof(f)) {
		free(line);
		fclose(f);
		mi_free(v, n);
		return SRT_E_IO;
	}
	free(line);
	fclose(f);
	*out = v;
	*nout = n;
	return SRT_OK;
nomem:
	free(line);
	fclose(f);
	mi_free(v, n);
	return SRT_E_NOMEM;
}

/* path below "/"-prefix p (a path srt__mount_covers(p, path) holds): the
 * rest, "" or "/...". */
static const char *mi_tail(const char *p, const char *path)
{
	return strcmp(p, "/") ? path + strlen(p) : path;
}

/* The mount entry path lives on: by its mount id when the kernel gives it
 * (Linux 5.8), else the last mounted of the longest mount point holding it. */
static long mi_find(const struct minfo *v, size_t n, const char *path)
{
	struct statx sx;
	long best = -1;
	size_t i, bl = 0;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) == 0 && (sx.stx_mask & STATX_MNT_ID)) {
		for (i = n; i-- > 0;)
			if ((unsigned long long)v[i].id == (unsigned long long)sx.stx_mnt_id)
				return srt__mount_covers(v[i].mnt, path) ? (long)i : -1;
	}
	for (i = 0; i < n; i++)
		if (srt__mount_covers(v[i].mnt, path) && strlen(v[i].mnt) >= bl) {
			bl = strlen(v[i].mnt);
			best = (long)i;
		}
	return best;
}

/* Can the command read (want_w 0) or write (1) path? */
static int mi_open_to(struct srt__mount_ctx *c, const char *path, int want_w)
{
	struct srt__mount_state st = srt__mount_state_of(c, path);

	return want_w ? st.w : st.r;
}

/* Can the command read (want_w 0) or write (1) path or a path below it
 * (a root of the policy inside it)? */
static int mi_open_below(struct srt__mount_ctx *c, const char *path, int want_w)
{
	if (mi_open_to(c, path, want_w))
		return 1;
	for (size_t i = 0; i < c->n; i++)
		if ((c->v[i].kinds & (want_w ? K_AW : K_AR | K_AW)) && srt__mount_covers(path, c->v[i].path) &&
		    mi_open_to(c, c->v[i].path, want_w))
			return 1;
	return 0;
}

/* $HOME shown whole at a path the command may write, where the startup
 * files and the protected names at its top are not covered: the scan of
 * the write roots finds them only down to mandatoryDenySearchDepth, and
 * `~/...` names such as ~/.config/systemd/user/ not at all there (red
 * team: a bind mount of $HOME four levels down a write root let the
 * command append to ~/.bashrc and add a systemd user unit). */
static int mi_home_refused(struct srt__mount_ctx *c, const char *what, const char *home,
			   const char *alias, long id)
{
	if (strcmp(what, "HOME"))
		return srt_diag_set(c->diag, SRT_E_SETTINGS, "filesystem.allowWrite",
				    "filesystem.allowWrite: the protected name %s \"%s\" is also at \"%s\" "
				    "(another mount, id %ld), where the command may write it; unmount it, "
				    "or add \"%s\" to filesystem.denyWrite",
				    what, home, alias, id, alias);
	return srt_diag_set(c->diag, SRT_E_SETTINGS, "filesystem.allowWrite",
			    "filesystem.allowWrite: $HOME \"%s\" is also at \"%s\" (another mount, id %ld), "
			    "where the command may write, so it could change the startup files and "
			    "protected names of $HOME there; unmount it or add \"%s\" to filesystem.denyWrite",
			    home, alias, id, alias);
}

/* 0 when no overlay mount shows path (what) at a readable path through
 * one of its layers, else the plan's failure. With want_w: at a writable
 * path through its upper layer, and with inside also through an upper
 * layer that lies inside path (a protected directory is protected whole;
 * $HOME is not). */
static int mi_check_overlays(struct srt__mount_ctx *c, const struct minfo *v, size_t n,
			     const char *path, const char *what, int want_w, int inside)
{
	char alias[PATH_MAX * 3];

	for (size_t i = 0; i < n; i++) {
		/* writes go to the upper layer only */
		for (size_t j = want_w ? v[i].n_lower : 0; v[i].layers && v[i].layers[j]; j++) {
			const char *l = v[i].layers[j];

			if (l[0] != '/') {
				/* a layer srt cannot place may be path or hold it:
				 * unless path is on the overlay itself (a
				 * container's root), the overlay is a second path
				 * wherever the command can reach it, at its own
				 * path or below (red team: a write root inside one
				 * with $HOME as its upper layer "home") */
				if (srt__mount_covers(v[i].mnt, path) || access(v[i].mnt, X_OK) != 0 ||
				    !mi_open_below(c, v[i].mnt, want_w))
					continue;
				return srt_diag_set(c->diag, SRT_E_SETTINGS, want_w ? "filesystem.allowWrite" : what,
						    "%s: \"%s\" may also be at \"%s\" (an overlay mount, id %ld, whose "
						    "layer \"%s\" is named by a relative path that srt cannot place), "
						    "where the command may %s it; add \"%s\" to filesystem.%s or unmount it",
						    want_w ? "filesystem.allowWrite" : what, path, v[i].mnt, v[i].id, l,
						    want_w ? "write" : "read", v[i].mnt, want_w ? "denyWrite" : "denyRead");
			}
			if (srt__mount_covers(l, path)) {
				/* the layer holds path: the overlay shows it */
				const char *t = mi_tail(l, path);

				if ((size_t)snprintf(alias, sizeof(alias), "%s%s",
						     strcmp(v[i].mnt, "/") || !*t ? v[i].mnt : "",
						     t) >= sizeof(alias))
					continue;
			} else if ((!want_w || inside) && srt__mount_covers(path, l)) {
				/* the layer lies inside path */
				snprintf(alias, sizeof(alias), "%s", v[i].mnt);
			} else {
				continue;
			}
			if (!strcmp(alias, path) || !mi_open_to(c, alias, want_w))
				continue;
			if (want_w)
				return mi_home_refused(c, what, path, alias, v[i].id);
			return srt_diag_set(c->diag, SRT_E_SETTINGS, what,
					    "%s: \"%s\" is also at \"%s\" (an overlay mount, id %ld, with "
					    "\"%s\" as a layer), so the command could read it there; add "
					    "\"%s\" to filesystem.denyRead or unmount it",
					    what, path, alias, v[i].id, v[i].layers[j], alias);
		}
	}
	return SRT_OK;
}

/* 0 when path (what) is shown by no other mount at a readable path (with
 * want_w: shown whole at a writable path, and with inside, a directory
 * inside it too), else the plan's failure. */
static int mi_check_one(struct srt__mount_ctx *c, const struct minfo *v, size_t n, const char *path,
			const char *what, int want_w, int inside)
{
	char rel[PATH_MAX * 2], alias[PATH_MAX * 3];
	const struct minfo *l;
	long k = mi_find(v, n, path);
	size_t i;

	if (k < 0)
		return mi_check_overlays(c, v, n, path, what, want_w, inside);
	l = &v[k];
	/* where path is in its filesystem */
	if (srt__pathcat(rel, sizeof(rel), l->root, strcmp(l->root, "/") ? strlen(l->root) : 0,
			 mi_tail(l->mnt, path), NULL, NULL, NULL) >= sizeof(rel))
		return mi_check_overlays(c, v, n, path, what, want_w, inside);
	if (!rel[0])
		memcpy(rel, "/", 2);
	for (i = 0; i < n; i++) {
		const struct minfo *o = &v[i];

		if ((long)i == k || o->maj != l->maj || o->min != l->min)
			continue;
		if (srt__mount_covers(o->root, rel)) {
			/* the other mount shows path itself */
			const char *t = mi_tail(o->root, rel);

			if (srt__pathcat(alias, sizeof(alias), o->mnt, strcmp(o->mnt, "/") || !*t ? strlen(o->mnt) : 0,
					 t, NULL, NULL, NULL) >= sizeof(alias))
				continue;
		} else if ((!want_w || inside) && srt__mount_covers(rel, o->root)) {
			/* it shows a directory inside path */
			snprintf(alias, sizeof(alias), "%s", o->mnt);
		} else {
			continue;
		}
		if (!strcmp(alias, path) || !mi_open_to(c, alias, want_w))
			continue;
		if (want_w)
			return mi_home_refused(c, what, path, alias, o->id);
		return srt_diag_set(c->diag, SRT_E_SETTINGS, what,
				    "%s: \"%s\" is also at \"%s\" (another mount of its filesystem, "
				    "mount id %ld), so the command could read it there; add \"%s\" to "
				    "filesystem.denyRead or unmount it",
				    what, path, alias, o->id, alias);
	}
	return mi_check_overlays(c, v, n, path, what, want_w, inside);
}

int srt__mount_check_mounts(struct srt__mount_ctx *c)
{
	const struct srt_policy *pol = c->pol;
	struct minfo *v;
	size_t n, i, j;
	int rc, shared = 0;

	rc = mi_read(&v, &n);
	if (rc == SRT_E_NOMEM)
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	if (rc)
		return srt_diag_set(c->diag, SRT_E_IO, "filesystem.denyRead",
				    "filesystem.denyRead: cannot read /proc/self/mountinfo to find other "
				    "mounts of the denied paths (is /proc mounted?)");
	/* nothing to look for when every filesystem is mounted once, and no
	 * overlay shows another's files */
	for (i = 0; i < n && !shared; i++) {
		shared = v[i].layers != NULL; /* an overlay shows its layers' files */
		for (j = i + 1; j < n && !shared; j++)
			shared = v[i].maj == v[j].maj && v[i].min == v[j].min;
	}
	for (i = 0; shared && !rc && i < c->n; i++) {
		const struct srt__mount_node *nd = &c->v[i];

		if ((nd->kinds & K_DR) && !srt__mount_state_of(c, nd->path).r)
			rc = mi_check_one(c, v, n, nd->path, nd->origin ? nd->origin : "filesystem.denyRead", 0, 1);
	}
	for (i = 0; shared && !rc && i < pol->n_masked_files; i++) {
		char real[PATH_MAX];

		if (pol->masked_files[i].path && realpath(pol->masked_files[i].path, real))
			rc = mi_check_one(c, v, n, real,
					  pol->masked_files[i].origin ? pol->masked_files[i].origin :
					  "credentials.files", 0, 1);
	}
	/* $HOME itself, when it is not a write root: shown whole elsewhere
	 * at a writable path */
	if (shared && !rc && pol->home && !srt__mount_state_of(c, pol->home).w) {
		char real[PATH_MAX];

		if (realpath(pol->home, real))
			rc = mi_check_one(c, v, n, real, "HOME", 1, 0);
	}
	/* the protected names of $HOME (the ~/... ones, and the others as
	 * they lie in $HOME: ~/.bashrc, ~/.claude/settings.json), held by
	 * name at their own path: a mount of one, of a directory inside
	 * $HOME that holds one (a bind of ~/.config or ~/.ssh in a write
	 * root) shows it writable at a second path (red team: a bind of
	 * ~/.config added a systemd user unit; a bind of the file ~/.bashrc,
	 * under another name, let the command append to it). Each is
	 * taken where it is (red team: with ~/.config a link into a
	 * dotfiles directory, a bind of that directory was not matched), and
	 * a mount of a directory inside one counts too (red team: a bind of
	 * ~/.config/systemd/user/app.service.d added a drop-in). */
	if (shared && !rc && pol->home) {
		char where[PATH_MAX];

		/* each name where it is, links followed: the walks of the
		 * same plan resolved them already */
		for (i = 0; !rc && i < srt__protected_count; i++) {
			const struct srt__protected *p = &srt__protected_names[i];
			int got;

			if (p->kind == SRT__PROT_GIT ||
			    srt__protected_released(p, (const char *const *)pol->protected_released))
				continue;
			got = srt__mandatory_home_where(pol->home, i, where, sizeof(where));
			if (got == -2)
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			else if (got == 0)
				rc = mi_check_one(c, v, n, where, p->name, 1, 1);
		}
	}
	mi_free(v, n);
	return rc;
}
