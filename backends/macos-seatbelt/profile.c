/* macos-seatbelt: the policy as a Seatbelt profile (see profile.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/error.h>
#include "backends/macos-seatbelt/profile.h"
#include "backends/macos-seatbelt/sbpl.h"
#include "backends/linux-common/mountinfo.h"
#include "common/protected.h"
#include "common/strv.h"

/* One path rule as the profile sees it: a path (a subpath filter: the path
 * and all below it) or a glob (a regex filter). A glob srt joined onto a
 * directory of its own keeps that directory as anchor: a name on disk,
 * escaped whole, never read as pattern. */
struct ent {
	char *path;
	char *anchor; /* NULL, or the leading part of path that is not pattern */
	int glob;
};

struct ents {
	struct ent *v;
	size_t n;
	int failed;
};

struct gen {
	struct srt__sb_buf out;
	const struct srt_policy *pol;
	const char *tag;
	struct ents deny_read, allow_read, write_roots, deny_write;
};

static void ents_add1(struct ents *l, const char *path, const char *anchor, int glob)
{
	struct ent *v;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path) && l->v[i].glob == glob)
			return;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v) {
		l->failed = 1;
		return;
	}
	l->v = v;
	v[l->n].path = strdup(path);
	v[l->n].anchor = anchor ? strdup(anchor) : NULL;
	v[l->n].glob = glob;
	if (!v[l->n].path || (anchor && !v[l->n].anchor)) {
		free(v[l->n].path);
		free(v[l->n].anchor);
		l->failed = 1;
		return;
	}
	l->n++;
}

/* An entry in each spelling the kernel may report for it. */
static void ents_add(struct ents *l, const char *path, const char *anchor, int glob)
{
	char *alt = srt__sb_other_spelling(path);

	ents_add1(l, path, anchor, glob);
	if (!alt)
		return;
	if (anchor) {
		char *alt_anchor = srt__sb_other_spelling(anchor);

		if (alt_anchor)
			ents_add1(l, alt, alt_anchor, glob);
		free(alt_anchor);
	} else {
		ents_add1(l, alt, NULL, glob);
	}
	free(alt);
}

static void ents_from_rules(struct ents *l, const struct srt_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		ents_add(l, r->v[i].path, NULL, (r->v[i].flags & SRT_RULE_GLOB) != 0);
}

static void ents_release(struct ents *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].anchor);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The regex of a glob entry; deny widens it to everything below a match. */
static char *ent_regex(const struct ent *e, int deny)
{
	if (e->anchor)
		return srt__sb_anchored_regex(e->anchor, e->path + strlen(e->anchor), deny);
	return deny ? srt__sb_glob_deny_regex(e->path) : srt__sb_glob_regex(e->path);
}

/* "(subpath ...)" or "(regex ...)" for e; deny: the widened regex. */
static char *ent_filter(const struct ent *e, int deny)
{
	struct srt__sb_buf b = { 0 };
	char *re;

	if (!e->glob) {
		srt__sb_puts(&b, "(subpath ");
		srt__sb_quote(&b, e->path);
	} else {
		re = ent_regex(e, deny);
		if (!re)
			return NULL;
		srt__sb_puts(&b, "(regex ");
		srt__sb_quote(&b, re);
		free(re);
	}
	srt__sb_puts(&b, ")");
	return srt__sb_take(&b);
}

static char *literal_filter(const char *path)
{
	struct srt__sb_buf b = { 0 };

	srt__sb_puts(&b, "(literal ");
	srt__sb_quote(&b, path);
	srt__sb_puts(&b, ")");
	return srt__sb_take(&b);
}

/* Add s (owned) to the filter set, once; a NULL s marks the set failed. */
static void set_add(struct srt__strv *set, int *failed, char *s)
{
	size_t i;

	if (!s) {
		*failed = 1;
		return;
	}
	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], s)) {
			free(s);
			return;
		}
	if (srt__strv_push(set, s))
		*failed = 1;
	free(s);
}

/* A concrete path of the shape e matches: each glob piece becomes "x".
 * Whether a deny's regex matches it tells whether the deny covers e. */
static char *sample_path(const struct ent *e)
{
	struct srt__sb_buf b = { 0 };
	const char *p;

	if (!e->glob)
		return strdup(e->path);
	p = e->path;
	if (e->anchor) {
		srt__sb_puts(&b, e->anchor);
		p += strlen(e->anchor);
	}
	while (*p) {
		const char *close;

		if (*p == '[' && (close = strchr(p, ']'))) {
			srt__sb_puts(&b, "x");
			p = close + 1;
		} else if (*p == '*' || *p == '?') {
			srt__sb_puts(&b, "x");
			while (*p == '*' || *p == '?')
				p++;
		} else {
			srt__sb_putn(&b, p++, 1);
		}
	}
	srt__sb_puts(&b, "");
	return srt__sb_take(&b);
}

/* The directory that bounds where e can match. */
static char *base_dir(const struct ent *e)
{
	size_t n;
	char *s;

	if (!e->glob)
		return strdup(e->path);
	if (e->anchor)
		return strdup(e->anchor);
	n = strcspn(e->path, "*?[]");
	if (n <= 1)
		return strdup("/");
	s = strndup(e->path, n);
	if (!s)
		return NULL;
	if (s[n - 1] == '/') {
		s[n - 1] = '\0';
	} else {
		char *slash = strrchr(s, '/');

		if (slash == s)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
	}
	return s;
}

/* Does the deny regex re cover e's region? */
static int covers(const char *re, const struct ent *e)
{
	char *sample = sample_path(e);
	int m;

	if (!sample)
		return 0; /* no carve-out: the deny stays wider */
	m = srt__sb_regex_match(re, sample) == 1;
	free(sample);
	return m;
}

/* filter minus each of carve (require-not), or filter itself. */
static char *carve(char *filter, const struct srt__strv *carve_outs)
{
	struct srt__sb_buf b = { 0 };
	size_t i;

	if (!filter || !carve_outs->n)
		return filter;
	srt__sb_puts(&b, "(require-all ");
	srt__sb_puts(&b, filter);
	for (i = 0; i < carve_outs->n; i++)
		srt__sb_printf(&b, " (require-not %s)", carve_outs->v[i]);
	srt__sb_puts(&b, ")");
	free(filter);
	return srt__sb_take(&b);
}

static void rule(struct gen *g, const char *action, const char *ops, const struct srt__strv *set)
{
	size_t i;

	if (!set->n) /* a rule without a filter would match every path */
		return;
	srt__sb_printf(&g->out, "(%s %s\n", action, ops);
	for (i = 0; i < set->n; i++)
		srt__sb_printf(&g->out, "  %s\n", set->v[i]);
	srt__sb_puts(&g->out, "  (with message ");
	srt__sb_quote(&g->out, g->tag);
	srt__sb_puts(&g->out, "))\n");
}

/* Add the (literal ...) of every directory above p, up to "/" excluded. */
static void add_ancestors(struct srt__strv *set, int *failed, const char *p)
{
	char *d = strdup(p), *slash;

	if (!d) {
		*failed = 1;
		return;
	}
	while ((slash = strrchr(d, '/')) && slash != d) {
		*slash = '\0';
		set_add(set, failed, literal_filter(d));
	}
	free(d);
}

/* The filters that keep entries, and the directories above them, from
 * being renamed, removed or created anew (a planted link in their place). */
static void move_blocking(const struct ents *l, struct srt__strv *set, int *failed)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct ent *e = &l->v[i];
		char *base = base_dir(e);

		set_add(set, failed, ent_filter(e, 1));
		if (!base) {
			*failed = 1;
			continue;
		}
		if (e->glob && strcmp(base, "/") != 0)
			set_add(set, failed, literal_filter(base));
		if (strcmp(base, "/") != 0)
			add_ancestors(set, failed, base);
		free(base);
	}
}

static void set_done(struct srt__strv *set)
{
	srt__strv_release(set);
}

/* The read section: reads allowed, denyRead denied, allowRead re-opened,
 * then the denies the allows must not re-open. */
static void read_rules(struct gen *g, int *failed)
{
	const struct ents *den = &g->deny_read, *alw = &g->allow_read;
	struct srt__strv set = { 0 };
	int covers_root = 0, denies_root = 0;
	size_t i, j;

	srt__sb_puts(&g->out, "(allow file-read*)\n");
	for (i = 0; i < den->n; i++) {
		set_add(&set, failed, ent_filter(&den->v[i], 1));
		if (!den->v[i].glob && !strcmp(den->v[i].path, "/"))
			denies_root = 1;
	}
	rule(g, "deny", "file-read*", &set);
	set_done(&set);
	for (i = 0; i < alw->n; i++)
		set_add(&set, failed, ent_filter(&alw->v[i], 0));
	rule(g, "allow", "file-read*", &set);
	set_done(&set);

	/* last match wins: a deny nested in an allow, and every glob deny
	 * minus the allows it covers, come again after the allows */
	for (i = 0; i < den->n; i++) {
		const struct ent *d = &den->v[i];
		struct srt__strv outs = { 0 };
		char *re;

		if (!d->glob) {
			for (j = 0; j < alw->n; j++)
				if (!alw->v[j].glob && srt__sb_strictly_under(d->path, alw->v[j].path)) {
					set_add(&set, failed, ent_filter(d, 1));
					break;
				}
			continue;
		}
		re = ent_regex(d, 1);
		if (!re) {
			*failed = 1;
			continue;
		}
		if (srt__sb_regex_match(re, "/") == 1)
			covers_root = 1;
		for (j = 0; j < alw->n; j++)
			if (covers(re, &alw->v[j]))
				set_add(&outs, failed, ent_filter(&alw->v[j], 0));
		set_add(&set, failed, carve(ent_filter(d, 1), &outs));
		srt__strv_release(&outs);
		free(re);
	}
	rule(g, "deny", "file-read*", &set);
	set_done(&set);
	/* a deny of "/" takes the root directory itself, and nothing starts
	 * without reading it: that one vnode (its names, not below) again */
	if (denies_root || covers_root)
		srt__sb_puts(&g->out, "(allow file-read* (literal \"/\"))\n");
	/* realpath() must stat every directory on its way through a deny */
	if (den->n)
		srt__sb_puts(&g->out, "(allow file-read-metadata\n  (vnode-type DIRECTORY))\n");
	move_blocking(den, &set, failed);
	rule(g, "deny", "file-write-unlink file-write-create", &set);
	set_done(&set);
	/* the block above also took rm and create inside the write roots */
	for (i = 0; i < g->write_roots.n; i++)
		set_add(&set, failed, ent_filter(&g->write_roots.v[i], 0));
	rule(g, "allow", "file-write-unlink file-write-create", &set);
	set_done(&set);
}

static void write_rules(struct gen *g, int *failed)
{
	struct srt__strv set = { 0 };
	size_t i;

	for (i = 0; i < g->write_roots.n; i++)
		set_add(&set, failed, ent_filter(&g->write_roots.v[i], 0));
	rule(g, "allow", "file-write*", &set);
	set_done(&set);
	for (i = 0; i < g->deny_write.n; i++)
		set_add(&set, failed, ent_filter(&g->deny_write.v[i], 1));
	rule(g, "deny", "file-write*", &set);
	set_done(&set);
	move_blocking(&g->deny_write, &set, failed);
	rule(g, "deny", "file-write-unlink file-write-create", &set);
	set_done(&set);
}

/* Is p strictly below a write root? */
static int below_write_root(const struct gen *g, const char *p)
{
	size_t i;

	for (i = 0; i < g->write_roots.n; i++) {
		const struct ent *w = &g->write_roots.v[i];

		if (!w->glob ? srt__sb_strictly_under(p, w->path) : 0)
			return 1;
		if (w->glob) {
			char *re = ent_regex(w, 0);
			int m = re && srt__sb_regex_match(re, p) == 1;

			free(re);
			if (m)
				return 1;
		}
	}
	return 0;
}

static void protect_dirs_below_roots(const struct gen *g, const char *dir, int self,
				     struct srt__strv *set, int *failed)
{
	char *d = strdup(dir), *slash;

	if (!d) {
		*failed = 1;
		return;
	}
	if (self && below_write_root(g, d))
		set_add(set, failed, literal_filter(d));
	while ((slash = strrchr(d, '/')) && slash != d) {
		*slash = '\0';
		if (below_write_root(g, d))
			set_add(set, failed, literal_filter(d));
	}
	free(d);
}

/* Read-denied paths inside write roots stay where they are: the read
 * section re-allowed rm and create in the write roots, which would let a
 * command rename a denied file, or its directory, to a name it can read. */
static void read_deny_unlink_rules(struct gen *g, int *failed)
{
	const struct ents *den = &g->deny_read;
	struct srt__strv set = { 0 };
	int glob_roots = 0;
	size_t i, j;

	if (!g->write_roots.n)
		return;
	for (i = 0; i < g->write_roots.n; i++)
		glob_roots |= g->write_roots.v[i].glob;
	for (i = 0; i < den->n; i++) {
		const struct ent *d = &den->v[i];
		struct srt__strv outs = { 0 };

		if (d->glob) {
			char *base = base_dir(d), *re;
			int meets = glob_roots;

			if (!base) {
				*failed = 1;
				continue;
			}
			for (j = 0; !meets && j < g->write_roots.n; j++) {
				const char *w = g->write_roots.v[j].path;

				meets = srt__sb_at_or_under(base, w) || srt__sb_strictly_under(w, base);
			}
			if (!meets) {
				free(base);
				continue;
			}
			re = ent_regex(d, 1);
			if (!re) {
				*failed = 1;
				free(base);
				continue;
			}
			for (j = 0; j < g->allow_read.n; j++)
				if (covers(re, &g->allow_read.v[j]))
					set_add(&outs, failed, ent_filter(&g->allow_read.v[j], 0));
			for (j = 0; j < g->write_roots.n; j++)
				if (covers(re, &g->write_roots.v[j]))
					set_add(&outs, failed, ent_filter(&g->write_roots.v[j], 0));
			set_add(&set, failed, carve(ent_filter(d, 1), &outs));
			if (strcmp(base, "/") != 0)
				protect_dirs_below_roots(g, base, 1, &set, failed);
			free(base);
			free(re);
		} else {
			if (!below_write_root(g, d->path))
				continue;
			for (j = 0; j < g->allow_read.n; j++) {
				char *s = sample_path(&g->allow_read.v[j]);

				if (s && srt__sb_strictly_under(s, d->path))
					set_add(&outs, failed, ent_filter(&g->allow_read.v[j], 0));
				free(s);
			}
			for (j = 0; j < g->write_roots.n; j++) {
				char *s = sample_path(&g->write_roots.v[j]);

				if (s && srt__sb_strictly_under(s, d->path))
					set_add(&outs, failed, ent_filter(&g->write_roots.v[j], 0));
				free(s);
			}
			set_add(&set, failed, carve(ent_filter(d, 1), &outs));
			protect_dirs_below_roots(g, d->path, 0, &set, failed);
		}
		srt__strv_release(&outs);
	}
	if (set.n)
		srt__sb_puts(&g->out, "\n; File read: keep read-denied paths inside write roots in place\n");
	rule(g, "deny", "file-write-unlink", &set);
	set_done(&set);
}

/* The protected names, below one directory: the name there, and the same
 * name at any depth below it (a regex: the names need not exist yet). */
static void protect_below(struct gen *g, const char *dir)
{
	char path[8192], tail[1024];
	size_t i;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (p->kind == SRT__PROT_HOME)
			continue;
		if (srt__protected_released(p, (const char *const *)g->pol->protected_released))
			continue;
		if (!strcmp(p->name, ".git/config") && g->pol->allow_git_config)
			continue;
		/* core.hooksPath names a directory from git's config; the
		 * profile is written before any repository is read */
		if (!strcmp(p->name, "core.hooksPath"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", p->path);
		ents_add(&g->deny_write, path, NULL, 0);
		/* a protected directory: what is inside it, as the reference's
		 * profile has it; a file, or a name inside a directory: the
		 * name itself and all below it */
		snprintf(tail, sizeof(tail), "/**/%s%s", p->path, p->kind == SRT__PROT_DIR ||
			 !strcmp(p->name, ".git/hooks") ? "/**" : "");
		snprintf(path, sizeof(path), "%s%s", strcmp(dir, "/") ? dir : "", tail);
		ents_add(&g->deny_write, path, strcmp(dir, "/") ? dir : "", 1);
	}
}

/* A link met on the way to one of $HOME's protected names: held when a
 * write root holds it, so the command cannot point it elsewhere. */
static int home_link_hold(void *ctx, const char *link)
{
	struct gen *g = ctx;

	if (below_write_root(g, link))
		ents_add(&g->deny_write, link, NULL, 0);
	return 0;
}

/* $HOME's protected names where they really lie. Seatbelt judges the path
 * a write reaches after the links, so with a dotfile manager's ~/.bashrc
 * or ~/.config a link into a write root, the target ("dots/bashrc",
 * "dots/config/systemd/user") was writable under a name the rules above
 * do not know, and so was a link on the way, which the command could
 * point elsewhere (red team, as on Linux). The resolution follows a link
 * whose target does not exist yet and keeps a missing name as it is (the
 * command may make it). */
static void protect_home_links(struct gen *g)
{
	char path[8192], real[PATH_MAX];
	size_t i;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (p->kind == SRT__PROT_GIT ||
		    srt__protected_released(p, (const char *const *)g->pol->protected_released))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", g->pol->home, p->path) >= sizeof(path) ||
		    srt__mountinfo_resolve_links(path, real, sizeof(real), home_link_hold, g) != 0)
			continue;
		if (strcmp(real, path) && below_write_root(g, real))
			ents_add(&g->deny_write, real, NULL, 0);
	}
}

static void protected_names(struct gen *g)
{
	char path[8192];
	size_t i;

	protect_below(g, g->pol->cwd);
	for (i = 0; i < g->pol->allow_write.n; i++) {
		const struct srt_rule *r = &g->pol->allow_write.v[i];

		if (!(r->flags & SRT_RULE_GLOB) && strcmp(r->path, g->pol->cwd))
			protect_below(g, r->path);
	}
	if (!g->pol->home)
		return;
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (srt__protected_released(p, (const char *const *)g->pol->protected_released))
			continue;
		if (p->kind != SRT__PROT_HOME)
			continue;
		snprintf(path, sizeof(path), "%s/%s", g->pol->home, p->path);
		ents_add(&g->deny_write, path, NULL, 0);
	}
	protect_home_links(g);
}

static const char *const mach_services[] = {
	"com.apple.audio.systemsoundserver", "com.apple.distributed_notifications@Uv3",
	"com.apple.FontObjectsServer", "com.apple.fonts", "com.apple.logd", "com.apple.lsd.mapdb",
	"com.apple.PowerManagement.control", "com.apple.system.logger",
	"com.apple.system.notification_center", "com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership", "com.apple.bsd.dirhelper",
	"com.apple.securityd.xpc", "com.apple.coreservices.launchservicesd",
};

static const char *const sysctl_names[] = {
	"hw.activecpu", "hw.busfrequency_compat", "hw.byteorder", "hw.cacheconfig",
	"hw.cachelinesize_compat", "hw.cpufamily", "hw.cpufrequency", "hw.cpufrequency_compat",
	"hw.cputype", "hw.l1dcachesize_compat", "hw.l1icachesize_compat", "hw.l2cachesize_compat",
	"hw.l3cachesize_compat", "hw.logicalcpu", "hw.logicalcpu_max", "hw.machine", "hw.memsize",
	"hw.ncpu", "hw.nperflevels", "hw.packages", "hw.pagesize_compat", "hw.pagesize",
	"hw.physicalcpu", "hw.physicalcpu_max", "hw.tbfrequency_compat", "hw.vectorunit",
	"kern.argmax", "kern.bootargs", "kern.hostname", "kern.maxfiles", "kern.maxfilesperproc",
	"kern.maxproc", "kern.ngroups", "kern.osproductversion", "kern.osrelease", "kern.ostype",
	"kern.osvariant_status", "kern.osversion", "kern.secure_kernel", "kern.tcsm_available",
	"kern.tcsm_enable", "kern.usrstack64", "kern.version", "kern.willshutdown",
	"machdep.cpu.brand_string", "machdep.ptrauth_enabled", "security.mac.lockdown_mode_state",
	"sysctl.proc_cputype", "vm.loadavg",
};

static const char *const sysctl_prefixes[] = {
	"hw.optional.arm", "hw.optional.arm.", "hw.optional.armv8_", "hw.perflevel",
	"kern.proc.all", "kern.proc.pgrp.", "kern.proc.pid.", "machdep.cpu.", "net.routetable.",
};

static const char *const ioctl_devices[] = {
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper", "/dev/tty",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void head(struct gen *g)
{
	struct srt__sb_buf *o = &g->out;
	size_t i;

	srt__sb_puts(o, "(version 1)\n(deny default (with message ");
	srt__sb_quote(o, g->tag);
	srt__sb_puts(o, "))\n\n");
	srt__sb_printf(o, "; LogTag: %s\n\n", g->tag);
	srt__sb_puts(o, "; Processes: run, fork, and see and signal only this sandbox's own\n"
			"(allow process-exec)\n(allow process-fork)\n"
			"(allow process-info* (target same-sandbox))\n"
			"(allow signal (target same-sandbox))\n"
			"(allow mach-priv-task-port (target same-sandbox))\n\n"
			"(allow user-preference-read)\n\n"
			"; Mach services: these only, by name\n(allow mach-lookup\n");
	for (i = 0; i < N(mach_services); i++)
		srt__sb_printf(o, "  (global-name \"%s\")\n", mach_services[i]);
	srt__sb_puts(o, ")\n");
	if (g->pol->enable_weaker_network_isolation)
		srt__sb_puts(o, "; enableWeakerNetworkIsolation: certificate checks through trustd\n"
				"(allow mach-lookup (global-name \"com.apple.trustd.agent\"))\n");
	if (g->pol->allow_apple_events)
		srt__sb_puts(o, "; allowAppleEvents: open and osascript may drive other applications\n"
				"(allow appleevent-send)\n"
				"(allow mach-lookup (global-name \"com.apple.coreservices.appleevents\"))\n"
				"(allow lsopen)\n"
				"(allow mach-lookup (global-name \"com.apple.CoreServices.coreservicesd\"))\n"
				"(allow mach-lookup (global-name \"com.apple.coreservices.quarantine-resolver\"))\n");
	for (i = 0; g->pol->allow_mach_lookup && g->pol->allow_mach_lookup[i]; i++) {
		const char *n = g->pol->allow_mach_lookup[i];
		size_t len = strlen(n);

		if (len && n[len - 1] == '*') {
			char *prefix = strndup(n, len - 1);

			if (!prefix) {
				o->failed = 1;
				continue;
			}
			srt__sb_puts(o, "(allow mach-lookup (global-name-prefix ");
			srt__sb_quote(o, prefix);
			free(prefix);
		} else {
			srt__sb_puts(o, "(allow mach-lookup (global-name ");
			srt__sb_quote(o, n);
		}
		srt__sb_puts(o, "))\n");
	}
	srt__sb_puts(o, "\n(allow ipc-posix-shm)\n(allow ipc-posix-sem)\n\n"
			"(allow iokit-open\n"
			"  (iokit-registry-entry-class \"IOSurfaceRootUserClient\")\n"
			"  (iokit-registry-entry-class \"RootDomainUserClient\")\n"
			"  (iokit-user-client-class \"IOSurfaceSendRight\")\n)\n"
			"(allow iokit-get-properties)\n\n"
			"; the kernel-control sockets of AF_SYSTEM: no network\n"
			"(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))\n\n"
			"(allow sysctl-read\n");
	for (i = 0; i < N(sysctl_names); i++)
		srt__sb_printf(o, "  (sysctl-name \"%s\")\n", sysctl_names[i]);
	for (i = 0; i < N(sysctl_prefixes); i++)
		srt__sb_printf(o, "  (sysctl-name-prefix \"%s\")\n", sysctl_prefixes[i]);
	srt__sb_puts(o, ")\n(allow sysctl-write\n  (sysctl-name \"kern.tcsm_enable\")\n)\n\n"
			"(allow distributed-notification-post)\n"
			"(allow mach-lookup (global-name \"com.apple.SecurityServer\"))\n\n");
	for (i = 0; i < N(ioctl_devices); i++)
		srt__sb_printf(o, "(allow file-ioctl (literal \"%s\"))\n", ioctl_devices[i]);
	srt__sb_puts(o, "(allow file-ioctl file-read-data file-write-data\n"
			"  (require-all\n    (literal \"/dev/null\")\n    (vnode-type CHARACTER-DEVICE)\n  )\n)\n\n");
}

static void port_rules(struct srt__sb_buf *o, int port)
{
	srt__sb_printf(o, "(allow network-bind (local ip \"localhost:%d\"))\n", port);
	srt__sb_printf(o, "(allow network-inbound (local ip \"localhost:%d\"))\n", port);
	srt__sb_printf(o, "(allow network-outbound (remote ip \"localhost:%d\"))\n", port);
}

/* Every network operation stays denied (deny default) but these. */
static void network(struct gen *g)
{
	const struct srt_policy *pol = g->pol;
	struct srt__sb_buf *o = &g->out;
	size_t i;

	srt__sb_puts(o, "; Network: the proxy's loopback ports and the Unix socket settings only\n");
	if (pol->allow_local_binding)
		srt__sb_puts(o, "(allow network-bind (local ip \"*:*\"))\n"
				"(allow network-inbound (local ip \"*:*\"))\n"
				"(allow network-outbound (remote ip \"localhost:*\"))\n");
	if (pol->allow_all_unix_sockets) {
		srt__sb_puts(o, "(allow system-socket (socket-domain AF_UNIX))\n"
				"(allow network-bind (local unix-socket (path-regex #\"^/\")))\n"
				"(allow network-outbound (remote unix-socket (path-regex #\"^/\")))\n");
	} else if (pol->allow_unix_sockets.n) {
		srt__sb_puts(o, "(allow system-socket (socket-domain AF_UNIX))\n");
		for (i = 0; i < pol->allow_unix_sockets.n; i++) {
			srt__sb_puts(o, "(allow network-bind (local unix-socket (subpath ");
			srt__sb_quote(o, pol->allow_unix_sockets.v[i].path);
			srt__sb_puts(o, ")))\n(allow network-outbound (remote unix-socket (subpath ");
			srt__sb_quote(o, pol->allow_unix_sockets.v[i].path);
			srt__sb_puts(o, ")))\n");
		}
	}
	if (pol->proxy_dir) {
		port_rules(o, pol->http_port);
		if (pol->socks_port != pol->http_port)
			port_rules(o, pol->socks_port);
	}
	srt__sb_puts(o, "\n");
}

static void pty(struct gen *g)
{
	if (!g->pol->allow_pty)
		return;
	srt__sb_puts(&g->out, "\n; allowPty: pseudo-terminals\n(allow pseudo-tty)\n"
			      "(allow file-ioctl\n  (literal \"/dev/ptmx\")\n  (regex #\"^/dev/ttys\")\n)\n"
			      "(allow file-read* file-write*\n  (literal \"/dev/ptmx\")\n  (regex #\"^/dev/ttys\")\n)\n");
}

int srt__sb_profile(const struct srt_policy *pol, const char *tag, char **out,
		    struct srt_diag *diag)
{
	struct gen g;
	int failed = 0;

	memset(&g, 0, sizeof(g));
	g.pol = pol;
	g.tag = tag;
	head(&g);
	network(&g);
	if (pol->fs_disabled) {
		srt__sb_puts(&g.out, "; filesystem.disabled: no filesystem rules\n"
				     "(allow file-read*)\n(allow file-write*)\n");
	} else {
		ents_from_rules(&g.deny_read, &pol->deny_read);
		ents_from_rules(&g.allow_read, &pol->allow_read);
		ents_from_rules(&g.write_roots, &pol->allow_write);
		ents_from_rules(&g.deny_write, &pol->deny_write);
		protected_names(&g);
		failed = g.deny_read.failed || g.allow_read.failed || g.write_roots.failed ||
			 g.deny_write.failed;
		srt__sb_puts(&g.out, "; File read\n");
		read_rules(&g, &failed);
		srt__sb_puts(&g.out, "\n; File write\n");
		write_rules(&g, &failed);
		read_deny_unlink_rules(&g, &failed);
	}
	pty(&g);
	ents_release(&g.deny_read);
	ents_release(&g.allow_read);
	ents_release(&g.write_roots);
	ents_release(&g.deny_write);
	*out = failed ? NULL : srt__sb_take(&g.out);
	srt__sb_release(&g.out);
	if (!*out)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "macos-seatbelt: out of memory writing the profile");
	return SRT_OK;
}
