/* srt-linux-init: opens made with another thread's credentials (see
 * cred-ring.h). Raw system calls: one operation in flight at a time, so
 * the ring has two entries and never overflows. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>

#include "backends/linux-bwrap/init/cred-ring.h"

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#define SYS_io_uring_enter 426
#define SYS_io_uring_register 427
#endif

struct srt__cred_ring {
	int fd;
	int personality; /* the adopted credentials' id, 0 until then */
	int broken;      /* the ring failed once: never used again */
	uint64_t seq;    /* user_data of the last operation */
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
	struct io_uring_sqe *sqes;
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static void unmap(struct srt__cred_ring *r)
{
	if (r->sqes)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_len);
	if (r->sq_map)
		munmap(r->sq_map, r->sq_len);
	r->sqes = NULL;
	r->sq_map = r->cq_map = NULL;
}

void srt__cred_ring_free(struct srt__cred_ring *r)
{
	if (!r)
		return;
	unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static void *map_ring(int fd, size_t len, off_t what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, what);

	return p == MAP_FAILED ? NULL : p;
}

struct srt__cred_ring *srt__cred_ring_new(void)
{
	struct io_uring_params p;
	struct srt__cred_ring *r;
	char *sq, *cq;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(SYS_io_uring_setup, 2, &p);
	if (r->fd < 0) {
		err = errno;
		free(r);
		errno = err;
		return NULL;
	}
	/* the ring's descriptor is set close-on-exec by the kernel */
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = r->sq_len;
		r->sq_map = r->cq_map = map_ring(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	} else {
		r->sq_map = map_ring(r->fd, r->sq_len, IORING_OFF_SQ_RING);
		r->cq_map = r->sq_map ? map_ring(r->fd, r->cq_len, IORING_OFF_CQ_RING) : NULL;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = r->cq_map ? map_ring(r->fd, r->sqes_len, IORING_OFF_SQES) : NULL;
	if (!r->sqes) {
		err = errno;
		srt__cred_ring_free(r);
		errno = err;
		return NULL;
	}
	sq = r->sq_map;
	cq = r->cq_map;
	r->sq_head = (unsigned *)(sq + p.sq_off.head);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return r;
}

int srt__cred_ring_adopt(struct srt__cred_ring *r)
{
	int id;

	if (r->personality)
		return -EBUSY;
	id = (int)syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_PERSONALITY, NULL, 0);
	if (id < 0)
		return -errno;
	/* an id the SQE's 16 bits can carry; 0 would mean "the
	 * submitter's own" */
	if (id == 0 || id > 0xffff) {
		syscall(SYS_io_uring_register, r->fd, IORING_UNREGISTER_PERSONALITY, NULL, id);
		return -ERANGE;
	}
	r->personality = id;
	return 0;
}

int srt__cred_ring_ready(const struct srt__cred_ring *r)
{
	return r && r->personality && !r->broken;
}

/* The ring answered something it should not have: close it, so that
 * nothing submitted stays in it to run later on memory reused since. */
static int broken(struct srt__cred_ring *r)
{
	r->broken = 1;
	unmap(r);
	close(r->fd);
	r->fd = -1;
	return -EPIPE;
}

int srt__cred_ring_openat(struct srt__cred_ring *r, int dirfd, const char *name, int flags,
			  uint64_t resolve)
{
	struct open_how how;
	struct io_uring_sqe *e;
	struct io_uring_cqe *c;
	unsigned tail, idx, head;
	int submitted = 0, res;

	if (!srt__cred_ring_ready(r))
		return -EPIPE;
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(unsigned)flags;
	how.resolve = resolve;
	tail = *r->sq_tail; /* written by this thread only */
	idx = tail & *r->sq_mask;
	e = &r->sqes[idx];
	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_OPENAT2;
	e->fd = dirfd;
	e->addr = (uint64_t)(uintptr_t)name;
	e->len = sizeof(how);
	e->addr2 = (uint64_t)(uintptr_t)&how;
	e->personality = (uint16_t)r->personality;
	e->user_data = ++r->seq;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	for (;;) {
		long n = syscall(SYS_io_uring_enter, r->fd, submitted ? 0 : 1, 1, IORING_ENTER_GETEVENTS, NULL,
				 0);
		int err = n < 0 ? errno : 0;

		if (!submitted) {
			/* taken by the kernel (its head passed our entry), or
			 * never: then nothing may stay queued */
			if (__atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) != tail + 1)
				return broken(r);
			submitted = 1;
		}
		head = *r->cq_head;
		if (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) != head)
			break;
		if (err && err != EINTR)
			return broken(r);
	}
	c = &r->cqes[head & *r->cq_mask];
	if (c->user_data != r->seq)
		return broken(r);
	res = c->res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}
