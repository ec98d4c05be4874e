/* win/include: the POSIX types mingw-w64 leaves out (see README). */
#ifndef SRT_WIN_TYPES_H
#define SRT_WIN_TYPES_H
#include <sys/types.h>
#ifndef SRT_WIN_HAVE_UID_T
#define SRT_WIN_HAVE_UID_T
typedef int uid_t;
typedef int gid_t;
typedef unsigned int nlink_t;
#endif
#endif
