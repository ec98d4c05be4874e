/* Linux backends, planning: where an allowed Unix socket path is, as the
 * supervisors (supervisor.h, srt__unix_connect_for) compare and connect to
 * it. Used by linux-landlock's plan and linux-bwrap's monitor policy, so
 * both backends spell the same setting the same way. */
#ifndef SRT_LINUX_UNIX_PATH_H
#define SRT_LINUX_UNIX_PATH_H

#include <limits.h>

/* The longest path a sockaddr_un holds (sun_path without its NUL). */
#define SRT_UNIX_PATH_MAX 107

/* p's real location: realpath when it exists, else the realpath of its
 * deepest existing ancestor with the rest appended. 0, or -1 when p is not
 * absolute or the result does not fit. */
int srt__real_location(const char *p, char out[PATH_MAX]);

/* The spelling of the allowed socket path p: the real location of its
 * directory plus the socket's own name (a link at the name is not
 * followed: the supervisor connects to this spelling, and connect(2)
 * would follow it). 0; -1 when p is not an absolute path ending in a name;
 * -2 when the spelling is longer than SRT_UNIX_PATH_MAX. */
int srt__unix_path_spelling(const char *p, char out[PATH_MAX]);

#endif
