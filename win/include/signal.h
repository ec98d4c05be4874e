/* win/include: the C library's <signal.h>, plus sigset_t and what POSIX
 * adds (see README). Windows raises none of the POSIX-only signals, so a
 * disposition or mask set for one changes nothing that could happen;
 * kill(), which would need pids, fails with ENOSYS. */
#ifndef SRT_WIN_SIGNAL_H
#define SRT_WIN_SIGNAL_H
#include_next <signal.h>
#include <sys/types.h>
#ifndef _POSIX
typedef _sigset_t sigset_t;
#endif
#define SIGHUP 1
#define SIGQUIT 3
#define SIGKILL 9
#define SIGUSR1 10
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
int sigemptyset(sigset_t *s);
int sigfillset(sigset_t *s);
int sigaddset(sigset_t *s, int sig);
int sigdelset(sigset_t *s, int sig);
int sigismember(const sigset_t *s, int sig);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
int kill(pid_t pid, int sig);
/* winpthreads makes pthread_sigmask a macro that does nothing (its
 * <pthread_signal.h>, which <signal.h> includes); here it is the call,
 * with sigprocmask's meaning */
#undef pthread_sigmask
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old);
/* the C library's signal() for its own signals; a POSIX-only one never
 * arrives, so its disposition is accepted and kept nowhere */
typedef void (*srt__win_sighandler)(int);
srt__win_sighandler srt__win_signal(int sig, srt__win_sighandler fn);
#define signal srt__win_signal
#endif
