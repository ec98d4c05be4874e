/* The interception rules of the sandbox's network namespace (netrules.c):
 * a default IPv4 route over lo, every TCP connection to an address
 * outside 127.0.0.0/8 redirected to 127.0.0.1:<port>, everything else
 * addressed outside 127.0.0.0/8 dropped. */
#ifndef SRT_INIT_NETRULES_H
#define SRT_INIT_NETRULES_H

#include <stddef.h>

#define SRT_NETRULES_TABLE "srt-intercept"

/* Install them; needs CAP_NET_ADMIN over the namespace. 0, or -1 with the
 * step and the kernel's error in why. */
int srt__netrules_install(int port, char *why, size_t cap);

#endif
