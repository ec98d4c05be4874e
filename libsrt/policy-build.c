/* Settings -> policy: the filesystem rules (paths spelled as paths.c says,
 * globs, the default write paths, the settings files write-denied) and the
 * flags backends need.
 *
 * Every rule keeps the settings key it came from as its origin, so an error
 * or an --explain line can name it. Write rules with glob characters are
 * refused rather than dropped: Linux mounts can only protect names that
 * exist, and a rule that is shown but not enforced is worse than an error:
 * the user would believe the files protected. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/platform.h"
#include "common/rmtree.h"
#include "caches.h"
#include "paths.h"
#include "policy-build.h"

#define SRT_MAX_RULES 100000

static int rules_push(struct srt_rules *r, char *path, unsigned flags,
		      const char *origin, struct srt_diag *diag)
{
	struct srt_rule *v;
	char *o;

	if (r->n >= SRT_MAX_RULES) {
		free(path);
		return srt_diag_set(diag, SRT_E_LIMIT, origin, "%s: too many filesystem rules", origin);
	}
	o = strdup(origin);
	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!o || !v) {
		free(o);
		free(path);
		if (v)
			r->v = v;
		return srt_diag_set(diag, SRT_E_NOMEM, origin, "out of memory");
	}
	r->v = v;
	v[r->n].path = path;
	v[r->n].flags = flags;
	v[r->n].origin = o;
	r->n++;
	return SRT_OK;
}

/* A write deny srt adds for itself (origin says why), on PATH as the
 * settings would name it. */
static int deny_write_default(struct srt_policy *pol, const char *path, const char *origin,
			      struct srt_diag *diag)
{
	char *p;
	int rc = srt__path_normalize(path, pol->cwd, pol->home, &p, diag);

	return rc ? rc : rules_push(&pol->deny_write, p, SRT_RULE_DEFAULT, origin, diag);
}

static void rules_release(struct srt_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].path);
		free(r->v[i].origin);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* A trailing globstar component names the directory itself: "a" +
 * "/" + "**" is "a"; alone it is the root. */
static void strip_globstar_suffix(char *p)
{
	size_t n = strlen(p);

	if (n >= 3 && strcmp(p + n - 3, "/**") == 0) {
		p[n - 3] = '\0';
		if (p[0] == '\0') {
			p[0] = '/';
			p[1] = '\0';
		}
	}
}

/* A glob keeps its pattern part as written; only the directories before the
 * first component holding a glob character are expanded and resolved. */
static int normalize_glob(const char *spelling, const char *cwd, const char *home,
			  char **out, struct srt_diag *diag)
{
	char *lex = NULL, *prefix = NULL, *res = NULL, *cut;
	const char *g;
	size_t n;
	int rc;

	rc = srt__path_lexical(spelling, cwd, home, &lex, diag);
	if (rc)
		return rc;
	g = strpbrk(lex, "*?[]");
	/* the separator before the glob component ends the static prefix */
	for (cut = lex + (g - lex); cut > lex && *cut != '/'; cut--)
		;
	prefix = strndup(lex, (size_t)(cut - lex));
	if (!prefix) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, spelling, "out of memory");
		goto out;
	}
	if (prefix[0] == '\0') {
		free(prefix);
		prefix = strdup("/");
		if (!prefix) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, spelling, "out of memory");
			goto out;
		}
	}
	rc = srt__path_normalize(prefix, "/", home, &res, diag);
	if (rc)
		goto out;
	n = strlen(res) + strlen(cut) + 2;
	*out = malloc(n);
	if (!*out) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, spelling, "out of memory");
		goto out;
	}
	snprintf(*out, n, "%s%s", strcmp(res, "/") == 0 ? "" : res, cut);
out:
	free(lex);
	free(prefix);
	free(res);
	return rc;
}

/* Does a failed lookup of a name say that nothing is there? Only these
 * errors do; any other (out of descriptors or memory, an I/O error) says
 * nothing of what the rules must cover. */
static int name_absent(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG;
}

static int add_entries(struct srt_rules *dst, const struct srt__path_entries *src,
		       const char *key, int write_rule, int grant, const char *cwd,
		       const char *home, struct srt_diag *diag)
{
	char origin[128];
	size_t i;
	int rc = SRT_OK;

	for (i = 0; i < src->n; i++) {
		const char *spelling = src->v[i].path;
		char *copy = NULL, *path = NULL;
		struct stat st;
		int lstat_err;

		snprintf(origin, sizeof(origin), "%s[%zu]", key, i);
		if (!spelling || !*spelling)
			return srt_diag_set(diag, SRT_E_SETTINGS, origin,
					    "%s: path cannot be empty", origin);
		if (src->v[i].literal) {
			rc = srt__path_normalize(spelling, cwd, home, &path, diag);
			if (rc)
				goto fail;
			rc = rules_push(dst, path, SRT_RULE_LITERAL, origin, diag);
			if (rc)
				return rc;
			continue;
		}
		copy = strdup(spelling);
		if (!copy)
			return srt_diag_set(diag, SRT_E_NOMEM, origin, "out of memory");
		strip_globstar_suffix(copy);
		if (!srt__path_is_glob(copy)) {
			rc = srt__path_normalize(copy, cwd, home, &path, diag);
			free(copy);
			if (rc)
				goto fail;
			rc = rules_push(dst, path, 0, origin, diag);
			if (rc)
				return rc;
			continue;
		}
		/* A spelling with glob characters that also names an existing
		 * path is applied as that path too: the user may have meant
		 * either reading, and the pattern alone would miss the name. */
		rc = srt__path_lexical(copy, cwd, home, &path, diag);
		if (rc) {
			free(copy);
			goto fail;
		}
		lstat_err = lstat(path, &st) == 0 ? 0 : errno;
		if (lstat_err && !name_absent(lstat_err) && lstat_err != EACCES && lstat_err != EPERM) {
			rc = srt_diag_set(diag, SRT_E_IO, origin,
					  "%s: cannot tell whether \"%s\" exists, to apply it as that path too: %s",
					  origin, path, strerror(lstat_err));
			free(path);
			free(copy);
			return rc;
		}
		/* a name srt may not look at (a directory of the user's
		 * without search permission, which a command that can write
		 * there can chmod) may be there all the same: a read denial
		 * takes it as that path too; a grant or a write rule only
		 * what srt saw */
		if (!lstat_err || (!write_rule && !grant && !name_absent(lstat_err))) {
			rc = rules_push(dst, path, SRT_RULE_LITERAL, origin, diag);
			path = NULL;
			if (rc) {
				free(copy);
				return rc;
			}
		} else {
			free(path);
			path = NULL;
			if (write_rule) {
				rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
						  "%s: \"%s\": glob patterns in write rules cannot be "
						  "enforced on Linux; list the paths (or a directory that "
						  "holds them) instead, or use {\"path\": ..., \"literal\": true} "
						  "for a name with these characters",
						  origin, spelling);
				free(copy);
				return rc;
			}
		}
		if (write_rule) {
			free(copy);
			continue;
		}
		rc = normalize_glob(copy, cwd, home, &path, diag);
		free(copy);
		if (rc)
			goto fail;
		rc = rules_push(dst, path, SRT_RULE_GLOB, origin, diag);
		if (rc)
			return rc;
	}
	return SRT_OK;
fail:
	/* re-key the message with the settings entry it came from */
	{
		char msg[sizeof(diag->message)];

		if (diag) {
			snprintf(msg, sizeof(msg), "%s", diag->message);
			srt_diag_set(diag, rc == SRT_E_NOMEM ? rc : SRT_E_SETTINGS, origin,
				     "%s: %s", origin, msg);
		}
	}
	return rc == SRT_E_NOMEM ? rc : SRT_E_SETTINGS;
}

/* is a an ancestor of (or equal to) b? Both normalised. */
static int path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

/* A default write path under a denyRead entry is dropped unless an
 * allowRead entry at or below that deny re-opens it. */
static int default_path_hidden(const struct srt_policy *pol, const char *p)
{
	const char *deny = NULL;
	size_t i;

	for (i = 0; i < pol->deny_read.n; i++) {
		const struct srt_rule *r = &pol->deny_read.v[i];

		if (r->flags & SRT_RULE_GLOB)
			continue;
		if (path_covers(r->path, p) && (!deny || strlen(r->path) > strlen(deny)))
			deny = r->path;
	}
	if (!deny)
		return 0;
	for (i = 0; i < pol->allow_read.n; i++) {
		const struct srt_rule *r = &pol->allow_read.v[i];

		if (!(r->flags & SRT_RULE_GLOB) && path_covers(deny, r->path) &&
		    path_covers(r->path, p))
			return 0;
	}
	return 1;
}

/* Make sure dir exists as a directory owned by us and not a link. Returns
 * SRT_E_STATE (without diag) when it exists but belongs to someone else, so
 * the caller may try another name. */
static int ensure_private_dir(const char *dir, struct srt_diag *diag)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return srt_diag_set(diag, SRT_E_IO, dir,
				    "cannot create the temporary directory \"%s\": %s", dir,
				    strerror(errno));
	if (lstat(dir, &st) != 0)
		return srt_diag_set(diag, SRT_E_IO, dir, "cannot inspect \"%s\": %s", dir,
				    strerror(errno));
	if (S_ISLNK(st.st_mode))
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, dir,
				    "the temporary directory \"%s\" is a symbolic link; "
				    "remove it or set CLAUDE_CODE_TMPDIR", dir);
	if (!S_ISDIR(st.st_mode))
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, dir,
				    "the temporary directory \"%s\" is not a directory; "
				    "remove it or set CLAUDE_CODE_TMPDIR", dir);
	if (st.st_uid != geteuid())
		return SRT_E_STATE;
	if (access(dir, W_OK | X_OK) != 0)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, dir,
				    "the temporary directory \"%s\" is not writable: %s", dir,
				    strerror(errno));
	return SRT_OK;
}

/* The per-run temporary directories this process made (run_tmpdir()),
 * removed when their policy is released. A policy is a plain struct of
 * the public ABI with no room for a flag, so the list is kept here. */
struct run_tmp {
	const struct srt_policy *owner; /* a policy built from another's
					 * TMPDIR (customConfig) shares the
					 * path, not the directory's end */
	char *path;
	dev_t dev;
	ino_t ino;
	int fd; /* held (common/rmtree.h) until the directory goes */
	pid_t pid; /* the process that made it: a copy made by fork leaves
		    * it to that process, which still runs commands in it */
	struct run_tmp *next;
};
static pthread_mutex_t run_tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct run_tmp *run_tmps;
static int run_tmp_fork_ready; /* under run_tmp_lock */

/* A fork takes the list's lock first and releases it on both sides, so
 * that a child forked while another thread edits the list gets a whole
 * list and a free lock (its runs make their directories here too); the
 * violation store does the same, violations.c says why. */
static void run_tmp_fork_prepare(void)
{
	pthread_mutex_lock(&run_tmp_lock);
}

static void run_tmp_fork_done(void)
{
	pthread_mutex_unlock(&run_tmp_lock);
}

/* The default TMPDIR: a fresh directory below the shared base
 * (/tmp/claude), made for this run and removed at its end. The base itself
 * is no write root, so what an earlier run (or one srt killed before its
 * end) left there is never walked by the mandatory deny scan nor the git
 * check, cannot stop this run, and nothing of one run is found by the
 * next or by a program on the host after it. */
static int run_tmpdir(struct srt_policy *pol, const char *base, int plan_only,
		      struct srt_diag *diag)
{
	struct run_tmp *t;
	struct stat st;
	char *path;

	if (asprintf(&path, "%s/srt-run.XXXXXX", base) < 0)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	if (plan_only) {
		/* a plan only printed names the directory each run makes;
		 * making and removing one costs a run more than its plan
		 * (the removal frees a block, a synchronous discard on a
		 * disk mounted with it) */
		pol->tmpdir = path;
		return SRT_OK;
	}
	if (!srt__rundir_make(path)) {
		int e = errno;

		free(path);
		return srt_diag_set(diag, SRT_E_IO, base,
				    "cannot create this run's temporary directory in \"%s\": %s; set CLAUDE_CODE_TMPDIR",
				    base, strerror(e));
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(pol->tmpdir = strdup(path))) {
		rmdir(path);
		free(path);
		free(t);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	}
	/* made marked (common/rmtree.h) and held now, so that no other
	 * start's sweep takes it for a killed run's once the grace is over.
	 * Where it cannot be opened so (Windows has no directory
	 * descriptors) or locked (a file system without locks), it is
	 * unmarked: unheld and never swept. */
	t->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd >= 0 && fstat(t->fd, &st) != 0) {
		close(t->fd);
		t->fd = -1;
	}
	if (t->fd < 0 && lstat(path, &st) != 0) {
		int e = errno;

		rmdir(path);
		free(pol->tmpdir);
		pol->tmpdir = NULL;
		free(path);
		free(t);
		return srt_diag_set(diag, SRT_E_IO, base,
				    "cannot look at this run's temporary directory in \"%s\" (removed at once?): %s",
				    base, strerror(e));
	}
	if (t->fd >= 0)
		(void)srt__rundir_hold(t->fd);
	else
		(void)chmod(path, 0700);
	t->owner = pol;
	t->path = path;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->pid = getpid();
	pthread_mutex_lock(&run_tmp_lock);
	/* registered before the first entry exists: no fork runs them yet */
	if (!run_tmp_fork_ready &&
	    srt__os_atfork(run_tmp_fork_prepare, run_tmp_fork_done, run_tmp_fork_done) != 0) {
		pthread_mutex_unlock(&run_tmp_lock);
		if (t->fd >= 0)
			close(t->fd);
		rmdir(path);
		free(pol->tmpdir);
		pol->tmpdir = NULL;
		free(path);
		free(t);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	}
	run_tmp_fork_ready = 1;
	t->next = run_tmps;
	run_tmps = t;
	pthread_mutex_unlock(&run_tmp_lock);
	return SRT_OK;
}

/* Remove this run's temporary directory, when pol's is one run_tmpdir()
 * made for pol in this process and still the same directory. */
static void run_tmpdir_remove(const struct srt_policy *pol)
{
	struct run_tmp **pp, *t = NULL;

	pthread_mutex_lock(&run_tmp_lock);
	for (pp = &run_tmps; *pp; pp = &(*pp)->next)
		if ((*pp)->owner == pol && !strcmp((*pp)->path, pol->tmpdir)) {
			t = *pp;
			*pp = t->next;
			break;
		}
	pthread_mutex_unlock(&run_tmp_lock);
	if (!t)
		return;
	if (t->pid == getpid())
		srt__rm_tree_same(t->path, t->dev, t->ino);
	if (t->fd >= 0)
		close(t->fd); /* a fork's copy: the maker's lock stays */
	free(t->path);
	free(t);
}

/* A run directory's name: what run_tmpdir() gives srt__rundir_make. */
static int run_dir_name(const char *name)
{
	return !strncmp(name, "srt-run.", 8) && strlen(name) == 8 + 6;
}

/* A killed run's directory: what the command left there too (held by the
 * sweep meanwhile, common/rmtree.h). */
static int remove_run_dir(int basefd, const char *name, int dfd, struct srt__rm_budget *b)
{
	int rc = srt__rm_below_budget(dfd, b);

	if (rc != 1)
		return rc;
	return unlinkat(basefd, name, AT_REMOVEDIR) == 0 ? 1 : -1;
}

void srt__policy_sweep_run_dirs(const struct srt_policy *pol)
{
	char base[PATH_MAX];
	char *slash;

	if (!srt__policy_own_tmpdir(pol) || snprintf(base, sizeof(base), "%s", pol->tmpdir) >= (int)sizeof(base) ||
	    !(slash = strrchr(base, '/')) || slash == base)
		return;
	*slash = '\0';
	/* the mark alone: the command may chmod its own TMPDIR's other bits
	 * (and with the mark's own, it only keeps that directory unswept) */
	srt__rundir_sweep(base, run_dir_name, S_ISVTX, S_ISVTX, remove_run_dir);
}

int srt__policy_own_tmpdir(const struct srt_policy *pol)
{
	const struct run_tmp *t;
	int own = 0;

	pthread_mutex_lock(&run_tmp_lock);
	for (t = run_tmps; pol->tmpdir && t && !own; t = t->next)
		own = t->owner == pol && t->pid == getpid() && !strcmp(t->path, pol->tmpdir);
	pthread_mutex_unlock(&run_tmp_lock);
	return own;
}

static int prepare_tmpdir(struct srt_policy *pol, const struct srt__policy_env *env,
			  struct srt_diag *diag)
{
	const char *want = env ? env->tmpdir : NULL;
	char fallback[64], *path = NULL;
	int rc;

	if (!want || !*want)
		want = getenv("CLAUDE_CODE_TMPDIR");
	if (!want || !*want)
		want = getenv("CLAUDE_TMPDIR");
	if (want && *want) {
		if (want[0] != '/')
			return srt_diag_set(diag, SRT_E_SETTINGS, want,
					    "the temporary directory \"%s\" must be an absolute path",
					    want);
		rc = srt__path_lexical(want, "/", NULL, &path, diag);
		if (rc)
			return rc;
		/* never mkdir through a link a sandboxed command could have
		 * planted (it would make the directory wherever that leads) */
		if (srt__path_via_writable_link(path)) {
			rc = srt_diag_set(diag, SRT_E_UNAVAILABLE, path,
					  "the temporary directory \"%s\" goes through a symbolic link in a directory "
					  "that can be written (a sandboxed command could have planted it); "
					  "set CLAUDE_CODE_TMPDIR to the real path", path);
			free(path);
			return rc;
		}
		rc = ensure_private_dir(path, diag);
		if (rc == SRT_E_STATE)
			rc = srt_diag_set(diag, SRT_E_UNAVAILABLE, path,
					  "the temporary directory \"%s\" belongs to another user; "
					  "choose another CLAUDE_CODE_TMPDIR", path);
		if (rc) {
			free(path);
			return rc;
		}
		pol->tmpdir = path;
		return SRT_OK;
	}
	/* The reference's shared default, as the base of this run's own
	 * directory. When another user already owns it (a multi-user host),
	 * use a per-uid name instead of failing. */
	rc = ensure_private_dir("/tmp/claude", diag);
	if (rc == SRT_E_STATE) {
		int n;

		/* Inside a user namespace geteuid() is the mapped id (often 0), so
		 * two real users can meet on one name: try a few more. */
		snprintf(fallback, sizeof(fallback), "/tmp/claude-%lu", (unsigned long)geteuid());
		rc = ensure_private_dir(fallback, diag);
		for (n = 1; rc == SRT_E_STATE && n < 10; n++) {
			snprintf(fallback, sizeof(fallback), "/tmp/claude-%lu-%d",
				 (unsigned long)geteuid(), n);
			rc = ensure_private_dir(fallback, diag);
		}
		if (rc == SRT_E_STATE)
			rc = srt_diag_set(diag, SRT_E_UNAVAILABLE, fallback,
					  "the temporary directory \"%s\" belongs to another user; "
					  "set CLAUDE_CODE_TMPDIR", fallback);
		if (rc)
			return rc;
		return run_tmpdir(pol, fallback, env && env->plan_only, diag);
	}
	if (rc)
		return rc;
	return run_tmpdir(pol, "/tmp/claude", env && env->plan_only, diag);
}

/* A settings file named through a symbolic link (or a chain of them):
 * the link names are write-denied too, or the command could re-point one
 * and the next run would read a file of its choosing. Each link is named
 * where it really is (its directory resolved), and a relative target is
 * read from there; the backends protect each link's target and put a
 * replaced link back after the run. A link to a directory along the path
 * is not covered (denying its target would freeze what it names). */
static int deny_settings_links(struct srt_policy *pol, const char *named, struct srt_diag *diag)
{
	char *cur = NULL;
	int hops, rc;

	rc = srt__path_lexical(named, pol->cwd, pol->home, &cur, diag);
	for (hops = 0; !rc && hops < 40; hops++) {
		char target[PATH_MAX], dir[PATH_MAX], *real_dir, *link = NULL, *next = NULL;
		const char *base;
		struct stat st;
		ssize_t n;

		if (lstat(cur, &st) != 0) {
			if (!name_absent(errno))
				rc = srt_diag_set(diag, SRT_E_IO, "settings",
						  "cannot tell whether \"%s\", a name of the loaded settings file, is a link to protect: %s",
						  cur, strerror(errno));
			break;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0 && !name_absent(errno)) {
			rc = srt_diag_set(diag, SRT_E_IO, "settings",
					  "cannot read the link \"%s\", a name of the loaded settings file: %s",
					  cur, strerror(errno));
			break;
		}
		if (n <= 0 || (size_t)n >= sizeof(target) - 1)
			break;
		target[n] = '\0';
		base = strrchr(cur, '/');
		snprintf(dir, sizeof(dir), "%.*s", base == cur ? 1 : (int)(base - cur), cur);
		base++;
		real_dir = realpath(dir, NULL);
		if (!real_dir)
			break;
		if (asprintf(&link, "%s%s%s", real_dir, strcmp(real_dir, "/") ? "/" : "", base) < 0) {
			link = NULL;
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		}
		if (!rc)
			rc = srt__path_lexical(target, real_dir, pol->home, &next, diag);
		free(real_dir);
		if (!rc) {
			rc = rules_push(&pol->deny_write, link, SRT_RULE_DEFAULT,
					"loaded settings file (the link naming it)", diag);
			link = NULL;
		}
		free(link);
		free(cur);
		cur = next;
	}
	free(cur);
	return rc;
}

/* filesystem.allowCaches: each named cache's directories become write
 * roots, as if listed in allowWrite, once caches.c has checked that each
 * lies inside HOME and is reached through no link (and created what is
 * missing of it). The protections inside write roots (denyWrite, the
 * mandatory denies, denyRead) apply to them as to any other; a cache
 * under a denyRead entry stays hidden, as the default write paths do. */
static int add_caches(struct srt_policy *pol, const struct srt__settings *s,
		      struct srt_diag *diag)
{
	char origin[96];
	size_t i, j;
	int rc = SRT_OK;

	for (i = 0; i < s->allow_caches.n && !rc; i++) {
		const char *name = s->allow_caches.v[i];
		struct srt__cache_dir d[SRT_CACHE_MAX_DIRS];
		size_t n = 0;

		snprintf(origin, sizeof(origin), "filesystem.allowCaches[%zu]", i);
		for (j = 0; j < i; j++)
			if (strcmp(s->allow_caches.v[j], name) == 0)
				break;
		if (j < i)
			continue; /* named twice */
		rc = srt__cache_dirs(name, pol->home, d, &n, diag);
		if (rc) {
			char msg[sizeof(diag->message)];

			snprintf(msg, sizeof(msg), "%s", diag ? diag->message : "");
			return srt_diag_set(diag, SRT_E_SETTINGS, origin, "%s: \"%s\": %s", origin,
					    name, msg);
		}
		for (j = 0; j < n && !rc; j++) {
			char *path = NULL, label[128];

			/* hidden as named: checked all the same, but not created */
			int hidden = default_path_hidden(pol, d[j].path);

			rc = srt__cache_open(name, &d[j], pol->home, origin, !hidden, &path, diag);
			if (rc)
				break;
			if (hidden || default_path_hidden(pol, path)) {
				free(path);
				continue;
			}
			snprintf(label, sizeof(label), "%s (%s's cache)", origin, name);
			rc = rules_push(&pol->allow_write, path, 0, label, diag);
		}
		srt__cache_dirs_release(d, n);
	}
	return rc;
}

static int add_default(struct srt_policy *pol, const char *path, const char *origin,
		       int must_exist, struct srt_diag *diag)
{
	struct stat st;
	char *p;

	if (must_exist && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
		return SRT_OK;
	if (default_path_hidden(pol, path))
		return SRT_OK;
	p = strdup(path);
	if (!p)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	return rules_push(&pol->allow_write, p, SRT_RULE_DEFAULT, origin, diag);
}

/* $HOME with its part up to the last ".." component resolved (into out);
 * 0 when it has no ".." or that part does not resolve. */
static int home_dotdot(const char *home, char *out, size_t cap)
{
	const char *p = home, *last = NULL;
	char prefix[PATH_MAX], real[PATH_MAX];
	size_t n;

	while (*p) {
		const char *e = p + strcspn(p, "/");

		if (e - p == 2 && p[0] == '.' && p[1] == '.')
			last = e;
		p = *e ? e + 1 : e;
	}
	n = last ? (size_t)(last - home) : 0;
	if (!last || n >= sizeof(prefix))
		return 0;
	memcpy(prefix, home, n);
	prefix[n] = '\0';
	if (!realpath(prefix, real) || (size_t)snprintf(out, cap, "%s%s", real, last) >= cap)
		return 0;
	return 1;
}

int srt__policy_build(struct srt_policy *pol, const struct srt__settings *s,
		      const struct srt__policy_env *env, struct srt_diag *diag)
{
	const char *home;
	char buf[4096], *p = NULL;
	size_t i;
	int rc;

	memset(pol, 0, sizeof(*pol));
	pol->debug = env ? env->debug : 0;
	if (env && env->cwd) {
		pol->cwd = realpath(env->cwd, NULL);
	} else if (getcwd(buf, sizeof(buf))) {
		pol->cwd = realpath(buf, NULL);
	}
	if (!pol->cwd) {
		rc = srt_diag_set(diag, SRT_E_IO, "", "cannot resolve the working directory: %s",
				  strerror(errno));
		goto out;
	}
	home = env && env->home ? env->home : getenv("HOME");
	if (home && home[0] == '/') {
		char phys[PATH_MAX];

		/* a ".." after a link goes up from the link's target, as the
		 * kernel (and every shell reading "$HOME/.bashrc") takes it,
		 * not back where the link is: the part up to the last ".." is
		 * resolved, what follows kept as spelled (a link there is
		 * $HOME's own) (red team: $HOME "/w/lnk/../home" with lnk a
		 * link into a write root had its names held at "/w/home") */
		if (home_dotdot(home, phys, sizeof(phys)))
			home = phys;
		rc = srt__path_lexical(home, "/", NULL, &pol->home, diag);
		if (rc)
			goto out;
	}

	pol->allow_git_config = s->allow_git_config;
	if (s->allow_protected_names.n) {
		pol->protected_released = calloc(s->allow_protected_names.n + 1, sizeof(char *));
		for (i = 0; pol->protected_released && i < s->allow_protected_names.n; i++)
			if (!(pol->protected_released[i] = strdup(s->allow_protected_names.v[i])))
				break;
		if (!pol->protected_released || i < s->allow_protected_names.n) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
	}
	pol->mandatory_deny_depth = s->mandatory_deny_search_depth;
	if (pol->mandatory_deny_depth < 1 || pol->mandatory_deny_depth > 10)
		pol->mandatory_deny_depth = 3;
	pol->weaker_nested_sandbox = s->enable_weaker_nested_sandbox;
	/* enableWeakerNestedSandbox already gives up what the watcher needs
	 * (the helper may not mount inside the sandbox): it accepts the weaker
	 * protection of names too, which the backend says on one line, so a
	 * settings file written for that mode keeps running */
	pol->weaker_name_protection = s->enable_weaker_name_protection ||
				      s->enable_weaker_nested_sandbox;
	pol->allow_nested_userns = s->allow_nested_user_namespaces;
	pol->allow_all_unix_sockets = s->allow_all_unix_sockets;
	pol->allow_local_binding = s->allow_local_binding;
	pol->allow_pty = s->allow_pty;
	pol->allow_apple_events = s->allow_apple_events;
	pol->enable_weaker_network_isolation = s->enable_weaker_network_isolation;
	if (s->allow_mach_lookup.n) {
		pol->allow_mach_lookup = calloc(s->allow_mach_lookup.n + 1, sizeof(char *));
		for (i = 0; pol->allow_mach_lookup && i < s->allow_mach_lookup.n; i++)
			if (!(pol->allow_mach_lookup[i] = strdup(s->allow_mach_lookup.v[i])))
				break;
		if (!pol->allow_mach_lookup || i < s->allow_mach_lookup.n) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
	}
	for (i = 0; i < s->allow_unix_sockets.n; i++) {
		char origin[64];

		snprintf(origin, sizeof(origin), "network.allowUnixSockets[%zu]", i);
		rc = srt__path_normalize(s->allow_unix_sockets.v[i], pol->cwd, pol->home, &p, diag);
		if (!rc)
			rc = rules_push(&pol->allow_unix_sockets, p, SRT_RULE_LITERAL, origin, diag);
		if (rc)
			goto out;
	}
	pol->http_port = 3128;
	pol->socks_port = 1080;
	if (s->bwrap_path) {
		pol->bwrap_path = strdup(s->bwrap_path);
		if (!pol->bwrap_path) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
	}

	/* filesystem.disabled: no filesystem rules at all, no TMPDIR override. */
	if (s->fs_disabled) {
		pol->fs_disabled = 1;
		rc = SRT_OK;
		goto out;
	}

	rc = add_entries(&pol->deny_read, &s->deny_read, "filesystem.denyRead", 0, 0,
			 pol->cwd, pol->home, diag);
	if (!rc)
		rc = add_entries(&pol->deny_read, &s->cred_deny_read, "credentials.files", 0, 0,
				 pol->cwd, pol->home, diag);
	if (!rc)
		rc = add_entries(&pol->allow_read, &s->allow_read, "filesystem.allowRead", 0, 1,
				 pol->cwd, pol->home, diag);
	if (!rc)
		rc = add_entries(&pol->allow_write, &s->allow_write, "filesystem.allowWrite", 1, 1,
				 pol->cwd, pol->home, diag);
	if (!rc)
		rc = add_entries(&pol->deny_write, &s->deny_write, "filesystem.denyWrite", 1, 0,
				 pol->cwd, pol->home, diag);
	if (!rc)
		rc = add_caches(pol, s, diag);
	if (rc)
		goto out;

	/* The default write paths (TMPDIR, ~/.npm/_logs, ~/.claude/debug:
	 * the tools run in the sandbox expect to write there); the /dev
	 * entries are left to bwrap's --dev. The TMPDIR handed to the command
	 * is created here so it exists (the reference exports /tmp/claude
	 * without creating it); by default it is this run's own directory
	 * below /tmp/claude, removed when the policy is released. */
	rc = prepare_tmpdir(pol, env, diag);
	if (rc)
		goto out;
	p = strdup(pol->tmpdir);
	if (!p) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}
	rc = rules_push(&pol->allow_write, p, SRT_RULE_DEFAULT, "default write path (TMPDIR)", diag);
	if (rc)
		goto out;
	if (pol->home) {
		snprintf(buf, sizeof(buf), "%s/.npm/_logs", pol->home);
		rc = add_default(pol, buf, "default write path", 1, diag);
		if (!rc) {
			snprintf(buf, sizeof(buf), "%s/.claude/debug", pol->home);
			rc = add_default(pol, buf, "default write path", 1, diag);
		}
		if (rc)
			goto out;
	}

	/* The settings srt read must not be rewritten from inside (a command
	 * could otherwise widen its next run's rules); the default settings
	 * path too, even before it exists, so a command cannot plant one for
	 * the next run. */
	for (i = 0; env && env->settings_files && env->settings_files[i]; i++) {
		rc = deny_write_default(pol, env->settings_files[i], "loaded settings file", diag);
		if (rc)
			goto out;
	}
	if (env && env->protect_file) {
		rc = deny_write_default(pol, env->protect_file,
					"srt's own output file (--violations-log)", diag);
		if (rc)
			goto out;
	}
	if (env && env->settings_named) {
		rc = deny_settings_links(pol, env->settings_named, diag);
		if (rc)
			goto out;
	}
	if (pol->home) {
		snprintf(buf, sizeof(buf), "%s/.srt-settings.json", pol->home);
		p = strdup(buf);
		if (!p) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
		rc = rules_push(&pol->deny_write, p, SRT_RULE_DEFAULT,
				"default settings file", diag);
		if (rc)
			goto out;
	}
	rc = SRT_OK;
out:
	if (rc)
		srt__policy_release(pol);
	return rc;
}

int srt__policy_deny_read_path(struct srt_policy *pol, const char *path, const char *origin,
				struct srt_diag *diag)
{
	char *p = strdup(path);

	if (!p)
		return srt_diag_set(diag, SRT_E_NOMEM, origin, "out of memory");
	return rules_push(&pol->deny_read, p, SRT_RULE_LITERAL, origin, diag);
}

void srt__policy_release(struct srt_policy *pol)
{
	size_t i;

	if (!pol)
		return;
	free(pol->cwd);
	free(pol->home);
	if (pol->tmpdir)
		run_tmpdir_remove(pol);
	free(pol->tmpdir);
	free(pol->bwrap_path);
	for (i = 0; pol->protected_released && pol->protected_released[i]; i++)
		free(pol->protected_released[i]);
	for (i = 0; pol->allow_mach_lookup && pol->allow_mach_lookup[i]; i++)
		free(pol->allow_mach_lookup[i]);
	free(pol->allow_mach_lookup);
	free(pol->protected_released);
	free(pol->proxy_dir);
	free(pol->proxy_socket);
	if (pol->proxy_token) {
		srt__os_wipe(pol->proxy_token, strlen(pol->proxy_token));
		free(pol->proxy_token);
	}
	rules_release(&pol->deny_read);
	rules_release(&pol->allow_read);
	rules_release(&pol->allow_write);
	rules_release(&pol->deny_write);
	rules_release(&pol->allow_unix_sockets);
	for (i = 0; i < pol->n_masked_files; i++) {
		free(pol->masked_files[i].path);
		free(pol->masked_files[i].source);
		free(pol->masked_files[i].origin);
	}
	free(pol->masked_files);
	free(pol->masked_dir);
	memset(pol, 0, sizeof(*pol));
}
