/* linux-bwrap: the cleanup guard's own process (guard.c starts it, and
 * says what the records mean). Linked into the module, whose forked copy
 * runs it when a command has orphan work, and into srt-linux-init, whose
 * guard mode runs it otherwise. */
#ifndef SRT_BWRAP_GUARD_MAIN_H
#define SRT_BWRAP_GUARD_MAIN_H

#include <stddef.h>

/* What the guard does after srt died mid-run, once the sandbox is gone
 * (srt_command.orphan_fn and orphan_argv): fn(ctx) in a copy of srt, or
 * the program argv run with fds[i] as descriptor 3 + i. The n_fds
 * descriptors in fds stay open until then. */
struct srt__guard_orphan {
	void (*fn)(void *);
	void *ctx;
	char *const *argv;
	const int *fds;
	size_t n_fds;
};

/* Read records from rd until EOF, then undo what srt left (nothing after
 * "Q") and exit. When ready_fd >= 0, one byte "G" is written on it (and
 * it is closed) once the guard holds nothing of srt's and ignores the
 * terminal's signals: from then on srt may rely on it. orphan (may be
 * NULL: none) is done after srt died mid-run, once the sandbox is gone.
 * Never returns. */
void srt__bwrap_guard_main(int rd, int ready_fd, const struct srt__guard_orphan *orphan)
	__attribute__((noreturn));

/* srt-linux-init --guard [--detach] [--keep N -- PROGRAM ARG...]: the
 * guard as a program of its own, started by srt with vfork and exec (no
 * copy of srt's address space; every signal blocked until
 * srt__bwrap_guard_main has set its own dispositions): the records on
 * descriptor 0, the "G" of srt__bwrap_guard_main on 1. With --detach it
 * forks first and the parent exits 0, so a caller that is not a child
 * subreaper reaps only that parent. With --keep, descriptors 3 .. 2 + N are the orphan work's and
 * PROGRAM its program (srt_command.orphan_argv). Returns only on a usage
 * error (an exit status). */
int srt__bwrap_guard_mode(int argc, char **argv);

/* Open a resolved directory without following any link on the way, so a
 * component swapped for a link since it was inspected is refused (without
 * openat2, Linux < 5.6: the last component only). A descriptor, or -1
 * with errno set. Shared by the mount plan and the placeholders' removal,
 * which the guard makes too. */
int srt__mount_open_dir_nofollow(const char *dir);

/* Does another process hold a POSIX lock on fd's file? (The caller's own
 * never count.) A placeholder so locked is still mounted by a live run. */
int srt__bwrap_locked_by_other(int fd);

#endif
