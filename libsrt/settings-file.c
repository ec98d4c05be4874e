/* Settings files: open and read one safely (no FIFO hang, bounded size,
 * a clear refusal for a missing, unreadable or empty file named on the
 * command line) and hand the text to the JSON or YAML front end by its
 * name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"

/* Blank as far as "is this file empty?" goes. */
static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static bool has_yaml_suffix(const char *path)
{
	size_t n = strlen(path);

	return (n >= 5 && strcasecmp(path + n - 5, ".yaml") == 0) ||
	       (n >= 4 && strcasecmp(path + n - 4, ".yml") == 0);
}

static const char *errno_name(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EISDIR: return "EISDIR";
	case ENOENT: return "ENOENT";
	case ENOTDIR: return "ENOTDIR";
	case ELOOP: return "ELOOP";
	case EIO: return "EIO";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ENXIO: return "ENXIO";
	}
	return "error";
}

#define REFUSAL "refusing to run with the built-in defaults, which would drop this file's rules"

/* A file that exists but cannot be used: every message about it ends the
 * same way (one line), whether the problem is reading it or what it says. */
static void add_refusal(struct srt_diag *diag)
{
	size_t n = strlen(diag->message);

	if (n + sizeof("; " REFUSAL) <= sizeof(diag->message))
		memcpy(diag->message + n, "; " REFUSAL, sizeof("; " REFUSAL));
}

/* The file exists but reading it failed with errno e. */
static int unreadable(struct srt_diag *diag, const char *path, int e)
{
	int rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
			      "settings file \"%s\" could not be read (%s: %s); " REFUSAL,
			      path, errno_name(e), strerror(e));

	if (diag)
		diag->saved_errno = e;
	return rc;
}

int srt__settings_load_file(struct srt__settings *s, const char *path, bool explicit_path,
			   bool *loaded, struct srt_diag *diag)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0, i;
	ssize_t r;
	int fd = -1, rc, e;

	if (loaded)
		*loaded = false;
	if (!s || !path || !*path) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "", "no settings file named");
		goto out;
	}
	/* O_NONBLOCK: a FIFO planted at the path must not hang us; it is
	 * refused below as not a regular file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !explicit_path) {
			rc = SRT_OK;
			goto out;
		}
		if (e != ENOENT) {
			rc = unreadable(diag, path, e);
			goto out;
		}
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" does not exist; refusing to run with the "
				  "built-in defaults, which would drop the rules --settings asked for",
				  path);
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		rc = unreadable(diag, path, errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		if (S_ISDIR(st.st_mode))
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (EISDIR: it is a "
					  "directory); " REFUSAL, path);
		else
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (it is not a regular "
					  "file); " REFUSAL, path);
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	if (st.st_size > (off_t)SRT_SETTINGS_MAX_BYTES) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" is too large (%lld bytes; the limit is %u "
				  "bytes); " REFUSAL, path, (long long)st.st_size, SRT_SETTINGS_MAX_BYTES);
		goto out;
	}
	/* Read to EOF with a bound rather than trusting st_size: the file
	 * may grow between fstat and read. */
	text = malloc(SRT_SETTINGS_MAX_BYTES + 1);
	if (!text) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, path, "out of memory reading \"%s\"", path);
		goto out;
	}
	for (;;) {
		r = read(fd, text + len, SRT_SETTINGS_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = unreadable(diag, path, errno);
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > SRT_SETTINGS_MAX_BYTES) {
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" is too large (the limit is %u bytes); " REFUSAL,
					  path, SRT_SETTINGS_MAX_BYTES);
			goto out;
		}
	}
	for (i = 0; i < len && is_blank(text[i]); i++)
		;
	if (i == len) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" is empty: delete it, or put settings in it; "
				  REFUSAL, path);
		goto out;
	}
	if (has_yaml_suffix(path))
		rc = srt__settings_parse_yaml(s, text, len, path, diag);
	else
		rc = srt__settings_parse_json(s, text, len, path, diag);
	if (rc == SRT_E_SETTINGS && diag)
		add_refusal(diag);
	if (rc == SRT_OK && loaded)
		*loaded = true;
	s = NULL;
out:
	if (rc && s)
		srt__settings_release(s);
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}
