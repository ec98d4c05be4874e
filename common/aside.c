/* See aside.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "common/aside.h"
#include "common/platform.h"

int srt__rename_aside(int dfd, const char *name, char to[NAME_MAX + 1])
{
	int i, err = EEXIST;

	for (i = 0; i < 8 && err == EEXIST; i++) {
		uint32_t r = 0;

		if (i == 0) {
			snprintf(to, NAME_MAX + 1, "%.*s.srt-quarantine", NAME_MAX - 15, name);
		} else {
			if (srt__os_random(&r, sizeof(r)) != 0)
				r = (uint32_t)getpid() * 2654435761u + (uint32_t)i;
			snprintf(to, NAME_MAX + 1, "%.*s.srt-quarantine.%08x", NAME_MAX - 24, name, r);
		}
		err = srt__os_rename_noreplace(dfd, name, to);
		if (!err)
			return 0;
	}
	return err;
}
