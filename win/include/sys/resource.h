/* win/include: <sys/resource.h>, which Windows has not: getrlimit and
 * setrlimit fail with ENOSYS (see README). */
#ifndef SRT_WIN_SYS_RESOURCE_H
#define SRT_WIN_SYS_RESOURCE_H
typedef unsigned long long rlim_t;
struct rlimit {
	rlim_t rlim_cur, rlim_max;
};
#define RLIM_INFINITY (~(rlim_t)0)
#define RLIMIT_NOFILE 7
#define RLIMIT_CORE 4
int getrlimit(int res, struct rlimit *rl);
int setrlimit(int res, const struct rlimit *rl);
#endif
