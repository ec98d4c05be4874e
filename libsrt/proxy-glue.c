/* Proxy glue: start the filtering proxy (proxies/) for a sandbox in a
 * private directory, record its denials in the violation store under a
 * rate limit, sweep the directories a killed srt left, and hand live
 * settings and per-command domain lists to the running proxy. */
#include "config.h"

#include <stdint.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/domain.h"
#include "common/platform.h"
#include "common/rmtree.h"
#include "proxies/proxy.h"
#include "backend-choice.h"
#include "filters.h"
#include "platform.h"
#include "proxy-config.h"
#include "proxy-glue.h"
#include "violations.h"

#define SRT_HTTP_PORT 3128
#define SRT_SOCKS_PORT 1080

/* Proxy denials are recorded at most PROXY_EVENT_BURST at once, then
 * PROXY_EVENT_RATE a second (a token bucket, as the violation monitor's): a
 * command that floods the proxy with denied requests must not fill the
 * caller's disk through --violations-log. One note a minute says some were
 * dropped. */
#define PROXY_EVENT_BURST 1000
#define PROXY_EVENT_RATE 20
#define PROXY_NOTE_EVERY_NS (60ull * 1000000000ull)

static int make_token(char out[33], struct srt_diag *diag)
{
	unsigned char raw[16];
	int i, e = srt__os_random(raw, sizeof(raw));

	if (e)
		return srt_diag_set(diag, SRT_E_IO, "", "cannot draw the proxy's token from the system's random generator: %s",
				    strerror(e));
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return SRT_OK;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_proxy_violation(void *ctx, const char *command_key, const char *line)
{
	struct srt_sandbox *sb = ctx;
	const uint64_t cap = (uint64_t)PROXY_EVENT_BURST * 1000;
	uint64_t now = mono_ns();

	if (sb->px_last_ns == 0) {
		sb->px_tokens_milli = cap;
	} else if (now > sb->px_last_ns) {
		uint64_t add = (now - sb->px_last_ns) / 1000000 * PROXY_EVENT_RATE; /* per ms */
		sb->px_tokens_milli = sb->px_tokens_milli + add > cap ? cap : sb->px_tokens_milli + add;
	}
	sb->px_last_ns = now;
	if (sb->px_tokens_milli < 1000) {
		sb->px_dropped++;
		if (sb->px_note_ns == 0 || now - sb->px_note_ns >= PROXY_NOTE_EVERY_NS) {
			char note[160];

			snprintf(note, sizeof(note),
				 "proxy: more denied network requests were not reported (rate limit; %lu so far)",
				 sb->px_dropped);
			sb->px_note_ns = now;
			srt__vstore_add(sb->violations, command_key, note);
		}
		return;
	}
	sb->px_tokens_milli -= 1000;
	srt__vstore_add(sb->violations, command_key, line);
}

/* The proxy socket lives in a fresh 0700 directory: other users cannot
 * reach it even before the token check. The start holds and marks it
 * (sb->proxy_dir_fd, mode 01700, common/rmtree.h) for the sandbox's life;
 * the directories a killed srt left ("srt-<pid>-XXXXXX", this user's,
 * marked, held by no process) are emptied of what srt puts there
 * (proxy.sock, the masked credential copies) and removed, when that is all
 * they hold, by the next start. It reads the whole of TMPDIR, so it runs
 * once the sandbox is being built (srt_sandbox_run, right after the spawn),
 * on the CPU that would otherwise wait for bwrap, not before the command
 * can start. */
static int proxy_dir_name(const char *name)
{
	const char *p = name + 4;

	if (strncmp(name, "srt-", 4) != 0)
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return p > name + 4 && *p == '-' && strlen(p) == 7;
}

/* The masked credential copies a killed srt left ("masked/masked-<n>",
 * sentinels only): removed with their directory, each paid from the
 * sweep's budget. 1 when done, 0 when the budget ran out first, -1 when
 * something srt never puts there is there. */
static int sweep_masked(int proxy_dfd, struct srt__rm_budget *b)
{
	int dfd = openat(proxy_dfd, "masked", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	int rc = 1;
	DIR *d;

	if (dfd < 0)
		return 1;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return 1;
	}
	while (rc == 1 && !srt__rm_budget_spent(b) && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		b->entries--;
		if (strncmp(e->d_name, "masked-", 7) != 0)
			rc = -1;
		else
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
	if (rc == 1 && srt__rm_budget_spent(b))
		rc = 0;
	if (rc == 1)
		unlinkat(proxy_dfd, "masked", AT_REMOVEDIR);
	return rc;
}

static int remove_proxy_dir(int basefd, const char *name, int dfd, struct srt__rm_budget *b)
{
	int rc;

	unlinkat(dfd, "proxy.sock", 0);
	rc = sweep_masked(dfd, b);
	if (rc <= 0)
		return rc; /* 0: a later sweep goes on */
	/* fails, and the directory is left unmarked, when anything else is
	 * there: nothing srt made */
	return unlinkat(basefd, name, AT_REMOVEDIR) == 0 ? 1 : -1;
}

void srt__sandbox_sweep_proxy_dirs(const char *base)
{
	srt__rundir_sweep(base, proxy_dir_name, 07777, 01700, remove_proxy_dir);
}

/* network.intercept: unset means optional where the backend can
 * intercept and off where it cannot; "required" on a backend that cannot
 * is refused rather than run with fewer clients served than the settings
 * say. */
static int intercept_mode(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const char *m = sb->settings.intercept;
	bool can = (sb->be->caps & SRT_CAP_INTERCEPT) && sb->be->hdr.abi_minor >= 4;

	sb->policy.intercept = SRT_INTERCEPT_OFF;
	if (m && !strcmp(m, "off"))
		return SRT_OK;
	if (!can) {
		if (m && !strcmp(m, "required"))
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.intercept",
					    "backend \"%s\" cannot intercept DNS and TCP; set network.intercept to \"off\" or \"optional\", or use --backend=linux-bwrap",
					    sb->be->hdr.name);
		return SRT_OK;
	}
	/* unset: on, but a sandbox that cannot set it up (a helper without
	 * CAP_NET_ADMIN over the namespace, as under a setuid bwrap or the
	 * weaker nested sandbox) runs without it and says so: interception
	 * only adds clients that work, its absence opens nothing */
	sb->policy.intercept = m && !strcmp(m, "required") ? SRT_INTERCEPT_REQUIRED :
							     SRT_INTERCEPT_OPTIONAL;
	if (!sb->settings.http_proxy_port && !(sb->policy.proxy_token = strdup(sb->token)))
		return SRT_E_NOMEM;
	return SRT_OK;
}

void srt__sandbox_proxy_ports(struct srt_sandbox *sb)
{
	if (!srt__backend_loopback_proxy(sb->be))
		return;
	sb->policy.proxy_port_lo = sb->settings.win_proxy_port_lo ? sb->settings.win_proxy_port_lo : 60080;
	sb->policy.proxy_port_hi = sb->settings.win_proxy_port_hi ? sb->settings.win_proxy_port_hi : 60089;
}

/* Start the proxy's thread, which must never take the signals srt
 * forwards. */
static int start_thread(struct srt_sandbox *sb, struct srt_diag *diag)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = srt__proxy_start(sb->proxy, diag);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Make the sandbox's proxy from cfg (its listener already set) and, with
 * start, start its thread. */
static int run_proxy(struct srt_sandbox *sb, struct srt__proxy_config *cfg, int start,
		     struct srt_diag *diag)
{
	int rc;

	cfg->token = sb->token;
	cfg->debug = sb->debug;
	cfg->on_violation = on_proxy_violation;
	cfg->ctx = sb;
	cfg->ask = sb->ask;
	cfg->tls = sb->tls;
	cfg->tls_ctx = sb->tls_ctx;
	rc = srt__proxy_new_from_settings(&sb->proxy, cfg, &sb->settings, sb->filters, diag);
	if (rc)
		return rc;
	/* a plan only printed serves nobody: the proxy is made (its
	 * settings checked as for a run) but no thread waits on it; one
	 * whose socket is bound later starts with that */
	if (sb->plan_only || !start)
		return SRT_OK;
	return start_thread(sb, diag);
}

/* The proxy on a loopback TCP port the command connects to itself: any
 * program of the machine can reach that port too, where the Unix socket
 * sat in a 0700 directory, so the token is what keeps them out (the proxy
 * answers a client without it 407). */
static int start_loopback_proxy(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt__proxy_config cfg;
	int rc, port = 0, fd;

	rc = make_token(sb->token, diag);
	if (rc)
		return rc;
	fd = srt__proxy_listen_range(sb->policy.proxy_port_lo, sb->policy.proxy_port_hi,
				     "windows.proxyPortRange", &port, diag);
	if (fd < 0)
		return SRT_E_UNAVAILABLE; /* diag names the range */
	memset(&cfg, 0, sizeof(cfg));
	cfg.tcp_listener = fd; /* the proxy's from here, closed even on failure */
	rc = run_proxy(sb, &cfg, 1, diag);
	if (rc)
		return rc;
	sb->policy.proxy_port = port;
	sb->policy.http_port = port; /* one listener serves HTTP and SOCKS5 */
	sb->policy.socks_port = port;
	srt__sandbox_log(sb, 1, "proxy on 127.0.0.1:%d (windows.proxyPortRange %d-%d)", port,
			 sb->policy.proxy_port_lo, sb->policy.proxy_port_hi);
	return intercept_mode(sb, diag);
}

static int open_proxy(struct srt_sandbox *sb, struct srt_diag *diag);

int srt__sandbox_start_proxy(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt__proxy_config cfg;
	char tmpl[PATH_MAX];
	char *sock = NULL;
	const char *base = getenv("TMPDIR");
	/* A plan only printed names the directory and socket a run would
	 * make and makes neither (each is a file system operation in a
	 * shared, often crowded /tmp), unless credentials.files' masked
	 * copies, which live in that directory, are part of the plan. */
	int named_only = sb->plan_only && !sb->cred_mask_path.n;
	int rc;

	if (srt__backend_loopback_proxy(sb->be))
		return start_loopback_proxy(sb, diag);
	if (!base || base[0] != '/')
		base = "/tmp";
	if (!sb->sweep_base && !(sb->sweep_base = strdup(base)))
		return SRT_E_NOMEM;
	/* the template: what a plan only printed shows, and what open_proxy
	 * makes a directory of (srt__rundir_make) */
	if (snprintf(tmpl, sizeof(tmpl), "%s/srt-%ld-XXXXXX", base, (long)getpid()) >= (int)sizeof(tmpl))
		return srt_diag_set(diag, SRT_E_LIMIT, "TMPDIR", "TMPDIR \"%s\" is too long", base);
	if (asprintf(&sock, "%s/proxy.sock", tmpl) < 0)
		return SRT_E_NOMEM;
	rc = make_token(sb->token, diag);
	if (rc)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.socket_path = sock;
	cfg.plan_only = named_only;
	cfg.listen_later = !named_only; /* bound by open_proxy */
	rc = run_proxy(sb, &cfg, 0, diag);
	if (rc)
		goto out;
	sb->policy.proxy_dir = strdup(tmpl);
	sb->policy.proxy_socket = sock;
	sock = NULL;
	if (!sb->policy.proxy_dir) {
		rc = SRT_E_NOMEM;
		goto out;
	}
	sb->policy.http_port = SRT_HTTP_PORT;
	sb->policy.socks_port = SRT_SOCKS_PORT;
	rc = intercept_mode(sb, diag);
	if (!rc && !named_only)
		rc = open_proxy(sb, diag);
out:
	free(sock);
	return rc;
}

/* Make the private directory from the policy's template and replace the
 * template by its name. What is opened there without following links must
 * be the directory srt__rundir_make just made: srt's user's, empty, with
 * no bit for others (its mark, the sticky bit, aside). Another user who
 * can rename entries of TMPDIR, or show srt a mount of theirs there, could
 * put another in its place; that one is refused and left as it was. *dfd:
 * the directory. */
static int make_proxy_dir(struct srt_sandbox *sb, int *dfd, struct srt_diag *diag)
{
	char dir[PATH_MAX], *d = NULL, *sock = NULL, *slash;
	struct stat st;
	int fresh = 0;

	snprintf(dir, sizeof(dir), "%s", sb->policy.proxy_dir);
	if (!srt__rundir_make(dir)) {
		int e = errno;

		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		return srt_diag_set(diag, SRT_E_IO, "TMPDIR",
				    "proxy: cannot create a private directory in \"%s\": %s; set TMPDIR to a writable directory",
				    slash ? dir : "TMPDIR", strerror(e));
	}
	*dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dfd >= 0 && fstat(*dfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 06077) && (st.st_mode & 0700) == 0700 && st.st_nlink == 2) {
		int dup_fd = dup(*dfd);
		DIR *dh = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
		struct dirent *e;

		fresh = dh != NULL;
		while (dh && (e = readdir(dh)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				fresh = 0;
		if (dh)
			closedir(dh);
		else if (dup_fd >= 0)
			close(dup_fd);
	}
	if (!fresh) {
		if (*dfd >= 0)
			close(*dfd);
		*dfd = -1;
		return srt_diag_set(diag, SRT_E_IO, "TMPDIR",
				    "proxy: \"%s\" is not the private directory srt just made (replaced at once: another user can rename or mount what is in TMPDIR; or a umask that takes the owner's bits); set TMPDIR to a directory of your own",
				    dir);
	}
	(void)srt__rundir_hold(*dfd); /* held and marked: see the sweep above */
	d = strdup(dir);
	sock = malloc(strlen(dir) + sizeof("/proxy.sock"));
	if (sock)
		sprintf(sock, "%s/proxy.sock", dir);
	if (!d || !sock || !(sb->proxy_dir = strdup(dir))) {
		free(d);
		free(sock);
		close(*dfd);
		*dfd = -1;
		rmdir(dir);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	}
	free(sb->policy.proxy_dir);
	free(sb->policy.proxy_socket);
	sb->policy.proxy_dir = d;
	sb->policy.proxy_socket = sock;
	return SRT_OK;
}

/* The proxy's private directory, its socket and its thread. */
static int open_proxy(struct srt_sandbox *sb, struct srt_diag *diag)
{
	char bind_path[PATH_MAX];
	struct stat st;
	int rc, dfd = -1;

	rc = make_proxy_dir(sb, &dfd, diag);
	if (rc)
		return rc;
	/* bound and looked at through the directory srt made, whatever its
	 * name leads to by then (where the system can tell) */
	if (srt__plat_path_in_dir(bind_path, sizeof(bind_path), dfd, sb->proxy_dir, "proxy.sock") != 0)
		rc = srt_diag_set(diag, SRT_E_LIMIT, "TMPDIR", "proxy: the socket's path in \"%s\" is too long",
				  sb->proxy_dir);
	else
		rc = srt__proxy_listen(sb->proxy, sb->policy.proxy_socket, bind_path, diag);
	if (!rc && (fstatat(dfd, "proxy.sock", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode)))
		rc = srt_diag_set(diag, SRT_E_IO, "proxy",
				  "proxy: %s is not the socket srt bound (replaced during start-up?)",
				  sb->policy.proxy_socket);
	sb->proxy_dir_fd = dfd; /* held until the directory goes */
	if (rc)
		return rc; /* the directory, and maybe the socket, go with the sandbox */
	/* the inode the bridge will connect to, and to no other */
	sb->policy.proxy_socket_dev = (unsigned long long)st.st_dev;
	sb->policy.proxy_socket_ino = (unsigned long long)st.st_ino;
	return start_thread(sb, diag);
}

/* A copy made by fork has a copy of the proxy's rules, which no proxy
 * reads: the proxy runs in the process that started the sandbox, and a
 * change made here would be reported done and change nothing. */
static int copy_refused(const struct srt_sandbox *sb, struct srt_diag *diag)
{
	return srt_diag_set(diag, SRT_E_STATE, "network",
			    "this process was forked from the one that started the sandbox (pid %ld), whose "
			    "proxy serves its commands: change the network rules there",
			    (long)sb->owner);
}

int srt_sandbox_update_settings(struct srt_sandbox *sb, const char *json, size_t len,
				struct srt_diag *diag)
{
	struct srt__settings next;
	int rc;

	if (srt__sandbox_is_copy(sb))
		return copy_refused(sb, diag);
	srt__settings_init(&next);
	rc = srt__settings_parse_json(&next, json, len, "settings update", diag);
	if (rc)
		return rc;
	/* the plugins were created with the sandbox; their code and state
	 * cannot be swapped under the running proxy */
	if (!srt__filters_same(&sb->settings, &next)) {
		srt__settings_release(&next);
		return srt_diag_set(diag, SRT_E_STATE, "network.filters",
				    "network.filters cannot change while the sandbox runs; start a new sandbox");
	}
	pthread_mutex_lock(&sb->update_lock);
	if (sb->proxy)
		rc = srt__proxy_update_from_settings(sb->proxy, &next, sb->filters, diag);
	else if (next.allowed_domains.n)
		rc = srt_diag_set(diag, SRT_E_STATE, "network.allowedDomains",
				  "this sandbox runs no proxy (its backend cannot bridge one), so network access cannot be opened live; start it with live updates on linux-bwrap");
	if (!rc)
		rc = srt__vstore_set_ignore(sb->violations, &next);
	pthread_mutex_unlock(&sb->update_lock);
	srt__settings_release(&next);
	return rc;
}

int srt_sandbox_set_command_domains(struct srt_sandbox *sb, const char *command_id,
				    const char *const *allowed, struct srt_diag *diag)
{
	struct srt__strv list = { 0 };
	size_t i;
	int rc;

	if (srt__sandbox_is_copy(sb))
		return copy_refused(sb, diag);
	if (!command_id || strlen(command_id) < 22)
		return srt_diag_set(diag, SRT_E_INVAL, "commandId",
				    "a per-command list needs a command id of at least 22 characters (it is carried in the proxy username)");
	if (!sb->proxy)
		return srt_diag_set(diag, SRT_E_STATE, "network.allowedDomains",
				    "this sandbox runs no proxy (its backend cannot bridge one); start it with live updates or a non-empty allowedDomains on linux-bwrap");
	for (i = 0; allowed && allowed[i]; i++) {
		if (srt__domain_pattern_check(allowed[i], SRT_LIST_ALLOWED, diag) != SRT_OK) {
			char msg[sizeof(diag->message)];
			snprintf(msg, sizeof(msg), "%s", diag ? diag->message : "");
			srt__strv_release(&list);
			return srt_diag_set(diag, SRT_E_INVAL, "allowedDomains",
					    "invalid allowedDomains entry \"%s\": %s", allowed[i], msg);
		}
		if (srt__strv_push(&list, allowed[i])) {
			srt__strv_release(&list);
			return SRT_E_NOMEM;
		}
	}
	rc = srt__proxy_command_domains(sb->proxy, command_id, list.n ? &list : NULL, diag);
	srt__strv_release(&list);
	return rc;
}
