/* srt-linux-init: opens made with another thread's credentials.
 *
 * The violation monitor opens files for the command, and those opens must
 * be checked against the command's Landlock layer. Landlock keeps a
 * thread's domain in its credentials, and only a thread that restricted
 * itself carries them; such a thread can no longer read the command's
 * memory or its /proc (a sibling domain), so the monitor's own thread has
 * to stay unrestricted, and every open handed to the restricted thread
 * costs two context switches.
 *
 * An io_uring "personality" is a set of credentials registered with a
 * ring: an operation submitted with it runs with those credentials, as if
 * the thread that registered them had made it. The restricted thread
 * registers its own once; from then on the monitor's thread makes an open
 * under the command's layer itself, with one io_uring_enter and no
 * hand-over. The file is installed in this process's table as by open(2).
 *
 * Only for what resolves in the submitting thread (the kernel answers the
 * common case, a name in a directory whose entries are cached, before
 * io_uring_enter returns; anything else is finished by one of io_uring's
 * own workers with the same credentials, slower but the same). Where
 * io_uring is missing or switched off (kernel.io_uring_disabled), setup
 * fails and the monitor keeps handing its opens over. Any unexpected
 * answer from the ring closes it for good, so that no operation is left
 * in it to run later. */
#ifndef SRT_INIT_CRED_RING_H
#define SRT_INIT_CRED_RING_H

#include <stdint.h>

struct srt__cred_ring;

/* A ring of this thread's, or NULL with errno (ENOSYS, EPERM when
 * io_uring is switched off, ENOMEM). */
struct srt__cred_ring *srt__cred_ring_new(void);

/* Register the calling thread's credentials as the ones the ring's opens
 * are made with. Called once, in the thread whose credentials they are
 * (it may run under a Landlock domain the ring's own thread does not).
 * 0 or -errno. */
int srt__cred_ring_adopt(struct srt__cred_ring *r);

/* openat2(dirfd, name, flags, resolve) with the adopted credentials:
 * a descriptor, or -errno for the open's own answer. -EPIPE when the
 * ring itself failed: it is closed then, and every later call answers
 * -EPIPE. Waits for the answer; the caller's name and how stay valid. */
int srt__cred_ring_openat(struct srt__cred_ring *r, int dirfd, const char *name, int flags,
			  uint64_t resolve);

/* Does the ring still work (set up, credentials adopted, never failed)? */
int srt__cred_ring_ready(const struct srt__cred_ring *r);

void srt__cred_ring_free(struct srt__cred_ring *r);

#endif
