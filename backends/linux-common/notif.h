/* The requests a supervisor makes on a seccomp listener (answer, hand over
 * a descriptor, ask whether a notification still waits), tried again when
 * a signal interrupted them.
 *
 * The kernel takes the filter's notification lock with
 * mutex_lock_interruptible for each of them: when another thread holds it
 * (the monitor receiving, a waiting open's thread answering) and a signal
 * with a handler arrives meanwhile, the request fails with EINTR having
 * done nothing. Read as "the caller is gone", that drops a notification
 * nobody will ever answer, and its caller waits forever; read as "sent",
 * the same. A waiting FIFO open's thread is woken by its own timer signal
 * every 100 ms, so it meets this (a live test hung on it under load).
 * Header-only for the same reason as small-file.h: the monitor and the
 * supervisor live in libraries that do not link each other. */
#ifndef SRT_BACKENDS_NOTIF_H
#define SRT_BACKENDS_NOTIF_H

#include <errno.h>
#include <sys/ioctl.h>

/* ioctl(listener, req, arg) until it is not interrupted: its result. */
static inline int notif_ioctl(int listener, unsigned long req, void *arg)
{
	int rc;

	do
		rc = ioctl(listener, req, arg);
	while (rc < 0 && errno == EINTR);
	return rc;
}

#endif
