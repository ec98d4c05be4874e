/* win/include: <ifaddrs.h>, which Windows has not: getifaddrs fails with
 * ENOSYS (see README). */
#ifndef SRT_WIN_IFADDRS_H
#define SRT_WIN_IFADDRS_H
#include <sys/socket.h>
struct ifaddrs {
	struct ifaddrs *ifa_next;
	char *ifa_name;
	unsigned int ifa_flags;
	struct sockaddr *ifa_addr;
	struct sockaddr *ifa_netmask;
};
int getifaddrs(struct ifaddrs **out);
void freeifaddrs(struct ifaddrs *ifa);
#endif
