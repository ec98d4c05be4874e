/* Reading /proc/self/mountinfo: what both Linux backends' checks of other
 * mounts of a denied path (a bind mount or an overlay showing it at a
 * second path) share. */
#ifndef SRT_LINUX_COMMON_MOUNTINFO_H
#define SRT_LINUX_COMMON_MOUNTINFO_H

/* Undo mountinfo's escapes in place: it writes space, tab, newline and
 * backslash in a path or an option as \ooo (octal). */
void srt__mountinfo_unescape(char *s);

#endif
