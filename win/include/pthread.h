/* win/include: winpthreads' <pthread.h>, without its pthread_sigmask
 * macro (see signal.h). */
#ifndef SRT_WIN_PTHREAD_H
#define SRT_WIN_PTHREAD_H
#include_next <pthread.h>
#include <signal.h>
#undef pthread_sigmask
#endif
