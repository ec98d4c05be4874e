/* The sandbox object: settings -> policy -> backend plan -> proxy -> run.
 *
 * Everything here is OS-neutral; the backend module does the OS work and the
 * proxy (proxies/) owns the sockets. Every setup failure is returned before
 * any command runs. */
#include "config.h"

#include <stdint.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <srt/srt.h>
#include <srt/backend.h>

#include "common/domain.h"
#include "loader.h"
#include "policy.h"
#include "proxy-config.h"
#include "run.h"
#include "settings.h"
#include "violations.h"
#include "gitguard.h"

#define SRT_HTTP_PORT 3128
#define SRT_SOCKS_PORT 1080
/* The automatic choice, best first. */
static const char *const auto_backends[] = { "linux-bwrap", "linux-landlock" };
#define N_AUTO_BACKENDS (sizeof(auto_backends) / sizeof(auto_backends[0]))

extern char **environ;

/* Proxy denials are recorded at most PROXY_EVENT_BURST at once, then
 * PROXY_EVENT_RATE a second (a token bucket, as the violation monitor's): a
 * command that floods the proxy with denied requests must not fill the
 * caller's disk through --violations-log. One note a minute says some were
 * dropped. */
#define PROXY_EVENT_BURST 1000
#define PROXY_EVENT_RATE 20
#define PROXY_NOTE_EVERY_NS (60ull * 1000000000ull)

struct srt_sandbox {
	char *backend_spec;
	char *cwd;
	int debug;
	int live_updates;
	srt_log_fn log;
	void *log_ctx;

	/* proxy thread only: the denial rate limit */
	uint64_t px_tokens_milli, px_last_ns, px_note_ns;
	unsigned long px_dropped;

	struct srt__settings settings;
	char *settings_path; /* the file loaded, or NULL */
	char *settings_named; /* the same as it was named, made absolute */
	char *protect_file;   /* srt_options.protect_file */
	int have_policy;
	struct srt_policy policy;

	struct srt__module *module;
	const struct srt_backend *be;
	void *bstate;

	struct srt__proxy *proxy;
	char *proxy_dir;
	char *sweep_base; /* where stale proxy directories are swept, once, or NULL */
	char token[33];
	int started;

	struct srt__vstore *violations;
	struct rlimit nofile; /* the caller's open-files limit, restored for commands */
	pthread_mutex_t update_lock; /* serialises srt_sandbox_update_settings */
};

const char *srt_version(void)
{
	return PACKAGE_VERSION;
}

static void sb_log(struct srt_sandbox *sb, int is_debug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void sb_log(struct srt_sandbox *sb, int is_debug, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (is_debug && !sb->debug)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (sb->log)
		sb->log(sb->log_ctx, is_debug, line);
	else
		fprintf(stderr, "%s%s\n", is_debug ? "[srt debug] " : "srt: warning: ", line);
}

static int sb_alloc(struct srt_sandbox **out, const struct srt_options *opt)
{
	struct srt_sandbox *sb = calloc(1, sizeof(*sb));
	char buf[PATH_MAX];

	if (!sb)
		return SRT_E_NOMEM;
	srt__settings_init(&sb->settings);
	pthread_mutex_init(&sb->update_lock, NULL);
	if (getrlimit(RLIMIT_NOFILE, &sb->nofile) != 0)
		sb->nofile.rlim_cur = sb->nofile.rlim_max = RLIM_INFINITY;
	if (srt__vstore_new(&sb->violations)) {
		free(sb);
		return SRT_E_NOMEM;
	}
	if (opt) {
		sb->debug = opt->debug;
		sb->live_updates = opt->live_updates;
		sb->log = opt->log;
		sb->log_ctx = opt->log_ctx;
		if (opt->backend && !(sb->backend_spec = strdup(opt->backend)))
			goto nomem;
		if (opt->protect_file && !(sb->protect_file = strdup(opt->protect_file)))
			goto nomem;
		if (opt->cwd && !(sb->cwd = strdup(opt->cwd)))
			goto nomem;
	}
	if (!sb->cwd) {
		if (!getcwd(buf, sizeof(buf))) {
			srt_sandbox_free(sb);
			return SRT_E_IO;
		}
		if (!(sb->cwd = strdup(buf)))
			goto nomem;
	}
	*out = sb;
	return SRT_OK;
nomem:
	srt_sandbox_free(sb);
	return SRT_E_NOMEM;
}

static void flush_warnings(struct srt_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->settings.warnings.n; i++)
		sb_log(sb, 0, "%s", sb->settings.warnings.v[i]);
	for (i = 0; i < sb->settings.ignored_keys.n; i++)
		sb_log(sb, 1, "settings key \"%s\" is accepted for compatibility and ignored",
		       sb->settings.ignored_keys.v[i]);
}

static char *default_settings_path(void)
{
	const char *home = getenv("HOME");
	char *p;

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home)
		return NULL;
	if (asprintf(&p, "%s/.srt-settings.json", home) < 0)
		return NULL;
	return p;
}

int srt_sandbox_new_from_file(struct srt_sandbox **out, const char *path,
			      int explicit_path, const struct srt_options *opt,
			      struct srt_diag *diag)
{
	struct srt_sandbox *sb = NULL;
	char *def = NULL;
	bool loaded = false;
	int rc;

	rc = sb_alloc(&sb, opt);
	if (rc)
		return srt_diag_set(diag, rc, "", "cannot create sandbox: %s", srt_strerror(rc));
	if (!path) {
		def = default_settings_path();
		explicit_path = 0;
		path = def;
	}
	if (path) {
		rc = srt__settings_load_file(&sb->settings, path, explicit_path, &loaded, diag);
		if (rc)
			goto out;
		if (loaded && !(sb->settings_path = realpath(path, NULL)))
			sb->settings_path = strdup(path);
		if (loaded) {
			char cwd[PATH_MAX];

			if (path[0] == '/')
				sb->settings_named = strdup(path);
			else if (getcwd(cwd, sizeof(cwd)) &&
				 asprintf(&sb->settings_named, "%s/%s", cwd, path) < 0)
				sb->settings_named = NULL;
			/* without it the links naming the file would go unprotected */
			if (!sb->settings_named) {
				rc = srt_diag_set(diag, SRT_E_IO, path,
						  "settings file \"%s\": cannot tell its full path: %s", path, strerror(errno));
				goto out;
			}
		}
		if (!loaded)
			sb_log(sb, 1, "no settings at %s, using the built-in defaults", path);
	}
	flush_warnings(sb);
	*out = sb;
	sb = NULL;
	rc = SRT_OK;
out:
	free(def);
	srt_sandbox_free(sb);
	return rc;
}

int srt_sandbox_new_from_text(struct srt_sandbox **out, const char *text,
			      size_t len, enum srt_settings_format fmt,
			      const struct srt_options *opt, struct srt_diag *diag)
{
	struct srt_sandbox *sb = NULL;
	int rc;

	rc = sb_alloc(&sb, opt);
	if (rc)
		return srt_diag_set(diag, rc, "", "cannot create sandbox: %s", srt_strerror(rc));
	if (fmt == SRT_SETTINGS_YAML)
		rc = srt__settings_parse_yaml(&sb->settings, text, len, "settings", diag);
	else
		rc = srt__settings_parse_json(&sb->settings, text, len, "settings", diag);
	if (rc) {
		srt_sandbox_free(sb);
		return rc;
	}
	flush_warnings(sb);
	*out = sb;
	return SRT_OK;
}

/* A setting that would change enforcement but that this build does not
 * enforce yet is refused by name: running without it would silently give
 * the command more (or different) access than the file asks for. */
static int check_supported(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const struct srt__settings *s = &sb->settings;
	static const char fmt[] =
		"\"%s\" is not supported yet by this srt; remove it from the settings (srt will not run with a rule it cannot enforce)";
	const char *key = NULL;

	if (s->has_tls_terminate)
		key = "network.tlsTerminate";
	else if (s->has_credentials)
		key = "credentials";
	else if (s->has_filters)
		key = "network.filters";
	else if (s->allow_unix_sockets.n)
		key = "network.allowUnixSockets";
	if (key)
		return srt_diag_set(diag, SRT_E_UNSUPPORTED, key, fmt, key);

	/* macOS/Windows-only keys change nothing on this platform. */
	if (s->allow_mach_lookup.n)
		sb_log(sb, 1, "network.allowMachLookup applies to macOS only; ignored");
	if (s->enable_weaker_network_isolation)
		sb_log(sb, 1, "enableWeakerNetworkIsolation applies to macOS only; ignored");
	if (s->allow_apple_events)
		sb_log(sb, 1, "allowAppleEvents applies to macOS only; ignored");
	if (s->allow_pty)
		sb_log(sb, 1, "allowPty applies to macOS only; ignored");
	if (s->has_windows)
		sb_log(sb, 1, "windows settings apply to Windows only; ignored");
	return SRT_OK;
}

/* Without --backend: the first backend that can run here and enforce the
 * whole policy. When none can, say why for each. */
static int choose_backend(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag)
{
	char why[N_AUTO_BACKENDS][sizeof(((struct srt_diag *)0)->message)];
	size_t i;

	for (i = 0; i < N_AUTO_BACKENDS; i++) {
		struct srt_diag d;
		struct srt__module *m = NULL;
		const struct srt_backend *be = NULL;
		int rc;

		memset(&d, 0, sizeof(d));
		rc = srt__module_load_backend(auto_backends[i], &m, &be, &d);
		if (!rc && need_proxy && !(be->caps & SRT_CAP_PROXY)) {
			snprintf(d.message, sizeof(d.message),
				 "cannot bridge the proxy that network.allowedDomains needs");
			rc = SRT_E_UNSUPPORTED;
		}
		if (!rc)
			rc = be->probe(&sb->policy, &d);
		if (!rc) {
			sb->module = m;
			sb->be = be;
			/* a weaker backend than the first is said every time, not
			 * only under --debug (README: what differs) */
			if (i > 0)
				sb_log(sb, 0, "backend %s chosen: %s could not run (%s); %s is weaker: "
				       "no private process tree, /proc or /dev/pts, and the command's "
				       "processes outlive a srt killed with SIGKILL; pass --backend=%s "
				       "to refuse instead",
				       auto_backends[i], auto_backends[0], why[0], auto_backends[i],
				       auto_backends[0]);
			return SRT_OK;
		}
		snprintf(why[i], sizeof(why[i]), "%s", d.message);
		sb_log(sb, 1, "backend %s cannot run here: %s", auto_backends[i], d.message);
		srt__module_free(m);
	}
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "backend",
			    "no sandbox backend can run here, so nothing was run. linux-bwrap: %s. linux-landlock: %s. Run `srt doctor` for every layer and its fix",
			    why[0], why[1]);
}

static int make_token(char out[33], struct srt_diag *diag)
{
	unsigned char raw[16];
	size_t got = 0;
	int i;

	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return srt_diag_set(diag, SRT_E_IO, "", "getrandom: %s", strerror(errno));
		}
		got += (size_t)r;
	}
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
 * reach it even before the token check. */
/* A srt killed with SIGKILL cannot remove its proxy directory. The next
 * start removes those of ours whose srt is gone: "srt-<pid>-XXXXXX", owned
 * by us, mode 0700, pid no longer alive, holding at most proxy.sock. It
 * reads the whole of TMPDIR, so it runs once the sandbox is being built
 * (srt_sandbox_run, right after the spawn), on the CPU that would
 * otherwise wait for bwrap, not before the command can start. */
static void sweep_stale_proxy_dirs(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int dfd;

	if (!d)
		return;
	dfd = dirfd(d);
	while ((e = readdir(d))) {
		struct stat st;
		char *end;
		long pid;
		int sub;

		if (strncmp(e->d_name, "srt-", 4) != 0)
			continue;
		pid = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end != '-' || strlen(end) != 7 || pid <= 0 ||
		    pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
			continue;
		sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		unlinkat(sub, "proxy.sock", 0);
		close(sub);
		unlinkat(dfd, e->d_name, AT_REMOVEDIR); /* fails, harmlessly, if not empty */
	}
	closedir(d);
}

static int start_proxy(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt__proxy_config cfg;
	char tmpl[PATH_MAX];
	char *sock = NULL;
	const char *base = getenv("TMPDIR");
	sigset_t all, old;
	struct stat st;
	int rc;

	if (!base || base[0] != '/')
		base = "/tmp";
	if (!sb->sweep_base && !(sb->sweep_base = strdup(base)))
		return SRT_E_NOMEM;
	if (snprintf(tmpl, sizeof(tmpl), "%s/srt-%ld-XXXXXX", base, (long)getpid()) >= (int)sizeof(tmpl))
		return srt_diag_set(diag, SRT_E_LIMIT, "TMPDIR", "TMPDIR \"%s\" is too long", base);
	if (!mkdtemp(tmpl))
		return srt_diag_set(diag, SRT_E_IO, "TMPDIR",
				    "proxy: cannot create a private directory in \"%s\": %s; set TMPDIR to a writable directory",
				    base, strerror(errno));
	if (!(sb->proxy_dir = strdup(tmpl)))
		return SRT_E_NOMEM;
	if (asprintf(&sock, "%s/proxy.sock", tmpl) < 0)
		return SRT_E_NOMEM;
	rc = make_token(sb->token, diag);
	if (rc)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.socket_path = sock;
	cfg.token = sb->token;
	cfg.debug = sb->debug;
	cfg.on_violation = on_proxy_violation;
	cfg.ctx = sb;
	rc = srt__proxy_new_from_settings(&sb->proxy, &cfg, &sb->settings, diag);
	if (rc)
		goto out;
	/* The proxy thread must never take the signals srt forwards. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = srt__proxy_start(sb->proxy, diag);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto out;
	/* the inode the proxy bound (not a link or another socket put in
	 * its place since): the bridge will connect to it alone */
	if (lstat(sock, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		rc = srt_diag_set(diag, SRT_E_IO, "proxy",
				  "proxy: %s is not the socket srt bound (replaced during start-up?)", sock);
		goto out;
	}
	sb->policy.proxy_socket_dev = (unsigned long long)st.st_dev;
	sb->policy.proxy_socket_ino = (unsigned long long)st.st_ino;
	sb->policy.proxy_dir = strdup(sb->proxy_dir);
	sb->policy.proxy_socket = sock;
	sock = NULL;
	if (!sb->policy.proxy_dir)
		rc = SRT_E_NOMEM;
	sb->policy.http_port = SRT_HTTP_PORT;
	sb->policy.socks_port = SRT_SOCKS_PORT;
out:
	free(sock);
	return rc;
}

int srt_sandbox_start(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt__policy_env env;
	const char *files[2] = { NULL, NULL };
	int need_proxy, probed = 0;
	int rc;

	if (sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox already started");
	rc = check_supported(sb, diag);
	if (rc)
		return rc;

	memset(&env, 0, sizeof(env));
	env.cwd = sb->cwd;
	files[0] = sb->settings_path;
	env.settings_files = files;
	env.settings_named = sb->settings_named;
	env.protect_file = sb->protect_file;
	env.debug = sb->debug;
	rc = srt__policy_build(&sb->policy, &sb->settings, &env, diag);
	if (rc)
		return rc;
	sb->have_policy = 1;
	sb->policy.debug = sb->debug;

	need_proxy = sb->settings.allowed_domains.n > 0 || sb->live_updates;
	if (sb->backend_spec) {
		rc = srt__module_load_backend(sb->backend_spec, &sb->module, &sb->be, diag);
		if (rc)
			return rc;
	} else {
		/* probes each candidate, so the chosen one is not probed again */
		rc = choose_backend(sb, need_proxy, diag);
		if (rc)
			return rc;
		probed = 1;
	}
	sb_log(sb, 1, "backend %s from %s (%s%s%s)", sb->be->hdr.name, srt__module_path(sb->module),
	       (sb->be->caps & SRT_CAP_NETNS) ? "empty network namespace" : "no network namespace",
	       (sb->be->caps & SRT_CAP_PIDNS) ? ", private pid namespace" : ", no pid namespace",
	       (sb->be->caps & SRT_CAP_PROXY) ? ", proxy" : "");

	rc = srt__vstore_set_ignore(sb->violations, &sb->settings);
	if (rc)
		return rc;
	/* With no allowed domain (and no live updates) nothing could ever be
	 * reached, so no proxy is started: an empty network namespace only. */
	if (need_proxy) {
		if (!(sb->be->caps & SRT_CAP_PROXY))
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.allowedDomains",
					    "backend \"%s\" cannot bridge the proxy into the sandbox; use --backend=linux-bwrap",
					    sb->be->hdr.name);
		rc = start_proxy(sb, diag);
		if (rc)
			return rc;
	}

	rc = probed ? SRT_OK : sb->be->probe(&sb->policy, diag);
	if (rc)
		return rc;
	rc = sb->be->prepare(&sb->policy, &sb->bstate, diag);
	if (rc)
		return rc;
	sb->started = 1;
	return SRT_OK;
}

/* A helper program installed beside the backend module (or, in the build
 * tree, up to two levels above its .libs directory). Derived only from the
 * module's own absolute path, never from the environment. */
static char *sibling_program(const char *module_path, const char *name)
{
	static const char *const up[] = { "", "/..", "/../.." };
	char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
	char *slash;
	size_t i;

	snprintf(dir, sizeof(dir), "%s", module_path);
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		if (snprintf(cand, sizeof(cand), "%s%s/%s", dir, up[i], name) >= (int)sizeof(cand))
			continue;
		if (access(cand, X_OK) == 0 && realpath(cand, real))
			return strdup(real);
	}
	return NULL;
}

static int push_kv(struct srt__strv *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push_kv(struct srt__strv *set, const char *fmt, ...)
{
	va_list ap;
	char *kv = NULL;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&kv, fmt, ap);
	va_end(ap);
	if (n < 0)
		return SRT_E_NOMEM;
	rc = srt__strv_push(set, kv);
	free(kv);
	return rc;
}

/* git.safeDirectories (§4.3 row 4): GIT_CONFIG_COUNT/KEY/VALUE entries for
 * safe.directory, each directory and its children; more than 8 collapse to
 * "*". An inherited GIT_CONFIG_COUNT is continued; an inherited 0 is the
 * user's opt-out and is respected. */
static int git_safe_env(struct srt_sandbox *sb, struct srt__strv *set)
{
	const struct srt__strv *dirs = &sb->settings.git_safe_directories;
	const char *inherited = getenv("GIT_CONFIG_COUNT");
	long base = 0;
	size_t i;
	int rc;

	if (!dirs->n)
		return SRT_OK;
	if (inherited) {
		char *end;
		base = strtol(inherited, &end, 10);
		if (*end || base < 0 || base > 1000)
			base = 0;
		else if (base == 0 && *inherited)
			return SRT_OK;
	}
	if (dirs->n > 8) {
		if ((rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base)) ||
		    (rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=*", base)))
			return rc;
		return push_kv(set, "GIT_CONFIG_COUNT=%ld", base + 1);
	}
	for (i = 0; i < dirs->n; i++) {
		char *norm = NULL;
		const char *d = dirs->v[i];
		if (srt__path_normalize(d, sb->policy.cwd, sb->policy.home, &norm, NULL) == SRT_OK && norm)
			d = norm;
		rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=%s", base, d);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base + 1);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=%s/*", base + 1, d);
		free(norm);
		if (rc)
			return rc;
		base += 2;
	}
	return push_kv(set, "GIT_CONFIG_COUNT=%ld", base);
}

static int child_env(struct srt_sandbox *sb, const char *command_key, char ***out)
{
	struct srt__strv set = { 0 };
	char *kv = NULL;
	int rc = SRT_E_NOMEM;

	if (srt__strv_push(&set, "SANDBOX_RUNTIME=1"))
		goto out;
	if (sb->policy.tmpdir && !sb->policy.fs_disabled) {
		if (asprintf(&kv, "TMPDIR=%s", sb->policy.tmpdir) < 0 || srt__strv_push(&set, kv))
			goto out;
	}
	if (sb->proxy) {
		char user[300];
		char *connect = sibling_program(srt__module_path(sb->module), "srt-connect");
		srt__proxy_user(command_key, user, sizeof(user));
		/* With an external HTTP proxy (httpProxyPort) HTTP traffic goes
		 * to it unparsed, as in the reference: our token means nothing
		 * there, so it is not handed out. */
		if (sb->settings.http_proxy_port)
			user[0] = '\0';
		if (!connect)
			sb_log(sb, 0, "srt-connect is missing beside the backend module: GIT_SSH_COMMAND is not set, so ssh will not go through the proxy");
		rc = srt__proxy_env(&set, user[0] ? user : NULL,
				    sb->settings.http_proxy_port ? NULL : sb->token,
				    sb->policy.http_port, sb->policy.socks_port, connect);
		free(connect);
		if (rc)
			goto out;
	}
	rc = git_safe_env(sb, &set);
	if (rc)
		goto out;
	rc = srt__env_build(environ, &set, out);
out:
	free(kv);
	srt__strv_release(&set);
	return rc;
}

int srt_sandbox_explain(struct srt_sandbox *sb, const char *const *argv,
			FILE *out, struct srt_diag *diag)
{
	struct srt_command cmd;
	const struct srt_rules *lists[4];
	static const char *names[4] = { "deny read", "allow read", "allow write", "deny write" };
	size_t i, j;
	int rc;

	if (!sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox not started");
	lists[0] = &sb->policy.deny_read;
	lists[1] = &sb->policy.allow_read;
	lists[2] = &sb->policy.allow_write;
	lists[3] = &sb->policy.deny_write;
	fprintf(out, "srt %s: effective policy\n", PACKAGE_VERSION);
	fprintf(out, "settings: %s\n", sb->settings_path ? sb->settings_path : "(built-in defaults)");
	fprintf(out, "backend: %s (%s)\n", sb->be->hdr.name, srt__module_path(sb->module));
	fprintf(out, "cwd: %s\n", sb->policy.cwd);
	fprintf(out, "TMPDIR: %s\n", sb->policy.tmpdir ? sb->policy.tmpdir : "(inherited)");
	if (sb->policy.fs_disabled)
		fprintf(out, "filesystem: disabled (filesystem.disabled): no filesystem rules\n");
	else
		for (i = 0; i < 4; i++)
			for (j = 0; j < lists[i]->n; j++)
				fprintf(out, "%-11s %s%s   <- %s\n", names[i], lists[i]->v[j].path,
					(lists[i]->v[j].flags & SRT_RULE_GLOB) ? " (glob)" : "",
					lists[i]->v[j].origin ? lists[i]->v[j].origin : "");
	fprintf(out, "guarantees: filesystem rules%s%s%s%s\n",
		(sb->be->caps & SRT_CAP_NETNS) ? ", empty network namespace" : ", no network namespace (sockets refused by seccomp/Landlock instead)",
		(sb->be->caps & SRT_CAP_PIDNS) ? ", private pid namespace and /proc" : ", no pid namespace (the host's /proc is visible)",
		(sb->be->caps & SRT_CAP_SECCOMP) ? ", seccomp syscall filters" : "",
		(sb->be->caps & SRT_CAP_PROXY) ? ", filtering proxy" : "");
	fprintf(out, "network: %s", (sb->be->caps & SRT_CAP_NETNS) ? "empty network namespace" :
		"no network namespace (the backend refuses sockets instead)");
	if (sb->proxy) {
		fprintf(out, "; proxy at %s (in sandbox: localhost:%d http, :%d socks5)\n",
			sb->policy.proxy_socket, sb->policy.http_port, sb->policy.socks_port);
		for (i = 0; i < sb->settings.allowed_domains.n; i++)
			fprintf(out, "allow host  %s   <- network.allowedDomains[%zu]\n",
				sb->settings.allowed_domains.v[i], i);
	} else {
		fprintf(out, "; no proxy (network.allowedDomains is empty)\n");
	}
	for (i = 0; i < sb->settings.denied_domains.n; i++)
		fprintf(out, "deny host   %s   <- network.deniedDomains[%zu]\n",
			sb->settings.denied_domains.v[i], i);

	memset(&cmd, 0, sizeof(cmd));
	rc = sb->be->wrap(sb->bstate, argv, &cmd, diag);
	if (rc) {
		/* a failed wrap may have set up part of the command */
		sb->be->release(sb->bstate, &cmd);
		return rc;
	}
	if (sb->be->explain)
		rc = sb->be->explain(sb->bstate, &cmd, out);
	else
		rc = srt_diag_set(diag, SRT_E_UNSUPPORTED, "", "backend \"%s\" cannot explain its plan",
				  sb->be->hdr.name);
	sb->be->release(sb->bstate, &cmd);
	return rc;
}

/* Violation lines from the backend's monitor, read until EOF (the monitor
 * closes its end when the sandbox ends) or a line holding a single NUL, the
 * monitor's mark that nothing follows. */
struct events_reader {
	struct srt_sandbox *sb;
	const char *key;
	int fd;
};

#define EVENT_LINE_MAX 4096

static void *events_main(void *arg)
{
	struct events_reader *er = arg;
	char buf[EVENT_LINE_MAX + 1];
	size_t have = 0;
	int skipping = 0;

	for (;;) {
		ssize_t n = read(er->fd, buf + have, EVENT_LINE_MAX - have);
		char *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t l = (size_t)(nl - buf);
			*nl = '\0';
			if (!skipping && l == 1 && buf[0] == '\0')
				return NULL;
			if (!skipping && l > 0)
				srt__vstore_add(er->sb->violations, er->key, buf);
			skipping = 0;
			memmove(buf, nl + 1, have - l - 1);
			have -= l + 1;
		}
		if (have == EVENT_LINE_MAX) { /* an over-long line is dropped whole */
			have = 0;
			skipping = 1;
		}
	}
	return NULL;
}

struct gitguard_ctx {
	struct srt_sandbox *sb;
	const char *key;
};

static void on_gitguard(void *vctx, int is_violation, const char *line)
{
	struct gitguard_ctx *gc = vctx;

	/* a rename is reported like every denial: in the summary, the log
	 * and the library's callback */
	if (is_violation) {
		srt__vstore_add(gc->sb->violations, gc->key, line);
	} else {
		sb_log(gc->sb, 1, "%s", line);
	}
}

/* The git guard's sweep in a guard process that outlived srt: nobody to
 * report to (srt is gone), the quarantine itself is what counts. */
static void gitguard_orphan(void *ctx)
{
	srt__gitguard_sweep(ctx, NULL, NULL);
}

int srt_sandbox_run(struct srt_sandbox *sb, const char *const *argv,
		    const struct srt_run_options *ro, int *status,
		    struct srt_diag *diag)
{
	struct srt_command cmd;
	struct srt__spawn_args sp;
	char **envp = NULL;
	char *key = NULL;
	volatile pid_t target = 0;
	struct events_reader er;
	struct srt__gitguard *gg = NULL;
	struct gitguard_ctx ggc;
	pthread_t reader;
	int have_reader = 0;
	pid_t pid;
	int rc;

	if (!sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox not started");
	if (!argv || !argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to run");
	memset(&cmd, 0, sizeof(cmd));
	if (ro && ro->command_id && *ro->command_id)
		key = strdup(ro->command_id);
	else
		rc = srt_quote_argv(argv, &key);
	if (!key)
		return SRT_E_NOMEM;

	rc = srt__vstore_register(sb->violations, key,
				  ro && ro->command_text ? ro->command_text : key);
	if (rc)
		goto out;
	rc = child_env(sb, key, &envp);
	if (rc)
		goto out;
	ggc.sb = sb;
	ggc.key = key;
	/* before the backend plans: the repositories that exist now are the
	 * ones its mounts protect */
	rc = srt__gitguard_snapshot(&sb->policy, &gg, on_gitguard, &ggc);
	if (rc)
		goto out;
	if (gg) {
		/* srt SIGKILLed mid-run: the backend's guard sweeps instead */
		cmd.orphan_fn = gitguard_orphan;
		cmd.orphan_ctx = gg;
		cmd.n_orphan_fds = srt__gitguard_fds(gg, &cmd.orphan_fds);
	}
	rc = sb->be->wrap(sb->bstate, argv, &cmd, diag);
	if (rc)
		goto out_cmd; /* a failed wrap may have set up part of the command */
	memset(&sp, 0, sizeof(sp));
	sp.argv = cmd.argv;
	sp.envp = envp;
	sp.keep_fds = cmd.child_fds;
	sp.n_keep_fds = cmd.n_child_fds;
	sp.null_fd = ro ? ro->null_fd : 0;
	sp.new_pgrp = cmd.new_pgrp;
	sp.announce_fd = cmd.guard_fd;
	sp.nofile_soft = sb->nofile.rlim_cur; /* the proxy may have raised it */
	rc = srt__spawn(&sp, &pid, diag);
	if (rc)
		goto out_cmd;
	if (sb->sweep_base) {
		sweep_stale_proxy_dirs(sb->sweep_base);
		free(sb->sweep_base);
		sb->sweep_base = NULL;
	}
	if (sb->be->started) {
		rc = sb->be->started(sb->bstate, &cmd, pid, diag);
		if (rc) {
			/* The sandbox could not be confirmed: never let it run on. */
			kill(pid, SIGKILL);
			srt__wait(pid, NULL, 0, status, NULL);
			goto out_cmd;
		}
	}
	target = cmd.signal_pid;
	if (cmd.events_fd > 2) {
		sigset_t all, old;
		er.sb = sb;
		er.key = key;
		er.fd = cmd.events_fd;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		have_reader = pthread_create(&reader, NULL, events_main, &er) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!have_reader)
			sb_log(sb, 0, "cannot start the violation reader: file violations of this command are not reported");
	}
	rc = srt__wait(pid, &target, ro ? ro->forward_signals : 0, status, diag);
	/* without a pid namespace the command's daemons would outlive it,
	 * and could write after the checks below */
	if (ro && ro->end_orphans && !(sb->be->caps & SRT_CAP_PIDNS) && srt__end_children() != 0)
		sb_log(sb, 0, "processes the command left kept appearing while srt ended them; some may outlive srt");
	if (have_reader)
		pthread_join(reader, NULL);
out_cmd:
	sb->be->release(sb->bstate, &cmd);
	/* the sandbox is gone: nothing can race the sweep */
	srt__gitguard_sweep(gg, on_gitguard, &ggc);
	gg = NULL;
out:
	srt__gitguard_free(gg);
	srt__env_free(envp);
	free(key);
	return rc;
}

void srt_sandbox_free(struct srt_sandbox *sb)
{
	if (!sb)
		return;
	if (sb->be && sb->bstate)
		sb->be->teardown(sb->bstate);
	srt__proxy_free(sb->proxy);
	if (sb->proxy_dir)
		rmdir(sb->proxy_dir);
	srt__module_free(sb->module);
	srt__vstore_free(sb->violations);
	pthread_mutex_destroy(&sb->update_lock);
	if (sb->have_policy)
		srt__policy_release(&sb->policy);
	srt__settings_release(&sb->settings);
	free(sb->proxy_dir);
	free(sb->sweep_base);
	free(sb->settings_path);
	free(sb->settings_named);
	free(sb->protect_file);
	free(sb->backend_spec);
	free(sb->cwd);
	explicit_bzero(sb->token, sizeof(sb->token));
	free(sb);
}

/* §1.3: bare when the word matches [A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*,
 * otherwise single-quoted with ' spelled '"'"'. */
static int word_is_bare(const char *w)
{
	const char *p;

	if (!*w || *w == '=')
		return 0;
	for (p = w; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      strchr("_./:@+,-=", c)))
			return 0;
	}
	return 1;
}

int srt_quote_argv(const char *const *argv, char **out)
{
	size_t cap = 1, i, o = 0;
	const char *p;
	char *s;

	for (i = 0; argv[i]; i++)
		cap += strlen(argv[i]) * 5 + 3;
	if (!(s = malloc(cap)))
		return SRT_E_NOMEM;
	for (i = 0; argv[i]; i++) {
		if (i)
			s[o++] = ' ';
		if (word_is_bare(argv[i])) {
			memcpy(s + o, argv[i], strlen(argv[i]));
			o += strlen(argv[i]);
			continue;
		}
		s[o++] = '\'';
		for (p = argv[i]; *p; p++) {
			if (*p == '\'') {
				memcpy(s + o, "'\"'\"'", 5);
				o += 5;
			} else {
				s[o++] = *p;
			}
		}
		s[o++] = '\'';
	}
	s[o] = '\0';
	*out = s;
	return SRT_OK;
}

void srt_sandbox_on_violation(struct srt_sandbox *sb, srt_violation_fn fn, void *ctx)
{
	srt__vstore_listen(sb->violations, fn, ctx);
}

int srt_sandbox_violations(struct srt_sandbox *sb, const char *key,
			   struct srt_violation **out, size_t *n)
{
	return srt__vstore_get(sb->violations, key, out, n);
}

unsigned long srt_sandbox_violation_total(struct srt_sandbox *sb)
{
	return srt__vstore_total(sb->violations);
}

int srt_sandbox_annotate_stderr(struct srt_sandbox *sb, const char *key,
				const char *stderr_text, char **out)
{
	struct srt_violation *v = NULL;
	size_t n = 0, i, len;
	char *s, *p;
	int rc;

	if (!stderr_text)
		stderr_text = "";
	rc = srt__vstore_get(sb->violations, key, &v, &n);
	if (rc)
		return rc;
	len = strlen(stderr_text) + sizeof("\n<sandbox_violations>\n</sandbox_violations>");
	for (i = 0; i < n; i++)
		len += strlen(v[i].line) + 1;
	s = malloc(len);
	if (!s) {
		srt_violations_free(v, n);
		return SRT_E_NOMEM;
	}
	p = stpcpy(s, stderr_text);
	if (n) {
		p = stpcpy(p, "\n<sandbox_violations>\n");
		for (i = 0; i < n; i++) {
			p = stpcpy(p, v[i].line);
			p = stpcpy(p, "\n");
		}
		stpcpy(p, "</sandbox_violations>");
	}
	srt_violations_free(v, n);
	*out = s;
	return SRT_OK;
}

int srt_sandbox_update_settings(struct srt_sandbox *sb, const char *json, size_t len,
				struct srt_diag *diag)
{
	struct srt__settings next;
	int rc;

	srt__settings_init(&next);
	rc = srt__settings_parse_json(&next, json, len, "settings update", diag);
	if (rc)
		return rc;
	pthread_mutex_lock(&sb->update_lock);
	if (sb->proxy)
		rc = srt__proxy_update_from_settings(sb->proxy, &next, diag);
	else if (next.allowed_domains.n)
		rc = srt_diag_set(diag, SRT_E_STATE, "network.allowedDomains",
				  "this sandbox was started without a proxy, so network access cannot be opened live; start it with live updates");
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

	if (!command_id || strlen(command_id) < 22)
		return srt_diag_set(diag, SRT_E_INVAL, "commandId",
				    "a per-command list needs a command id of at least 22 characters (it is carried in the proxy username)");
	if (!sb->proxy)
		return srt_diag_set(diag, SRT_E_STATE, "network.allowedDomains",
				    "this sandbox runs no proxy; start it with live updates or a non-empty allowedDomains");
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

const char *srt_default_shell(void)
{
	if (access("/bin/bash", X_OK) == 0)
		return "/bin/bash";
	return "/bin/sh";
}
