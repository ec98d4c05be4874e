/* Socket helpers of the network tests; see netkit.h. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "proxies/pump.h"
#include "proxies/wire.h"
#include "tests/helpers/netkit.h"

int netkit_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int netkit_unshare(int flags)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (uid == 0)
		return unshare(flags) < 0 ? -1 : 0;
	if (unshare(CLONE_NEWUSER | flags) < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (netkit_write_file("/proc/self/uid_map", map) < 0)
		return -1;
	netkit_write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	return netkit_write_file("/proc/self/gid_map", map);
}

int netkit_lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ? -1 : 0;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int netkit_listen_tcp(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4096) < 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	*port = ntohs(sa.sin_port);
	return fd;
}

void *netkit_echo_server(void *arg)
{
	int lfd = *(int *)arg, ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[64];
	struct srt__pipe_pool pool = { .n = 0 };
	struct ec {
		int fd;
		struct srt__pump p;
		bool shut;
	};

	fcntl(lfd, F_SETFL, O_NONBLOCK);
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 64, -1), ndead = 0;
		struct ec *dead[64];
		for (int i = 0; i < n; i++) {
			struct ec *c = evs[i].data.ptr;
			bool gone = false;
			for (int k = 0; k < ndead; k++)
				gone |= dead[k] == c;
			if (gone)
				continue;
			if (!c) {
				int fd;
				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					c = calloc(1, sizeof(*c));
					c->fd = fd;
					srt__pump_init(&c->p);
					ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			int rc = srt__pump_run(&c->p, c->fd, c->fd, &pool, NULL);
			if (rc == SRT_PUMP_EOF && !c->shut) {
				shutdown(c->fd, SHUT_WR);
				c->shut = true;
			}
			if (rc == SRT_PUMP_ERROR || (c->shut && (evs[i].events & (EPOLLHUP | EPOLLERR)))) {
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				srt__pump_release(&c->p, NULL);
				close(c->fd);
				/* freed after the batch: a later event in it may name it */
				dead[ndead++] = c;
			}
		}
		for (int k = 0; k < ndead; k++)
			free(dead[k]);
	}
	return NULL;
}

void netkit_serve_threads(int lfd, void *(*conn)(void *), atomic_int *live)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;

		if (fd < 0) {
			if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK)
				return;
			continue;
		}
		if (live)
			atomic_fetch_add(live, 1);
		if (pthread_create(&t, NULL, conn, (void *)(intptr_t)fd) != 0) {
			close(fd);
			if (live)
				atomic_fetch_sub(live, 1);
			continue;
		}
		pthread_detach(t);
	}
}

size_t netkit_socks_open(char *buf, const char *token, const void *request, size_t rl)
{
	size_t tl = strlen(token);

	memcpy(buf, "\x05\x01\x02\x01\x03srt", 8);
	buf[8] = (char)tl;
	memcpy(buf + 9, token, tl);
	memcpy(buf + 9 + tl, request, rl);
	return 9 + tl + rl;
}

void netkit_socks_loopback(char *buf, int port)
{
	memcpy(buf, "\x05\x01\x00\x01\x7f\x00\x00\x01", 8);
	buf[8] = (char)(port >> 8);
	buf[9] = (char)(port & 255);
}

int netkit_send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

size_t netkit_recv_n(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int netkit_unix_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int netkit_ctl_connect(const char *path)
{
	struct timeval tv = { 5, 0 };
	char hello = SRT_PASS_HELLO, ack = 1;
	int fd = netkit_unix_connect(path);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, &hello, 1, MSG_NOSIGNAL) != 1 || read(fd, &ack, 1) != 1 ||
	    ack != SRT_PASS_HELLO) {
		close(fd);
		return -1;
	}
	return fd;
}

int netkit_send_fds(int ctl, const int *fds, int n)
{
	/* the bridge's own sender, so the tests pass descriptors exactly as
	 * the bridge does */
	return srt__pass_send(ctl, fds, n, 0) == 1 ? 0 : -1;
}
