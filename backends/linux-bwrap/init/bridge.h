/* The in-sandbox bridge: TCP listeners on 127.0.0.1 and [::1] inside the
 * sandbox's empty network namespace, relaying each connection to the srt
 * proxy's Unix socket (bind-mounted into the sandbox). Replaces socat. */
#ifndef SRT_INIT_BRIDGE_H
#define SRT_INIT_BRIDGE_H

#include <sys/types.h>

#include "backends/linux-bwrap/init/dnsans.h"

struct srt__bridge_spec {
	const char *socket_path; /* the proxy's Unix socket, as seen inside */
	/* the socket's device and inode as srt bound it */
	unsigned long long socket_dev, socket_ino;
	int http_port;           /* e.g. 3128 */
	int socks_port;          /* e.g. 1080 */
	/* interception (dnsans.h), or NULL: the relay serves these sockets
	 * too and takes them over (they are closed here either way) */
	struct srt__icept_fds *icept;
	const char *token;       /* the proxy's token, or NULL/"": none */
};

/* Pin the proxy socket (an O_PATH descriptor of the inode socket_dev/ino
 * names: every later connect goes through /proc/self/fd to that inode, so
 * a command that renames a writable parent of the socket's directory and
 * puts a link to another host socket at its path reaches nothing), bind
 * and listen on every port (127.0.0.1 and ::1; ::1 may be missing), then
 * fork the relay process and return its pid in *pid. The relay dies with
 * its parent (PR_SET_PDEATHSIG). Returns 0, or -1 with a message on stderr
 * naming the step; nothing is left listening on failure. */
int srt__bridge_start(const struct srt__bridge_spec *spec, pid_t *pid);

#endif
