/* srt-linux-init: starting the violation monitor: the worker's observe
 * filter, the hand-over of its listener to the outer helper, and the
 * outer's thread that answers it (see observer.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/observer.h"
#include "backends/linux-bwrap/init/report.h"
#include "backends/linux-common/helper-defs.h"
#include "backends/linux-common/seccomp.h"

struct srt__monitor *srt__init_monitor;
int srt__init_mon_sock[2] = { -1, -1 };
int srt__init_ll_ruleset = -1;

/* One byte on the socketpair, with the listener attached or without,
 * and the Landlock layer's ruleset after it when ll >= 0. */
static int send_listener(int sock, int fd, int ll)
{
	char byte = fd >= 0 ? 'L' : 'N';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	int fds[2] = { fd, ll };
	struct msghdr msg;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd >= 0) {
		size_t k = ll >= 0 ? 2 : 1;
		struct cmsghdr *c;

		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(k * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(c), fds, k * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* The listener from the worker: >= 0, or -1 when the worker runs without
 * the observer ('N', or it died: EOF). *ll: the layer's ruleset, or -1. */
static int recv_listener(int sock, int *ll)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	struct msghdr msg;
	struct cmsghdr *c;
	int fds[2] = { -1, -1 };
	ssize_t n;

	*ll = -1;
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
		    (c->cmsg_len == CMSG_LEN(sizeof(int)) || c->cmsg_len == CMSG_LEN(2 * sizeof(int))))
			memcpy(fds, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
	if (byte != 'L' || fds[0] < 0 || (msg.msg_flags & MSG_CTRUNC)) {
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		return -1;
	}
	*ll = fds[1];
	return fds[0];
}

/* In the worker: load the observe filter and hand its listener to the
 * outer helper before anything else can make an observed call (each one
 * waits for an answer). Returns the flags for the enforcement filter. */
unsigned srt__init_observe_flags(const struct srt__init_opts *o)
{
	unsigned obs = 0, mflags;

	if (!srt__init_monitor)
		return 0;
	mflags = srt__monitor_flags(srt__init_monitor);
	if (mflags & SRT_MONITOR_WRITES)
		obs |= SRT_OBSERVE_WRITES;
	if (mflags & SRT_MONITOR_READS)
		obs |= SRT_OBSERVE_READS;
	if (!o->allow_unix)
		obs |= SRT_OBSERVE_UNIX;
	/* allowed Unix socket paths: every connect is the monitor's to make */
	if (!o->allow_unix && (mflags & SRT_MONITOR_UNIX_PATHS))
		obs |= SRT_OBSERVE_CONNECT;
	return obs;
}

unsigned srt__init_start_observer(const struct srt__init_opts *o, const struct srt__seccomp_prebuilt *pb)
{
	unsigned obs = srt__init_observe_flags(o);
	char step[128] = "";
	int lfd = -1, rc;

	if (!obs)
		rc = -ENODATA;
	else if (pb && pb->observe == obs && pb->n_obs)
		rc = srt__seccomp_load_observer_prebuilt(pb, &lfd, step, sizeof(step));
	else
		rc = srt__seccomp_install_observer(obs, &lfd, step, sizeof(step));
	if (rc < 0 && lfd == -2) {
		char what[200];
		snprintf(what, sizeof(what), "seccomp: %s", step);
		srt__init_fail(what, -rc);
		_exit(EXIT_SETUP);
	}
	/* out of descriptors or memory is no kernel without the feature: the
	 * run stops rather than lose the monitor's reports and its denyRead
	 * checks for a reason a retry would not have */
	if (rc == -EMFILE || rc == -ENFILE || rc == -ENOMEM || rc == -EAGAIN) {
		char what[200];

		snprintf(what, sizeof(what), "start the violation monitor (seccomp: %s)", step);
		srt__init_fail(what, -rc);
		_exit(EXIT_SETUP);
	}
	if (rc < 0) {
		if (o->debug && obs)
			srt__init_say("srt-linux-init: (debug) violation monitor unavailable (%s: %s); "
			    "installing the plain filters, nothing is reported",
			    step, strerror(-rc));
		send_listener(srt__init_mon_sock[1], -1, -1);
		close(srt__init_mon_sock[1]);
		return 0;
	}
	if (send_listener(srt__init_mon_sock[1], lfd, srt__init_ll_ruleset) != 0) {
		/* nobody would answer: every observed call would wait */
		srt__init_fail("hand the seccomp listener to the monitor", errno);
		_exit(EXIT_SETUP);
	}
	close(lfd);
	if (srt__init_ll_ruleset >= 0) {
		close(srt__init_ll_ruleset);
		srt__init_ll_ruleset = -1;
	}
	close(srt__init_mon_sock[1]);
	if (o->debug)
		srt__init_say("srt-linux-init: (debug) violation monitor on (%s%s%s%s)",
		    obs & SRT_OBSERVE_WRITES ? "writes " : "", obs & SRT_OBSERVE_READS ? "reads " : "",
		    obs & SRT_OBSERVE_UNIX ? "unix-sockets" : "",
		    obs & SRT_OBSERVE_CONNECT ? " connect" : "");
	return (obs & SRT_OBSERVE_UNIX ? SRT_SECCOMP_UNIX_OBSERVED : 0) |
	       (obs & SRT_OBSERVE_READS ? SRT_SECCOMP_NO_LANDLOCK_SELF : 0);
}

/* The outer helper's monitor thread: wait for the listener from the
 * worker, then answer notifications for as long as the sandbox runs. It
 * blocks in SECCOMP_IOCTL_NOTIF_RECV rather than poll(2), so the kernel can
 * hand it the CPU of the notifying task directly (SYNC_WAKE_UP). Every
 * signal is blocked here: they are the main thread's to forward. */
static void *monitor_main(void *arg)
{
	pid_t child = *(pid_t *)arg;
	int lfd, ll, err;

	lfd = recv_listener(srt__init_mon_sock[0], &ll);
	close(srt__init_mon_sock[0]);
	srt__init_mon_sock[0] = -1;
	if (lfd < 0)
		return NULL; /* the worker runs the plain filters, or died */
	if (ll >= 0) {
		err = srt__monitor_confine(srt__init_monitor, ll);
		close(ll);
		if (err) {
			/* it would make the command's calls outside the layer */
			srt__init_fail("put the violation monitor's calls under the Landlock layer", err);
			kill(child, SIGKILL);
			close(lfd);
			return NULL;
		}
	}
	err = -srt__monitor_attach(srt__init_monitor, lfd);
	if (err) {
		/* nobody would answer: observed calls would wait forever */
		if (err == EOPNOTSUPP)
			srt__init_failf("srt-linux-init: the violation monitor cannot open files for the "
				      "command (denyRead needs SECCOMP_IOCTL_NOTIF_ADDFD, Linux 5.9 or "
				      "later; this kernel refuses it); the command was stopped before "
				      "it read anything");
		else
			srt__init_fail("start the violation monitor", err);
		kill(child, SIGKILL);
		return NULL;
	}
	while (srt__monitor_handle(srt__init_monitor) == 0)
		;
	/* the listener broke: observed calls now fail with ENOSYS (closed) */
	close(lfd);
	return NULL;
}

int srt__init_start_monitor_thread(pid_t *child)
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
