/* win/include: <dirent.h> over FindFirstFile, with d_type (mingw-w64's
 * has none): a reparse point reads as DT_LNK, so a walk that never
 * follows links never enters one. A directory descriptor does not exist
 * on Windows: fdopendir and dirfd fail with ENOSYS (see README). */
#ifndef SRT_WIN_DIRENT_H
#define SRT_WIN_DIRENT_H
#include <sys/types.h>
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10
struct dirent {
	ino_t d_ino;
	unsigned char d_type;
	char d_name[260];
};
typedef struct srt__win_dir DIR;
DIR *opendir(const char *path);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);
DIR *fdopendir(int fd);
int dirfd(DIR *d);
#endif
