/* filesystem.allowCaches: the package managers' cache directories, found
 * as each tool finds them (its variables first, then its default under
 * HOME), checked so that the grant is that directory and nothing more.
 *
 * A cache directory named by a variable or reached through a symbolic link
 * could be anywhere, the user's ~/.ssh included. So srt opens a cache only
 * strictly inside HOME, never in a credential or configuration tree there,
 * and never through a link: each component below HOME is opened without
 * following links, and a link is an error rather than a grant. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caches.h"
#include "paths.h"

/* One place a tool reads its cache directory from: the variable, and what
 * follows its value ("$XDG_CACHE_HOME" + "/pip"). `list`: a ':' list of
 * which the first entry counts (GOPATH). */
struct source {
	const char *var;
	const char *suffix;
	int list;
};

struct dir_spec {
	struct source src[3];
	const char *home_default; /* below HOME when no variable is set */
};

struct cache {
	const char *name;
	struct dir_spec dirs[SRT_CACHE_MAX_DIRS];
	size_t ndirs;
};

/* npm reads its configuration from the environment in either case.
 * cargo's registry and git checkouts only: $CARGO_HOME also holds bin/
 * (on PATH) and config.toml (which can name programs cargo runs). go's
 * module cache and its build cache (go build needs both). */
static const struct cache caches[] = {
	{ "npm", { { { { "npm_config_cache", "", 0 }, { "NPM_CONFIG_CACHE", "", 0 } }, ".npm" } }, 1 },
	{ "pip", { { { { "PIP_CACHE_DIR", "", 0 }, { "XDG_CACHE_HOME", "/pip", 0 } }, ".cache/pip" } }, 1 },
	{ "cargo", { { { { "CARGO_HOME", "/registry", 0 } }, ".cargo/registry" },
		     { { { "CARGO_HOME", "/git", 0 } }, ".cargo/git" } }, 2 },
	{ "go", { { { { "GOMODCACHE", "", 0 }, { "GOPATH", "/pkg/mod", 1 } }, "go/pkg/mod" },
		  { { { "GOCACHE", "", 0 }, { "XDG_CACHE_HOME", "/go-build", 0 } }, ".cache/go-build" } }, 2 },
};

const char srt__cache_names[] = "npm, pip, cargo, go";

#define NCACHES (sizeof(caches) / sizeof(caches[0]))

/* The top-level names in HOME a cache may not be in (or be): keys and
 * tokens, configuration other programs act on, directories on PATH, and
 * the files the mandatory write denies protect. */
static const char *const refused_top[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".pki", ".password-store",
	".config", ".local", "bin", ".claude", ".vscode", ".idea", ".git", ".gitconfig",
	".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
	".ripgreprc", ".mcp.json", ".srt-settings.json", NULL,
};

static const struct cache *find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NCACHES; i++)
		if (strcmp(caches[i].name, name) == 0)
			return &caches[i];
	return NULL;
}

int srt__cache_known(const char *name)
{
	return find(name) != NULL;
}

void srt__cache_dirs_release(struct srt__cache_dir *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(d[i].path);
		d[i].path = NULL;
	}
}

/* The directory one spec names: the first variable set (not empty), else
 * the default under home. */
static int spec_dir(const struct dir_spec *sp, const char *home, struct srt__cache_dir *out,
		    struct srt_diag *diag)
{
	char buf[4200];
	size_t i;

	out->from = NULL;
	for (i = 0; i < 3 && sp->src[i].var; i++) {
		const char *v = getenv(sp->src[i].var);
		size_t vlen;

		if (!v || !*v)
			continue;
		vlen = sp->src[i].list ? strcspn(v, ":") : strlen(v);
		if (vlen == 0)
			continue;
		if (v[0] != '/')
			return srt_diag_set(diag, SRT_E_SETTINGS, sp->src[i].var,
					    "%s=\"%s\" is not an absolute path", sp->src[i].var, v);
		if (vlen + strlen(sp->src[i].suffix) + 1 > sizeof(buf))
			return srt_diag_set(diag, SRT_E_LIMIT, sp->src[i].var, "%s is too long",
					    sp->src[i].var);
		snprintf(buf, sizeof(buf), "%.*s%s", (int)vlen, v, sp->src[i].suffix);
		out->from = sp->src[i].var;
		return srt__path_lexical(buf, "/", NULL, &out->path, diag);
	}
	if (!home || home[0] != '/')
		return srt_diag_set(diag, SRT_E_SETTINGS, "", "HOME is not set to an absolute path");
	return srt__path_lexical(sp->home_default, home, NULL, &out->path, diag);
}

int srt__cache_dirs(const char *name, const char *home,
		    struct srt__cache_dir out[SRT_CACHE_MAX_DIRS], size_t *n,
		    struct srt_diag *diag)
{
	const struct cache *c = find(name);
	size_t i;
	int rc;

	*n = 0;
	if (!c)
		return SRT_OK;
	for (i = 0; i < c->ndirs; i++) {
		rc = spec_dir(&c->dirs[i], home, &out[i], diag);
		if (rc) {
			srt__cache_dirs_release(out, i);
			return rc;
		}
	}
	*n = c->ndirs;
	return SRT_OK;
}

/* The part of path strictly below dir ("a/b"), or NULL. */
static const char *below(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[1] ? path + 1 : NULL;
	if (strncmp(dir, path, n) != 0 || path[n] != '/' || !path[n + 1])
		return NULL;
	return path + n + 1;
}

static int refused_rel(const char *rel)
{
	size_t first = strcspn(rel, "/"), i;
	const char *p;

	for (i = 0; refused_top[i]; i++)
		if (strlen(refused_top[i]) == first && strncmp(rel, refused_top[i], first) == 0)
			return 1;
	/* a .git anywhere on the way: git would act on what is written there */
	for (p = rel; *p; p += strcspn(p, "/"), p += *p == '/') {
		size_t len = strcspn(p, "/");

		if (len == 4 && strncmp(p, ".git", 4) == 0)
			return 1;
	}
	return 0;
}

/* Walk rel below the directory open at dfd without following links,
 * creating what is missing; consumes dfd. */
static int walk(int dfd, const char *rel, const char *shown, const char *origin,
		const char *name, int create, struct srt_diag *diag)
{
	char comp[256];
	const char *p = rel;
	int rc = SRT_OK;

	while (*p) {
		size_t len = strcspn(p, "/");
		struct stat st;
		int fd;

		if (len >= sizeof(comp)) {
			rc = srt_diag_set(diag, SRT_E_LIMIT, origin, "%s: \"%s\": \"%s\": a name is too long",
					  origin, name, shown);
			break;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		p += *p == '/';
		if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			struct stat parent;

			if (errno != ENOENT) {
				rc = srt_diag_set(diag, SRT_E_IO, origin, "%s: \"%s\": \"%s\": cannot inspect \"%s\": %s",
						  origin, name, shown, comp, strerror(errno));
				break;
			}
			if (!create)
				break; /* the rest is missing: no link on it */
			/* never leave a directory of ours in someone else's */
			if (fstat(dfd, &parent) != 0 || parent.st_uid != geteuid()) {
				rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
						  "%s: \"%s\": \"%s\" does not exist and srt does not create it in a "
						  "directory another user owns; create it first",
						  origin, name, shown);
				break;
			}
			if (mkdirat(dfd, comp, 0700) != 0 && errno != EEXIST) {
				rc = srt_diag_set(diag, SRT_E_IO, origin, "%s: \"%s\": cannot create \"%s\": %s",
						  origin, name, shown, strerror(errno));
				break;
			}
		} else if (S_ISLNK(st.st_mode)) {
			rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
					  "%s: \"%s\": \"%s\" goes through the symbolic link \"%s\"; srt does not "
					  "follow links to open a cache (one could lead anywhere): list the "
					  "real directory in filesystem.allowWrite instead",
					  origin, name, shown, comp);
			break;
		} else if (!S_ISDIR(st.st_mode)) {
			rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
					  "%s: \"%s\": \"%s\": \"%s\" on the way is not a directory", origin,
					  name, shown, comp);
			break;
		}
		fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
					  "%s: \"%s\": \"%s\": cannot open \"%s\" without following a link: %s",
					  origin, name, shown, comp, strerror(errno));
			break;
		}
		close(dfd);
		dfd = fd;
	}
	close(dfd);
	return rc;
}

int srt__cache_open(const char *name, const struct srt__cache_dir *d, const char *home,
		    const char *origin, int create, char **out, struct srt_diag *diag)
{
	char *real_home = NULL;
	const char *rel;
	char from[96];
	int dfd, rc;

	*out = NULL;
	snprintf(from, sizeof(from), "%s%s", d->from ? "from " : "the default of ",
		 d->from ? d->from : name);
	if (!home || home[0] != '/' || !(real_home = realpath(home, NULL)))
		return srt_diag_set(diag, SRT_E_SETTINGS, origin,
				    "%s: \"%s\": HOME is not set to a directory that exists, so the "
				    "cache directory cannot be checked", origin, name);
	rel = below(home, d->path);
	if (!rel)
		rel = below(real_home, d->path);
	if (!rel || strcmp(real_home, "/") == 0) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
				  "%s: \"%s\": its directory \"%s\" (%s) is not inside HOME (\"%s\"); srt "
				  "opens caches only there: list the directory in filesystem.allowWrite "
				  "if the command should write it", origin, name, d->path, from, home);
		goto out;
	}
	if (refused_rel(rel)) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, origin,
				  "%s: \"%s\": its directory \"%s\" (%s) is in a part of HOME that "
				  "holds keys or configuration other programs act on; srt does not "
				  "open it as a cache", origin, name, d->path, from);
		goto out;
	}
	dfd = open(real_home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = srt_diag_set(diag, SRT_E_IO, origin, "%s: cannot open HOME \"%s\": %s", origin,
				  real_home, strerror(errno));
		goto out;
	}
	rc = walk(dfd, rel, d->path, origin, name, create, diag);
	if (rc)
		goto out;
	if (asprintf(out, "%s/%s", real_home, rel) < 0) {
		*out = NULL;
		rc = srt_diag_set(diag, SRT_E_NOMEM, origin, "out of memory");
	}
out:
	free(real_home);
	return rc;
}

static int enabled_has(const struct srt__strv *enabled, const char *name)
{
	size_t i;

	for (i = 0; enabled && i < enabled->n; i++)
		if (strcmp(enabled->v[i], name) == 0)
			return 1;
	return 0;
}

/* 2 when path is dir or in it, 1 when it is on the way to dir strictly
 * inside home, else 0. */
static int concerns(const char *dir, const char *path, const char *home)
{
	if (strcmp(dir, path) == 0 || below(dir, path))
		return 2;
	return below(path, dir) && below(home, path) ? 1 : 0;
}

static int cache_concerns(const struct cache *c, const char *path, const char *home)
{
	struct srt__cache_dir d[SRT_CACHE_MAX_DIRS];
	size_t n = 0, i;
	int hit = 0, h;

	if (!home || srt__cache_dirs(c->name, home, d, &n, NULL) != SRT_OK)
		return 0;
	for (i = 0; i < n; i++) {
		h = concerns(d[i].path, path, home);
		if (h > hit)
			hit = h;
	}
	srt__cache_dirs_release(d, n);
	return hit;
}

int srt__cache_advice(const char *path, const char *home, const struct srt__strv *enabled,
		      char *buf, size_t len)
{
	char names[128] = "", list[160] = "";
	char *real_home;
	size_t i, count = 0;
	int inside = 0;

	if (!path || path[0] != '/' || !home || home[0] != '/' || len == 0)
		return 0;
	real_home = realpath(home, NULL);
	for (i = 0; i < NCACHES; i++) {
		const struct cache *c = &caches[i];
		int h;

		if (enabled_has(enabled, c->name))
			continue;
		h = cache_concerns(c, path, home);
		if (!h && real_home && strcmp(real_home, home) != 0)
			h = cache_concerns(c, path, real_home);
		if (!h)
			continue;
		inside |= h == 2;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 count ? " and " : "", c->name);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s\"%s\"",
			 count ? ", " : "", c->name);
		count++;
	}
	free(real_home);
	if (!count)
		return 0;
	if (count == 1)
		snprintf(buf, len, "a write %s %s's cache was refused: filesystem.allowCaches: [%s] "
			 "in the settings opens that cache for writing (and nothing else in HOME)",
			 inside ? "in" : "on the way to", names, list);
	else
		snprintf(buf, len, "a write on the way to the caches of %s was refused: "
			 "filesystem.allowCaches: [%s] in the settings opens those caches for "
			 "writing (and nothing else in HOME)", names, list);
	return 1;
}
