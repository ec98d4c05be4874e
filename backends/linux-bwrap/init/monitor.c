/* srt-linux-init's violation monitor (see monitor.h).
 *
 * Cost model: every observed syscall of the command waits for one round
 * trip through this process. The common case (an allowed open) costs
 * SECCOMP_IOCTL_NOTIF_RECV, one process_vm_readv of the path, a lookup of
 * each of its prefixes in a hash table, and SECCOMP_IOCTL_NOTIF_SEND; a
 * relative path adds one readlink of /proc/<pid>/cwd (or fd/<n>). The
 * path is read before the reply so it is the one the syscall is about to
 * use; for a call let through (CONTINUE) another thread of the command can
 * still change it between our read and the kernel's: for those the result
 * is a diagnostic, never a decision, and the kernel enforces the
 * filesystem policy (bwrap's mounts) on its own. The one decision here
 * (judge_denied, with denyRead: an open, a name made, a link or rename
 * that reaches a denied name is refused) is therefore never followed by a
 * CONTINUE: the monitor performs the call itself on what it resolved and
 * hands the file over (see "performing the calls it judges" below). A read
 * open costs two openat2 in the caller's root (the directory, then the
 * name in it; the root is opened once for all calls where it can be, see
 * command_root), an fstat (and an fstatfs where the file may be on a
 * procfs), the open again by that name with the command's Landlock
 * credentials (one io_uring_enter, see cred-ring.h) and its fstat, and
 * SECCOMP_IOCTL_NOTIF_ADDFD instead of the reply. Without io_uring the open
 * again is made through /proc/self/fd/N by the thread under the command's
 * layer, a hand-over of two context switches more. A path with ".." or a
 * link is walked instead (an openat and fstat per component), as links and
 * renames always are.
 *
 * Bounds: paths are read up to PATH_MAX; lines are at most MAX_LINE bytes
 * (under PIPE_BUF, so each write is atomic) and written non-blocking; equal
 * lines are written once (a table of SEEN_SLOTS hashes); at most
 * SRT_MONITOR_MAX_EVENTS lines at once, then SRT_MONITOR_RATE a second
 * (a token bucket), and one note per minute at most about what was
 * dropped. Nothing here
 * grows with the number of notifications. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "backends/linux-bwrap/init/cred-ring.h"
#include "backends/linux-bwrap/init/monitor.h"
#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/notif.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/small-file.h"
#include "backends/linux-common/supervisor.h"
#include "backends/linux-common/syscall-nr.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef F_SEAL_WRITE
#define F_SEAL_WRITE 0x0008
#endif
#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#endif
#define SRT_RENAME_NOREPLACE (1u << 0) /* renameat2's, <linux/fs.h> */
#define SRT_RENAME_EXCHANGE (1u << 1)
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define MAX_POLICY (16u << 20)
#define MAX_RECORDS 400000
#define MAX_LINE 4000
#define SEEN_SLOTS 4096
#define MAX_NRS 1024
#define DROP_NOTE "monitor: more denied system calls were not reported (rate limit or a full pipe)"
#define NOTE_EVERY_NS (60ull * 1000000000ull)

struct rec {
	const char *path;
	uint32_t len;
	uint32_t seq;
	uint64_t hash;
	char state;
};

struct srt__monitor {
	unsigned flags;
	int debug;
	char *blob; /* the policy text, records point into it */
	struct rec *recs;
	size_t n;
	char **unix_ok; /* 'u' records, pointing into blob */
	size_t n_unix;
	uint32_t *tab; /* open addressing: record index + 1, 0 = empty */
	size_t tabsz;  /* power of two */

	int events_fd;
	int listener;
	int addfd_send; /* SECCOMP_ADDFD_FLAG_SEND works (Linux >= 5.14) */
	int flink; /* this kernel lets a process link its own file by its descriptor
		    * (linkat AT_EMPTY_PATH without CAP_DAC_READ_SEARCH, Linux >= 6.10) */
	int proc_ok; /* /proc is our pid namespace's: /proc/<pid> means the notified pid
		      * (else see proc_pid()) */
	size_t req_size, resp_size;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	/* native syscall number -> index in srt__observed_syscalls + 1 */
	unsigned char by_nr[MAX_NRS];

	/* the monitor thread writes events, the main thread the final note */
	pthread_mutex_t lock;
	uint64_t seen[SEEN_SLOTS];
	size_t nseen;
	unsigned long emitted, dropped;
	uint64_t tokens_milli; /* the bucket, in thousandths of an event */
	uint64_t last_ns;      /* when it was last refilled */
	uint64_t note_ns;      /* when the last note was written, 0 = never */
	int note_pending;
	char *walk; /* resolve_for's path still to walk (WALK_BUF bytes), made on first use */
	struct cmd_domain *dom; /* the thread under the command's Landlock layer, or NULL */
	struct srt__cred_ring *ring; /* opens with that thread's credentials, or NULL */
	int one_root; /* every process of the command keeps its root (srt__monitor_one_root) */
	int root;     /* that root once opened (see command_root), else -1 */
};

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ULL;
}

#define FNV_INIT 0xcbf29ce484222325ULL

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = FNV_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		h = fnv_step(h, (unsigned char)s[i]);
	return h;
}

static long tab_find(const struct srt__monitor *m, const char *p, size_t len, uint64_t h)
{
	size_t i = (size_t)h & (m->tabsz - 1);

	if (!m->tabsz)
		return -1;
	for (;;) {
		uint32_t v = m->tab[i];
		const struct rec *r;

		if (!v)
			return -1;
		r = &m->recs[v - 1];
		if (r->hash == h && r->len == len && memcmp(r->path, p, len) == 0)
			return (long)v - 1;
		i = (i + 1) & (m->tabsz - 1);
	}
}

unsigned srt__monitor_flags(const struct srt__monitor *m)
{
	return m->flags;
}

char *const *srt__monitor_unix_paths(const struct srt__monitor *m, size_t *n)
{
	*n = m->n_unix;
	return m->unix_ok;
}

int srt__monitor_parse(const char *buf, size_t len, int events_fd, int debug,
		       struct srt__monitor **out, char *err, size_t errlen)
{
	struct srt__monitor *m;
	const char *p, *end = buf + len;
	size_t i, nrec = 0;
	uint32_t seq = 0;

	*out = NULL;
	if (len == 0 || buf[len - 1] != '\0') {
		snprintf(err, errlen, "policy is not a list of NUL-terminated records");
		return -1;
	}
	if (len < sizeof(SRT_MONITOR_MAGIC) || memcmp(buf, SRT_MONITOR_MAGIC, sizeof(SRT_MONITOR_MAGIC)) != 0) {
		snprintf(err, errlen, "policy does not start with '%s'", SRT_MONITOR_MAGIC);
		return -1;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&m->lock, NULL);
	m->tokens_milli = (uint64_t)SRT_MONITOR_MAX_EVENTS * 1000;
	m->events_fd = events_fd;
	m->listener = -1;
	m->root = -1;
	m->debug = debug;
	m->blob = malloc(len);
	if (!m->blob)
		goto nomem;
	memcpy(m->blob, buf, len);
	end = m->blob + len;
	p = m->blob + sizeof(SRT_MONITOR_MAGIC);
	if (p >= end || p[0] != 'f' || p[1] < '0' || p[1] > '7' || p[2] != '\0') {
		snprintf(err, errlen, "policy flags record missing or invalid");
		goto fail;
	}
	m->flags = (unsigned)(p[1] - '0');
	p += 3;
	{
		const char *q;

		for (q = p; q < end; q += strlen(q) + 1)
			nrec++;
	}
	if (nrec > MAX_RECORDS) {
		snprintf(err, errlen, "policy has %zu records (limit %d)", nrec, MAX_RECORDS);
		goto fail;
	}
	m->recs = calloc(nrec + 1, sizeof(*m->recs));
	m->unix_ok = calloc(nrec + 1, sizeof(*m->unix_ok));
	for (m->tabsz = 16; m->tabsz < 2 * nrec + 2; m->tabsz <<= 1)
		;
	m->tab = calloc(m->tabsz, sizeof(*m->tab));
	if (!m->recs || !m->tab || !m->unix_ok)
		goto nomem;
	for (; p < end; p += strlen(p) + 1) {
		size_t l = strlen(p);
		struct rec *r;
		long k;

		if (p[0] == 'u') {
			/* an allowed socket path: sun_path holds at most 107 bytes */
			if (l < 3 || p[1] != '/' || l - 1 > 107 || p[l - 1] == '/') {
				snprintf(err, errlen, "policy record %zu is invalid", m->n + m->n_unix + 1);
				goto fail;
			}
			m->unix_ok[m->n_unix++] = (char *)p + 1;
			continue;
		}
		if (l < 2 || !strchr("wrhpx", p[0]) || p[1] != '/' || l - 1 >= PATH_MAX ||
		    (l > 2 && p[l - 1] == '/')) {
			snprintf(err, errlen, "policy record %zu is invalid", m->n + 1);
			goto fail;
		}
		seq++;
		k = tab_find(m, p + 1, l - 1, fnv(p + 1, l - 1));
		if (k >= 0) {
			/* a later mount at the same place replaces the earlier */
			m->recs[k].state = p[0];
			m->recs[k].seq = seq;
			continue;
		}
		r = &m->recs[m->n];
		r->path = p + 1;
		r->len = (uint32_t)(l - 1);
		r->hash = fnv(r->path, r->len);
		r->state = p[0];
		r->seq = seq;
		i = (size_t)r->hash & (m->tabsz - 1);
		while (m->tab[i])
			i = (i + 1) & (m->tabsz - 1);
		m->tab[i] = (uint32_t)(m->n + 1);
		m->n++;
	}
	if (!m->n_unix != !(m->flags & SRT_MONITOR_UNIX_PATHS)) {
		snprintf(err, errlen, "policy flags and Unix socket records disagree");
		goto fail;
	}
	{
		/* /proc/<pid> names the notified pid only when /proc belongs to
		 * our pid namespace (not with the weaker mode's host /proc) */
		char self[32];
		ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

		if (n > 0) {
			self[n] = '\0';
			m->proc_ok = strtol(self, NULL, 10) == (long)getpid();
		}
	}
	for (i = 0; i < srt__n_observed_syscalls; i++) {
		int nr = srt__seccomp_observed_nr(&srt__observed_syscalls[i]);

		if (nr >= 0 && nr < MAX_NRS)
			m->by_nr[nr] = (unsigned char)(i + 1);
	}
	*out = m;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	srt__monitor_free(m);
	return -1;
}

int srt__monitor_load(int policy_fd, int events_fd, int debug, struct srt__monitor **out,
		      char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t have = 0;
	int seals, rc = -1, fl;

	*out = NULL;
	if (fstat(policy_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > MAX_POLICY) {
		snprintf(err, errlen, "policy descriptor is not a policy of at most %u bytes", MAX_POLICY);
		goto out;
	}
	/* sealed: nobody can change it while we read */
	seals = fcntl(policy_fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_WRITE)) {
		snprintf(err, errlen, "policy memfd is not sealed against writes");
		goto out;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	while (have < (size_t)st.st_size) {
		ssize_t n = pread(policy_fd, buf + have, (size_t)st.st_size - have, (off_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "read the policy: %s", n < 0 ? strerror(errno) : "short");
			goto out;
		}
		have += (size_t)n;
	}
	fl = fcntl(events_fd, F_GETFL);
	if (fl < 0 || fcntl(events_fd, F_SETFL, fl | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "events descriptor: %s", strerror(errno));
		goto out;
	}
	rc = srt__monitor_parse(buf, have, events_fd, debug, out, err, errlen);
out:
	free(buf);
	return rc;
}

void srt__monitor_free(struct srt__monitor *m)
{
	if (!m)
		return;
	free(m->blob);
	free(m->recs);
	free(m->unix_ok);
	free(m->tab);
	free(m->req);
	free(m->resp);
	free(m->walk);
	srt__cred_ring_free(m->ring);
	if (m->root >= 0)
		close(m->root);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void srt__monitor_one_root(struct srt__monitor *m)
{
	m->one_root = 1;
}

/* The state letter of the last mount at path or above it. */
static char state_of(const struct srt__monitor *m, const char *path)
{
	size_t len = strlen(path), i;
	uint64_t h = FNV_INIT;
	uint32_t best = 0;
	char st = 'w'; /* no record at all: nothing is restricted */

	for (i = 0; i <= len; i++) {
		long k = -1;

		/* prefixes that end at a component boundary: "/", "/a", "/a/b" */
		if (i == 1)
			k = tab_find(m, path, 1, h);
		else if (i > 1 && (i == len || path[i] == '/'))
			k = tab_find(m, path, i, h);
		if (k >= 0 && m->recs[k].seq > best) {
			best = m->recs[k].seq;
			st = m->recs[k].state;
		}
		if (i < len)
			h = fnv_step(h, (unsigned char)path[i]);
	}
	return st;
}

int srt__monitor_denied(const struct srt__monitor *m, const char *path, int write)
{
	char st = state_of(m, path);

	switch (st) {
	case 'h':
		return 1;
	case 'r':
	case 'p':
		return write;
	default:
		return 0;
	}
}

int srt__monitor_join(const char *base, const char *rel, char *out, size_t outlen)
{
	size_t o = 0;
	int pass;

	if (outlen < 2)
		return -1;
	out[o++] = '/';
	for (pass = 0; pass < 2; pass++) {
		const char *s = pass == 0 ? base : rel;

		if (pass == 0 && rel[0] == '/')
			continue; /* absolute: the base does not matter */
		if (!s)
			continue;
		while (*s) {
			const char *e;
			size_t l;

			while (*s == '/')
				s++;
			if (!*s)
				break;
			e = strchrnul(s, '/');
			l = (size_t)(e - s);
			if (l == 1 && s[0] == '.') {
				/* nothing */
			} else if (l == 2 && s[0] == '.' && s[1] == '.') {
				/* lexical: a link on the way would lead elsewhere;
				 * diagnostic only */
				while (o > 1 && out[o - 1] != '/')
					o--;
				if (o > 1)
					o--;
			} else {
				if (o > 1) {
					if (o + 1 >= outlen)
						return -1;
					out[o++] = '/';
				}
				if (o + l >= outlen)
					return -1;
				memcpy(out + o, s, l);
				o += l;
			}
			s = e;
		}
	}
	out[o] = '\0';
	return (int)o;
}

/* ---- events ------------------------------------------------------------ */

static int seen_before(struct srt__monitor *m, uint64_t h)
{
	size_t i = (size_t)h & (SEEN_SLOTS - 1), tries;

	if (h == 0)
		h = 1;
	for (tries = 0; tries < SEEN_SLOTS; tries++) {
		if (m->seen[i] == h)
			return 1;
		if (m->seen[i] == 0) {
			/* keep a quarter free so lookups stay short; past that
			 * equal lines are no longer merged (the limit still holds) */
			if (m->nseen < SEEN_SLOTS * 3 / 4) {
				m->seen[i] = h;
				m->nseen++;
			}
			return 0;
		}
		i = (i + 1) & (SEEN_SLOTS - 1);
	}
	return 0;
}

static int write_line(struct srt__monitor *m, const char *line, size_t len)
{
	ssize_t n;

	if (m->events_fd < 0)
		return 0;
	do
		n = write(m->events_fd, line, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void try_note(struct srt__monitor *m, uint64_t now)
{
	if (!m->note_pending || (m->note_ns && now - m->note_ns < NOTE_EVERY_NS))
		return;
	if (write_line(m, DROP_NOTE "\n", sizeof(DROP_NOTE))) {
		m->note_ns = now ? now : 1;
		m->note_pending = 0;
	}
}

/* Take one token from the bucket (refilled SRT_MONITOR_RATE a second up
 * to SRT_MONITOR_MAX_EVENTS); 0 when it is empty. */
static int take_token(struct srt__monitor *m, uint64_t now)
{
	const uint64_t cap = (uint64_t)SRT_MONITOR_MAX_EVENTS * 1000;

	if (m->last_ns && now > m->last_ns) {
		uint64_t add = (now - m->last_ns) / 1000000 * SRT_MONITOR_RATE; /* per ms */

		m->tokens_milli = m->tokens_milli + add > cap ? cap : m->tokens_milli + add;
	}
	if (now - m->last_ns >= 1000000 || !m->last_ns)
		m->last_ns = now;
	if (m->tokens_milli < 1000)
		return 0;
	m->tokens_milli -= 1000;
	return 1;
}

static int event_locked(struct srt__monitor *m, const char *syscall_name, const char *what);

int srt__monitor_event(struct srt__monitor *m, const char *syscall_name, const char *what)
{
	int rc;

	pthread_mutex_lock(&m->lock);
	rc = event_locked(m, syscall_name, what);
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static int event_locked(struct srt__monitor *m, const char *syscall_name, const char *what)
{
	static const char hex[] = "0123456789abcdef";
	char line[MAX_LINE + 8];
	size_t o;
	const unsigned char *p;
	uint64_t now;

	o = (size_t)snprintf(line, sizeof(line), "deny %s%s", syscall_name, *what ? " " : "");
	if (o >= MAX_LINE / 2)
		return 0;
	/* Newlines must not split the line; other control characters are
	 * escaped too, so the line says what the path really was (the core
	 * would only collapse them to spaces). */
	for (p = (const unsigned char *)what; *p; p++) {
		if (o + 8 >= MAX_LINE) {
			memcpy(line + o, "...", 3);
			o += 3;
			break;
		}
		if (*p < 0x20 || *p == 0x7f || *p == '\\') {
			line[o++] = '\\';
			if (*p == '\\') {
				line[o++] = '\\';
			} else {
				line[o++] = 'x';
				line[o++] = hex[*p >> 4];
				line[o++] = hex[*p & 15];
			}
		} else {
			line[o++] = (char)*p;
		}
	}
	line[o++] = '\n';
	if (seen_before(m, fnv(line, o)))
		return 0;
	now = now_ns();
	if (!take_token(m, now)) {
		m->dropped++;
		m->note_pending = 1;
		try_note(m, now);
		return 0;
	}
	if (!write_line(m, line, o)) {
		/* srt is not keeping up: drop, never wait */
		m->dropped++;
		m->note_pending = 1;
		return 0;
	}
	m->emitted++;
	try_note(m, now);
	return 1;
}

void srt__monitor_finish(struct srt__monitor *m, int timeout_ms)
{
	struct pollfd pfd;

	if (!m || !m->note_pending || m->events_fd < 0)
		return;
	pfd.fd = m->events_fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & POLLOUT)) {
		pthread_mutex_lock(&m->lock);
		try_note(m, now_ns());
		pthread_mutex_unlock(&m->lock);
	}
}

/* ---- notifications ------------------------------------------------------ */

#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

/* What this kernel's SECCOMP_IOCTL_NOTIF_ADDFD can do, asked with an id no
 * notification has (the kernel checks the flags before it looks the id
 * up): 1 with SECCOMP_ADDFD_FLAG_SEND (Linux 5.14), 0 without (5.9), or
 * -EOPNOTSUPP. */
static int probe_addfd(int listener)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof(a));
	a.srcfd = (uint32_t)listener;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	if (notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 && errno == ENOENT)
		return 1;
	a.flags = 0;
	if (notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 && errno == ENOENT)
		return 0;
	return -EOPNOTSUPP;
}

/* Does this kernel let a process without CAP_DAC_READ_SEARCH give a file
 * it opened itself a name with linkat(fd, "", ..., AT_EMPTY_PATH) (Linux
 * 6.10)? Asked with a memfd of our own and a new directory descriptor that
 * is not one: a kernel that takes the empty path goes on to the new name
 * and answers EBADF, one that refuses it answers ENOENT first. Anything
 * else counts as no (the command is then answered ENOENT, as before). */
static int probe_flink(void)
{
	int fd = memfd_create("srt-flink-probe", MFD_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = linkat(fd, "", -1, "srt-flink-probe", AT_EMPTY_PATH) != 0 && errno == EBADF;
	close(fd);
	return ok;
}

int srt__monitor_attach(struct srt__monitor *m, int listener)
{
	struct seccomp_notif_sizes sz;
	uint64_t fl = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return -errno;
	m->req_size = sz.seccomp_notif > sizeof(*m->req) ? sz.seccomp_notif : sizeof(*m->req);
	m->resp_size = sz.seccomp_notif_resp > sizeof(*m->resp) ? sz.seccomp_notif_resp
								 : sizeof(*m->resp);
	m->req = calloc(1, m->req_size);
	m->resp = calloc(1, m->resp_size);
	if (!m->req || !m->resp)
		return -ENOMEM;
	/* the calls judged by a denied name are performed here and their
	 * files handed over: without ADDFD they could only be let through,
	 * with the path race that performing them closes */
	if (m->flags & SRT_MONITOR_READS) {
		int send = probe_addfd(listener);

		if (send < 0)
			return send;
		m->addfd_send = send;
		m->flink = probe_flink();
	}
	/* Linux >= 6.6: wake the supervisor on the notifying CPU, which
	 * shortens each round trip; older kernels say EINVAL, which is fine.
	 * The flags go by value, not through a pointer. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (unsigned long)fl) != 0 && m->debug)
		fprintf(stderr, "srt-linux-init: (debug) violation monitor: no synchronous wake-ups: %s\n",
			strerror(errno));
	m->listener = listener;
	return 0;
}

static int reply(struct srt__monitor *m, uint64_t id, int error, int cont)
{
	memset(m->resp, 0, m->resp_size);
	m->resp->id = id;
	m->resp->error = error;
	m->resp->val = 0;
	m->resp->flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	if (notif_ioctl(m->listener, SECCOMP_IOCTL_NOTIF_SEND, m->resp) == 0)
		return 0;
	/* ENOENT: the caller was interrupted or killed meanwhile */
	return errno == ENOENT ? 0 : -1;
}

/* The number that names pid (of our pid namespace) in the /proc we see:
 * pid itself, or, on the host's /proc that the weaker nested sandbox
 * binds in, what a pidfd's fdinfo says there ("Pid:" is given in the pid
 * namespace of the /proc it is read through). -1 when unknown. */
static long proc_pid(const struct srt__monitor *m, pid_t pid)
{
	char path[64], buf[1024];
	long v = -1;
	ssize_t n;
	int pfd, fd;
	char *q;

	if (m->proc_ok)
		return pid;
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			q = strstr(buf, "\nPid:");
			if (q)
				v = strtol(q + 5, NULL, 10);
		}
	}
	close(pfd);
	return v > 0 ? v : -1;
}

/* Read a NUL-terminated string at addr in pid, at most len-1 bytes and its
 * NUL: len bytes are read, as the kernel copies a path of up to PATH_MAX
 * bytes with its NUL (a 4095-byte path is taken; reading one byte less
 * missed its NUL and refused it with ENAMETOOLONG).
 * Split at the page boundary: a partial read stops at a whole iovec, so a
 * string that ends just before an unmapped page is still read. */
static ssize_t read_string(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	struct iovec local = { buf, len }, remote[2];
	uint64_t page = 4096, first = page - (addr & (page - 1));
	ssize_t n;
	char *nul;
	int nr = 1;

	if (addr == 0)
		return -EFAULT;
	remote[0].iov_base = (void *)(uintptr_t)addr;
	remote[0].iov_len = first < len ? first : len;
	if (remote[0].iov_len < len) {
		remote[1].iov_base = (void *)(uintptr_t)(addr + remote[0].iov_len);
		remote[1].iov_len = len - remote[0].iov_len;
		nr = 2;
	}
	n = process_vm_readv(pid, &local, 1, remote, (unsigned long)nr, 0);
	if (n <= 0)
		return -EFAULT;
	nul = memchr(buf, '\0', (size_t)n);
	if (!nul)
		return -ENAMETOOLONG; /* longer than PATH_MAX: the kernel refuses it too */
	return nul - buf;
}

/* The absolute, normalised path of operand (dirfd arg, path arg). */
/* Calls whose path operands name something they create: the kernel
 * answers EEXIST for a name that exists before it looks at the mount's
 * read-only flag. */
static int creates_name(const char *name)
{
	static const char *const v[] = { "mkdir", "mkdirat", "mknod", "mknodat", "symlink",
					  "symlinkat", "link", "linkat" };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(name, v[i]))
			return 1;
	return 0;
}

/* Does path name something in the caller's own view of the tree (its
 * root, through /proc), without following a last link? */
static int exists_for(struct srt__monitor *m, const struct seccomp_notif *req, const char *path)
{
	char full[PATH_MAX + 64];
	struct stat st;
	long ppid = proc_pid(m, (pid_t)req->pid);

	if (ppid < 0 || (size_t)snprintf(full, sizeof(full), "/proc/%ld/root%s", ppid, path) >= sizeof(full))
		return 0;
	return fstatat(AT_FDCWD, full, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int operand_path_of(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
			   const char *rel, char *out, size_t outlen);

static int operand_path(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
			int patharg, char *out, size_t outlen)
{
	char rel[PATH_MAX];
	uint64_t addr = req->data.args[patharg];

	if (addr == 0) {
		rel[0] = '\0'; /* utimensat(fd, NULL, ...): the descriptor itself */
	} else if (read_string((pid_t)req->pid, addr, rel, sizeof(rel)) < 0) {
		return -1;
	}
	return operand_path_of(m, req, dirarg, rel, out, outlen);
}

/* The same, with the path already read into rel. */
static int operand_path_of(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
			   const char *rel, char *out, size_t outlen)
{
	char base[PATH_MAX + 1], link[64];
	ssize_t n;
	long ppid;
	int dirfd;

	if (rel[0] == '/')
		return srt__monitor_join("/", rel, out, outlen) < 0 ? -1 : 0;
	ppid = proc_pid(m, (pid_t)req->pid);
	if (ppid < 0)
		return -1;
	dirfd = dirarg < 0 ? AT_FDCWD : (int)(int32_t)req->data.args[dirarg];
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%ld/cwd", ppid);
	else if (dirfd >= 0)
		snprintf(link, sizeof(link), "/proc/%ld/fd/%d", ppid, dirfd);
	else
		return -1;
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0 || base[0] != '/')
		return -1; /* gone, or not a path (pipe:[...], anon_inode:...) */
	base[n] = '\0';
	return srt__monitor_join(base, rel, out, outlen) < 0 ? -1 : 0;
}

/* ---- resolving a path as the caller would ---------------------------------
 *
 * A denied file is covered by a mount on its name, and a host that renames
 * a new file over the name drops that cover until the watcher (watch.h)
 * mounts it again: for that moment the kernel would let the command read
 * the new file. So a read open (and a link or rename) whose path reaches a
 * denied name is refused here, before the kernel runs it, whatever the
 * cover's state. The path is resolved component by component from the
 * caller's own root and cwd (or descriptor), in its mount namespace
 * (/proc/<pid>/root, cwd, fd/<n>), following symbolic links as the kernel
 * would, so a link the command made to the name, "..", or its directory
 * descriptor lead to the same verdict. Its procfs's "self" and
 * "thread-self" are the caller's (the kernel would resolve them to us, who
 * are not in its pid namespace), and magic links there (cwd, root, fd/N)
 * are followed by the kernel for us. */

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#define WALK_HOPS 40
/* What is left to walk can hold every link body the kernel would follow at
 * once: it keeps the rest of each body aside while it follows a link inside
 * it (up to WALK_HOPS links, each body under PATH_MAX), so links whose
 * bodies end in a long run of "./" pile up far past two PATH_MAX; a walk
 * that gave up there would let the kernel open what it never judged. */
#define WALK_BUF ((size_t)(WALK_HOPS + 2) * (PATH_MAX + 1))

/* The caller's thread group and thread numbers in its own pid namespace
 * (the last of /proc/<ppid>/status's NStgid and NSpid); 0 or -1. */
static int caller_ns_ids(long ppid, long *tgid, long *tid)
{
	char path[64], buf[4096];
	const char *keys[2] = { "\nNStgid:", "\nNSpid:" };
	long *out[2] = { tgid, tid };
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/status", ppid);
	n = srt__read_small_file(path, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	for (i = 0; i < 2; i++) {
		const char *q = strstr(buf, keys[i]);
		char *end;
		long v = -1;

		if (!q)
			return -1;
		q += strlen(keys[i]);
		for (;;) {
			long x = strtol(q, &end, 10);

			if (end == q)
				break;
			v = x;
			q = end;
		}
		if (v <= 0)
			return -1;
		*out[i] = v;
	}
	return 0;
}

/* Is fd, whose fstat is st, a file of a procfs? Every procfs has an
 * anonymous device (major number 0), so a file on a device with a major
 * number is not one, and is told without an fstatfs: on ext4 that sums
 * the free-block counters of every CPU, a cost paid on each open judged. */
static int on_procfs(int fd, const struct stat *st)
{
	struct statfs sf;

	return major(st->st_dev) == 0 && fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* Is fd the root of a procfs? */
static int proc_root(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_ino == 1 && on_procfs(fd, &st);
}

static int same_inode(int a, int b)
{
	struct stat x, y;

	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Replace the first n bytes of rest (len bytes used, cap in all) with
 * with (wlen bytes) followed by a "/". -ENAMETOOLONG when it cannot fit. */
static int splice_rest(char *rest, size_t *len, size_t cap, size_t n, const char *with, size_t wlen)
{
	if (*len - n + wlen + 2 > cap)
		return -ENAMETOOLONG;
	memmove(rest + wlen + 1, rest + n, *len - n + 1);
	memcpy(rest, with, wlen);
	rest[wlen] = '/';
	*len = *len - n + wlen + 1;
	return 0;
}

static void swap_fd(int *cur, int nfd)
{
	close(*cur);
	*cur = nfd;
}

/* The path of fd in the caller's view, into out; 0 or -1. d_path marks a
 * file or directory removed since it was opened with " (deleted)": that
 * is dropped, so a name replaced under us is judged by the name it had. */
static int fd_path(int fd, char *out, size_t outlen)
{
	static const char gone[] = " (deleted)";
	char self[64];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, out, outlen - 1);
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = '\0';
	if ((size_t)n > sizeof(gone) - 1 && !strcmp(out + n - (sizeof(gone) - 1), gone))
		out[n - (sizeof(gone) - 1)] = '\0';
	return 0;
}

/* How many levels judged_path climbs from a directory whose path the
 * kernel cannot tell before it gives up (the call is then refused): the
 * nearest ancestor whose path it can tell is a few levels up unless the
 * tree is made of very short names far below PATH_MAX. */
#define CLIMB_MAX 4096

/* Does a record of the policy lie strictly below path (len bytes)? */
static int record_below(const struct srt__monitor *m, const char *path, size_t len)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->recs[i].len > len && !strncmp(m->recs[i].path, path, len) &&
		    (len == 1 || m->recs[i].path[len] == '/'))
			return 1;
	return 0;
}

/* The path of fd in the caller's view, to judge it by the policy's names,
 * into out (at least PATH_MAX + 8 bytes), " (deleted)" dropped as fd_path
 * does. 0: out is its path. 1: its path is longer than the kernel tells
 * (d_path stops at PATH_MAX: a directory reached by relative steps from a
 * deep cwd or descriptor); out is the path of its nearest ancestor that can
 * be told, followed by "/...", and no record lies below that ancestor.
 * Every record is shorter than PATH_MAX, so the records at the prefixes of
 * the real path are those at the ancestor's: what state_of and hides_below
 * say of out is what they would say of the real path. -2: no path (a pipe,
 * a socket, an anonymous inode). -1: it cannot be told (a file deeper than
 * PATH_MAX, which has no ".." to climb; a record below the ancestor; a
 * tree deeper than CLIMB_MAX levels; an error): the callers refuse. */
static int judged_path(const struct srt__monitor *m, int fd, char *out, size_t outlen)
{
	static const char gone[] = " (deleted)";
	char self[64];
	ssize_t n;
	size_t len;
	int cur, i;

	if (outlen < PATH_MAX + 8)
		return -1;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, out, outlen - 1);
	if (n > 0 && out[0] != '/')
		return -2;
	if (n <= 0 && (n == 0 || errno != ENAMETOOLONG))
		return -1;
	if (n > 0) {
		out[n] = '\0';
		if ((size_t)n > sizeof(gone) - 1 && !strcmp(out + n - (sizeof(gone) - 1), gone))
			out[n - (sizeof(gone) - 1)] = '\0';
		return 0;
	}
	/* too deep to tell: up through ".." (ENOTDIR for a file) to the
	 * first directory whose path the kernel tells */
	cur = openat(fd, "..", O_PATH | O_CLOEXEC);
	for (i = 0; cur >= 0; i++) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", cur);
		n = readlink(self, out, PATH_MAX);
		if (n > 0 || errno != ENAMETOOLONG || i == CLIMB_MAX)
			break;
		swap_fd(&cur, openat(cur, "..", O_PATH | O_CLOEXEC));
	}
	if (cur >= 0)
		close(cur);
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = '\0';
	if ((size_t)n > sizeof(gone) - 1 && !strcmp(out + n - (sizeof(gone) - 1), gone))
		out[n - (sizeof(gone) - 1)] = '\0';
	len = strlen(out);
	if (record_below(m, out, len))
		return -1; /* a record could lie on the real path: not judged so */
	snprintf(out + len, outlen - len, "%s...", len > 1 ? "/" : "");
	return 1;
}

/* What a resolution reached, kept open so the call is then made on it and
 * never on the caller's bytes again: the object itself (O_PATH, -1 when the
 * last component is missing) and, when the path ended in a name, the
 * directory that holds it and the name (dir -1 when it ended elsewhere: the
 * root, "..", a magic link of /proc). */
struct reach {
	int obj;
	int dir;
	char name[NAME_MAX + 1];
};

static void reach_init(struct reach *r)
{
	r->obj = r->dir = -1;
	r->name[0] = '\0';
}

static void reach_close(struct reach *r)
{
	if (r->obj >= 0)
		close(r->obj);
	if (r->dir >= 0)
		close(r->dir);
	reach_init(r);
}

/* The caller's thread group in the numbering of its /proc when fd is a file
 * of /proc/<n>/... there: n, else 0 (not a process's file) */
static long proc_owner(const char *real)
{
	char *end;
	long n;

	if (strncmp(real, "/proc/", 6) != 0)
		return 0;
	n = strtol(real + 6, &end, 10);
	if (end == real + 6 || (*end != '/' && *end != '\0') || n <= 0)
		return 0;
	return n;
}

/* The four ids of a status line ("Uid:" or "Gid:": real, effective,
 * saved, filesystem) in buf into v; 0, or -1 when it is not there. */
static int status_ids(const char *buf, const char *key, unsigned long v[4])
{
	const char *q = strstr(buf, key);
	char *end;
	int i;

	if (!q)
		return -1;
	q += strlen(key);
	for (i = 0; i < 4; i++) {
		v[i] = strtoul(q, &end, 10);
		if (end == q)
			return -1;
		q = end;
	}
	return 0;
}

/* May the caller (ppid, in this process's numbering) follow a magic link
 * of its sandbox's process owner (in the caller's numbering): the kernel's
 * check for reading another process's fd/N, cwd or root (ptrace, read
 * mode, filesystem ids), which this process would pass for anyone (it
 * holds every capability in the caller's user namespace). The owner's
 * real, effective and saved ids must be the caller's filesystem ids, and
 * it must be dumpable: its /proc directory is the caller's user's, not
 * root's (a non-dumpable process's belongs to root; a caller that is root
 * there cannot tell the two apart, and is refused as before). */
static int may_follow_other(long ppid, long owner)
{
	char path[96], buf[4096];
	unsigned long cu[4], cg[4], tu[4], tg[4];
	struct stat st;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/status", ppid);
	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0 || status_ids(buf, "\nUid:", cu) ||
	    status_ids(buf, "\nGid:", cg))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/root/proc/%ld/status", ppid, owner);
	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0 || status_ids(buf, "\nUid:", tu) ||
	    status_ids(buf, "\nGid:", tg))
		return 0;
	for (i = 0; i < 3; i++)
		if (tu[i] != cu[3] || tg[i] != cg[3])
			return 0;
	/* dumpable: its /proc directory belongs to its user, the caller's
	 * (both as this process sees them), not to root; for a caller that
	 * is root there, the two cannot be told apart: refused */
	snprintf(path, sizeof(path), "/proc/%ld/root/proc/%ld", ppid, owner);
	return cu[3] != 0 && stat(path, &st) == 0 && st.st_uid == cu[3];
}

/* The caller's root, where every path it names is resolved: opened from
 * /proc/<pid>/root at each call, or, where every process of the command
 * keeps the root it started with (see srt__monitor_one_root), once for
 * all of them. Opened at every notification it cost a procfs lookup and
 * a close, a tenth of a judged open (bench/README.md). The one kept is
 * opened through the first notification's /proc/<pid>/root and kept only
 * when that notification still waits after the open (the pid was still
 * the caller's, not reused). Give it back with root_done. -1 with errno
 * set when it cannot be opened. */
static int command_root(struct srt__monitor *m, const struct seccomp_notif *req, long ppid)
{
	char self[64];
	uint64_t id = req->id;
	int fd;

	if (m->root >= 0)
		return m->root;
	snprintf(self, sizeof(self), "/proc/%ld/root", ppid);
	fd = open(self, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !m->one_root)
		return fd;
	if (notif_ioctl(m->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	m->root = fd;
	return fd;
}

static void root_done(const struct srt__monitor *m, int root)
{
	if (root >= 0 && root != m->root)
		close(root);
}

/* follow's value for the names of calls that make, move or remove a name:
 * its final component is never followed, even with a trailing slash (the
 * kernel looks those up from their parent) */
#define NAME_ITSELF (-1)

/* The real path, in the caller's view, of what path names for the caller
 * (dirarg: the argument holding its directory descriptor, -1: its cwd),
 * following a final symbolic link when follow (never when NAME_ITSELF).
 * 0: real is the object's path; 1: the last component does not exist,
 * real is where it would be;
 * or -errno when it cannot be resolved. An object without a path (a pipe or
 * socket reached through /proc/self/fd/N) has real "". With keep, what was
 * reached stays open there (see struct reach). A magic link of another
 * process than the caller's (/proc/<n>/fd/N, cwd, root, exe) is not
 * followed (EACCES): this process may follow them where the caller may not
 * (it holds every capability in the caller's user namespace). */
static int resolve_for(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
		       const char *path, int follow, char *real, size_t reallen, struct reach *keep)
{
	char link[PATH_MAX + 8], self[64], *rest;
	const size_t restcap = WALK_BUF;
	long ppid = proc_pid(m, (pid_t)req->pid), tgid = 0, tid = 0;
	int root, cur, parent = -1, hops = 0, rc = 0, dirfd;
	char lastname[NAME_MAX + 1] = "";
	size_t len = strlen(path);
	ssize_t n;

	if (ppid < 0)
		return -ESRCH;
	if (len == 0)
		return -ENOENT;
	if (!m->walk && !(m->walk = malloc(WALK_BUF)))
		return -ENOMEM;
	rest = m->walk;
	if (len >= restcap)
		return -ENAMETOOLONG;
	memcpy(rest, path, len + 1);
	root = command_root(m, req, ppid);
	if (root < 0)
		return -errno;
	dirfd = dirarg < 0 ? AT_FDCWD : (int)(int32_t)req->data.args[dirarg];
	if (path[0] == '/')
		snprintf(self, sizeof(self), "/proc/self/fd/%d", root);
	else if (dirfd == AT_FDCWD)
		snprintf(self, sizeof(self), "/proc/%ld/cwd", ppid);
	else if (dirfd >= 0)
		snprintf(self, sizeof(self), "/proc/%ld/fd/%d", ppid, dirfd);
	else {
		root_done(m, root);
		return -EBADF;
	}
	cur = open(self, O_PATH | O_CLOEXEC);
	if (cur < 0) {
		/* no such descriptor in the caller: the kernel's EBADF */
		rc = errno == ENOENT && path[0] != '/' && dirfd >= 0 ? -EBADF : -errno;
		root_done(m, root);
		return rc;
	}
	for (;;) {
		char *p = rest, *comp, *e;
		size_t cl;
		int last, nfd;
		struct stat st;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		e = strchrnul(p, '/');
		cl = (size_t)(e - p);
		last = e[strspn(e, "/")] == '\0';
		if (cl >= NAME_MAX + 1) {
			rc = -ENAMETOOLONG;
			break;
		}
		{
			char name[NAME_MAX + 1];
			size_t used = (size_t)(e - rest);

			memcpy(name, comp, cl);
			name[cl] = '\0';
			/* drop the component from rest: what is left is after it */
			memmove(rest, rest + used, len - used + 1);
			len -= used;
			if (!strcmp(name, "."))
				continue;
			if (!strcmp(name, "..")) {
				if (same_inode(cur, root))
					continue; /* the caller's root is its top */
				nfd = openat(cur, "..", O_PATH | O_CLOEXEC);
				if (nfd < 0) {
					rc = -errno;
					break;
				}
				swap_fd(&cur, nfd);
				continue;
			}
			if ((!strcmp(name, "self") || !strcmp(name, "thread-self")) && proc_root(cur)) {
				char with[64];
				int wl;

				if (!tgid && caller_ns_ids(ppid, &tgid, &tid) != 0) {
					rc = -ESRCH;
					break;
				}
				wl = name[0] == 's' ? snprintf(with, sizeof(with), "%ld", tgid)
						    : snprintf(with, sizeof(with), "%ld/task/%ld", tgid, tid);
				if ((rc = splice_rest(rest, &len, restcap, 0, with, (size_t)wl)) != 0)
					break;
				continue;
			}
			nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (nfd < 0) {
				rc = -errno;
				if (rc == -ENOENT && last) {
					/* missing: judged by where it would be */
					parent = cur;
					cur = -1;
					snprintf(lastname, sizeof(lastname), "%s", name);
					rc = 1;
				}
				break;
			}
			if (fstat(nfd, &st) != 0) {
				rc = -errno;
				close(nfd);
				break;
			}
			/* a trailing slash makes a lookup follow a final link,
			 * but never a call that makes, moves or removes the name
			 * itself (NAME_ITSELF): mkdir("dl/") at a link answers
			 * EEXIST in the kernel */
			if (!S_ISLNK(st.st_mode) ||
			    (last && (follow == NAME_ITSELF || (!follow && e[0] != '/')))) {
				if (!last && !S_ISDIR(st.st_mode)) {
					rc = -ENOTDIR;
					close(nfd);
					break;
				}
				if (last) {
					/* judged by its directory's path and its name: the
					 * object's own path is not stable (a cover the
					 * host's rename detaches reads "/", a replaced
					 * file "... (deleted)") */
					parent = cur;
					cur = nfd;
					snprintf(lastname, sizeof(lastname), "%s", name);
					continue;
				}
				swap_fd(&cur, nfd);
				continue;
			}
			if (++hops > WALK_HOPS) {
				rc = -ELOOP;
				close(nfd);
				break;
			}
			n = readlinkat(nfd, "", link, sizeof(link) - 1);
			{
				int procfs = on_procfs(nfd, &st);

				close(nfd);
				if (n < 0 && !procfs) {
					rc = -errno;
					break;
				}
				if (procfs && (n <= 0 || link[0] == '/' || memchr(link, ':', (size_t)n))) {
					/* a magic link (cwd, root, exe, fd/N): the kernel
					 * follows it for us, to the object itself; the
					 * caller's own, or another process's the kernel
					 * would let the caller follow */
					if (fd_path(cur, link, sizeof(link)) != 0 ||
					    (!tgid && caller_ns_ids(ppid, &tgid, &tid) != 0) ||
					    (proc_owner(link) != tgid &&
					     !may_follow_other(ppid, proc_owner(link)))) {
						rc = -EACCES;
						break;
					}
					nfd = openat(cur, name, O_PATH | O_CLOEXEC);
					if (nfd < 0) {
						rc = -errno;
						break;
					}
					swap_fd(&cur, nfd);
					continue;
				}
			}
			link[n] = '\0';
			if (link[0] == '/') {
				nfd = fcntl(root, F_DUPFD_CLOEXEC, 3);
				if (nfd < 0) {
					rc = -errno;
					break;
				}
				swap_fd(&cur, nfd);
			}
			if ((rc = splice_rest(rest, &len, restcap, 0, link, (size_t)n)) != 0)
				break;
		}
	}
	if (rc >= 0 && parent >= 0) {
		/* a directory deeper than PATH_MAX is judged by its nearest
		 * ancestor that has a path (judged_path); one that cannot be
		 * judged is refused */
		if (judged_path(m, parent, link, sizeof(link)) < 0)
			rc = -ENAMETOOLONG;
		else if ((size_t)snprintf(real, reallen, "%s%s%s", link, link[1] ? "/" : "", lastname) >= reallen)
			rc = -ENAMETOOLONG;
	} else if (rc == 0) {
		int pr = judged_path(m, cur, real, reallen);

		if (pr == -2)
			real[0] = '\0'; /* a pipe, a socket, an anonymous inode: no name to deny */
		else if (pr == -1)
			rc = -ENAMETOOLONG;
	}
	if (rc >= 0 && keep) {
		keep->obj = cur;
		keep->dir = parent;
		snprintf(keep->name, sizeof(keep->name), "%s", lastname);
		cur = parent = -1;
	}
	if (parent >= 0)
		close(parent);
	if (cur >= 0)
		close(cur);
	root_done(m, root);
	return rc;
}

/* The common case in one call: a path with no ".." whose resolution
 * meets no symbolic link it follows (RESOLVE_NO_SYMLINKS, from the
 * caller's root) is where its lexical spelling says. 0: out is its path; 1: its
 * last component is missing (no link before it either); -EAGAIN: take the
 * walk above (a link, "..", or anything unexpected). With the cred ring
 * (see ring_open) the directory is resolved first and the name in it
 * second, and both are kept: one call more, for an open made again by
 * that name. */
static int quick_resolve(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
			 const char *rel, int follow, char *out, size_t outlen, struct reach *keep)
{
	static const char gone[] = " (deleted)";
	struct open_how how;
	char *base;
	const char *p;
	long ppid;
	int root, fd, dir = -1, err;

	if (!*rel)
		return -EAGAIN;
	for (p = rel; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == rel || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return -EAGAIN;
	if (operand_path_of(m, req, dirarg, rel, out, outlen) != 0)
		return -EAGAIN;
	if (strstr(out, gone))
		return -EAGAIN; /* a removed cwd or descriptor */
	ppid = proc_pid(m, (pid_t)req->pid);
	if (ppid < 0)
		return -EAGAIN;
	root = command_root(m, req, ppid);
	if (root < 0)
		return -EAGAIN;
	memset(&how, 0, sizeof(how));
	/* a final link the caller follows is a link met (ELOOP); one it does
	 * not follow is the object (O_PATH opens the link itself) */
	how.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	base = strrchr(out, '/');
	if (keep && srt__cred_ring_ready(m->ring) && base && base[1] && strlen(base + 1) <= NAME_MAX) {
		/* out is absolute and normalised: its last component is a
		 * name, neither "." nor ".." */
		struct open_how dhow = how;

		dhow.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		*base = '\0';
		dir = (int)syscall(SYS_openat2, root, base == out ? "/" : out, &dhow, sizeof(dhow));
		*base = '/';
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
		fd = dir < 0 ? -1 : (int)syscall(SYS_openat2, dir, base + 1, &how, sizeof(how));
	} else {
		fd = (int)syscall(SYS_openat2, root, out, &how, sizeof(how));
	}
	err = fd < 0 ? errno : 0;
	if (fd >= 0 && keep) {
		keep->obj = fd;
		if (dir >= 0) {
			keep->dir = dir;
			snprintf(keep->name, sizeof(keep->name), "%s", base + 1);
			dir = -1;
		}
	} else if (fd >= 0) {
		close(fd);
	}
	if (dir >= 0)
		close(dir);
	root_done(m, root);
	if (!err)
		return 0;
	if (err == ENOENT) {
		/* missing from here on, and no link before: where the
		 * missing part starts is what the kernel would look up */
		return 1;
	}
	return -EAGAIN;
}

/* The caller's descriptor in argument dirarg (its cwd for AT_FDCWD) as
 * an empty path with AT_EMPTY_PATH names it: the object itself, opened
 * O_PATH through the caller's /proc/<pid>/fd/<n> (the kernel follows that
 * link for us to the file the descriptor holds, as it would for the
 * caller's own /proc/self/fd/<n>), kept in keep with no directory, its
 * path in the caller's view in out ("" for a pipe, a socket, an anonymous
 * inode: no name to deny). 0, or -errno (EBADF for a descriptor the caller
 * does not have, as the kernel answers). */
static int reach_own_fd(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg, char *out,
			size_t outlen, struct reach *keep)
{
	char self[64];
	long ppid = proc_pid(m, (pid_t)req->pid);
	int dirfd = dirarg < 0 ? AT_FDCWD : (int)(int32_t)req->data.args[dirarg], fd;

	if (ppid < 0)
		return -ESRCH;
	if (dirfd == AT_FDCWD)
		snprintf(self, sizeof(self), "/proc/%ld/cwd", ppid);
	else if (dirfd >= 0)
		snprintf(self, sizeof(self), "/proc/%ld/fd/%d", ppid, dirfd);
	else
		return -EBADF;
	fd = open(self, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT && dirfd >= 0 ? -EBADF : -errno;
	switch (judged_path(m, fd, out, outlen)) {
	case -2:
		out[0] = '\0';
		break;
	case -1:
		close(fd);
		return -ENAMETOOLONG; /* cannot be judged: refused */
	}
	keep->obj = fd;
	return 0;
}

/* Does the caller's operand (dirarg, patharg), read once from its memory
 * into rel, reach a denied name now? 1 with where in out (2: nothing is
 * there now), 0 no, or -errno when it cannot be resolved (the kernel's
 * answer for most: ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG, EACCES). What it
 * reached is left open in keep (a directory and name always with need_dir,
 * which a creating open and a link or rename need). With empty_fd an empty
 * path names the descriptor dirarg itself (AT_EMPTY_PATH, see
 * reach_own_fd); without, it is ENOENT, as the kernel answers. */
static int reaches_denied(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg, int patharg,
			  int follow, int need_dir, int empty_fd, char *rel, char *out, size_t outlen,
			  struct reach *keep)
{
	int rc;

	reach_init(keep);
	if (req->data.args[patharg] == 0)
		return -EFAULT;
	rc = (int)read_string((pid_t)req->pid, req->data.args[patharg], rel, PATH_MAX);
	if (rc < 0) {
		rel[0] = '\0';
		return rc;
	}
	if (rc == 0 && empty_fd)
		rc = reach_own_fd(m, req, dirarg, out, outlen, keep);
	else
		rc = need_dir ? -EAGAIN : quick_resolve(m, req, dirarg, rel, follow, out, outlen, keep);
	if (rc == -EAGAIN) {
		reach_close(keep);
		rc = resolve_for(m, req, dirarg, rel, follow, out, outlen, keep);
	}
	if (rc < 0) {
		reach_close(keep);
		return rc;
	}
	return srt__monitor_denied(m, out, 0) ? 1 + rc : 0;
}

/* The file mapped at addr in pid, from /proc/<pid>/maps, into out; 0 or -1. */
static int mapping_of(long pid, uint64_t addr, char *out, size_t outlen)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int off = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || off == 0)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		name = line + off;
		name[strcspn(name, "\n")] = '\0';
		snprintf(out, outlen, "%s", name);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* glibc's name-service code asks nscd first on every lookup (getaddrinfo,
 * getpwnam, ...) with socket(AF_UNIX, SOCK_STREAM|SOCK_NONBLOCK|
 * SOCK_CLOEXEC, 0) and quietly goes on without it. Reporting that refusal
 * would add a line to nearly every command that resolves a name, about
 * something the command never chose to do. It is recognised by those
 * exact arguments, made from libc's socket() wrapper (the syscall's
 * address) called from libc itself (the return address on the stack, as
 * /proc/<pid>/syscall shows while the call waits for us): a program that
 * calls socket() with the same flags calls it from its own code. x86_64
 * only (elsewhere the return address is not on the stack): every refusal
 * is reported there. */
static int is_nscd_probe(const struct srt__monitor *m, const struct seccomp_notif *req)
{
#if defined(__x86_64__)
	char path[64], buf[512], at_pc[PATH_MAX], at_ret[PATH_MAX];
	unsigned long long sp = 0, pc = 0, ret = 0;
	struct iovec l = { &ret, sizeof(ret) }, r;
	const char *base;
	ssize_t n;
	int i;
	char *q;

	long ppid;

	if ((uint32_t)req->data.args[1] != (SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC) ||
	    (uint32_t)req->data.args[2] != 0)
		return 0;
	ppid = proc_pid(m, (pid_t)req->pid);
	if (ppid < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/syscall", ppid);
	n = srt__read_small_file(path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	/* "nr a0 a1 a2 a3 a4 a5 sp pc" */
	q = buf;
	for (i = 0; i < 7 && q; i++) {
		q = strchr(q, ' ');
		if (q)
			q++;
	}
	if (!q || sscanf(q, "%llx %llx", &sp, &pc) != 2)
		return 0;
	r.iov_base = (void *)(uintptr_t)sp;
	r.iov_len = sizeof(ret);
	if (process_vm_readv((pid_t)req->pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(ret))
		return 0;
	if (mapping_of(ppid, pc, at_pc, sizeof(at_pc)) != 0 ||
	    mapping_of(ppid, ret, at_ret, sizeof(at_ret)) != 0)
		return 0;
	base = strrchr(at_pc, '/');
	return base && strncmp(base, "/libc.so", 8) == 0 && strcmp(at_pc, at_ret) == 0;
#else
	(void)m;
	(void)req;
	return 0;
#endif
}

/* socket(AF_UNIX) with allowed paths: a stream or seqpacket socket made
 * here and installed in the caller as the call's result (Linux >= 5.14;
 * older kernels refuse the flag: the call fails, nothing is let through). */
static int unix_socket(struct srt__monitor *m, const struct seccomp_notif *req)
{
	int type = (int)req->data.args[1], fd, rc;
	struct seccomp_notif_addfd a;

	rc = srt__unix_socket_for(type, (int)req->data.args[2], &fd);
	if (rc) {
		if (reply(m, req->id, -rc, 0) != 0)
			return -1;
		if (rc == EPERM)
			srt__monitor_event(m, "socket", "AF_UNIX datagram");
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.id = req->id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = (type & SOCK_CLOEXEC) ? O_CLOEXEC : 0;
	rc = notif_ioctl(m->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
	rc = rc >= 0 ? 0 : errno;
	close(fd);
	if (rc == 0 || rc == ENOENT)
		return 0; /* sent, or the caller is gone */
	return reply(m, req->id, rc == EINVAL ? -ENOSYS : -rc, 0);
}

/* connect with allowed paths: performed here, never continued. */
static int unix_connect(struct srt__monitor *m, const struct seccomp_notif *req)
{
	struct srt__unix_connect *uc;
	int rc;

	uc = calloc(1, sizeof(*uc));
	if (!uc)
		return reply(m, req->id, -ENOMEM, 0);
	uc->pid = (pid_t)req->pid;
	uc->proc_pid = proc_pid(m, (pid_t)req->pid);
	uc->listener = m->listener;
	uc->id = req->id;
	uc->sockfd = (int)(uint32_t)req->data.args[0];
	uc->addr = req->data.args[1];
	uc->len = (uint32_t)req->data.args[2];
	uc->allowed = m->unix_ok;
	uc->n_allowed = m->n_unix;
	uc->inet = 1; /* the sandbox's own network namespace, as the caller's */
	rc = uc->proc_pid < 0 || !m->n_unix ? EPERM : srt__unix_connect_for(uc);
	if (reply(m, req->id, -rc, 0) != 0) {
		free(uc);
		return -1;
	}
	if (uc->what[0])
		srt__monitor_event(m, "connect", uc->what);
	free(uc);
	return 0;
}

/* ---- performing the calls it judges -----------------------------------------
 *
 * A call judged here is never continued: the kernel would read the path from
 * the caller's memory again, and another thread of the command can rewrite
 * it between our read and the kernel's (at the moment after a host's rename
 * over a denied name, the kernel would then open the uncovered new file). So
 * the monitor makes the call itself, on what its own resolution reached and
 * judged (struct reach), in the caller's root, cwd and mount namespace, and
 * answers with the result: an opened file is handed over with
 * SECCOMP_IOCTL_NOTIF_ADDFD. An existing file is opened again through the
 * O_PATH descriptor the verdict was made on (so a rename on the host in
 * between cannot swap it; its device and inode are checked after the open);
 * a missing one is created in the directory judged, under the name judged.
 *
 * What the monitor's own identity changes, and how it is kept out:
 *  - /proc: this process holds every capability in the command's user
 *    namespace (it is in the parent one, as the same user), so it could open
 *    what the command may not (another process's mem or environ). A file of
 *    /proc is opened here only when it is the caller's own (/proc/<its
 *    tgid>/...), a process-independent one (/proc/cpuinfo, /proc/sys/...),
 *    or a listed file every process may read of another (stat, status,
 *    cmdline, ...), read-only but for the caller's own files (whose
 *    writes the kernel checks against the writer; see proc_open_ok);
 *    anything else is EACCES. Magic links of other processes are not
 *    followed (resolve_for).
 *  - /dev/tty names the opener's controlling terminal: it is answered with
 *    the caller's own (its pty under /dev/pts, or ENXIO without one).
 *  - O_NOCTTY always: a terminal opened here never becomes ours.
 *  - a FIFO opened for reading waits for a writer (and one opened for
 *    writing for a reader), which may be another caller waiting on this
 *    monitor, and a file under a lease waits for the lease: such an open
 *    is made by a short thread of its own (slow_main), on a descriptor
 *    pinned to the file. Every end of a FIFO is, even one that does not
 *    wait: the monitor's copy of an end must never be what the other
 *    end's open is matched with (see fifo_held).
 *  - the Landlock layer: the last call of each (open, create, link,
 *    rename) is made by a thread under the ruleset the worker applied to
 *    itself (see "the command's Landlock layer" below), or, for a plain
 *    read open, with that thread's credentials through the cred ring
 *    (ring_open), so the layer judges it as the command's own (the mounts
 *    alone let an O_RDWR open of a FIFO outside the write roots through: a
 *    read-only mount does not stop writes into a FIFO). */

static int caller_umask(long ppid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/%ld/status", ppid);
	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0)
		return 077;
	p = strstr(buf, "\nUmask:");
	if (!p)
		return 077; /* unknown: the strictest usual mask */
	return (int)(strtoul(p + 7, NULL, 8) & 0777);
}

/* Answer id with fd (installed with fdflags) on listener. 0, or -1 when
 * the listener failed. */
static int answer_fd(int listener, int send_flag, uint64_t id, int fd, unsigned fdflags)
{
	struct seccomp_notif_addfd a;
	struct seccomp_notif_resp resp;
	int rc;

	memset(&a, 0, sizeof(a));
	a.id = id;
	a.flags = send_flag ? SECCOMP_ADDFD_FLAG_SEND : 0;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = fdflags;
	rc = notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
	if (rc < 0 && errno == ENOENT)
		return 0; /* the caller is gone */
	memset(&resp, 0, sizeof(resp));
	resp.id = id;
	if (rc < 0)
		resp.error = -errno;
	else if (send_flag)
		return 0; /* installed and answered at once */
	else
		resp.val = rc; /* Linux 5.9-5.13: the descriptor number is the answer */
	if (notif_ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
		return 0;
	return errno == ENOENT ? 0 : -1;
}

/* How an open that waits waits (slow_main): each is given up once its
 * caller is gone, so no thread of the monitor stays a reader or writer of
 * a FIFO, or makes a truncating open, for a call nobody waits for. */
enum {
	SLOW_READER,  /* a FIFO's read open: waits for a writer, woken by SLOW_SIGNAL */
	SLOW_WRITER,  /* a FIFO's write open: tried until a reader is there */
	SLOW_NOW,     /* a FIFO's end that does not wait (O_RDWR, O_NONBLOCK) */
	SLOW_LEASE,   /* a leased file: tried until the lease is given back */
};
#define SLOW_SIGNAL (SIGRTMIN + 3)
#define SLOW_MAX 256 /* such opens at once; past it, ENFILE */
static unsigned slow_count;

struct slow_job {
	int listener, send_flag, pin, flags;
	uint64_t id;
	unsigned fdflags;
	int mode; /* SLOW_* */
};

/* The monitor's own copy of a FIFO end it hands over lives on until its
 * close, a moment after the caller has the end. A caller quick to close
 * its end leaves, for that moment, a reader (or writer) that is the
 * monitor alone, and an open of the other end made then is matched with
 * it: a write open goes through with nobody to read (the write then fails
 * with EPIPE, or its bytes are lost), a read open meets end of file. So
 * every end of a FIFO is opened by a thread of its own (slow_main), which
 * notes the end held from its open until its own copy is closed, and no
 * end of a FIFO is opened while an end of the same FIFO is held. The opens
 * that do not wait for the other end (a writer's tries, O_RDWR,
 * O_NONBLOCK) take their note before the open (fifo_try), so no end is
 * handed over between their look and their open. Two gaps are left, both
 * for a reader, whose open waits for its writer and so cannot be made
 * under a note: an end (a writer's or an O_RDWR one) handed over and
 * closed by its caller between the reader's look and the start of its
 * open is met by that open; and a reader's thread whose caller has left
 * stays in its open up to 100 ms (slow_read_open's timer), where a
 * writer's open meets it. Each note is let go within the time of one
 * answer, so a wait for it is short (a caller stopped while its end is
 * installed makes it as long as the stop, for that FIFO alone). */
#define FIFO_HELD_MAX (SLOW_MAX + 8)
static pthread_mutex_t fifo_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fifo_end {
	dev_t dev;
	ino_t ino;
	unsigned n; /* ends of it held; 0 = a free slot */
} fifo_held[FIFO_HELD_MAX];

/* Under fifo_mu: the FIFO's slot, or when add a free one (NULL when none
 * is free), or NULL. */
static struct fifo_end *fifo_slot(dev_t dev, ino_t ino, int add)
{
	struct fifo_end *unused = NULL;

	for (size_t i = 0; i < FIFO_HELD_MAX; i++) {
		struct fifo_end *e = &fifo_held[i];

		if (e->n && e->dev == dev && e->ino == ino)
			return e;
		if (!e->n && !unused)
			unused = e;
	}
	if (!add || !unused)
		return NULL;
	unused->dev = dev;
	unused->ino = ino;
	return unused;
}

/* Note an end of the FIFO held: 0, or -1 (ENFILE) when no slot is free. */
static int fifo_hold(dev_t dev, ino_t ino)
{
	struct fifo_end *e;

	pthread_mutex_lock(&fifo_mu);
	e = fifo_slot(dev, ino, 1);
	if (e)
		e->n++;
	pthread_mutex_unlock(&fifo_mu);
	if (!e)
		errno = ENFILE;
	return e ? 0 : -1;
}

static void fifo_let_go(dev_t dev, ino_t ino)
{
	struct fifo_end *e;

	pthread_mutex_lock(&fifo_mu);
	e = fifo_slot(dev, ino, 0);
	if (e)
		e->n--;
	pthread_mutex_unlock(&fifo_mu);
}

static int fifo_held_now(dev_t dev, ino_t ino)
{
	int held;

	pthread_mutex_lock(&fifo_mu);
	held = fifo_slot(dev, ino, 0) != NULL;
	pthread_mutex_unlock(&fifo_mu);
	return held;
}

/* Open an end of the FIFO (dev, ino) at path with flags that do not wait
 * for the other end (O_NONBLOCK, or O_RDWR) unless an end of it is held:
 * the descriptor, noted held when hold, or -1 with errno (EBUSY: an end is
 * held). The note is taken, under the lock, before the open and kept
 * through it, so no end of the FIFO is handed over between the look and
 * the open; the open itself is made without the lock (it can wait on the
 * pipe's own lock, which a splice into the FIFO holds while it waits for
 * its data, and that must stall the opens of this FIFO alone). */
static int fifo_try(const char *path, int flags, dev_t dev, ino_t ino, int hold)
{
	struct fifo_end *e = NULL;
	int fd, err;

	pthread_mutex_lock(&fifo_mu);
	if (fifo_slot(dev, ino, 0)) {
		err = EBUSY;
	} else if ((e = fifo_slot(dev, ino, 1)) == NULL) {
		err = ENFILE;
	} else {
		e->n++;
		err = 0;
	}
	pthread_mutex_unlock(&fifo_mu);
	if (err) {
		errno = err;
		return -1;
	}
	fd = open(path, flags);
	err = errno;
	if (fd < 0 || !hold)
		fifo_let_go(dev, ino);
	errno = err;
	return fd;
}

static void slow_wake(int sig)
{
	(void)sig; /* only ends the open it interrupts (EINTR) */
}

/* The handler, once: without SA_RESTART, so the open returns EINTR. The
 * signal is sent to a waiting thread alone (its own timer), which
 * unblocks it only while it waits. */
static void slow_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = slow_wake;
	sigemptyset(&sa.sa_mask);
	sigaction(SLOW_SIGNAL, &sa, NULL);
}

static int slow_gone(const struct slow_job *j)
{
	uint64_t id = j->id;

	return notif_ioctl(j->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0;
}

/* The FIFO read open, woken every 100 ms by a timer of this thread's own
 * (SLOW_SIGNAL, no SA_RESTART) to see whether its caller is still
 * there: -1 with errno, or -2 when the caller is gone. */
static int slow_read_open(const struct slow_job *j, const char *p)
{
	struct sigevent ev;
	struct itimerspec its = { { 0, 100000000 }, { 0, 100000000 } };
	sigset_t one;
	timer_t t;
	int fd;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SLOW_SIGNAL;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	sigemptyset(&one);
	sigaddset(&one, SLOW_SIGNAL);
	if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0)
		return open(p, j->flags); /* no timer: blocks, as before */
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	timer_settime(t, 0, &its, NULL);
	while ((fd = open(p, j->flags)) < 0 && errno == EINTR) {
		if (slow_gone(j)) {
			fd = -2;
			break;
		}
	}
	timer_delete(t);
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	return fd;
}

/* Try the job's open without waiting until it gives a descriptor or an
 * error other than the ones it waits out (a FIFO's writer: ENXIO until a
 * reader is there; a leased file: EWOULDBLOCK until the lease is given
 * back; any end of a FIFO: EBUSY while an end of it is held), asking
 * before each try whether the caller is still there (an open that
 * succeeds for a caller gone is already the reader's end of file, or a
 * truncation made for nobody): the descriptor, -1 with errno, or -2 when
 * the caller is gone. For a FIFO's reader, which waits in its open, only
 * the look is made: 0 once no end of the FIFO is held. */
static int slow_try(const struct slow_job *j, const char *p, const struct stat *pin)
{
	int wait_err = j->mode == SLOW_WRITER ? ENXIO : j->mode == SLOW_LEASE ? EWOULDBLOCK : 0;
	long wait_us = 500;
	int fd;

	for (;;) {
		if (slow_gone(j))
			return -2;
		if (j->mode == SLOW_LEASE)
			fd = open(p, j->flags | O_NONBLOCK);
		else if (j->mode == SLOW_READER)
			fd = fifo_held_now(pin->st_dev, pin->st_ino) ? (errno = EBUSY, -1) : 0;
		else
			fd = fifo_try(p, j->flags | (j->mode == SLOW_WRITER ? O_NONBLOCK : 0), pin->st_dev,
				      pin->st_ino, 1);
		if (fd >= 0 || (errno != wait_err && (errno != EBUSY || j->mode == SLOW_LEASE)))
			return fd;
		usleep((useconds_t)wait_us);
		if (wait_us < 20000)
			wait_us *= 2;
	}
}

static void *slow_main(void *arg)
{
	struct slow_job *j = arg;
	struct stat pin, got;
	int fifo = j->mode != SLOW_LEASE, fd, err;
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", j->pin);
	if (fstat(j->pin, &pin) != 0) {
		fd = -1;
	} else if (j->mode == SLOW_READER) {
		/* no end of it held, then the open that waits for a writer
		 * (see fifo_held for the gap between the two) */
		fd = slow_try(j, p, &pin);
		if (fd == -2)
			goto out;
		fd = fd < 0 ? -1 : slow_read_open(j, p);
		if (fd == -2)
			goto out;
		if (fd >= 0 && fifo_hold(pin.st_dev, pin.st_ino) != 0) {
			err = errno;
			close(fd);
			fd = -1;
			errno = err;
		}
	} else {
		fd = slow_try(j, p, &pin);
		if (fd == -2)
			goto out;
		if (fd >= 0 && j->mode != SLOW_NOW && !(j->flags & O_NONBLOCK) &&
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
			close(fd);
			if (fifo)
				fifo_let_go(pin.st_dev, pin.st_ino);
			fd = -1;
		}
	}
	/* the file pinned, and no other */
	if (fd >= 0 && (fstat(fd, &got) != 0 || got.st_dev != pin.st_dev || got.st_ino != pin.st_ino)) {
		close(fd);
		if (fifo)
			fifo_let_go(pin.st_dev, pin.st_ino);
		fd = -1;
		errno = EACCES;
	}
	if (fd >= 0) {
		answer_fd(j->listener, j->send_flag, j->id, fd, j->fdflags);
		close(fd);
		if (fifo)
			fifo_let_go(pin.st_dev, pin.st_ino);
	} else {
		struct seccomp_notif_resp resp;

		memset(&resp, 0, sizeof(resp));
		resp.id = j->id;
		resp.error = -errno;
		notif_ioctl(j->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
out:
	close(j->pin);
	free(j);
	__atomic_sub_fetch(&slow_count, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* An open that waits (either end of a FIFO alone, a file under a lease
 * being broken) is finished by a thread of its own, so the monitor and
 * the thread under the layer go on answering the command's other calls:
 * 1 (answered by that thread), or -errno. */
static int open_later(int listener, int send_flag, uint64_t id, int obj, int flags, unsigned fdflags,
		      int mode)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct slow_job *j;
	pthread_attr_t at;
	pthread_t t;
	int err;

	pthread_once(&once, slow_init);
	/* bounded: a command that starts such opens and abandons them
	 * cannot grow this process without end */
	if (__atomic_add_fetch(&slow_count, 1, __ATOMIC_RELAXED) > SLOW_MAX) {
		__atomic_sub_fetch(&slow_count, 1, __ATOMIC_RELAXED);
		return -ENFILE;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		__atomic_sub_fetch(&slow_count, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	j->pin = fcntl(obj, F_DUPFD_CLOEXEC, 3);
	if (j->pin < 0) {
		err = errno;
		free(j);
		__atomic_sub_fetch(&slow_count, 1, __ATOMIC_RELAXED);
		return -err;
	}
	j->listener = listener;
	j->send_flag = send_flag;
	j->id = id;
	j->flags = flags;
	j->fdflags = fdflags;
	j->mode = mode;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	err = pthread_create(&t, &at, slow_main, j);
	pthread_attr_destroy(&at);
	if (err) {
		close(j->pin);
		free(j);
		__atomic_sub_fetch(&slow_count, 1, __ATOMIC_RELAXED);
		return -EAGAIN;
	}
	return 1;
}

/* The file status flags F_SETFL acts on (O_ASYNC through the file's
 * fasync); it leaves every other bit as the open set it. */
#define SETFL_FLAGS (O_APPEND | O_ASYNC | O_DIRECT | O_NOATIME | O_NONBLOCK)

/* A regular file opened at once, or -2 when another process holds a lease
 * on it (the open would wait until the lease is given back or broken, up
 * to /proc/sys/fs/lease-break-time: open_later finishes it), or -1. The
 * O_NONBLOCK that keeps the open from waiting is then taken off again: the
 * bits F_SETFL acts on are set to the ones the open was asked for, which
 * is what F_GETFL would give back in those bits less O_NONBLOCK (one system
 * call, not two, on every read open the read observer makes). */
static int lease_open(const char *self, int flags)
{
	int f = open(self, flags | O_NONBLOCK);

	if (f < 0)
		return errno == EWOULDBLOCK ? -2 : -1;
	if (!(flags & O_NONBLOCK) && fcntl(f, F_SETFL, flags & (SETFL_FLAGS & ~O_NONBLOCK)) != 0) {
		int e = errno;

		close(f);
		errno = e;
		return -1;
	}
	return f;
}

/* Files of another process's /proc directory that the kernel lets any
 * process open for reading (no ptrace check). */
static int proc_public(const char *base)
{
	static const char *const v[] = { "stat", "status", "cmdline", "comm", "statm", "cgroup",
					  "oom_score", "oom_score_adj", "loginuid", "sessionid",
					  "limits", "mountinfo", "mounts", "schedstat" };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(base, v[i]))
			return 1;
	return 0;
}

/* May the monitor open obj (a file of /proc, real its path in the caller's
 * view) with fl for the caller? See the list above. */
static int proc_open_ok(long ppid, int obj, const struct stat *st, const char *real, uint32_t fl)
{
	long owner = proc_owner(real), tgid = 0, tid = 0;
	const char *base = strrchr(real, '/');
	int rdonly = (fl & O_ACCMODE) == O_RDONLY;

	base = base ? base + 1 : real;
	(void)obj;
	if (!owner)
		return rdonly && real[0] == '/';
	if (caller_ns_ids(ppid, &tgid, &tid) != 0)
		return 0;
	if (owner == tgid)
		/* its own files, for writing too (comm, oom_score_adj,
		 * attr/current): the kernel checks such a write against the
		 * writer, the caller. Not the id maps, setgroups and
		 * timens_offsets, whose writes are checked against the
		 * opener, this process */
		return rdonly || (strcmp(base, "uid_map") && strcmp(base, "gid_map") &&
				  strcmp(base, "projid_map") && strcmp(base, "setgroups") &&
				  strcmp(base, "timens_offsets"));
	return rdonly && (S_ISDIR(st->st_mode) || proc_public(base));
}

/* The caller's controlling terminal for /dev/tty, opened from its root:
 * 0 with *fd, or -errno (ENXIO without one, as the kernel says). */
static int open_ctty(long ppid, int *fd)
{
	char path[64], buf[1024], *q;
	unsigned long tty = 0, major, minor;
	struct open_how how;
	struct stat st;
	int root, f, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", ppid);
	if (srt__read_small_file(path, buf, sizeof(buf)) <= 0 || !(q = strrchr(buf, ')')))
		return -ESRCH;
	/* after "pid (comm)": state ppid pgrp session tty_nr */
	for (i = 0; i < 5 && q; i++) {
		q = strchr(q + 1, ' ');
	}
	if (!q)
		return -ESRCH;
	tty = strtoul(q + 1, NULL, 10);
	if (!tty)
		return -ENXIO;
	major = (tty >> 8) & 0xfff;
	minor = (tty & 0xff) | ((tty >> 12) & 0xfff00);
	if (major < 136 || major > 143)
		return -EACCES; /* not a pty of the sandbox's devpts */
	snprintf(path, sizeof(path), "/proc/%ld/root", ppid);
	root = open(path, O_PATH | O_CLOEXEC);
	if (root < 0)
		return -errno;
	snprintf(path, sizeof(path), "dev/pts/%lu", (major - 136) * 256 + minor);
	memset(&how, 0, sizeof(how));
	how.flags = O_RDWR | O_NOCTTY | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	f = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	close(root);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != major ||
	    minor(st.st_rdev) != minor) {
		close(f);
		return -EACCES;
	}
	*fd = f;
	return 0;
}

/* ---- the command's Landlock layer ------------------------------------------
 *
 * The calls made here for the command are made under the Landlock layer
 * the command runs under: the worker hands over its ruleset and a thread
 * of this process restricts itself with it, then makes, on request, the
 * last call of each (the open, create, link or rename on what was judged);
 * an open that waits (slow_main) starts from that thread and inherits its
 * domain. Not the monitor's own thread: Landlock lets a restricted process
 * inspect only processes in its own domain or below, and the command's
 * domain is a sibling, so it could no longer read the command's memory or
 * /proc/<pid>/root. Without the layer (no Landlock, or srt left it out)
 * the calls are made here. A plain read open, the most frequent by far,
 * is made here too, but with the restricted thread's credentials: the
 * thread registers them on the cred ring once (srt__monitor_confine,
 * ring_open), which saves the two context switches of a hand-over. */

/* A read open the thread finishes on its own: it reopens the judged
 * object, checks it is the one judged, and answers the caller, while the
 * monitor thread goes back to the next notification. The hand-over back
 * to the monitor is the context switch it saves (two of the four each
 * performed open cost, with the caller's, on top of the call). */
struct reopen_job {
	int obj;          /* O_PATH of what was judged; the job's to close */
	int flags;
	dev_t dev;        /* what was judged: the reopened file must be it */
	ino_t ino;
	uint64_t id;
	unsigned fdflags;
	int regular;      /* a regular file: see lease_open */
};

struct cmd_domain {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int (*fn)(void *);
	void *arg;
	int rc;
	int state;   /* 0 idle, 1 asked, 2 answered */
	int async;   /* what was asked is job, answered by the thread itself */
	struct reopen_job job;
	int listener, send_flag; /* for the job's answer */
	int busy;    /* answering a job */
	int failed;  /* the job's answer found the listener unusable */
	int ruleset; /* until the thread has restricted itself */
	int ready;   /* 1 restricted and serving, -errno when it could not */
	pid_t tid;   /* the thread's id, for its CPU affinity */
	int follow;  /* keep the thread on the monitor's CPU (see follow_cpu) */
	int cpu;     /* the one CPU it may run on now, -1 = not set yet */
};

/* The job, in the thread: 0, or -1 when the listener failed. */
static int reopen_answer(const struct cmd_domain *d, const struct reopen_job *j)
{
	struct seccomp_notif_resp resp;
	struct stat got;
	char self[64];
	int f, rc;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", j->obj);
	f = j->regular ? lease_open(self, j->flags) : open(self, j->flags);
	memset(&resp, 0, sizeof(resp));
	resp.id = j->id;
	if (f == -2) {
		/* a lease being broken: its own thread waits for it */
		f = open_later(d->listener, d->send_flag, j->id, j->obj, j->flags, j->fdflags, SLOW_LEASE);
		if (f == 1)
			return 0;
		errno = -f;
		f = -1;
	}
	if (f < 0) {
		resp.error = -errno;
	} else if (fstat(f, &got) != 0 || got.st_dev != j->dev || got.st_ino != j->ino) {
		/* the file judged, and no other */
		resp.error = -EACCES;
	} else {
		rc = answer_fd(d->listener, d->send_flag, j->id, f, j->fdflags);
		close(f);
		return rc;
	}
	if (f >= 0)
		close(f);
	if (notif_ioctl(d->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
		return 0;
	return errno == ENOENT ? 0 : -1;
}

static void *domain_main(void *p)
{
	struct cmd_domain *d = p;
	int err = 0;

	d->tid = (pid_t)syscall(SYS_gettid);
	/* no_new_privs is per thread; this process execs nothing */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || srt__ll_restrict_self(d->ruleset, 0) != 0)
		err = errno ? errno : EPERM;
	close(d->ruleset);
	d->ruleset = -1;
	pthread_mutex_lock(&d->mu);
	d->ready = err ? -err : 1;
	pthread_cond_broadcast(&d->cv);
	while (!err) {
		int rc;

		while (d->state != 1)
			pthread_cond_wait(&d->cv, &d->mu);
		if (d->async) {
			/* the slot is free at once: the monitor hands over the
			 * next job without waiting for this answer */
			struct reopen_job j = d->job;

			d->async = 0;
			d->state = 0;
			d->busy = 1;
			pthread_mutex_unlock(&d->mu);
			rc = reopen_answer(d, &j);
			close(j.obj);
			pthread_mutex_lock(&d->mu);
			if (rc < 0)
				__atomic_store_n(&d->failed, 1, __ATOMIC_RELEASE);
			d->busy = 0;
			pthread_cond_broadcast(&d->cv);
			continue;
		}
		pthread_mutex_unlock(&d->mu);
		rc = d->fn(d->arg);
		pthread_mutex_lock(&d->mu);
		d->rc = rc;
		d->state = 2;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Does the calling thread run under a fair-class policy (SCHED_OTHER,
 * SCHED_BATCH, SCHED_IDLE)? */
static int fair_class(void)
{
	int p = sched_getscheduler(0);

	return p == SCHED_OTHER || p == SCHED_BATCH || p == SCHED_IDLE;
}

static int in_domain(struct srt__monitor *m, int (*fn)(void *), void *arg);

/* In the thread under the layer: its credentials are the ring's. */
static int adopt_creds(void *ring)
{
	return srt__cred_ring_adopt(ring);
}

int srt__monitor_confine(struct srt__monitor *m, int ruleset)
{
	struct cmd_domain *d;
	pthread_attr_t at;
	pthread_t t;
	int err;

	if (m->dom)
		return EBUSY;
	d = calloc(1, sizeof(*d));
	if (!d)
		return ENOMEM;
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	d->ruleset = fcntl(ruleset, F_DUPFD_CLOEXEC, 3);
	if (d->ruleset < 0) {
		err = errno;
		free(d);
		return err;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 128 * 1024);
	err = pthread_create(&t, &at, domain_main, d);
	pthread_attr_destroy(&at);
	if (err) {
		close(d->ruleset);
		free(d);
		return err;
	}
	pthread_mutex_lock(&d->mu);
	while (!d->ready)
		pthread_cond_wait(&d->cv, &d->mu);
	err = d->ready < 0 ? -d->ready : 0;
	pthread_mutex_unlock(&d->mu);
	if (err)
		return err; /* the thread has ended; d stays (it is small) */
	d->cpu = -1;
	d->follow = fair_class();
	m->dom = d;
	/* the thread's credentials on a ring of this one's: a plain read
	 * open is then made here, without the hand-over (cred-ring.h).
	 * Without io_uring every such open is handed over, as before */
	m->ring = srt__cred_ring_new();
	err = m->ring ? in_domain(m, adopt_creds, m->ring) : -errno;
	if (err) {
		if (m->debug)
			fprintf(stderr, "srt-linux-init: (debug) violation monitor: read opens handed to "
				"the thread under the Landlock layer (no io_uring ring: %s)\n", strerror(-err));
		srt__cred_ring_free(m->ring);
		m->ring = NULL;
	}
	return 0;
}

/* Before the monitor thread wakes the thread under the layer: allow that
 * thread the monitor's current CPU only. The monitor is about to block (in
 * SECCOMP_IOCTL_NOTIF_RECV, or waiting for the answer), so the CPU is free
 * for it at once, and the wake-up is a switch on this CPU instead of an
 * interrupt to wake another, idle one (with a virtual machine's exits on
 * both sides): what the kernel does itself for the notifying caller and
 * the monitor (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP), but cannot do for a
 * futex. A system call only when the monitor has moved to another CPU
 * since the last hand-over. Only with a fair-class policy, the class the
 * kernel's own synchronous wake-ups are made for: a real-time policy
 * places each wake-up on the lowest-priority CPU, and a single reader
 * under SCHED_RR was slower with the thread held on one CPU. A failure
 * (the CPU left the cpuset) ends the following and gives the thread the
 * monitor's own mask back, the one it started with. A waiting open's
 * thread (slow_main), started from it, starts with the same one CPU: it
 * waits for the other end or the lease, then answers once and ends. */
static void follow_cpu(struct cmd_domain *d)
{
	cpu_set_t one;
	int cpu;

	if (!d->follow)
		return;
	cpu = sched_getcpu();
	if (cpu < 0 || cpu == d->cpu || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(d->tid, sizeof(one), &one) == 0) {
		d->cpu = cpu;
		return;
	}
	d->follow = 0;
	if (d->cpu >= 0 && sched_getaffinity(0, sizeof(one), &one) == 0)
		sched_setaffinity(d->tid, sizeof(one), &one);
}

/* fn(arg) in the command's domain when there is one, else here. */
static int in_domain(struct srt__monitor *m, int (*fn)(void *), void *arg)
{
	struct cmd_domain *d = m->dom;
	int rc;

	if (!d)
		return fn(arg);
	follow_cpu(d);
	pthread_mutex_lock(&d->mu);
	while (d->state != 0) /* a job handed over is not taken yet */
		pthread_cond_wait(&d->cv, &d->mu);
	d->fn = fn;
	d->arg = arg;
	d->state = 1;
	pthread_cond_broadcast(&d->cv);
	while (d->state != 2)
		pthread_cond_wait(&d->cv, &d->mu);
	rc = d->rc;
	d->state = 0;
	pthread_mutex_unlock(&d->mu);
	return rc;
}

/* Hand the job (its obj included) to the thread under the command's
 * layer, which answers the caller itself. */
static void reopen_later(struct srt__monitor *m, const struct reopen_job *j)
{
	struct cmd_domain *d = m->dom;

	follow_cpu(d);
	pthread_mutex_lock(&d->mu);
	while (d->state != 0)
		pthread_cond_wait(&d->cv, &d->mu);
	d->listener = m->listener;
	d->send_flag = m->addfd_send;
	d->job = *j;
	d->async = 1;
	d->state = 1;
	pthread_mutex_unlock(&d->mu);
	/* after the unlock: woken under it, the thread would block again
	 * at once on the mutex the monitor holds */
	pthread_cond_broadcast(&d->cv);
}

/* Wait until the thread under the layer has answered what it was handed,
 * before the listener is given up. 1 when an answer found it unusable. */
static int domain_idle(struct srt__monitor *m)
{
	struct cmd_domain *d = m->dom;
	int failed;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->mu);
	while (d->state != 0 || d->busy)
		pthread_cond_wait(&d->cv, &d->mu);
	failed = __atomic_load_n(&d->failed, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&d->mu);
	return failed;
}

/* Did an answer of the thread under the layer find the listener unusable? */
static int domain_failed(struct srt__monitor *m)
{
	struct cmd_domain *d = m->dom;
	int failed;

	if (!d)
		return 0;
	/* no lock: taken at every notification, it would hold up the
	 * thread that is answering the last one */
	failed = __atomic_load_n(&d->failed, __ATOMIC_ACQUIRE);
	return failed;
}

/* The last call of an open, made by in_domain. */
enum { ACT_CREATE, ACT_FIFO, ACT_TMPFILE, ACT_REOPEN };
struct open_act {
	struct srt__monitor *m;
	uint64_t id;
	int kind;
	int at;           /* the directory (ACT_CREATE) or the object */
	const char *name; /* ACT_CREATE */
	int flags;
	mode_t mode;
	int umask;        /* the caller's, for what is created */
	unsigned fdflags; /* ACT_FIFO, and a leased file's */
	int regular;      /* ACT_REOPEN of a regular file (see lease_open) */
	int fd;           /* out */
};

/* 0 with a->fd, 1 when a thread answers (a FIFO, a leased file), or -errno. */
static int open_act(void *p)
{
	struct open_act *a = p;
	char self[64];
	int old, f;

	a->fd = -1;
	if (a->kind == ACT_FIFO) {
		int mode = (a->flags & O_ACCMODE) == O_WRONLY ? SLOW_WRITER : SLOW_READER;

		if ((a->flags & O_ACCMODE) == O_RDWR || (a->flags & O_NONBLOCK))
			mode = SLOW_NOW;
		return open_later(a->m->listener, a->m->addfd_send, a->id, a->at, a->flags, a->fdflags,
				  mode);
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", a->at);
	if (a->kind == ACT_REOPEN && a->regular) {
		f = lease_open(self, a->flags);
		if (f == -2)
			return open_later(a->m->listener, a->m->addfd_send, a->id, a->at, a->flags,
					  a->fdflags, SLOW_LEASE);
	} else if (a->kind == ACT_REOPEN) {
		f = open(self, a->flags);
	} else {
		old = (int)umask((mode_t)a->umask);
		f = a->kind == ACT_CREATE ? openat(a->at, a->name, a->flags, a->mode)
					  : open(self, a->flags, a->mode);
		umask((mode_t)old);
	}
	if (f < 0)
		return -errno;
	a->fd = f;
	return 0;
}

/* A plain read open of a regular file or a directory, made by this
 * thread through the cred ring, so under the command's layer: the name r reached
 * in the directory r holds, opened again with flags, counts only when it
 * is the object judged (st). 0 with *fd; -1 for anything else (an error,
 * another object there now, a lease being broken), which the thread
 * under the layer then answers by reopening what was judged, as it would
 * without the ring. The open never waits: the command or the host can
 * put another file at the name after the judgement, one with a lease
 * that nobody gives back, and a waiting open would stop this thread and
 * every observed call of the command with it (up to lease-break-time).
 * So it is made O_NONBLOCK (a lease answers EAGAIN), unless the caller
 * asked for a directory (O_DIRECTORY refuses anything else before the
 * kernel looks at it), and the descriptor then gets the caller's bit
 * back, as lease_open does. No link is followed (RESOLVE_NO_SYMLINKS, the
 * last component too); O_NOFOLLOW only where the caller asked for it,
 * since the descriptor keeps it in its flags. */
static int ring_open(struct srt__monitor *m, const struct reach *r, const struct stat *st, int flags, int *fd)
{
	const uint64_t resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	int added = (flags & O_DIRECTORY) || (flags & O_NONBLOCK) ? 0 : O_NONBLOCK, f;
	struct stat got;

	if (r->dir < 0 || !r->name[0] || !(S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)))
		return -1;
	f = srt__cred_ring_openat(m->ring, r->dir, r->name, flags | added, resolve);
	if (f < 0)
		return -1;
	if (fstat(f, &got) != 0 || got.st_dev != st->st_dev || got.st_ino != st->st_ino ||
	    (added && fcntl(f, F_SETFL, flags & SETFL_FLAGS) != 0)) {
		close(f);
		return -1;
	}
	*fd = f;
	return 0;
}

/* Open, for the caller, what r reached, with the caller's flags and mode.
 * 0 with *fd to hand over, 1 when a thread answers (a FIFO), or -errno. */
static int perform_open(struct srt__monitor *m, const struct seccomp_notif *req, struct reach *r,
			const char *rel, const char *real, uint32_t fl, mode_t mode, int *fd)
{
	const uint32_t pass = ~(uint32_t)(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
	long ppid = proc_pid(m, (pid_t)req->pid);
	size_t rl = strlen(rel);
	struct open_act a;
	struct stat st, got;
	int rc, procfs;

	*fd = -1;
	if (ppid < 0)
		return -ESRCH;
	memset(&a, 0, sizeof(a));
	a.m = m;
	a.id = req->id;
	a.mode = mode & 01777;
	/* the kernel refuses a creating open of a name ending in a slash
	 * before it looks the name up, whatever is there */
	if ((fl & O_CREAT) && rl && rel[rl - 1] == '/')
		return -EISDIR;
	if (r->obj < 0) {
		if (!(fl & O_CREAT) || r->dir < 0)
			return -ENOENT;
		a.kind = ACT_CREATE;
		a.at = r->dir;
		a.name = r->name;
		a.flags = (int)((fl & ~(uint32_t)O_CLOEXEC) | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		a.umask = caller_umask(ppid);
		rc = in_domain(m, open_act, &a);
		*fd = a.fd;
		return rc;
	}
	if (fstat(r->obj, &st) != 0)
		return -errno;
	if ((fl & O_CREAT) && (fl & O_EXCL))
		return -EEXIST;
	if (S_ISLNK(st.st_mode))
		return -ELOOP; /* O_NOFOLLOW on a link */
	if (!S_ISDIR(st.st_mode) && ((fl & O_DIRECTORY) || (rl && rel[rl - 1] == '/')))
		return -ENOTDIR;
	if (S_ISDIR(st.st_mode) && (fl & O_TMPFILE) != O_TMPFILE &&
	    ((fl & O_ACCMODE) != O_RDONLY || (fl & O_CREAT)))
		return -EISDIR;
	procfs = on_procfs(r->obj, &st);
	if (procfs && !proc_open_ok(ppid, r->obj, &st, real, fl)) {
		struct statvfs sv;

		/* a write the file's mode lets this user make, on a read-only
		 * mount (/proc/sys as root): the kernel's answer is EROFS */
		if ((fl & O_ACCMODE) != O_RDONLY && st.st_uid == geteuid() && (st.st_mode & S_IWUSR) &&
		    fstatvfs(r->obj, &sv) == 0 && (sv.f_flag & ST_RDONLY))
			return -EROFS;
		return -EACCES;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 0))
		return open_ctty(ppid, fd); /* a pty of the sandbox's devpts, which the layer grants */
	a.at = r->obj;
	a.flags = (int)((fl & pass) | O_NOCTTY | O_CLOEXEC);
	/* an end of a FIFO: opened by a thread of its own (slow_main), which
	 * waits for the other end when the open would */
	if (S_ISFIFO(st.st_mode)) {
		a.kind = ACT_FIFO;
		a.fdflags = (fl & O_CLOEXEC) ? O_CLOEXEC : 0;
		return in_domain(m, open_act, &a);
	}
	if ((fl & O_TMPFILE) == O_TMPFILE) {
		/* an unnamed file made with the caller's umask; O_EXCL keeps it
		 * from ever getting a name (linkat through /proc/self/fd) */
		a.kind = ACT_TMPFILE;
		a.umask = caller_umask(ppid);
		a.flags |= (int)(fl & O_EXCL);
	} else {
		a.kind = ACT_REOPEN;
		a.regular = S_ISREG(st.st_mode);
		a.fdflags = (fl & O_CLOEXEC) ? O_CLOEXEC : 0;
	}
	if (a.kind == ACT_REOPEN && !procfs && m->dom && !(fl & SRT_OPEN_WRITE_FLAGS)) {
		/* a plain read open: made here under the layer with the
		 * cred ring where it can be; else the thread under the layer
		 * reopens it, checks it and answers, and what was judged is
		 * its to close */
		struct reopen_job j;

		if (srt__cred_ring_ready(m->ring) && ring_open(m, r, &st, a.flags | (int)(fl & O_NOFOLLOW), fd) == 0)
			return 0;
		j.obj = r->obj;
		j.flags = a.flags;
		j.dev = st.st_dev;
		j.ino = st.st_ino;
		j.id = req->id;
		j.fdflags = (fl & O_CLOEXEC) ? O_CLOEXEC : 0;
		j.regular = S_ISREG(st.st_mode);
		r->obj = -1;
		reopen_later(m, &j);
		return 1;
	}
	/* a file of the command's /proc is opened here: the kernel asks the
	 * opener to be allowed to inspect the process (mem, environ, maps),
	 * which the restricted thread is not (a sibling domain); the layer
	 * grants the command that /proc and proc_open_ok has decided */
	rc = procfs ? open_act(&a) : in_domain(m, open_act, &a);
	if (rc != 0)
		return rc; /* an error, or 1: a thread of its own answers (a lease) */
	/* the file judged, and no other (an O_TMPFILE is a new inode) */
	if (a.kind == ACT_REOPEN &&
	    (fstat(a.fd, &got) != 0 || got.st_dev != st.st_dev || got.st_ino != st.st_ino)) {
		close(a.fd);
		return -EACCES;
	}
	*fd = a.fd;
	return 0;
}

/* Is the notification still waiting? (the pid we read from is still the
 * caller, and a creating call is not made for nobody) */
static int still_waiting(struct srt__monitor *m, uint64_t id)
{
	return notif_ioctl(m->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Report a refused write the policy explains (the mounts answered EROFS or
 * EACCES for a path that is not writable): as the lexical check does for
 * the calls it lets through. */
static void report_write(struct srt__monitor *m, const char *name, const char *real, int err)
{
	if (!(m->flags & SRT_MONITOR_WRITES) || !real[0])
		return;
	if ((err == EROFS || err == EACCES || err == EPERM || err == EBUSY) && srt__monitor_denied(m, real, 1))
		srt__monitor_event(m, name, real);
}

/* A call that could not be resolved is answered with the error the walk
 * met (a denied directory is an empty one that nobody may search: EACCES);
 * it is reported as the lexical check reports the calls it lets through,
 * by the path as written, when the policy refuses that access. */
static void report_lexical(struct srt__monitor *m, const struct seccomp_notif *req, int dirarg,
			   const char *rel, const char *name, int write)
{
	char path[PATH_MAX * 2];

	if (!rel[0] || !(m->flags & (write ? SRT_MONITOR_WRITES : SRT_MONITOR_READS)))
		return;
	if (operand_path_of(m, req, dirarg, rel, path, sizeof(path)) == 0 &&
	    srt__monitor_denied(m, path, write))
		srt__monitor_event(m, name, path);
}

/* An open (open, openat, creat): judged, and performed here but for
 * O_PATH. Write-only ones too, though they read nothing: made by the
 * command at a denied name the host removed (and the cover with it), a
 * file would stay on the host as the command made it (mode 0666) for a
 * host tool to write the secret into, and through a directory descriptor
 * taken before the host moved that directory onto a denied name the
 * command would write into the host's files there. 1 when answered, -1
 * when the listener failed. */
static int judge_open(struct srt__monitor *m, const struct seccomp_notif *req,
		      const struct srt__observed_syscall *s)
{
	char rel[PATH_MAX], where[PATH_MAX * 2];
	/* creat(path, mode) is open(path, O_CREAT | O_WRONLY | O_TRUNC, mode) */
	uint32_t fl = s->flags_arg < 0 ? (uint32_t)(O_CREAT | O_WRONLY | O_TRUNC)
				       : (uint32_t)req->data.args[(int)s->flags_arg];
	mode_t mode = (mode_t)req->data.args[s->flags_arg < 0 ? 1 : (int)s->flags_arg + 1];
	struct reach r;
	int hit, rc, fd;

	/* the kernel refuses these flags before it looks at the path (Linux
	 * 6.4; O_TMPFILE holds O_DIRECTORY's bit) */
	if ((fl & O_CREAT) && (fl & O_DIRECTORY))
		return reply(m, req->id, -EINVAL, 0) == 0 ? 1 : -1;
	where[0] = '\0';
	/* O_CREAT | O_EXCL does not follow a final link either (EEXIST) */
	hit = reaches_denied(m, req, s->at[0][0], s->at[0][1],
			     !(fl & O_NOFOLLOW) && (fl & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL),
			     (fl & O_CREAT) != 0, 0, rel, where, sizeof(where), &r);
	if (hit > 0) {
		reach_close(&r);
		/* nothing there: the kernel's own answer (the cover of a
		 * missing denied name refuses to create it) */
		if (reply(m, req->id, hit == 2 && !(fl & O_CREAT) ? -ENOENT : -EACCES, 0) != 0)
			return -1;
		srt__monitor_event(m, s->name, where);
		return 1;
	}
	if (hit < 0) {
		if (reply(m, req->id, hit, 0) != 0)
			return -1;
		report_lexical(m, req, s->at[0][0], rel, s->name, (fl & SRT_OPEN_WRITE_FLAGS) != 0);
		return 1;
	}
	if (fl & O_PATH) {
		/* the kernel hands over no O_PATH descriptor (ADDFD takes
		 * none): let it make its own. That one reads nothing: a read
		 * through it is an open of /proc/self/fd/N, judged here by the
		 * path the file has then */
		reach_close(&r);
		return reply(m, req->id, 0, 1) == 0 ? 1 : -1;
	}
	/* a call that creates or truncates is not made for nobody (a plain
	 * open for a caller gone meanwhile fails at ADDFD: ENOENT) */
	if ((fl & (O_CREAT | O_TRUNC)) && !still_waiting(m, req->id)) {
		reach_close(&r);
		return 1;
	}
	rc = perform_open(m, req, &r, rel, where, fl, mode, &fd);
	reach_close(&r);
	if (rc == 1)
		return 1;
	if (rc < 0) {
		if (fl & SRT_OPEN_WRITE_FLAGS)
			report_write(m, s->name, where, -rc);
		return reply(m, req->id, rc, 0) == 0 ? 1 : -1;
	}
	rc = answer_fd(m->listener, m->addfd_send, req->id, fd, (fl & O_CLOEXEC) ? O_CLOEXEC : 0);
	close(fd);
	return rc == 0 ? 1 : -1;
}

/* Is the name r reached a mount point in the caller's namespace (what was
 * reached is on another mount than its directory)? rename(2) refuses to
 * move a mount point (EBUSY), but the kernel asks that of the renaming
 * process's own mount namespace, which for this process is not the
 * caller's: the covers and pins the nested init mounts (without
 * --make-dev-proc) are in the caller's alone, and renamed here they would
 * leave a protected name free for the command to replace. Unknown counts
 * as mounted (refused). */
static int mounted_on(const struct reach *r)
{
	struct statx a, b;

	if (r->obj < 0 || r->dir < 0)
		return 0;
	if (statx(r->obj, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) != 0 ||
	    statx(r->dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) != 0 || !(a.stx_mask & STATX_MNT_ID) ||
	    !(b.stx_mask & STATX_MNT_ID))
		return 1;
	return a.stx_mnt_id != b.stx_mnt_id;
}

/* The last call of a link or rename, made by in_domain: 0 or -errno. */
/* Does a hidden record lie strictly below path (an ancestor of a denied
 * name)? */
static int hides_below(const struct srt__monitor *m, const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < m->n; i++)
		if (m->recs[i].state == 'h' && m->recs[i].len > len + 1 &&
		    !strncmp(m->recs[i].path, path, len) && (len == 1 || m->recs[i].path[len] == '/'))
			return 1;
	return 0;
}

/* The path of what r names (its directory and name) as the caller sees
 * it, a directory deeper than PATH_MAX as judged_path tells it: 0, or -1
 * when it cannot be told. */
static int reach_path(const struct srt__monitor *m, const struct reach *r, char *out, size_t outlen)
{
	char dir[PATH_MAX + 8];

	if (r->dir < 0 || judged_path(m, r->dir, dir, sizeof(dir)) < 0)
		return -1;
	return (size_t)snprintf(out, outlen, "%s/%s", strcmp(dir, "/") ? dir : "", r->name) < outlen ? 0 : -1;
}

struct name_act {
	struct reach *r;
	int is_link;
	unsigned flags;
};

static int name_act(void *p)
{
	struct name_act *a = p;
	struct reach *r = a->r;
	int rc;

	if (a->is_link && r[0].dir < 0) {
		/* a descriptor reached through /proc/self/fd/N or named by
		 * an empty path (an O_TMPFILE given a name): linked through
		 * our own descriptor of it */
		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", r[0].obj);
		rc = linkat(AT_FDCWD, self, r[1].dir, r[1].name, AT_SYMLINK_FOLLOW);
	} else if (a->is_link) {
		rc = linkat(r[0].dir, r[0].name, r[1].dir, r[1].name, 0);
	} else {
		rc = (int)syscall(SYS_renameat2, r[0].dir, r[0].name, r[1].dir, r[1].name, a->flags);
	}
	return rc == 0 ? 0 : -errno;
}

/* link, linkat, rename, renameat, renameat2: both names judged, then the
 * call made here on the directories and names judged. 1 when answered, -1
 * when the listener failed. */
static int judge_link_rename(struct srt__monitor *m, const struct seccomp_notif *req,
			     const struct srt__observed_syscall *s)
{
	char rel[2][PATH_MAX], where[2][PATH_MAX * 2], dest[PATH_MAX * 2];
	struct reach r[2];
	int is_link = !strncmp(s->name, "link", 4), op[2][2], follow = 0, hit = 0, i, err = 0, empty_fd = 0;
	unsigned flags = 0;
	struct stat st;

	if (is_link) {
		/* the table names the new link; the existing name is first
		 * (linkat(..., AT_SYMLINK_FOLLOW) links what a link there names) */
		int at = s->name[4] == 'a';

		op[0][0] = at ? 0 : -1;
		op[0][1] = at ? 1 : 0;
		op[1][0] = s->at[0][0];
		op[1][1] = s->at[0][1];
		follow = at && ((uint32_t)req->data.args[4] & AT_SYMLINK_FOLLOW);
		if (at && ((uint32_t)req->data.args[4] & ~(uint32_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)))
			return reply(m, req->id, -EINVAL, 0) == 0 ? 1 : -1;
		/* linkat(fd, "", ..., AT_EMPTY_PATH) gives the caller's open
		 * file a name: the file is the one its descriptor holds (see
		 * reach_own_fd), linked as its /proc/self/fd/<n> with
		 * AT_SYMLINK_FOLLOW would be, which the kernel lets the caller
		 * do for any descriptor it holds. The new name is judged as
		 * any other's. A kernel that refuses an empty path to a
		 * process without CAP_DAC_READ_SEARCH (before 6.10) is
		 * answered as it would answer the command: ENOENT. */
		empty_fd = at && ((uint32_t)req->data.args[4] & AT_EMPTY_PATH) && m->flink;
	} else {
		for (i = 0; i < 2; i++) {
			op[i][0] = s->at[i][0];
			op[i][1] = s->at[i][1];
		}
		if (!strcmp(s->name, "renameat2"))
			flags = (unsigned)req->data.args[4];
	}
	reach_init(&r[0]);
	reach_init(&r[1]);
	where[0][0] = where[1][0] = rel[0][0] = rel[1][0] = '\0';
	for (i = 0; i < 2 && !hit && !err; i++) {
		hit = reaches_denied(m, req, op[i][0], op[i][1], i == 0 && is_link ? follow : NAME_ITSELF, 1,
				     i == 0 && empty_fd, rel[i], where[i], sizeof(where[i]), &r[i]);
		if (hit < 0)
			err = -hit;
		else if (hit > 0 && !(hit == 2 && i == 0))
			err = EACCES;
		else if (hit == 2)
			err = ENOENT;
	}
	if (!hit && !err && r[1].dir >= 0 && reach_path(m, &r[1], dest, sizeof(dest)) != 0)
		err = EACCES; /* its path cannot be read back: refused, never made unjudged */
	else if (!hit && !err && r[1].dir >= 0 && hides_below(m, dest)) {
		/* a link or a directory of the command's moved to a free name
		 * above a denied one (~/.config once the host moved it away):
		 * a host tool that makes the denied path again (mkdir -p
		 * ~/.config/gh) would write into the command's tree */
		snprintf(where[1], sizeof(where[1]), "%s", dest);
		hit = 1;
		err = EACCES;
		i = 2;
	}
	if (hit > 0) {
		reach_close(&r[0]);
		reach_close(&r[1]);
		if (reply(m, req->id, -err, 0) != 0)
			return -1;
		srt__monitor_event(m, s->name, where[i - 1]);
		return 1;
	}
	if (!err && !still_waiting(m, req->id)) {
		reach_close(&r[0]);
		reach_close(&r[1]);
		return 1;
	}
	if (!err && r[0].obj < 0)
		err = ENOENT;
	/* names ending in a slash, as the kernel takes them: the existing
	 * name must be a directory, link(2) makes no such name (EEXIST
	 * where something is, else ENOENT), and rename(2) moves no
	 * non-directory to one (an exchange: not onto a non-directory) */
	/* renameat2's RENAME_NOREPLACE answers for a name there first */
	if (!err && !is_link && (flags & SRT_RENAME_NOREPLACE) && r[1].obj >= 0)
		err = EEXIST;
	for (i = 0; i < 2 && !err; i++) {
		size_t l = strlen(rel[i]);
		int src_dir = r[0].obj >= 0 && fstat(r[0].obj, &st) == 0 && S_ISDIR(st.st_mode);

		if (!l || rel[i][l - 1] != '/')
			continue;
		if (i == 0 || (!is_link && !(flags & SRT_RENAME_EXCHANGE)))
			err = src_dir ? 0 : ENOTDIR;
		else if (is_link)
			err = r[1].obj >= 0 ? EEXIST : ENOENT;
		else if (r[1].obj >= 0 && fstat(r[1].obj, &st) == 0 && !S_ISDIR(st.st_mode))
			err = ENOTDIR;
	}
	if (!err && r[1].dir < 0)
		err = is_link ? EEXIST : EBUSY; /* "/", "..", a magic link */
	if (!err && !is_link && (r[0].dir < 0 || mounted_on(&r[0]) || mounted_on(&r[1])))
		err = EBUSY;
	if (!err) {
		struct name_act a = { r, is_link, flags };

		err = -in_domain(m, name_act, &a);
	}
	reach_close(&r[0]);
	reach_close(&r[1]);
	if (reply(m, req->id, -err, 0) != 0)
		return -1;
	for (i = 0; i < 2 && err; i++) {
		if (where[i][0])
			report_write(m, s->name, where[i], err);
		else
			report_lexical(m, req, op[i][0], rel[i], s->name, 1);
	}
	return 1;
}

struct create_act {
	const char *target; /* a symbolic link's, or NULL */
	int node;           /* mknod: mode and dev are its; else a directory */
	mode_t mode;
	dev_t dev;
	int umask;
	struct reach *r;
};

static int create_act(void *p)
{
	struct create_act *a = p;
	int rc, old;

	if (a->target)
		return symlinkat(a->target, a->r->dir, a->r->name) == 0 ? 0 : -errno;
	old = (int)umask((mode_t)a->umask);
	rc = a->node ? mknodat(a->r->dir, a->r->name, a->mode, a->dev) : mkdirat(a->r->dir, a->r->name, a->mode);
	umask((mode_t)old);
	return rc == 0 ? 0 : -errno;
}

/* symlink, symlinkat, mkdir, mkdirat, mknod, mknodat: a name the command
 * makes at a denied name (free because the host removed what was there, and its
 * cover with it) stays on the host: a link there leads a host tool that
 * makes the denied directory again (mkdir -p ~/.ssh) to wherever the
 * command pointed it, and a directory there takes the host's keys and
 * files (~/.ssh/config) the command put in it before the watcher covered
 * it. A link at a free name above a denied one (~/.config when the host
 * moved it away) would lead the host the same way. The new name judged,
 * then made here on the directory and name judged, so a path rewritten
 * after the judgement changes nothing. 1 when answered, -1 when the
 * listener failed. */
static int judge_create(struct srt__monitor *m, const struct seccomp_notif *req,
			const struct srt__observed_syscall *s)
{
	char rel[PATH_MAX], where[PATH_MAX * 2], target[PATH_MAX];
	int is_link = !strncmp(s->name, "symlink", 7), hit, err = 0;
	int base = s->at[0][0] < 0 ? 1 : 2; /* the mode's argument */
	struct create_act a = { NULL, 0, 0, 0, 077, NULL };
	struct reach r;
	size_t l;

	if (is_link) {
		ssize_t tl;

		if (req->data.args[0] == 0)
			return reply(m, req->id, -EFAULT, 0) == 0 ? 1 : -1;
		tl = read_string((pid_t)req->pid, req->data.args[0], target, sizeof(target));
		if (tl < 0)
			return reply(m, req->id, (int)tl, 0) == 0 ? 1 : -1;
		a.target = target;
	} else {
		a.node = !strncmp(s->name, "mknod", 5);
		a.mode = (mode_t)req->data.args[base] & (a.node ? (S_IFMT | 07777) : 07777);
		a.dev = a.node ? (dev_t)req->data.args[base + 1] : 0;
		a.umask = caller_umask(proc_pid(m, (pid_t)req->pid));
	}
	where[0] = rel[0] = '\0';
	hit = reaches_denied(m, req, s->at[0][0], s->at[0][1], NAME_ITSELF, 1, 0, rel, where, sizeof(where), &r);
	if (hit == 0 && is_link && r.dir >= 0) {
		/* a link at a free name above a denied one; a name whose
		 * path cannot be read back is refused, never made unjudged */
		if (reach_path(m, &r, where, sizeof(where)) != 0) {
			where[0] = '\0';
			err = EACCES;
		} else if (hides_below(m, where))
			hit = 1;
		else
			where[0] = '\0';
	}
	if (hit == 1 && exists_for(m, req, where)) {
		/* something is at the denied name (its cover): the kernel
		 * answers EEXIST before it looks any further, and programs
		 * rely on it (a recursive mkdir of ~/.ssh) */
		reach_close(&r);
		return reply(m, req->id, -EEXIST, 0) == 0 ? 1 : -1;
	}
	if (hit > 0) {
		reach_close(&r);
		if (reply(m, req->id, -EACCES, 0) != 0)
			return -1;
		srt__monitor_event(m, s->name, where);
		return 1;
	}
	if (hit < 0)
		err = -hit;
	if (!err && !still_waiting(m, req->id)) {
		reach_close(&r);
		return 1;
	}
	if (!err && r.dir < 0)
		err = EEXIST; /* "/", "..", a magic link */
	l = strlen(rel);
	if (!err && (is_link || a.node) && l && rel[l - 1] == '/')
		/* the kernel makes no link or node at a name with a trailing
		 * slash (a directory, yes) */
		err = r.obj >= 0 ? EEXIST : ENOENT;
	if (!err) {
		a.r = &r;
		err = -in_domain(m, create_act, &a);
	}
	reach_close(&r);
	if (reply(m, req->id, -err, 0) != 0)
		return -1;
	/* a write the policy refuses is reported as before, but not a name
	 * that exists (the kernel answers EEXIST before any other check) */
	if (err && err != EEXIST && where[0])
		report_write(m, s->name, where, err);
	else if (err && err != EEXIST)
		report_lexical(m, req, s->at[0][0], rel, s->name, 1);
	return 1;
}

/* The calls judged by a denied name (with SRT_MONITOR_READS): an open, a
 * link, a symbolic link, a directory or node made, or a rename.
 * Each is refused with EACCES and reported when it reaches a denied name,
 * and otherwise performed here (see above). 1 when answered, 0 when not judged, -1 when the listener failed. */
static int judge_denied(struct srt__monitor *m, const struct seccomp_notif *req,
			const struct srt__observed_syscall *s)
{
	if (s->kind == SRT_OBS_OPEN || !strcmp(s->name, "creat"))
		return judge_open(m, req, s);
	if (!strcmp(s->name, "linkat") || !strcmp(s->name, "link") || !strncmp(s->name, "rename", 6))
		return judge_link_rename(m, req, s);
	if (!strncmp(s->name, "symlink", 7) || !strncmp(s->name, "mkdir", 5) || !strncmp(s->name, "mknod", 5))
		return judge_create(m, req, s);
	return 0;
}

static int handle_one(struct srt__monitor *m);

int srt__monitor_handle(struct srt__monitor *m)
{
	int rc;

	if (domain_failed(m))
		rc = -1; /* an answer of the thread under the layer found the listener unusable */
	else
		rc = handle_one(m);
	if (rc < 0)
		domain_idle(m); /* nothing uses the listener once it is given up */
	return rc;
}

static int handle_one(struct srt__monitor *m)
{
	const struct srt__observed_syscall *s;
	struct seccomp_notif *req = m->req;
	char path[2][PATH_MAX * 2];
	int have[2] = { 0, 0 }, denied[2] = { 0, 0 }, write = 1, i, idx;
	uint64_t id;

	memset(req, 0, m->req_size);
	if (ioctl(m->listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
		struct pollfd p = { m->listener, POLLIN, 0 };

		if (errno != EINTR && errno != ENOENT)
			return -1;
		/* ENOENT: the caller went away before we looked, or nobody
		 * uses the filter any more: then the listener says POLLHUP
		 * (and RECV would fail at once, forever) */
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLIN))
			return -1;
		return 0;
	}
	id = req->id;
	idx = req->data.nr >= 0 && req->data.nr < MAX_NRS ? m->by_nr[req->data.nr] : 0;
	if (!idx) {
		/* not a call the filter notifies: refuse (fail closed) */
		return reply(m, id, -EPERM, 0);
	}
	s = &srt__observed_syscalls[idx - 1];
	if (s->kind == SRT_OBS_CONNECT)
		return unix_connect(m, req);
	if (s->kind == SRT_OBS_SOCKET && m->n_unix && (uint32_t)req->data.args[0] == AF_UNIX &&
	    !is_nscd_probe(m, req))
		return unix_socket(m, req);
	if (SRT_OBS_REFUSED(s->kind)) {
		/* the enforcement itself: always refused */
		int quiet = s->kind == SRT_OBS_SOCKET && is_nscd_probe(m, req);

		if (reply(m, id, -EPERM, 0) != 0)
			return -1;
		if (quiet)
			return 0;
		if (s->kind == SRT_OBS_IOURING) {
			srt__monitor_event(m, s->name, "");
		} else if (s->kind == SRT_OBS_SOCKETPAIR) {
			srt__monitor_event(m, s->name, "AF_UNIX datagram");
		} else {
			uint32_t dom = (uint32_t)req->data.args[0];
			char d[32];

			if (dom == AF_UNIX)
				snprintf(d, sizeof(d), "AF_UNIX");
			else if (dom == AF_VSOCK)
				snprintf(d, sizeof(d), "AF_VSOCK");
			else
				snprintf(d, sizeof(d), "domain %u", dom);
			srt__monitor_event(m, s->name, d);
		}
		return 0;
	}

	/* a read open, a link or a rename that reaches a denied name is
	 * refused here, whether its cover is in place or not */
	if (m->flags & SRT_MONITOR_READS) {
		int done = judge_denied(m, req, s);

		if (done)
			return done > 0 ? 0 : -1;
	}
	/* any other file syscall goes on unchanged, whatever we find */
	if (s->kind == SRT_OBS_OPEN)
		write = ((uint32_t)req->data.args[(int)s->flags_arg] & SRT_OPEN_WRITE_FLAGS) != 0;
	if (write ? !(m->flags & SRT_MONITOR_WRITES) : !(m->flags & SRT_MONITOR_READS))
		return reply(m, id, 0, 1);
	for (i = 0; i < 2; i++) {
		if (s->at[i][1] < 0)
			continue;
		have[i] = operand_path(m, req, s->at[i][0], s->at[i][1], path[i], sizeof(path[i])) == 0;
		denied[i] = have[i] && srt__monitor_denied(m, path[i], write);
	}
	/* a call that makes a new name fails with EEXIST where the name is
	 * there already (mkdir -p walks every parent): nothing was refused */
	for (i = 0; i < 2; i++)
		if (denied[i] && creates_name(s->name) && exists_for(m, req, path[i]))
			denied[i] = 0;
	/* the pid we read from must still be the caller when we report */
	if ((denied[0] || denied[1]) && notif_ioctl(m->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
		denied[0] = denied[1] = 0;
	if (reply(m, id, 0, 1) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (denied[i]) {
			srt__monitor_event(m, s->name, path[i]);
			break; /* one event per call */
		}
	return 0;
}
