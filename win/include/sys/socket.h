/* win/include: <sys/socket.h> is Winsock 2's (see win/include/README). */
#ifndef SRT_WIN_SYS_SOCKET_H
#define SRT_WIN_SYS_SOCKET_H
#include <winsock2.h>
#include <ws2tcpip.h>
#include <sys/types.h>
#include <sys/uio.h>

/* the POSIX message header, for the types only (see README) */
struct msghdr {
	void *msg_name;
	int msg_namelen;
	struct iovec *msg_iov;
	size_t msg_iovlen;
	void *msg_control;
	size_t msg_controllen;
	int msg_flags;
};

#ifndef SHUT_RD
#define SHUT_RD SD_RECEIVE
#define SHUT_WR SD_SEND
#define SHUT_RDWR SD_BOTH
#endif
#endif
