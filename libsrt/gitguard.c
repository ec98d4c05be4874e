/* srt: quarantine of git repositories a sandboxed command creates (see
 * gitguard.h). Every walk is bounded (depth, entries), opens directories
 * with O_NOFOLLOW and acts through directory descriptors, and the sweep
 * runs only once no sandboxed process is left to race it. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/aside.h"
#include "gitguard.h"
#include "platform.h"
#include "paths.h"
#include "settings.h"

#define GG_BUDGET 50000           /* directory entries per root and walk */
#define GG_CONFIG_MAX (64 * 1024) /* a larger config is not one git init wrote */
#define GG_GITFILE_MAX 4096
#define GG_HOOKS_MAX 1024
#define GG_NAME_MAX 64

struct gg_id {
	dev_t dev;
	ino_t ino;
	uint64_t where;         /* hash of the path it was found at */
	struct timespec ctime;  /* when it last changed */
	unsigned redirects;     /* bit i: redirects[i] existed in this .git */
};

/* Files in a .git directory that point git at another directory's config
 * and hooks. */
static const char *const redirects[] = { "commondir", "config.worktree" };
#define N_REDIRECTS (sizeof(redirects) / sizeof(redirects[0]))

struct srt__gitguard {
	struct srt__strv roots;
	int *root_fds;     /* O_PATH, opened at the snapshot: the sweep looks
			    * at the directories the snapshot walked, whatever
			    * the command put at their names since */
	int depth;
	int allow_git_config;
	struct timespec since; /* the snapshot (srt__plat_file_clock, the
				* clock file times come from) */
	struct gg_id *ids;
	size_t n, cap;
	/* the sweep as a program (srt__gitguard_orphan_program): the state
	 * written for it, the descriptors it gets, its command line */
	int state_fd;
	int prog_fd;
	/* the write rules that name a file, not a directory (no root of the
	 * walks): the sweep's program must be none of them */
	dev_t *file_devs;
	ino_t *file_inos;
	size_t n_file_rules;
	int *orphan_fds;
	char *orphan_argv[4];
	char roots_arg[24];
};

struct walk {
	struct srt__gitguard *g;
	int sweeping;
	int deepest;   /* the .git looked at is in a directory at the guard's
			* deepest level, one below what the mounts protect */
	/* directories check_link already judged in this sweep: many links
	 * to one repository cost one judgement */
	struct { dev_t dev; ino_t ino; int bad; } judged[64];
	size_t n_judged;
	size_t budget;
	int truncated;
	srt__gitguard_fn fn;
	void *ctx;
	char path[PATH_MAX];
};

/* ---- git config: which keys cannot make git run a program -------------- */

/* What `git init`, `git clone` and `git config user.*` write. Everything
 * else (core.hooksPath, core.fsmonitor, core.sshCommand, aliases, filter
 * and diff drivers, includes, credential helpers, ...) could run code, or
 * is unknown here, and makes the repository suspect. */
static const char *const safe_keys[] = {
	"core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
	"core.ignorecase", "core.precomposeunicode", "core.symlinks",
	"remote.url", "remote.fetch", "remote.pushurl",
	"branch.remote", "branch.merge",
	"user.name", "user.email",
	"init.defaultbranch",
	"extensions.objectformat",
	"submodule.url", "submodule.active",
};

static int key_is_safe(const char *section, const char *key)
{
	char full[2 * GG_NAME_MAX + 2];
	size_t i;

	snprintf(full, sizeof(full), "%s.%s", section, key);
	for (i = 0; i < sizeof(safe_keys) / sizeof(safe_keys[0]); i++)
		if (!strcmp(full, safe_keys[i]))
			return 1;
	return 0;
}

/* Both return 0 (unsafe) after saying why. */
static int refuse(char *why, size_t whylen, const char *msg)
{
	snprintf(why, whylen, "%s", msg);
	return 0;
}

static int unsafe(char *why, size_t whylen, const char *msg, const char *name)
{
	snprintf(why, whylen, "%s%s", msg, name);
	return 0;
}

/* Copies [A-Za-z0-9-] (and '.' when dots) lower-cased; returns the length,
 * 0 when there is none or it is too long. */
static size_t take_name(const char **pp, const char *end, char out[GG_NAME_MAX], int dots)
{
	const char *p = *pp;
	size_t n = 0;

	while (p < end && (isalnum((unsigned char)*p) || *p == '-' || (dots && *p == '.'))) {
		if (n + 1 >= GG_NAME_MAX)
			return 0;
		out[n++] = (char)tolower((unsigned char)*p++);
	}
	out[n] = '\0';
	*pp = p;
	return n;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int srt__gitguard_config_safe(const char *text, size_t len, char *why, size_t whylen)
{
	const char *line = text, *end = text + len;
	char section[GG_NAME_MAX] = "", key[GG_NAME_MAX];

	if (memchr(text, '\0', len))
		return refuse(why, whylen, "config holds a NUL byte");
	while (line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *p, *stop;

		if (!eol)
			eol = end;
		stop = eol;
		if (stop > line && stop[-1] == '\r')
			stop--;
		p = skip_blanks(line, stop);
		line = eol + 1;
		if (p == stop || *p == '#' || *p == ';')
			continue;
		if (*p == '[') {
			p++;
			if (!take_name(&p, stop, section, 1))
				return refuse(why, whylen, "a config section header srt cannot read");
			/* [section.sub] (old form): the section is before the dot */
			section[strcspn(section, ".")] = '\0';
			if (p < stop && *p == ' ') {
				p = skip_blanks(p, stop);
				if (p >= stop || *p != '"')
					return refuse(why, whylen, "a config section header srt cannot read");
				for (p++; p < stop && *p != '"'; p++)
					if (*p == '\\' && p + 1 < stop)
						p++;
				if (p >= stop)
					return refuse(why, whylen, "a config section header srt cannot read");
				p++;
			}
			if (p >= stop || *p != ']')
				return refuse(why, whylen, "a config section header srt cannot read");
			p = skip_blanks(p + 1, stop);
			if (p == stop || *p == '#' || *p == ';')
				continue;
			/* a key may follow the header on the same line */
		}
		if (!section[0])
			return refuse(why, whylen, "a config key outside any section");
		if (!take_name(&p, stop, key, 0))
			return refuse(why, whylen, "a config line srt cannot read");
		p = skip_blanks(p, stop);
		if (p < stop && *p != '=' && *p != '#' && *p != ';')
			return refuse(why, whylen, "a config line srt cannot read");
		if (stop > p && stop[-1] == '\\')
			return refuse(why, whylen, "a config value continued on the next line");
		if (!key_is_safe(section, key)) {
			char full[2 * GG_NAME_MAX + 2];
			snprintf(full, sizeof(full), "%s.%s", section, key);
			return unsafe(why, whylen, "config key ", full);
		}
		if (!strcmp(section, "remote") && *p == '=') {
			p = skip_blanks(p + 1, stop);
			if (p < stop && *p == '"')
				p++;
			/* the ext:: transport runs a command (off by default, but
			 * protocol.allow may be set globally) */
			if (stop - p >= 5 && !strncasecmp(p, "ext::", 5))
				return refuse(why, whylen, "a remote using the ext:: transport");
		}
	}
	return 1;
}

/* ---- what makes a git directory suspect -------------------------------- */

static int read_small(int fd, char *buf, size_t cap, size_t *len)
{
	size_t have = 0;

	for (;;) {
		ssize_t r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		have += (size_t)r;
		if (have == cap)
			return -1; /* larger than we accept */
	}
	*len = have;
	return 0;
}

static int hooks_safe(int gfd, char *why, size_t whylen)
{
	int hfd = openat(gfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	size_t seen = 0;
	int ok = 1;

	if (hfd < 0)
		return errno == ENOENT ? 1 : refuse(why, whylen, "hooks is not a plain directory");
	d = fdopendir(hfd);
	if (!d) {
		close(hfd);
		return refuse(why, whylen, "hooks cannot be listed");
	}
	while (ok && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++seen > GG_HOOKS_MAX)
			ok = refuse(why, whylen, "more hooks than srt inspects");
		else if (l < 7 || strcmp(de->d_name + l - 7, ".sample") != 0)
			ok = unsafe(why, whylen, "hook ", de->d_name);
	}
	closedir(d);
	return ok;
}

static int gitdir_safe(int gfd, int allow_git_config, char *why, size_t whylen)
{
	struct stat st;
	char *buf;
	size_t i, len = 0;
	int cfd, ok;

	if (!hooks_safe(gfd, why, whylen))
		return 0;
	/* these point git at another directory's config and hooks */
	for (i = 0; i < N_REDIRECTS; i++)
		if (fstatat(gfd, redirects[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			return refuse(why, whylen, redirects[i]);
	if (allow_git_config)
		return 1; /* allowGitConfig: the user lets commands write git config */
	cfd = openat(gfd, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (cfd < 0)
		return errno == ENOENT ? 1 : refuse(why, whylen, "config is not a plain file");
	if (fstat(cfd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > GG_CONFIG_MAX) {
		close(cfd);
		return refuse(why, whylen, "config is not a small plain file");
	}
	buf = malloc(GG_CONFIG_MAX + 1);
	if (!buf) {
		close(cfd);
		return refuse(why, whylen, "config could not be read (out of memory)");
	}
	if (read_small(cfd, buf, GG_CONFIG_MAX + 1, &len) != 0)
		ok = refuse(why, whylen, "config could not be read");
	else
		ok = srt__gitguard_config_safe(buf, len, why, whylen);
	free(buf);
	close(cfd);
	return ok;
}

static int under(const char *path, const char *root);

/* Where the directory open at fd is, or "" when that cannot be told. */
static void fd_path(int fd, char out[PATH_MAX])
{
	srt__plat_fd_path(fd, out);
}

/* Is the directory open at fd inside one of the write roots, the
 * directories the snapshot opened (not what has their names now)? */
static int fd_in_roots(const struct srt__gitguard *g, int fd)
{
	char real[PATH_MAX];
	size_t i;

	fd_path(fd, real);
	for (i = 0; real[0] && i < g->roots.n; i++) {
		char rr[PATH_MAX];

		fd_path(g->root_fds[i], rr);
		if (rr[0] && under(real, rr))
			return 1;
	}
	return 0;
}

/* A .git file ("gitdir: <path>", as for worktrees and submodules): the
 * directory it names is what git would use. Read as git reads it: the
 * prefix "gitdir: " exactly, then everything up to the trailing CR and LF
 * characters (a name may hold spaces or a newline). A directory outside
 * the write roots is not looked into: the command chose it, and what srt
 * would report of it could be what the policy hides from the command. */
static int gitfile_safe(const struct srt__gitguard *g, int dfd, const char *name, char *why,
			size_t whylen)
{
	char buf[GG_GITFILE_MAX + 1];
	size_t len = 0;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), gfd, ok;
	char *target;

	if (fd < 0)
		return refuse(why, whylen, "a .git file srt cannot read");
	ok = read_small(fd, buf, sizeof(buf), &len) == 0;
	close(fd);
	if (!ok)
		return refuse(why, whylen, "a .git file srt cannot read");
	buf[len] = '\0';
	if (strncmp(buf, "gitdir: ", 8) != 0 || strlen(buf) != len)
		return refuse(why, whylen, "a .git file srt cannot read");
	while (len > 8 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	target = buf + 8;
	if (!*target)
		return refuse(why, whylen, "a .git file naming no directory");
	gfd = openat(dfd, target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0)
		return refuse(why, whylen, "a .git file naming a directory srt cannot inspect");
	if (!fd_in_roots(g, gfd)) {
		close(gfd);
		return refuse(why, whylen, "a .git file naming a directory outside the write roots");
	}
	ok = gitdir_safe(gfd, g->allow_git_config, why, whylen);
	close(gfd);
	return ok;
}

/* ---- the walk ----------------------------------------------------------- */

static int id_cmp(const void *a, const void *b)
{
	const struct gg_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

/* FNV-1a of a path. */
static uint64_t path_hash(const char *dir, const char *name)
{
	uint64_t h = 1469598103934665603ULL;
	const char *parts[2] = { dir, name };

	for (int k = 0; k < 2; k++) {
		for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) {
			h ^= *p;
			h *= 1099511628211ULL;
		}
		h ^= '/';
		h *= 1099511628211ULL;
	}
	return h;
}

/* The snapshot's record of this very entry: the same object at the same
 * place (a hard link of a known .git file elsewhere is new), and for a
 * .git file or link, unchanged since (its name removed and made again may
 * get the same inode back). The snapshot is sorted once it is complete
 * (walk_roots). */
static const struct gg_id *known(const struct srt__gitguard *g, const struct stat *st,
				 uint64_t where)
{
	struct gg_id key;
	const struct gg_id *id;

	memset(&key, 0, sizeof(key));
	key.dev = st->st_dev;
	key.ino = st->st_ino;
	id = g->n ? bsearch(&key, g->ids, g->n, sizeof(key), id_cmp) : NULL;
	if (!id || id->where != where)
		return NULL;
	if (!S_ISDIR(st->st_mode)) {
		struct timespec ct = srt__plat_stat_ctime(st);

		if (id->ctime.tv_sec != ct.tv_sec || id->ctime.tv_nsec != ct.tv_nsec)
			return NULL;
	}
	return id;
}

/* Which redirect files the .git directory name (below dfd) holds. */
static unsigned redirects_in(int dfd, const char *name)
{
	char rel[NAME_MAX + 32];
	struct stat st;
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < N_REDIRECTS; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", name, redirects[i]);
		if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
			bits |= 1u << i;
	}
	return bits;
}

static void note(struct walk *w, int is_violation, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct walk *w, int is_violation, const char *fmt, ...)
{
	char line[PATH_MAX + 512];
	va_list ap;

	if (!w->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w->fn(w->ctx, is_violation, line);
}

/* The command can make its own directories unreadable to hide a
 * repository from the sweep, or leave srt short of descriptors or memory
 * (errno EMFILE, ENOMEM): say so rather than pass over it. name is a
 * directory below w->path, or NULL for w->path itself; err is the errno of
 * the failed open or listing. */
static void unchecked(struct walk *w, const char *name, int err)
{
	char why[128];

	if (!w->sweeping)
		return;
	if (err == EACCES)
		snprintf(why, sizeof(why), "unreadable");
	else
		snprintf(why, sizeof(why), "could not be read (%s)", strerror(err));
	if (name)
		note(w, 1, "deny git-repository-check %s/%s: %s, so repositories in it were not checked; inspect it before running git there",
		     w->path, name, why);
	else
		note(w, 1, "deny git-repository-check %s: %s, so repositories in it were not checked; inspect it before running git there",
		     w->path[0] ? w->path : "/", why);
}

static void quarantine(struct walk *w, int dfd, const char *name, const char *why)
{
	char to[NAME_MAX + 1];
	int err = srt__rename_aside(dfd, name, to);

	if (!err)
		note(w, 1, "deny git-repository %s/%s (%s): made or changed inside the sandbox; renamed to %s/%s so no host git command runs it",
		     w->path, name, why, w->path, to);
	else
		note(w, 1, "deny git-repository %s/%s (%s): made or changed inside the sandbox and could run a program outside it; srt could not rename it (%s): inspect it before running git there",
		     w->path, name, why, strerror(err));
}

/* A repository that existed before the command keeps its hooks and config
 * behind the mandatory denies, but a commondir (or config.worktree) it did
 * not have would send the host's git to a config and hooks the command
 * wrote elsewhere: such a new file is renamed aside. */
static void new_redirects(struct walk *w, int dfd, const char *name, unsigned had)
{
	unsigned now = redirects_in(dfd, name);
	size_t i;
	int gfd;

	if (!(now & ~had))
		return;
	gfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0) {
		unchecked(w, name, errno);
		return;
	}
	for (i = 0; i < N_REDIRECTS; i++) {
		char from[NAME_MAX + 32], to[NAME_MAX + 1];
		int err;

		if (!(now & ~had & (1u << i)))
			continue;
		err = srt__rename_aside(gfd, redirects[i], to);
		snprintf(from, sizeof(from), "%s/%s", name, redirects[i]);
		if (!err)
			note(w, 1, "deny git-repository %s/%s: created inside the sandbox, it would point the host's git at another config and hooks; renamed to %s/%s/%s",
			     w->path, from, w->path, name, to);
		else
			note(w, 1, "deny git-repository %s/%s: created inside the sandbox, it would point the host's git at another config and hooks; srt could not rename it (%s): inspect it before running git there",
			     w->path, from, strerror(err));
	}
	close(gfd);
}

/* Made or changed since the snapshot, by its times. */
static int since_snapshot(const struct srt__gitguard *g, struct timespec t)
{
	return t.tv_sec > g->since.tv_sec ||
	       (t.tv_sec == g->since.tv_sec && (long)t.tv_nsec >= g->since.tv_nsec);
}

/* Was name (below dfd) created during the run? Its birth time where the
 * filesystem keeps one, else its change time. */
static int born_in_run(const struct srt__gitguard *g, int dfd, const char *name)
{
	struct srt__ftimes t;

	if (srt__plat_file_times(dfd, name, &t) != 0)
		return 0;
	if (t.born.tv_sec || t.born.tv_nsec)
		return since_snapshot(g, t.born);
	return since_snapshot(g, t.changed);
}

/* What git takes for a bare repository: a HEAD (a file or a link), and
 * objects/ and refs/ as git finds them (links followed), or a commondir
 * that provides them. */
static int looks_bare(int dfd)
{
	struct stat st;

	if (fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	if (fstatat(dfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return fstatat(dfd, "objects", &st, 0) == 0 && S_ISDIR(st.st_mode) &&
	       fstatat(dfd, "refs", &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* Did the command make this directory a bare repository? One of the names
 * git looks at was made during the run (a HEAD linked in from elsewhere is
 * old, its name here is not: the names are looked at, not what they point
 * to). */
static int bare_from_run(const struct srt__gitguard *g, int dfd)
{
	static const char *const names[] = { "HEAD", "objects", "refs", "config", "commondir", "hooks" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (born_in_run(g, dfd, names[i]))
			return 1;
	return 0;
}

/* A directory the command turned into a bare repository whose config or
 * hooks could run a program: git run there on the host would take the
 * directory itself for the repository before looking for a .git above it.
 * Its HEAD is renamed aside, so git no longer sees a repository there. dfd
 * is the directory, w->path its name. */
static void check_bare(struct walk *w, int dfd)
{
	char why[PATH_MAX + 64] = "", to[NAME_MAX + 1];
	int err;

	if (!looks_bare(dfd) || !bare_from_run(w->g, dfd) ||
	    gitdir_safe(dfd, w->g->allow_git_config, why, sizeof(why)))
		return;
	err = srt__rename_aside(dfd, "HEAD", to);
	if (!err)
		note(w, 1, "deny git-repository %s (a bare repository: %s): created inside the sandbox; its HEAD was renamed to %s/%s so no host git command takes the directory for a repository",
		     w->path[0] ? w->path : "/", why, w->path, to);
	else
		note(w, 1, "deny git-repository %s (a bare repository: %s): created inside the sandbox and could run a program outside it; srt could not rename its HEAD (%s): inspect it before running git there",
		     w->path[0] ? w->path : "/", why, strerror(err));
}

/* Could the .git entry name below dfd (st: its lstat) make git run a
 * program? A link is not followed, a .git file is judged by the directory
 * it names, and a .git directory the command made unreadable is not given
 * the benefit of the doubt (renaming needs only its parent). 1: safe,
 * 0: not (why says why), -1: not a kind git takes for a repository. */
static int git_entry_safe(const struct srt__gitguard *g, int dfd, const char *name,
			  const struct stat *st, char *why, size_t whylen)
{
	int gfd, ok;

	if (S_ISLNK(st->st_mode))
		return refuse(why, whylen, "a .git symbolic link");
	if (S_ISREG(st->st_mode))
		return gitfile_safe(g, dfd, name, why, whylen);
	if (!S_ISDIR(st->st_mode))
		return -1;
	gfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return refuse(why, whylen, "a .git directory srt cannot open");
	ok = gitdir_safe(gfd, g->allow_git_config, why, whylen);
	close(gfd);
	return ok;
}

/* The repository git would find from the directory open at dfd: its .git,
 * or the directory itself when bare. 1 and why filled when it could run a
 * program, 0 when it is safe or there is none. */
static int repo_unsafe(const struct srt__gitguard *g, int dfd, char *why, size_t whylen, int *found_one)
{
	struct stat st;
	int ok = -1;

	if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		ok = git_entry_safe(g, dfd, ".git", &st, why, whylen);
	else if (looks_bare(dfd))
		ok = gitdir_safe(dfd, g->allow_git_config, why, whylen);
	*found_one = ok >= 0;
	return ok == 0;
}

/* A symbolic link the command made to a directory inside a repository
 * (or to one) whose config or hooks could run a program: `cd link` and git
 * on the host would find that repository, looking upward from the link's
 * target as git does, wherever it lies (deeper than this walk goes, say).
 * The link is renamed aside; the repository is left alone, as it may be
 * the user's, and not described, as it may lie where the command may not
 * read. */
static void check_link(struct walk *w, int dfd, const char *name)
{
	char why[PATH_MAX + 64] = "";
	int tfd, level, bad = 0, found_one = 0, err = 0;

	if (!born_in_run(w->g, dfd, name))
		return;
	/* the sandbox is gone: nothing can swap the link while we follow it */
	tfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0) {
		/* not a directory, nothing, or out of reach for git too;
		 * anything else (EMFILE, ENOMEM) is not a verdict */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP && errno != EACCES)
			unchecked(w, name, errno);
		return;
	}
	for (level = 0; level < PATH_MAX / 2 && !found_one; level++) {
		struct stat here, up;
		size_t k;
		int pfd;

		/* every level costs the walk's budget: links cannot make the
		 * sweep endless */
		if (w->budget == 0) {
			w->truncated = 1;
			break;
		}
		w->budget--;
		if (fstat(tfd, &here) != 0) {
			err = errno;
			break;
		}
		for (k = 0; k < w->n_judged; k++)
			if (w->judged[k].dev == here.st_dev && w->judged[k].ino == here.st_ino)
				break;
		if (k < w->n_judged) {
			bad = w->judged[k].bad;
			found_one = 1;
			break;
		}
		bad = repo_unsafe(w->g, tfd, why, sizeof(why), &found_one);
		if (found_one) {
			if (w->n_judged < sizeof(w->judged) / sizeof(w->judged[0])) {
				w->judged[w->n_judged].dev = here.st_dev;
				w->judged[w->n_judged].ino = here.st_ino;
				w->judged[w->n_judged].bad = bad;
				w->n_judged++;
			}
			break;
		}
		pfd = openat(tfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0 || fstat(pfd, &up) != 0) {
			/* a parent git could not read stops git too; any other
			 * failure leaves the climb unfinished: not a verdict */
			if (errno != EACCES)
				err = errno;
			if (pfd >= 0)
				close(pfd);
			break;
		}
		if (here.st_dev == up.st_dev && here.st_ino == up.st_ino) {
			close(pfd);
			break; /* the root */
		}
		close(tfd);
		tfd = pfd;
	}
	close(tfd);
	if (bad)
		quarantine(w, dfd, name, "a symbolic link into a repository whose hooks or config could run a program");
	else if (err)
		unchecked(w, name, err);
}

/* A repository from before the run deeper than the mandatory denies
 * reach (the guard walks one level further) keeps writable hooks: a hooks
 * directory changed during the run that now holds more than git's samples
 * is a hook the command planted, and the repository is renamed aside. */
static void known_hooks(struct walk *w, int dfd, const char *name)
{
	char rel[NAME_MAX + 16], why[PATH_MAX + 64] = "";
	struct srt__ftimes t;
	int gfd;

	snprintf(rel, sizeof(rel), "%s/hooks", name);
	if (srt__plat_file_times(dfd, rel, &t) != 0) {
		if (errno != ENOENT)
			unchecked(w, name, errno);
		return;
	}
	if (!(since_snapshot(w->g, t.changed) || since_snapshot(w->g, t.modified)))
		return;
	gfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0) {
		unchecked(w, name, errno);
		return;
	}
	if (!hooks_safe(gfd, why, sizeof(why)))
		quarantine(w, dfd, name, why);
	close(gfd);
}

static void found(struct walk *w, int dfd, const char *name)
{
	struct srt__gitguard *g = w->g;
	const struct gg_id *id;
	struct stat st;
	char why[PATH_MAX + 64] = "";

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			unchecked(w, NULL, errno);
		return;
	}
	if (!w->sweeping) {
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 16;
			struct gg_id *v = realloc(g->ids, cap * sizeof(*v));
			if (!v)
				return; /* unrecorded: judged by its contents later */
			g->ids = v;
			g->cap = cap;
		}
		g->ids[g->n].dev = st.st_dev;
		g->ids[g->n].ino = st.st_ino;
		g->ids[g->n].where = path_hash(w->path, name);
		g->ids[g->n].ctime = srt__plat_stat_ctime(&st);
		g->ids[g->n].redirects = S_ISDIR(st.st_mode) ? redirects_in(dfd, name) : 0;
		g->n++;
		return;
	}
	if ((id = known(g, &st, path_hash(w->path, name)))) {
		if (S_ISDIR(st.st_mode)) {
			new_redirects(w, dfd, name, id->redirects);
			if (w->deepest)
				known_hooks(w, dfd, name);
		}
		return;
	}
	if (git_entry_safe(g, dfd, name, &st, why, sizeof(why)) == 0)
		quarantine(w, dfd, name, why);
}

/* .git entries in the directories at levels 0..depth-1 below a root: one
 * level deeper than the mandatory denies reach, on the safe side. The
 * deepest level is probed by name, not listed: its directories hold most of
 * a tree's files. */
static void walk_dir(struct walk *w, int dfd, size_t plen, int level)
{
	DIR *d;
	struct dirent *de;

	if (w->sweeping)
		check_bare(w, dfd);
	if (level >= w->g->depth - 1) {
		struct stat st;

		if (w->budget == 0) {
			w->truncated = 1;
		} else {
			w->budget--;
			w->deepest = 1;
			if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
				found(w, dfd, ".git");
			else if (errno != ENOENT)
				unchecked(w, NULL, errno);
			w->deepest = 0;
		}
		close(dfd);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		unchecked(w, NULL, errno);
		close(dfd);
		return;
	}
	while ((errno = 0, de = readdir(d))) {
		const char *name = de->d_name;
		unsigned char type = de->d_type;
		size_t nlen;
		int cfd;

		if (w->budget == 0) {
			w->truncated = 1;
			break;
		}
		w->budget--;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (strcasecmp(name, ".git") == 0) {
			found(w, dirfd(d), name);
			continue;
		}
		if (strcmp(name, "node_modules") == 0)
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				if (errno != ENOENT)
					unchecked(w, name, errno);
				continue;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		if (type == DT_LNK && w->sweeping)
			check_link(w, dirfd(d), name);
		if (type != DT_DIR)
			continue;
		if (plen == 0 && (!strcmp(name, "proc") || !strcmp(name, "sys") || !strcmp(name, "dev")))
			continue;
		nlen = strlen(name);
		if (plen + 1 + nlen + 1 > sizeof(w->path))
			continue;
		if (level + 1 >= w->g->depth - 1) {
			/* a leaf: opened only when it holds a .git */
			char rel[NAME_MAX + 8];
			struct stat st;

			snprintf(rel, sizeof(rel), "%s/.git", name);
			if (fstatat(dirfd(d), rel, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno != EACCES) {
				/* or, after the command, when it may be a bare one */
				snprintf(rel, sizeof(rel), "%s/HEAD", name);
				if (!w->sweeping || fstatat(dirfd(d), rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
					continue;
			}
		}
		cfd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			/* any failure but a directory that is gone: EMFILE
			 * or ENOMEM must not pass for "nothing there" */
			if (errno != ENOENT)
				unchecked(w, name, errno);
			continue;
		}
		w->path[plen] = '/';
		memcpy(w->path + plen + 1, name, nlen + 1);
		walk_dir(w, cfd, plen + 1 + nlen, level + 1);
		w->path[plen] = '\0';
		if (w->truncated)
			break;
	}
	/* readdir says end and error alike with NULL: errno tells them apart */
	if (errno != 0 && !w->truncated)
		unchecked(w, NULL, errno);
	closedir(d);
}

static void walk_roots(struct srt__gitguard *g, int sweeping, srt__gitguard_fn fn, void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));
	size_t i;

	if (!w) {
		if (sweeping && fn)
			fn(ctx, 1, "deny git-repository-check: out of memory, so no repository in the write roots was checked; inspect them before running git there");
		return;
	}
	w->g = g;
	w->sweeping = sweeping;
	w->fn = fn;
	w->ctx = ctx;
	for (i = 0; i < g->roots.n; i++) {
		size_t plen = strlen(g->roots.v[i]);
		int dfd;

		if (plen >= sizeof(w->path))
			continue;
		/* "/" is kept as the empty prefix so names join with one slash */
		if (plen == 1)
			plen = 0;
		memcpy(w->path, g->roots.v[i], plen);
		w->path[plen] = '\0';
		/* the directory the snapshot opened, not whatever has its
		 * name now: the command may have put a link to elsewhere
		 * there (a root whose parent it could write) */
		dfd = openat(g->root_fds[i], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			/* a root the command made unreadable */
			unchecked(w, NULL, errno);
			continue;
		}
		w->budget = GG_BUDGET;
		w->truncated = 0;
		walk_dir(w, dfd, plen, 0);
		if (w->truncated && !sweeping)
			note(w, 0, "git repository guard: the scan of %s stopped after %d entries; repositories created deeper there are not checked",
			     g->roots.v[i], GG_BUDGET);
		else if (w->truncated)
			/* the command can fill the tree to hide a repository
			 * past the bound: never pass over that in silence */
			note(w, 1, "deny git-repository-check %s: the check after the command stopped after %d entries, so repositories it created past them were not checked; inspect it before running git there",
			     g->roots.v[i], GG_BUDGET);
	}
	if (!sweeping && g->n > 1)
		qsort(g->ids, g->n, sizeof(g->ids[0]), id_cmp);
	free(w);
}

/* ---- roots -------------------------------------------------------------- */

static int under(const char *path, const char *root)
{
	size_t l = strlen(root);

	if (l == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

/* Why the last snapshot failed (SRT_E_IO), for srt__gitguard_failure(). */
static __thread char failure[PATH_MAX + 96];

/* A root that is gone, no directory or unreadable holds no repository to
 * guard; any other failure (out of descriptors or memory) leaves the
 * root unwatched, so the snapshot fails: -2 (red team: one failed open
 * kept a repository the command made with core.fsmonitor set). */
static int root_failed(const char *call, const char *path)
{
	int e = errno;

	/* ENOSYS: a platform without directory references (the Windows
	 * build) keeps no guard at all, as it always has */
	if (e == ENOENT || e == ENOTDIR || e == ELOOP || e == EACCES || e == EPERM ||
	    e == ENAMETOOLONG || e == ENOSYS)
		return 0;
	snprintf(failure, sizeof(failure), "%s of %s: %s", call, path, strerror(e));
	return -2;
}

const char *srt__gitguard_failure(void)
{
	return failure;
}

static int add_root(struct srt__gitguard *g, const char *path)
{
	struct stat st;
	size_t i;
	int *fds, fd;

	for (i = 0; i < g->roots.n; i++)
		if (!strcmp(g->roots.v[i], path))
			return 0;
	/* a root through a link a command could have planted is not the
	 * policy's: the mounts do not bind it either, and walking it would
	 * judge, and rename, repositories of wherever it points */
	if (stat(path, &st) != 0)
		return root_failed("stat", path);
	if (!S_ISDIR(st.st_mode) || srt__path_via_writable_link(path))
		return 0;
	fd = srt__plat_open_dir_ref(path);
	if (fd < 0)
		return root_failed("open", path);
	fds = realloc(g->root_fds, (g->roots.n + 1) * sizeof(*fds));
	if (!fds) {
		close(fd);
		return -1;
	}
	g->root_fds = fds;
	if (srt__strv_push(&g->roots, path) != SRT_OK) {
		close(fd);
		return -1;
	}
	g->root_fds[g->roots.n - 1] = fd;
	return 0;
}

/* A write rule that names an existing file (not a directory): kept by
 * identity for srt__gitguard_orphan_program. */
static int add_file_rule(struct srt__gitguard *g, const char *path)
{
	struct stat st;
	void *v;

	if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
		return 0;
	v = realloc(g->file_devs, (g->n_file_rules + 1) * sizeof(*g->file_devs));
	if (!v)
		return -1;
	g->file_devs = v;
	v = realloc(g->file_inos, (g->n_file_rules + 1) * sizeof(*g->file_inos));
	if (!v)
		return -1;
	g->file_inos = v;
	g->file_devs[g->n_file_rules] = st.st_dev;
	g->file_inos[g->n_file_rules] = st.st_ino;
	g->n_file_rules++;
	return 0;
}

int srt__gitguard_snapshot(const struct srt_policy *pol, struct srt__gitguard **out,
			   srt__gitguard_fn fn, void *ctx)
{
	struct srt__gitguard *g;
	size_t i;
	int cwd_writable = 0, rc;

	*out = NULL;
	failure[0] = '\0';
	if (pol->fs_disabled || pol->allow_write.n == 0)
		return SRT_OK;
	g = calloc(1, sizeof(*g));
	if (!g)
		return SRT_E_NOMEM;
	g->state_fd = g->prog_fd = -1;
	g->depth = pol->mandatory_deny_depth >= 1 && pol->mandatory_deny_depth <= 10 ?
		   pol->mandatory_deny_depth : 3;
	g->allow_git_config = pol->allow_git_config;
	for (i = 0; i < pol->allow_write.n; i++) {
		const struct srt_rule *r = &pol->allow_write.v[i];

		if (r->flags & SRT_RULE_GLOB)
			continue;
		if (pol->cwd && under(pol->cwd, r->path))
			cwd_writable = 1;
		if ((rc = add_root(g, r->path)) != 0 || (rc = add_file_rule(g, r->path)) != 0)
			goto fail;
	}
	if (cwd_writable && (rc = add_root(g, pol->cwd)) != 0)
		goto fail;
	if (g->roots.n == 0) {
		srt__gitguard_free(g);
		return SRT_OK;
	}
	srt__plat_file_clock(&g->since);
	walk_roots(g, 0, fn, ctx);
	*out = g;
	return SRT_OK;
fail:
	srt__gitguard_free(g);
	return rc == -2 ? SRT_E_IO : SRT_E_NOMEM;
}

void srt__gitguard_sweep(struct srt__gitguard *g, srt__gitguard_fn fn, void *ctx)
{
	if (!g)
		return;
	walk_roots(g, 1, fn, ctx);
	srt__gitguard_free(g);
}

size_t srt__gitguard_fds(const struct srt__gitguard *g, const int **fds)
{
	if (g && g->orphan_fds) {
		*fds = g->orphan_fds;
		return g->roots.n + 2;
	}
	*fds = g && g->root_fds ? g->root_fds : NULL;
	return *fds ? g->roots.n : 0;
}

/* ---- the sweep as a program --------------------------------------------
 *
 * The state goes to the program in a sealed memfd, in this layout (host
 * byte order: the same machine reads it, and a program of another build
 * refuses the magic): the magic, then 32-bit depth and allow_git_config,
 * 64-bit since (seconds, nanoseconds), root count and id count; each root
 * as a 32-bit length and its bytes; each id as dev, ino, where, ctime
 * (seconds, nanoseconds) in 64 bits and redirects in 32. The roots are
 * named for the sweep's notes only: it walks the descriptors. */
#define GG_STATE_MAGIC "srt-gitguard-state 1"
#define GG_STATE_MAX (64u << 20)
#define GG_ROOTS_MAX 4096
#define GG_ID_BYTES (5 * 8 + 4)

struct gg_buf {
	unsigned char *p;
	size_t len, cap, off; /* off: the reader's position */
	int bad;
};

static void put_bytes(struct gg_buf *b, const void *v, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		if (cap > GG_STATE_MAX || !(q = realloc(b->p, cap))) {
			b->bad = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_u32(struct gg_buf *b, uint32_t v)
{
	put_bytes(b, &v, sizeof(v));
}

static void put_u64(struct gg_buf *b, uint64_t v)
{
	put_bytes(b, &v, sizeof(v));
}

static int get_bytes(struct gg_buf *b, void *v, size_t n)
{
	if (b->bad || n > b->len - b->off) {
		b->bad = 1;
		return -1;
	}
	memcpy(v, b->p + b->off, n);
	b->off += n;
	return 0;
}

static uint32_t get_u32(struct gg_buf *b)
{
	uint32_t v = 0;

	get_bytes(b, &v, sizeof(v));
	return v;
}

static uint64_t get_u64(struct gg_buf *b)
{
	uint64_t v = 0;

	get_bytes(b, &v, sizeof(v));
	return v;
}

static void export_state(const struct srt__gitguard *g, struct gg_buf *b)
{
	put_bytes(b, GG_STATE_MAGIC, sizeof(GG_STATE_MAGIC));
	put_u32(b, (uint32_t)g->depth);
	put_u32(b, (uint32_t)g->allow_git_config);
	put_u64(b, (uint64_t)g->since.tv_sec);
	put_u64(b, (uint64_t)g->since.tv_nsec);
	put_u64(b, g->roots.n);
	put_u64(b, g->n);
	for (size_t i = 0; i < g->roots.n; i++) {
		size_t l = strlen(g->roots.v[i]);

		put_u32(b, (uint32_t)l);
		put_bytes(b, g->roots.v[i], l);
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct gg_id *id = &g->ids[i];

		put_u64(b, (uint64_t)id->dev);
		put_u64(b, (uint64_t)id->ino);
		put_u64(b, id->where);
		put_u64(b, (uint64_t)id->ctime.tv_sec);
		put_u64(b, (uint64_t)id->ctime.tv_nsec);
		put_u32(b, id->redirects);
	}
}

int srt__gitguard_orphan_program(struct srt__gitguard *g, char *const **argv)
{
	const char *dir = getenv("SRT_HELPER_DIR");
	char prog[64];
	struct gg_buf b = { 0 };
	struct srt__plat_trust t;
	int fd, pfd, *fds;

	*argv = NULL;
	if (!g || g->roots.n == 0 || g->roots.n > GG_ROOTS_MAX)
		return -1;
	if (g->orphan_fds) {
		*argv = g->orphan_argv;
		return 0;
	}
	if (!dir || !dir[0])
		dir = SRT_PKGLIBDIR;
	t.root_paths = (const char *const *)g->roots.v;
	t.root_fds = g->root_fds;
	t.n_roots = g->roots.n;
	t.file_devs = g->file_devs;
	t.file_inos = g->file_inos;
	t.n_files = g->n_file_rules;
	pfd = srt__plat_trusted_program_copy(dir, "srt-gitguard-sweep", &t);
	if (pfd < 0)
		return -1;
	export_state(g, &b);
	fd = b.bad ? -1 : srt__plat_sealed_data("srt-gitguard-state", b.p, b.len);
	free(b.p);
	fds = malloc((g->roots.n + 2) * sizeof(*fds));
	/* the program's copy by its descriptor, the last one: 3 + roots + 1
	 * where it runs */
	if (fd < 0 || !fds || srt__plat_fd_exec_path(prog, sizeof(prog), (int)(3 + g->roots.n + 1)) != 0 ||
	    !(g->orphan_argv[0] = strdup(prog))) {
		if (fd >= 0)
			close(fd);
		close(pfd);
		free(fds);
		return -1;
	}
	memcpy(fds, g->root_fds, g->roots.n * sizeof(*fds));
	fds[g->roots.n] = fd;
	fds[g->roots.n + 1] = pfd;
	g->state_fd = fd;
	g->prog_fd = pfd;
	g->orphan_fds = fds;
	snprintf(g->roots_arg, sizeof(g->roots_arg), "%zu", g->roots.n);
	g->orphan_argv[1] = (char *)"--roots";
	g->orphan_argv[2] = g->roots_arg;
	g->orphan_argv[3] = NULL;
	*argv = g->orphan_argv;
	return 0;
}

struct srt__gitguard *srt__gitguard_import(int fd, const int *root_fds, size_t n_roots)
{
	struct srt__gitguard *g = NULL;
	struct gg_buf b = { 0 };
	struct stat st;
	char magic[sizeof(GG_STATE_MAGIC)];
	uint64_t nr, ni;

	if (fstat(fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > GG_STATE_MAX)
		return NULL;
	b.cap = b.len = (size_t)st.st_size;
	b.p = malloc(b.len);
	if (!b.p || lseek(fd, 0, SEEK_SET) != 0)
		goto fail;
	for (size_t got = 0; got < b.len;) {
		ssize_t n = read(fd, b.p + got, b.len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		got += (size_t)n;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		goto fail;
	g->state_fd = g->prog_fd = -1;
	if (get_bytes(&b, magic, sizeof(magic)) || memcmp(magic, GG_STATE_MAGIC, sizeof(magic)))
		goto fail;
	g->depth = (int)get_u32(&b);
	g->allow_git_config = (int)get_u32(&b);
	g->since.tv_sec = (time_t)get_u64(&b);
	g->since.tv_nsec = (long)get_u64(&b);
	nr = get_u64(&b);
	ni = get_u64(&b);
	if (b.bad || nr != n_roots || nr == 0 || nr > GG_ROOTS_MAX || g->depth < 1 || g->depth > 10 ||
	    ni > (b.len - b.off) / GG_ID_BYTES)
		goto fail;
	for (size_t i = 0; i < nr; i++) {
		uint32_t l = get_u32(&b);
		char path[PATH_MAX];

		if (b.bad || l == 0 || l >= sizeof(path) || get_bytes(&b, path, l))
			goto fail;
		path[l] = '\0';
		if (path[0] != '/' || memchr(path, '\0', l) || srt__strv_push(&g->roots, path) != SRT_OK)
			goto fail;
	}
	if (ni && !(g->ids = calloc((size_t)ni, sizeof(*g->ids))))
		goto fail;
	g->n = g->cap = (size_t)ni;
	for (size_t i = 0; i < g->n; i++) {
		struct gg_id *id = &g->ids[i];

		id->dev = (dev_t)get_u64(&b);
		id->ino = (ino_t)get_u64(&b);
		id->where = get_u64(&b);
		id->ctime.tv_sec = (time_t)get_u64(&b);
		id->ctime.tv_nsec = (long)get_u64(&b);
		id->redirects = get_u32(&b);
	}
	if (b.bad || b.off != b.len)
		goto fail;
	/* the sweep's look-ups are binary searches: only ever sorted ids */
	for (size_t i = 1; i < g->n; i++)
		if (id_cmp(&g->ids[i - 1], &g->ids[i]) > 0)
			goto fail;
	g->root_fds = malloc(n_roots * sizeof(*g->root_fds));
	if (!g->root_fds)
		goto fail;
	memcpy(g->root_fds, root_fds, n_roots * sizeof(*g->root_fds));
	free(b.p);
	return g;
fail:
	free(b.p);
	if (g) {
		srt__strv_release(&g->roots);
		free(g->ids);
		free(g);
	}
	return NULL;
}

int srt__gitguard_orphan_work(const struct srt__gitguard *g, const char *removed)
{
	/* a root below or above the removed directory is a root of its own:
	 * what lies outside the directory, or was reached by another name,
	 * is not gone with it */
	for (size_t i = 0; g && i < g->roots.n; i++)
		if (!removed || strcmp(g->roots.v[i], removed) != 0)
			return 1;
	return 0;
}

void srt__gitguard_free(struct srt__gitguard *g)
{
	if (!g)
		return;
	for (size_t i = 0; g->root_fds && i < g->roots.n; i++)
		close(g->root_fds[i]);
	free(g->root_fds);
	if (g->state_fd >= 0)
		close(g->state_fd);
	if (g->prog_fd >= 0)
		close(g->prog_fd);
	free(g->file_devs);
	free(g->file_inos);
	free(g->orphan_fds);
	free(g->orphan_argv[0]);
	srt__strv_release(&g->roots);
	free(g->ids);
	free(g);
}
