/* srt-linux-init: the helper bwrap runs first in the sandbox's pid
 * namespace, under bwrap's own reaper (PID 1 there).
 *
 *   srt-linux-init [--proxy-socket PATH --proxy-socket-id DEV:INO
 *                   --http-port N --socks-port N]
 *                  [--allow-all-unix-sockets] [--allow-nested-userns]
 *                  [--weaker-nested-sandbox] [--status-fd N] [--debug]
 *                  [--events-fd N --monitor-policy-fd N] [--landlock-plan-fd N]
 *                  [--hide-file PATH]... [--pin-link PATH]... [--make-dev-proc]
 *                  -- command [args...]
 *
 * Process tree:
 *
 *   bwrap's reaper (PID 1 of bwrap's pid namespace; it reports our exit
 *   │                status to bwrap, which then exits without waiting
 *   │                for the namespaces to be torn down)
 *   outer (this process)
 *    ├─ bridge relay (srt__bridge_start, only with --proxy-socket)
 *    └─ nested init (PID 1 of a new pid + mount namespace)
 *        └─ worker: no_new_privs, seccomp, exec of the command (with
 *           --make-dev-proc in a user + mount namespace of its own)
 *
 * The nested namespaces give the command a /proc that shows only its own
 * tree: the outer helper and the relay are not in it, so the command can
 * neither see nor signal nor ptrace them. Both init processes are
 * non-dumpable, forward INT TERM HUP QUIT USR1 USR2 downwards, reap every
 * child, and exit with the command's status (its exit code, or 128+N when
 * signal N killed it).
 *
 * Capabilities: srt asks bwrap to keep CAP_SYS_ADMIN for this helper (see
 * procargs.c), so the nested namespaces can be made without another user
 * namespace (with --make-dev-proc the command gets one of its own, below);
 * without it we fall back to a nested user namespace, which needs no
 * capability. Either way every process that the command can reach ends up with
 * no capabilities at all: the outer drops them before it starts the relay,
 * the nested init before the worker runs, the worker before it execs.
 *
 * Failures: one line "srt-linux-init: <step>: <reason>" on stderr and exit
 * status 125; the command never runs with fewer layers than asked for. If
 * exec itself fails the status is 127 (not found) or 126, like a shell.
 *
 * --status-fd N tells srt how the setup went, so it can tell a layer that
 * failed from a command that exits 125. The outer helper first writes "P":
 * N is a Unix socket whose reader asked for the sender's credentials, so
 * that byte tells srt this process's pid in srt's own pid namespace, where
 * srt sends the signals it forwards. Then the worker writes "S" on N just
 * before exec (every layer is in place), or a failing step writes "E" and
 * its message line there instead of on stderr. N is close-on-exec: the
 * command never holds it.
 *
 * --events-fd N --monitor-policy-fd M start the violation monitor
 * (monitor.h): the outer helper reads the policy from the sealed memfd M
 * before anything else runs, the worker loads the observe filter and hands
 * its listener to the outer over a socketpair made before the nested
 * namespaces, and the outer answers each notification while it forwards
 * signals, writing "deny <syscall> <path>" lines on N. The outer is not in
 * the command's pid namespace and not dumpable: the command can neither
 * see nor ptrace its supervisor. When the kernel cannot run the observer
 * the worker installs the plain filters (every refusal still in place) and
 * says so under --debug.
 *
 * --landlock-plan-fd N: a sealed memfd with the Landlock layer's plan
 * (backends/linux-bwrap/layer.h). The worker replays it after
 * no_new_privs and before the seccomp filters; a plan srt made must be
 * applied: any failure is a setup failure (125), never a silent skip.
 *
 * --hide-file PATH (repeated): the nested init (with --make-dev-proc the
 * outer helper, so the cover is locked) covers PATH, a file the
 * mount plan denies (mounts.h), with a read-only, nodev, nosuid /dev/null,
 * as bwrap's --ro-bind /dev/null PATH would: opening it fails with EACCES.
 * The target is opened without following a link, and the mount goes onto
 * that descriptor (move_mount), so a name swapped for a link or a
 * directory since srt planned it stops the run instead of mounting
 * elsewhere. Any failure is a setup failure.
 *
 * --pin-link PATH (repeated): in the same place, PATH, a denied name that
 * is a symbolic link inside a write root, gets a read-only mount on the
 * link itself (pin_one), so the command cannot replace it during the run.
 *
 * --make-dev-proc: srt left bwrap's --dev /dev and --proc /proc out, and
 * the outer helper makes the same /dev and /proc itself, in bwrap's
 * namespaces before the nested ones copy them (make_dev_proc). bwrap
 * re-reads /proc/self/mountinfo after each of its binds; the nine binds
 * of those two options were about 3 ms of every start. Refused outside a
 * new pid and user namespace. bwrap's --dev made it add a second user
 * namespace for unprivileged callers, which locked what the nested
 * namespaces copied; without it there is one, so the worker gets a user
 * and mount namespace of its own (start_locked_worker): mounts
 * copied across that boundary are locked, and nothing the command
 * inherits (bwrap's binds, this /dev, the covers on hidden files, the
 * nested /proc and its covers) can come off to show what is below. A
 * root caller's uid 0 is mapped into it, which takes CAP_SETFCAP: srt
 * asks bwrap to keep it, and every helper process drops it with every
 * other capability. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/bridge.h"
#include "backends/linux-bwrap/init/monitor.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/landlock-replay.h"
#include "backends/linux-common/helper-defs.h"

struct opts {
	const char *proxy_socket;
	unsigned long long proxy_dev, proxy_ino; /* --proxy-socket-id */
	int http_port, socks_port;
	int allow_unix;
	int allow_userns;
	int weaker; /* enableWeakerNestedSandbox: /proc may not be mountable */
	int debug;
	int events_fd, policy_fd; /* the violation monitor's, or -1 */
	int landlock_fd; /* the Landlock layer's plan, or -1 */
	const char **hide; /* --hide-file paths */
	size_t n_hide;
	const char **pin; /* --pin-link paths */
	size_t n_pin;
	int make_dev_proc; /* --make-dev-proc */
	char **argv; /* the command, NULL-terminated */
};

/* --status-fd, or -1 */
static int status_fd = -1;

/* The violation monitor, when srt asked for it: the parsed policy (the
 * worker reads its flags from this copy too), and the socketpair the
 * worker hands the listener over: [0] the outer's end, [1] the worker's. */
static struct srt__monitor *monitor;
static int mon_sock[2] = { -1, -1 };

/* Signals srt forwards to us and we forward to the command. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	/* one write(2) per line: no stdio buffers to duplicate across fork */
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

/* Report a setup failure: on the status fd when srt gave us one (srt then
 * prints it as its own one-line error), else on stderr. */
__attribute__((format(printf, 1, 2))) static void failf(const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + 1, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 3)
		n = (int)sizeof(buf) - 3;
	if (status_fd >= 0) {
		buf[0] = 'E';
		buf[n + 1] = '\n';
		if (write(status_fd, buf, (size_t)n + 2) == (ssize_t)n + 2)
			return;
		buf[n + 1] = '\0'; /* srt is not listening: say it on stderr */
	}
	say("%s", buf + 1);
}

static void fail(const char *step, int err)
{
	failf("srt-linux-init: %s: %s", step, strerror(err));
}

static int parse_port(const char *s, int *out)
{
	long v = 0;

	if (!*s || strlen(s) > 5)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*out = (int)v;
	return 0;
}

/* A repeated path option: val (absolute) appended to *v (room for max). */
static int add_path(const char ***v, size_t *n, size_t max, const char *opt, const char *val)
{
	if (val[0] != '/') {
		failf("srt-linux-init: %s: '%s' is not an absolute path", opt, val);
		return -1;
	}
	if (!*v && !(*v = calloc(max, sizeof(**v)))) {
		fail(opt, ENOMEM);
		return -1;
	}
	(*v)[(*n)++] = val;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->events_fd = o->policy_fd = o->landlock_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--proxy-socket") && val) {
			if (val[0] != '/') {
				failf("srt-linux-init: --proxy-socket: '%s' is not an absolute path", val);
				return -1;
			}
			o->proxy_socket = val;
			i++;
		} else if (!strcmp(a, "--proxy-socket-id") && val) {
			char *end;

			errno = 0;
			o->proxy_dev = strtoull(val, &end, 10);
			if (errno || end == val || *end != ':' || !(end[1] >= '0' && end[1] <= '9')) {
				failf("srt-linux-init: --proxy-socket-id: '%s' is not DEVICE:INODE", val);
				return -1;
			}
			o->proxy_ino = strtoull(end + 1, &end, 10);
			if (errno || *end || !o->proxy_ino) {
				failf("srt-linux-init: --proxy-socket-id: '%s' is not DEVICE:INODE", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--http-port") && val) {
			if (parse_port(val, &o->http_port)) {
				failf("srt-linux-init: --http-port: '%s' is not a port number", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--socks-port") && val) {
			if (parse_port(val, &o->socks_port)) {
				failf("srt-linux-init: --socks-port: '%s' is not a port number", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--allow-all-unix-sockets")) {
			o->allow_unix = 1;
		} else if (!strcmp(a, "--allow-nested-userns")) {
			o->allow_userns = 1;
		} else if (!strcmp(a, "--weaker-nested-sandbox")) {
			o->weaker = 1;
		} else if (!strcmp(a, "--status-fd") && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				failf("srt-linux-init: --status-fd: '%s' is not an open descriptor", val);
				return -1;
			}
			status_fd = fd;
			i++;
		} else if ((!strcmp(a, "--events-fd") || !strcmp(a, "--monitor-policy-fd")) && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				failf("srt-linux-init: %s: '%s' is not an open descriptor", a, val);
				return -1;
			}
			if (a[2] == 'e')
				o->events_fd = fd;
			else
				o->policy_fd = fd;
			i++;
		} else if (!strcmp(a, "--landlock-plan-fd") && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				failf("srt-linux-init: %s: '%s' is not an open descriptor", a, val);
				return -1;
			}
			o->landlock_fd = fd;
			i++;
		} else if ((!strcmp(a, "--hide-file") || !strcmp(a, "--pin-link")) && val) {
			int hide = a[2] == 'h';

			if (add_path(hide ? &o->hide : &o->pin, hide ? &o->n_hide : &o->n_pin,
				     (size_t)argc, a, val) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--make-dev-proc")) {
			o->make_dev_proc = 1;
		} else if (!strcmp(a, "--debug")) {
			o->debug = 1;
		} else {
			failf("srt-linux-init: unknown or incomplete option '%s'", a);
			return -1;
		}
	}
	if (i >= argc) {
		failf("srt-linux-init: no command given (usage: srt-linux-init [options] -- command [args...])");
		return -1;
	}
	if (o->make_dev_proc && o->weaker) {
		failf("srt-linux-init: --make-dev-proc and --weaker-nested-sandbox exclude each other "
		      "(the weaker sandbox keeps the host's /proc, which bwrap binds)");
		return -1;
	}
	if ((o->events_fd >= 0) != (o->policy_fd >= 0)) {
		failf("srt-linux-init: --events-fd and --monitor-policy-fd go together");
		return -1;
	}
	if ((o->proxy_socket != NULL) != (o->http_port != 0) ||
	    (o->proxy_socket != NULL) != (o->socks_port != 0) ||
	    (o->proxy_socket != NULL) != (o->proxy_ino != 0)) {
		failf("srt-linux-init: --proxy-socket, --proxy-socket-id, --http-port and --socks-port go together");
		return -1;
	}
	o->argv = argv + i;
	return 0;
}

/* fork(2) with namespace flags; the child returns 0 like fork. Only used
 * before anything else runs in the child, which execs or forks again. */
static pid_t clone_ns(unsigned long flags)
{
#if defined(__s390__) || defined(__s390x__)
	return (pid_t)syscall(SYS_clone, NULL, flags | SIGCHLD);
#else
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
#endif
}

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, text, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

/* Map only our own ids into the child's new user namespace (the one
 * mapping an unprivileged process may write), with setgroups denied.
 * bwrap_caps: we are the outer helper, whose CAP_SETFCAP (needed to map
 * uid 0) comes from bwrap's --cap-add. */
static int write_id_maps(pid_t child, int bwrap_caps)
{
	static const char *const names[] = { "setgroups", "uid_map", "gid_map" };
	char path[64], text[64];
	int i, err;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, names[i]);
		if (i == 0)
			snprintf(text, sizeof(text), "deny");
		else
			snprintf(text, sizeof(text), "%u %u 1",
				 i == 1 ? (unsigned)geteuid() : (unsigned)getegid(),
				 i == 1 ? (unsigned)geteuid() : (unsigned)getegid());
		err = write_file(path, text);
		if (err && err == EPERM && i == 1 && geteuid() == 0 && bwrap_caps) {
			failf("srt-linux-init: write uid_map of the nested user namespace: %s (mapping uid 0 "
			      "into it takes CAP_SETFCAP, which srt asks bwrap to keep: --cap-add CAP_SETFCAP)",
			      strerror(err));
			return -1;
		} else if (err) {
			char step[96];
			snprintf(step, sizeof(step), "write %s of the nested user namespace", names[i]);
			fail(step, err);
			return -1;
		}
	}
	return 0;
}

/* Give up every capability: effective, permitted, inheritable, ambient. A
 * uid-0 process would get its permitted set back at exec, but not under
 * no_new_privs (the worker sets it before exec). The bounding set goes
 * too, first, when CAP_SETPCAP is ours to do it with: srt asks bwrap for
 * it, and the nested init of the user-namespace fallback holds every
 * capability of its namespace. Without it (the outer helper of that
 * fallback, which runs no command; a bwrap started by hand) the bounding
 * set stays as bwrap left it, which no_new_privs already keeps from
 * raising anything at exec. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & (1u << CAP_SETPCAP))) {
		for (cap = 0; cap <= 63; cap++) {
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 1)
				continue; /* not held, or beyond this kernel's last */
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
				fail("drop the capability bounding set", errno);
				return -1;
			}
		}
	}
	memset(data, 0, sizeof(data));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
		fail("clear ambient capabilities", errno);
		return -1;
	}
	if (syscall(SYS_capset, &hdr, data) != 0) {
		fail("drop capabilities", errno);
		return -1;
	}
	return 0;
}

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_SETUP;
}

/* Forward the signals in set (all blocked) to child and reap every child
 * until child itself is gone; return its status as an exit code. */
static int supervise(pid_t child, const sigset_t *set)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			fail("sigwaitinfo", errno);
			kill(child, SIGKILL);
			return EXIT_SETUP;
		}
		if (sig != SIGCHLD) {
			kill(child, sig);
			/* a stopped command would keep a terminating signal
			 * pending for ever, and nothing outside can resume it
			 * in its hidden namespace (timeout(1) sends CONT to srt
			 * only): continue it, as kill(1) users expect */
			if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
				kill(child, SIGCONT);
			continue;
		}
		for (;;) {
			int st;
			pid_t p = waitpid(-1, &st, WNOHANG);

			if (p <= 0)
				break;
			if (p == child)
				return status_code(st);
		}
	}
}

/* One byte on the socketpair, with the listener attached or without. */
static int send_listener(int sock, int fd)
{
	char byte = fd >= 0 ? 'L' : 'N';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* The listener from the worker: >= 0, or -1 when the worker runs without
 * the observer ('N', or it died: EOF). */
static int recv_listener(int sock)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
	struct cmsghdr *c;
	int fd = -1;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (byte != 'L' && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* In the worker: load the observe filter and hand its listener to the
 * outer helper before anything else can make an observed call (each one
 * waits for an answer). Returns the flags for the enforcement filter. */
static unsigned start_observer(const struct opts *o)
{
	unsigned obs = 0, mflags = srt__monitor_flags(monitor);
	char step[128] = "";
	int lfd = -1, rc;

	if (mflags & SRT_MONITOR_WRITES)
		obs |= SRT_OBSERVE_WRITES;
	if (mflags & SRT_MONITOR_READS)
		obs |= SRT_OBSERVE_READS;
	if (!o->allow_unix)
		obs |= SRT_OBSERVE_UNIX;
	rc = obs ? srt__seccomp_install_observer(obs, &lfd, step, sizeof(step)) : -ENODATA;
	if (rc < 0 && lfd == -2) {
		char what[200];
		snprintf(what, sizeof(what), "seccomp: %s", step);
		fail(what, -rc);
		_exit(EXIT_SETUP);
	}
	if (rc < 0) {
		if (o->debug && obs)
			say("srt-linux-init: (debug) violation monitor unavailable (%s: %s); "
			    "installing the plain filters, nothing is reported",
			    step, strerror(-rc));
		send_listener(mon_sock[1], -1);
		close(mon_sock[1]);
		return 0;
	}
	if (send_listener(mon_sock[1], lfd) != 0) {
		/* nobody would answer: every observed call would wait */
		fail("hand the seccomp listener to the monitor", errno);
		_exit(EXIT_SETUP);
	}
	close(lfd);
	close(mon_sock[1]);
	if (o->debug)
		say("srt-linux-init: (debug) violation monitor on (%s%s%s)",
		    obs & SRT_OBSERVE_WRITES ? "writes " : "", obs & SRT_OBSERVE_READS ? "reads " : "",
		    obs & SRT_OBSERVE_UNIX ? "unix-sockets" : "");
	return obs & SRT_OBSERVE_UNIX ? SRT_SECCOMP_UNIX_OBSERVED : 0;
}

/* The outer helper's monitor thread: wait for the listener from the
 * worker, then answer notifications for as long as the sandbox runs. It
 * blocks in SECCOMP_IOCTL_NOTIF_RECV rather than poll(2), so the kernel can
 * hand it the CPU of the notifying task directly (SYNC_WAKE_UP). Every
 * signal is blocked here: they are the main thread's to forward. */
static void *monitor_main(void *arg)
{
	pid_t child = *(pid_t *)arg;
	int lfd, err;

	lfd = recv_listener(mon_sock[0]);
	close(mon_sock[0]);
	mon_sock[0] = -1;
	if (lfd < 0)
		return NULL; /* the worker runs the plain filters, or died */
	err = -srt__monitor_attach(monitor, lfd);
	if (err) {
		/* nobody would answer: observed calls would wait forever */
		fail("start the violation monitor", err);
		kill(child, SIGKILL);
		return NULL;
	}
	while (srt__monitor_handle(monitor) == 0)
		;
	/* the listener broke: observed calls now fail with ENOSYS (closed) */
	close(lfd);
	return NULL;
}

static int start_monitor_thread(pid_t *child)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int err;

	sigfillset(&all);
	if (pthread_attr_init(&attr) != 0)
		return ENOMEM;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t, &attr, monitor_main, child);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/* The Landlock layer, in the worker: the paths are the sandbox's now
 * (bwrap's binds keep the host's objects at their host paths; what bwrap
 * and we made here is granted by the plan's "here" records). */
static void apply_landlock(const struct opts *o)
{
	struct srt__ll_replay p;
	size_t len = 0;
	char *buf = NULL;

	srt__ll_replay_init(&p);
	if (srt__ll_replay_read(&p, o->landlock_fd, &buf, &len) != 0 ||
	    srt__ll_replay_build(&p, buf, len, SRT_LL_REPLAY_HERE) != 0 ||
	    srt__ll_replay_stdio(&p) != 0 || srt__ll_replay_restrict(&p) != 0) {
		failf("srt-linux-init: landlock layer: %s: %s", p.step, p.why);
		_exit(EXIT_SETUP);
	}
	free(buf);
	close(o->landlock_fd);
	if (o->debug)
		say("srt-linux-init: (debug) landlock layer: %zu rules applied (kernel ABI %d), "
		    "%zu planned objects absent or replaced here",
		    p.n_rules, p.kernel_abi, p.n_skipped);
}

static void worker(const struct opts *o, const sigset_t *orig_mask) __attribute__((noreturn));
static void worker(const struct opts *o, const sigset_t *orig_mask)
{
	char step[128] = "";
	unsigned flags = 0;
	int rc;

	if (sigprocmask(SIG_SETMASK, orig_mask, NULL) != 0) {
		fail("restore signal mask", errno);
		_exit(EXIT_SETUP);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		fail("prctl(PR_SET_NO_NEW_PRIVS)", errno);
		_exit(EXIT_SETUP);
	}
	if (o->landlock_fd >= 0)
		apply_landlock(o);
	if (o->allow_unix)
		flags |= SRT_SECCOMP_ALLOW_UNIX;
	if (o->allow_userns)
		flags |= SRT_SECCOMP_ALLOW_USERNS;
	if (monitor)
		flags |= start_observer(o);
	rc = srt__seccomp_install(flags, step, sizeof(step));
	if (rc < 0) {
		char what[160];
		snprintf(what, sizeof(what), "seccomp: %s", step);
		fail(what, -rc);
		_exit(EXIT_SETUP);
	}
	if (status_fd >= 0 && write(status_fd, "S", 1) != 1) {
		/* srt is gone or stopped listening: nobody to run for */
		fail("report to srt", errno);
		_exit(EXIT_SETUP);
	}
	execvp(o->argv[0], o->argv);
	rc = errno;
	say("srt-linux-init: %s: %s", o->argv[0], strerror(rc));
	_exit(rc == ENOENT || rc == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/* bwrap covers these with read-only binds of themselves; our fresh /proc
 * must too: a uid-0 caller's command is uid 0 for sysctl permission checks
 * and could otherwise write host-wide sysctls. */
static const char *const proc_covers[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus" };

static int cover_proc(int required, int debug)
{
	size_t i;

	for (i = 0; i < sizeof(proc_covers) / sizeof(proc_covers[0]); i++) {
		const char *p = proc_covers[i];
		char step[64];

		if (access(p, F_OK) != 0)
			continue;
		if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    mount(NULL, p, NULL,
			  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) != 0) {
			snprintf(step, sizeof(step), "read-only %s", p);
			if (!required) {
				if (debug)
					say("srt-linux-init: (debug) %s: %s", step, strerror(errno));
				continue;
			}
			fail(step, errno);
			return -1;
		}
	}
	return 0;
}

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef RESOLVE_NO_SYMLINKS
#define RESOLVE_NO_SYMLINKS 0x04
#endif

/* The target, without following a link anywhere on the way (openat2;
 * the last component alone where the kernel has no openat2). */
static int open_target(const char *path)
{
#ifdef SYS_openat2
	struct {
		uint64_t flags, mode, resolve;
	} how = { O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
#endif
	return open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

/* Mount tree (a detached copy from open_tree) read-only, nodev and nosuid
 * onto target (an O_PATH descriptor), closing both. 0 or an errno, the
 * step in *step. */
static int mount_copy_on(int tree, int target, const char **step)
{
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0 };
	int err = 0;

	*step = "make the copy read-only";
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) != 0)
		err = errno;
	if (!err) {
		*step = "mount";
		if (syscall(SYS_move_mount, tree, "", target, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
			err = errno;
	}
	close(tree);
	close(target);
	return err;
}

static int copy_dev_null(void)
{
	return (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/null", OPEN_TREE_CLONE | O_CLOEXEC);
}

/* --hide-file: a read-only, nodev, nosuid copy of /dev/null's mount onto
 * the file itself. 0, or the errno of the step that failed (named in
 * *step). */
static int hide_one(const char *path, const char **step)
{
	struct stat st;
	int target, tree, err = 0;

	*step = "open";
	target = open_target(path);
	if (target < 0)
		return errno;
	*step = "check";
	if (fstat(target, &st) != 0)
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR; /* the plan hides directories with bwrap */
	else if (S_ISLNK(st.st_mode))
		err = ELOOP;
	if (!err) {
		*step = "clone /dev/null";
		tree = copy_dev_null();
		if (tree >= 0)
			return mount_copy_on(tree, target, step);
		err = errno;
	}
	close(target);
	return err;
}

/* --pin-link: a denied name that is a symbolic link inside a write root.
 * bwrap protects the link's target (a mount follows the link), but the
 * name itself is a plain entry of a writable directory: the command could
 * replace it, and the replacement would be live on the host during the
 * run. So the link gets a mount of its own, on the link itself: a
 * read-only copy of its target when that is a regular file (reads see the
 * same content), else of /dev/null (a directory cannot be mounted on a
 * link; such a name reads as an empty file here). Its name is then a mount
 * point: rename and unlink fail with EBUSY. 0, or the errno of the step
 * that failed (named in *step). */
static int pin_one(const char *path, const char **step)
{
	struct stat st;
	int link, tree, err = 0;

	*step = "open";
	link = open_target(path); /* the link itself, no link on the way */
	if (link < 0)
		return errno;
	*step = "check";
	if (fstatat(link, "", &st, AT_EMPTY_PATH) != 0)
		err = errno;
	else if (!S_ISLNK(st.st_mode))
		err = EINVAL; /* replaced since srt planned: stop, do not guess */
	if (!err) {
		*step = "copy the target";
		tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
		if (tree >= 0 && (fstat(tree, &st) != 0 || !S_ISREG(st.st_mode))) {
			close(tree);
			tree = -1;
		}
		if (tree < 0) {
			*step = "copy /dev/null";
			tree = copy_dev_null();
		}
		if (tree >= 0)
			return mount_copy_on(tree, link, step);
		err = errno;
	}
	close(link);
	return err;
}

/* --hide-file covers, then --pin-link mounts. */
static int hide_files(const struct opts *o)
{
	size_t i;

	for (i = 0; i < o->n_hide; i++) {
		const char *step;
		int err = hide_one(o->hide[i], &step);

		if (err) {
			failf("srt-linux-init: hide %s (%s): %s", o->hide[i], step, strerror(err));
			return -1;
		}
	}
	for (i = 0; i < o->n_pin; i++) {
		const char *step;
		int err = pin_one(o->pin[i], &step);

		if (err) {
			failf("srt-linux-init: pin the link %s (%s): %s", o->pin[i], step,
			      err == EINVAL && !strcmp(step, "check") ? "no longer a symbolic link"
								     : strerror(err));
			return -1;
		}
	}
	return 0;
}

/* --make-dev-proc: bwrap's --dev /dev, node for node (the same host
 * devices, modes, links and devpts options), and a /proc for bwrap's pid
 * namespace (no covers there: see the mount below). */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
#define N_DEV_NODES (sizeof(dev_nodes) / sizeof(dev_nodes[0]))
static const char *const dev_links[][2] = {
	{ "/proc/self/fd/0", "/dev/stdin" },  { "/proc/self/fd/1", "/dev/stdout" },
	{ "/proc/self/fd/2", "/dev/stderr" }, { "/proc/self/fd", "/dev/fd" },
	{ "/proc/kcore", "/dev/core" },
};

/* A detached copy of the mount that holds the host's character device
 * PATH, usable as a device: nosuid, and without the nodev and read-only
 * flags that bwrap's --ro-bind / / put on its copy of the host's /dev
 * (as bwrap's --dev binds them). Where the host's own mount has one of
 * them locked (a read-only or nodev /dev, then copied into bwrap's user
 * namespace) it stays, as it does on bwrap's bind. -1 with errno. */
static int clone_node(const char *path)
{
	static const uint64_t clear[] = {
		MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV, MOUNT_ATTR_NODEV, MOUNT_ATTR_RDONLY, 0,
	};
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { MOUNT_ATTR_NOSUID, 0, 0, 0 };
	struct stat st;
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
	int err = 0;
	size_t i;

	if (tree < 0)
		return -1;
	if (fstat(tree, &st) != 0)
		err = errno;
	else if (!S_ISCHR(st.st_mode))
		err = ENODEV;
	for (i = 0; !err && i < sizeof(clear) / sizeof(clear[0]); i++) {
		attr.attr_clr = clear[i];
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == 0)
			break;
		/* EPERM: a flag to clear is locked; anything else is an error */
		if (errno != EPERM || i + 1 == sizeof(clear) / sizeof(clear[0]))
			err = errno;
	}
	if (err) {
		close(tree);
		errno = err;
		return -1;
	}
	return tree;
}

/* TREE onto a new empty file TARGET in our own fresh tmpfs. 0 or errno. */
static int attach_node(int tree, const char *target)
{
	int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);

	if (fd < 0)
		return errno;
	close(fd);
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return errno;
	return 0;
}

/* Not the host's user namespace: bwrap always makes one for srt
 * (--unshare-user). The initial one has a fixed inode number
 * (PROC_USER_INIT_INO); unreadable counts as the host's. */
static int in_new_userns(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 && st.st_ino != 0xEFFFFFFDu;
}

static int make_dev_proc(void)
{
	int trees[N_DEV_NODES], console = -1, err = 0;
	char step[PATH_MAX + 32], tty[PATH_MAX];
	size_t i;

	for (i = 0; i < N_DEV_NODES; i++)
		trees[i] = -1;
	/* the sources first: the tmpfs below hides the host's /dev */
	for (i = 0; i < N_DEV_NODES && !err; i++) {
		snprintf(step, sizeof(step), "copy the host's /dev/%s", dev_nodes[i]);
		snprintf(tty, sizeof(tty), "/dev/%s", dev_nodes[i]);
		if ((trees[i] = clone_node(tty)) < 0)
			err = errno;
	}
	/* as bwrap: a terminal on stdout is also /dev/console, for ttyname */
	if (!err && isatty(1) && ttyname_r(1, tty, sizeof(tty)) == 0 && !strncmp(tty, "/dev/", 5)) {
		snprintf(step, sizeof(step), "copy the terminal %s", tty);
		if ((console = clone_node(tty)) < 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "mount a tmpfs on /dev");
		if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
			err = errno;
	}
	for (i = 0; i < N_DEV_NODES && !err; i++) {
		snprintf(tty, sizeof(tty), "/dev/%s", dev_nodes[i]);
		snprintf(step, sizeof(step), "mount %s", tty);
		err = attach_node(trees[i], tty);
	}
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]) && !err; i++) {
		snprintf(step, sizeof(step), "link %s", dev_links[i][1]);
		if (symlink(dev_links[i][0], dev_links[i][1]) != 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "make /dev/shm and /dev/pts");
		if (mkdir("/dev/shm", 0755) != 0 || mkdir("/dev/pts", 0755) != 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "mount a new devpts instance on /dev/pts");
		if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
			  "newinstance,ptmxmode=0666,mode=620") != 0 ||
		    symlink("pts/ptmx", "/dev/ptmx") != 0)
			err = errno;
	}
	if (!err && console >= 0) {
		snprintf(step, sizeof(step), "mount /dev/console");
		err = attach_node(console, "/dev/console");
	}
	/* no covers on this one: a fresh /proc can be mounted in a user
	 * namespace only where a proc mount with no locked mount over a
	 * directory in it is visible (the setuid-bwrap fallback nests one),
	 * and this one ends up below the nested /proc, locked in the
	 * command's copy, out of its reach */
	if (!err) {
		snprintf(step, sizeof(step), "mount /proc for bwrap's pid namespace");
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			err = errno;
	}
	for (i = 0; i < N_DEV_NODES; i++)
		if (trees[i] >= 0)
			close(trees[i]);
	if (console >= 0)
		close(console);
	if (err) {
		failf("srt-linux-init: make the sandbox's /dev and /proc: %s: %s", step, strerror(err));
		return -1;
	}
	return 0;
}

/* --make-dev-proc: the worker gets a user and mount namespace of its own,
 * so that the nested init's /proc and its read-only covers, mounted in
 * the nested namespaces, are locked in the copy it gets, as every mount
 * from bwrap and the outer helper already is. The nested init maps the
 * worker's ids, drops its capabilities, then lets the worker go. Returns
 * the worker's pid; exits on failure. */
static pid_t start_locked_worker(const struct opts *o, const sigset_t *orig_mask)
{
	int go[2];
	char one = 1;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) != 0) {
		fail("pipe", errno);
		_exit(EXIT_SETUP);
	}
	/* The worker's /proc files must be ours to write its id maps: a
	 * task that is not dumpable has them owned by its namespace's root,
	 * unmapped until then. So it starts dumpable (it execs the command
	 * soon, which is dumpable again anyway); we are not, a moment later. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
		fail("prctl(PR_SET_DUMPABLE) for the command's namespaces", errno);
		_exit(EXIT_SETUP);
	}
	pid = clone_ns(CLONE_NEWUSER | CLONE_NEWNS);
	if (pid < 0 && (errno == ENOSPC || errno == EUSERS || errno == EPERM)) {
		failf("srt-linux-init: create the command's user and mount namespaces: %s (the "
		      "command gets a user namespace of its own below bwrap's; check "
		      "user.max_user_namespaces and any limit set above srt); the command was not run",
		      strerror(errno));
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		_exit(EXIT_SETUP);
	}
	if (pid != 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		fail("prctl(PR_SET_DUMPABLE) in the nested init", errno);
		if (pid > 0)
			kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (pid < 0) {
		fail("create the command's user and mount namespaces", errno);
		_exit(EXIT_SETUP);
	}
	if (pid == 0) {
		char c;
		ssize_t n;

		close(go[1]);
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		close(go[0]);
		if (n != 1)
			_exit(EXIT_SETUP); /* the nested init failed and said why */
		/* the first process of a user namespace holds every
		 * capability in it */
		if (drop_caps() != 0)
			_exit(EXIT_SETUP);
		worker(o, orig_mask);
	}
	close(go[0]);
	if (write_id_maps(pid, 0) != 0) {
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (drop_caps() != 0) { /* it said why */
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (write(go[1], &one, 1) != 1) {
		fail("start the command's namespaces", errno);
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	close(go[1]);
	return pid;
}

/* PID 1 of the nested namespaces: wait for the outer helper's go-ahead,
 * finish the namespace setup, run the worker, forward and reap. */
static void nested_init(const struct opts *o, int go_fd, int made_userns, const sigset_t *set,
			const sigset_t *orig_mask) __attribute__((noreturn));
static void nested_init(const struct opts *o, int go_fd, int made_userns, const sigset_t *set,
			const sigset_t *orig_mask)
{
	int fresh_proc = 0;
	char go;
	ssize_t n;
	pid_t pid;

	do
		n = read(go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	close(go_fd);
	if (n != 1)
		_exit(EXIT_SETUP); /* the outer helper failed and said why */
	/* the monitor's ends belong to the outer helper */
	if (mon_sock[0] >= 0)
		close(mon_sock[0]);
	if (o->events_fd >= 0)
		close(o->events_fd);

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		fail("prctl(PR_SET_DUMPABLE) in the nested init", errno);
		_exit(EXIT_SETUP);
	}
	/* our mounts must not propagate back into bwrap's namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fail("make / private in the nested mount namespace", errno);
		_exit(EXIT_SETUP);
	}
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
		fresh_proc = 1;
	} else {
		/* enableWeakerNestedSandbox is for hosts (unprivileged
		 * containers) where proc cannot be mounted; the user accepted
		 * the host's /proc there */
		if (!o->weaker) {
			fail("mount /proc for the nested pid namespace", errno);
			_exit(EXIT_SETUP);
		}
		if (o->debug)
			say("srt-linux-init: (debug) mount /proc: %s; keeping the bound one (weaker nested sandbox)",
			    strerror(errno));
	}
	if (made_userns && !o->allow_userns && !o->make_dev_proc) {
		/* a second lock besides seccomp: no user namespace can be made
		 * below this one. Best effort. Not with
		 * --make-dev-proc, where the command gets one of its own, which
		 * the limit would refuse. */
		int err = write_file("/proc/sys/user/max_user_namespaces", "0");
		if (err && o->debug)
			say("srt-linux-init: (debug) max_user_namespaces=0 in the nested user namespace: %s",
			    strerror(err));
	}
	/* on the host's /proc that the weaker mode binds in, the container
	 * runtime decides what is writable; our covers are best effort there */
	if (cover_proc(fresh_proc || !o->weaker, o->debug) != 0)
		_exit(EXIT_SETUP);
	/* with --make-dev-proc the outer helper covered them, before the
	 * copy that locks them */
	if (!o->make_dev_proc && hide_files(o) != 0)
		_exit(EXIT_SETUP);
	if (o->make_dev_proc) {
		pid = start_locked_worker(o, orig_mask);
	} else {
		if (drop_caps() != 0)
			_exit(EXIT_SETUP);
		pid = fork();
		if (pid < 0) {
			fail("fork the command", errno);
			_exit(EXIT_SETUP);
		}
		if (pid == 0)
			worker(o, orig_mask);
	}
	if (status_fd >= 0)
		close(status_fd);
	if (mon_sock[1] >= 0)
		close(mon_sock[1]); /* the worker's: EOF for the outer if it dies early */
	_exit(supervise(pid, set));
}

static int run(int argc, char **argv)
{
	struct opts o;
	sigset_t set, orig_mask;
	struct sigaction dfl;
	int go[2] = { -1, -1 };
	int made_userns = 0;
	pid_t child = -1;
	size_t i;
	char one = 1;
	int rc = EXIT_SETUP;

	if (parse_opts(argc, argv, &o) != 0)
		return EXIT_SETUP;
	/* who to forward signals to: our pid travels with this byte */
	if (status_fd >= 0 && write(status_fd, "P", 1) != 1) {
		fail("report to srt", errno);
		return EXIT_SETUP;
	}

	/* Block what we forward, and SIGCHLD, before any child exists: a
	 * signal that comes early stays pending and is forwarded once there
	 * is someone to forward it to. PID 1 gets signals it blocks (it would
	 * drop default-action ones it does not). */
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* SIG_IGN inherited for SIGCHLD would make the kernel reap for us */
	if (sigaction(SIGCHLD, &dfl, NULL) != 0 || sigprocmask(SIG_BLOCK, &set, &orig_mask) != 0) {
		fail("signal setup", errno);
		return EXIT_SETUP;
	}
	/* before the nested namespaces, which copy it. Only as bwrap's
	 * command (PID 2 beside its reaper, 1 with --as-pid-1): run by hand
	 * as root it would cover the host's own /dev and /proc. */
	if (o.make_dev_proc && getpid() > 2) {
		failf("srt-linux-init: --make-dev-proc: this process (pid %ld) is not the first of a "
		      "new pid namespace; the option is for bwrap's command only",
		      (long)getpid());
		return EXIT_SETUP;
	}
	if (o.make_dev_proc && !in_new_userns()) {
		failf("srt-linux-init: --make-dev-proc: this process is in the host's user namespace "
		      "(or /proc/self/ns/user cannot be read); the option is for bwrap's command only");
		return EXIT_SETUP;
	}
	if (o.make_dev_proc && make_dev_proc() != 0)
		return EXIT_SETUP;
	/* before any namespace is copied: the command's copy, made across a
	 * user namespace boundary, has them locked, so no cover comes off */
	if (o.make_dev_proc && hide_files(&o) != 0)
		return EXIT_SETUP;
	if (o.events_fd >= 0) {
		char err[256];

		if (srt__monitor_load(o.policy_fd, o.events_fd, o.debug, &monitor, err, sizeof(err)) != 0) {
			failf("srt-linux-init: violation monitor: %s", err);
			return EXIT_SETUP;
		}
		close(o.policy_fd);
		o.policy_fd = -1;
		/* before the filters and namespaces: the worker's end travels
		 * with it into the nested namespaces */
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mon_sock) != 0) {
			fail("violation monitor: socketpair", errno);
			return EXIT_SETUP;
		}
	}
	if (pipe2(go, O_CLOEXEC) != 0) {
		fail("pipe", errno);
		return EXIT_SETUP;
	}

	child = clone_ns(CLONE_NEWPID | CLONE_NEWNS);
	if (child < 0 && errno == EPERM) {
		if (o.debug)
			say("srt-linux-init: (debug) no CAP_SYS_ADMIN here, nesting a user namespace");
		made_userns = 1;
		child = clone_ns(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS);
	}
	if (child < 0) {
		int err = errno;

		if (made_userns && (err == EPERM || err == ENOSPC || err == EUSERS))
			failf("srt-linux-init: create the nested user, pid and mount namespaces: %s "
			      "(bubblewrap did not keep CAP_SYS_ADMIN for the helper and no user namespace "
			      "can be made inside the sandbox: user.max_user_namespaces, a seccomp profile "
			      "or bwrap --disable-userns); the command was not run",
			      strerror(err));
		else
			fail(made_userns ? "create the nested user, pid and mount namespaces"
					 : "create the nested pid and mount namespaces",
			     err);
		goto out;
	}
	if (child == 0) {
		close(go[1]);
		nested_init(&o, go[0], made_userns, &set, &orig_mask);
	}
	close(go[0]);
	go[0] = -1;
	if (mon_sock[1] >= 0) {
		close(mon_sock[1]);
		mon_sock[1] = -1;
	}

	if (made_userns && write_id_maps(child, 1) != 0)
		goto out;
	/* From here on nothing from the sandbox may ptrace or read us. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		fail("prctl(PR_SET_DUMPABLE)", errno);
		goto out;
	}
	if (drop_caps() != 0)
		goto out;
	if (o.proxy_socket) {
		struct srt__bridge_spec spec = {
			.socket_path = o.proxy_socket,
			.socket_dev = o.proxy_dev,
			.socket_ino = o.proxy_ino,
			.http_port = o.http_port,
			.socks_port = o.socks_port,
		};
		pid_t relay;

		if (srt__bridge_start(&spec, &relay) != 0) {
			/* the bridge said why on stderr */
			failf("srt-linux-init: the proxy bridge could not start (see the bridge's message)");
			goto out;
		}
	}
	/* after the bridge's fork: no fork once there is a second thread */
	if (monitor) {
		int err = start_monitor_thread(&child);

		if (err) {
			fail("start the violation monitor thread", err);
			goto out;
		}
	}
	if (write(go[1], &one, 1) != 1) {
		fail("start the nested init", errno);
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	if (status_fd >= 0)
		close(status_fd);
	rc = supervise(child, &set);
	/* a note about dropped events may still be waiting for room */
	srt__monitor_finish(monitor, 200);
	/* The last event is out: say so, so srt need not wait for EOF, which
	 * only comes when bwrap's own processes, holding copies of this
	 * descriptor, have exited. A NUL cannot occur in an event line. */
	if (monitor && o.events_fd >= 0 && write(o.events_fd, "\0\n", 2) != 2 && o.debug)
		say("srt-linux-init: (debug) end-of-events mark: %s", strerror(errno));
	return rc;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	return rc;
}

int main(int argc, char **argv)
{
	/* _exit: no atexit work in a process that may be PID 1 of a namespace
	 * and is not dumpable (a leak checker's ptrace would fail and change
	 * the exit status the command's caller sees) */
	_exit(run(argc, argv));
}
