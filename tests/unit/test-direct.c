/* Which `srt -c` strings run without a shell: only those where the shell
 * would split on blanks and exec a program it finds on PATH. */
#include "config.h"

#include <stdlib.h>

#include "../../cli/direct.h"
#include "tap.h"

static int words_are(const char *s, const char *const *want)
{
	char **got = srt__cli_direct_argv(s);
	int same = got != NULL;
	size_t i;

	for (i = 0; same && want[i]; i++)
		same = got[i] && !strcmp(got[i], want[i]);
	if (same)
		same = got[i] == NULL;
	srt__cli_direct_free(got);
	return same;
}

static int needs_shell(const char *s)
{
	char **got = srt__cli_direct_argv(s);

	srt__cli_direct_free(got);
	return got == NULL;
}

static void case_shell_cases(void)
{
	static const char *const shell_cases[] = {
		"", "   ", "echo hi", "exit 7", "cd /", "true --help", "false --version",
		"FOO=1 env", "ls; id", "ls && id", "ls || id", "ls | cat", "ls > f", "ls < f",
		"ls &", "ls *", "ls a?", "ls [ab]", "ls ~", "cat $HOME", "ls `id`", "ls $(id)",
		"ls 'a b'", "ls \"a b\"", "ls a\\ b", "ls # comment", "ls\nid", "(ls)", "{ ls; }",
		"! ls", "if true; then ls; fi", "kill -9 1", "pwd", "test -e /", "[ -e / ]",
		"srt-no-such-program-here", "./srt-no-such-file", "/nonexistent/bin/ls",
		"exec ls", "eval ls", ". /dev/null", "source /dev/null", "time ls",
		"command ls", "builtin cd", "printf x", "read x", "set -e",
	};
	size_t i;

	for (i = 0; i < sizeof(shell_cases) / sizeof(shell_cases[0]); i++)
		ok(needs_shell(shell_cases[i]), "shell keeps \"%s\"", shell_cases[i]);
}

static void case_direct_words(void)
{
	static const char *const w1[] = { "true", NULL };
	static const char *const w2[] = { "false", "x", NULL };
	static const char *const w3[] = { "ls", "-la", "/tmp", NULL };
	static const char *const w4[] = { "/bin/sh", "-e", "/dev/null", NULL };
	static const char *const w5[] = { "env", "A=1", "true", NULL };
	static const char *const w6[] = { "cat", "a,b:c@d%e+f.g_h", NULL };

	ok(words_are("true", w1), "\"true\" runs /usr/bin/true directly");
	ok(words_are("  false\tx ", w2), "blanks split, leading and trailing ones dropped");
	ok(words_are("ls -la /tmp", w3), "\"ls -la /tmp\" runs ls directly");
	ok(words_are("/bin/sh -e /dev/null", w4), "an absolute program path");
	ok(words_are("env A=1 true", w5), "an assignment after the first word is an argument");
	ok(words_are("cat a,b:c@d%e+f.g_h", w6), "plain punctuation stays in words");
}

static void case_limits(void)
{
	char big[5000], many[400];
	size_t i;

	memset(big, 'a', sizeof(big) - 1);
	big[0] = 'l';
	big[1] = 's';
	big[2] = ' ';
	big[sizeof(big) - 1] = '\0';
	ok(needs_shell(big), "an over-long string goes to the shell");
	strcpy(many, "ls");
	for (i = 0; i < 70; i++)
		strcat(many, " a");
	ok(needs_shell(many), "more than 64 words go to the shell");
}

static void case_not_on_path(void)
{
	setenv("PATH", "/nonexistent", 1);
	ok(needs_shell("ls"), "a program not on PATH goes to the shell (its own message)");
}

int main(void)
{
	TAP_RUN(case_shell_cases);
	TAP_RUN(case_direct_words);
	TAP_RUN(case_limits);
	TAP_RUN(case_not_on_path);
	return tap_done();
}
