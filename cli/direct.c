/* `srt -c STRING` without a shell when the shell would do nothing but split
 * STRING on blanks and run a program found on PATH: the same decision GNU
 * make takes for recipe lines. A shell costs about 1.5 ms per command and
 * reads BASH_ENV; the result (argv, exit status, signals) is the same. Any
 * character with a meaning to the shell, a builtin or keyword as first word,
 * an assignment, or a program not found (the shell's own message then) keeps
 * the shell. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "direct.h"

#define DIRECT_MAX_LEN 4096
#define DIRECT_MAX_WORDS 64

/* bash's reserved words and builtins (`compgen -k -b`), and POSIX sh's */
static const char *const shell_words[] = {
	"!", ".", ":", "[", "[[", "]]", "{", "}", "alias", "bg", "bind", "break", "builtin",
	"caller", "case", "cd", "command", "compgen", "complete", "compopt", "continue", "coproc",
	"declare", "dirs", "disown", "do", "done", "echo", "elif", "else", "enable", "esac",
	"eval", "exec", "exit", "export", "false", "fc", "fg", "fi", "for", "function",
	"getopts", "hash", "help", "history", "if", "in", "jobs", "kill", "let", "local",
	"logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly",
	"return", "select", "set", "shift", "shopt", "source", "suspend", "test", "then", "time",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset",
	"until", "wait", "while",
};

static int is_plain(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_@%+=:,./-", c));
}

static int is_shell_word(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(shell_words) / sizeof(shell_words[0]); i++)
		if (!strcmp(w, shell_words[i]))
			return 1;
	return 0;
}

static int executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Would the shell find `name` on PATH (or at that path)? */
static int findable(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(name, '/'))
		return executable_file(name);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		size_t dl;

		end = strchr(p, ':');
		dl = end ? (size_t)(end - p) : strlen(p);
		/* an empty PATH entry is the current directory */
		if (dl + 1 + strlen(name) + 1 <= sizeof(buf)) {
			if (dl)
				memcpy(buf, p, dl);
			else
				buf[dl++] = '.';
			buf[dl] = '/';
			strcpy(buf + dl + 1, name);
			if (executable_file(buf))
				return 1;
		}
		if (!end)
			return 0;
	}
}

char **srt__cli_direct_argv(const char *s)
{
	char *copy, *w, **argv;
	size_t len = strlen(s), n = 0, i;
	int dashed = 0;

	if (len == 0 || len > DIRECT_MAX_LEN)
		return NULL;
	for (i = 0; i < len; i++)
		if (!is_plain(s[i]) && s[i] != ' ' && s[i] != '\t')
			return NULL;
	copy = strdup(s);
	argv = calloc(DIRECT_MAX_WORDS + 2, sizeof(*argv));
	if (!copy || !argv)
		goto no;
	for (w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
		if (n == DIRECT_MAX_WORDS)
			goto no;
		if (n > 0 && w[0] == '-')
			dashed = 1;
		argv[n++] = w;
	}
	if (n == 0 || strchr(argv[0], '='))
		goto no;
	/* true and false are builtins whose programs act alike unless asked
	 * for --help or --version */
	if (is_shell_word(argv[0]) &&
	    !((!strcmp(argv[0], "true") || !strcmp(argv[0], "false")) && !dashed))
		goto no;
	if (!findable(argv[0]))
		goto no;
	argv[DIRECT_MAX_WORDS + 1] = copy; /* past the NULL: what the words point into */
	return argv;
no:
	free(copy);
	free(argv);
	return NULL;
}

void srt__cli_direct_free(char **argv)
{
	if (argv) {
		free(argv[DIRECT_MAX_WORDS + 1]);
		free(argv);
	}
}
