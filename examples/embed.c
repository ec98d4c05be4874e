/* Embedding srt: two sandboxes with different settings in one process.
 *
 * Build against the installed library:
 *   cc -o embed embed.c $(pkg-config --cflags --libs srt)
 * Run: ./embed [BACKEND]   (BACKEND: name or absolute path of a backend module)
 *
 * The first sandbox may write to the current directory, the second may not.
 * Both try to write a file there; the program prints each exit status and
 * the violations recorded for each command, appended to its stderr text
 * in a <sandbox_violations> block (srt_sandbox_annotate_stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/srt.h>

static const char writable[] =
	"{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},"
	"\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\"],\"denyWrite\":[]}}";
static const char readonly_yaml[] =
	"network:\n  allowedDomains: []\n  deniedDomains: []\n"
	"filesystem:\n  denyRead: []\n  allowWrite: []\n  denyWrite: []\n";

static struct srt_sandbox *create(const char *label, const char *text,
				  enum srt_settings_format fmt, const char *backend)
{
	struct srt_options opt;
	struct srt_diag d;
	struct srt_sandbox *sb = NULL;

	memset(&opt, 0, sizeof(opt));
	memset(&d, 0, sizeof(d));
	opt.backend = backend;
	if (srt_sandbox_new_from_text(&sb, text, strlen(text), fmt, &opt, &d) ||
	    srt_sandbox_start(sb, &d)) {
		fprintf(stderr, "%s: %s\n", label, d.message);
		srt_sandbox_free(sb);
		return NULL;
	}
	return sb;
}

static int run_in(struct srt_sandbox *sb, const char *label, const char *file)
{
	struct srt_run_options ro;
	struct srt_diag d;
	char cmd[256];
	const char *argv[4];
	char *annotated = NULL;
	int status = -1;

	memset(&d, 0, sizeof(d));
	snprintf(cmd, sizeof(cmd), "echo hi > %s", file);
	argv[0] = srt_default_shell();
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	memset(&ro, 0, sizeof(ro));
	ro.command_id = label;
	if (srt_sandbox_run(sb, argv, &ro, &status, &d)) {
		fprintf(stderr, "%s: %s\n", label, d.message);
		return -1;
	}
	if (srt_sandbox_annotate_stderr(sb, label, "(stderr)", &annotated) == 0) {
		printf("%s: exit %d\n%s\n", label, status, annotated);
		free(annotated);
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *backend = argc > 1 ? argv[1] : NULL;
	struct srt_sandbox *a, *b;
	int ra = -1, rb = -1;

	printf("srt library %s\n", srt_version());
	/* both sandboxes live at the same time, each with its own settings */
	a = create("sandbox-a", writable, SRT_SETTINGS_JSON, backend);
	b = create("sandbox-b", readonly_yaml, SRT_SETTINGS_YAML, backend);
	if (a && b) {
		ra = run_in(a, "sandbox-a", "from-a.txt");
		rb = run_in(b, "sandbox-b", "from-b.txt");
	}
	srt_sandbox_free(a);
	srt_sandbox_free(b);
	printf("result: a=%d b=%d\n", ra, rb);
	return (ra == 0 && rb > 0) ? 0 : 1;
}
