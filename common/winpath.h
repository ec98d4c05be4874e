/* A path as a Windows user writes it, spelled the core's way. The core
 * spells every path POSIX's way, from "/"; on Windows that is a path
 * rooted on the current drive (every Windows call resolves "/a/b" to
 * "<drive>:\a\b"), so a path on the current drive has such a spelling and
 * a path on another drive or a share has none. Pure string work, so the
 * rules are tested on any host (tests/unit/test-winpath.c); the Windows
 * build applies it to the paths the user gives (--settings, the settings'
 * paths) and to those Windows returns (getcwd, realpath). */
#ifndef SRT_COMMON_WINPATH_H
#define SRT_COMMON_WINPATH_H

#include <stddef.h>

/* Spell `in` the core's way into out (cap bytes), for a process whose
 * current drive is `drive` (a letter, either case):
 *   "C:\x\y", "C:/x/y", "c:\x" on drive C   "/x/y", "/x"
 *   "C:\" or "C:"+"/"                     "/"
 *   "\x\y" (rooted on the current drive)  "/x/y"
 *   "x\y", "/x/y" (relative or POSIX)     "x/y", "/x/y": '\' becomes '/'
 * 0, or -1 with errno: ENOSYS for a path the core cannot spell (another
 * drive "D:\x", a share "\\server\share" or "//server/share", a device or
 * verbatim path "\\?\..." "\\.\...", a drive-relative "C:x", whose meaning
 * depends on a per-drive directory the core does not track); EINVAL for
 * an empty path; ENAMETOOLONG when out is too small. out may be in
 * itself: the result is never longer. */
int srt__winpath_to_core(const char *in, char drive, char *out, size_t cap);

/* The other way, for a program that is handed a path to run rather than
 * the core's calls: the core's "/x/y" on drive `drive` is "C:/x/y" into
 * out (cap bytes), the drive named and "/" kept between names, which
 * Windows' CreateProcess and the MSYS shell of Git for Windows both read
 * as that file (a "\" would be an escape to the shell). 0, or -1 with
 * errno: EINVAL for a path not from "/" (relative, or "//server": no
 * drive path), or a drive that is no letter; ENAMETOOLONG when out is too
 * small. */
int srt__winpath_from_core(const char *in, char drive, char *out, size_t cap);

#endif
