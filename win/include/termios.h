/* win/include: <termios.h>, which Windows has not: every call fails with
 * ENOTTY, as for a descriptor that is no terminal (see README). */
#ifndef SRT_WIN_TERMIOS_H
#define SRT_WIN_TERMIOS_H
typedef unsigned int tcflag_t;
struct termios {
	tcflag_t c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_cc[32];
};
#define TCSANOW 0
#define TCOON 1
int tcgetattr(int fd, struct termios *t);
int tcsetattr(int fd, int how, const struct termios *t);
int tcflow(int fd, int action);
#include <sys/types.h>
pid_t tcgetpgrp(int fd);
#endif
