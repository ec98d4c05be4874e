/* srt-service: one long-lived sandbox (one proxy, one violation store) for
 * clients that are not C, such as the Node package.
 *
 *   srt-service serve --socket PATH [--settings FILE] [--events FILE]
 *                     [--backend B] [--debug]
 *                     [--ask [--ask-timeout MS]]
 *       Creates and starts the sandbox, listens on PATH (a Unix seqpacket
 *       socket, mode 0600), prints "ready" on stdout, and serves until its
 *       stdin reaches EOF (the owner died or closed it) or SIGTERM. Every
 *       violation is appended to the events file as one JSON line
 *       {"line","command","key","time_ms"} before the command that caused
 *       it is reported finished, so a reader that saw the command end
 *       finds its violations there. With --ask, a host on neither list
 *       is asked of the owner: a JSON line {"ask":N,"host","port"} on
 *       stdout, answered by a line {"answer":N,"allow":true|false,
 *       "reason":"...","fail":false} on stdin (no answer within the
 *       timeout denies).
 *   srt-service run --socket PATH [--id KEY] [--text TEXT] [--custom JSON]
 *                   -- ARGV...
 *       Runs ARGV in the service's sandbox: asks the service to wrap it,
 *       spawns the command itself (stdio are its own, so the caller's
 *       pipes or terminal), forwards INT TERM HUP QUIT USR1 USR2 to it,
 *       and exits with its status (128+N for signal N). It fails closed:
 *       when the service cannot be reached or goes away before the
 *       command is reported finished, the command is killed and it exits
 *       125 with one line naming the service.
 *   srt-service ctl --socket PATH update-settings     (JSON on stdin)
 *   srt-service ctl --socket PATH set-domains ID [DOMAIN...]
 *       Live changes, done when the command returns (0) or refused with
 *       the message on stderr (1).
 *
 * Protocol: one JSON object per seqpacket message; the service's answer
 * to "wrap" carries the command's descriptors (SCM_RIGHTS) with their
 * numbers in "fds". Each connection is one command (wrap, started,
 * finished) or one ctl request. libsrt calls on the sandbox are
 * serialised by one lock. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <srt/srt.h>

#define MSG_MAX (1024 * 1024)
#define MAX_FDS 8

static struct srt_sandbox *g_sb;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *g_events;

/* --- messages ------------------------------------------------------------ */

static int send_msg(int fd, const cJSON *obj, const int *fds, int nfds)
{
	char *text = cJSON_PrintUnformatted(obj);
	union { char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)]; struct cmsghdr align; } u;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	if (!text)
		return -1;
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = text;
	iov.iov_len = strlen(text);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		struct cmsghdr *c;
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	free(text);
	return n == (ssize_t)iov.iov_len ? 0 : -1;
}

/* One message; fds received into fds[] (*nfds), closed on any error. */
static cJSON *recv_msg(int fd, int *fds, int *nfds)
{
	union { char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)]; struct cmsghdr align; } u;
	char *buf = malloc(MSG_MAX + 1);
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *c;
	cJSON *obj = NULL;
	ssize_t n;

	if (nfds)
		*nfds = 0;
	if (!buf)
		return NULL;
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = buf;
	iov.iov_len = MSG_MAX;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		int i, k;
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fds && nfds && *nfds < MAX_FDS)
				fds[(*nfds)++] = f;
			else
				close(f);
		}
	}
	if (n > 0 && !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		buf[n] = '\0';
		obj = cJSON_Parse(buf);
	}
	if (!obj && fds && nfds) {
		while (*nfds > 0)
			close(fds[--*nfds]);
	}
	free(buf);
	return obj;
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char **strv_of(const cJSON *o, const char *k)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k), *it;
	char **v;
	int n = 0;

	if (!cJSON_IsArray(a))
		return NULL;
	v = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*v));
	if (!v)
		return NULL;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsString(it)) {
			free(v);
			return NULL;
		}
		v[n++] = it->valuestring;
	}
	return v;
}

static int reply_error(int fd, const char *msg)
{
	cJSON *r = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(r, "error", msg);
	rc = send_msg(fd, r, NULL, 0);
	cJSON_Delete(r);
	return rc;
}

static int reply_ok(int fd)
{
	cJSON *r = cJSON_CreateObject();
	int rc;

	cJSON_AddTrueToObject(r, "ok");
	rc = send_msg(fd, r, NULL, 0);
	cJSON_Delete(r);
	return rc;
}

/* --- serve ---------------------------------------------------------------- */

static void on_violation(void *ctx, const struct srt_violation *v)
{
	cJSON *o = cJSON_CreateObject();
	char *t;

	(void)ctx;
	if (!o)
		return;
	cJSON_AddStringToObject(o, "line", v->line);
	if (v->command)
		cJSON_AddStringToObject(o, "command", v->command);
	if (v->key)
		cJSON_AddStringToObject(o, "key", v->key);
	cJSON_AddNumberToObject(o, "time_ms", (double)v->time_ms);
	t = cJSON_PrintUnformatted(o);
	if (t && g_events) {
		fprintf(g_events, "%s\n", t);
		fflush(g_events);
	}
	free(t);
	cJSON_Delete(o);
}

static cJSON *wrapped_json(const struct srt_wrapped *w)
{
	cJSON *r = cJSON_CreateObject(), *a;
	int i;

	cJSON_AddItemToObject(r, "argv", a = cJSON_CreateArray());
	for (i = 0; w->argv[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(w->argv[i]));
	cJSON_AddItemToObject(r, "envp", a = cJSON_CreateArray());
	for (i = 0; w->envp[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(w->envp[i]));
	cJSON_AddItemToObject(r, "fds", a = cJSON_CreateArray());
	for (i = 0; i < w->n_fds; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(w->fds[i]));
	cJSON_AddStringToObject(r, "cwd", w->cwd);
	cJSON_AddBoolToObject(r, "new_pgrp", w->new_pgrp);
	return r;
}

/* One command: wrap, then started (pid), then finished (status). The
 * handle is finished however the connection ends. */
static void serve_command(int fd, const cJSON *req)
{
	struct srt_wrap_options wo;
	struct srt_wrapped *w = NULL;
	struct srt_diag d;
	char **argv = strv_of(req, "argv");
	cJSON *r, *m;
	int rc, status = -1;

	memset(&d, 0, sizeof(d));
	memset(&wo, 0, sizeof(wo));
	wo.command_id = str_of(req, "id");
	wo.command_text = str_of(req, "text");
	wo.custom_config = str_of(req, "custom");
	if (!argv || !argv[0]) {
		reply_error(fd, "wrap: no argv");
		free(argv);
		return;
	}
	pthread_mutex_lock(&g_lock);
	rc = srt_sandbox_wrap(g_sb, (const char *const *)argv, &wo, &w, &d);
	pthread_mutex_unlock(&g_lock);
	free(argv);
	if (rc) {
		reply_error(fd, d.message);
		return;
	}
	r = wrapped_json(w);
	rc = send_msg(fd, r, w->fds, w->n_fds);
	cJSON_Delete(r);
	m = rc ? NULL : recv_msg(fd, NULL, NULL);
	if (m && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "started"))) {
		pid_t pid = (pid_t)cJSON_GetObjectItemCaseSensitive(m, "started")->valuedouble;
		pthread_mutex_lock(&g_lock);
		rc = srt_command_started(w, pid, &d);
		pthread_mutex_unlock(&g_lock);
		r = cJSON_CreateObject();
		if (rc)
			cJSON_AddStringToObject(r, "error", d.message);
		else
			cJSON_AddNumberToObject(r, "signal_pid", srt_command_signal_pid(w));
		send_msg(fd, r, NULL, 0);
		cJSON_Delete(r);
		cJSON_Delete(m);
		m = recv_msg(fd, NULL, NULL);
		if (m && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "finished")))
			status = (int)cJSON_GetObjectItemCaseSensitive(m, "finished")->valuedouble;
	}
	cJSON_Delete(m);
	pthread_mutex_lock(&g_lock);
	srt_command_finished(w, status);
	pthread_mutex_unlock(&g_lock);
	/* the command's violations are in the events file now */
	reply_ok(fd);
}

static void serve_ctl(int fd, const cJSON *req)
{
	const char *op = str_of(req, "ctl");
	struct srt_diag d;
	int rc = SRT_E_INVAL;

	memset(&d, 0, sizeof(d));
	snprintf(d.message, sizeof(d.message), "unknown request");
	if (op && !strcmp(op, "update-settings") && str_of(req, "json")) {
		const char *j = str_of(req, "json");
		rc = srt_sandbox_update_settings(g_sb, j, strlen(j), &d);
	} else if (op && !strcmp(op, "set-domains") && str_of(req, "id")) {
		char **dom = strv_of(req, "domains");
		rc = srt_sandbox_set_command_domains(g_sb, str_of(req, "id"),
						     (const char *const *)dom, &d);
		free(dom);
	}
	if (rc)
		reply_error(fd, d.message);
	else
		reply_ok(fd);
}

static void *conn_main(void *arg)
{
	int fd = (int)(long)arg;
	cJSON *req = recv_msg(fd, NULL, NULL);

	if (req && str_of(req, "ctl"))
		serve_ctl(fd, req);
	else if (req)
		serve_command(fd, req);
	cJSON_Delete(req);
	close(fd);
	return NULL;
}

/* --ask: questions go to the owner on stdout, one JSON line each,
 * {"ask":TICKET,"host":H,"port":P,"command":ID}; its answers come back on
 * stdin, {"answer":TICKET,"allow":BOOL,"reason":TEXT,"fail":BOOL}. */
static pthread_mutex_t g_out_lock = PTHREAD_MUTEX_INITIALIZER;

static int on_ask(void *ctx, const struct srt_ask_request *req)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	(void)ctx;
	if (!o)
		return -1;
	cJSON_AddNumberToObject(o, "ask", (double)req->ticket);
	cJSON_AddStringToObject(o, "host", req->host);
	cJSON_AddNumberToObject(o, "port", req->port);
	if (req->command_id)
		cJSON_AddStringToObject(o, "command", req->command_id);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	pthread_mutex_lock(&g_out_lock);
	printf("%s\n", text);
	fflush(stdout);
	pthread_mutex_unlock(&g_out_lock);
	free(text);
	return 0;
}

static void answer_line(const char *line)
{
	cJSON *o = cJSON_Parse(line);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "answer");
	const cJSON *allow = cJSON_GetObjectItemCaseSensitive(o, "allow");
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(o, "reason");
	const cJSON *failed = cJSON_GetObjectItemCaseSensitive(o, "fail");
	enum srt_ask_verdict v = SRT_ASK_DENY;

	if (cJSON_IsNumber(t) && t->valuedouble >= 1) {
		if (cJSON_IsTrue(failed))
			v = SRT_ASK_FAIL;
		else if (cJSON_IsTrue(allow))
			v = SRT_ASK_ALLOW;
		srt_ask_answer(g_sb, (unsigned long long)t->valuedouble, v,
			       cJSON_IsString(reason) ? reason->valuestring : NULL, 0);
	}
	cJSON_Delete(o);
}

static void *stdin_watch(void *arg)
{
	char line[65536];
	size_t n = 0;
	bool overlong = false;
	char c;
	ssize_t r;

	(void)arg;
	while ((r = read(0, &c, 1)) > 0 || (r < 0 && errno == EINTR)) {
		if (r <= 0)
			continue;
		if (c != '\n') {
			if (n + 1 < sizeof(line))
				line[n++] = c;
			else
				overlong = true;
			continue;
		}
		line[n] = '\0';
		if (!overlong && n)
			answer_line(line);
		n = 0;
		overlong = false;
	}
	/* the owner is gone: no new command gets the proxy; the commands
	 * running lose it, and their clients kill them */
	_exit(0);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "srt-service: socket path too long: %s\n", path);
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	umask(077);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0) {
		fprintf(stderr, "srt-service: cannot listen on %s: %s\n", path, strerror(errno));
		return -1;
	}
	return fd;
}

static int serve(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "settings", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "backend", required_argument, NULL, 'b' },
		{ "debug", no_argument, NULL, 'd' },
		{ "ask", no_argument, NULL, 'a' },
		{ "ask-timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *settings = NULL, *events = NULL;
	bool ask = false;
	unsigned ask_ms = 0;
	struct srt_options opt;
	struct srt_diag d;
	pthread_t t;
	int c, lfd;

	memset(&opt, 0, sizeof(opt));
	memset(&d, 0, sizeof(d));
	opt.live_updates = 1;
	while ((c = getopt_long(argc, argv, "S:s:e:b:daT:", lo, NULL)) != -1) {
		switch (c) {
		case 'a': ask = true; break;
		case 'T': ask_ms = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': sock = optarg; break;
		case 's': settings = optarg; break;
		case 'e': events = optarg; break;
		case 'b': opt.backend = optarg; break;
		case 'd': opt.debug = 1; break;
		default: return 2;
		}
	}
	if (!sock) {
		fprintf(stderr, "srt-service serve: --socket PATH is required\n");
		return 2;
	}
	if (events && !(g_events = fopen(events, "ae"))) {
		fprintf(stderr, "srt-service: events file %s: %s\n", events, strerror(errno));
		return 1;
	}
	opt.protect_file = events;
	if (srt_sandbox_new_from_file(&g_sb, settings, settings != NULL, &opt, &d) ||
	    (ask && srt_sandbox_set_ask(g_sb, on_ask, NULL, ask_ms) &&
	     snprintf(d.message, sizeof(d.message), "cannot install the ask callback") > 0) ||
	    srt_sandbox_start(g_sb, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		return 1;
	}
	srt_sandbox_on_violation(g_sb, on_violation, NULL);
	lfd = listen_on(sock);
	if (lfd < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (pthread_create(&t, NULL, stdin_watch, NULL) != 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pthread_attr_t at;
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return 1;
		}
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, conn_main, (void *)(long)fd) != 0)
			close(fd);
		pthread_attr_destroy(&at);
	}
}

/* --- clients ---------------------------------------------------------------- */

static int connect_to(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static volatile pid_t g_signal_pid;
static volatile sig_atomic_t g_reaped;

struct watch_args {
	int fd;
	pid_t pid;
};

/* The service gone while the command runs: the command loses its proxy
 * and its store, so it is ended at once rather than left running
 * unobserved. */
static void *watch_service(void *arg)
{
	struct watch_args *wa = arg;
	struct pollfd p = { .fd = wa->fd, .events = POLLRDHUP };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (g_reaped)
		return NULL;
	kill(-wa->pid, SIGKILL);
	kill(wa->pid, SIGKILL);
	fprintf(stderr, "srt: the sandbox service went away while the command ran; the command was killed\n");
	_exit(125);
}

static void forward(int sig)
{
	if (g_signal_pid > 0)
		kill(g_signal_pid, sig);
}

static int die(const char *what, const char *why)
{
	fprintf(stderr, "srt: the sandbox service %s: %s; the command was not run (or was killed)\n",
		what, why);
	return 125;
}

/* In the child: each received descriptor at the number the command
 * expects, everything else close-on-exec as received. */
static void child_exec(const cJSON *w, const int *got, int n)
{
	const cJSON *nums = cJSON_GetObjectItemCaseSensitive(w, "fds");
	char **argv = strv_of(w, "argv"), **envp = strv_of(w, "envp");
	const char *cwd = str_of(w, "cwd");
	int hi[MAX_FDS], i;

	for (i = 0; i < n; i++)
		if ((hi[i] = fcntl(got[i], F_DUPFD_CLOEXEC, 100)) < 0)
			_exit(125);
	for (i = 0; i < n; i++) {
		int want = (int)cJSON_GetArrayItem(nums, i)->valuedouble;
		if (dup2(hi[i], want) < 0)
			_exit(125);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "new_pgrp")) && getpgrp() != getpid())
		setpgid(0, 0);
	if (!argv || !envp || !cwd || chdir(cwd) != 0)
		_exit(125);
	execve(argv[0], argv, envp);
	_exit(127);
}

static int run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "id", required_argument, NULL, 'i' },
		{ "text", required_argument, NULL, 't' },
		{ "custom", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *id = NULL, *text = NULL, *custom = NULL;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	int fds[MAX_FDS], nfds = 0, c, i, fd, st = 0, status;
	cJSON *req, *w, *r;
	const cJSON *nums;
	struct watch_args wa;
	pthread_t watcher;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+S:i:t:c:", lo, NULL)) != -1) {
		switch (c) {
		case 'S': sock = optarg; break;
		case 'i': id = optarg; break;
		case 't': text = optarg; break;
		case 'c': custom = optarg; break;
		default: return 2;
		}
	}
	if (!sock || optind >= argc) {
		fprintf(stderr, "usage: srt-service run --socket PATH [--id KEY] -- ARGV...\n");
		return 2;
	}
	fd = connect_to(sock);
	if (fd < 0)
		return die("cannot be reached", strerror(errno));
	req = cJSON_CreateObject();
	r = cJSON_AddArrayToObject(req, "argv");
	for (i = optind; i < argc; i++)
		cJSON_AddItemToArray(r, cJSON_CreateString(argv[i]));
	if (id)
		cJSON_AddStringToObject(req, "id", id);
	if (text)
		cJSON_AddStringToObject(req, "text", text);
	if (custom)
		cJSON_AddStringToObject(req, "custom", custom);
	if (send_msg(fd, req, NULL, 0) != 0) {
		int err = errno;

		cJSON_Delete(req);
		return die("cannot be reached", strerror(err));
	}
	cJSON_Delete(req);
	w = recv_msg(fd, fds, &nfds);
	if (!w)
		return die("went away", "no answer to wrap");
	if (str_of(w, "error")) {
		fprintf(stderr, "srt: %s\n", str_of(w, "error"));
		cJSON_Delete(w);
		return 125;
	}
	nums = cJSON_GetObjectItemCaseSensitive(w, "fds");
	if (!cJSON_IsArray(nums) || cJSON_GetArraySize(nums) != nfds) {
		cJSON_Delete(w);
		return die("answered wrong", "descriptors missing");
	}
	for (i = 0; i < 6; i++)
		signal(sigs[i], forward);
	pid = fork();
	if (pid < 0) {
		cJSON_Delete(w);
		return die("", "fork failed");
	}
	if (pid == 0) {
		for (i = 0; i < 6; i++)
			signal(sigs[i], SIG_DFL);
		child_exec(w, fds, nfds);
	}
	/* only the sandbox may hold the write ends now; the answer is the
	 * child's alone */
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	cJSON_Delete(w);
	req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "started", pid);
	r = send_msg(fd, req, NULL, 0) == 0 ? recv_msg(fd, NULL, NULL) : NULL;
	cJSON_Delete(req);
	if (!r || str_of(r, "error")) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (r)
			fprintf(stderr, "srt: %s\n", str_of(r, "error"));
		return r ? 125 : die("went away", "while the command started");
	}
	g_signal_pid = (pid_t)cJSON_GetObjectItemCaseSensitive(r, "signal_pid")->valuedouble;
	cJSON_Delete(r);
	wa.fd = fd;
	wa.pid = pid;
	if (pthread_create(&watcher, NULL, watch_service, &wa) != 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return die("cannot be watched", "no thread");
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	g_reaped = 1;
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "finished", status);
	r = send_msg(fd, req, NULL, 0) == 0 ? recv_msg(fd, NULL, NULL) : NULL;
	cJSON_Delete(req);
	if (!r)
		return die("went away", "before the command was reported finished");
	cJSON_Delete(r);
	return status;
}

static int ctl(int argc, char **argv)
{
	int rc;
	const char *sock = NULL;
	cJSON *req, *r;
	int fd, i;

	if (argc >= 3 && !strcmp(argv[1], "--socket")) {
		sock = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (!sock || argc < 2) {
		fprintf(stderr, "usage: srt-service ctl --socket PATH (update-settings | set-domains ID [DOMAIN...])\n");
		return 2;
	}
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "ctl", argv[1]);
	if (!strcmp(argv[1], "update-settings")) {
		static char buf[MSG_MAX / 2];
		size_t n = fread(buf, 1, sizeof(buf) - 1, stdin);
		buf[n] = '\0';
		cJSON_AddStringToObject(req, "json", buf);
	} else if (!strcmp(argv[1], "set-domains") && argc >= 3) {
		cJSON *a = cJSON_AddArrayToObject(req, "domains");
		cJSON_AddStringToObject(req, "id", argv[2]);
		for (i = 3; i < argc; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	}
	fd = connect_to(sock);
	if (fd < 0) {
		fprintf(stderr, "srt: the sandbox service cannot be reached at %s: %s\n", sock, strerror(errno));
		cJSON_Delete(req);
		return 1;
	}
	r = send_msg(fd, req, NULL, 0) == 0 ? recv_msg(fd, NULL, NULL) : NULL;
	cJSON_Delete(req);
	close(fd);
	if (!r) {
		fprintf(stderr, "srt: the sandbox service went away\n");
		return 1;
	}
	rc = 0;
	if (str_of(r, "error")) {
		fprintf(stderr, "srt: %s\n", str_of(r, "error"));
		rc = 1;
	}
	cJSON_Delete(r);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return serve(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return ctl(argc - 1, argv + 1);
	fprintf(stderr, "usage: srt-service serve|run|ctl ... (see the README, \"Embedding\")\n");
	return 2;
}
