/* srt-win.exe: the Windows helper of the windows-wfp backend.
 *
 *   srt-win --version
 *   srt-win [--dry-run] windows-install   [plan options]   (elevated, once)
 *   srt-win [--dry-run] windows-uninstall
 *   srt-win [--dry-run] run [plan options] -- COMMAND [ARGS...]
 *
 * Plan options (what the module hands over from the policy):
 *   --cwd P --home P --tmpdir P --allow-read P --allow-write P
 *   --deny-read P --deny-write P --depth N --allow-git-config
 *   --ports LO-HI --user NAME --allow-loopback
 *
 * --dry-run prints every object the command would create or change (the
 * account, the group, the DPAPI-protected password, the WFP provider,
 * sublayer and filters, each access control entry) from the same plan the
 * real command applies (plan.c), and changes nothing. Without it:
 * windows-install creates the sandbox account and group, keeps a random
 * password protected with DPAPI under HKLM\SOFTWARE\sandbox-runtime, and
 * adds the WFP objects by fixed GUIDs; windows-uninstall removes each of
 * them by the same GUIDs; run applies the entries, logs on as the sandbox
 * account, starts the command with a write-restricted token inside a job
 * object that kills the whole tree when srt-win exits, waits, and removes
 * the entries that are not persistent write grants.
 *
 * Every failure names the layer and the fix and exits non-zero: nothing
 * runs with less isolation than asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/windows-wfp/plan.h"
#include "backends/windows-wfp/win32.h"

#define SRT_WIN_VERSION "0.1.0"

struct opts {
	struct srt_policy pol;
	struct srt__winplan_opts plan;
	int dry_run;
	const char *cmd;
	char **argv; /* the command after "--" (run) */
};

static int usage(void)
{
	fprintf(stderr, "usage: srt-win [--dry-run] windows-install|windows-uninstall|"
		"run [options] [-- COMMAND ARGS...]\n       srt-win --version\n");
	return 2;
}

static int push_rule(struct srt_rules *rs, const char *path, const char *list)
{
	struct srt_rule *v = realloc(rs->v, (rs->n + 1) * sizeof(*v));
	char origin[64];

	if (!v)
		return -1;
	rs->v = v;
	snprintf(origin, sizeof(origin), "filesystem.%s[%zu]", list, rs->n);
	v[rs->n].path = (char *)path;
	v[rs->n].flags = strpbrk(path, "*?[") ? SRT_RULE_GLOB : 0;
	v[rs->n].origin = strdup(origin);
	if (!v[rs->n].origin)
		return -1;
	rs->n++;
	return 0;
}

/* One option; returns the arguments it used, or -1. */
static int option(struct opts *o, int argc, char **argv, int i)
{
	const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
	struct srt_policy *p = &o->pol;

	if (!strcmp(a, "--allow-git-config"))
		return p->allow_git_config = 1;
	if (!strcmp(a, "--allow-loopback"))
		return o->plan.allow_loopback = 1;
	if (!v)
		return -1;
	if (!strcmp(a, "--cwd"))
		p->cwd = (char *)v;
	else if (!strcmp(a, "--home"))
		p->home = (char *)v;
	else if (!strcmp(a, "--tmpdir"))
		p->tmpdir = (char *)v;
	else if (!strcmp(a, "--allow-read"))
		return push_rule(&p->allow_read, v, "allowRead") ? -1 : 2;
	else if (!strcmp(a, "--allow-write"))
		return push_rule(&p->allow_write, v, "allowWrite") ? -1 : 2;
	else if (!strcmp(a, "--deny-read"))
		return push_rule(&p->deny_read, v, "denyRead") ? -1 : 2;
	else if (!strcmp(a, "--deny-write"))
		return push_rule(&p->deny_write, v, "denyWrite") ? -1 : 2;
	else if (!strcmp(a, "--depth"))
		p->mandatory_deny_depth = atoi(v);
	else if (!strcmp(a, "--user"))
		o->plan.user = v;
	else if (!strcmp(a, "--ports")) {
		if (sscanf(v, "%d-%d", &o->plan.port_lo, &o->plan.port_hi) != 2)
			return -1;
	} else
		return -1;
	return 2;
}

static int parse(struct opts *o, int argc, char **argv)
{
	int i = 1, n;

	memset(o, 0, sizeof(*o));
	o->pol.mandatory_deny_depth = 3;
	if (i < argc && !strcmp(argv[i], "--srt-win"))
		i++; /* the reference's spelling: <exe> --srt-win <subcommand> */
	if (i < argc && !strcmp(argv[i], "--dry-run")) {
		o->dry_run = 1;
		i++;
	}
	if (i >= argc)
		return -1;
	o->cmd = argv[i++];
	while (i < argc) {
		if (!strcmp(argv[i], "--")) {
			o->argv = argv + i + 1;
			return 0;
		}
		if ((n = option(o, argc, argv, i)) < 0) {
			fprintf(stderr, "srt-win: %s: unknown option or missing value\n", argv[i]);
			return -1;
		}
		i += n;
	}
	return 0;
}

static int plan(struct opts *o, struct srt__winplan *p)
{
	struct srt_diag d;

	memset(&d, 0, sizeof(d));
	if (srt__winplan_build(&o->pol, &o->plan, &srt__win32_fs, p, &d)) {
		fprintf(stderr, "srt-win: plan: %s\n", d.message);
		return 1;
	}
	return 0;
}

static int dry_run(struct opts *o)
{
	struct srt__winplan p;

	if (plan(o, &p))
		return 1;
	printf("dry run of %s: nothing is changed\n", o->cmd);
	if (!strcmp(o->cmd, "windows-install")) {
		srt__win32_print_install(&p, stdout);
	} else if (!strcmp(o->cmd, "windows-uninstall")) {
		srt__win32_print_uninstall(&p, stdout);
	} else {
		srt__winplan_print(&p, stdout);
		printf("process %s with a write-restricted token of %s in a job object "
		       "(kill on close)\n", o->argv && o->argv[0] ? o->argv[0] : "(none)", p.user);
	}
	srt__winplan_free(&p);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct srt__winplan p;
	int rc;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("srt-win %s (plan: ACEs + WFP ALE_AUTH_CONNECT_V4/V6)\n", SRT_WIN_VERSION);
		return 0;
	}
	if (parse(&o, argc, argv))
		return usage();
	if (strcmp(o.cmd, "windows-install") && strcmp(o.cmd, "windows-uninstall") &&
	    strcmp(o.cmd, "run"))
		return usage();
	if (o.dry_run)
		return dry_run(&o);
	if (!strcmp(o.cmd, "run") && (!o.argv || !o.argv[0])) {
		fprintf(stderr, "srt-win: run: no command after --\n");
		return 2;
	}
	if (plan(&o, &p))
		return 1;
	if (!strcmp(o.cmd, "windows-install"))
		rc = srt__win32_install(&p);
	else if (!strcmp(o.cmd, "windows-uninstall"))
		rc = srt__win32_uninstall(&p);
	else
		rc = srt__win32_run(&p, o.argv);
	srt__winplan_free(&p);
	return rc;
}
