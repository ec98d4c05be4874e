/* win/include: <pwd.h>, which Windows has not: getpwuid gives the
 * current user's name and profile directory, whatever the id (see README). */
#ifndef SRT_WIN_PWD_H
#define SRT_WIN_PWD_H
#include "srt-win-types.h"
struct passwd {
	char *pw_name;
	char *pw_dir;
	char *pw_shell;
	uid_t pw_uid;
	gid_t pw_gid;
};
struct passwd *getpwuid(uid_t uid);
#endif
