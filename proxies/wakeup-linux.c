/* proxies/wakeup.h with eventfd and timerfd, joined under one epoll
 * descriptor. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "proxies/wakeup.h"

struct srt__wakeup {
	int epfd, evfd, tfd;
};

void srt__wakeup_free(struct srt__wakeup *w)
{
	if (!w)
		return;
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->evfd >= 0)
		close(w->evfd);
	if (w->tfd >= 0)
		close(w->tfd);
	free(w);
}

int srt__wakeup_new(struct srt__wakeup **out)
{
	struct srt__wakeup *w = calloc(1, sizeof(*w));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!w)
		return -1;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (w->epfd < 0 || w->evfd < 0 || w->tfd < 0 ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->evfd, &ev) < 0 ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->tfd, &ev) < 0) {
		srt__wakeup_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

int srt__wakeup_fd(const struct srt__wakeup *w)
{
	return w->epfd;
}

void srt__wakeup_signal(struct srt__wakeup *w)
{
	uint64_t one = 1;
	ssize_t r;

	do
		r = write(w->evfd, &one, sizeof(one));
	while (r < 0 && errno == EINTR);
}

void srt__wakeup_arm(struct srt__wakeup *w, long long ms)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (ms > 0) {
		its.it_value.tv_sec = ms / 1000;
		its.it_value.tv_nsec = (ms % 1000) * 1000000;
	}
	timerfd_settime(w->tfd, 0, &its, NULL);
}

void srt__wakeup_clear(struct srt__wakeup *w)
{
	uint64_t n;
	ssize_t r;

	do
		r = read(w->evfd, &n, sizeof(n));
	while (r < 0 && errno == EINTR);
	do
		r = read(w->tfd, &n, sizeof(n));
	while (r < 0 && errno == EINTR);
}
