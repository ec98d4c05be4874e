/* Linux backends: bounded walk for the mandatory write denies (mandatory.h).
 *
 * One openat()/fdopendir() per directory, d_type from getdents so most
 * entries cost no stat, and a quick first-byte test: every dangerous name
 * starts with ".", so the common entry is rejected with one comparison. */
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
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/mountinfo.h"

#include "common/pathcat.h"
#include "common/protected.h"

/* What the walk protects and why: the table of common/protected.h, each
 * entry with its reason there. */
#define PROT(i) (&srt__protected_names[i])

struct scan {
	const struct srt__mandatory_opts *o;
	size_t *budget;
	int *truncated;
	srt__mandatory_fn fn;
	srt__mandatory_fn read_fn;
	void *ctx;
	const char *root; /* the root walked, as given */
	struct targets *tg; /* files whose other names count too */
	char path[PATH_MAX];
};

/* A call that failed for want of descriptors or memory, or with an I/O
 * error, says nothing of what the tree holds: the scan stops with
 * SRT_E_IO instead of taking the directory for empty, which would leave
 * its rc files, hooks and repositories writable (red team: one failed
 * open of the write root let the command append to .bashrc and plant a
 * pre-commit hook, srt exiting 0). A name that is gone, no directory, a
 * link or unreadable holds nothing to protect, as before.
 * srt__mandatory_scan_error() names the call in the caller's message. */
static __thread char failure[PATH_MAX + 512];

static int emit(struct scan *s, const char *path, const char *what);

static int nothing_there(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ELOOP || e == EACCES || e == EPERM ||
	       e == ENAMETOOLONG;
}

/* A deny rule at or below dir: the mounts cover the whole of a directory
 * of ours that cannot be searched (the command could chmod it open), so
 * nothing in it is within its reach. */
static int denied_within(const struct scan *s, const char *dir)
{
	const struct srt_rules *sets[2];
	size_t i, k, n = strlen(dir);

	if (!s->o->pol)
		return 0;
	sets[0] = &s->o->pol->deny_read;
	sets[1] = &s->o->pol->deny_write;
	for (k = 0; k < 2; k++)
		for (i = 0; i < sets[k]->n; i++) {
			const char *r = sets[k]->v[i].path;

			if (r && !strncmp(r, dir, n) && (r[n] == '\0' || r[n] == '/'))
				return 1;
		}
	return 0;
}

/* What a directory the walk cannot look into is protected as: all of it,
 * read-only, so the command can neither chmod it open nor write below it
 * (wider than the names it may hold, never narrower). */
#define UNLOOKABLE "a directory srt cannot look into (held read-only whole)"

/* A directory of the user's own, open at fd (path), that the user can
 * list but not search (mode 0600): the names in it cannot be opened or
 * statted, and a failure there cannot tell itself from absence, yet the
 * command may chmod it back and write below it (red team: sub/ at 0600
 * hid sub/deeper/.bashrc and its hooks from the walk). It is held
 * read-only whole and not listed (*covered), unless a deny rule at or
 * below it makes the mounts hide all of it. Root searches every
 * directory, so it meets none. */
static int unsearchable_own(struct scan *s, int fd, const char *path, int *covered)
{
	struct stat st;

	*covered = 0;
	if (!path[0])
		path = "/";
	if (geteuid() == 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
	    (st.st_mode & S_IXUSR) || denied_within(s, path))
		return 0;
	*covered = 1;
	return emit(s, path, UNLOOKABLE);
}

static int io_failed(struct scan *s, const char *call, const char *name)
{
	int e = errno;
	char p[PATH_MAX + 2];
	struct stat st;

	if (name && (name[0] == '/' || name[0] == '~'))
		snprintf(p, sizeof(p), "%s", name);
	else
		snprintf(p, sizeof(p), "%s%s%s", s->path[0] ? s->path : "/", name ? "/" : "",
			 name ? name : "");
	/* unreadable, but a directory the command may open or chmod back:
	 * what it holds (or will hold) cannot be left unprotected (red
	 * team: one run made the write root mode 0100, the next wrote its
	 * .bashrc and hooks, the walk having taken it for empty); it is
	 * held read-only whole, and the walk goes on */
	if ((e == EACCES || e == EPERM) && lstat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_uid == geteuid() || access(p, W_OK | X_OK) == 0) && !denied_within(s, p))
		return emit(s, p, UNLOOKABLE);
	if (nothing_there(e))
		return 0;
	snprintf(failure, sizeof(failure), "%s of %s: %s", call, p, strerror(e ? e : EIO));
	return SRT_E_IO;
}

int srt__mandatory_scan_error(int rc, const char *root, struct srt_diag *diag)
{
	if (rc != SRT_E_IO || !failure[0])
		return rc;
	rc = srt_diag_set(diag, SRT_E_IO, root,
			  "the mandatory deny scan of %s failed (%s): srt cannot tell what to protect there",
			  root, failure);
	failure[0] = '\0';
	return rc;
}

/* ---- hard links ---------------------------------------------------------
 * A file with more than one link that must not be written (a protected or
 * denyWrite file) or read (a denyRead file): every other name of it in
 * the root is covered the same way. Only files with st_nlink > 1 are
 * kept, so a tree without such links costs no stat in the walk. */
#define TARGETS_MAX 1024
#define DENIED_DIR_ENTRIES 10000
#define DENIED_DIR_DEPTH 8

struct target {
	dev_t dev;
	ino_t ino;
	int read;
	const char *own; /* a masked file's path: its copy is shown there */
	char what[112];
};

struct targets {
	struct target v[TARGETS_MAX];
	size_t n;
	int full; /* a target was left out (the table full, or memory out):
		   * the scan counts as cut short, which callers refuse */
	int io;   /* a call failed (see io_failed): the scan fails */
};

static void target_add(struct targets *t, const struct stat *st, int read, const char *what)
{
	size_t i;

	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return;
	for (i = 0; i < t->n; i++)
		if (t->v[i].dev == st->st_dev && t->v[i].ino == st->st_ino) {
			t->v[i].read |= read;
			return;
		}
	if (t->n == TARGETS_MAX) {
		t->full = 1;
		return;
	}
	t->v[t->n].dev = st->st_dev;
	t->v[t->n].ino = st->st_ino;
	t->v[t->n].read = read;
	t->v[t->n].own = NULL;
	snprintf(t->v[t->n].what, sizeof(t->v[t->n].what), "%s", what);
	t->n++;
}

/* One report: a name to keep unwritable. An existing file of it with
 * more links joins the targets. */
static int emit(struct scan *s, const char *path, const char *what)
{
	struct stat st;
	int rc = s->fn(s->ctx, path, what);

	if (!rc && s->tg && lstat(path, &st) == 0)
		target_add(s->tg, &st, 0, what);
	return rc;
}

/* Is entry i of the table one this walk protects (not released)? */
static int wanted(const struct scan *s, size_t i, enum srt__protected_kind kind)
{
	return PROT(i)->kind == kind && !srt__protected_released(PROT(i), s->o->released);
}

static int is_dangerous_file(const struct scan *s, const char *name)
{
	size_t i;

	for (i = 0; i < srt__protected_count; i++)
		if (wanted(s, i, SRT__PROT_FILE) && strcasecmp(name, PROT(i)->path) == 0)
			return 1;
	return 0;
}

/* A directory protected whole (.vscode, .husky, ...): not walked into. */
static const struct srt__protected *dangerous_dir(const char *name)
{
	size_t i;

	for (i = 0; i < srt__protected_count; i++)
		if (PROT(i)->kind == SRT__PROT_DIR && strcasecmp(name, PROT(i)->path) == 0)
			return PROT(i);
	return NULL;
}

/* Does a SUB entry ("dir/name") start with the directory name? */
static int sub_of(size_t i, const char *dir)
{
	size_t n = strlen(dir);

	return PROT(i)->kind == SRT__PROT_SUB && strncasecmp(PROT(i)->path, dir, n) == 0 &&
	       PROT(i)->path[n] == '/';
}

/* Report path + "/" + tail (tail may be NULL). */
static int report(struct scan *s, size_t plen, const char *name, const char *tail,
		  const char *what)
{
	char buf[PATH_MAX];
	size_t n;

	n = srt__pathcat(buf, sizeof(buf), s->path, plen, "/", name, tail ? "/" : NULL, tail);
	if (n >= sizeof(buf))
		return 0; /* cannot be a path anyone can create either */
	return emit(s, buf, what);
}

/* Git directories: what git runs hooks from and reads config from, beyond
 * a .git directory's own hooks and config (reported by check_dirs).
 *  - Files that send git elsewhere or add config: commondir (to another
 *    directory's config and hooks) and config.worktree (read with
 *    extensions.worktreeConfig). Protected where they exist; an empty
 *    placeholder where they do not would break git (an empty commondir is
 *    an error), and a new one is the repository guard's (gitguard.h).
 *  - Each submodule's git directory (modules/<name>/, a name may hold
 *    slashes, nested as modules/<name>/modules/<name>/) and each linked
 *    worktree's (worktrees/<name>/).
 *  - The git directory a .git file names (git init --separate-git-dir, a
 *    submodule or worktree checkout), read as git reads it.
 *  - A bare repository (HEAD, objects/, refs/ in a walked directory).
 * Paths are absolute here (a .git file may point anywhere); bounded by the
 * scan's budget and GITDIR_DEPTH levels. */
#define GITDIR_DEPTH 8

static int report_abs(struct scan *s, const char *dir, const char *name, const char *what)
{
	char buf[PATH_MAX];
	size_t n = srt__pathcat(buf, sizeof(buf), dir, strlen(dir), "/", name, NULL, NULL);

	if (n >= sizeof(buf))
		return 0;
	return emit(s, buf, what);
}

static int report_abs_existing(struct scan *s, int gfd, const char *dir, const char *name,
			       const char *what)
{
	struct stat st;

	if (fstatat(gfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	return report_abs(s, dir, name, what);
}

static int protect_gitdir(struct scan *s, int gfd, const char *abs, int own, int level);

/* The git directories below sub (modules/ or worktrees/) of the git
 * directory open at gfd, abs its path. */
static int walk_gitdirs(struct scan *s, int gfd, const char *abs, const char *sub, int modules,
			int level)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int fd, covered, rc = 0;

	if (level > GITDIR_DEPTH || srt__pathcat(dir, sizeof(dir), abs, strlen(abs), "/", sub, NULL, NULL) >= sizeof(dir))
		return 0;
	fd = openat(gfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return io_failed(s, "open", dir);
	if ((rc = unsearchable_own(s, fd, dir, &covered)) || covered) {
		close(fd);
		return rc;
	}
	d = fdopendir(fd);
	if (!d) {
		rc = io_failed(s, "list", dir);
		close(fd);
		return rc ? rc : SRT_E_NOMEM;
	}
	while (!rc && (errno = 0, de = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;
		int cfd;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
					     (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (srt__pathcat(child, sizeof(child), dir, strlen(dir), "/", de->d_name, NULL, NULL) >=
		    sizeof(child))
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			rc = io_failed(s, "open", child);
			continue;
		}
		if (fstatat(cfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) != 0) {
			/* a step of a submodule name with slashes */
			char deeper[PATH_MAX];

			if (modules &&
			    srt__pathcat(deeper, sizeof(deeper), sub, strlen(sub), "/", de->d_name, NULL, NULL) <
				    sizeof(deeper))
				rc = walk_gitdirs(s, gfd, abs, deeper, 1, level + 1);
		} else if (modules) {
			rc = protect_gitdir(s, cfd, child, 0, level + 1);
		} else {
			/* a linked worktree takes hooks and config from the
			 * common directory; its pointers there matter */
			rc = report_abs_existing(s, cfd, child, "commondir", ".git/worktrees/*/commondir");
			if (!rc)
				rc = report_abs_existing(s, cfd, child, "config.worktree",
							 ".git/worktrees/*/config.worktree");
		}
		close(cfd);
		if (*s->truncated)
			break;
	}
	if (!rc && !de && errno)
		rc = io_failed(s, "list", dir);
	closedir(d);
	return rc;
}

/* A git directory open at gfd whose path is abs. own: a .git directory of
 * the walk, whose hooks and config check_dirs reported already. */
static int protect_gitdir(struct scan *s, int gfd, const char *abs, int own, int level)
{
	int rc = 0;

	if (!own) {
		rc = report_abs(s, abs, "hooks", ".git/hooks of a git directory");
		if (!rc && !s->o->allow_git_config)
			rc = report_abs_existing(s, gfd, abs, "config", ".git/config of a git directory");
	}
	if (!rc)
		rc = report_abs_existing(s, gfd, abs, "commondir", ".git/commondir");
	if (!rc)
		rc = report_abs_existing(s, gfd, abs, "config.worktree", ".git/config.worktree");
	if (!rc && !*s->truncated)
		rc = walk_gitdirs(s, gfd, abs, "modules", 1, level);
	if (!rc && !*s->truncated)
		rc = walk_gitdirs(s, gfd, abs, "worktrees", 0, GITDIR_DEPTH);
	return rc;
}

/* core.hooksPath of the git config file name below dfd, read as git
 * reads the simple form: a "[core]" section, a "hooksPath = value" line,
 * the value unquoted; the last one wins. 0: found (out set); -1: none;
 * -2: a call failed (errno says which way: see io_failed). */
#define GITCONFIG_MAX (256 * 1024)

static int read_hooks_path(int dfd, const char *name, int follow, char *out, size_t outsz)
{
	char *buf, *line, *save = NULL;
	ssize_t n;
	int fd, in_core = 0, found = -1;

	fd = openat(dfd, name, O_RDONLY | (follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return nothing_there(errno) ? -1 : -2;
	buf = malloc(GITCONFIG_MAX + 1);
	if (!buf)
		errno = ENOMEM;
	n = buf ? read(fd, buf, GITCONFIG_MAX) : -1;
	if (n < 0) {
		int e = errno;

		close(fd);
		free(buf);
		errno = e;
		return -2;
	}
	close(fd);
	if (n == 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *v, *e;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			in_core = !strncasecmp(p, "[core]", 6);
			continue;
		}
		if (!in_core || strncasecmp(p, "hookspath", 9) != 0)
			continue;
		v = p + 9;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		e = v + strlen(v);
		while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (e - v >= 2 && *v == '"' && e[-1] == '"') {
			e[-1] = '\0';
			v++;
		}
		if (*v && strlen(v) < outsz) {
			strcpy(out, v);
			found = 0;
		}
	}
	free(buf);
	return found;
}

static int path_under(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/") || !root[0])
		return p[0] == '/';
	return !strncmp(root, p, n) && (p[n] == '/' || p[n] == '\0');
}

/* A link on the way to the hooks directory $HOME's git configuration
 * names: held where this root holds it, so the command cannot point it
 * elsewhere. */
struct hooks_links {
	struct scan *s;
	int rc;
};

static int hooks_link(void *ctx, const char *link)
{
	struct hooks_links *hl = ctx;

	if (path_under(hl->s->root, link) && (hl->rc = emit(hl->s, link, "core.hooksPath")))
		return 1;
	return 0;
}

/* The directory core.hooksPath names in the config file cfg below dfd
 * (top: the directory git runs hooks from, for a relative value; NULL:
 * $HOME's configuration, where only absolute and "~/" values count).
 * Reported where it exists or lies in the root being walked (a placeholder
 * holds it then). $HOME's configuration names it for every repository, so
 * it counts in every root, $HOME in it or not (red team: ~/.gitconfig's
 * hooks directory in the write root took a pre-commit hook), read through
 * a dotfile manager's link, and placed where its links lead (home_in_root:
 * $HOME lies in this root, where an existing directory was reported
 * wherever it lay). */
static int check_hooks_path(struct scan *s, int dfd, const char *cfg, const char *top,
			    int home_in_root)
{
	char v[PATH_MAX], abs[PATH_MAX];
	struct stat st;
	int n;
	size_t i;

	for (i = 0; i < srt__protected_count; i++)
		if (PROT(i)->kind == SRT__PROT_GIT && !strcmp(PROT(i)->path, "core.hooksPath"))
			break;
	if (i == srt__protected_count || !wanted(s, i, SRT__PROT_GIT))
		return 0;
	n = read_hooks_path(dfd, cfg, !top, v, sizeof(v));
	if (n == -2)
		return io_failed(s, "read", top ? ".git/config" : "~/.gitconfig");
	if (n)
		return 0;
	if (v[0] == '/')
		n = snprintf(abs, sizeof(abs), "%s", v);
	else if (v[0] == '~' && v[1] == '/' && s->o->home)
		n = snprintf(abs, sizeof(abs), "%s/%s", s->o->home, v + 2);
	else if (top)
		n = snprintf(abs, sizeof(abs), "%s/%s", top[0] ? top : "", v);
	else
		return 0;
	if (n < 0 || (size_t)n >= sizeof(abs))
		return 0;
	/* trailing slashes: one name */
	while (n > 1 && abs[n - 1] == '/')
		abs[--n] = '\0';
	if (!top) {
		struct hooks_links hl = { s, 0 };
		char real[PATH_MAX];
		int r = srt__mountinfo_resolve_links(abs, real, sizeof(real), hooks_link, &hl);

		if (hl.rc)
			return hl.rc;
		if (!r && strcmp(real, abs) && path_under(s->root, real)) {
			int rc = emit(s, real, "core.hooksPath");

			if (rc)
				return rc;
		}
		if (!home_in_root && !path_under(s->root, abs))
			return 0;
	}
	if (lstat(abs, &st) != 0 && !path_under(s->root, abs))
		return 0;
	return emit(s, abs, "core.hooksPath");
}

/* A relative core.hooksPath in $HOME's git configuration (".githooks")
 * names a directory in every repository, relative to the top of its
 * working tree: held in the repository at top as a repository's own value
 * is (red team: ~/.gitconfig's ".githooks" took a pre-commit hook in the
 * write root's repository). */
static int check_home_hooks_rel(struct scan *s, const char *top)
{
	static const char *const cfgs[] = { ".gitconfig", ".config/git/config" };
	char v[PATH_MAX], abs[PATH_MAX];
	size_t i, k;
	int hfd, n, rc = 0;

	for (i = 0; i < srt__protected_count; i++)
		if (PROT(i)->kind == SRT__PROT_GIT && !strcmp(PROT(i)->path, "core.hooksPath"))
			break;
	if (i == srt__protected_count || !wanted(s, i, SRT__PROT_GIT) || !s->o->home ||
	    s->o->home[0] != '/' || (hfd = open(s->o->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	for (k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]) && !rc; k++) {
		struct stat st;

		n = read_hooks_path(hfd, cfgs[k], 1, v, sizeof(v));
		if (n == -2) {
			rc = io_failed(s, "read", k ? "~/.config/git/config" : "~/.gitconfig");
			continue;
		}
		if (n || v[0] == '/' || (v[0] == '~' && v[1] == '/'))
			continue;
		n = snprintf(abs, sizeof(abs), "%s/%s", top[0] ? top : "", v);
		if (n < 0 || (size_t)n >= sizeof(abs))
			continue;
		while (n > 1 && abs[n - 1] == '/')
			abs[--n] = '\0';
		if (lstat(abs, &st) == 0 || path_under(s->root, abs))
			rc = emit(s, abs, "core.hooksPath");
	}
	close(hfd);
	return rc;
}

/* The .git directory name below dfd (s->path's first plen bytes). */
static int check_gitdir(struct scan *s, int dfd, size_t plen, const char *git)
{
	char abs[PATH_MAX], top[PATH_MAX];
	int gfd, rc;

	if (srt__pathcat(abs, sizeof(abs), s->path, plen, "/", git, NULL, NULL) >= sizeof(abs))
		return 0;
	snprintf(top, sizeof(top), "%.*s", (int)plen, s->path);
	gfd = openat(dfd, git, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return io_failed(s, "open", git);
	rc = protect_gitdir(s, gfd, abs, 1, 1);
	if (!rc)
		rc = check_hooks_path(s, gfd, "config", top[0] ? top : "/", 0);
	close(gfd);
	return rc;
}

/* The git directory a .git file below dfd names, read as git reads it:
 * "gitdir: " and the rest up to the trailing CR and LF characters,
 * relative to the file's directory. */
static int check_gitfile(struct scan *s, int dfd, const char *name)
{
	char buf[PATH_MAX + 16], abs[PATH_MAX], real[PATH_MAX];
	ssize_t n;
	size_t len;
	int fd, gfd, rc;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return io_failed(s, "open", name);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		rc = io_failed(s, "read", name);
		close(fd);
		return rc;
	}
	close(fd);
	if (n <= 8)
		return 0;
	buf[n] = '\0';
	len = (size_t)n;
	if (strncmp(buf, "gitdir: ", 8) != 0 || strlen(buf) != len)
		return 0;
	while (len > 8 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	gfd = openat(dfd, buf + 8, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0)
		return io_failed(s, "open", buf + 8);
	snprintf(abs, sizeof(abs), "/proc/self/fd/%d", gfd);
	n = readlink(abs, real, sizeof(real) - 1);
	if (n <= 0 || (size_t)n >= sizeof(real) - 1) {
		close(gfd);
		return 0;
	}
	real[n] = '\0';
	rc = protect_gitdir(s, gfd, real, 0, 1);
	close(gfd);
	return rc;
}

/* A walked directory git would take for a bare repository. */
static int check_bare_dir(struct scan *s, int dfd, size_t plen)
{
	char abs[PATH_MAX];
	struct stat st;

	if (fstatat(dfd, "objects", &st, 0) != 0)
		return io_failed(s, "stat", "objects");
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (fstatat(dfd, "refs", &st, 0) != 0)
		return io_failed(s, "stat", "refs");
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (snprintf(abs, sizeof(abs), "%.*s", (int)plen, s->path) >= (int)sizeof(abs))
		return 0;
	return protect_gitdir(s, dfd, abs[0] ? abs : "/", 0, 1);
}

/* The protected directories held by the directory open at dfd. */
static int check_dirs(struct scan *s, int dfd, size_t plen, const char *name,
		      unsigned char type)
{
	const struct srt__protected *pd = dangerous_dir(name);
	size_t i;
	int rc = 0;

	if (pd) {
		if ((type == DT_DIR || type == DT_LNK) && !srt__protected_released(pd, s->o->released))
			rc = report(s, plen, name, NULL, pd->name);
	} else if (type == DT_DIR && !strcasecmp(name, ".claude")) {
		/* even absent: the tool reads it from any such directory */
		for (i = 0; i < srt__protected_count && !rc; i++)
			if (sub_of(i, name) && wanted(s, i, SRT__PROT_SUB))
				rc = report(s, plen, name, PROT(i)->path + strlen(name) + 1, PROT(i)->name);
	} else if (strcasecmp(name, ".git") == 0) {
		if (type == DT_DIR || type == DT_LNK) {
			/* hooks even before they exist: a repo is found by its .git */
			rc = report(s, plen, name, "hooks", ".git/hooks");
			if (!rc && !s->o->allow_git_config)
				rc = report(s, plen, name, "config", ".git/config");
			if (!rc && type == DT_DIR)
				rc = check_gitdir(s, dfd, plen, name);
		} else {
			/* a worktree or submodule: the .git file points elsewhere */
			rc = report(s, plen, name, NULL, ".git");
			if (!rc && type == DT_REG)
				rc = check_gitfile(s, dfd, name);
		}
		if (!rc) {
			char top[PATH_MAX];

			snprintf(top, sizeof(top), "%.*s", (int)plen, s->path);
			rc = check_home_hooks_rel(s, top);
		}
	}
	return rc;
}

/* The deepest level only holds files that count, so instead of listing a
 * directory (every entry, each a getdents record) its few dangerous names
 * are looked up. A case-insensitive filesystem answers the lookup for any
 * spelling; on a case-sensitive one ".BASHRC" is not the file shells read. */
static int probe_leaf(struct scan *s, int dfd, const char *dir, size_t plen)
{
	char rel[NAME_MAX + 32];
	size_t i, dl = strlen(dir);
	int rc = 0;

	if (dl > NAME_MAX)
		return 0;
	memcpy(rel, dir, dl);
	rel[dl] = '/';
	for (i = 0; i < srt__protected_count && !rc; i++) {
		struct stat st;

		if (!wanted(s, i, SRT__PROT_FILE))
			continue;
		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		/* "dir" was a directory in the listing; if it has been swapped
		 * for a link since, the name reported below is resolved (and
		 * the deny applied at its target) by the caller anyway */
		srt__pathcat(rel + dl + 1, sizeof(rel) - dl - 1, PROT(i)->path, strlen(PROT(i)->path), NULL,
			     NULL, NULL, NULL);
		if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (!S_ISDIR(st.st_mode))
				rc = report(s, plen, PROT(i)->path, NULL, PROT(i)->name);
		} else {
			rc = io_failed(s, "stat", PROT(i)->path);
		}
	}
	return rc;
}

static int walk(struct scan *s, int dfd, size_t plen, int depth)
{
	DIR *d;
	struct dirent *de;
	int covered, rc = 0;

	if ((rc = unsearchable_own(s, dfd, s->path, &covered)) || covered) {
		close(dfd);
		return rc;
	}
	d = fdopendir(dfd);
	if (!d) {
		rc = io_failed(s, "list", NULL);
		close(dfd);
		return rc ? rc : SRT_E_NOMEM;
	}
	while ((errno = 0, de = readdir(d))) {
		const char *name = de->d_name;
		unsigned char type = de->d_type;
		size_t nlen;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
			continue;
		if (name[0] == 'H' && type != DT_DIR && strcmp(name, "HEAD") == 0 &&
		    (depth == 0 || depth <= s->o->depth - 2)) {
			/* this directory may be a bare repository */
			rc = check_bare_dir(s, dirfd(d), plen);
			if (rc || *s->truncated)
				break;
			continue;
		}
		if (name[0] != '.' && type != DT_DIR && type != DT_UNKNOWN)
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				if ((rc = io_failed(s, "stat", name)))
					break;
				continue;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		if (name[0] == '.') {
			if (type != DT_DIR && depth <= s->o->depth - 1 && is_dangerous_file(s, name)) {
				rc = report(s, plen, name, NULL, name);
				if (rc)
					break;
			}
			if (depth == 0 || depth <= s->o->depth - 2) {
				rc = check_dirs(s, dirfd(d), plen, name, type);
				if (rc)
					break;
			}
			if (strcasecmp(name, ".git") == 0 || dangerous_dir(name))
				continue;
		}
		if (type != DT_DIR || depth + 1 > s->o->depth - 1 ||
		    strcmp(name, "node_modules") == 0)
			continue;
		/* "/" as a write root: the sandbox gets its own /proc and /dev,
		 * and nothing below /sys is a file anyone sources */
		if (plen == 0 && (strcmp(name, "proc") == 0 || strcmp(name, "sys") == 0 ||
				  strcmp(name, "dev") == 0))
			continue;
		nlen = strlen(name);
		if (plen + 1 + nlen + 1 > sizeof(s->path))
			continue;
		{
			int cfd = -1;

			if (depth + 1 < s->o->depth - 1) {
				cfd = openat(dirfd(d), name,
					     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (cfd < 0) {
					if ((rc = io_failed(s, "open", name)))
						break;
					continue;
				}
			}
			s->path[plen] = '/';
			memcpy(s->path + plen + 1, name, nlen + 1);
			if (cfd < 0)
				rc = probe_leaf(s, dirfd(d), name, plen + 1 + nlen);
			else
				rc = walk(s, cfd, plen + 1 + nlen, depth + 1);
			s->path[plen] = '\0';
			if (rc || *s->truncated)
				break;
		}
	}
	if (!rc && !de && errno)
		rc = io_failed(s, "list", NULL);
	closedir(d);
	return rc;
}

/* ---- the memo (mandatory.h) -------------------------------------------- */

/* A walk is replayed for a later one with the same root and the same
 * options. What the options point to is compared by value or by the
 * identity of what it names, never through the pointers the first caller
 * passed: the two plans pass their own copies (the Landlock layer plans
 * with a copy of the policy and its own resolved $HOME), which may be gone
 * by the time the second plan asks. */
struct memo_scan {
	char *root;
	struct srt__mandatory_opts o; /* o.home and o.pol are cleared */
	char *home;                   /* a copy of o->home, or NULL */
	int has_pol;
	const struct srt_rule *deny_read, *deny_write; /* the policy's rule lists */
	size_t n_deny_read, n_deny_write;
	const struct srt_masked_file *masked;
	size_t n_masked;
	size_t used;        /* budget the walk took */
	char **rep;         /* path, what, path, what, ... */
	size_t n_rep, alloc_rep;
	struct memo_scan *next;
};

static _Thread_local int memo_on;
static _Thread_local struct memo_scan *memo;
static void home_memo_free(void);
static void home_dir_memo_free(void);
static void home_stat_memo_free(void);

static void memo_free_one(struct memo_scan *m)
{
	size_t i;

	for (i = 0; i < m->n_rep; i++)
		free(m->rep[i]);
	free(m->rep);
	free(m->root);
	free(m->home);
	free(m);
}

void srt__mandatory_memo_begin(void)
{
	srt__mandatory_memo_end();
	memo_on = 1;
	srt__mountinfo_dirs_memo(1);
}

void srt__mandatory_memo_end(void)
{
	while (memo) {
		struct memo_scan *m = memo;
		memo = m->next;
		memo_free_one(m);
	}
	home_memo_free();
	home_dir_memo_free();
	home_stat_memo_free();
	srt__mountinfo_dirs_memo(0);
	memo_on = 0;
}

/* The caller's callbacks, and a copy of each report for the memo (a copy
 * that cannot be made only means this walk is not kept). A copy's "what"
 * starts with 'W' (the write callback) or 'R' (read_fn). */
struct recorder {
	srt__mandatory_fn fn, read_fn;
	void *ctx;
	struct memo_scan *m; /* the walk being recorded, or NULL */
	int lost;            /* a copy failed: the walk is not kept */
};

static int record_kind(struct recorder *r, char kind, const char *path, const char *what)
{
	struct memo_scan *m = r->lost ? NULL : r->m;

	if (m && m->n_rep + 2 > m->alloc_rep) {
		size_t na = m->alloc_rep ? m->alloc_rep * 2 : 32;
		char **nv = realloc(m->rep, na * sizeof(*nv));

		if (nv) {
			m->rep = nv;
			m->alloc_rep = na;
		} else {
			r->lost = 1;
			m = NULL;
		}
	}
	if (m) {
		char *p = strdup(path), *w = malloc(strlen(what) + 2);

		if (p && w) {
			w[0] = kind;
			strcpy(w + 1, what);
			m->rep[m->n_rep++] = p;
			m->rep[m->n_rep++] = w;
		} else {
			free(p);
			free(w);
			r->lost = 1;
		}
	}
	if (kind == 'R' && r->read_fn)
		return r->read_fn(r->ctx, path, what);
	return r->fn(r->ctx, path, what);
}

static int record(void *ctx, const char *path, const char *what)
{
	return record_kind(ctx, 'W', path, what);
}

static int record_read(void *ctx, const char *path, const char *what)
{
	return record_kind(ctx, 'R', path, what);
}

static struct memo_scan *memo_find(const char *root, const struct srt__mandatory_opts *o)
{
	struct memo_scan *m;

	for (m = memo; m; m = m->next) {
		if (strcmp(m->root, root) || m->o.depth != o->depth ||
		    m->o.allow_git_config != o->allow_git_config ||
		    m->o.root_names != o->root_names || m->o.released != o->released ||
		    m->has_pol != (o->pol != NULL) || !m->home != !o->home ||
		    (m->home && strcmp(m->home, o->home)))
			continue;
		if (o->pol && (m->deny_read != o->pol->deny_read.v ||
			       m->n_deny_read != o->pol->deny_read.n ||
			       m->deny_write != o->pol->deny_write.v ||
			       m->n_deny_write != o->pol->deny_write.n ||
			       m->masked != o->pol->masked_files ||
			       m->n_masked != o->pol->n_masked_files))
			continue;
		return m;
	}
	return NULL;
}

static int scan_walk(const char *root, const struct srt__mandatory_opts *o,
		     size_t *budget, int *truncated, srt__mandatory_fn fn,
		     srt__mandatory_fn read_fn, void *ctx);

int srt__mandatory_scan(const char *root, const struct srt__mandatory_opts *o,
			size_t *budget, int *truncated, srt__mandatory_fn fn, void *ctx)
{
	struct memo_scan *m;
	struct recorder r;
	size_t before = *budget, i;
	int cut = 0, rc;

	if (!memo_on)
		return scan_walk(root, o, budget, truncated, fn, o->read_fn, ctx);
	m = memo_find(root, o);
	if (m && m->used <= *budget) {
		for (i = 0; i + 1 < m->n_rep; i += 2) {
			const char *w = m->rep[i + 1];

			rc = (w[0] == 'R' && o->read_fn ? o->read_fn : fn)(ctx, m->rep[i], w + 1);
			if (rc)
				return rc;
		}
		*budget -= m->used;
		return SRT_OK;
	}
	r.fn = fn;
	r.read_fn = o->read_fn;
	r.ctx = ctx;
	r.lost = 0;
	r.m = m ? NULL : calloc(1, sizeof(*r.m));
	if (r.m && !(r.m->root = strdup(root))) {
		free(r.m);
		r.m = NULL;
	}
	rc = scan_walk(root, o, budget, &cut, record, record_read, &r);
	if (cut)
		*truncated = 1;
	if (r.m && !rc && !cut && !r.lost && o->home && !(r.m->home = strdup(o->home)))
		r.lost = 1;
	if (r.m && !rc && !cut && !r.lost) {
		r.m->o = *o;
		r.m->o.home = NULL;
		r.m->o.pol = NULL;
		r.m->has_pol = o->pol != NULL;
		if (o->pol) {
			r.m->deny_read = o->pol->deny_read.v;
			r.m->n_deny_read = o->pol->deny_read.n;
			r.m->deny_write = o->pol->deny_write.v;
			r.m->n_deny_write = o->pol->deny_write.n;
			r.m->masked = o->pol->masked_files;
			r.m->n_masked = o->pol->n_masked_files;
		}
		r.m->used = before - *budget;
		r.m->next = memo;
		memo = r.m;
	} else if (r.m) {
		memo_free_one(r.m);
	}
	return rc;
}

/* The regular files of a denied directory (bounded: a denied tree too
 * large to list keeps what was found). */
/* As io_failed, for the lists of files to cover: t->io fails the scan. */
static void target_io(struct targets *t, const char *call, const char *path, const char *name)
{
	int e = errno;

	if (nothing_there(e) || t->io)
		return;
	snprintf(failure, sizeof(failure), "%s of %s%s%s: %s", call, path, name ? "/" : "",
		 name ? name : "", strerror(e ? e : EIO));
	t->io = 1;
}

static void targets_of_dir(struct targets *t, int dfd, int read, const char *what, int depth,
			   size_t *left, const char *top)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de = NULL;

	if (!d) {
		target_io(t, "list", top, NULL);
		close(dfd);
		return;
	}
	while (*left && (errno = 0, de = readdir(d))) {
		struct stat st;

		(*left)--;
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
					     (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type == DT_DIR && depth < DENIED_DIR_DEPTH) {
			int cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0)
				targets_of_dir(t, cfd, read, what, depth + 1, left, top);
			else
				target_io(t, "open", top, de->d_name);
			continue;
		}
		if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				target_add(t, &st, read, what);
			else
				target_io(t, "stat", top, de->d_name);
		}
	}
	if (!de && errno && *left)
		target_io(t, "list", top, NULL);
	closedir(d);
}

static void targets_of_rules(struct targets *t, const struct srt_rules *rules, int read)
{
	size_t i, left = DENIED_DIR_ENTRIES;

	for (i = 0; i < rules->n; i++) {
		const struct srt_rule *r = &rules->v[i];
		struct stat st;
		char what[112];

		if (r->flags & SRT_RULE_GLOB)
			continue;
		if (stat(r->path, &st) != 0) {
			target_io(t, "stat", r->path, NULL);
			continue;
		}
		snprintf(what, sizeof(what), "%s", r->origin ? r->origin : read ? "denyRead" : "denyWrite");
		if (S_ISDIR(st.st_mode)) {
			int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (fd >= 0)
				targets_of_dir(t, fd, read, what, 0, &left, r->path);
			else
				target_io(t, "open", r->path, NULL);
		} else {
			target_add(t, &st, read, what);
		}
	}
}

/* A masked credential file (its copy is bound at its path): its other
 * names would read the real value, so they are hidden like a denyRead
 * file's; its own name is left to the copy. */
static void targets_of_masked(struct targets *t, const struct srt_policy *pol)
{
	size_t i, j;

	for (i = 0; i < pol->n_masked_files; i++) {
		const char *path = pol->masked_files[i].path;
		struct stat st;

		if (!path || stat(path, &st) != 0)
			continue;
		target_add(t, &st, 1, "a masked credentials file");
		for (j = 0; j < t->n; j++)
			if (t->v[j].dev == st.st_dev && t->v[j].ino == st.st_ino)
				t->v[j].own = path;
	}
}

/* The files of $HOME's protected directories with more than one link
 * (~/.config/systemd/user/app.service, ~/.claude/commands/x.md): a hard
 * link of one in a write root is that unit or command under a name the
 * walk does not know (red team: a unit was appended to through one). The
 * directories are listed once per plan while the memo is on (each root's
 * walk asks), to DENIED_DIR_ENTRIES entries in all and DENIED_DIR_DEPTH
 * levels, as a denied directory is; only the few files with other links
 * are kept. */
struct home_dir_target {
	dev_t dev;
	ino_t ino;
	size_t prot; /* the entry of the table */
};

static _Thread_local struct home_dir_target *home_dir_memo;
static _Thread_local size_t home_dir_memo_n;
static _Thread_local char *home_dir_memo_home; /* NULL: not listed */

static void home_dir_memo_free(void)
{
	free(home_dir_memo);
	free(home_dir_memo_home);
	home_dir_memo = NULL;
	home_dir_memo_n = 0;
	home_dir_memo_home = NULL;
}

/* List $HOME's protected directories into *out; 0, or -1 when memory ran
 * out or a directory held more such files than the table keeps (*out then
 * misses some, and the caller must not take it as complete), or -2 when a
 * call failed (target_io). */
static int home_dirs_list(const struct scan *s, const char *home, struct home_dir_target **out,
			  size_t *n_out)
{
	struct targets *t = malloc(sizeof(*t));
	size_t i, j, left = DENIED_DIR_ENTRIES;

	*out = NULL;
	*n_out = 0;
	if (!t)
		return -1;
	t->full = 0;
	t->io = 0;
	for (i = 0; i < srt__protected_count && left; i++) {
		char abs[PATH_MAX];
		struct stat st;
		size_t from = t->n = 0;
		int fd;

		if (PROT(i)->kind == SRT__PROT_GIT || !wanted(s, i, PROT(i)->kind) ||
		    srt__pathcat(abs, sizeof(abs), home, strlen(home), "/", PROT(i)->path, NULL, NULL) >=
			    sizeof(abs))
			continue;
		if (stat(abs, &st) != 0) {
			target_io(t, "stat", abs, NULL);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((fd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			target_io(t, "open", abs, NULL);
			continue;
		}
		targets_of_dir(t, fd, 0, PROT(i)->name, 0, &left, abs);
		if (t->n > from) {
			struct home_dir_target *nv = realloc(*out, (*n_out + t->n) * sizeof(*nv));

			if (!nv) {
				free(t);
				return -1;
			}
			*out = nv;
			for (j = from; j < t->n; j++) {
				nv[*n_out].dev = t->v[j].dev;
				nv[*n_out].ino = t->v[j].ino;
				nv[*n_out].prot = i;
				(*n_out)++;
			}
		}
	}
	{
		int full = t->full, io = t->io;

		free(t);
		return io ? -2 : full ? -1 : 0;
	}
}

static void targets_of_home_dirs(struct scan *s, const char *home)
{
	struct home_dir_target *v = NULL;
	size_t n = 0, i;
	int r = 0;

	if (memo_on && home_dir_memo_home && !strcmp(home_dir_memo_home, home)) {
		v = home_dir_memo;
		n = home_dir_memo_n;
	} else if ((r = home_dirs_list(s, home, &v, &n)) != 0) {
		if (r == -2)
			s->tg->io = 1;
		else
			s->tg->full = 1;
	} else if (memo_on) {
		home_dir_memo_free();
		if ((home_dir_memo_home = strdup(home))) {
			home_dir_memo = v;
			home_dir_memo_n = n;
		}
	}
	for (i = 0; i < n; i++) {
		struct stat st;
		char what[112];

		memset(&st, 0, sizeof(st));
		st.st_mode = S_IFREG;
		st.st_nlink = 2;
		st.st_dev = v[i].dev;
		st.st_ino = v[i].ino;
		snprintf(what, sizeof(what), "a file of %s", PROT(v[i].prot)->name);
		target_add(s->tg, &st, 0, what);
	}
	if (v != home_dir_memo)
		free(v);
}

/* What stat says of each of $HOME's protected names: every root's walk
 * asks, and while the memo is on they are statted once per plan. stat,
 * not lstat: a dotfile manager's ~/.bashrc is a link, and the file bash
 * runs is its target, whose other names in a root must be covered too
 * (red team: a hard link of the target was written). */
struct home_stat {
	int ok;
	struct stat st;
};

static _Thread_local struct home_stat *home_stat_memo; /* srt__protected_count */
static _Thread_local char *home_stat_memo_home;

static void home_stat_memo_free(void)
{
	free(home_stat_memo);
	free(home_stat_memo_home);
	home_stat_memo = NULL;
	home_stat_memo_home = NULL;
}

/* The names statted, memoised or fresh (the caller frees what is not the
 * memo), or NULL when memory ran out. */
static struct home_stat *home_stats(const char *home, int *io)
{
	struct home_stat *v;
	size_t i;

	*io = 0;
	if (memo_on && home_stat_memo && !strcmp(home_stat_memo_home, home))
		return home_stat_memo;
	v = calloc(srt__protected_count, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < srt__protected_count; i++) {
		char abs[PATH_MAX];

		if (PROT(i)->kind == SRT__PROT_GIT ||
		    srt__pathcat(abs, sizeof(abs), home, strlen(home), "/", PROT(i)->path, NULL, NULL) >=
			    sizeof(abs))
			continue;
		v[i].ok = stat(abs, &v[i].st) == 0;
		/* a failed call is no absent file: its other names would go
		 * unlooked-for (red team: a hard link of ~/.bashrc written) */
		if (!v[i].ok && !nothing_there(errno)) {
			snprintf(failure, sizeof(failure), "stat of %s: %s", abs, strerror(errno));
			*io = 1;
			free(v);
			return NULL;
		}
	}
	if (memo_on) {
		home_stat_memo_free();
		if ((home_stat_memo_home = strdup(home)))
			home_stat_memo = v;
	}
	return v;
}

/* Before the walk: $HOME's protected files and the policy's denied ones. */
static void targets_before(struct scan *s)
{
	const char *home = s->o->home;
	size_t i;

	if (home && home[0] == '/') {
		int io;
		struct home_stat *hs = home_stats(home, &io);

		/* a table that cannot be made leaves these files out: the
		 * scan counts as cut short, or failed, and the run is refused */
		if (!hs && io)
			s->tg->io = 1;
		else if (!hs)
			s->tg->full = 1;
		/* every kind: a name inside a directory too
		 * (~/.claude/settings.json; red team: a hard link of it was
		 * written) */
		for (i = 0; hs && i < srt__protected_count; i++)
			if (PROT(i)->kind != SRT__PROT_GIT && wanted(s, i, PROT(i)->kind) && hs[i].ok)
				target_add(s->tg, &hs[i].st, 0, PROT(i)->name);
		if (hs != home_stat_memo)
			free(hs);
		targets_of_home_dirs(s, home);
	}
	if (s->o->pol) {
		targets_of_rules(s->tg, &s->o->pol->deny_read, 1);
		targets_of_rules(s->tg, &s->o->pol->deny_write, 0);
		targets_of_masked(s->tg, s->o->pol);
	}
}

/* Every other name, in the root, of a target: the files of the
 * directories the walk lists (to mandatoryDenySearchDepth), statted only
 * when there is a target at all. */
static int own_name(const struct scan *s, size_t plen, const char *name, const char *own)
{
	size_t n = strlen(own);

	return n > plen && !strncmp(own, s->path, plen) && own[plen] == '/' &&
	       !strcmp(own + plen + 1, name);
}

static int link_walk(struct scan *s, int dfd, size_t plen, int depth)
{
	DIR *d;
	struct dirent *de;
	int covered, rc = unsearchable_own(s, dfd, s->path, &covered);

	if (rc || covered) {
		close(dfd);
		return rc;
	}
	d = fdopendir(dfd);
	if (!d) {
		rc = io_failed(s, "list", NULL);
		close(dfd);
		return rc ? rc : SRT_E_NOMEM;
	}
	while (!rc && (errno = 0, de = readdir(d))) {
		const char *name = de->d_name;
		unsigned char type;
		struct stat st;
		size_t i, nlen;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				rc = io_failed(s, "stat", name);
				continue;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type == DT_DIR) {
			int cfd;

			if (depth + 1 > s->o->depth - 1 || !strcmp(name, "node_modules") ||
			    (plen == 0 && (!strcmp(name, "proc") || !strcmp(name, "sys") ||
					   !strcmp(name, "dev"))))
				continue;
			nlen = strlen(name);
			if (plen + 1 + nlen + 1 > sizeof(s->path))
				continue;
			cfd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				rc = io_failed(s, "open", name);
				continue;
			}
			s->path[plen] = '/';
			memcpy(s->path + plen + 1, name, nlen + 1);
			rc = link_walk(s, cfd, plen + 1 + nlen, depth + 1);
			s->path[plen] = '\0';
			if (*s->truncated)
				break;
			continue;
		}
		if (type != DT_REG)
			continue;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = io_failed(s, "stat", name);
			continue;
		}
		if (!S_ISREG(st.st_mode) || st.st_nlink < 2)
			continue;
		for (i = 0; i < s->tg->n && !rc; i++) {
			const struct target *t = &s->tg->v[i];
			char what[160];

			if (t->dev != st.st_dev || t->ino != st.st_ino)
				continue;
			if (t->own && own_name(s, plen, name, t->own))
				break;
			snprintf(what, sizeof(what), "hard link to %s", t->what);
			rc = report(s, plen, name, NULL, what);
			if (!rc && t->read) {
				char buf[PATH_MAX];

				if (srt__pathcat(buf, sizeof(buf), s->path, plen, "/", name, NULL, NULL) <
				    sizeof(buf))
					rc = (s->read_fn ? s->read_fn : s->fn)(s->ctx, buf, what);
			}
			break;
		}
	}
	if (!rc && !de && errno)
		rc = io_failed(s, "list", NULL);
	closedir(d);
	return rc;
}

/* Where a protected name of $HOME is, and the links on the way there.
 * Every write root's walk asks this of the same names (seven walks in a
 * plain run), so while the memo is on the answers are kept for the plan;
 * out of it they are asked fresh each time. */
struct home_name {
	int done;
	int r;         /* srt__mountinfo_resolve_links's result */
	char *real;    /* where the name is */
	char **links;  /* each link met on the way, in order */
	size_t n_links;
	int oom;       /* a link could not be kept */
};

static _Thread_local struct home_name *home_memo; /* srt__protected_count */
static _Thread_local char *home_memo_home;

static void home_name_clear(struct home_name *h)
{
	size_t i;

	for (i = 0; i < h->n_links; i++)
		free(h->links[i]);
	free(h->links);
	free(h->real);
	memset(h, 0, sizeof(*h));
}

static void home_memo_free(void)
{
	size_t i;

	if (home_memo)
		for (i = 0; i < srt__protected_count; i++)
			home_name_clear(&home_memo[i]);
	free(home_memo);
	free(home_memo_home);
	home_memo = NULL;
	home_memo_home = NULL;
}

static int home_link_keep(void *ctx, const char *link)
{
	struct home_name *h = ctx;
	char **nv = realloc(h->links, (h->n_links + 1) * sizeof(*nv));

	if (!nv || !(nv[h->n_links] = strdup(link))) {
		if (nv)
			h->links = nv;
		h->oom = 1;
		return -1;
	}
	h->links = nv;
	h->n_links++;
	return 0;
}

/* h filled for abs; -1 only when memory ran out */
static int home_name_resolve(const char *abs, struct home_name *h)
{
	char real[PATH_MAX];

	memset(h, 0, sizeof(*h));
	h->r = srt__mountinfo_resolve_links(abs, real, sizeof(real), home_link_keep, h);
	if (h->oom)
		return -1;
	if (!h->r && !(h->real = strdup(real)))
		return -1;
	h->done = 1;
	return 0;
}

/* The answer for protected name i at abs: from the memo, or resolved
 * into *tmp (which the caller clears). NULL when memory ran out. */
static struct home_name *home_name_get(const char *home, size_t i, const char *abs,
				       struct home_name *tmp)
{
	if (memo_on) {
		if (home_memo && strcmp(home_memo_home, home))
			home_memo_free();
		if (!home_memo) {
			home_memo = calloc(srt__protected_count, sizeof(*home_memo));
			home_memo_home = strdup(home);
			if (!home_memo || !home_memo_home) {
				home_memo_free();
				return NULL;
			}
		}
		if (!home_memo[i].done && home_name_resolve(abs, &home_memo[i])) {
			home_name_clear(&home_memo[i]);
			return NULL;
		}
		return &home_memo[i];
	}
	if (home_name_resolve(abs, tmp)) {
		home_name_clear(tmp);
		return NULL;
	}
	return tmp;
}

int srt__mandatory_home_where(const char *home, size_t i, char *out, size_t cap)
{
	char abs[PATH_MAX];
	struct home_name tmp, *h;
	int r;

	if (i >= srt__protected_count ||
	    srt__pathcat(abs, sizeof(abs), home, strlen(home), "/", PROT(i)->path, NULL, NULL) >=
		    sizeof(abs))
		return -1;
	memset(&tmp, 0, sizeof(tmp));
	if (!(h = home_name_get(home, i, abs, &tmp)))
		return -2;
	r = h->r;
	if (!r && srt__pathcat(out, cap, h->real, strlen(h->real), NULL, NULL, NULL, NULL) >= cap)
		r = -1;
	home_name_clear(&tmp);
	return r;
}

/* The names below $HOME that lie in this root, even absent (a planted
 * ~/.ssh/authorized_keys lets anyone in), and the hooks directory the
 * user's global git config names. */
static int report_home(struct scan *s)
{
	const char *home = s->o->home;
	char hreal[PATH_MAX];
	int have_hreal;
	size_t i, j;
	int rc = 0;

	if (!home || home[0] != '/' || !strcmp(home, "/"))
		return 0;
	have_hreal = realpath(home, hreal) != NULL;
	/* a $HOME that is a link into the root would go unfollowed */
	if (!have_hreal && (rc = io_failed(s, "resolve", home)))
		return rc;
	for (i = 0; i < srt__protected_count && !rc; i++) {
		char abs[PATH_MAX], plain[PATH_MAX * 2];
		struct home_name tmp, *h;

		if (!wanted(s, i, PROT(i)->kind) || PROT(i)->kind == SRT__PROT_GIT)
			continue;
		if (srt__pathcat(abs, sizeof(abs), home, strlen(home), "/", PROT(i)->path, NULL, NULL) >=
		    sizeof(abs))
			continue;
		if (PROT(i)->kind == SRT__PROT_HOME && path_under(s->root, abs))
			rc = emit(s, abs, PROT(i)->name);
		/* the name where it is: a dotfile manager makes ~/.bashrc,
		 * ~/.ssh/config or ~/.config links into a repository, where the
		 * target has a name of its own ("bashrc", "config/systemd/user")
		 * that the walk of this root does not know (red team: the
		 * command appended to ~/.bashrc and added a systemd user unit
		 * through the links' targets); and each link in this root on
		 * the way there, which the command could point elsewhere (red
		 * team: ~/.config led through dots/config, a link the command
		 * replaced) */
		if (rc || !have_hreal ||
		    srt__pathcat(plain, sizeof(plain), hreal, strlen(hreal), "/", PROT(i)->path, NULL, NULL) >=
			    sizeof(plain))
			continue;
		/* $HOME itself a link (or below one) into this root: its
		 * ~/... names lie at its real path, where the walk knows no
		 * such name (red team: with $HOME a link into the write root,
		 * ~/.ssh/config and a systemd user unit were made there) */
		if (PROT(i)->kind == SRT__PROT_HOME && strcmp(plain, abs) && path_under(s->root, plain) &&
		    (rc = emit(s, plain, PROT(i)->name)))
			break;
		memset(&tmp, 0, sizeof(tmp));
		if (!(h = home_name_get(home, i, abs, &tmp)))
			return SRT_E_NOMEM;
		for (j = 0; j < h->n_links && !rc; j++)
			if (path_under(s->root, h->links[j]))
				rc = emit(s, h->links[j], PROT(i)->name);
		/* a loop of links (each one in this root now protected) or a
		 * path too long: nothing to place */
		if (!rc && !h->r && strcmp(h->real, abs) && strcmp(h->real, plain) &&
		    path_under(s->root, h->real))
			rc = emit(s, h->real, PROT(i)->name);
		home_name_clear(&tmp);
	}
	if (!rc) {
		int in_root = path_under(s->root, home) || (have_hreal && path_under(s->root, hreal));
		int hfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (hfd >= 0) {
			rc = check_hooks_path(s, hfd, ".gitconfig", NULL, in_root);
			if (!rc)
				rc = check_hooks_path(s, hfd, ".config/git/config", NULL, in_root);
			close(hfd);
		}
	}
	return rc;
}

static int scan_walk(const char *root, const struct srt__mandatory_opts *o,
		     size_t *budget, int *truncated, srt__mandatory_fn fn,
		     srt__mandatory_fn read_fn, void *ctx)
{
	struct scan s;
	size_t plen = strlen(root), i;
	int dfd, rc;
	/* malloc, not calloc: the table is 147 KiB and a scan fills a few
	 * entries; zeroing it cost every start-up three memsets and the page
	 * faults behind them (target_add sets every field of what it adds) */
	struct targets *tg = malloc(sizeof(*tg));

	failure[0] = '\0';
	if (tg)
		tg->n = 0, tg->full = 0, tg->io = 0;
	if (plen >= sizeof(s.path)) {
		free(tg);
		return SRT_OK;
	}
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.budget = budget;
	s.truncated = truncated;
	s.fn = fn;
	s.read_fn = read_fn;
	s.ctx = ctx;
	s.root = root;
	s.tg = tg;
	if (!tg)
		return SRT_E_NOMEM;
	targets_before(&s);
	if (tg->io) {
		free(tg);
		return SRT_E_IO;
	}
	/* "/" is spelled "" so children come out as "/x", not "//x" */
	if (strcmp(root, "/") == 0)
		plen = 0;
	memcpy(s.path, root, plen);
	s.path[plen] = '\0';

	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = io_failed(&s, "open", NULL);
		free(tg);
		return rc;
	}
	rc = report_home(&s);
	if (rc)
		goto out;
	if (o->root_names) {
		struct stat st;

		for (i = 0; i < srt__protected_count && !rc; i++) {
			const struct srt__protected *p = PROT(i);

			if (wanted(&s, i, SRT__PROT_FILE) || wanted(&s, i, SRT__PROT_DIR) ||
			    wanted(&s, i, SRT__PROT_SUB))
				rc = report(&s, plen, p->path, NULL, p->name);
		}
		if (!rc && fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = check_dirs(&s, dfd, plen, ".git",
					S_ISDIR(st.st_mode) ? DT_DIR :
					S_ISLNK(st.st_mode) ? DT_LNK : DT_REG);
		if (rc)
			goto out;
	}
	rc = walk(&s, dfd, plen, 0);
	dfd = -1; /* closed by walk */
	/* a second listing only when some file to cover has other links */
	if (!rc && !*truncated && tg->n) {
		s.path[plen] = '\0';
		dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			rc = link_walk(&s, dfd, plen, 0);
		else
			rc = io_failed(&s, "open", NULL);
		dfd = -1;
	}
out:
	if (dfd >= 0)
		close(dfd);
	/* a file that must be covered was left out of the table: its other
	 * names were not looked for */
	if (!rc && tg->full)
		*truncated = 1;
	free(tg);
	return rc;
}
