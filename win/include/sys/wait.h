/* win/include: <sys/wait.h>, which Windows has not: no pids to wait for,
 * waitpid fails with ENOSYS (see README). */
#ifndef SRT_WIN_SYS_WAIT_H
#define SRT_WIN_SYS_WAIT_H
#include <sys/types.h>
#define WNOHANG 1
#define WUNTRACED 2
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s) ((s) & 0x7f)
#define WIFSTOPPED(s) (((s) & 0xff) == 0x7f)
pid_t waitpid(pid_t pid, int *status, int options);
#endif
