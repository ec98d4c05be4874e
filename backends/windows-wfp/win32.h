/* windows-wfp: the plan applied with Win32 calls (win32.c, built with
 * mingw-w64 only): the filesystem as the plan sees it, the install and
 * uninstall of the machine-wide objects, and the run. Each returns 0, or
 * prints one line naming the layer and the fix and returns non-zero. */
#ifndef SRT_WINDOWS_WFP_WIN32_H
#define SRT_WINDOWS_WFP_WIN32_H

#include <stdio.h>
#include <wchar.h>
#include "backends/windows-wfp/plan.h"

extern const struct srt__winfs srt__win32_fs;

/* What windows-install / windows-uninstall would create or remove. */
void srt__win32_print_install(const struct srt__winplan *p, FILE *out);
void srt__win32_print_uninstall(const struct srt__winplan *p, FILE *out);

/* The registry values (under HKLM\SOFTWARE\sandbox-runtime) where
 * windows-install records the port range its filters permit. */
#define SRT__WIN_REG_PORT_LO L"ProxyPortLow"
#define SRT__WIN_REG_PORT_HI L"ProxyPortHigh"

int srt__win32_install(const struct srt__winplan *p);

/* The range windows-install recorded: 0 and *lo, *hi set; -1 (and 0, 0)
 * when it recorded none or a value is not a port range. */
int srt__win32_installed_ports(int *lo, int *hi);
int srt__win32_uninstall(const struct srt__winplan *p);
int srt__win32_run(const struct srt__winplan *p, char **argv);

/* argv as one UTF-16 command line the C runtime splits back into argv
 * (malloc'd; NULL when out of memory). */
wchar_t *srt__win32_command_line(char *const *argv);

#endif
