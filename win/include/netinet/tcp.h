/* win/include: <netinet/tcp.h> is Winsock 2's (see win/include/README). */
#ifndef SRT_WIN_NETINET_TCP_H
#define SRT_WIN_NETINET_TCP_H
#include <winsock2.h>
#include <ws2tcpip.h>
#include <sys/types.h>

#endif
