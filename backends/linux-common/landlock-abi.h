/* linux-landlock: the Landlock kernel interface (ABI 1..7), self-contained.
 *
 * Distribution headers lag the kernel (Debian 12's linux-libc-dev 6.1 stops
 * at ABI 2), so every constant we use is defined here when the system header
 * lacks it, and the ruleset attribute is our own struct: the kernel reads
 * only the prefix its ABI knows (copy_struct_from_user), and a longer struct
 * with zero tail is accepted by older kernels. */
#ifndef SRT_LANDLOCK_ABI_H
#define SRT_LANDLOCK_ABI_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* ABI 1 */
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#endif
/* ABI 2 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
/* ABI 3 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
/* ABI 5 */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* ABI 4 */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#define SRT_LANDLOCK_RULE_PATH_BENEATH 1
#define SRT_LANDLOCK_RULE_NET_PORT 2
/* ABI 6 */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The rights srt groups under "read" and "write". */
#define SRT_LL_READ_FILE_RIGHTS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE)
#define SRT_LL_READ_RIGHTS (SRT_LL_READ_FILE_RIGHTS | LANDLOCK_ACCESS_FS_READ_DIR)
#define SRT_LL_WRITE_FILE_RIGHTS (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)
#define SRT_LL_WRITE_RIGHTS (SRT_LL_WRITE_FILE_RIGHTS | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER)
/* Rights a rule on a non-directory may carry (the kernel refuses others). */
#define SRT_LL_FILE_RIGHTS (SRT_LL_READ_FILE_RIGHTS | SRT_LL_WRITE_FILE_RIGHTS | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Our view of struct landlock_ruleset_attr up to ABI 6. */
struct srt__ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct srt__ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct srt__ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

static inline int srt__ll_create_ruleset(const struct srt__ll_ruleset_attr *attr, size_t size,
					 uint32_t flags)
{
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static inline int srt__ll_add_rule(int fd, int type, const void *attr, uint32_t flags)
{
	return (int)syscall(SYS_landlock_add_rule, fd, type, attr, flags);
}

static inline int srt__ll_restrict_self(int fd, uint32_t flags)
{
	return (int)syscall(SYS_landlock_restrict_self, fd, flags);
}

/* The filesystem rights this ABI knows (all of them handled by srt except
 * IOCTL_DEV: srt opens no device the bwrap --dev set would not give). */
static inline uint64_t srt__ll_fs_rights_for_abi(int abi)
{
	uint64_t r = SRT_LL_READ_RIGHTS | SRT_LL_WRITE_RIGHTS;

	if (abi < 2)
		r &= ~LANDLOCK_ACCESS_FS_REFER;
	if (abi < 3)
		r &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
	return r;
}

#endif
