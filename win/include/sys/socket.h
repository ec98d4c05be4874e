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

/* Windows raises no SIGPIPE; the proxy's sockets are non-blocking from
 * their creation (srt__os_socket, srt__os_accept), so a receive on one
 * never blocks without the flag */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
#ifndef MSG_TRUNC
#define MSG_TRUNC 0x20
#endif
#ifndef MSG_CTRUNC
#define MSG_CTRUNC 0x8
#endif
#ifndef MSG_DONTWAIT
#define MSG_DONTWAIT 0
#endif

/* Winsock's setsockopt and getsockopt take char pointers */
#define setsockopt(s, l, o, v, n) setsockopt(s, l, o, (const char *)(v), n)
#define getsockopt(s, l, o, v, n) getsockopt(s, l, o, (char *)(v), (int *)(n))

/* descriptor passing: the types and macros only, so a portable file that
 * names them compiles; sendmsg and recvmsg refuse (ENOSYS), as Windows
 * passes no descriptors over a socket (see README) */
struct cmsghdr {
	size_t cmsg_len;
	int cmsg_level;
	int cmsg_type;
};
#undef CMSG_ALIGN
#undef CMSG_SPACE
#undef CMSG_LEN
#undef CMSG_DATA
#undef CMSG_FIRSTHDR
#undef CMSG_NXTHDR
#define SCM_RIGHTS 1
#define CMSG_ALIGN(n) (((n) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define CMSG_SPACE(n) (CMSG_ALIGN(sizeof(struct cmsghdr)) + CMSG_ALIGN(n))
#define CMSG_LEN(n) (CMSG_ALIGN(sizeof(struct cmsghdr)) + (n))
#define CMSG_DATA(h) ((unsigned char *)(h) + CMSG_ALIGN(sizeof(struct cmsghdr)))
#define CMSG_FIRSTHDR(m) ((m)->msg_controllen >= sizeof(struct cmsghdr) ? \
			  (struct cmsghdr *)(m)->msg_control : (struct cmsghdr *)0)
#define CMSG_NXTHDR(m, h) ((struct cmsghdr *)0)
ssize_t sendmsg(int fd, const struct msghdr *m, int flags);
ssize_t recvmsg(int fd, struct msghdr *m, int flags);

#ifndef SHUT_RD
#define SHUT_RD SD_RECEIVE
#define SHUT_WR SD_SEND
#define SHUT_RDWR SD_BOTH
#endif
#endif
