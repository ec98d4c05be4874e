/* bench/buildmix.c: a build-shaped load with the syscall mix of a C build,
 * without a compiler's CPU work hiding what the sandbox costs per call.
 *
 *   buildmix gen DIR UNITS       write UNITS sources, 40 headers, a Makefile
 *   buildmix cc SRC OBJ          one "compile": exec'd by make per unit
 *   buildmix ld OUT OBJ...       one "link": reads every object
 *
 * A compile searches four include directories for each of the 24 headers
 * the source names (a failing stat per miss, as cc -I does), opens and
 * reads each header it finds, reads the source, then writes its object to a
 * temporary name, renames it into place and removes a stale dependency
 * file. So one unit is one exec, about 100 path lookups (two thirds of them
 * failing), 26 opens for reading, a create, a rename and an unlink: the
 * calls a sandbox's read observer and mount layout see, in a build's
 * proportions. `make -j2` in DIR drives it; the time is the benchmark. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_HEADERS 40
#define HEADERS_PER_UNIT 24
#define N_INCDIRS 4

static void die(const char *what)
{
	fprintf(stderr, "buildmix: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die(path);
	if (write(fd, text, len) != (ssize_t)len)
		die(path);
	close(fd);
}

/* Reads a whole file; a checksum keeps the reads from being dead code. */
static unsigned read_file(const char *path)
{
	char buf[8192];
	unsigned sum = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i += 64)
			sum += (unsigned char)buf[i];
	if (n < 0)
		die(path);
	close(fd);
	return sum;
}

static int gen(const char *dir, int units)
{
	char path[4096], text[4096];
	int i, k, n;
	FILE *mk;

	if (units < 1 || units > 100000) {
		fprintf(stderr, "buildmix: UNITS must be 1..100000\n");
		return 2;
	}
	for (k = 0; k < N_INCDIRS; k++) {
		snprintf(path, sizeof(path), "%s/inc%d", dir, k);
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			die(path);
	}
	snprintf(path, sizeof(path), "%s/obj", dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die(path);
	/* header h lives in the last include directory searched for it, so
	 * most lookups miss first, as with a long -I list */
	memset(text, '/', 2048);
	for (i = 0; i < N_HEADERS; i++) {
		snprintf(path, sizeof(path), "%s/inc%d/h%d.h", dir, i % N_INCDIRS, i);
		write_file(path, text, 2048);
	}
	for (i = 0; i < units; i++) {
		n = 0;
		for (k = 0; k < HEADERS_PER_UNIT; k++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, "h%d.h\n",
				      (i * 7 + k * 3) % N_HEADERS);
		snprintf(path, sizeof(path), "%s/u%d.c", dir, i);
		write_file(path, text, (size_t)n);
	}
	snprintf(path, sizeof(path), "%s/Makefile", dir);
	mk = fopen(path, "w");
	if (!mk)
		die(path);
	fprintf(mk, "BM ?= buildmix\nOBJS :=");
	for (i = 0; i < units; i++)
		fprintf(mk, " obj/u%d.o", i);
	fprintf(mk, "\nall: prog\nprog: $(OBJS)\n\t$(BM) ld $@ $(OBJS)\n"
		    "obj/%%.o: %%.c\n\t$(BM) cc $< $@\n"
		    "clean:\n\trm -f prog obj/*.o\n.PHONY: all clean\n");
	if (fclose(mk) != 0)
		die(path);
	return 0;
}

/* Resolves one header name along the include directories, like cc -I. */
static unsigned include(const char *name)
{
	char path[4096];
	struct stat st;

	for (int k = 0; k < N_INCDIRS; k++) {
		snprintf(path, sizeof(path), "inc%d/%s", k, name);
		if (stat(path, &st) == 0)
			return read_file(path);
	}
	errno = ENOENT;
	die(name);
	return 0;
}

static int cc(const char *src, const char *obj)
{
	char text[4096], tmp[4096], dep[4096], *line, *save = NULL;
	unsigned sum = 0;
	ssize_t n;
	int fd = open(src, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(src);
	n = read(fd, text, sizeof(text) - 1);
	if (n < 0)
		die(src);
	close(fd);
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sum += include(line);
	snprintf(tmp, sizeof(tmp), "%s.tmp", obj);
	snprintf(dep, sizeof(dep), "%s.d", obj);
	snprintf(text, sizeof(text), "%u\n", sum);
	write_file(tmp, text, strlen(text));
	if (rename(tmp, obj) != 0)
		die(obj);
	if (unlink(dep) != 0 && errno != ENOENT)
		die(dep);
	return 0;
}

static int ld(int argc, char **argv)
{
	char text[32];
	unsigned sum = 0;

	for (int i = 1; i < argc; i++)
		sum += read_file(argv[i]);
	snprintf(text, sizeof(text), "%u\n", sum);
	write_file(argv[0], text, strlen(text));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "cc"))
		return cc(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "ld"))
		return ld(argc - 2, argv + 2);
	fprintf(stderr, "usage: buildmix gen DIR UNITS | cc SRC OBJ | ld OUT OBJ...\n");
	return 2;
}
