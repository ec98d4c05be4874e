/* The protected names: files and directories that something outside the
 * sandbox reads or runs later (shells on start, git, editors, agents,
 * package managers, the desktop session), so a sandboxed command that
 * could write one could have code run on the host after its run. They
 * stay unwritable in $HOME, the working directory and every write root,
 * whatever allowWrite says; one setting,
 * filesystem.allowProtectedNames, releases a name on purpose (and
 * filesystem.allowGitConfig releases .git/config).
 *
 * One table, one reason per entry: the backends' walk
 * (backends/linux-common/mandatory.c) reports what to protect from it,
 * the settings check validates released names against it, --explain
 * prints it, and the violation summary names the entry a refused write
 * hit. Names match case-insensitively. */
#ifndef SRT_COMMON_PROTECTED_H
#define SRT_COMMON_PROTECTED_H

#include <stddef.h>

enum srt__protected_kind {
	SRT__PROT_FILE, /* a file of this name, in every directory the walk visits */
	SRT__PROT_DIR,  /* a directory of this name and all of it, likewise */
	SRT__PROT_SUB,  /* "dir/name": name inside a directory called dir, likewise */
	SRT__PROT_HOME, /* a path below $HOME only ("~/.ssh/config") */
	SRT__PROT_GIT,  /* inside a git directory, found by the git walk */
};

struct srt__protected {
	const char *name;   /* as listed and released: ".bashrc", ".claude/hooks", "~/.ssh/config" */
	const char *path;   /* what it matches: the name, or for HOME the path below $HOME */
	enum srt__protected_kind kind;
	const char *reason; /* one line: what runs it or reads it */
};

/* The table and its length. */
extern const struct srt__protected srt__protected_names[];
extern const size_t srt__protected_count;

/* The entry whose name (as a user spells it in
 * filesystem.allowProtectedNames) is name, case-insensitively; NULL:
 * none. "~/x" and "x" both find a HOME entry. */
const struct srt__protected *srt__protected_find(const char *name);

/* Is the entry released by names (NULL-terminated, may be NULL)? */
int srt__protected_released(const struct srt__protected *p, const char *const *names);

/* The entry an absolute path falls under (the name itself or inside a
 * protected directory), given $HOME (may be NULL); NULL: none. For the
 * violation summary: which rule refused a write, and what releases it. */
const struct srt__protected *srt__protected_match(const char *path, const char *home);

#endif
