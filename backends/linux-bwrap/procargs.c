/* linux-bwrap: the process/namespace words of the bwrap argv and the
 * helper's command line: namespaces, capabilities, environment, the proxy
 * socket and the helper's options.
 *
 * Capabilities: bwrap drops every capability (--cap-drop ALL) and keeps
 * CAP_SYS_ADMIN and CAP_SETPCAP for srt-linux-init alone. The helper needs
 * the first to make the nested pid + mount namespace and mount a /proc that
 * shows only the command's tree, the second to empty the bounding set; it
 * then drops every capability before anything from the sandbox runs (see
 * init/init.c). The other way, a nested user namespace (with CAP_SETFCAP
 * for a uid-0 caller), fails here: measured on Linux 6.18 with bubblewrap
 * 0.8, a uid-0 caller's fresh /proc cannot be mounted that way (bwrap's read-only binds under its /proc are locked in the nested
 * namespace, so the kernel refuses proc as not fully visible), and the
 * command would keep every capability of the nested namespace. The helper
 * still falls back to a nested user namespace when bwrap cannot grant the
 * capability: a setuid-root bwrap refuses --cap-add for non-root callers,
 * so there we do not ask. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procargs.h"
#include "backends/linux-common/unix-path.h"

static int push_all(struct srt__strv *w, const char *const *v)
{
	for (; *v; v++)
		if (srt__strv_push(w, *v))
			return SRT_E_NOMEM;
	return SRT_OK;
}

/* Is the bwrap srt will run (resolved by the module: settings bwrapPath,
 * else the first trusted bwrap on PATH) setuid? */
static int bwrap_is_setuid(const char *bwrap)
{
	struct stat st;

	return bwrap && stat(bwrap, &st) == 0 && (st.st_mode & S_ISUID);
}

int srt__bwrap_helper_makes_dev(const struct srt_policy *pol, const char *bwrap, int mount_api)
{
	/* the helper mounts with the CAP_SYS_ADMIN that bwrap keeps for it
	 * (not kept by a setuid bwrap for another user); the weaker nested
	 * sandbox binds the host's /proc, which bwrap does */
	return mount_api && !pol->weaker_nested_sandbox && (geteuid() == 0 || !bwrap_is_setuid(bwrap));
}

int srt__bwrap_process_args(const struct srt_policy *pol, const char *bwrap, int helper_makes_dev,
			    struct srt__strv *w, struct srt_diag *diag)
{
	static const char *const ns_words[] = {
		/* IPC too: System V objects and POSIX message queues of the host
		 * would otherwise be a channel out of the sandbox */
		"--unshare-pid", "--unshare-ipc", "--unshare-user", "--cap-drop", "ALL", NULL,
	};
	static const char *const dev_words[] = { "--dev", "/dev", NULL };
	static const char *const cap_words[] = { "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP",
						 NULL };
	static const char *const setfcap_words[] = { "--cap-add", "CAP_SETFCAP", NULL };
	static const char *const net_cap_words[] = { "--cap-add", "CAP_NET_ADMIN", "--cap-add",
						     "CAP_NET_BIND_SERVICE", NULL };
	static const char *const proc_words[] = { "--proc", "/proc", NULL };
	static const char *const weak_proc_words[] = { "--bind", "/proc", "/proc", NULL };

	if (helper_makes_dev && !srt__bwrap_helper_makes_dev(pol, bwrap, 1))
		return srt_diag_set(diag, SRT_E_INVAL, "srt-linux-init",
				    "the helper cannot make /dev and /proc under this policy");
	if (!helper_makes_dev && push_all(w, dev_words))
		goto nomem;
	if (push_all(w, ns_words))
		goto nomem;
	if ((geteuid() == 0 || !bwrap_is_setuid(bwrap)) && push_all(w, cap_words))
		goto nomem;
	/* interception: the helper installs the namespace's rules and binds
	 * the DNS answerer to port 53, then drops these with the rest */
	if (pol->intercept && pol->proxy_socket && (geteuid() == 0 || !bwrap_is_setuid(bwrap)) &&
	    push_all(w, net_cap_words))
		goto nomem;
	/* the command then gets a user namespace of its own, and mapping a
	 * root caller's uid 0 into a new one takes CAP_SETFCAP in its parent;
	 * the helper drops it with the rest before anything runs */
	if (helper_makes_dev && geteuid() == 0 && push_all(w, setfcap_words))
		goto nomem;
	if (!helper_makes_dev && push_all(w, pol->weaker_nested_sandbox ? weak_proc_words : proc_words))
		goto nomem;
	return SRT_OK;
nomem:
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap arguments: out of memory");
}

int srt__bwrap_helper_args(const struct srt_policy *pol, const char *helper_path,
			   const char *const *argv, struct srt__strv *w,
			   struct srt_diag *diag)
{
	return srt__bwrap_helper_args_status(pol, helper_path, -1, argv, w, diag);
}

int srt__bwrap_helper_args_status(const struct srt_policy *pol, const char *helper_path,
				  int status_fd, const char *const *argv,
				  struct srt__strv *w, struct srt_diag *diag)
{
	struct srt__helper_fds fds = { status_fd, -1, -1, -1, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0,
				       -1, 0, 0 };

	return srt__bwrap_helper_args_fds(pol, helper_path, &fds, argv, w, diag);
}

/* "opt path" for each of paths (may be NULL), every one absolute. */
static int push_paths(struct srt__strv *w, const char *opt, const struct srt__strv *paths,
		      const char *what, struct srt_diag *diag)
{
	for (size_t i = 0; paths && i < paths->n; i++) {
		if (paths->v[i][0] != '/')
			return srt_diag_set(diag, SRT_E_INVAL, "srt-linux-init",
					    "%s is not an absolute path: \"%s\"", what, paths->v[i]);
		if (srt__strv_push(w, opt) || srt__strv_push(w, paths->v[i]))
			return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap arguments: out of memory");
	}
	return SRT_OK;
}

static int push_fd_opt(struct srt__strv *w, const char *opt, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	return srt__strv_push(w, opt) || srt__strv_push(w, num);
}

int srt__bwrap_helper_args_fds(const struct srt_policy *pol, const char *helper_path,
			       const struct srt__helper_fds *fds, const char *const *argv,
			       struct srt__strv *w, struct srt_diag *diag)
{
	char http[16], socks[16], sockid[48], oom[16];
	size_t i;
	int rc;

	if (!helper_path || helper_path[0] != '/')
		return srt_diag_set(diag, SRT_E_INVAL, "srt-linux-init",
				    "the sandbox helper path \"%s\" is not absolute",
				    helper_path ? helper_path : "");
	if (!argv || !argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to run");
	if (srt__strv_push(w, "--") || srt__strv_push(w, helper_path))
		goto nomem;
	if (pol->proxy_socket) {
		if (pol->http_port < 1 || pol->http_port > 65535 || pol->socks_port < 1 ||
		    pol->socks_port > 65535)
			return srt_diag_set(diag, SRT_E_INVAL, "network",
					    "in-sandbox proxy ports %d/%d are out of range",
					    pol->http_port, pol->socks_port);
		/* a plan only printed names the socket a run would bind */
		if (!pol->proxy_socket_ino && !pol->plan_only)
			return srt_diag_set(diag, SRT_E_INVAL, "network",
					    "the proxy socket's identity (device and inode) is unknown");
		snprintf(http, sizeof(http), "%d", pol->http_port);
		snprintf(socks, sizeof(socks), "%d", pol->socks_port);
		if (pol->proxy_socket_ino)
			snprintf(sockid, sizeof(sockid), "%llu:%llu", pol->proxy_socket_dev,
				 pol->proxy_socket_ino);
		else
			snprintf(sockid, sizeof(sockid), "DEVICE:INODE");
		if (srt__strv_push(w, "--proxy-socket") || srt__strv_push(w, pol->proxy_socket) ||
		    srt__strv_push(w, "--proxy-socket-id") || srt__strv_push(w, sockid) ||
		    srt__strv_push(w, "--http-port") || srt__strv_push(w, http) ||
		    srt__strv_push(w, "--socks-port") || srt__strv_push(w, socks))
			goto nomem;
		if (pol->intercept && fds->intercept_token_fd >= 0 &&
		    (srt__strv_push(w, "--intercept") ||
		     srt__strv_push(w, pol->intercept == SRT_INTERCEPT_OPTIONAL ? "optional" : "required") ||
		     push_fd_opt(w, "--intercept-token-fd", fds->intercept_token_fd)))
			goto nomem;
	}
	if (pol->allow_all_unix_sockets && srt__strv_push(w, "--allow-all-unix-sockets"))
		goto nomem;
	if (pol->allow_nested_userns && srt__strv_push(w, "--allow-nested-userns"))
		goto nomem;
	if (pol->weaker_nested_sandbox && srt__strv_push(w, "--weaker-nested-sandbox"))
		goto nomem;
	if (pol->weaker_name_protection && srt__strv_push(w, "--watch-weaker"))
		goto nomem;
	if (fds->status_fd >= 0 && push_fd_opt(w, "--status-fd", fds->status_fd))
		goto nomem;
	if ((fds->events_fd >= 0) != (fds->policy_fd >= 0))
		return srt_diag_set(diag, SRT_E_INVAL, "srt-linux-init",
				    "the violation monitor needs both its events and its policy descriptor");
	if (fds->events_fd >= 0 && (push_fd_opt(w, "--events-fd", fds->events_fd) ||
				    push_fd_opt(w, "--monitor-policy-fd", fds->policy_fd)))
		goto nomem;
	if (fds->landlock_fd >= 0 && push_fd_opt(w, "--landlock-plan-fd", fds->landlock_fd))
		goto nomem;
	rc = push_paths(w, "--hide-file", fds->hidden, "a file to hide", diag);
	if (!rc)
		rc = push_paths(w, "--pin-link", fds->pinned_links, "a link to pin", diag);
	if (!rc)
		rc = push_paths(w, "--watch-deny", fds->watch_deny, "a denied file to watch", diag);
	if (!rc)
		rc = push_paths(w, "--watch-keep", fds->watch_keep, "a protected file to watch", diag);
	if (!rc)
		rc = push_paths(w, "--watch-glob", fds->watch_globs, "a denyRead pattern to watch", diag);
	if (!rc && fds->watch_trees && fds->watch_trees->n && fds->watch_depth > 0) {
		rc = push_paths(w, "--watch-tree", fds->watch_trees, "a write root to watch", diag);
		if (!rc && push_fd_opt(w, "--watch-depth", fds->watch_depth))
			goto nomem;
		for (i = 0; !rc && pol->protected_released && pol->protected_released[i]; i++)
			if (srt__strv_push(w, "--watch-release") ||
			    srt__strv_push(w, pol->protected_released[i]))
				goto nomem;
	}
	if (rc)
		return rc;
	if (fds->make_dev_proc && srt__strv_push(w, "--make-dev-proc"))
		goto nomem;
	if (pol->debug && srt__strv_push(w, "--debug"))
		goto nomem;
	if (fds->oom_min_set) {
		snprintf(oom, sizeof(oom), "%d", fds->oom_min);
		if (srt__strv_push(w, "--oom-score-min") || srt__strv_push(w, oom))
			goto nomem;
	}
	if (srt__strv_push(w, "--"))
		goto nomem;
	for (; *argv; argv++)
		if (srt__strv_push(w, *argv))
			goto nomem;
	return SRT_OK;
nomem:
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap arguments: out of memory");
}

/* ---- the violation monitor's policy ------------------------------------ */

struct mrec {
	char state;
	const char *path;
};

struct mbuf {
	char *v;
	size_t n, alloc;
};

static int mbuf_put(struct mbuf *b, char state, const char *s)
{
	size_t l = strlen(s) + (state ? 1 : 0) + 1;

	if (b->n + l > b->alloc) {
		size_t na = b->alloc ? b->alloc * 2 : 4096;
		char *nv;

		while (na < b->n + l)
			na *= 2;
		nv = realloc(b->v, na);
		if (!nv)
			return -1;
		b->v = nv;
		b->alloc = na;
	}
	if (state)
		b->v[b->n++] = state;
	memcpy(b->v + b->n, s, l - (state ? 1 : 0));
	b->n += l - (state ? 1 : 0);
	return 0;
}

static int path_covers(const char *a, const char *b)
{
	size_t l = strlen(a);

	if (l == 1 && a[0] == '/')
		return 1;
	return strncmp(a, b, l) == 0 && (b[l] == '\0' || b[l] == '/');
}

static int is_created(const struct srt__strv *created, const char *p)
{
	size_t i;

	for (i = 0; created && i < created->n; i++)
		if (strcmp(created->v[i], p) == 0)
			return 1;
	return 0;
}

static int mrec_push(struct mrec **v, size_t *n, size_t *alloc, char state, const char *path)
{
	if (path[0] != '/')
		return -1;
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		struct mrec *nv = realloc(*v, na * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*alloc = na;
	}
	(*v)[*n].state = state;
	(*v)[*n].path = path;
	(*n)++;
	return 0;
}

/* The state of path under the mount records: that of the last record at
 * path or above it ('w' when none). */
static char state_at(const struct mrec *r, size_t n, const char *path)
{
	size_t i;

	for (i = n; i > 0; i--)
		if (path_covers(r[i - 1].path, path))
			return r[i - 1].state;
	return 'w';
}

/* The allowed Unix socket paths as the monitor compares and connects to
 * them: the real path of the directory plus the socket's own name (a link
 * at the name is not followed: the monitor connects to this spelling).
 * sun_path holds at most 107 bytes. A path the mounts hide (denyRead) could
 * not be reached from inside, where the monitor connects: refused by name
 * rather than left unreachable, and never bound back in over the user's own
 * denyRead (allowRead re-opens it, and then the state here is readable). */
static int unix_records(const struct srt_policy *pol, const struct mrec *r, size_t n, struct mbuf *b,
			struct srt_diag *diag)
{
	size_t i;

	for (i = 0; i < pol->allow_unix_sockets.n; i++) {
		const struct srt_rule *x = &pol->allow_unix_sockets.v[i];
		char full[PATH_MAX], st;
		int k = srt__unix_path_spelling(x->path, full);

		if (k == -1)
			return srt_diag_set(diag, SRT_E_INVAL, x->origin, "%s: \"%s\" is not a socket path",
					    x->origin, x->path);
		if (k != 0)
			return srt_diag_set(diag, SRT_E_INVAL, x->origin,
					    "%s: \"%s\" is too long for a Unix socket address (at most 107 bytes once resolved)",
					    x->origin, x->path);
		st = state_at(r, n, full);
		if (st == 'h' || st == 'p')
			return srt_diag_set(diag, SRT_E_INVAL, x->origin,
					    "%s: \"%s\" lies in a path the sandbox hides (denyRead or a hidden mount), so it could not be connected to; re-open its directory with filesystem.allowRead, or remove it from network.allowUnixSockets",
					    x->origin, x->path);
		if (mbuf_put(b, 'u', full))
			return srt_diag_set(diag, SRT_E_NOMEM, "", "monitor policy: out of memory");
	}
	return SRT_OK;
}

int srt__bwrap_monitor_policy(const struct srt_policy *pol, const struct srt__strv *mount_words,
			      const struct srt__strv *hidden, const struct srt__strv *pinned_links,
			      const struct srt__strv *missing, const struct srt__strv *created,
			      char **out, size_t *len, unsigned *out_flags, struct srt_diag *diag)
{
	struct mrec *r = NULL;
	size_t n = 0, alloc = 0, i;
	struct mbuf b = { 0 };
	unsigned flags = 0;
	int known = 1, rc = SRT_E_NOMEM;
	char fl[4];

	*out = NULL;
	*len = 0;
	*out_flags = 0;
	for (i = 0; i < mount_words->n && known; i++) {
		const char *a = mount_words->v[i];
		const char *x = i + 1 < mount_words->n ? mount_words->v[i + 1] : NULL;
		const char *y = i + 2 < mount_words->n ? mount_words->v[i + 2] : NULL;
		char st;

		if ((!strcmp(a, "--bind") || !strcmp(a, "--ro-bind")) && y) {
			if (!strcmp(x, "/dev/null"))
				st = is_created(created, y) ? 'p' : 'h';
			else if (a[2] == 'r')
				st = is_created(created, y) ? 'p' : 'r';
			else
				st = 'w';
			if (mrec_push(&r, &n, &alloc, st, y))
				goto fail;
			i += 2;
		} else if (!strcmp(a, "--tmpfs") && x) {
			/* hidden, a placeholder directory too: the plan mounts
			 * a tmpfs on one only when it was made for a denied
			 * path, which the host may fill during the run */
			if (mrec_push(&r, &n, &alloc, 'h', x))
				goto fail;
			i += 1;
		} else if ((!strcmp(a, "--perms") || !strcmp(a, "--dir")) && x) {
			i += 1; /* no mount of its own */
		} else if (!strcmp(a, "--remount-ro") && x) {
			size_t j;

			/* read-only from here down; what was mounted below it
			 * since its tmpfs (the re-opens' mount points) included */
			for (j = n; j > 0; j--) {
				struct mrec *m = &r[j - 1];

				if (path_covers(x, m->path) && m->state == 'w')
					m->state = 'r';
				if (!strcmp(m->path, x))
					break;
			}
			i += 1;
		} else {
			known = 0;
		}
	}
	if (known) {
		/* the helper covers these after all of bwrap's mounts */
		for (i = 0; hidden && i < hidden->n; i++)
			if (mrec_push(&r, &n, &alloc, is_created(created, hidden->v[i]) ? 'p' : 'h',
				      hidden->v[i]))
				goto fail;
		for (i = 0; pinned_links && i < pinned_links->n; i++)
			if (mrec_push(&r, &n, &alloc, 'r', pinned_links->v[i]))
				goto fail;
		for (i = 0; missing && i < missing->n; i++)
			if (mrec_push(&r, &n, &alloc, 'h', missing->v[i]))
				goto fail;
		if (pol->proxy_dir && mrec_push(&r, &n, &alloc, 'w', pol->proxy_dir))
			goto fail;
		if (mrec_push(&r, &n, &alloc, 'x', "/dev") || mrec_push(&r, &n, &alloc, 'x', "/proc"))
			goto fail;
		for (i = 0; i < n; i++) {
			if (r[i].state == 'r' || r[i].state == 'h' || r[i].state == 'p')
				flags |= 1; /* SRT_MONITOR_WRITES */
			if (r[i].state == 'h')
				flags |= 2; /* SRT_MONITOR_READS */
		}
	} else {
		n = 0;
		if (pol->debug)
			fprintf(stderr, "[srt debug] violation monitor: unknown mount word in the plan; "
					"file violations are not reported\n");
	}
	if (pol->allow_unix_sockets.n && !pol->allow_all_unix_sockets)
		flags |= 4; /* SRT_MONITOR_UNIX_PATHS */
	snprintf(fl, sizeof(fl), "f%u", flags);
	if (mbuf_put(&b, 0, "srt-monitor-policy 1") || mbuf_put(&b, 0, fl))
		goto fail;
	for (i = 0; i < n; i++)
		if (mbuf_put(&b, r[i].state, r[i].path))
			goto fail;
	if (flags & 4) {
		rc = unix_records(pol, r, n, &b, diag);
		if (rc)
			goto fail;
	}
	free(r);
	*out = b.v;
	*len = b.n;
	*out_flags = flags;
	return SRT_OK;
fail:
	free(r);
	free(b.v);
	return rc == SRT_E_NOMEM ? srt_diag_set(diag, SRT_E_NOMEM, "", "monitor policy: out of memory") : rc;
}
