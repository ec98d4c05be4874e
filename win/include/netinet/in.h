/* win/include: <netinet/in.h> is Winsock 2's (see win/include/README). */
#ifndef SRT_WIN_NETINET_IN_H
#define SRT_WIN_NETINET_IN_H
#include <winsock2.h>
#include <ws2tcpip.h>
#include <sys/types.h>

#endif
