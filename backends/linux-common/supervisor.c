/* linux-landlock's write supervisor (see supervisor.h).
 *
 * One thread answers every notification in turn, so the command's changes
 * inside the write roots happen one at a time and a check made here (the
 * contents of a directory about to be renamed, the inode behind a name)
 * still holds when the supervisor acts on it: the command has no other way
 * to change a write root. The only exception is the write-open of a FIFO
 * with no reader yet, which would block: it is finished by a short thread
 * of its own, on a descriptor already pinned to that FIFO.
 *
 * Cost model: a supervised call costs SECCOMP_IOCTL_NOTIF_RECV, one
 * process_vm_readv per page of path, an open of /proc/<tid>/cwd (relative
 * paths), one openat2 for the directory and one re-open beneath the root,
 * a readlink of /proc/self/fd/N, the call itself, a read of
 * /proc/<tid>/status for the umask when it creates, and the reply. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/posix_types.h>
#include <linux/seccomp.h>

#include "backends/linux-common/notif.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/small-file.h"
#include "backends/linux-common/supervisor.h"
#include "backends/linux-common/syscall-nr.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef SO_DOMAIN
#define SO_DOMAIN 39
#endif

#define MAX_HOPS 40         /* symbolic links followed, as the kernel's limit */
#define WALK_BUDGET 200000  /* entries a renamed directory's check may visit: the whole
			     * tree but node_modules (the patterns hold at any depth);
			     * past this mv copies instead (EXDEV) */
#define MAX_RECORDS 1000000
#define EVENT_MAX 4000      /* violation lines written at most */
/* The mode bits the supervisor creates with: never set-uid or set-gid (the
 * enforcement filter refuses such modes before they get here; this keeps
 * the supervisor from ever making one). */
#define SAFE_MODE 01777

struct sroot {
	int fd;
	char *path;
	size_t len;
	dev_t dev;
	ino_t ino;
};

struct sdeny {
	char *path;
	size_t len;
	char *why;
};

struct sname {
	char *why;
	char **comp;
	size_t n;
};

struct sino {
	dev_t dev;
	ino_t ino;
	const char *why;
};

struct sdir {
	dev_t dev;
	ino_t ino;
};

struct srt__super {
	struct sroot *roots;
	size_t n_roots;
	struct sdeny *deny;
	size_t n_deny;
	char **pass;
	size_t n_pass;
	struct sname *names;
	size_t n_names;
	struct sname *repo;   /* patterns below a .git the command did not make */
	size_t n_repo;
	struct sdir *made;    /* the .git directories the command made */
	size_t n_made;
	struct sino *inos;
	size_t n_inos;
	char **unix_ok;
	size_t n_unix;
	/* serving */
	int listener;
	int events_fd;
	unsigned long events;
	int nr[48]; /* srt__supervised_syscalls' numbers, -1 when absent */
};

static int grow(void **v, size_t n, size_t size)
{
	void *nv;

	/* capacity: 8, then the next power of two */
	if (n != 0 && (n < 8 || (n & (n - 1))))
		return 0;
	nv = realloc(*v, (n == 0 ? 8 : n * 2) * size);
	if (!nv)
		return -1;
	*v = nv;
	return 0;
}

/* ---- the plan ----------------------------------------------------------- */

static int add_root(struct srt__super *s, char *rec)
{
	unsigned long long dev, ino;
	char link[64], real[PATH_MAX];
	struct stat st;
	struct sroot *r;
	int n = 0, fd;
	ssize_t len;

	if (sscanf(rec, "%llu %llu %n", &dev, &ino, &n) != 2 || n == 0 || rec[n] != '/')
		return -1;
	fd = open(rec + n, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone: not granted */
	if (fstat(fd, &st) != 0 || (unsigned long long)st.st_dev != dev ||
	    (unsigned long long)st.st_ino != ino) {
		close(fd);
		return 0;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, real, sizeof(real) - 1);
	if (len <= 0 || real[0] != '/') {
		close(fd);
		return 0;
	}
	real[len] = '\0';
	if (grow((void **)&s->roots, s->n_roots, sizeof(*s->roots))) {
		close(fd);
		return -1;
	}
	r = &s->roots[s->n_roots];
	r->path = strdup(real);
	if (!r->path) {
		close(fd);
		return -1;
	}
	r->fd = fd;
	r->len = strcmp(real, "/") ? (size_t)len : 0;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	s->n_roots++;
	return 0;
}

static int add_deny(struct srt__super *s, char *rec)
{
	char *tab = strchr(rec, '\t');
	struct stat st;

	if (!tab || tab[1] != '/')
		return -1;
	*tab = '\0';
	if (grow((void **)&s->deny, s->n_deny, sizeof(*s->deny)))
		return -1;
	s->deny[s->n_deny].why = strdup(rec);
	s->deny[s->n_deny].path = strdup(tab + 1);
	if (!s->deny[s->n_deny].why || !s->deny[s->n_deny].path) {
		free(s->deny[s->n_deny].why);
		free(s->deny[s->n_deny].path);
		return -1;
	}
	s->deny[s->n_deny].len = strlen(tab + 1);
	while (s->deny[s->n_deny].len > 1 && tab[s->deny[s->n_deny].len] == '/')
		s->deny[s->n_deny].path[--s->deny[s->n_deny].len] = '\0';
	/* a protected file's other names (hard links) are refused by inode */
	if (lstat(tab + 1, &st) == 0 && S_ISREG(st.st_mode)) {
		if (grow((void **)&s->inos, s->n_inos, sizeof(*s->inos)))
			return -1;
		s->inos[s->n_inos].dev = st.st_dev;
		s->inos[s->n_inos].ino = st.st_ino;
		s->inos[s->n_inos].why = s->deny[s->n_deny].why;
		s->n_inos++;
	}
	s->n_deny++;
	return 0;
}

static int add_str(char ***v, size_t *n, const char *str)
{
	if (grow((void **)v, *n, sizeof(**v)))
		return -1;
	if (!((*v)[*n] = strdup(str)))
		return -1;
	(*n)++;
	return 0;
}

static int add_pattern(struct sname **v, size_t *n, char *rec)
{
	char *tab = strchr(rec, '\t'), *p, *save = NULL;
	struct sname *nm;

	if (!tab || !tab[1] || tab[1] == '/')
		return -1;
	*tab = '\0';
	if (grow((void **)v, *n, sizeof(**v)))
		return -1;
	nm = &(*v)[*n];
	memset(nm, 0, sizeof(*nm));
	if (!(nm->why = strdup(rec)))
		return -1;
	(*n)++;
	for (p = strtok_r(tab + 1, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (add_str(&nm->comp, &nm->n, p))
			return -1;
	}
	if (nm->n == 0)
		return -1;
	return 0;
}

/* A repo pattern starts with the .git directory it lies in. */
static int add_repo(struct srt__super *s, char *rec)
{
	if (add_pattern(&s->repo, &s->n_repo, rec))
		return -1;
	return strcasecmp(s->repo[s->n_repo - 1].comp[0], ".git") ? -1 : 0;
}

int srt__super_parse(char *buf, size_t len, struct srt__super **out, char *err, size_t errlen)
{
	struct srt__super *s;
	size_t off = 0, nrec = 0, i;
	int ended = 0, rc = 0;

	*out = NULL;
	if (len == 0 || buf[len - 1] != '\0') {
		snprintf(err, errlen, "the supervisor plan is not NUL-terminated");
		return -1;
	}
	if (strcmp(buf, SRT_SUPER_PLAN_MAGIC) != 0) {
		snprintf(err, errlen, "the supervisor plan does not start with \"%s\"", SRT_SUPER_PLAN_MAGIC);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->listener = -1;
	s->events_fd = -1;
	off = strlen(buf) + 1;
	while (off < len && !rc) {
		char *rec = buf + off;

		off += strlen(rec) + 1;
		if (ended || ++nrec > MAX_RECORDS) {
			rc = -1;
			break;
		}
		if (!strcmp(rec, "end"))
			ended = 1;
		else if (!strncmp(rec, "root ", 5))
			rc = add_root(s, rec + 5);
		else if (!strncmp(rec, "deny ", 5))
			rc = add_deny(s, rec + 5);
		else if (!strncmp(rec, "pass /", 6))
			rc = add_str(&s->pass, &s->n_pass, rec + 5);
		else if (!strncmp(rec, "name ", 5))
			rc = add_pattern(&s->names, &s->n_names, rec + 5);
		else if (!strncmp(rec, "repo ", 5))
			rc = add_repo(s, rec + 5);
		else if (!strncmp(rec, "unix /", 6))
			rc = add_str(&s->unix_ok, &s->n_unix, rec + 5);
		else
			rc = -1;
		if (rc)
			snprintf(err, errlen, "bad supervisor plan record \"%.80s\"", rec);
	}
	if (!rc && !ended) {
		snprintf(err, errlen, "the supervisor plan has no \"end\" record");
		rc = -1;
	}
	if (rc) {
		srt__super_free(s);
		return -1;
	}
	for (i = 0; i < sizeof(s->nr) / sizeof(s->nr[0]); i++)
		s->nr[i] = i < srt__n_supervised_syscalls ?
				   srt__seccomp_supervised_nr(&srt__supervised_syscalls[i]) : -1;
	*out = s;
	return 0;
}

int srt__super_load(int fd, struct srt__super **out, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int rc;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (size_t)st.st_size > SRT_SUPER_PLAN_MAX) {
		snprintf(err, errlen, "the supervisor plan descriptor is not a plan");
		return -1;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n <= 0) {
			free(buf);
			snprintf(err, errlen, "read the supervisor plan: %s", n ? strerror(errno) : "short");
			return -1;
		}
		got += (size_t)n;
	}
	rc = srt__super_parse(buf, got, out, err, errlen);
	free(buf);
	return rc;
}

static void free_patterns(struct sname *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < v[i].n; j++)
			free(v[i].comp[j]);
		free(v[i].comp);
		free(v[i].why);
	}
	free(v);
}

void srt__super_free(struct srt__super *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_roots; i++) {
		close(s->roots[i].fd);
		free(s->roots[i].path);
	}
	for (i = 0; i < s->n_deny; i++) {
		free(s->deny[i].path);
		free(s->deny[i].why);
	}
	free_patterns(s->names, s->n_names);
	free_patterns(s->repo, s->n_repo);
	for (i = 0; i < s->n_pass; i++)
		free(s->pass[i]);
	for (i = 0; i < s->n_unix; i++)
		free(s->unix_ok[i]);
	free(s->roots);
	free(s->deny);
	free(s->made);
	free(s->inos);
	free(s->pass);
	free(s->unix_ok);
	free(s);
}

int srt__super_has_unix(const struct srt__super *s)
{
	return s->n_unix > 0;
}

int srt__super_acts(const struct srt__super *s)
{
	return s->n_roots > 0 || s->n_unix > 0;
}

/* ---- the decision ------------------------------------------------------- */

/* Is path at or below dir (len bytes; len 0 is "/")? Case-insensitive: a
 * case-insensitive filesystem would take another spelling for the same
 * file, and on others refusing one more spelling costs nothing. */
static int under(const char *path, const char *dir, size_t len)
{
	if (len == 0)
		return 1;
	return !strncasecmp(path, dir, len) && (path[len] == '/' || path[len] == '\0');
}

/* Below a node_modules directory every name is package content: no tool
 * takes it for the configuration of the place it works in, and packages do
 * ship .vscode, .idea or .npmrc, which would stop npm install. The
 * mandatory-deny walk skips node_modules for the same reason. */
static int package_content(char **c, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (!strcasecmp(c[i], "node_modules"))
			return 1;
	return 0;
}

/* Does the pattern match the components of rel (n of them) at any
 * position, however deep? The supervisor sees every name the command
 * makes, so unlike the walk of what exists at the start (bounded by
 * mandatoryDenySearchDepth), it holds a .git/hooks or a .bashrc ten levels
 * down as well as at the top. A pattern is a place, not a file: moving its
 * directory away is harmless (moving one back in is checked entry by
 * entry, check_moved), so no "holds" rule here. */
static int name_matches(const struct sname *nm, char **c, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		if (!strcasecmp(c[i], "node_modules"))
			return 0;
		for (k = 0; k < nm->n && i + k < n; k++)
			if (strcasecmp(c[i + k], nm->comp[k]) != 0)
				break;
		if (k == nm->n)
			return 1;
	}
	return 0;
}

static const char *names_refuse(const struct srt__super *s, const char *rel)
{
	char buf[PATH_MAX], *c[PATH_MAX / 2], *p, *save = NULL;
	size_t n = 0, i;

	if (!s->n_names || strlen(rel) >= sizeof(buf))
		return NULL;
	strcpy(buf, rel);
	for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
		c[n++] = p;
	for (i = 0; i < s->n_names; i++)
		if (name_matches(&s->names[i], c, n))
			return s->names[i].why;
	return NULL;
}

/* Is the directory at path one of the .git directories the command made? */
static int made_git(const struct srt__super *s, const struct stat *st)
{
	size_t i;

	for (i = 0; i < s->n_made; i++)
		if (s->made[i].dev == st->st_dev && s->made[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Is the .git directory at abs (its real path) one the command must not
 * replace, rename or write into: it exists and the command did not make
 * it? A repository the command makes during the run is the repository
 * guard's, after the run (git init must work); one that was there, at any
 * depth, is the user's. */
static int theirs_git(const struct srt__super *s, const char *abs)
{
	struct stat st;

	return lstat(abs, &st) == 0 && S_ISDIR(st.st_mode) && !made_git(s, &st);
}

/* Does component x match the pattern's component p, or, as the path's
 * last component, p's lock (git writes NAME.lock and renames it over
 * NAME: what the command wrote into the lock would become the file)? */
static int comp_matches(const char *x, const char *p, int last)
{
	size_t n = strlen(p);

	return !strcasecmp(x, p) || (last && !strncasecmp(x, p, n) && !strcasecmp(x + n, ".lock"));
}

/* The repo patterns (.git/config, .git/hooks) at any position of path's
 * part below its root (whose path is rlen bytes long), held where that
 * .git is theirs_git. Not below node_modules, as the names. */
static const char *repo_refuse(const struct srt__super *s, const char *path, size_t rlen)
{
	char buf[PATH_MAX], *c[PATH_MAX / 2], *p, *save = NULL, gitdir[PATH_MAX];
	size_t n = 0, i, k, r, o;

	if (!s->n_repo || strlen(path + rlen) >= sizeof(buf))
		return NULL;
	strcpy(buf, path + rlen);
	for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
		c[n++] = p;
	for (i = 0; i + 1 < n; i++) {
		if (!strcasecmp(c[i], "node_modules"))
			return NULL;
		if (strcasecmp(c[i], ".git"))
			continue;
		for (r = 0; r < s->n_repo; r++) {
			const struct sname *nm = &s->repo[r];

			for (k = 1; k < nm->n && i + k < n; k++)
				if (!comp_matches(c[i + k], nm->comp[k], i + k == n - 1))
					break;
			if (k < nm->n)
				continue;
			/* the .git directory: the root plus components 0..i */
			o = (size_t)snprintf(gitdir, sizeof(gitdir), "%.*s", (int)rlen, path);
			for (k = 0; k <= i && o < sizeof(gitdir); k++)
				o += (size_t)snprintf(gitdir + o, sizeof(gitdir) - o, "/%s", c[k]);
			if (o >= sizeof(gitdir) || theirs_git(s, gitdir))
				return nm->why;
		}
	}
	return NULL;
}

/* The last component of path is .git. */
static int is_git_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return !strcasecmp(slash ? slash + 1 : path, ".git");
}

/* git writes a new .git/config (~/.gitconfig, any file it rewrites) to
 * NAME.lock and renames that over NAME. A lock the command could write
 * would hand the host's rename its content: refused like NAME itself. */
static int lock_of(const char *path, const char *deny, size_t len)
{
	size_t n = strlen(path);

	return len && n == len + 5 && !strcasecmp(path + len, ".lock") && !strncasecmp(path, deny, len);
}

const char *srt__super_refused(const struct srt__super *s, const char *path, int holds)
{
	const char *why;
	size_t i;

	for (i = 0; i < s->n_deny; i++) {
		if (under(path, s->deny[i].path, s->deny[i].len) || lock_of(path, s->deny[i].path, s->deny[i].len))
			return s->deny[i].why;
		if (holds && under(s->deny[i].path, path, strcmp(path, "/") ? strlen(path) : 0))
			return s->deny[i].why;
	}
	for (i = 0; i < s->n_roots; i++) {
		const struct sroot *r = &s->roots[i];

		if (!under(path, r->path, r->len) || path[r->len] == '\0')
			continue;
		why = names_refuse(s, path + r->len + 1);
		if (!why)
			why = repo_refuse(s, path, r->len);
		if (!why && holds && s->n_repo && is_git_name(path) && theirs_git(s, path))
			why = s->repo[0].why; /* it holds their config and hooks */
		if (why)
			return why;
	}
	return NULL;
}

/* Would a symbolic link at rel stand on the leading components of a
 * protected name pattern (.claude for .claude/commands)? Everything below
 * it would then be the link's target, where the command writes freely. */
static const char *names_prefix_refuse(const struct srt__super *s, const char *rel)
{
	char buf[PATH_MAX], *c[PATH_MAX / 2], *p, *save = NULL;
	size_t n = 0, i, k, j;

	if (!s->n_names || strlen(rel) >= sizeof(buf))
		return NULL;
	strcpy(buf, rel);
	for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
		c[n++] = p;
	for (i = 0; i < s->n_names; i++) {
		const struct sname *nm = &s->names[i];

		for (k = 1; k < nm->n && k <= n; k++) {
			if (package_content(c, n - k))
				continue;
			for (j = 0; j < k; j++)
				if (strcasecmp(c[n - k + j], nm->comp[j]) != 0)
					break;
			if (j == k)
				return nm->why;
		}
	}
	return NULL;
}

/* A symbolic link about to appear at path: refused where a file would be,
 * above a protected path (its deny below would name the link's target
 * instead) and on the leading part of a protected name pattern. */
static const char *link_refused(const struct srt__super *s, const char *path)
{
	const char *why = srt__super_refused(s, path, 1);
	size_t i;

	for (i = 0; !why && i < s->n_roots; i++) {
		const struct sroot *r = &s->roots[i];

		if (under(path, r->path, r->len) && path[r->len] != '\0')
			why = names_prefix_refuse(s, path + r->len + 1);
	}
	return why;
}

int srt__super_passed(const struct srt__super *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n_pass; i++)
		if (under(path, s->pass[i], strlen(s->pass[i])))
			return 1;
	return 0;
}

/* ---- replies ------------------------------------------------------------ */

enum { R_CONTINUE, R_ERR, R_VAL, R_FD };

struct reply {
	int kind;
	int err;
	long long val;
	int fd;
	unsigned fdflags;
};

static void r_err(struct reply *r, int err)
{
	r->kind = R_ERR;
	r->err = err;
}

static void r_val(struct reply *r, long long v)
{
	r->kind = R_VAL;
	r->val = v;
}

static void send_reply(struct srt__super *s, uint64_t id, struct reply *r)
{
	struct seccomp_notif_resp resp;

	if (r->kind == R_FD) {
		struct seccomp_notif_addfd a;
		int rc;

		memset(&a, 0, sizeof(a));
		a.id = id;
		a.flags = SECCOMP_ADDFD_FLAG_SEND;
		a.srcfd = (uint32_t)r->fd;
		a.newfd_flags = r->fdflags;
		rc = notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		close(r->fd);
		if (rc >= 0 || errno == ENOENT)
			return; /* sent, or the caller is gone */
		r_err(r, errno == EINVAL ? ENOSYS : errno);
	}
	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	if (r->kind == R_CONTINUE) {
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else if (r->kind == R_ERR) {
		resp.error = -r->err;
	} else {
		resp.val = r->val;
	}
	/* a failure is ENOENT (the caller is gone) or a listener given up:
	 * nobody is left to answer */
	notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static void report(struct srt__super *s, const char *call, const char *path, const char *why)
{
	char line[PATH_MAX + 256];
	size_t o = 0;
	const unsigned char *p;
	int n;

	if (s->events_fd < 0 || s->events >= EVENT_MAX)
		return;
	n = snprintf(line, sizeof(line), "deny %s ", call);
	if (n < 0)
		return;
	o = (size_t)n;
	for (p = (const unsigned char *)path; *p && o + 8 < sizeof(line) - 128; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			o += (size_t)snprintf(line + o, 8, "\\x%02x", *p);
		else
			line[o++] = (char)*p;
	}
	(void)why;
	line[o++] = '\n';
	s->events++;
	if (write(s->events_fd, line, o) < 0)
		return;
}

/* ---- reading the caller ------------------------------------------------- */

/* The NUL-terminated string at addr in tid's memory, page by page. */
static int read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!addr)
		return -EFAULT;
	while (got < cap) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)page - (size_t)(a % (uint64_t)page);
		struct iovec l, r;
		ssize_t n;
		char *nul;

		if (chunk > cap - got)
			chunk = cap - got;
		l.iov_base = buf + got;
		l.iov_len = chunk;
		r.iov_base = (void *)(uintptr_t)a;
		r.iov_len = chunk;
		n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return n == 0 ? -EFAULT : (errno == ESRCH ? -ESRCH : -EFAULT);
		nul = memchr(buf + got, '\0', (size_t)n);
		if (nul)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int id_valid(struct srt__super *s, uint64_t id)
{
	return notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static mode_t caller_umask(pid_t tid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0)
		return 077;
	p = strstr(buf, "\nUmask:");
	if (!p)
		return 077; /* unknown: the strictest usual mask */
	return (mode_t)strtoul(p + 7, NULL, 8) & 0777;
}

/* ---- resolving a name --------------------------------------------------- */

struct loc {
	int dfd;            /* the directory holding the name, beneath its root */
	char name[NAME_MAX + 1];
	char abs[PATH_MAX]; /* real path of the name */
	const struct sroot *root;
};

static long sys_openat2(int dfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(unsigned)flags;
	how.resolve = resolve;
	return syscall(SYS_openat2, dfd, path, &how, sizeof(how));
}

static int fd_path(int fd, char *out, size_t cap)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, cap - 1);
	if (n <= 0 || (size_t)n >= cap - 1 || out[0] != '/')
		return -1;
	out[n] = '\0';
	return 0;
}

/* The caller's anchor for path: "/" for an absolute path, else its cwd or
 * its descriptor dirfd (an int: the low 32 bits). */
static int open_anchor(pid_t tid, int dirfd, const char *path)
{
	char p[64];

	if (path[0] == '/')
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof(p), "/proc/%d/cwd", (int)tid);
	else if (dirfd >= 0)
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)tid, dirfd);
	else
		return -1;
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static const struct sroot *find_root(const struct srt__super *s, const char *abs)
{
	const struct sroot *best = NULL;
	size_t i;

	for (i = 0; i < s->n_roots; i++) {
		const struct sroot *r = &s->roots[i];

		if ((r->len == 0 || (!strncmp(abs, r->path, r->len) &&
				     (abs[r->len] == '/' || abs[r->len] == '\0'))) &&
		    (!best || r->len > best->len))
			best = r;
	}
	return best;
}

/* Split path into its directory part (in dir) and last name. Trailing
 * slashes are dropped (*slash set). 0, or -1 when there is no last name
 * ("", "/", ".", ".."): the kernel's own answer is then the right one. */
static int split_path(const char *path, char *dir, size_t dcap, char *name, int *slash)
{
	size_t len = strlen(path), i;
	const char *last;

	*slash = 0;
	while (len > 1 && path[len - 1] == '/') {
		len--;
		*slash = 1;
	}
	if (len == 0 || len >= dcap)
		return -1;
	for (i = len; i > 0 && path[i - 1] != '/'; i--)
		;
	last = path + i;
	if (len - i == 0 || len - i > NAME_MAX)
		return -1;
	if ((len - i == 1 && last[0] == '.') || (len - i == 2 && last[0] == '.' && last[1] == '.'))
		return -1;
	memcpy(name, last, len - i);
	name[len - i] = '\0';
	if (i == 0) {
		dir[0] = '\0';
	} else {
		memcpy(dir, path, i);
		dir[i] = '\0';
	}
	return 0;
}

/* Resolve directory dir (a path for the caller: from "/" when absolute,
 * else from anchor_fd, or from the caller's cwd or dirfd when anchor_fd is
 * -1) and put it beneath its write root in l->dfd, l->abs its real path.
 * 1: in a write root; 0: not, or not resolvable without magic links
 * (continue: Landlock decides); 2: under a "pass" record (continue). */
static int resolve_dir(struct srt__super *s, pid_t tid, int dirfd, const char *dir, int anchor_fd,
		       struct loc *l)
{
	char real[PATH_MAX];
	struct stat a, b;
	const struct sroot *r;
	int anchor, pfd, rfd;

	l->dfd = -1;
	anchor = anchor_fd >= 0 && dir[0] != '/' ? anchor_fd : open_anchor(tid, dirfd, dir[0] ? dir : ".");
	if (anchor < 0)
		return 0;
	if (dir[0])
		pfd = (int)sys_openat2(anchor, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
	else
		pfd = fcntl(anchor, F_DUPFD_CLOEXEC, 3);
	if (anchor != anchor_fd)
		close(anchor);
	if (pfd < 0)
		return 0;
	if (fd_path(pfd, real, sizeof(real)) != 0 || fstat(pfd, &a) != 0) {
		close(pfd);
		return 0;
	}
	r = find_root(s, real);
	if (!r) {
		close(pfd);
		return 0;
	}
	if (srt__super_passed(s, real)) {
		close(pfd);
		return 2;
	}
	/* the same directory, reached from the root without leaving it */
	if (real[r->len] == '\0')
		rfd = fcntl(r->fd, F_DUPFD_CLOEXEC, 3);
	else
		rfd = (int)sys_openat2(r->fd, real + r->len + 1, O_PATH | O_DIRECTORY | O_CLOEXEC,
				       RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS);
	close(pfd);
	if (rfd < 0)
		return 0;
	if (fstat(rfd, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    snprintf(l->abs, sizeof(l->abs), "%s", real) >= (int)sizeof(l->abs)) {
		close(rfd);
		return 0;
	}
	l->dfd = rfd;
	l->root = r;
	return 1;
}

/* Resolve the directory holding path's last name (resolve_dir), l->name
 * that name and l->abs the name's real path. */
static int resolve_at(struct srt__super *s, pid_t tid, int dirfd, const char *path, int anchor_fd,
		      struct loc *l, int *slash)
{
	char dir[PATH_MAX];
	size_t dl;
	int rc;

	l->dfd = -1;
	if (split_path(path, dir, sizeof(dir), l->name, slash) != 0)
		return 0;
	if (!dir[0] && path[0] == '/')
		strcpy(dir, "/");
	rc = resolve_dir(s, tid, dirfd, dir, anchor_fd, l);
	if (rc != 1)
		return rc;
	dl = strcmp(l->abs, "/") ? strlen(l->abs) : 0;
	if (dl + 1 + strlen(l->name) + 1 > sizeof(l->abs)) {
		close(l->dfd);
		l->dfd = -1;
		return 0;
	}
	l->abs[dl] = '/';
	strcpy(l->abs + dl + 1, l->name);
	return 1;
}

static void loc_close(struct loc *l)
{
	if (l->dfd >= 0)
		close(l->dfd);
	l->dfd = -1;
}

/* Is the existing object at l a hard link of a protected file? */
static const char *link_of_protected(const struct srt__super *s, const struct stat *st)
{
	size_t i;

	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return NULL;
	for (i = 0; i < s->n_inos; i++)
		if (s->inos[i].dev == st->st_dev && s->inos[i].ino == st->st_ino)
			return s->inos[i].why;
	return NULL;
}

/* ---- the calls ---------------------------------------------------------- */

struct call {
	struct srt__super *s;
	const struct seccomp_notif *n;
	const struct srt__supervised_syscall *sc;
	struct reply *r;
};

static long long arg(const struct call *c, int i)
{
	return (long long)c->n->data.args[i];
}

static int arg_fd(const struct call *c, int i)
{
	return i < 0 ? AT_FDCWD : (int)(int32_t)(uint32_t)c->n->data.args[i];
}

static int read_arg_path(struct call *c, int i, char *buf)
{
	int rc = read_str((pid_t)c->n->pid, c->n->data.args[i], buf, PATH_MAX);

	if (rc < 0) {
		r_err(c->r, -rc == ESRCH ? EFAULT : -rc);
		return -1;
	}
	return 0;
}

static int refuse(struct call *c, const char *path, const char *why, int err)
{
	report(c->s, c->sc->name, path, why);
	r_err(c->r, err);
	return 0;
}

struct fifo_job {
	int listener;
	uint64_t id;
	int pin;
	int flags;
	unsigned fdflags;
};

static void *fifo_main(void *arg)
{
	struct fifo_job *j = arg;
	struct seccomp_notif_resp resp;
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", j->pin);
	fd = open(p, j->flags | O_CLOEXEC);
	memset(&resp, 0, sizeof(resp));
	resp.id = j->id;
	if (fd >= 0) {
		struct seccomp_notif_addfd a;

		memset(&a, 0, sizeof(a));
		a.id = j->id;
		a.flags = SECCOMP_ADDFD_FLAG_SEND;
		a.srcfd = (uint32_t)fd;
		a.newfd_flags = j->fdflags;
		if (notif_ioctl(j->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) >= 0 || errno == ENOENT)
			resp.id = 0; /* sent, or the caller is gone */
		else
			resp.error = -errno;
		close(fd);
	} else {
		resp.error = -errno;
	}
	if (resp.id)
		notif_ioctl(j->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	close(j->pin);
	free(j);
	return NULL;
}

/* The write-open of a FIFO waits for a reader, which may be another
 * supervised process: it must not hold up the supervisor. */
static int open_fifo_later(struct call *c, int dfd, const char *name, int flags, unsigned fdflags)
{
	struct fifo_job *j = calloc(1, sizeof(*j));
	pthread_attr_t at;
	pthread_t t;

	if (!j)
		return -ENOMEM;
	j->pin = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (j->pin < 0) {
		int e = errno;
		free(j);
		return -e;
	}
	j->listener = c->s->listener;
	j->id = c->n->id;
	j->flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	j->fdflags = fdflags;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, fifo_main, j) != 0) {
		pthread_attr_destroy(&at);
		close(j->pin);
		free(j);
		return -EAGAIN;
	}
	pthread_attr_destroy(&at);
	return 1;
}

/* Open path for the caller with flags, following a final symbolic link
 * hop by hop. Fills c->r (an fd, an error or continue). For truncate
 * (want_fd), *out receives the descriptor instead. */
static int do_open_path(struct call *c, int dirfd, const char *path0, int flags, mode_t mode,
			int *out)
{
	char path[PATH_MAX];
	int hops = 0, anchor = -1;
	pid_t tid = (pid_t)c->n->pid;
	mode_t um = (flags & (O_CREAT | O_TMPFILE)) ? caller_umask(tid) : 0;

	snprintf(path, sizeof(path), "%s", path0);
	for (;;) {
		struct loc l;
		struct stat st;
		const char *why;
		int slash, rc, fd, exists;

		if ((flags & O_TMPFILE) == O_TMPFILE) {
			/* the path names the directory the unnamed file goes in */
			rc = resolve_dir(c->s, tid, dirfd, path, -1, &l);
			if (rc != 1)
				return c->r->kind = R_CONTINUE, 0;
			fd = openat(l.dfd, ".", flags | O_CLOEXEC, mode & ~um & SAFE_MODE);
			loc_close(&l);
			if (fd < 0)
				return r_err(c->r, errno), 0;
			goto got;
		}
		rc = resolve_at(c->s, tid, dirfd, path, anchor, &l, &slash);
		if (anchor >= 0)
			close(anchor);
		anchor = -1;
		if (rc != 1 || slash)
			return c->r->kind = R_CONTINUE, 0;
		why = srt__super_refused(c->s, l.abs, 0);
		if (why) {
			loc_close(&l);
			return refuse(c, l.abs, why, EACCES);
		}
		exists = fstatat(l.dfd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (exists && S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n;

			if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL))) {
				loc_close(&l);
				return r_err(c->r, (flags & O_EXCL) ? EEXIST : ELOOP), 0;
			}
			n = readlinkat(l.dfd, l.name, target, sizeof(target) - 1);
			if (n <= 0 || ++hops > MAX_HOPS) {
				loc_close(&l);
				return r_err(c->r, n <= 0 ? EIO : ELOOP), 0;
			}
			target[n] = '\0';
			/* the next hop starts from the link's directory */
			anchor = target[0] == '/' ? -1 : l.dfd;
			if (anchor < 0)
				loc_close(&l);
			dirfd = AT_FDCWD;
			memcpy(path, target, (size_t)n + 1);
			continue;
		}
		if (exists && (why = link_of_protected(c->s, &st))) {
			loc_close(&l);
			return refuse(c, l.abs, why, EACCES);
		}
		if (exists && S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK) && (flags & O_ACCMODE) == O_WRONLY &&
		    !out) {
			rc = open_fifo_later(c, l.dfd, l.name, flags, (flags & O_CLOEXEC) ? O_CLOEXEC : 0);
			loc_close(&l);
			if (rc < 0)
				return r_err(c->r, -rc), 0;
			c->r->kind = -1; /* answered by the thread */
			return 0;
		}
		fd = openat(l.dfd, l.name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode & ~um & SAFE_MODE);
		if (fd < 0) {
			int e = errno;
			loc_close(&l);
			return r_err(c->r, e), 0;
		}
		if (fstat(fd, &st) == 0 && (why = link_of_protected(c->s, &st))) {
			close(fd);
			loc_close(&l);
			return refuse(c, l.abs, why, EACCES);
		}
		loc_close(&l);
		if (!(flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
got:
		if (out) {
			*out = fd;
			return 0;
		}
		if (!id_valid(c->s, c->n->id)) {
			close(fd);
			return r_err(c->r, EINTR), 0;
		}
		c->r->kind = R_FD;
		c->r->fd = fd;
		c->r->fdflags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0;
		return 0;
	}
}

static int do_open(struct call *c)
{
	char path[PATH_MAX];
	int flags = c->sc->flags >= 0 ? (int)arg(c, c->sc->flags) : c->sc->fixed_flags;
	mode_t mode = c->sc->mode >= 0 ? (mode_t)arg(c, c->sc->mode) : 0;

	if (!(flags & SRT_OPEN_WRITE_FLAGS))
		return c->r->kind = R_CONTINUE, 0;
	if (read_arg_path(c, c->sc->path, path))
		return 0;
	if (!id_valid(c->s, c->n->id))
		return r_err(c->r, EINTR), 0;
	return do_open_path(c, arg_fd(c, c->sc->dfd), path, flags, mode, NULL);
}

static int do_truncate(struct call *c)
{
	char path[PATH_MAX];
	int fd = -1;

	if (read_arg_path(c, c->sc->path, path))
		return 0;
	if (!id_valid(c->s, c->n->id))
		return r_err(c->r, EINTR), 0;
	c->r->kind = R_CONTINUE;
	do_open_path(c, AT_FDCWD, path, O_WRONLY, 0, &fd);
	if (fd < 0)
		return 0;
	if (ftruncate(fd, (off_t)arg(c, c->sc->mode)) != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	close(fd);
	return 0;
}

/* Resolve the one-name operand i of the call (dfd, path arguments). 1 with
 * l filled; else c->r is set (continue or an error). */
static int operand(struct call *c, int dfd_arg, int path_arg, struct loc *l, int *slash, char *raw)
{
	int rc;

	if (read_arg_path(c, path_arg, raw))
		return 0;
	rc = resolve_at(c->s, (pid_t)c->n->pid, arg_fd(c, dfd_arg), raw, -1, l, slash);
	if (rc != 1) {
		c->r->kind = R_CONTINUE;
		return rc == 0 ? 0 : -1;
	}
	return 1;
}

/* A directory the command made (mkdir) or moved into place under the name
 * .git: its repository is the command's own. */
static void note_made(struct srt__super *s, int dfd, const char *name)
{
	struct stat st;

	if (!s->n_repo || strcasecmp(name, ".git") || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISDIR(st.st_mode) || made_git(s, &st) || grow((void **)&s->made, s->n_made, sizeof(*s->made)))
		return;
	s->made[s->n_made].dev = st.st_dev;
	s->made[s->n_made].ino = st.st_ino;
	s->n_made++;
}

static int do_mkdir_mknod(struct call *c)
{
	char raw[PATH_MAX];
	struct loc l;
	const char *why;
	mode_t mode = (mode_t)arg(c, c->sc->mode), um;
	int slash, rc;

	if (c->sc->op == SRT_SUP_MKNOD) {
		mode_t type = mode & S_IFMT;
		if (type != 0 && type != S_IFREG && type != S_IFIFO && type != S_IFSOCK)
			return c->r->kind = R_CONTINUE, 0; /* devices: CAP_MKNOD, which it has not */
	}
	if (operand(c, c->sc->dfd, c->sc->path, &l, &slash, raw) != 1)
		return 0;
	if (!id_valid(c->s, c->n->id)) {
		loc_close(&l);
		return r_err(c->r, EINTR), 0;
	}
	if ((why = srt__super_refused(c->s, l.abs, 0))) {
		loc_close(&l);
		return refuse(c, l.abs, why, EACCES);
	}
	um = caller_umask((pid_t)c->n->pid);
	if (c->sc->op == SRT_SUP_MKDIR)
		rc = mkdirat(l.dfd, l.name, mode & ~um & SAFE_MODE);
	else if (slash)
		rc = (errno = ENOTDIR, -1);
	else
		rc = mknodat(l.dfd, l.name, (mode & S_IFMT) | (mode & ~um & SAFE_MODE),
			     (dev_t)arg(c, c->sc->mode + 1));
	if (rc != 0) {
		r_err(c->r, errno);
	} else {
		r_val(c->r, 0);
		if (c->sc->op == SRT_SUP_MKDIR)
			note_made(c->s, l.dfd, l.name);
	}
	loc_close(&l);
	return 0;
}

static int do_unlink(struct call *c)
{
	char raw[PATH_MAX];
	struct loc l;
	const char *why;
	int flags = c->sc->flags >= 0 ? (int)arg(c, c->sc->flags) : c->sc->fixed_flags;
	int slash;

	if (flags & ~AT_REMOVEDIR)
		return c->r->kind = R_CONTINUE, 0; /* EINVAL from the kernel */
	if (operand(c, c->sc->dfd, c->sc->path, &l, &slash, raw) != 1)
		return 0;
	if (!id_valid(c->s, c->n->id)) {
		loc_close(&l);
		return r_err(c->r, EINTR), 0;
	}
	if (slash && !(flags & AT_REMOVEDIR)) {
		loc_close(&l);
		return c->r->kind = R_CONTINUE, 0; /* the kernel's EISDIR or ENOTDIR */
	}
	if ((why = srt__super_refused(c->s, l.abs, 1))) {
		loc_close(&l);
		return refuse(c, l.abs, why, EACCES);
	}
	if (unlinkat(l.dfd, l.name, flags) != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	loc_close(&l);
	return 0;
}

/* An entry (a link, or of a type readdir did not say) of a directory being
 * moved to child: a link is judged as a new link there. */
static const char *moved_entry_refused(const struct srt__super *s, DIR *d, const char *name,
				       const char *child)
{
	struct stat st;

	if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return link_refused(s, child);
	return srt__super_refused(s, child, 0);
}

/* A directory about to appear at dest (an absolute real path): would any
 * entry of it (open at dfd) land on a protected name? The whole tree (the
 * patterns hold at any depth) but node_modules; *budget entries at most
 * (then the answer is "cannot tell": EXDEV, which makes mv copy instead,
 * one supervised call per name). */
static int subtree_refused(const struct srt__super *s, int dfd, const char *dest, size_t *budget,
			   const char **why)
{
	DIR *d;
	struct dirent *de;
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3), rc = 0;

	if (fd < 0)
		return -EIO;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -EIO;
	}
	while (!rc && (de = readdir(d))) {
		char child[PATH_MAX];
		int cfd;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (*budget == 0) {
			rc = -EXDEV;
			break;
		}
		(*budget)--;
		if (snprintf(child, sizeof(child), "%s/%s", dest, de->d_name) >= (int)sizeof(child)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if ((*why = de->d_type == DT_LNK || de->d_type == DT_UNKNOWN ? moved_entry_refused(s, d, de->d_name, child)
									  : srt__super_refused(s, child, 0))) {
			rc = 1;
			break;
		}
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    !strcasecmp(de->d_name, "node_modules"))
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		rc = subtree_refused(s, cfd, child, budget, why);
		close(cfd);
	}
	closedir(d);
	return rc;
}

/* Could a name pattern match below dest? Everywhere in a write root (the
 * patterns hold at any depth) except below node_modules. */
static int patterns_below(const struct srt__super *s, const char *dest)
{
	char buf[PATH_MAX], *c[PATH_MAX / 2], *p, *save = NULL;
	size_t i, n = 0;

	for (i = 0; i < s->n_roots; i++) {
		const struct sroot *r = &s->roots[i];

		if (!under(dest, r->path, r->len) || dest[r->len] == '\0' ||
		    strlen(dest + r->len) >= sizeof(buf))
			continue;
		strcpy(buf, dest + r->len + 1);
		n = 0;
		for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
			c[n++] = p;
		if (!package_content(c, n))
			return 1;
	}
	return 0;
}

/* Check that moving the object named (dfd, name) to dest brings no
 * protected name into place. 0 when fine, else c->r is set. */
static int check_moved(struct call *c, int dfd, const char *name, const char *dest)
{
	struct stat st;
	const char *why = NULL;
	size_t budget = WALK_BUDGET;
	int fd, rc;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (!patterns_below(c->s, dest))
		return 0; /* a protected path below dest: refused by its "holds" */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return r_err(c->r, errno), -1;
	rc = subtree_refused(c->s, fd, dest, &budget, &why);
	close(fd);
	if (rc == 1) {
		refuse(c, dest, why, EACCES);
		return -1;
	}
	if (rc < 0)
		return r_err(c->r, -rc), -1;
	return 0;
}

/* A symbolic link moved (or linked) to dest: checked as a new link there.
 * 0 when fine, else c->r is set. */
static int moved_link(struct call *c, int dfd, const char *name, const char *dest)
{
	struct stat st;
	const char *why;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode))
		return 0;
	if (!(why = link_refused(c->s, dest)))
		return 0;
	refuse(c, dest, why, EACCES);
	return -1;
}

static int do_rename(struct call *c)
{
	char raw1[PATH_MAX], raw2[PATH_MAX];
	struct loc a, b;
	const char *why;
	unsigned flags = c->sc->flags >= 0 ? (unsigned)arg(c, c->sc->flags) : 0;
	int s1, s2, ra, rb;

	if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return c->r->kind = R_CONTINUE, 0;
	a.dfd = b.dfd = -1;
	if (read_arg_path(c, c->sc->path, raw1) || read_arg_path(c, c->sc->path2, raw2))
		return 0;
	if (!id_valid(c->s, c->n->id))
		return r_err(c->r, EINTR), 0;
	ra = resolve_at(c->s, (pid_t)c->n->pid, arg_fd(c, c->sc->dfd), raw1, -1, &a, &s1);
	rb = resolve_at(c->s, (pid_t)c->n->pid, arg_fd(c, c->sc->dfd2), raw2, -1, &b, &s2);
	if (ra != 1 || rb != 1) {
		/* neither in a write root: Landlock decides; one only: the
		 * command may not move things in or out of the write roots
		 * (mv copies then) */
		if (ra == 1 || rb == 1)
			r_err(c->r, EXDEV);
		else
			c->r->kind = R_CONTINUE;
		goto out;
	}
	if ((why = srt__super_refused(c->s, a.abs, 1))) {
		refuse(c, a.abs, why, EACCES);
		goto out;
	}
	if ((why = srt__super_refused(c->s, b.abs, 1))) {
		refuse(c, b.abs, why, EACCES);
		goto out;
	}
	if (check_moved(c, a.dfd, a.name, b.abs) || moved_link(c, a.dfd, a.name, b.abs))
		goto out;
	if ((flags & RENAME_EXCHANGE) &&
	    (check_moved(c, b.dfd, b.name, a.abs) || moved_link(c, b.dfd, b.name, a.abs)))
		goto out;
	if (syscall(SYS_renameat2, a.dfd, a.name, b.dfd, b.name, flags) != 0) {
		r_err(c->r, errno);
	} else {
		r_val(c->r, 0);
		note_made(c->s, b.dfd, b.name);
		if (flags & RENAME_EXCHANGE)
			note_made(c->s, a.dfd, a.name);
	}
out:
	loc_close(&a);
	loc_close(&b);
	return 0;
}

/* "/proc/self/fd/N", "/proc/thread-self/fd/N", "/proc/<pid>/fd/N": N. */
static int proc_fd_number(const char *p)
{
	const char *q;
	char *end;
	long v;

	if (strncmp(p, "/proc/", 6) != 0)
		return -1;
	q = strchr(p + 6, '/');
	if (!q || strncmp(q, "/fd/", 4) != 0)
		return -1;
	v = strtol(q + 4, &end, 10);
	if (*end || v < 0 || v > INT32_MAX || end == q + 4)
		return -1;
	return (int)v;
}

/* link with an unnamed file (O_TMPFILE) as source: the caller's fd. */
static int link_tmpfile(struct call *c, int fdnum, struct loc *b)
{
	char p[64];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)c->n->pid, fdnum);
	fd = open(p, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return r_err(c->r, errno == ENOENT ? EBADF : errno), 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 0) {
		/* a named file: not through a descriptor (it may be anywhere) */
		close(fd);
		return r_err(c->r, EPERM), 0;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, p, b->dfd, b->name, AT_SYMLINK_FOLLOW) != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	close(fd);
	return 0;
}

static int do_link(struct call *c)
{
	char raw1[PATH_MAX], raw2[PATH_MAX];
	struct loc a, b;
	struct stat st;
	const char *why;
	int flags = c->sc->flags >= 0 ? (int)arg(c, c->sc->flags) : 0;
	int s1, s2, ra, rb, fdnum;

	a.dfd = b.dfd = -1;
	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return c->r->kind = R_CONTINUE, 0;
	if (read_arg_path(c, c->sc->path, raw1) || read_arg_path(c, c->sc->path2, raw2))
		return 0;
	if (!id_valid(c->s, c->n->id))
		return r_err(c->r, EINTR), 0;
	rb = resolve_at(c->s, (pid_t)c->n->pid, arg_fd(c, c->sc->dfd2), raw2, -1, &b, &s2);
	if (rb != 1)
		return c->r->kind = R_CONTINUE, 0;
	if ((why = srt__super_refused(c->s, b.abs, 0))) {
		refuse(c, b.abs, why, EACCES);
		goto out;
	}
	if ((flags & AT_EMPTY_PATH) && !raw1[0]) {
		link_tmpfile(c, arg_fd(c, c->sc->dfd), &b);
		goto out;
	}
	if ((flags & AT_SYMLINK_FOLLOW) && (fdnum = proc_fd_number(raw1)) >= 0) {
		link_tmpfile(c, fdnum, &b);
		goto out;
	}
	ra = resolve_at(c->s, (pid_t)c->n->pid, arg_fd(c, c->sc->dfd), raw1, -1, &a, &s1);
	if (ra != 1) {
		r_err(c->r, EXDEV); /* a file from outside the write roots */
		goto out;
	}
	if ((why = srt__super_refused(c->s, a.abs, 0))) {
		refuse(c, a.abs, why, EACCES);
		goto out;
	}
	if (fstatat(a.dfd, a.name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		r_err(c->r, errno);
		goto out;
	}
	if ((why = link_of_protected(c->s, &st))) {
		refuse(c, a.abs, why, EACCES);
		goto out;
	}
	if (S_ISLNK(st.st_mode) && (flags & AT_SYMLINK_FOLLOW)) {
		r_err(c->r, EPERM); /* the supervisor links names, not link targets */
		goto out;
	}
	if (S_ISLNK(st.st_mode) && (why = link_refused(c->s, b.abs))) {
		refuse(c, b.abs, why, EACCES);
		goto out;
	}
	if (linkat(a.dfd, a.name, b.dfd, b.name, 0) != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
out:
	loc_close(&a);
	loc_close(&b);
	return 0;
}

static int do_symlink(struct call *c)
{
	char raw[PATH_MAX], target[PATH_MAX];
	struct loc l;
	const char *why;
	int slash;

	if (read_arg_path(c, c->sc->path2, target))
		return 0;
	if (operand(c, c->sc->dfd, c->sc->path, &l, &slash, raw) != 1)
		return 0;
	if (!id_valid(c->s, c->n->id)) {
		loc_close(&l);
		return r_err(c->r, EINTR), 0;
	}
	if ((why = link_refused(c->s, l.abs))) {
		loc_close(&l);
		return refuse(c, l.abs, why, EACCES);
	}
	if (symlinkat(target, l.dfd, l.name) != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	loc_close(&l);
	return 0;
}

/* ---- mode and time changes ---------------------------------------------
 * Landlock has no right for them, so without this chmod +x on a git hook,
 * or chmod/touch on any file the caller owns anywhere, would reach the
 * host. The supervisor pins the object first (an O_PATH descriptor of its
 * own, so no later rename can swap it), judges that object by its real
 * path and inode, and changes it through that descriptor: allowed only
 * inside a write root, on no protected name and no hard link of a
 * protected file; anywhere else EACCES and a violation, as linux-bwrap's
 * read-only mounts refuse it (EROFS). */

/* "/proc/self/fd/N", "/proc/thread-self/fd/N", "/dev/fd/N": N, else -1.
 * These name the caller's own descriptors; any other magic link is not
 * followed. */
static int own_fd_path(const char *p)
{
	static const char *const pre[] = { "/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/" };
	size_t i, l;

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		char *end;
		long v;

		l = strlen(pre[i]);
		if (strncmp(p, pre[i], l) != 0 || p[l] < '0' || p[l] > '9')
			continue;
		v = strtol(p + l, &end, 10);
		return *end || v > INT32_MAX ? -1 : (int)v;
	}
	return -1;
}

/* The caller's descriptor fdnum (AT_FDCWD: its cwd) as an O_PATH
 * descriptor of ours on the same object, or -errno. */
static int pin_caller_fd(pid_t tid, int fdnum)
{
	char p[64];
	int fd;

	if (fdnum == AT_FDCWD)
		snprintf(p, sizeof(p), "/proc/%d/cwd", (int)tid);
	else if (fdnum >= 0)
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)tid, fdnum);
	else
		return -EBADF;
	fd = open(p, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EBADF : -errno;
	return fd;
}

/* Pin the object a mode or time change names: *fd (O_PATH), *nofollow set
 * when it is a symbolic link itself that is meant. 0, or -errno. */
static int meta_target(struct call *c, int *fd, int *nofollow)
{
	pid_t tid = (pid_t)c->n->pid;
	int flags = c->sc->flags >= 0 ? (int)arg(c, c->sc->flags) : 0;
	int dirfd = arg_fd(c, c->sc->dfd), anchor, own, rc;
	char path[PATH_MAX];

	*nofollow = (flags & AT_SYMLINK_NOFOLLOW) != 0;
	/* fchmod, and utimensat/futimesat with a NULL path: the descriptor */
	if (c->sc->path < 0 || (c->sc->op == SRT_SUP_UTIMES && c->sc->dfd >= 0 && !arg(c, c->sc->path))) {
		*nofollow = 0;
		if (c->sc->path >= 0 && dirfd == AT_FDCWD)
			return -EFAULT;
		return (*fd = pin_caller_fd(tid, dirfd)) < 0 ? *fd : 0;
	}
	rc = read_str(tid, c->n->data.args[c->sc->path], path, sizeof(path));
	if (rc < 0)
		return rc == -ESRCH ? -EFAULT : rc;
	if (!path[0]) {
		if (!(flags & AT_EMPTY_PATH))
			return -ENOENT;
		*nofollow = 1; /* the descriptor's own object, link or not */
		return (*fd = pin_caller_fd(tid, dirfd)) < 0 ? *fd : 0;
	}
	if ((own = own_fd_path(path)) >= 0) {
		*nofollow = 0;
		return (*fd = pin_caller_fd(tid, own)) < 0 ? *fd : 0;
	}
	anchor = open_anchor(tid, dirfd, path);
	if (anchor < 0)
		return dirfd == AT_FDCWD || path[0] == '/' ? -ENOENT : -EBADF;
	*fd = (int)sys_openat2(anchor, path, O_PATH | O_CLOEXEC | (*nofollow ? O_NOFOLLOW : 0),
			       RESOLVE_NO_MAGICLINKS);
	rc = *fd < 0 ? -errno : 0;
	close(anchor);
	return rc;
}

/* NULL when the pinned object may have its mode or times changed, else the
 * rule; *where its real path (or what it is). */
static const char *meta_refused(const struct srt__super *s, int fd, const struct stat *st, char *where,
				size_t cap)
{
	const char *why;
	const struct sroot *r;

	if (fd_path(fd, where, cap) != 0) {
		/* a pipe, socket or other object of no filesystem */
		snprintf(where, cap, "(an object of no filesystem)");
		return NULL;
	}
	if (st->st_nlink == 0)
		return NULL; /* no name left: nothing on the host can reach it */
	if ((why = link_of_protected(s, st)))
		return why;
	r = find_root(s, where);
	if (!r || srt__super_passed(s, where))
		return "outside the write roots";
	return srt__super_refused(s, where, 0);
}

/* A time the caller gave, as our time_t (a 32-bit one cannot hold every
 * 64-bit second: EOVERFLOW, as the kernel's own conversions say). */
static int put_time(struct timespec *t, int64_t sec, int64_t nsec)
{
	t->tv_sec = (time_t)sec;
	t->tv_nsec = (long)nsec;
	if ((int64_t)t->tv_sec != sec || (int64_t)t->tv_nsec != nsec)
		return -EOVERFLOW;
	return 0;
}

/* The caller's times, read once, as a utimensat argument (*tsp NULL: now).
 * Read in the kernel's layout for the call (seccomp.h). */
static int meta_times(struct call *c, struct timespec ts[2], struct timespec **tsp)
{
	uint64_t addr = c->n->data.args[c->sc->mode];
	struct iovec l, r;
	union {
		struct { __kernel_long_t sec, nsec; } ts[2];
		struct { __kernel_long_t sec, usec; } tv[2];
		struct { __kernel_long_t actime, modtime; } ub;
		struct { int64_t sec, nsec; } ts64[2];
	} u;
	int kind = c->sc->fixed_flags;
	size_t len = kind == SRT_SUP_TIMESPEC ? sizeof(u.ts) : kind == SRT_SUP_TIMEVAL ? sizeof(u.tv) :
		     kind == SRT_SUP_TIMESPEC64 ? sizeof(u.ts64) : sizeof(u.ub);
	int i, rc = 0;

	*tsp = NULL;
	if (!addr)
		return 0;
	l.iov_base = &u;
	l.iov_len = len;
	r.iov_base = (void *)(uintptr_t)addr;
	r.iov_len = len;
	if (process_vm_readv((pid_t)c->n->pid, &l, 1, &r, 1, 0) != (ssize_t)len)
		return -EFAULT;
	*tsp = ts;
	for (i = 0; i < 2 && !rc; i++) {
		if (kind == SRT_SUP_TIMESPEC) {
			rc = put_time(&ts[i], u.ts[i].sec, u.ts[i].nsec);
		} else if (kind == SRT_SUP_TIMESPEC64) {
			rc = put_time(&ts[i], u.ts64[i].sec, u.ts64[i].nsec);
		} else if (kind == SRT_SUP_UTIMBUF) {
			rc = put_time(&ts[i], i ? u.ub.modtime : u.ub.actime, 0);
		} else {
			if (u.tv[i].usec < 0 || u.tv[i].usec >= 1000000)
				return -EINVAL;
			rc = put_time(&ts[i], u.tv[i].sec, (int64_t)u.tv[i].usec * 1000);
		}
	}
	return rc;
}

static int do_meta(struct call *c)
{
	char where[PATH_MAX], self[64];
	struct timespec ts[2], *tsp = NULL;
	struct stat st;
	const char *why;
	int fd = -1, nofollow = 0, rc;

	if (c->sc->op == SRT_SUP_UTIMES && (rc = meta_times(c, ts, &tsp)) < 0)
		return r_err(c->r, -rc), 0;
	rc = meta_target(c, &fd, &nofollow);
	if (rc < 0)
		return r_err(c->r, -rc), 0;
	if (!id_valid(c->s, c->n->id)) {
		close(fd);
		return r_err(c->r, EINTR), 0;
	}
	if (fstat(fd, &st) != 0) {
		rc = errno;
		close(fd);
		return r_err(c->r, rc), 0;
	}
	if ((why = meta_refused(c->s, fd, &st, where, sizeof(where)))) {
		close(fd);
		return refuse(c, where, why, EACCES);
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (c->sc->op == SRT_SUP_CHMOD) {
		mode_t mode = (mode_t)arg(c, c->sc->mode) & 07777;

		if (mode & ~(mode_t)SAFE_MODE)
			rc = (errno = EPERM, -1); /* set-id: the filters refuse it first */
		else if (S_ISLNK(st.st_mode))
			rc = (errno = EOPNOTSUPP, -1); /* a link's own mode cannot change */
		else
			rc = fchmodat(AT_FDCWD, self, mode, 0);
	} else {
		rc = utimensat(fd, "", tsp, AT_EMPTY_PATH | (S_ISLNK(st.st_mode) ? AT_SYMLINK_NOFOLLOW : 0));
	}
	if (rc != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	close(fd);
	return 0;
}

/* ---- Unix sockets ------------------------------------------------------- */

int srt__unix_socket_for(int type, int proto, int *fd)
{
	*fd = -1;
	if ((type & 0xf) != SOCK_STREAM && (type & 0xf) != SOCK_SEQPACKET)
		return EPERM; /* a datagram socket can sendto() any path */
	*fd = socket(AF_UNIX, type | SOCK_CLOEXEC, proto);
	return *fd < 0 ? errno : 0;
}

static int unix_allowed(char *const *allowed, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(allowed[i], path))
			return (int)i;
	return -1;
}

/* The real path of the socket file named by raw for the caller (its cwd
 * through /proc/<proc_pid>/cwd for a relative one). */
static int socket_real_path(long proc_pid, const char *raw, char *out, size_t cap)
{
	char dir[PATH_MAX], name[NAME_MAX + 1], real[PATH_MAX];
	int slash, anchor, pfd;

	if (split_path(raw, dir, sizeof(dir), name, &slash) != 0 || slash)
		return -1;
	anchor = open_anchor((pid_t)proc_pid, AT_FDCWD, raw);
	if (anchor < 0)
		return -1;
	pfd = dir[0] ? (int)sys_openat2(anchor, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS)
		     : fcntl(anchor, F_DUPFD_CLOEXEC, 3);
	close(anchor);
	if (pfd < 0)
		return -1;
	if (fd_path(pfd, real, sizeof(real)) != 0) {
		close(pfd);
		return -1;
	}
	close(pfd);
	return snprintf(out, cap, "%s/%s", strcmp(real, "/") ? real : "", name) >= (int)cap ? -1 : 0;
}

/* The caller's socket, its own open file description (pidfd_getfd). */
static int take_socket(const struct srt__unix_connect *uc, int *fd)
{
	int pidfd;

	pidfd = (int)syscall(SYS_pidfd_open, uc->pid, PIDFD_THREAD);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, uc->pid, 0);
	if (pidfd < 0)
		return EPERM;
	*fd = (int)syscall(SYS_pidfd_getfd, pidfd, uc->sockfd, 0);
	close(pidfd);
	if (*fd < 0)
		return errno == EBADF ? EBADF : EPERM;
	return 0;
}

/* The caller's sockaddr, read once into buf (len bytes), while the
 * notification is still the caller's. */
static int read_addr(const struct srt__unix_connect *uc, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)uc->addr, len };
	uint64_t id = uc->id;

	if (process_vm_readv(uc->pid, &l, 1, &r, 1, 0) != (ssize_t)len)
		return EFAULT;
	if (notif_ioctl(uc->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
		return EFAULT;
	return 0;
}

/* An AF_INET/AF_INET6 socket, connected here to the address as read: the
 * same call in the same network namespace. Never continued: by the time
 * the kernel ran it, another thread could have put a Unix socket at the
 * descriptor number. */
static int connect_inet(struct srt__unix_connect *uc, int fd)
{
	struct sockaddr_storage ss;

	if (uc->len > sizeof(ss))
		return EINVAL;
	memset(&ss, 0, sizeof(ss));
	if (uc->len && read_addr(uc, &ss, (size_t)uc->len) != 0)
		return EFAULT;
	return connect(fd, (struct sockaddr *)&ss, (socklen_t)uc->len) == 0 ? 0 : errno;
}

static int connect_unix(struct srt__unix_connect *uc, int fd)
{
	struct sockaddr_un sun;
	char raw[sizeof(sun.sun_path) + 1], real[PATH_MAX];
	struct stat st;
	int i, pin, rc;

	if (uc->len <= offsetof(struct sockaddr_un, sun_path) || uc->len > sizeof(sun)) {
		snprintf(uc->what, sizeof(uc->what), "AF_UNIX");
		return EPERM;
	}
	memset(&sun, 0, sizeof(sun));
	if (read_addr(uc, &sun, (size_t)uc->len) != 0)
		return EFAULT;
	if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0') {
		snprintf(uc->what, sizeof(uc->what), "%s",
			 sun.sun_family == AF_UNIX ? "(abstract Unix socket)" : "(address)");
		return EPERM;
	}
	memcpy(raw, sun.sun_path, sizeof(sun.sun_path));
	raw[uc->len - offsetof(struct sockaddr_un, sun_path)] = '\0';
	if (socket_real_path(uc->proc_pid, raw, real, sizeof(real)) != 0 ||
	    (i = unix_allowed(uc->allowed, uc->n_allowed, real)) < 0) {
		snprintf(uc->what, sizeof(uc->what), "%s", raw);
		return EACCES;
	}
	/* the allowed path as srt holds it, never the caller's bytes, and
	 * never through a link: the name (or a directory on its way) may be in
	 * a write root, where the command can put a link to another socket
	 * there, and connect(2) would follow it. srt's spelling is the real
	 * one, so a link on it now is not the user's. */
	pin = (int)sys_openat2(AT_FDCWD, uc->allowed[i], O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (pin < 0) {
		if (errno != ELOOP)
			return errno;
		/* a symbolic link now stands on the allowed socket's path */
		snprintf(uc->what, sizeof(uc->what), "%s", uc->allowed[i]);
		return EACCES;
	}
	if (fstat(pin, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		close(pin);
		return ECONNREFUSED;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/proc/self/fd/%d", pin);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 ? 0 : errno;
	close(pin);
	return rc;
}

int srt__unix_connect_for(struct srt__unix_connect *uc)
{
	socklen_t ol;
	int fd = -1, dom = -1, type = -1, rc;

	uc->what[0] = '\0';
	rc = take_socket(uc, &fd);
	if (rc)
		return rc;
	ol = sizeof(dom);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &ol) != 0) {
		close(fd);
		return ENOTSOCK;
	}
	ol = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ol) != 0)
		type = -1;
	if (uc->inet && (dom == AF_INET || dom == AF_INET6)) {
		rc = connect_inet(uc, fd);
	} else if (dom != AF_UNIX || (type != SOCK_STREAM && type != SOCK_SEQPACKET)) {
		/* only the supervisor connects, from outside whatever confines
		 * the caller: no other family, no datagram socket */
		snprintf(uc->what, sizeof(uc->what), "%s", dom == AF_UNIX ? "AF_UNIX" : "a non-Unix socket");
		rc = EPERM;
	} else {
		rc = connect_unix(uc, fd);
	}
	close(fd);
	return rc;
}

static int do_socket(struct call *c)
{
	int fd, rc;

	if ((int)(uint32_t)arg(c, 0) != AF_UNIX)
		return c->r->kind = R_CONTINUE, 0; /* not notified: the filter matches AF_UNIX */
	rc = c->s->n_unix ? srt__unix_socket_for((int)arg(c, 1), (int)arg(c, 2), &fd) : EPERM;
	if (rc == EPERM)
		report(c->s, "socket", "AF_UNIX", NULL);
	if (rc)
		return r_err(c->r, rc), 0;
	c->r->kind = R_FD;
	c->r->fd = fd;
	c->r->fdflags = ((int)arg(c, 1) & SOCK_CLOEXEC) ? O_CLOEXEC : 0;
	return 0;
}

static int do_connect(struct call *c)
{
	struct srt__unix_connect uc;
	int rc;

	memset(&uc, 0, sizeof(uc));
	uc.pid = (pid_t)c->n->pid;
	uc.proc_pid = (long)c->n->pid;
	uc.listener = c->s->listener;
	uc.id = c->n->id;
	uc.sockfd = (int)(uint32_t)arg(c, 0);
	uc.addr = c->n->data.args[1];
	uc.len = (uint32_t)arg(c, 2);
	uc.allowed = c->s->unix_ok;
	uc.n_allowed = c->s->n_unix;
	uc.inet = 0; /* a socket of another family would be connected from
		      * outside the command's Landlock domain */
	rc = srt__unix_connect_for(&uc);
	if (uc.what[0])
		report(c->s, "connect", uc.what, NULL);
	if (rc)
		r_err(c->r, rc);
	else
		r_val(c->r, 0);
	return 0;
}

/* bind(2) of a pathname Unix socket: the socket file is a new name. In a
 * write root the supervisor binds the caller's socket (pidfd_getfd) to the
 * name in the directory it resolved, through its own descriptor of that
 * directory; anything else is continued, where Landlock refuses a socket
 * file in a write root and abstract names are no files. */
static int do_bind(struct call *c)
{
	struct sockaddr_un sun;
	struct iovec l, r;
	char raw[sizeof(sun.sun_path) + 1], via[sizeof(sun.sun_path) + 1];
	socklen_t len = (socklen_t)arg(c, 2), ol;
	struct loc where;
	const char *why;
	int pidfd, fd, dom = -1, slash, rc;
	mode_t old;

	c->r->kind = R_CONTINUE;
	if (len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof(sun))
		return 0;
	memset(&sun, 0, sizeof(sun));
	l.iov_base = &sun;
	l.iov_len = len;
	r.iov_base = (void *)(uintptr_t)c->n->data.args[1];
	r.iov_len = len;
	if (process_vm_readv((pid_t)c->n->pid, &l, 1, &r, 1, 0) != (ssize_t)len)
		return 0;
	if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return 0;
	memcpy(raw, sun.sun_path, sizeof(sun.sun_path));
	raw[len - offsetof(struct sockaddr_un, sun_path)] = '\0';
	if (!id_valid(c->s, c->n->id))
		return r_err(c->r, EINTR), 0;
	if (resolve_at(c->s, (pid_t)c->n->pid, AT_FDCWD, raw, -1, &where, &slash) != 1)
		return 0;
	if ((why = srt__super_refused(c->s, where.abs, 0))) {
		loc_close(&where);
		return refuse(c, where.abs, why, EACCES);
	}
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)c->n->pid, PIDFD_THREAD);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, (pid_t)c->n->pid, 0);
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)(uint32_t)arg(c, 0), 0);
	if (pidfd >= 0)
		close(pidfd);
	ol = sizeof(dom);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &ol) != 0 || dom != AF_UNIX) {
		if (fd >= 0)
			close(fd);
		loc_close(&where);
		return r_err(c->r, fd < 0 ? EBADF : EINVAL), 0;
	}
	if (snprintf(via, sizeof(via), "/proc/self/fd/%d/%s", where.dfd, where.name) >= (int)sizeof(via)) {
		close(fd);
		loc_close(&where);
		return r_err(c->r, ENAMETOOLONG), 0;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, via);
	old = umask(caller_umask((pid_t)c->n->pid));
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	if (rc != 0)
		r_err(c->r, errno);
	else
		r_val(c->r, 0);
	umask(old);
	close(fd);
	loc_close(&where);
	return 0;
}

/* ---- the loop ----------------------------------------------------------- */

static void handle(struct srt__super *s, const struct seccomp_notif *n)
{
	struct reply r;
	struct call c;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.kind = R_CONTINUE;
	c.s = s;
	c.n = n;
	c.r = &r;
	c.sc = NULL;
	for (i = 0; i < srt__n_supervised_syscalls && i < sizeof(s->nr) / sizeof(s->nr[0]); i++)
		if (s->nr[i] >= 0 && s->nr[i] == n->data.nr) {
			c.sc = &srt__supervised_syscalls[i];
			break;
		}
	if (!c.sc) {
		r_err(&r, ENOSYS);
	} else {
		switch (c.sc->op) {
		case SRT_SUP_OPEN: do_open(&c); break;
		case SRT_SUP_MKDIR:
		case SRT_SUP_MKNOD: do_mkdir_mknod(&c); break;
		case SRT_SUP_UNLINK: do_unlink(&c); break;
		case SRT_SUP_RENAME: do_rename(&c); break;
		case SRT_SUP_LINK: do_link(&c); break;
		case SRT_SUP_SYMLINK: do_symlink(&c); break;
		case SRT_SUP_TRUNCATE: do_truncate(&c); break;
		case SRT_SUP_SOCKET: do_socket(&c); break;
		case SRT_SUP_CONNECT: do_connect(&c); break;
		case SRT_SUP_BIND: do_bind(&c); break;
		case SRT_SUP_CHMOD:
		case SRT_SUP_UTIMES: do_meta(&c); break;
		default: r_err(&r, ENOSYS); break;
		}
	}
	if (r.kind >= 0)
		send_reply(s, n->id, &r);
}

int srt__super_serve(struct srt__super *s, int listener, int stop_fd, int events_fd)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *n;
	size_t nsize;

	s->listener = listener;
	s->events_fd = events_fd;
	if (events_fd >= 0)
		fcntl(events_fd, F_SETFL, fcntl(events_fd, F_GETFL) | O_NONBLOCK);
	umask(0); /* the caller's umask is applied to every mode by hand */
	memset(&sz, 0, sizeof(sz));
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return -1;
	nsize = sz.seccomp_notif > sizeof(*n) ? sz.seccomp_notif : sizeof(*n);
	n = malloc(nsize);
	if (!n)
		return -1;
	for (;;) {
		struct pollfd p[2] = { { listener, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };

		if (poll(p, stop_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) || (stop_fd >= 0 && p[1].revents)) {
			free(n);
			return 0;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		memset(n, 0, nsize);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		handle(s, n);
	}
	free(n);
	return -1;
}
