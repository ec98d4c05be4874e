/* bench/notifyfloor.c: the least any seccomp user-notification observer
 * can cost, for judging srt's violation monitor against it.
 *
 *   notifyfloor [--calls opens|writes|all] COMMAND [ARG...]
 *
 * Runs COMMAND (with its children) under a seccomp filter that sends a set
 * of calls to a supervisor thread of this process, which answers each at
 * once with SECCOMP_USER_NOTIF_FLAG_CONTINUE: no path read, no judgement,
 * no file opened for the caller. The sets:
 *   opens   every open and openat (the default);
 *   writes  the calls srt's monitor observes when nothing is denied for
 *           reading (backends/linux-common/seccomp.c, srt__observed_syscalls
 *           and build_observer): an open or openat with a write flag
 *           (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND), creat, every
 *           call that makes, removes, renames, links or changes the
 *           metadata of a name, and the calls it refuses unless
 *           allowAllUnixSockets is set (socket of AF_UNIX or AF_VSOCK, a
 *           socketpair of AF_UNIX datagrams, io_uring_*);
 *   all     those and every open: what the monitor observes with denyRead.
 * Left out: connect, which srt observes only when allowUnixSockets lists
 * paths (the benchmark's settings list none).
 * The listener asks for the kernel's synchronous wake-ups
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6), as srt's monitor does.
 * So the difference between a build run this way and the same build
 * outside is the mechanism's own price, two context switches per call: a
 * ceiling for every observer that sees each of those calls (bench/run's
 * build row runs "writes" beside srt with allowWrite and "all" beside srt
 * with denyRead). A benchmark, not a sandbox: the filter does not look at
 * the calling convention (x32, i386), which srt's filters refuse.
 * Exits with COMMAND's status; 125 when the filter cannot be set up, 2 on
 * a bad option. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The calls that make, remove, rename, link or change a name, as srt's
 * monitor observes them (those this architecture has). */
static const int write_calls[] = {
#ifdef SYS_creat
	SYS_creat,
#endif
	SYS_unlinkat, SYS_mkdirat, SYS_mknodat, SYS_symlinkat, SYS_linkat, SYS_renameat2,
	SYS_fchmodat, SYS_fchownat, SYS_utimensat, SYS_truncate,
#ifdef SYS_renameat
	SYS_renameat,
#endif
#ifdef SYS_fchmodat2
	SYS_fchmodat2,
#else
	452, /* fchmodat2, the same number on every architecture */
#endif
#ifdef SYS_unlink
	SYS_unlink, SYS_rmdir, SYS_rename, SYS_link, SYS_symlink, SYS_mkdir, SYS_mknod,
	SYS_chmod, SYS_chown, SYS_lchown, SYS_utime, SYS_utimes, SYS_futimesat,
#endif
	/* io_uring_setup, _enter, _register: the same numbers everywhere */
	425, 426, 427,
};
#define N_WRITE_CALLS (sizeof(write_calls) / sizeof(write_calls[0]))

enum calls { CALLS_OPENS = 1, CALLS_WRITES = 2, CALLS_ALL = 3 };

/* A filter under construction: each jump's target is the next
 * instruction, a number of instructions ahead, or one of the two returns
 * at the end, resolved when the filter is complete. */
#define TO_NOTIFY 0x100
#define TO_ALLOW 0x200
struct prog {
	struct sock_filter f[96];
	unsigned jt[96], jf[96]; /* 0..255: ahead; or TO_NOTIFY, TO_ALLOW */
	size_t n;
};

static void op(struct prog *p, uint16_t code, uint32_t k, unsigned jt, unsigned jf)
{
	if (p->n == sizeof(p->f) / sizeof(p->f[0])) {
		fprintf(stderr, "notifyfloor: the filter outgrew its %zu instructions\n", p->n);
		exit(125);
	}
	p->f[p->n] = (struct sock_filter){ code, 0, 0, k };
	p->jt[p->n] = jt;
	p->jf[p->n] = jf;
	p->n++;
}

#define LD_NR(p) op(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0)
/* the low 32 bits of an argument (x86_64 and aarch64 are little-endian:
 * they come first) */
#define LD_ARG(p, i) op(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]), 0, 0)
#define JEQ(p, k, jt, jf) op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(k), jt, jf)

/* The filter for the set calls: everything else allowed. */
static int load_filter(enum calls calls)
{
	static const int opens[] = {
#ifdef SYS_open
		SYS_open,
#endif
		SYS_openat,
	};
	static const unsigned flag_arg[] = {
#ifdef SYS_open
		1,
#endif
		2,
	};
	const uint32_t wflags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
	struct prog p = { .n = 0 };
	struct sock_fprog prog;
	size_t i, ret_allow, ret_notify;

	LD_NR(&p);
	for (i = 0; (calls & CALLS_WRITES) && i < N_WRITE_CALLS; i++)
		JEQ(&p, write_calls[i], TO_NOTIFY, 0);
	for (i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		if (calls & CALLS_OPENS) {
			JEQ(&p, opens[i], TO_NOTIFY, 0);
			continue;
		}
		/* this open? its flags decide; else on to the next test */
		JEQ(&p, opens[i], 0, 2);
		LD_ARG(&p, flag_arg[i]);
		op(&p, BPF_JMP | BPF_JSET | BPF_K, wflags, TO_NOTIFY, TO_ALLOW);
	}
	if (calls & CALLS_WRITES) {
		/* socket(AF_UNIX or AF_VSOCK, ...) */
		JEQ(&p, SYS_socket, 0, 3);
		LD_ARG(&p, 0);
		JEQ(&p, AF_UNIX, TO_NOTIFY, 0);
		JEQ(&p, AF_VSOCK, TO_NOTIFY, TO_ALLOW);
		/* socketpair(AF_UNIX, a type other than a stream or a
		 * seqpacket, ...) */
		JEQ(&p, SYS_socketpair, 0, TO_ALLOW);
		LD_ARG(&p, 0);
		JEQ(&p, AF_UNIX, 0, TO_ALLOW);
		LD_ARG(&p, 1);
		op(&p, BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);
		JEQ(&p, SOCK_STREAM, TO_ALLOW, 0);
		JEQ(&p, SOCK_SEQPACKET, TO_ALLOW, TO_NOTIFY);
	}
	ret_allow = p.n;
	op(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	ret_notify = p.n;
	op(&p, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	for (i = 0; i < p.n; i++) {
		unsigned *t[2] = { &p.jt[i], &p.jf[i] };
		uint8_t *o[2] = { &p.f[i].jt, &p.f[i].jf };

		for (int k = 0; k < 2; k++) /* a jump counts from the next instruction */
			*o[k] = (uint8_t)(*t[k] == TO_NOTIFY ? ret_notify - i - 1 :
					  *t[k] == TO_ALLOW  ? ret_allow - i - 1 : *t[k]);
	}
	prog.len = (unsigned short)p.n;
	prog.filter = p.f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int send_fd(int sock, int fd)
{
	char byte = 'L';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	int fd = -1;

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

struct supervisor {
	int listener;
	pid_t child; /* killed when the supervisor cannot go on: its opens
		      * would wait for an answer forever */
};

static void *give_up(const struct supervisor *s, const char *what)
{
	fprintf(stderr, "notifyfloor: %s: %s\n", what, strerror(errno));
	kill(s->child, SIGKILL);
	return NULL;
}

static void *answer(void *p)
{
	const struct supervisor *s = p;
	int listener = s->listener;
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return give_up(s, "SECCOMP_GET_NOTIF_SIZES");
	req = calloc(1, sz.seccomp_notif > sizeof(*req) ? sz.seccomp_notif : sizeof(*req));
	resp = calloc(1, sz.seccomp_notif_resp > sizeof(*resp) ? sz.seccomp_notif_resp : sizeof(*resp));
	if (!req || !resp)
		return give_up(s, "out of memory");
	for (;;) {
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
			struct pollfd pf = { listener, POLLIN, 0 };

			if (errno != EINTR && errno != ENOENT)
				return give_up(s, "SECCOMP_IOCTL_NOTIF_RECV");
			if (poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP) && !(pf.revents & POLLIN))
				return NULL; /* nobody uses the filter any more */
			continue;
		}
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}

int main(int argc, char **argv)
{
	int sv[2], listener, status;
	uint64_t fl = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	enum calls calls = CALLS_OPENS;
	struct supervisor sup;
	pthread_t t;
	pid_t pid;

	if (argc >= 2 && !strncmp(argv[1], "--", 2)) {
		if (argc < 3 || strcmp(argv[1], "--calls"))
			argc = 0; /* the usage below */
		else if (!strcmp(argv[2], "opens"))
			calls = CALLS_OPENS;
		else if (!strcmp(argv[2], "writes"))
			calls = CALLS_WRITES;
		else if (!strcmp(argv[2], "all"))
			calls = CALLS_ALL;
		else
			argc = 0; /* the usage below */
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: notifyfloor [--calls opens|writes|all] COMMAND [ARG...]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("notifyfloor: socketpair");
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("notifyfloor: fork");
		return 125;
	}
	if (pid == 0) {
		char go;
		int l = load_filter(calls);

		/* the filter's first notification would be this process's own
		 * open: the listener goes to the parent before anything opens */
		if (l < 0 || send_fd(sv[1], l) != 0) {
			perror("notifyfloor: seccomp user notification");
			_exit(125);
		}
		close(l);
		if (read(sv[1], &go, 1) != 1)
			_exit(125);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(sv[1]);
	listener = recv_fd(sv[0]);
	if (listener < 0) {
		waitpid(pid, &status, 0);
		return 125;
	}
	/* without the flag (a kernel before 6.6) the figure is a higher ceiling */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (unsigned long)fl) != 0)
		fprintf(stderr, "notifyfloor: no synchronous wake-ups here (%s)\n", strerror(errno));
	sup.listener = listener;
	sup.child = pid;
	if (pthread_create(&t, NULL, answer, &sup) != 0 || write(sv[0], "g", 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return 125;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
