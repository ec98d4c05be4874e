/* win/include: the C library's <signal.h>, plus sigset_t (see README). */
#ifndef SRT_WIN_SIGNAL_H
#define SRT_WIN_SIGNAL_H
#include_next <signal.h>
#include <sys/types.h>
#ifndef _POSIX
typedef _sigset_t sigset_t;
#endif
#endif
