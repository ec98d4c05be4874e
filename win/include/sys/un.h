/* win/include: <sys/un.h> is Windows 10's afunix.h (see README). */
#ifndef SRT_WIN_SYS_UN_H
#define SRT_WIN_SYS_UN_H
#include <sys/socket.h>
#include <afunix.h>
#endif
