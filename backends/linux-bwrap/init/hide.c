/* srt-linux-init: hiding the files srt's mount plan left to the helper
 * (--hide-file) and pinning protected links (--pin-link). Each target is
 * opened without following a link and the mount goes onto that
 * descriptor, so a name swapped since srt planned stops the run instead of
 * mounting elsewhere. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/hide.h"
#include "backends/linux-bwrap/init/mount-api.h"
#include "backends/linux-bwrap/init/report.h"

int srt__init_open_nofollow(const char *path)
{
#ifdef SYS_openat2
	struct {
		uint64_t flags, mode, resolve;
	} how = { O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
#endif
	return open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

int srt__init_mount_copy_on(int tree, int target, const char **step)
{
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0 };
	int err = 0;

	*step = "make the copy read-only";
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) != 0)
		err = errno;
	if (!err) {
		*step = "mount";
		if (syscall(SYS_move_mount, tree, "", target, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
			err = errno;
	}
	close(tree);
	close(target);
	return err;
}

int srt__init_copy_dev_null(void)
{
	return (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/null", OPEN_TREE_CLONE | O_CLOEXEC);
}

/* --hide-file: a read-only, nodev, nosuid copy of /dev/null's mount onto
 * the file itself. 0, or the errno of the step that failed (named in
 * *step). */
static int hide_one(const char *path, const char **step)
{
	struct stat st;
	int target, tree, err = 0;

	*step = "open";
	target = srt__init_open_nofollow(path);
	if (target < 0)
		return errno;
	*step = "check";
	if (fstat(target, &st) != 0)
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR; /* the plan hides directories with bwrap */
	else if (S_ISLNK(st.st_mode))
		err = ELOOP;
	if (!err) {
		*step = "clone /dev/null";
		tree = srt__init_copy_dev_null();
		if (tree >= 0)
			return srt__init_mount_copy_on(tree, target, step);
		err = errno;
	}
	close(target);
	return err;
}

/* --pin-link: a denied name that is a symbolic link inside a write root.
 * bwrap protects the link's target (a mount follows the link), but the
 * name itself is a plain entry of a writable directory: the command could
 * replace it, and the replacement would be live on the host during the
 * run. So the link gets a mount of its own, on the link itself: a
 * read-only copy of its target when that is a regular file (reads see the
 * same content), else of /dev/null (a directory cannot be mounted on a
 * link; such a name reads as an empty file here). Its name is then a mount
 * point: rename and unlink fail with EBUSY. 0, or the errno of the step
 * that failed (named in *step). */
static int pin_one(const char *path, const char **step)
{
	struct stat st;
	int link, tree, err = 0;

	*step = "open";
	link = srt__init_open_nofollow(path); /* the link itself, no link on the way */
	if (link < 0)
		return errno;
	*step = "check";
	if (fstatat(link, "", &st, AT_EMPTY_PATH) != 0)
		err = errno;
	else if (!S_ISLNK(st.st_mode))
		err = EINVAL; /* replaced since srt planned: stop, do not guess */
	if (!err) {
		*step = "copy the target";
		tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
		if (tree >= 0 && (fstat(tree, &st) != 0 || !S_ISREG(st.st_mode))) {
			close(tree);
			tree = -1;
		}
		if (tree < 0) {
			*step = "copy /dev/null";
			tree = srt__init_copy_dev_null();
		}
		if (tree >= 0)
			return srt__init_mount_copy_on(tree, link, step);
		err = errno;
	}
	close(link);
	return err;
}

int srt__init_hide_files(const struct srt__init_opts *o)
{
	size_t i;

	for (i = 0; i < o->n_hide; i++) {
		const char *step;
		int err = hide_one(o->hide[i], &step);

		if (err) {
			srt__init_failf("srt-linux-init: hide %s (%s): %s", o->hide[i], step, strerror(err));
			return -1;
		}
	}
	for (i = 0; i < o->n_pin; i++) {
		const char *step;
		int err = pin_one(o->pin[i], &step);

		if (err) {
			srt__init_failf("srt-linux-init: pin the link %s (%s): %s", o->pin[i], step,
			      err == EINVAL && !strcmp(step, "check") ? "no longer a symbolic link"
								     : strerror(err));
			return -1;
		}
	}
	return 0;
}
