/* win/include: the C library's <string.h>, plus strndup, memmem (the
 * credentials module's sentinel search), and strerror
 * saying "not supported on Windows" for ENOSYS: every POSIX call
 * common/posix-windows.c refuses fails with it, so a message naming the
 * call's purpose says why (see README). */
#ifndef SRT_WIN_STRING_H
#define SRT_WIN_STRING_H
#include_next <string.h>
char *stpcpy(char *dst, const char *src);
char *srt__win_strndup(const char *s, size_t n);
#define strndup srt__win_strndup
void *srt__win_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen);
#define memmem srt__win_memmem
char *srt__win_strerror(int e);
#define strerror srt__win_strerror
#endif
