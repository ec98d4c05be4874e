/* srt-linux-init: the new mount API's constants (open_tree, move_mount,
 * mount_setattr, openat2) for libc headers that lack them; the helper
 * hides files and makes /dev with it. */
#ifndef SRT_INIT_MOUNT_API_H
#define SRT_INIT_MOUNT_API_H

#include <fcntl.h>
#include <sys/syscall.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef RESOLVE_NO_SYMLINKS
#define RESOLVE_NO_SYMLINKS 0x04
#endif

#endif
