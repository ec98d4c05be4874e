/* Linux backends: what the two in-sandbox helpers (srt-linux-init and
 * srt-landlock-exec) agree on. Their exit status tells srt who failed: 125
 * when the helper could not set up the sandbox (the command never ran),
 * 126 or 127 when exec of the command failed, as a shell reports it. Both
 * clear the ambient capability set before exec; older headers lack its
 * prctl numbers. */
#ifndef SRT_LINUX_HELPER_DEFS_H
#define SRT_LINUX_HELPER_DEFS_H

#include <sys/prctl.h>

#define EXIT_SETUP 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#endif
