/* srt-landlock-exec: replay a linux-landlock rule plan on this process and
 * exec the command.
 *
 *   srt-landlock-exec --plan-fd N -- command [args...]
 *
 * Steps, in this order: read and check the plan (plan.h), no_new_privs,
 * the parent-death signal (the command dies with srt), open every granted
 * path and check it is still the object srt planned for, drop every
 * capability, restrict self with the ruleset, load the seccomp filters
 * (the shared one of linux-bwrap and ours: socket families, io_uring,
 * chown and xattrs), exec.
 *
 * Any failure before exec: one line "srt-landlock-exec: <step>: <why>" on
 * stderr and exit status 125; the command never runs with fewer layers
 * than planned. If exec itself fails the status is 127 (not found) or 126,
 * like a shell. A granted path that vanished or changed since planning is
 * not granted: that only ever takes access away. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/linux-landlock/landlock-abi.h"
#include "backends/linux-landlock/netfilter.h"
#include "backends/linux-landlock/plan.h"
#include "backends/linux-bwrap/init/seccomp.h"

#define EXIT_SETUP 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

struct plan {
	int abi;
	uint64_t fs, net, scope, stdio;
	unsigned seccomp;
	int inet_block;
	int meta_block;
	int ruleset_fd;
};

static void die(const char *step, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void die(const char *step, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "srt-landlock-exec: %s: %s\n", step, why);
	_exit(EXIT_SETUP);
}

static char *read_plan(int fd, size_t *len)
{
	struct stat st;
	size_t off = 0;
	char *buf;

	if (fstat(fd, &st) != 0)
		die("read plan", "fd %d: %s", fd, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SRT_LL_PLAN_MAX_BYTES)
		die("read plan", "fd %d is not a plan (%lld bytes)", fd, (long long)st.st_size);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		die("read plan", "%s", strerror(ENOMEM));
	while (off < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + off, (size_t)st.st_size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read plan", "fd %d: %s", fd, n < 0 ? strerror(errno) : "short read");
		off += (size_t)n;
	}
	buf[off] = '\0';
	*len = off;
	return buf;
}

static uint64_t hex_field(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || end == s || *end)
		die("parse plan", "bad %s \"%s\"", what, s);
	return (uint64_t)v;
}

/* Open path as the object srt planned for (dev, ino), without following a
 * final symbolic link; -1 when it is gone or is something else now. */
static int open_planned(const char *path, uint64_t dev, uint64_t ino, struct stat *st)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || (uint64_t)st->st_dev != dev || (uint64_t)st->st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

static void add_path_rule(struct plan *p, int fd, const struct stat *st, uint64_t access,
			  const char *path)
{
	struct srt_ll_path_beneath_attr pb;

	access &= p->fs;
	if (!S_ISDIR(st->st_mode))
		access &= SRT_LL_FILE_RIGHTS;
	if (!access)
		return;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (srt_ll_add_rule(p->ruleset_fd, SRT_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
		die("landlock_add_rule", "\"%s\": %s", path, strerror(errno));
}

static void create_ruleset(struct plan *p)
{
	struct srt_ll_ruleset_attr attr;
	size_t size;
	int abi;

	abi = srt_ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		die("landlock", "%s", strerror(errno));
	if (abi < p->abi)
		die("landlock", "the plan needs ABI %d, this kernel has %d", p->abi, abi);
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = p->fs;
	attr.handled_access_net = p->net;
	attr.scoped = p->scope;
	/* the shortest struct that carries what we set: older kernels refuse
	 * fields they do not know only when those are non-zero, but say so
	 * with E2BIG, which would hide a planning error */
	size = p->scope ? sizeof(attr) : p->net ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	if (!p->fs && !p->net && !p->scope) {
		p->ruleset_fd = -1;
		return;
	}
	p->ruleset_fd = srt_ll_create_ruleset(&attr, size, 0);
	if (p->ruleset_fd < 0)
		die("landlock_create_ruleset", "%s", strerror(errno));
}

/* The header records, each required exactly once before any rule: a plan
 * that leaves one out is not one srt wrote, and running it could mean
 * fewer layers. */
static const char *const headers[] = {
	"abi", "fs", "net", "scope", "seccomp", "inet-block", "meta-block", "stdio",
};
#define ALL_HEADERS ((1u << (sizeof(headers) / sizeof(headers[0]))) - 1)

static void seen_header(unsigned *seen, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (!strcmp(headers[i], name)) {
			if (*seen & (1u << i))
				die("parse plan", "\"%s\" given twice", name);
			*seen |= 1u << i;
			return;
		}
}

static void check_headers(unsigned seen)
{
	size_t i;

	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (!(seen & (1u << i)))
			die("parse plan", "\"%s\" is missing", headers[i]);
}

/* Parse the records and build the ruleset as we go. */
static void apply_plan(struct plan *p, char *buf, size_t len)
{
	char *rec = buf, *end = buf + len;
	int have_end = 0, created = 0;
	unsigned nrec = 0, seen = 0;

	if (len == 0 || buf[len - 1] != '\0')
		die("parse plan", "the plan is not NUL-terminated");
	while (rec < end) {
		size_t rl = strlen(rec);
		char *arg = strchr(rec, ' ');

		if (have_end)
			die("parse plan", "data after \"end\"");
		if (arg)
			*arg++ = '\0';
		if (nrec > 0 && strcmp(rec, "rule") && strcmp(rec, "end")) {
			if (created)
				die("parse plan", "\"%s\" after the rules", rec);
			seen_header(&seen, rec);
		}
		if (nrec++ == 0) {
			if (strcmp(rec, "srt-landlock-plan") || !arg || strcmp(arg, "1"))
				die("parse plan", "not a version 1 plan");
		} else if (!strcmp(rec, "abi") && arg) {
			p->abi = (int)hex_field(arg, "abi");
		} else if (!strcmp(rec, "fs") && arg) {
			p->fs = hex_field(arg, "fs");
		} else if (!strcmp(rec, "net") && arg) {
			p->net = hex_field(arg, "net");
		} else if (!strcmp(rec, "scope") && arg) {
			p->scope = hex_field(arg, "scope");
		} else if (!strcmp(rec, "seccomp") && arg) {
			p->seccomp = (unsigned)hex_field(arg, "seccomp");
		} else if (!strcmp(rec, "inet-block") && arg) {
			p->inet_block = (int)hex_field(arg, "inet-block");
		} else if (!strcmp(rec, "meta-block") && arg) {
			p->meta_block = (int)hex_field(arg, "meta-block");
		} else if (!strcmp(rec, "stdio") && arg) {
			p->stdio = hex_field(arg, "stdio");
		} else if (!strcmp(rec, "rule") && arg) {
			char *f1 = arg, *f2, *f3, *path, *e1, *e2;
			unsigned long long dev, ino;
			struct stat st;
			uint64_t access;
			int fd;

			if (!created) {
				check_headers(seen);
				create_ruleset(p);
				created = 1;
			}
			f2 = strchr(f1, ' ');
			f3 = f2 ? strchr(f2 + 1, ' ') : NULL;
			path = f3 ? strchr(f3 + 1, ' ') : NULL;
			if (!path || p->ruleset_fd < 0)
				die("parse plan", "bad rule record");
			*f2++ = '\0';
			*f3++ = '\0';
			*path++ = '\0';
			access = hex_field(f1, "rule access");
			errno = 0;
			dev = strtoull(f2, &e1, 10);
			ino = strtoull(f3, &e2, 10);
			if (errno || *e1 || *e2 || e1 == f2 || e2 == f3 || path[0] != '/')
				die("parse plan", "bad rule record for \"%s\"", path);
			fd = open_planned(path, dev, ino, &st);
			if (fd < 0)
				goto next; /* gone or replaced: not granting is stricter */
			add_path_rule(p, fd, &st, access, path);
			close(fd);
		} else if (!strcmp(rec, "end") && !arg) {
			have_end = 1;
		} else {
			die("parse plan", "unknown record \"%s\"", rec);
		}
next:
		rec += rl + 1;
	}
	if (!have_end)
		die("parse plan", "the plan is truncated");
	check_headers(seen);
	if (!created)
		create_ruleset(p);
}

/* A regular file srt's caller gave as stdout/stderr may be reopened through
 * /dev/stdout: grant that file what the descriptor already allows. */
static void grant_stdio(struct plan *p)
{
	int fd;

	if (!p->stdio || p->ruleset_fd < 0)
		return;
	for (fd = 1; fd <= 2; fd++) {
		struct stat st;
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		add_path_rule(p, fd, &st, p->stdio, fd == 1 ? "stdout" : "stderr");
	}
}

static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		die("clear ambient capabilities", "%s", strerror(errno));
	if (syscall(SYS_capset, &hdr, data) != 0)
		die("drop capabilities", "%s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct plan p;
	char step[128] = "";
	char *buf, *end;
	size_t len;
	long fd = -1;
	int i, rc;

	memset(&p, 0, sizeof(p));
	p.ruleset_fd = -1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plan-fd") && i + 1 < argc) {
			errno = 0;
			fd = strtol(argv[++i], &end, 10);
			if (errno || *end || fd < 3 || fd > 65535)
				die("arguments", "bad --plan-fd \"%s\"", argv[i]);
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			die("arguments", "unknown option \"%s\" (usage: srt-landlock-exec --plan-fd N -- command...)",
			    argv[i]);
		}
	}
	if (fd < 0 || i >= argc)
		die("arguments", "usage: srt-landlock-exec --plan-fd N -- command...");

	buf = read_plan((int)fd, &len);
	close((int)fd);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)", "%s", strerror(errno));
	/* no pid namespace: at least the command goes when srt goes */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		die("prctl(PR_SET_PDEATHSIG)", "%s", strerror(errno));

	apply_plan(&p, buf, len);
	free(buf);
	grant_stdio(&p);
	drop_caps();
	if (p.ruleset_fd >= 0) {
		if (srt_ll_restrict_self(p.ruleset_fd, 0) != 0)
			die("landlock_restrict_self", "%s", strerror(errno));
		close(p.ruleset_fd);
	}
	rc = srt__seccomp_install(p.seccomp, step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	rc = srt__ll_seccomp_install((p.inet_block ? SRT_LL_SECCOMP_INET : 0) |
				     (p.meta_block ? SRT_LL_SECCOMP_META : 0),
				     step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	execvp(argv[i], argv + i);
	rc = errno;
	fprintf(stderr, "srt-landlock-exec: %s: %s\n", argv[i], strerror(rc));
	_exit(rc == ENOENT || rc == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}
