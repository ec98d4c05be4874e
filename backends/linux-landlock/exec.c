/* srt-landlock-exec: replay a linux-landlock rule plan on this process and
 * exec the command.
 *
 *   srt-landlock-exec --plan-fd N [--super-fd M --events-fd E] -- command [args...]
 *
 * Steps, in this order: read and check the plan (plan.h), no_new_privs,
 * the parent-death signal (the command dies with srt), open every granted
 * path and check it is still the object srt planned for, drop every
 * capability, restrict self with the ruleset, load the seccomp filters
 * (the shared one of linux-bwrap and ours: socket families, io_uring,
 * chown and xattrs), exec.
 *
 * With --super-fd (the write supervisor's plan, supervisor.h), the helper
 * forks after the plan is built: the child becomes the command (Landlock,
 * the filters, then the supervisor's filter, whose listener it hands to
 * the parent before exec), and the parent stays outside the command's
 * Landlock domain as its supervisor, the process srt waits for: it answers
 * the notifications until the command ends, forwards srt's signals to it,
 * and ends the way the command ended. Being the command's parent is what
 * lets it read the command's memory under Yama's ptrace_scope 1; the
 * command cannot ptrace it (Landlock refuses tracing out of a domain), and
 * if it kills it (signals are scoped from Landlock ABI 6) its supervised
 * calls fail with ENOSYS and the parent-death signal ends it.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/netfilter.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/landlock-replay.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/helper-defs.h"
#include "backends/linux-common/supervisor.h"
#include "backends/linux-common/syscall-nr.h"

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

static long parse_fd(const char *s)
{
	char *end;
	long fd;

	errno = 0;
	fd = strtol(s, &end, 10);
	if (errno || *end || fd < 3 || fd > 65535)
		die("arguments", "bad descriptor \"%s\"", s);
	return fd;
}

static int send_fd(int sock, int fd)
{
	char c = 'L';
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof(m));
	memset(&u, 0, sizeof(u));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m;
	struct cmsghdr *cm;
	int fd = -1;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static volatile pid_t command_pid;

static void forward(int sig)
{
	if (command_pid > 0)
		kill(command_pid, sig);
}

/* End the way the command ended. */
static void __attribute__((noreturn)) exit_like(int ws)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;
	int sig;

	if (WIFEXITED(ws))
		_exit(WEXITSTATUS(ws));
	sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : SIGKILL;
	setrlimit(RLIMIT_CORE, &none); /* the command dumped, if anyone */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

/* The parent after the fork: the supervisor. */
static void __attribute__((noreturn)) supervise(struct srt__super *sup, pid_t child, int sock, int events_fd)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGWINCH };
	struct sigaction sa;
	size_t i;
	int listener, pidfd, ws = 0, null;

	command_pid = child;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	listener = recv_fd(sock);
	if (listener < 0) {
		/* the command never got its filter: it is not running */
		close(sock);
		while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
			;
		exit_like(ws);
	}
	if (write(sock, "A", 1) != 1) {
		kill(child, SIGKILL);
	}
	close(sock);
	/* nothing of the command's terminal or pipes stays open here */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	/* the supervisor does for the command only what its file
	 * permissions allow the command itself */
	drop_caps();
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (srt__super_serve(sup, listener, pidfd, events_fd) != 0)
		kill(child, SIGKILL);
	close(listener); /* from here every supervised call fails (ENOSYS) */
	while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
		;
	exit_like(ws);
}

/* The child after the fork: the command, with the supervisor's filter
 * last (its USER_NOTIF yields to the other filters' ERRNO rules). */
static void hand_listener(int sock, unsigned flags)
{
	char step[128] = "", ack;
	int listener, rc;

	rc = srt__seccomp_install_supervisor(flags, &listener, step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	if (send_fd(sock, listener) != 0)
		die("supervisor", "cannot hand over the listener: %s", strerror(errno));
	close(listener);
	if (read(sock, &ack, 1) != 1)
		die("supervisor", "the supervisor did not start");
	close(sock);
}

int main(int argc, char **argv)
{
	struct srt__ll_replay p;
	char step[128] = "";
	char *buf;
	size_t len;
	long fd = -1, super_fd = -1, events_fd = -1;
	struct srt__super *sup = NULL;
	int i, rc, sock[2] = { -1, -1 }, unix_sup = 0, sup_acts = 0;
	pid_t child = -1, me;

	srt__ll_replay_init(&p);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plan-fd") && i + 1 < argc) {
			fd = parse_fd(argv[++i]);
		} else if (!strcmp(argv[i], "--super-fd") && i + 1 < argc) {
			super_fd = parse_fd(argv[++i]);
		} else if (!strcmp(argv[i], "--events-fd") && i + 1 < argc) {
			events_fd = parse_fd(argv[++i]);
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

	if (srt__ll_replay_read(&p, (int)fd, &buf, &len) != 0)
		die(p.step, "%s", p.why);
	close((int)fd);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)", "%s", strerror(errno));
	/* no pid namespace: at least the command goes when srt goes */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		die("prctl(PR_SET_PDEATHSIG)", "%s", strerror(errno));

	/* "here" records are linux-bwrap's: there is no sandbox-made object
	 * to grant here, so a plan with one is not ours */
	if (srt__ll_replay_build(&p, buf, len, 0) != 0 || srt__ll_replay_stdio(&p) != 0)
		die(p.step, "%s", p.why);
	free(buf);
	/* the shared filter left AF_UNIX to a supervisor: there must be one */
	if ((p.seccomp & SRT_SECCOMP_UNIX_OBSERVED) && super_fd < 0)
		die("seccomp", "the plan leaves Unix sockets to a supervisor, and none was given");
	if (super_fd >= 0) {
		char err[256];

		if (srt__super_load((int)super_fd, &sup, err, sizeof(err)) != 0)
			die("supervisor plan", "%s", err);
		close((int)super_fd);
		if (events_fd >= 0)
			fcntl((int)events_fd, F_SETFD, FD_CLOEXEC);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) != 0)
			die("supervisor", "socketpair: %s", strerror(errno));
		me = getpid();
		child = fork();
		if (child < 0)
			die("supervisor", "fork: %s", strerror(errno));
		if (child > 0) {
			close(sock[1]);
			srt__ll_replay_release(&p);
			supervise(sup, child, sock[0], (int)events_fd);
		}
		/* the command: it goes when its supervisor goes */
		close(sock[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
			die("prctl(PR_SET_PDEATHSIG)", "%s", strerror(errno));
		if (getppid() != me)
			die("supervisor", "the supervisor ended before the command started");
		if (events_fd >= 0)
			close((int)events_fd);
		unix_sup = srt__super_has_unix(sup);
		sup_acts = srt__super_acts(sup);
		srt__super_free(sup);
		sup = NULL;
	}
	drop_caps();
	if (srt__ll_replay_restrict(&p) != 0)
		die(p.step, "%s", p.why);
	/* The supervisor performs the calls it answers outside the command's
	 * Landlock domain, so a domain the command would add to itself would
	 * not hold for them (tests/escape/0992): the command is refused
	 * landlock_restrict_self (EPERM) instead of believing in a layer that
	 * its write-opens, mkdirs, renames and unlinks in the write roots
	 * would pass. Our own ruleset is in place already (above). */
	rc = srt__seccomp_install(p.seccomp | (sup_acts ? SRT_SECCOMP_NO_LANDLOCK_SELF : 0), step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	rc = srt__ll_seccomp_install((p.inet_block ? SRT_LL_SECCOMP_INET : 0) |
				     (p.meta_block ? SRT_LL_SECCOMP_META : 0) |
				     ((p.seccomp & SRT_SECCOMP_UNIX_OBSERVED) ? SRT_LL_SECCOMP_DGRAM_PAIR : 0),
				     step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	if ((p.seccomp & SRT_SECCOMP_UNIX_OBSERVED) && !unix_sup)
		die("seccomp", "the plan leaves Unix sockets to a supervisor that allows none");
	if (sock[1] >= 0)
		/* mode and time changes go to the supervisor whenever the
		 * filesystem rules are on (the plan's metadata block) */
		hand_listener(sock[1], (unix_sup ? SRT_SUPER_UNIX : 0) | (p.meta_block ? SRT_SUPER_META : 0));
	execvp(argv[i], argv + i);
	rc = errno;
	fprintf(stderr, "srt-landlock-exec: %s: %s\n", argv[i], strerror(rc));
	_exit(rc == ENOENT || rc == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}
