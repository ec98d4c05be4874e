/* srt-connect's relay on POSIX systems (proxies/connect.h): one poll
 * over standard input and the tunnel, which are both descriptors. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/fdio.h"
#include "proxies/connect.h"

int srt__connect_relay(int sock)
{
	char buf[8192];
	int in_open = 1;

	for (;;) {
		struct pollfd pf[2] = { { in_open ? 0 : -1, POLLIN, 0 }, { sock, POLLIN, 0 } };

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pf[0].revents) {
			ssize_t r = read(0, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				shutdown(sock, SHUT_WR);
				in_open = 0;
			} else if (srt__connect_send(sock, buf, (size_t)r) < 0) {
				return 1;
			}
		}
		if (pf[1].revents) {
			ssize_t r = read(sock, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return 1;
			if (r == 0)
				return 0;
			if (srt__write_full(1, buf, (size_t)r) < 0)
				return 1;
		}
	}
}
