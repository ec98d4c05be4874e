/* The proxy's event loop: one interface, three implementations.
 * evloop-epoll.c (Linux), evloop-kqueue.c (BSD and macOS, EV_CLEAR for
 * edges) and evloop-poll.c (any POSIX system). configure builds the
 * native one for the platform, and poll everywhere; SRT_EVLOOP=poll in the
 * environment picks poll at run time, so the loop other systems run is
 * tested on Linux (tests/run runs the proxy tests that way).
 *
 * A registration is level-triggered, or edge-triggered with SRT_EV_EDGE:
 * then a condition is reported once, and again only after it was renewed.
 * epoll and kqueue see new data arrive themselves; poll(2) sees only
 * levels, so whoever reads or writes an edge-triggered descriptor until it
 * would block says so with srt__evloop_drained() (the proxy's socket layer
 * does, for every socket read and write), and poll watches that condition
 * again. As a safety net the poll loop also watches every condition again
 * four times a second, so a drain nobody reported costs latency, never a
 * hang. */
#ifndef SRT_PROXY_EVLOOP_H
#define SRT_PROXY_EVLOOP_H

#include <stdbool.h>
#include <stdint.h>

#define SRT_EV_IN 0x01u    /* readable, or at EOF */
#define SRT_EV_OUT 0x02u   /* writable, or connected */
#define SRT_EV_RDHUP 0x04u /* the peer shut down its side (where the system says) */
#define SRT_EV_HUP 0x08u   /* hung up */
#define SRT_EV_ERR 0x10u   /* an error is pending */
#define SRT_EV_EDGE 0x100u /* registration: edge-triggered */

struct srt__evloop;

struct srt__event {
	uint32_t events; /* SRT_EV_* */
	void *ptr;       /* as registered */
};

/* A new loop: poll when SRT_EVLOOP=poll is in the environment, else the
 * platform's native one. -1 with errno. */
int srt__evloop_new(struct srt__evloop **out);
void srt__evloop_free(struct srt__evloop *l);
/* "epoll", "kqueue" or "poll". */
const char *srt__evloop_kind(const struct srt__evloop *l);
/* Does this loop see edges itself? When not (poll), bytes never move by
 * splice(2), whose pipe ends the loop does not watch: the copy path reads
 * and writes through the socket layer, which reports every drain. */
bool srt__evloop_sees_edges(const struct srt__evloop *l);

/* Watch fd for events (SRT_EV_IN, SRT_EV_OUT, SRT_EV_RDHUP, optionally
 * SRT_EV_EDGE); ptr comes back with each event. A descriptor is
 * registered once; mod replaces what is watched; del before close(2).
 * 0, or -1 with errno. */
int srt__evloop_add(struct srt__evloop *l, int fd, uint32_t events, void *ptr);
int srt__evloop_mod(struct srt__evloop *l, int fd, uint32_t events, void *ptr);
int srt__evloop_del(struct srt__evloop *l, int fd);

/* Wait up to timeout_ms (-1: no limit) and fill up to max events: their
 * number, 0 at the timeout, -1 with errno (EINTR included). */
int srt__evloop_wait(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms);

/* The calling thread serves l: srt__evloop_drained() on this thread is
 * about l's descriptors (NULL: none). */
void srt__evloop_enter(struct srt__evloop *l);
/* A read (SRT_EV_IN) or write (SRT_EV_OUT) of fd on this thread would
 * block: the edge-triggered registration of fd, if any, waits for that
 * condition again. A no-op for loops that see edges themselves. */
void srt__evloop_drained(int fd, uint32_t events);

#endif
