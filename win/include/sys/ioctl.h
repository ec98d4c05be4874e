/* win/include: <sys/ioctl.h>, which Windows has not: ioctl fails with
 * ENOTTY (see README). */
#ifndef SRT_WIN_SYS_IOCTL_H
#define SRT_WIN_SYS_IOCTL_H
int ioctl(int fd, unsigned long req, ...);
#endif
