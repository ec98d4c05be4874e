/* One descriptor an event loop watches, made readable by another thread
 * (signal) or by a deadline (arm): the request filters' completions and
 * timeouts. wakeup-linux.c uses eventfd and timerfd under an epoll
 * descriptor; wakeup-posix.c a pipe and a timer thread. */
#ifndef SRT_PROXY_WAKEUP_H
#define SRT_PROXY_WAKEUP_H

struct srt__wakeup;

/* 0, or -1 with errno. */
int srt__wakeup_new(struct srt__wakeup **out);
void srt__wakeup_free(struct srt__wakeup *w);
/* Readable after a signal, or once an armed deadline passed. */
int srt__wakeup_fd(const struct srt__wakeup *w);
/* From any thread. */
void srt__wakeup_signal(struct srt__wakeup *w);
/* Be readable in ms milliseconds (at least 1); 0 disarms. Replaces any
 * earlier deadline. */
void srt__wakeup_arm(struct srt__wakeup *w, long long ms);
/* Make the descriptor unreadable again (before serving what woke it). */
void srt__wakeup_clear(struct srt__wakeup *w);

#endif
