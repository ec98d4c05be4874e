/* linux-common: the numbers of the newer system calls the Linux helpers
 * make through syscall(2), and the flags they pass, for C libraries whose
 * headers do not name them yet. x86-64 and the generic table share these
 * numbers (pidfd_send_signal 424, pidfd_open 434, openat2 437,
 * pidfd_getfd 438). */
#ifndef SRT_LINUX_COMMON_SYSCALL_NR_H
#define SRT_LINUX_COMMON_SYSCALL_NR_H

#include <fcntl.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of one thread, not its process */
#endif

#endif
