/* proxies/wakeup.h with POSIX alone: a pipe, and a thread that writes to
 * it when the armed deadline passes. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/platform.h"
#include "proxies/wakeup.h"

struct srt__wakeup {
	int fds[2];
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	struct timespec due; /* tv_sec 0: disarmed */
	bool stop, started;
	pthread_t timer;
};

static void poke(struct srt__wakeup *w)
{
	char one = 1;
	ssize_t r;

	do
		r = write(w->fds[1], &one, 1);
	while (r < 0 && errno == EINTR);
	/* EAGAIN: the pipe is full, so it is readable already */
}

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *timer_main(void *arg)
{
	struct srt__wakeup *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec now;

		if (!w->due.tv_sec) {
			pthread_cond_wait(&w->cond, &w->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!before(&now, &w->due)) {
			w->due.tv_sec = 0;
			poke(w);
			continue;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &w->due);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

void srt__wakeup_free(struct srt__wakeup *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->timer, NULL);
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	close(w->fds[0]);
	close(w->fds[1]);
	free(w);
}

int srt__wakeup_new(struct srt__wakeup **out)
{
	struct srt__wakeup *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	if (!w)
		return -1;
	if (srt__os_pipe(w->fds, true) < 0) {
		free(w);
		return -1;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* the timer thread takes no signal meant for the caller */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->timer, NULL, timer_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		srt__wakeup_free(w);
		errno = rc;
		return -1;
	}
	w->started = true;
	*out = w;
	return 0;
}

int srt__wakeup_fd(const struct srt__wakeup *w)
{
	return w->fds[0];
}

void srt__wakeup_signal(struct srt__wakeup *w)
{
	poke(w);
}

void srt__wakeup_arm(struct srt__wakeup *w, long long ms)
{
	pthread_mutex_lock(&w->lock);
	if (ms > 0) {
		clock_gettime(CLOCK_MONOTONIC, &w->due);
		w->due.tv_sec += (time_t)(ms / 1000);
		w->due.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (w->due.tv_nsec >= 1000000000L) {
			w->due.tv_sec++;
			w->due.tv_nsec -= 1000000000L;
		}
	} else {
		w->due.tv_sec = 0;
	}
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void srt__wakeup_clear(struct srt__wakeup *w)
{
	char sink[64];

	while (read(w->fds[0], sink, sizeof(sink)) > 0)
		;
}
