/* The violation monitor: the policy srt writes from the mount words, the
 * helper's classification, path joining, event lines (escaping, dedup,
 * limit), and a live observer in forked processes: file syscalls go on
 * with their own result, AF_UNIX sockets are refused with EPERM, and
 * every denial comes out as one line; with an allowed socket path, the
 * monitor makes the socket and performs the connects itself; with denyRead
 * the monitor performs the read opens, links and renames itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <unistd.h>

#include "tap.h"
#include "backends/linux-bwrap/init/monitor.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-bwrap/procargs.h"

static struct srt__monitor *parse_records(const char *flags, const char *const *recs, int events_fd)
{
	char buf[8192];
	size_t o = 0;
	struct srt__monitor *m = NULL;
	char err[256];

	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", SRT_MONITOR_MAGIC) + 1;
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", flags) + 1;
	for (; *recs; recs++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", *recs) + 1;
	if (srt__monitor_parse(buf, o, events_fd, 0, &m, err, sizeof(err)) != 0) {
		printf("# parse: %s\n", err);
		return NULL;
	}
	return m;
}

static void test_classify(void)
{
	static const char *const recs[] = {
		"r/", "w/work", "h/home/u/.ssh", "w/home/u/.ssh/pub", "p/work/.bashrc",
		"r/work/.git/hooks", "x/dev", "x/proc", "w/work/sub", "r/work", NULL,
	};
	struct srt__monitor *m = parse_records("f3", recs, -1);

	ok(m != NULL, "a valid policy parses");
	if (!m)
		return;
	ok(srt__monitor_flags(m) == 3, "flags read");
	/* "/work" is re-mounted read-only after "/work/sub": the later wins */
	ok(srt__monitor_denied(m, "/etc/passwd", 1) && !srt__monitor_denied(m, "/etc/passwd", 0),
	   "read-only root: write denied, read allowed");
	ok(srt__monitor_denied(m, "/work/a.txt", 1), "a later read-only mount hides an earlier writable one");
	ok(srt__monitor_denied(m, "/work/sub/x", 1), "... and everything mounted below it before");
	ok(srt__monitor_denied(m, "/home/u/.ssh/id", 0) && srt__monitor_denied(m, "/home/u/.ssh/id", 1),
	   "hidden: read and write denied");
	ok(srt__monitor_denied(m, "/home/u/.ssh", 0), "hidden: the directory itself too");
	ok(!srt__monitor_denied(m, "/home/u/.ssh/pub/k", 1), "a re-opened writable mount inside a hidden one");
	ok(!srt__monitor_denied(m, "/home/u/.sshx", 0), "prefixes match whole components only");
	ok(!srt__monitor_denied(m, "/dev/null", 1) && !srt__monitor_denied(m, "/proc/self/fd", 1),
	   "the sandbox's own /dev and /proc are never reported");
	srt__monitor_free(m);

	{
		static const char *const r2[] = { "r/", "w/work", "p/work/.bashrc", "w/work/ok", NULL };

		m = parse_records("f1", r2, -1);
		ok(m && srt__monitor_denied(m, "/work/.bashrc", 1) && !srt__monitor_denied(m, "/work/.bashrc", 0),
		   "placeholder: write denied, read not reported");
		ok(m && !srt__monitor_denied(m, "/work/ok/f", 1) && !srt__monitor_denied(m, "/work/x", 1),
		   "write roots allow writes");
		srt__monitor_free(m);
	}
	{
		static const char *const bad1[] = { "q/x", NULL };
		static const char *const bad2[] = { "rrel", NULL };
		static const char *const bad3[] = { "r/a/", NULL };
		char err[128];
		struct srt__monitor *mm = NULL;

		ok(parse_records("f1", bad1, -1) == NULL, "unknown state letter refused");
		ok(parse_records("f1", bad2, -1) == NULL, "relative path refused");
		ok(parse_records("f1", bad3, -1) == NULL, "trailing slash refused");
		ok(parse_records("f9", bad3 + 1, -1) == NULL, "bad flags refused");
		ok(srt__monitor_parse("srt-monitor-policy 2\0f0", 23, -1, 0, &mm, err, sizeof(err)) != 0,
		   "wrong magic refused");
		ok(srt__monitor_parse(SRT_MONITOR_MAGIC "\0f0", sizeof(SRT_MONITOR_MAGIC) + 2, -1, 0, &mm, err,
				      sizeof(err)) != 0,
		   "unterminated record refused");
	}
}

static void test_join(void)
{
	char out[64];

	ok(srt__monitor_join("/a/b", "c", out, sizeof(out)) > 0 && !strcmp(out, "/a/b/c"), "relative joined");
	ok(srt__monitor_join("/a/b", "/x//y/./z/", out, sizeof(out)) > 0 && !strcmp(out, "/x/y/z"),
	   "absolute normalised (%s)", out);
	ok(srt__monitor_join("/a/b", "../../../c/..", out, sizeof(out)) > 0 && !strcmp(out, "/"),
	   "'..' stops at / (%s)", out);
	ok(srt__monitor_join("/a", "", out, sizeof(out)) > 0 && !strcmp(out, "/a"), "empty: the base");
	ok(srt__monitor_join("/a", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", out,
			     sizeof(out)) < 0,
	   "too long: refused, no overflow");
}

static int read_all(int fd, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;

	while (have < len - 1 && (n = read(fd, buf + have, len - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	return (int)have;
}

static void test_events(void)
{
	static const char *const recs[] = { "r/", NULL };
	static char buf[1 << 20];
	struct srt__monitor *m;
	int p[2], i, fl, lines = 0;
	char *q;

	if (pipe(p) != 0)
		return;
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
	m = parse_records("f1", recs, p[1]);
	if (!m)
		return;
	ok(srt__monitor_event(m, "openat", "/etc/x") == 1, "an event is written");
	ok(srt__monitor_event(m, "openat", "/etc/x") == 0, "the same line again is not");
	ok(srt__monitor_event(m, "openat", "/a\nb\\c") == 1, "a path with a newline");
	ok(srt__monitor_event(m, "io_uring_setup", "") == 1, "an event without a path");
	for (i = 0; i < 3000; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/f%d", i);
		srt__monitor_event(m, "unlinkat", path);
	}
	srt__monitor_finish(m, 100);
	close(p[1]);
	read_all(p[0], buf, sizeof(buf));
	close(p[0]);
	ok(!strncmp(buf, "deny openat /etc/x\ndeny openat /a\\x0ab\\\\c\ndeny io_uring_setup\n", 62),
	   "lines: escaped, one per event");
	for (q = buf; (q = strchr(q, '\n')); q++)
		lines++;
	/* the bucket refills SRT_MONITOR_RATE a second: a few more may pass */
	ok(lines >= SRT_MONITOR_MAX_EVENTS + 1 && lines <= SRT_MONITOR_MAX_EVENTS + 1 + 20,
	   "a burst of at most %d events and one note (%d lines)", SRT_MONITOR_MAX_EVENTS, lines);
	q = strstr(buf, "were not reported");
	ok(q && !strstr(q + 1, "were not reported"), "one note says events were dropped");
	srt__monitor_free(m);

	/* a full pipe: events are dropped, never waited for */
	if (pipe(p) != 0)
		return;
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	m = parse_records("f1", recs, p[1]);
	if (!m)
		return;
	for (i = 0; i < 200; i++) {
		char path[3000];
		memset(path, 'a', sizeof(path) - 1);
		path[0] = '/';
		path[sizeof(path) - 1] = '\0';
		snprintf(path + 2900, 20, "%d", i);
		srt__monitor_event(m, "openat", path);
	}
	ok(1, "a full pipe does not block the monitor");
	/* drain; then the next event brings the note */
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	srt__monitor_event(m, "openat", "/after");
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) & ~O_NONBLOCK);
	read_all(p[0], buf, sizeof(buf));
	ok(contains(buf, "deny openat /after") && contains(buf, "were not reported"),
	   "after a full pipe: the next event and one note");
	close(p[0]);
	srt__monitor_free(m);
}

static void test_policy_from_words(void)
{
	static const char *const words[] = {
		"--ro-bind", "/", "/", "--ro-bind", "/w", "/w", "--bind", "/w/p", "/w/p",
		"--perms", "0000", "--tmpfs", "/h/.ssh", "--remount-ro", "/h/.ssh",
		"--perms", "0755", "--tmpfs", "/h/s", "--ro-bind", "/h/s/k", "/h/s/k", "--remount-ro", "/h/s",
		"--bind", "/h/s/k", "/h/s/k",
		"--ro-bind", "/dev/null", "/w/p/.bashrc", "--ro-bind", "/dev/null", "/w/p/.zshrc",
		NULL,
	};
	struct srt__strv w = { 0 }, created = { 0 };
	struct srt_policy pol;
	struct srt_diag diag;
	struct srt__monitor *m = NULL;
	char *buf = NULL, err[128];
	size_t len = 0, i;
	unsigned fl = 0;
	int rc;

	memset(&pol, 0, sizeof(pol));
	memset(&diag, 0, sizeof(diag));
	for (i = 0; words[i]; i++)
		srt__strv_push(&w, words[i]);
	srt__strv_push(&created, "/w/p/.zshrc");
	rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, &created, &buf, &len, &fl, &diag);
	ok(rc == 0 && buf && fl == 3, "policy built from mount words (flags %u)", fl);
	if (rc == 0 && srt__monitor_parse(buf, len, -1, 0, &m, err, sizeof(err)) == 0) {
		ok(srt__monitor_flags(m) == (SRT_MONITOR_WRITES | SRT_MONITOR_READS), "observes writes and reads");
		ok(srt__monitor_denied(m, "/etc/x", 1) && !srt__monitor_denied(m, "/w/p/x", 1),
		   "read-only root, writable root");
		ok(srt__monitor_denied(m, "/h/.ssh/id", 0), "a hidden directory");
		ok(srt__monitor_denied(m, "/h/s/other", 0) && !srt__monitor_denied(m, "/h/s/k/f", 1),
		   "a re-open inside a hidden directory");
		ok(srt__monitor_denied(m, "/w/p/.bashrc", 0) && srt__monitor_denied(m, "/w/p/.bashrc", 1),
		   "an existing file hidden by /dev/null");
		ok(!srt__monitor_denied(m, "/w/p/.zshrc", 0) && srt__monitor_denied(m, "/w/p/.zshrc", 1),
		   "a placeholder: write denied, read not reported");
		ok(!srt__monitor_denied(m, "/dev/tty", 1), "/dev is the sandbox's");
		srt__monitor_free(m);
	} else {
		ok(0, "the helper parses what srt writes (%s)", err);
	}
	free(buf);
	buf = NULL;

	/* the same files left to the helper (--hide-file): the same policy */
	{
		struct srt__strv w2 = { 0 }, hid = { 0 };
		char *buf2 = NULL;
		size_t len2 = 0;
		unsigned fl2 = 0;

		for (i = 0; i + 6 < w.n; i++)
			srt__strv_push(&w2, w.v[i]);
		srt__strv_push(&hid, "/w/p/.bashrc");
		srt__strv_push(&hid, "/w/p/.zshrc");
		rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, &created, &buf, &len, &fl, &diag);
		if (rc == 0)
			rc = srt__bwrap_monitor_policy(&pol, &w2, &hid, NULL, NULL, &created, &buf2, &len2,
						       &fl2, &diag);
		ok(rc == 0 && len == len2 && fl == fl2 && !memcmp(buf, buf2, len),
		   "files the helper hides: recorded as their /dev/null binds were");
		free(buf);
		free(buf2);
		buf = NULL;
		srt__strv_release(&w2);
		srt__strv_release(&hid);
	}

	srt__strv_push(&w, "--overlay-src");
	srt__strv_push(&w, "/x");
	rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, &created, &buf, &len, &fl, &diag);
	ok(rc == 0 && fl == 0 && len > 22 && !strcmp(buf + 21, "f0") && len == 24,
	   "an unknown mount word turns the file monitor off");
	free(buf);
	srt__strv_release(&w);
	srt__strv_release(&created);

	{
		static const char *const dis[] = { "--bind", "/", "/", NULL };

		memset(&w, 0, sizeof(w));
		for (i = 0; dis[i]; i++)
			srt__strv_push(&w, dis[i]);
		rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, NULL, &buf, &len, &fl, &diag);
		ok(rc == 0 && fl == 0 && !strcmp(buf + 21, "f0"), "filesystem.disabled: nothing to observe");
		free(buf);
		srt__strv_release(&w);
	}
}

/* network.allowUnixSockets: 'u' records, spelled with the real directory;
 * a path the mounts hide is refused by name; the helper checks the records
 * against the flag and sun_path's size. */
static void test_unix_policy(void)
{
	static const char *const words[] = {
		"--ro-bind", "/", "/", "--perms", "0000", "--tmpfs", "/h/.ssh", "--remount-ro", "/h/.ssh",
		NULL,
	};
	char dir[] = "/tmp/srt-test-monitor-XXXXXX", link[64], sock[128], want[128], err[128];
	struct srt__strv w = { 0 };
	struct srt_rule rules[2];
	struct srt_policy pol;
	struct srt_diag diag;
	struct srt__monitor *m = NULL;
	char *buf = NULL, *const *paths;
	size_t len = 0, n = 0, i;
	unsigned fl = 0;
	int rc;

	memset(&pol, 0, sizeof(pol));
	memset(&diag, 0, sizeof(diag));
	for (i = 0; words[i]; i++)
		srt__strv_push(&w, words[i]);
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(link, sizeof(link), "%s.link", dir);
	unlink(link);
	if (symlink(dir, link) != 0)
		ok(0, "symlink");
	snprintf(sock, sizeof(sock), "%s/s.sock", link);
	snprintf(want, sizeof(want), "%s/s.sock", dir);
	rules[0].path = sock;
	rules[0].flags = 0;
	rules[0].origin = "network.allowUnixSockets[0]";
	pol.allow_unix_sockets.v = rules;
	pol.allow_unix_sockets.n = 1;
	rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, NULL, &buf, &len, &fl, &diag);
	ok(rc == 0 && (fl & 4), "an allowed socket path sets the flag (flags %u)", fl);
	if (rc == 0 && srt__monitor_parse(buf, len, -1, 0, &m, err, sizeof(err)) == 0) {
		paths = srt__monitor_unix_paths(m, &n);
		ok(srt__monitor_flags(m) & SRT_MONITOR_UNIX_PATHS, "the helper sees the flag");
		ok(n == 1 && !strcmp(paths[0], want), "spelled with the directory's real path (%s)",
		   n ? paths[0] : "none");
		ok(!srt__monitor_denied(m, "/etc/x", 0) && srt__monitor_denied(m, "/h/.ssh/x", 0),
		   "the mount records still apply");
		srt__monitor_free(m);
	} else {
		ok(0, "the helper parses what srt writes (%s)", rc ? diag.message : err);
	}
	free(buf);
	buf = NULL;

	pol.allow_all_unix_sockets = 1;
	rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, NULL, &buf, &len, &fl, &diag);
	ok(rc == 0 && !(fl & 4) && !memmem(buf, len, "\0u/", 3), "allowAllUnixSockets: no records");
	free(buf);
	buf = NULL;
	pol.allow_all_unix_sockets = 0;

	rules[1].path = "/h/.ssh/agent.sock";
	rules[1].flags = 0;
	rules[1].origin = "network.allowUnixSockets[1]";
	pol.allow_unix_sockets.n = 2;
	rc = srt__bwrap_monitor_policy(&pol, &w, NULL, NULL, NULL, NULL, &buf, &len, &fl, &diag);
	ok(rc != 0 && strstr(diag.message, "/h/.ssh/agent.sock") && strstr(diag.message, "hides"),
	   "a socket in a hidden directory is refused by name (%s)", rc ? diag.message : "accepted");
	free(buf);
	buf = NULL;

	{
		static const char *const u_no_flag[] = { "u/run/x.sock", NULL };
		static const char *const flag_no_u[] = { "r/", NULL };
		static const char *const u_long[] = {
			"u/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock",
			NULL,
		};
		static const char *const u_rel[] = { "urun/x.sock", NULL };

		ok(!parse_records("f0", u_no_flag, -1), "a 'u' record without the flag is refused");
		ok(!parse_records("f4", flag_no_u, -1), "the flag without a 'u' record is refused");
		ok(!parse_records("f4", u_long, -1), "a path longer than sun_path holds is refused");
		ok(!parse_records("f4", u_rel, -1), "a relative path is refused");
	}
	unlink(link);
	rmdir(dir);
	srt__strv_release(&w);
}

/* ---- live: a forked child under the observer ------------------------------ */

static int live_lfd = -1;

/* poll first: the listener says POLLHUP once the child is gone */
static void *serve(void *arg)
{
	struct srt__monitor *m = arg;

	for (;;) {
		struct pollfd p = { live_lfd, POLLIN, 0 };

		if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLIN))
			break;
		if (srt__monitor_handle(m) != 0)
			break;
	}
	return NULL;
}

static int send_fd(int sock, int fd)
{
	char b = 'L';
	struct iovec iov = { &b, 1 };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr msg;
	struct cmsghdr *c;

	memset(&msg, 0, sizeof(msg));
	memset(cbuf, 0, sizeof(cbuf));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char b;
	struct iovec iov = { &b, 1 };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr msg;
	struct cmsghdr *c;
	int fd = -1;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The frame of the live tests: body(arg) runs in a child under an observer
 * of `observe` (SRT_OBSERVE_*), whose listener m serves here, and gives
 * back its word of failed bits. That word, -1 when the child gave none
 * (its status then said on a comment line), or -2 when the listener was
 * not handed over. A call of the child's never answered ends the child
 * by its alarm, not the test by the harness's 120 s. */
static int live_run(const char *name, struct srt__monitor *m, unsigned observe, int (*body)(void *),
		    void *arg)
{
	char step[128];
	int sv[2], lfd, st = 0, bad = -1, handed;
	pthread_t t;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		alarm(20);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (srt__seccomp_install_observer(observe, &lfd, step, sizeof(step)) != 0 ||
		    send_fd(sv[1], lfd) != 0)
			_exit(90);
		close(lfd);
		bad = body(arg);
		/* more bits than an exit status holds: the word goes back whole */
		_exit(write(sv[1], &bad, sizeof(bad)) == (ssize_t)sizeof(bad) ? 0 : 1);
	}
	close(sv[1]);
	lfd = pid > 0 ? recv_fd(sv[0]) : -1;
	live_lfd = lfd;
	handed = lfd >= 0 && srt__monitor_attach(m, lfd) == 0;
	ok(handed, "%s: the child hands over its listener", name);
	if (!handed) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(sv[0]);
		if (lfd >= 0)
			close(lfd);
		return -2;
	}
	pthread_create(&t, NULL, serve, m);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || read(sv[0], &bad, sizeof(bad)) != (ssize_t)sizeof(bad)) {
		bad = -1;
		printf("# %s: the child %s %d\n", name, WIFSIGNALED(st) ? "was killed by signal" : "exited with",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	pthread_join(t, NULL);
	close(lfd);
	close(sv[0]);
	return bad;
}

struct live_paths {
	const char *hidden, *allowed;
};

static int live_body(void *arg)
{
	const struct live_paths *lp = arg;
	int fd, bad = 0;

	/* allowed: created for real */
	fd = open(lp->allowed, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		bad |= 1;
	else
		close(fd);
	/* hidden path: the kernel's own answer (ENOENT), unchanged */
	if (open(lp->hidden, O_RDONLY) >= 0 || errno != ENOENT)
		bad |= 2;
	/* a write outside the write roots: EACCES/EROFS from the kernel
	 * would come from mounts; here the host lets root write /tmp,
	 * so only check that it is reported (the file is removed) */
	if (mkdir("/srt-mon-test-nonexistent-dir/x", 0700) == 0 || errno != ENOENT)
		bad |= 4;
	if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != EPERM)
		bad |= 8;
	if (socket(AF_INET, SOCK_DGRAM, 0) < 0)
		bad |= 16;
	return bad;
}

static void test_live(void)
{
	char dir[] = "/tmp/srt-mon-XXXXXX", hidden[128], allowed[128], rec1[160], rec2[160], step[128];
	struct live_paths lp = { hidden, allowed };
	const char *recs[4];
	struct srt__monitor *m;
	int ev[2], bad;
	char *q;
	static char buf[8192];

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(hidden, sizeof(hidden), "%s/hidden", dir);
	snprintf(allowed, sizeof(allowed), "%s/ok", dir);
	snprintf(rec1, sizeof(rec1), "w%s", dir);
	snprintf(rec2, sizeof(rec2), "h%s", hidden);
	recs[0] = "r/";
	recs[1] = rec1;
	recs[2] = rec2;
	recs[3] = NULL;
	if (pipe(ev) != 0)
		return;
	fcntl(ev[1], F_SETFL, O_NONBLOCK);
	m = parse_records("f3", recs, ev[1]);
	if (!m)
		return;
	bad = live_run("live", m, SRT_OBSERVE_WRITES | SRT_OBSERVE_READS | SRT_OBSERVE_UNIX, live_body, &lp);
	if (bad == -2)
		return;
	ok(bad == 0, "outcomes: allowed write done, hidden read ENOENT, AF_UNIX EPERM, inet allowed "
		     "(failed bits %d, -1 for none)",
	   bad);
	ok(access(allowed, F_OK) == 0, "the allowed file exists");
	srt__monitor_free(m);
	close(ev[1]);
	{
		int fl = fcntl(ev[0], F_GETFL);
		fcntl(ev[0], F_SETFL, fl | O_NONBLOCK);
		read_all(ev[0], buf, sizeof(buf));
	}
	ok(contains(buf, "deny openat ") && contains(buf, "/hidden\n"), "the hidden read is reported");
	ok(contains(buf, "deny mkdir /srt-mon-test-nonexistent-dir/x\n") ||
		   contains(buf, "deny mkdirat /srt-mon-test-nonexistent-dir/x\n"),
	   "the write outside the roots is reported");
	ok(contains(buf, "deny socket AF_UNIX\n"), "the refused socket is reported");
	ok(!contains(buf, "/ok"), "the allowed write is not");
	for (q = strtok(buf, "\n"); q; q = strtok(NULL, "\n"))
		printf("# event: %s\n", q);
	unlink(allowed);
	rmdir(dir);
}

/* Allowed Unix socket paths, live: the child's stream socket is made by
 * the monitor, its connect to the allowed path is performed by the
 * monitor, another path, an abstract address and a datagram socket are
 * refused, and a TCP connect still works (performed by the monitor too). */
struct live_socks {
	struct sockaddr_un ok, no, abs;
};

static int live_unix_body(void *arg)
{
	const struct live_socks *ls = arg;
	struct sockaddr_in in;
	socklen_t il = sizeof(in);
	int s, li, bad = 0;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		bad |= 1;
	else if (connect(s, (const struct sockaddr *)&ls->ok, sizeof(ls->ok)) != 0)
		bad |= 2;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)&ls->no, sizeof(ls->no)) == 0 || errno != EACCES)
		bad |= 4;
	if (socket(AF_UNIX, SOCK_DGRAM, 0) >= 0 || errno != EPERM)
		bad |= 8;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)&ls->abs,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 18)) == 0 ||
	    errno != EPERM)
		bad |= 16;
	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	li = socket(AF_INET, SOCK_STREAM, 0);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (li < 0 || s < 0 || bind(li, (struct sockaddr *)&in, sizeof(in)) != 0 || listen(li, 1) != 0 ||
	    getsockname(li, (struct sockaddr *)&in, &il) != 0 ||
	    connect(s, (struct sockaddr *)&in, sizeof(in)) != 0)
		bad |= 32;
	return bad;
}

static void test_live_unix(void)
{
	char dir[] = "/tmp/srt-monu-XXXXXX", okp[64], nop[64], rec[80], step[128];
	const char *recs[2];
	struct live_socks ls;
	struct srt__monitor *m;
	int ev[2], l_ok, l_no, c, bad;
	static char buf[8192];

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(okp, sizeof(okp), "%s/ok.sock", dir);
	snprintf(nop, sizeof(nop), "%s/no.sock", dir);
	snprintf(rec, sizeof(rec), "u%s", okp);
	recs[0] = rec;
	recs[1] = NULL;
	memset(&ls.ok, 0, sizeof(ls.ok));
	ls.ok.sun_family = AF_UNIX;
	ls.no = ls.ok;
	ls.abs = ls.ok;
	snprintf(ls.ok.sun_path, sizeof(ls.ok.sun_path), "%s", okp);
	snprintf(ls.no.sun_path, sizeof(ls.no.sun_path), "%s", nop);
	memcpy(ls.abs.sun_path, "\0srt-monu-abstract", 18);
	l_ok = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	l_no = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (bind(l_ok, (struct sockaddr *)&ls.ok, sizeof(ls.ok)) != 0 || listen(l_ok, 8) != 0 ||
	    bind(l_no, (struct sockaddr *)&ls.no, sizeof(ls.no)) != 0 || listen(l_no, 8) != 0) {
		ok(0, "host listeners");
		return;
	}
	if (pipe(ev) != 0)
		return;
	fcntl(ev[1], F_SETFL, O_NONBLOCK);
	m = parse_records("f4", recs, ev[1]);
	ok(m != NULL, "a policy with an allowed socket path parses");
	if (!m)
		return;
	bad = live_run("unix", m, SRT_OBSERVE_UNIX | SRT_OBSERVE_CONNECT, live_unix_body, &ls);
	if (bad == -2)
		return;
	ok(bad == 0,
	   "socket made, allowed path connected, other path EACCES, datagram and abstract EPERM, TCP "
	   "connected (failed bits %d, -1 for none)",
	   bad);
	c = accept(l_ok, NULL, NULL);
	ok(c >= 0, "the allowed server was reached");
	if (c >= 0)
		close(c);
	c = accept(l_no, NULL, NULL);
	ok(c < 0 && errno == EAGAIN, "the other server was not");
	srt__monitor_free(m);
	close(ev[1]);
	fcntl(ev[0], F_SETFL, fcntl(ev[0], F_GETFL) | O_NONBLOCK);
	read_all(ev[0], buf, sizeof(buf));
	ok(contains(buf, "deny connect ") && contains(buf, "/no.sock\n"), "the refused path is reported");
	close(l_ok);
	close(l_no);
	unlink(okp);
	unlink(nop);
	rmdir(dir);
}

/* With denyRead (SRT_MONITOR_READS), the read and O_PATH opens, links and
 * renames are performed by the monitor and their files handed over: each
 * gives what the kernel would (flags, close-on-exec, the caller's umask,
 * EEXIST, ELOOP, a FIFO waiting for its writer, O_TMPFILE), and a hidden
 * name is refused for a link as for a read. */
/* In a live child: a read open of the FIFO at path, whose writer (a child
 * of its own, a caller too) comes usec later and writes "F". 0 when the
 * byte was read and the writer did its part. */
static int fifo_read_late_writer(const char *path, useconds_t usec)
{
	int fd, st = 0, bad = 0;
	char b;
	pid_t w = fork();

	if (w == 0) {
		int wf;

		usleep(usec);
		wf = open(path, O_WRONLY);
		_exit(wf >= 0 && write(wf, "F", 1) == 1 ? 0 : 1);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &b, 1) != 1 || b != 'F')
		bad = 1;
	close(fd);
	waitpid(w, &st, 0);
	return bad || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

static int live_perform_body(void *arg)
{
	char (*p)[200] = arg; /* the names of test_live_perform, p[8] the directory */
	int fd, bad = 0, st = 0;
	struct stat sb;
	char b[8];
	pid_t w;

	umask(027);
	fd = open(p[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, b, 3) != 3 || memcmp(b, "OK\n", 3) != 0 ||
	    !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
		bad |= 1;
	close(fd);
	fd = open(p[1], O_RDONLY);
	if (fd < 0 || (fcntl(fd, F_GETFD) & FD_CLOEXEC))
		bad |= 2;
	close(fd);
	fd = open(p[2], O_RDWR | O_CREAT, 0666);
	if (fd < 0 || fstat(fd, &sb) != 0 || (sb.st_mode & 0777) != 0640)
		bad |= 4;
	close(fd);
	if (open(p[2], O_RDWR | O_CREAT | O_EXCL, 0600) >= 0 || errno != EEXIST)
		bad |= 8;
	fd = open(p[3], O_PATH | O_NOFOLLOW);
	if (fd < 0 || fstatat(fd, "", &sb, AT_EMPTY_PATH) != 0 || !S_ISLNK(sb.st_mode))
		bad |= 16;
	close(fd);
	if (open(p[3], O_RDONLY | O_NOFOLLOW) >= 0 || errno != ELOOP)
		bad |= 32;
	if (open(p[0], O_RDONLY) >= 0 || errno != EACCES)
		bad |= 64;
	/* a FIFO read open waits for its writer, itself a caller */
	if (fifo_read_late_writer(p[4], 200000) != 0)
		bad |= 128;
	if (link(p[1], p[5]) != 0 || rename(p[5], p[6]) != 0 || access(p[6], F_OK) != 0)
		bad |= 256;
	if (link(p[0], p[7]) == 0 || errno != EACCES || rename(p[0], p[7]) == 0 || errno != EACCES)
		bad |= 512;
	fd = open(p[8], O_RDWR | O_TMPFILE, 0600);
	if (fd < 0 || write(fd, "T", 1) != 1)
		bad |= 1024;
	close(fd);
	fd = open(p[8], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || open(p[1], O_RDONLY | O_DIRECTORY) >= 0 || errno != ENOTDIR)
		bad |= 2048;
	close(fd);
	fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0 || read(fd, b, 5) != 5 || memcmp(b, "Name:", 5) != 0)
		bad |= 4096;
	close(fd);
	/* a write-only creating open is made here too: the caller's
	 * umask, and the hidden name refused */
	unlink(p[2]);
	fd = open(p[2], O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, "W", 1) != 1 || fstat(fd, &sb) != 0 || (sb.st_mode & 0777) != 0640)
		bad |= 8192;
	close(fd);
	if (open(p[0], O_WRONLY | O_CREAT | O_TRUNC, 0600) >= 0 || errno != EACCES)
		bad |= 16384;
	/* a FIFO write open (a shell's "> fifo": O_CREAT) waits for
	 * its reader, itself a caller that comes after it */
	w = fork();
	if (w == 0) {
		int rf;

		usleep(200000);
		rf = open(p[4], O_RDONLY);
		_exit(rf >= 0 && read(rf, b, 1) == 1 && b[0] == 'G' ? 0 : 1);
	}
	fd = open(p[4], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "G", 1) != 1)
		bad |= 32768;
	close(fd);
	waitpid(w, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 32768;
	return bad;
}

static void test_live_perform(void)
{
	char dir[] = "/tmp/srt-monp-XXXXXX", rec1[240], rec2[240], step[128], p[9][200];
	const char *recs[4];
	struct srt__monitor *m;
	int bad;

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(p[0], sizeof(p[0]), "%s/hidden", dir);
	snprintf(p[1], sizeof(p[1]), "%s/ok", dir);
	snprintf(p[2], sizeof(p[2]), "%s/new", dir);
	snprintf(p[3], sizeof(p[3]), "%s/lnk", dir);
	snprintf(p[4], sizeof(p[4]), "%s/fifo", dir);
	snprintf(p[5], sizeof(p[5]), "%s/hard", dir);
	snprintf(p[6], sizeof(p[6]), "%s/moved", dir);
	snprintf(p[7], sizeof(p[7]), "%s/hard2", dir);
	snprintf(p[8], sizeof(p[8]), "%s", dir);
	snprintf(rec1, sizeof(rec1), "w%s", dir);
	snprintf(rec2, sizeof(rec2), "h%s", p[0]);
	recs[0] = "r/";
	recs[1] = rec1;
	recs[2] = rec2;
	recs[3] = NULL;
	{
		FILE *f = fopen(p[1], "w");
		if (!f)
			return;
		fputs("OK\n", f);
		fclose(f);
		f = fopen(p[0], "w");
		if (!f)
			return;
		fputs("SECRET\n", f);
		fclose(f);
	}
	if (symlink("ok", p[3]) != 0 || mkfifo(p[4], 0600) != 0)
		return;
	m = parse_records("f3", recs, -1);
	if (!m)
		return;
	bad = live_run("perform", m, SRT_OBSERVE_WRITES | SRT_OBSERVE_READS, live_perform_body, p);
	if (bad == -2)
		return;
	ok(bad == 0,
	   "perform: reads, close-on-exec, umask, EEXIST, O_PATH of a link, ELOOP, the hidden file "
	   "refused, a FIFO either way round, link and rename, O_TMPFILE, O_DIRECTORY, /proc/self, "
	   "write-only creating opens (failed bits %d, -1 for none)",
	   bad);
	ok(access(p[7], F_OK) != 0, "perform: no second name was made for the hidden file");
	srt__monitor_free(m);
	for (int i = 0; i < 8; i++)
		unlink(p[i]);
	rmdir(dir);
}

/* A listener request interrupted by a signal (EINTR) has done nothing: the
 * kernel takes the filter's notification lock interruptibly, so a request
 * made while another thread holds the lock fails that way when a signal
 * comes. The test binary is linked with --wrap=ioctl: while inject_eintr
 * is set, every thread's first answer, hand-over and "still waiting?"
 * question fails so, and every other one after it. The monitor must ask
 * again: read as "caller gone" (a waiting FIFO open's thread, woken by its
 * own timer every 100 ms, is the one that meets it) or as "answered", the
 * caller waits forever; this test then ends by the child's alarm. */
static int inject_eintr;
/* While late_fifo_close is set, a thread of the monitor that hands over an
 * end of a FIFO is held back 300 ms after the hand-over, before it closes
 * its own copy (as a thread preempted there on a loaded machine is): after
 * ADDFD with SECCOMP_ADDFD_FLAG_SEND, or, on a kernel without it, after
 * the answer that follows the ADDFD. */
static int late_fifo_close;
int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	static __thread int flip;
	static __thread int fifo_answer; /* a FIFO's ADDFD without SEND: its answer next */
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (__atomic_load_n(&inject_eintr, __ATOMIC_RELAXED) &&
	    (req == SECCOMP_IOCTL_NOTIF_SEND || req == SECCOMP_IOCTL_NOTIF_ADDFD ||
	     req == SECCOMP_IOCTL_NOTIF_ID_VALID) &&
	    (flip ^= 1)) {
		errno = EINTR;
		return -1;
	}
	if (__atomic_load_n(&late_fifo_close, __ATOMIC_RELAXED) &&
	    (req == SECCOMP_IOCTL_NOTIF_ADDFD || (req == SECCOMP_IOCTL_NOTIF_SEND && fifo_answer))) {
		const struct seccomp_notif_addfd *a = arg;
		struct stat sb;
		int rc, e, late = 0;

		if (req == SECCOMP_IOCTL_NOTIF_SEND) {
			fifo_answer = 0;
			late = 1;
		} else if (fstat((int)a->srcfd, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
			late = (a->flags & SECCOMP_ADDFD_FLAG_SEND) != 0;
			fifo_answer = !late;
		}
		rc = __real_ioctl(fd, req, arg);
		e = errno;
		if (late)
			usleep(300000);
		errno = e;
		return rc;
	}
	return __real_ioctl(fd, req, arg);
}

static int live_interrupted_body(void *arg)
{
	char (*p)[200] = arg; /* ok, hidden, fifo */
	int fd, bad = 0;
	char b[4];

	/* handed over (ADDFD) */
	fd = open(p[0], O_RDONLY);
	if (fd < 0 || read(fd, b, 3) != 3 || memcmp(b, "OK\n", 3) != 0)
		bad |= 1;
	close(fd);
	/* refused (SEND) */
	if (open(p[1], O_RDONLY) >= 0 || errno != EACCES)
		bad |= 2;
	/* a FIFO's read open waits 300 ms for its writer: its thread
	 * asks whether the caller still waits at each 100 ms tick */
	if (fifo_read_late_writer(p[2], 300000) != 0)
		bad |= 4;
	return bad;
}

static void test_live_interrupted(void)
{
	char dir[] = "/tmp/srt-moni-XXXXXX", rec1[240], rec2[240], step[128], p[3][200];
	const char *recs[4];
	struct srt__monitor *m;
	int bad;

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(p[0], sizeof(p[0]), "%s/ok", dir);
	snprintf(p[1], sizeof(p[1]), "%s/hidden", dir);
	snprintf(p[2], sizeof(p[2]), "%s/fifo", dir);
	snprintf(rec1, sizeof(rec1), "w%s", dir);
	snprintf(rec2, sizeof(rec2), "h%s", p[1]);
	recs[0] = "r/";
	recs[1] = rec1;
	recs[2] = rec2;
	recs[3] = NULL;
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(p[i], "w");

		if (!f)
			return;
		fputs(i ? "SECRET\n" : "OK\n", f);
		fclose(f);
	}
	if (mkfifo(p[2], 0600) != 0)
		return;
	m = parse_records("f3", recs, -1);
	if (!m)
		return;
	__atomic_store_n(&inject_eintr, 1, __ATOMIC_RELAXED);
	bad = live_run("interrupted", m, SRT_OBSERVE_WRITES | SRT_OBSERVE_READS, live_interrupted_body, p);
	__atomic_store_n(&inject_eintr, 0, __ATOMIC_RELAXED);
	if (bad == -2)
		return;
	ok(bad == 0,
	   "interrupted: with every first listener request failing EINTR, a handed-over open, a "
	   "refused one and a FIFO read open that waits are all answered (failed bits %d, -1 for none)",
	   bad);
	srt__monitor_free(m);
	for (int i = 0; i < 3; i++)
		unlink(p[i]);
	rmdir(dir);
}

/* An end of a FIFO the monitor handed over is never what the other end's
 * open is matched with once the caller has closed its own: the monitor's
 * copy, closed 300 ms after each hand-over here (late_fifo_close), must
 * not let a write open through with no reader left (its byte lost, or
 * EPIPE), nor a read open meet end of file with no writer left. */
static int live_fifo_late_body(void *arg)
{
	const char *fifo = arg;
	int fd, bad = 0, st = 0;
	char b[2] = "";
	pid_t w;

	signal(SIGPIPE, SIG_IGN); /* a write with no reader: a bit, not a death */
	/* a reader, closed as soon as its writer's byte is read; a write
	 * open that does not wait at once after it finds no reader */
	if (fifo_read_late_writer(fifo, 50000) != 0)
		bad |= 1;
	fd = open(fifo, O_WRONLY | O_NONBLOCK);
	if (fd >= 0 || errno != ENXIO)
		bad |= 64;
	if (fd >= 0)
		close(fd);
	/* the same reader; a write open that waits at once after it: its
	 * reader comes 600 ms later */
	if (fifo_read_late_writer(fifo, 50000) != 0)
		bad |= 1;
	w = fork();
	if (w == 0) {
		int rf;

		alarm(5);
		usleep(600000);
		rf = open(fifo, O_RDONLY);
		_exit(rf >= 0 && read(rf, b, 1) == 1 && b[0] == 'H' ? 0 : 1);
	}
	fd = open(fifo, O_WRONLY);
	if (fd < 0 || write(fd, "H", 1) != 1)
		bad |= 2;
	close(fd);
	waitpid(w, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 4;
	/* a writer, closed as soon as its byte is written; a reader at once
	 * after it: its writer comes 600 ms later */
	w = fork();
	if (w == 0) {
		int wf;

		alarm(5);
		usleep(600000);
		wf = open(fifo, O_WRONLY);
		_exit(wf >= 0 && write(wf, "J", 1) == 1 ? 0 : 1);
	}
	{
		pid_t r = fork();

		if (r == 0) {
			int rf;

			alarm(5);
			rf = open(fifo, O_RDONLY);
			_exit(rf >= 0 && read(rf, b, 1) == 1 && b[0] == 'I' ? 0 : 1);
		}
		usleep(50000);
		fd = open(fifo, O_WRONLY);
		if (fd < 0 || write(fd, "I", 1) != 1)
			bad |= 8;
		close(fd);
		waitpid(r, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad |= 8;
	}
	fd = open(fifo, O_RDONLY);
	if (fd < 0 || read(fd, b, 1) != 1 || b[0] != 'J')
		bad |= 16;
	close(fd);
	waitpid(w, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 32;
	return bad;
}

/* The policy of the FIFO tests: everything readable, the directory made
 * from the mkdtemp template dir writable. NULL when the kernel has no user
 * notifications (a SKIP line said so) or nothing could be set up. */
static struct srt__monitor *live_fifo_policy(char *dir)
{
	char rec[64], step[128];
	const char *recs[3];

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return NULL;
	}
	if (!mkdtemp(dir))
		return NULL;
	snprintf(rec, sizeof(rec), "w%s", dir);
	recs[0] = "r/";
	recs[1] = rec;
	recs[2] = NULL;
	return parse_records("f3", recs, -1);
}

static void test_live_fifo_late(void)
{
	char dir[] = "/tmp/srt-monf-XXXXXX", fifo[64];
	struct srt__monitor *m;
	int bad;

	m = live_fifo_policy(dir);
	if (!m)
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600) != 0)
		return;
	__atomic_store_n(&late_fifo_close, 1, __ATOMIC_RELAXED);
	bad = live_run("late close", m, SRT_OBSERVE_WRITES | SRT_OBSERVE_READS, live_fifo_late_body, fifo);
	__atomic_store_n(&late_fifo_close, 0, __ATOMIC_RELAXED);
	if (bad == -2)
		return;
	ok(bad == 0,
	   "late close: with the monitor's copy of each FIFO end closed 300 ms late, a write open "
	   "after a reader closed waits for the next reader (ENXIO with O_NONBLOCK), and a read "
	   "open after a writer closed for the next writer (failed bits %d, -1 for none)",
	   bad);
	srt__monitor_free(m);
	unlink(fifo);
	rmdir(dir);
}

/* An open of one FIFO that waits on the pipe's own lock (which a splice
 * into the FIFO holds while it waits for its data) holds up the opens of
 * that FIFO alone: an O_RDWR open of another FIFO is answered meanwhile. */
static int live_fifo_splice_body(void *arg)
{
	char (*p)[64] = arg; /* p[0] the FIFO spliced into, p[1] another */
	int x, sv[2], bad = 0, st = 0;
	pid_t sp, w, y;

	x = open(p[0], O_RDWR);
	if (x < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	sp = fork();
	if (sp == 0) {
		alarm(10);
		_exit(splice(sv[0], NULL, x, NULL, 1, 0) == 1 ? 0 : 1);
	}
	usleep(200000);
	/* waits in its open on the spliced FIFO's lock */
	w = fork();
	if (w == 0) {
		alarm(10);
		_exit(open(p[0], O_WRONLY | O_NONBLOCK) >= 0 ? 0 : 1);
	}
	usleep(200000);
	y = fork();
	if (y == 0) {
		alarm(3);
		_exit(open(p[1], O_RDWR) >= 0 ? 0 : 1);
	}
	waitpid(y, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 2;
	/* the splice's byte: it ends, and the open that waited with it */
	if (write(sv[1], "s", 1) != 1)
		bad |= 4;
	waitpid(sp, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 4;
	waitpid(w, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bad |= 8;
	return bad;
}

static void test_live_fifo_splice(void)
{
	char dir[] = "/tmp/srt-mons-XXXXXX", p[2][64];
	struct srt__monitor *m;
	int bad;

	m = live_fifo_policy(dir);
	if (!m)
		return;
	snprintf(p[0], sizeof(p[0]), "%s/spliced", dir);
	snprintf(p[1], sizeof(p[1]), "%s/other", dir);
	if (mkfifo(p[0], 0600) != 0 || mkfifo(p[1], 0600) != 0)
		return;
	bad = live_run("splice", m, SRT_OBSERVE_WRITES | SRT_OBSERVE_READS, live_fifo_splice_body, p);
	if (bad == -2)
		return;
	ok(bad == 0,
	   "splice: while an open of a FIFO waits on that pipe's lock (a splice into it waiting for "
	   "data), an O_RDWR open of another FIFO is answered (failed bits %d, -1 for none)",
	   bad);
	srt__monitor_free(m);
	unlink(p[0]);
	unlink(p[1]);
	rmdir(dir);
}

/* The supervisor is gone (its listener closed): the kernel fails every
 * observed call with ENOSYS. The Unix socket stays refused (fail closed). */
static void test_supervisor_gone(void)
{
	char step[128];
	int sv[2], st = 0, lfd;
	pid_t pid;

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		printf("ok %d # SKIP no seccomp user notifications here (%s)\n", ++tap_n, step);
		return;
	}
	unlink("/tmp/srt-mon-gone");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return;
	pid = fork();
	if (pid == 0) {
		char b;
		int bad = 0;

		close(sv[0]);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (srt__seccomp_install_observer(SRT_OBSERVE_WRITES | SRT_OBSERVE_UNIX, &lfd, step,
						  sizeof(step)) != 0 ||
		    send_fd(sv[1], lfd) != 0)
			_exit(90);
		close(lfd);
		/* wait until the parent has dropped the listener */
		if (read(sv[1], &b, 1) != 0)
			_exit(91);
		if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != ENOSYS)
			bad |= 1;
		if (open("/tmp/srt-mon-gone", O_WRONLY | O_CREAT, 0600) >= 0 || errno != ENOSYS)
			bad |= 2;
		_exit(bad);
	}
	close(sv[1]);
	lfd = recv_fd(sv[0]);
	close(lfd);
	close(sv[0]); /* EOF: go on */
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "supervisor gone: Unix socket and observed writes fail with ENOSYS (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(access("/tmp/srt-mon-gone", F_OK) != 0, "supervisor gone: nothing was created");
	unlink("/tmp/srt-mon-gone");
}

int main(void)
{
	TAP_RUN(test_classify);
	TAP_RUN(test_join);
	TAP_RUN(test_events);
	TAP_RUN(test_policy_from_words);
	TAP_RUN(test_unix_policy);
	TAP_RUN(test_live);
	TAP_RUN(test_live_unix);
	TAP_RUN(test_live_perform);
	TAP_RUN(test_live_interrupted);
	TAP_RUN(test_live_fifo_late);
	TAP_RUN(test_live_fifo_splice);
	TAP_RUN(test_supervisor_gone);
	return tap_done();
}
