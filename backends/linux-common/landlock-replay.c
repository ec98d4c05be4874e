/* linux-landlock: replay a rule plan (see replay.h, format in plan.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/landlock-replay.h"

static int failp(struct srt__ll_replay *p, const char *step, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int failp(struct srt__ll_replay *p, const char *step, const char *fmt, ...)
{
	va_list ap;

	snprintf(p->step, sizeof(p->step), "%s", step);
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -1;
}

void srt__ll_replay_init(struct srt__ll_replay *p)
{
	memset(p, 0, sizeof(*p));
	p->ruleset_fd = -1;
}

void srt__ll_replay_release(struct srt__ll_replay *p)
{
	if (p->ruleset_fd >= 0)
		close(p->ruleset_fd);
	p->ruleset_fd = -1;
}

int srt__ll_replay_read(struct srt__ll_replay *p, int fd, char **out, size_t *len)
{
	struct stat st;
	size_t off = 0;
	char *buf;

	if (fstat(fd, &st) != 0)
		return failp(p, "read plan", "fd %d: %s", fd, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SRT_LL_PLAN_MAX_BYTES)
		return failp(p, "read plan", "fd %d is not a plan (%lld bytes)", fd, (long long)st.st_size);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return failp(p, "read plan", "%s", strerror(ENOMEM));
	while (off < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + off, (size_t)st.st_size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return failp(p, "read plan", "fd %d: %s", fd, n < 0 ? strerror(errno) : "short read");
		}
		off += (size_t)n;
	}
	buf[off] = '\0';
	*out = buf;
	*len = off;
	return 0;
}

static int hex_field(struct srt__ll_replay *p, const char *s, const char *what, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || end == s || *end)
		return failp(p, "parse plan", "bad %s \"%s\"", what, s);
	*out = (uint64_t)v;
	return 0;
}

/* Open path as the object srt planned for (dev, ino), without following a
 * final symbolic link; -1 when it is gone or is something else now. With
 * check 0 whatever is at path now (a "here" record). */
static int open_planned(const char *path, int check, uint64_t dev, uint64_t ino, struct stat *st)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 ||
	    (check && ((uint64_t)st->st_dev != dev || (uint64_t)st->st_ino != ino))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int add_path_rule(struct srt__ll_replay *p, int fd, const struct stat *st, uint64_t access,
			 const char *path)
{
	struct srt__ll_path_beneath_attr pb;

	access &= p->fs;
	if (!S_ISDIR(st->st_mode))
		access &= SRT_LL_FILE_RIGHTS;
	if (!access)
		return 0;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (srt__ll_add_rule(p->ruleset_fd, SRT_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
		return failp(p, "landlock_add_rule", "\"%s\": %s", path, strerror(errno));
	p->n_rules++;
	return 0;
}

static int create_ruleset(struct srt__ll_replay *p)
{
	struct srt__ll_ruleset_attr attr;
	size_t size;
	int abi;

	abi = srt__ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		return failp(p, "landlock", "%s", strerror(errno));
	p->kernel_abi = abi;
	if (abi < p->abi)
		return failp(p, "landlock", "the plan needs ABI %d, this kernel has %d", p->abi, abi);
	if (!p->fs && !p->net && !p->scope)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = p->fs;
	attr.handled_access_net = p->net;
	attr.scoped = p->scope;
	/* the shortest struct that carries what we set: older kernels refuse
	 * fields they do not know only when those are non-zero, but say so
	 * with E2BIG, which would hide a planning error */
	size = p->scope ? sizeof(attr) : p->net ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	p->ruleset_fd = srt__ll_create_ruleset(&attr, size, 0);
	if (p->ruleset_fd < 0)
		return failp(p, "landlock_create_ruleset", "%s", strerror(errno));
	return 0;
}

/* The header records, each required exactly once before any rule: a plan
 * that leaves one out is not one srt wrote, and running it could mean
 * fewer layers. */
static const char *const headers[] = {
	"abi", "fs", "net", "scope", "seccomp", "inet-block", "meta-block", "stdio",
};
#define N_HEADERS (sizeof(headers) / sizeof(headers[0]))

static int seen_header(struct srt__ll_replay *p, unsigned *seen, const char *name)
{
	size_t i;

	for (i = 0; i < N_HEADERS; i++)
		if (!strcmp(headers[i], name)) {
			if (*seen & (1u << i))
				return failp(p, "parse plan", "\"%s\" given twice", name);
			*seen |= 1u << i;
			return 0;
		}
	return 0;
}

static int check_headers(struct srt__ll_replay *p, unsigned seen)
{
	size_t i;

	for (i = 0; i < N_HEADERS; i++)
		if (!(seen & (1u << i)))
			return failp(p, "parse plan", "\"%s\" is missing", headers[i]);
	return 0;
}

static int header(struct srt__ll_replay *p, const char *rec, const char *arg)
{
	uint64_t v = 0;

	if (hex_field(p, arg, rec, &v))
		return -1;
	if (!strcmp(rec, "abi"))
		p->abi = v > 64 ? 65 : (int)v;
	else if (!strcmp(rec, "fs"))
		p->fs = v;
	else if (!strcmp(rec, "net"))
		p->net = v;
	else if (!strcmp(rec, "scope"))
		p->scope = v;
	else if (!strcmp(rec, "seccomp"))
		p->seccomp = (unsigned)v;
	else if (!strcmp(rec, "inet-block"))
		p->inet_block = v != 0;
	else if (!strcmp(rec, "meta-block"))
		p->meta_block = v != 0;
	else if (!strcmp(rec, "stdio"))
		p->stdio = v;
	return 0;
}

/* "rule HEX DEV INO PATH" or, with check 0, "here HEX PATH". */
static int grant_record(struct srt__ll_replay *p, char *arg, int check)
{
	char *f1 = arg, *f2 = NULL, *f3 = NULL, *path, *e1, *e2;
	unsigned long long dev = 0, ino = 0;
	struct stat st;
	uint64_t access;
	int fd, rc;

	if (check) {
		f2 = strchr(f1, ' ');
		f3 = f2 ? strchr(f2 + 1, ' ') : NULL;
		path = f3 ? strchr(f3 + 1, ' ') : NULL;
	} else {
		path = strchr(f1, ' ');
	}
	if (!path || p->ruleset_fd < 0)
		return failp(p, "parse plan", "bad %s record", check ? "rule" : "here");
	*path++ = '\0';
	if (check) {
		*f2++ = '\0';
		*f3++ = '\0';
	}
	if (hex_field(p, f1, "rule access", &access))
		return -1;
	if (check) {
		errno = 0;
		dev = strtoull(f2, &e1, 10);
		ino = strtoull(f3, &e2, 10);
		if (errno || *e1 || *e2 || e1 == f2 || e2 == f3)
			return failp(p, "parse plan", "bad rule record for \"%s\"", path);
	}
	if (path[0] != '/')
		return failp(p, "parse plan", "bad rule record for \"%s\"", path);
	fd = open_planned(path, check, dev, ino, &st);
	if (fd < 0) {
		p->n_skipped++;
		return 0; /* gone or replaced: not granting is stricter */
	}
	rc = add_path_rule(p, fd, &st, access, path);
	close(fd);
	return rc;
}

int srt__ll_replay_build(struct srt__ll_replay *p, char *buf, size_t len, unsigned flags)
{
	char *rec = buf, *end = buf + len;
	int have_end = 0, created = 0;
	unsigned nrec = 0, seen = 0;

	if (len == 0 || buf[len - 1] != '\0')
		return failp(p, "parse plan", "the plan is not NUL-terminated");
	while (rec < end) {
		size_t rl = strlen(rec);
		char *arg = strchr(rec, ' ');
		int is_grant, rc = 0;

		if (have_end)
			return failp(p, "parse plan", "data after \"end\"");
		if (arg)
			*arg++ = '\0';
		is_grant = !strcmp(rec, "rule") || (!strcmp(rec, "here") && (flags & SRT_LL_REPLAY_HERE));
		if (nrec++ == 0) {
			if (strcmp(rec, "srt-landlock-plan") || !arg || strcmp(arg, "1"))
				return failp(p, "parse plan", "not a version 1 plan");
		} else if (is_grant && arg) {
			if (!created) {
				if (check_headers(p, seen) || create_ruleset(p))
					return -1;
				created = 1;
			}
			rc = grant_record(p, arg, rec[0] == 'r');
		} else if (!strcmp(rec, "end") && !arg) {
			have_end = 1;
		} else if (arg && !is_grant) {
			size_t i;

			for (i = 0; i < N_HEADERS && strcmp(headers[i], rec); i++)
				;
			if (i == N_HEADERS)
				return failp(p, "parse plan", "unknown record \"%s\"", rec);
			if (created)
				return failp(p, "parse plan", "\"%s\" after the rules", rec);
			rc = seen_header(p, &seen, rec);
			if (!rc)
				rc = header(p, rec, arg);
		} else {
			return failp(p, "parse plan", "unknown record \"%s\"", rec);
		}
		if (rc)
			return -1;
		rec += rl + 1;
	}
	if (!have_end)
		return failp(p, "parse plan", "the plan is truncated");
	if (check_headers(p, seen))
		return -1;
	if (!created && create_ruleset(p))
		return -1;
	return 0;
}

int srt__ll_replay_stdio(struct srt__ll_replay *p)
{
	int fd;

	if (!p->stdio || p->ruleset_fd < 0)
		return 0;
	for (fd = 1; fd <= 2; fd++) {
		struct stat st;
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (add_path_rule(p, fd, &st, p->stdio, fd == 1 ? "stdout" : "stderr"))
			return -1;
	}
	return 0;
}

int srt__ll_replay_restrict(struct srt__ll_replay *p)
{
	if (p->ruleset_fd < 0)
		return 0;
	if (srt__ll_restrict_self(p->ruleset_fd, 0) != 0)
		return failp(p, "landlock_restrict_self", "%s", strerror(errno));
	close(p->ruleset_fd);
	p->ruleset_fd = -1;
	return 0;
}
