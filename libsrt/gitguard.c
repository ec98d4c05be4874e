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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gitguard.h"
#include "settings.h"

#define GG_BUDGET 50000           /* directory entries per root and walk */
#define GG_CONFIG_MAX (64 * 1024) /* a larger config is not one git init wrote */
#define GG_GITFILE_MAX 4096
#define GG_HOOKS_MAX 1024
#define GG_NAME_MAX 64

struct gg_id {
	dev_t dev;
	ino_t ino;
	unsigned redirects; /* bit i: redirects[i] existed in this .git */
};

/* Files in a .git directory that point git at another directory's config
 * and hooks. */
static const char *const redirects[] = { "commondir", "config.worktree" };
#define N_REDIRECTS (sizeof(redirects) / sizeof(redirects[0]))

struct srt_gitguard {
	struct srt_strv roots;
	int depth;
	int allow_git_config;
	struct timespec since; /* the snapshot (CLOCK_REALTIME_COARSE, the
				* clock file times come from) */
	struct gg_id *ids;
	size_t n, cap;
};

struct walk {
	struct srt_gitguard *g;
	int sweeping;
	size_t budget;
	int truncated;
	srt_gitguard_fn fn;
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

/* A .git file ("gitdir: <path>", as for worktrees and submodules): the
 * directory it names is what git would use. */
static int gitfile_safe(int dfd, const char *name, int allow_git_config, char *why, size_t whylen)
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
	if (strncmp(buf, "gitdir:", 7) != 0 || strlen(buf) != len)
		return refuse(why, whylen, "a .git file srt cannot read");
	target = buf + 7;
	target += strspn(target, " \t");
	target[strcspn(target, "\r\n")] = '\0';
	if (!*target)
		return refuse(why, whylen, "a .git file naming no directory");
	gfd = openat(dfd, target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0)
		return unsafe(why, whylen, "a .git file naming a directory srt cannot inspect: ", target);
	ok = gitdir_safe(gfd, allow_git_config, why, whylen);
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

/* the snapshot is sorted once it is complete (walk_roots) */
static const struct gg_id *known(const struct srt_gitguard *g, const struct stat *st)
{
	struct gg_id key = { st->st_dev, st->st_ino, 0 };

	return g->n ? bsearch(&key, g->ids, g->n, sizeof(key), id_cmp) : NULL;
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
 * repository from the sweep: say so rather than pass over it. name is a
 * directory below w->path, or NULL for w->path itself. */
static void unchecked(struct walk *w, const char *name)
{
	static const char what[] =
		"unreadable, so repositories in it were not checked; inspect it before running git there";

	if (!w->sweeping)
		return;
	if (name)
		note(w, 1, "deny git-repository-check %s/%s: %s", w->path, name, what);
	else
		note(w, 1, "deny git-repository-check %s: %s", w->path[0] ? w->path : "/", what);
}

static void quarantine(struct walk *w, int dfd, const char *name, const char *why)
{
	char to[NAME_MAX + 1];
	int i;

	for (i = 0; i < 100; i++) {
		if (i == 0)
			snprintf(to, sizeof(to), "%s.srt-quarantine", name);
		else
			snprintf(to, sizeof(to), "%s.srt-quarantine.%d", name, i);
		if (renameat2(dfd, name, dfd, to, RENAME_NOREPLACE) == 0) {
			note(w, 1, "deny git-repository %s/%s (%s): created inside the sandbox; renamed to %s/%s so no host git command runs it",
			     w->path, name, why, w->path, to);
			return;
		}
		if (errno != EEXIST)
			break;
	}
	note(w, 1, "deny git-repository %s/%s (%s): created inside the sandbox and could run a program outside it; srt could not rename it (%s): inspect it before running git there",
	     w->path, name, why, strerror(errno));
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
		unchecked(w, name);
		return;
	}
	for (i = 0; i < N_REDIRECTS; i++) {
		char from[NAME_MAX + 32], to[NAME_MAX + 64];
		int k, err = EEXIST, done = 0;

		if (!(now & ~had & (1u << i)))
			continue;
		for (k = 0; k < 100 && !done && err == EEXIST; k++) {
			if (k == 0)
				snprintf(to, sizeof(to), "%s.srt-quarantine", redirects[i]);
			else
				snprintf(to, sizeof(to), "%s.srt-quarantine.%d", redirects[i], k);
			if (renameat2(gfd, redirects[i], gfd, to, RENAME_NOREPLACE) == 0)
				done = 1;
			else
				err = errno;
		}
		snprintf(from, sizeof(from), "%s/%s", name, redirects[i]);
		if (done)
			note(w, 1, "deny git-repository %s/%s: created inside the sandbox, it would point the host's git at another config and hooks; renamed to %s/%s/%s",
			     w->path, from, w->path, name, to);
		else
			note(w, 1, "deny git-repository %s/%s: created inside the sandbox, it would point the host's git at another config and hooks; srt could not rename it (%s): inspect it before running git there",
			     w->path, from, strerror(err));
	}
	close(gfd);
}

/* Made or changed since the snapshot, by its times. */
static int since_snapshot(const struct srt_gitguard *g, struct statx_timestamp t)
{
	return t.tv_sec > g->since.tv_sec ||
	       (t.tv_sec == g->since.tv_sec && (long)t.tv_nsec >= g->since.tv_nsec);
}

/* Was name (below dfd) created during the run? Its birth time where the
 * filesystem keeps one, else its change time. */
static int born_in_run(const struct srt_gitguard *g, int dfd, const char *name)
{
	struct statx sx;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_CTIME, &sx) != 0)
		return 0;
	if (sx.stx_mask & STATX_BTIME)
		return since_snapshot(g, sx.stx_btime);
	return since_snapshot(g, sx.stx_ctime);
}

/* What git takes for a bare repository: HEAD, objects/ and refs/. */
static int looks_bare(int dfd)
{
	struct stat st;

	return fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       fstatat(dfd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       fstatat(dfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* A directory the command turned into a bare repository (its HEAD born
 * during the run) whose config or hooks could run a program: git run there
 * on the host would take the directory itself for the repository before
 * looking for a .git above it. Its HEAD is renamed aside, so git no longer
 * sees a repository there. dfd is the directory, w->path its name. */
static void check_bare(struct walk *w, int dfd)
{
	char why[PATH_MAX + 64] = "", to[64];
	int k, err = EEXIST, done = 0;

	if (!looks_bare(dfd) || !born_in_run(w->g, dfd, "HEAD") ||
	    gitdir_safe(dfd, w->g->allow_git_config, why, sizeof(why)))
		return;
	for (k = 0; k < 100 && !done && err == EEXIST; k++) {
		if (k == 0)
			snprintf(to, sizeof(to), "HEAD.srt-quarantine");
		else
			snprintf(to, sizeof(to), "HEAD.srt-quarantine.%d", k);
		if (renameat2(dfd, "HEAD", dfd, to, RENAME_NOREPLACE) == 0)
			done = 1;
		else
			err = errno;
	}
	if (done)
		note(w, 1, "deny git-repository %s (a bare repository: %s): created inside the sandbox; its HEAD was renamed to %s/%s so no host git command takes the directory for a repository",
		     w->path[0] ? w->path : "/", why, w->path, to);
	else
		note(w, 1, "deny git-repository %s (a bare repository: %s): created inside the sandbox and could run a program outside it; srt could not rename its HEAD (%s): inspect it before running git there",
		     w->path[0] ? w->path : "/", why, strerror(err));
}

/* A symbolic link the command made, to a directory holding a repository
 * (or being one) whose config or hooks could run a program: `cd link` and
 * git on the host would run them, wherever the repository lies (deeper
 * than this walk goes, say). The link is renamed aside; what it points to
 * is left alone, as it may be the user's. */
static void check_link(struct walk *w, int dfd, const char *name)
{
	char why[PATH_MAX + 64] = "";
	struct stat st;
	int tfd, ok = 1;

	if (!born_in_run(w->g, dfd, name))
		return;
	/* the sandbox is gone: nothing can swap the link while we follow it */
	tfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return; /* not a directory, or nothing */
	if (fstatat(tfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			ok = refuse(why, sizeof(why), "a .git symbolic link");
		} else if (S_ISREG(st.st_mode)) {
			ok = gitfile_safe(tfd, ".git", w->g->allow_git_config, why, sizeof(why));
		} else if (S_ISDIR(st.st_mode)) {
			int gfd = openat(tfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			ok = gfd < 0 ? refuse(why, sizeof(why), "a .git directory srt cannot open") :
				       gitdir_safe(gfd, w->g->allow_git_config, why, sizeof(why));
			if (gfd >= 0)
				close(gfd);
		}
	} else if (looks_bare(tfd)) {
		ok = gitdir_safe(tfd, w->g->allow_git_config, why, sizeof(why));
	}
	close(tfd);
	if (!ok) {
		char full[PATH_MAX + 80];

		snprintf(full, sizeof(full), "a symbolic link to a repository: %s", why);
		quarantine(w, dfd, name, full);
	}
}

static void found(struct walk *w, int dfd, const char *name)
{
	struct srt_gitguard *g = w->g;
	const struct gg_id *id;
	struct stat st;
	char why[PATH_MAX + 64] = "";
	int ok;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			unchecked(w, NULL);
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
		g->ids[g->n].redirects = S_ISDIR(st.st_mode) ? redirects_in(dfd, name) : 0;
		g->n++;
		return;
	}
	if ((id = known(g, &st))) {
		if (S_ISDIR(st.st_mode))
			new_redirects(w, dfd, name, id->redirects);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		ok = refuse(why, sizeof(why), "a .git symbolic link");
	} else if (S_ISREG(st.st_mode)) {
		ok = gitfile_safe(dfd, name, g->allow_git_config, why, sizeof(why));
	} else if (S_ISDIR(st.st_mode)) {
		int gfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		/* a new .git the command made unreadable is not given the
		 * benefit of the doubt (renaming needs only its parent) */
		if (gfd < 0) {
			ok = refuse(why, sizeof(why), "a .git directory srt cannot open");
		} else {
			ok = gitdir_safe(gfd, g->allow_git_config, why, sizeof(why));
			close(gfd);
		}
	} else {
		return;
	}
	if (!ok)
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
			if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
				found(w, dfd, ".git");
			else if (errno != ENOENT)
				unchecked(w, NULL);
		}
		close(dfd);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
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
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
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
			if (errno == EACCES)
				unchecked(w, name);
			continue;
		}
		w->path[plen] = '/';
		memcpy(w->path + plen + 1, name, nlen + 1);
		walk_dir(w, cfd, plen + 1 + nlen, level + 1);
		w->path[plen] = '\0';
		if (w->truncated)
			break;
	}
	closedir(d);
}

static void walk_roots(struct srt_gitguard *g, int sweeping, srt_gitguard_fn fn, void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));
	size_t i;

	if (!w)
		return;
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
		dfd = open(g->roots.v[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			/* a root the command made unreadable, not one that is gone */
			if (errno != ENOENT)
				unchecked(w, NULL);
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

static int add_root(struct srt_gitguard *g, const char *path)
{
	struct stat st;
	size_t i;

	for (i = 0; i < g->roots.n; i++)
		if (!strcmp(g->roots.v[i], path))
			return 0;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return srt__strv_push(&g->roots, path) == SRT_OK ? 0 : -1;
}

int srt__gitguard_snapshot(const struct srt_policy *pol, struct srt_gitguard **out,
			   srt_gitguard_fn fn, void *ctx)
{
	struct srt_gitguard *g;
	size_t i;
	int cwd_writable = 0;

	*out = NULL;
	if (pol->fs_disabled || pol->allow_write.n == 0)
		return SRT_OK;
	g = calloc(1, sizeof(*g));
	if (!g)
		return SRT_E_NOMEM;
	g->depth = pol->mandatory_deny_depth >= 1 && pol->mandatory_deny_depth <= 10 ?
		   pol->mandatory_deny_depth : 3;
	g->allow_git_config = pol->allow_git_config;
	for (i = 0; i < pol->allow_write.n; i++) {
		const struct srt_rule *r = &pol->allow_write.v[i];

		if (r->flags & SRT_RULE_GLOB)
			continue;
		if (pol->cwd && under(pol->cwd, r->path))
			cwd_writable = 1;
		if (add_root(g, r->path) != 0)
			goto nomem;
	}
	if (cwd_writable && add_root(g, pol->cwd) != 0)
		goto nomem;
	if (g->roots.n == 0) {
		srt__gitguard_free(g);
		return SRT_OK;
	}
	clock_gettime(CLOCK_REALTIME_COARSE, &g->since);
	walk_roots(g, 0, fn, ctx);
	*out = g;
	return SRT_OK;
nomem:
	srt__gitguard_free(g);
	return SRT_E_NOMEM;
}

void srt__gitguard_sweep(struct srt_gitguard *g, srt_gitguard_fn fn, void *ctx)
{
	if (!g)
		return;
	walk_roots(g, 1, fn, ctx);
	srt__gitguard_free(g);
}

void srt__gitguard_free(struct srt_gitguard *g)
{
	if (!g)
		return;
	srt__strv_release(&g->roots);
	free(g->ids);
	free(g);
}
