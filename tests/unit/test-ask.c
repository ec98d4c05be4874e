/* Asking the application about a host on neither list: the reason's
 * sanitising, the lists' ASK verdict, and the proxy against loopback
 * servers with an in-test callback: a question parks only its connection
 * (another completes meanwhile), allow / deny with a reason / a failed
 * callback / no answer in time, remembered answers, CONNECT, SOCKS5 and
 * plain HTTP, and no question without a callback or under
 * strictAllowlist. Only loopback is used. */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proxies/ask.h"
#include "proxies/auth.h"
#include "proxies/proxy.h"
#include "proxies/rules.h"
#include "tests/helpers/netkit.h"
#include "tests/unit/tap.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

static char sock_path[300];
static char tmpdir[] = "/tmp/srt-ask-test.XXXXXX";
static int echo_port, other_port, http_port, dead_port;
static char auth_hdr[512];

/* ---- the in-test callback ------------------------------------------- */

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static struct {
	unsigned long long ticket;
	char host[256];
	int port;
} asked[64];
static int n_asked;
static atomic_int cb_rc; /* what the callback returns */

static int on_ask(void *ctx, const struct srt_ask_request *req)
{
	(void)ctx;
	pthread_mutex_lock(&qlock);
	if (n_asked < 64) {
		asked[n_asked].ticket = req->ticket;
		snprintf(asked[n_asked].host, sizeof(asked[0].host), "%s", req->host);
		asked[n_asked].port = req->port;
		n_asked++;
	}
	pthread_cond_broadcast(&qcond);
	pthread_mutex_unlock(&qlock);
	return atomic_load(&cb_rc);
}

/* Wait (5 s at most) for question number i; its ticket, or 0. */
static unsigned long long question(int i)
{
	struct timespec ts;
	unsigned long long t = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&qlock);
	while (n_asked <= i && pthread_cond_timedwait(&qcond, &qlock, &ts) == 0)
		;
	if (n_asked > i)
		t = asked[i].ticket;
	pthread_mutex_unlock(&qlock);
	return t;
}

static int questions(void)
{
	int n;

	pthread_mutex_lock(&qlock);
	n = n_asked;
	pthread_mutex_unlock(&qlock);
	return n;
}

/* ---- violations ------------------------------------------------------ */

static pthread_mutex_t vlock = PTHREAD_MUTEX_INITIALIZER;
static char vlines[64][600];
static int vn;

static void on_violation(void *ctx, const char *key, const char *line)
{
	(void)ctx;
	(void)key;
	pthread_mutex_lock(&vlock);
	if (vn < 64)
		snprintf(vlines[vn++], sizeof(vlines[0]), "%s", line);
	pthread_mutex_unlock(&vlock);
}

static bool violation_seen(const char *line)
{
	bool seen = false;

	pthread_mutex_lock(&vlock);
	for (int i = 0; i < vn; i++)
		if (!strcmp(vlines[i], line))
			seen = true;
	pthread_mutex_unlock(&vlock);
	return seen;
}

/* ---- servers and clients --------------------------------------------- */

static void *http_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char b[4096];
	size_t n = 0;
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n";

	while (n + 1 < sizeof(b)) {
		ssize_t r = read(fd, b + n, sizeof(b) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		b[n] = '\0';
		if (strstr(b, "\r\n\r\n"))
			break;
	}
	netkit_send_all(fd, resp, sizeof(resp) - 1);
	close(fd);
	return NULL;
}

static void *http_server(void *arg)
{
	netkit_serve_threads(*(int *)arg, http_conn, NULL);
	return NULL;
}

static int pconnect(void)
{
	struct timeval tv = { 10, 0 };
	int fd = netkit_unix_connect(sock_path);

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Read until marker (included), EOF or the receive timeout. */
static size_t recv_until(int fd, char *buf, size_t cap, const char *marker)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, 1);
		if (r <= 0)
			break;
		n++;
		buf[n] = '\0';
		if (marker && n >= strlen(marker) && !strcmp(buf + n - strlen(marker), marker))
			break;
	}
	buf[n] = '\0';
	return n;
}

/* Send a CONNECT; the head of the answer is read later. */
/* The allowed echo server by its address, anything else by the name
 * "localhost": an answer allows a name the way a wildcard entry does, and
 * the address guard lets such a name reach loopback only when it is a
 * localhost name. */
static int start_connect(int port)
{
	const char *host = port == echo_port ? "127.0.0.1" : "localhost";
	char req[1024];
	int fd = pconnect();

	snprintf(req, sizeof(req), "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n",
		 host, port, host, port, auth_hdr);
	netkit_send_all(fd, req, strlen(req));
	return fd;
}

static bool echo_roundtrip(int fd, const char *msg)
{
	char b[256];
	size_t n = strlen(msg);

	return netkit_send_all(fd, msg, n) == 0 && netkit_recv_n(fd, b, n) == n &&
	       memcmp(b, msg, n) == 0;
}

/* Nothing to read on fd within ms. */
static bool silent(int fd, int ms)
{
	struct pollfd pf = { fd, POLLIN, 0 };

	return poll(&pf, 1, ms) == 0;
}

static int socks_start(int port)
{
	char req[300];
	uint8_t r[16] = { 5, 1, 0, 3, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't' };
	int fd = pconnect();

	r[14] = (uint8_t)(port >> 8);
	r[15] = (uint8_t)port;
	netkit_send_all(fd, req, netkit_socks_open(req, TOKEN, r, sizeof(r)));
	return fd;
}

/* The SOCKS replies after the request: greeting (2), auth (2), the
 * CONNECT's (10); returns its REP field, or -1. */
static int socks_reply(int fd)
{
	uint8_t b[14];

	if (netkit_recv_n(fd, b, sizeof(b)) != sizeof(b))
		return -1;
	return b[5];
}

static struct srt__proxy *start_proxy(const char *dir, const char *name, struct srt__ask *a,
				      bool strict)
{
	struct srt__proxy_config cfg;
	struct srt__net_config s;
	struct srt_diag d;
	struct srt__proxy *p = NULL;
	char e[64];

	memset(&cfg, 0, sizeof(cfg));
	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	snprintf(e, sizeof(e), "127.0.0.1:%d", echo_port);
	srt__strv_push(&s.allowed_domains, e);
	s.strict_allowlist = strict;
	snprintf(sock_path, sizeof(sock_path), "%s/%s", dir, name);
	cfg.net = &s;
	cfg.socket_path = sock_path;
	cfg.token = TOKEN;
	cfg.on_violation = on_violation;
	cfg.ask = a;
	if (srt__proxy_new(&p, &cfg, &d) || srt__proxy_start(p, &d)) {
		printf("# proxy: %s\n", d.message);
		srt__proxy_free(p);
		p = NULL;
	}
	srt__strv_release(&s.allowed_domains);
	return p;
}

/* ---- tests ------------------------------------------------------------ */

static void test_sanitize(void)
{
	char out[SRT__ASK_REASON_CAP], big[2000];

	srt__ask_sanitize("not <approved>\nfor this session", out, sizeof(out));
	ok(!strcmp(out, "not approved for this session"), "reason: <> removed, newline to a space (%s)", out);
	srt__ask_sanitize("  a\x01\x02\x7f b \xe2\x80\x8b\xe2\x80\xae c  ", out, sizeof(out));
	ok(!strcmp(out, "a b c"), "control and invisible runs become one space, trimmed (%s)", out);
	srt__ask_sanitize("caf\xc3\xa9 \xff\xfe ok", out, sizeof(out));
	ok(!strcmp(out, "caf\xc3\xa9 ok"), "UTF-8 kept, malformed bytes dropped like controls (%s)", out);
	srt__ask_sanitize("\xe2\x80\x8b\n<>", out, sizeof(out));
	ok(!strcmp(out, "user denied"), "nothing left: user denied");
	srt__ask_sanitize(NULL, out, sizeof(out));
	ok(!strcmp(out, "user denied"), "no reason: user denied");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	srt__ask_sanitize(big, out, sizeof(out));
	ok(strlen(out) == SRT_ASK_REASON_MAX, "cut at %d characters (%zu)", SRT_ASK_REASON_MAX, strlen(out));
	for (size_t i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[sizeof(big) - 1] = '\0';
	srt__ask_sanitize(big, out, 64);
	ok(strlen(out) == 62, "a small buffer cuts between characters (%zu bytes)", strlen(out));
}

static void test_verdicts(void)
{
	struct srt__net_config s;
	struct srt__net_rules *r = NULL;
	char reason[200], *cmd[] = { "cmd.test" };

	memset(&s, 0, sizeof(s));
	srt__strv_push(&s.allowed_domains, "allowed.test");
	srt__strv_push(&s.denied_domains, "denied.test");
	if (srt__net_rules_new(&r, &s, NULL)) {
		ok(0, "rules");
		return;
	}
	ok(srt__net_rules_judge(r, "allowed.test", 443, NULL, 0, reason, sizeof(reason)) ==
	   SRT__VERDICT_ALLOW, "allowedDomains: allow");
	ok(srt__net_rules_judge(r, "denied.test", 443, NULL, 0, reason, sizeof(reason)) ==
	   SRT__VERDICT_DENY, "deniedDomains: deny");
	ok(srt__net_rules_judge(r, "other.test", 443, NULL, 0, reason, sizeof(reason)) ==
	   SRT__VERDICT_ASK && !strcmp(reason, "host is not on the allow list"),
	   "neither list: ask (the reason for nobody to ask)");
	ok(srt__net_rules_judge(r, "cmd.test", 443, cmd, 1, reason, sizeof(reason)) ==
	   SRT__VERDICT_ALLOW, "the command's list before asking");
	ok(!srt__net_rules_decide(r, "other.test", 443, NULL, 0, reason, sizeof(reason)),
	   "the plain decision still denies what would be asked");
	r->strict = true;
	ok(srt__net_rules_judge(r, "other.test", 443, NULL, 0, reason, sizeof(reason)) ==
	   SRT__VERDICT_DENY, "strictAllowlist: deny, never ask");
	srt__net_rules_free(r);
	srt__strv_release(&s.allowed_domains);
	srt__strv_release(&s.denied_domains);
}

static void ignore_done(void *ctx, uint64_t id, const struct srt__ask_result *res)
{
	(void)ctx;
	(void)id;
	(void)res;
}

/* The broker alone: open questions are bounded, cancelling frees room. */
static void test_open_max(void)
{
	struct srt__ask *a = NULL;
	uint64_t id = 0, first = 0;
	int rc = SRT_OK, i;

	if (srt__ask_new(on_ask, NULL, 0, &a) != SRT_OK) {
		ok(0, "a broker");
		return;
	}
	ok(srt__ask_timeout_ms(a) == SRT__ASK_TIMEOUT_MS, "timeout 0 means the default");
	for (i = 0; i < SRT__ASK_OPEN_MAX && rc == SRT_OK; i++) {
		rc = srt__ask_submit(a, "flood.test", "flood.test", 443, NULL, ignore_done, NULL, &id);
		if (i == 0)
			first = id;
	}
	ok(rc == SRT_OK && srt__ask_submit(a, "flood.test", "flood.test", 443, NULL, ignore_done,
					   NULL, &id) == SRT_E_LIMIT,
	   "%d questions open: the next one is refused", SRT__ASK_OPEN_MAX);
	srt__ask_cancel(a, first);
	ok(srt__ask_submit(a, "flood.test", "flood.test", 443, NULL, ignore_done, NULL, &id) ==
	   SRT_OK, "a cancelled question makes room");
	srt__ask_free(a);
	pthread_mutex_lock(&qlock);
	n_asked = 0; /* the flood's questions are not the proxy test's */
	pthread_mutex_unlock(&qlock);
}

static void test_proxy(const char *dir)
{
	struct srt__ask *a = NULL;
	struct srt__proxy *p;
	char resp[2048], want[300];
	unsigned long long t;
	int fd, fd2, base;

	ok(srt__ask_new(on_ask, NULL, 1500, &a) == SRT_OK, "a broker with a 1.5 s timeout");
	p = start_proxy(dir, "ask.sock", a, false);
	ok(p != NULL, "a proxy with the broker");
	if (!p)
		return;

	/* CONNECT to a host on neither list: parked, asked */
	fd = start_connect(other_port);
	t = question(0);
	ok(t != 0 && !strcmp(asked[0].host, "localhost") && asked[0].port == other_port,
	   "CONNECT to an unlisted host: the callback is asked with host and port");
	ok(silent(fd, 200), "the asking connection has no answer yet");
	/* meanwhile another connection goes all the way */
	fd2 = start_connect(echo_port);
	recv_until(fd2, resp, sizeof(resp), "\r\n\r\n");
	ok(!strncmp(resp, "HTTP/1.1 200 ", 13) && echo_roundtrip(fd2, "meanwhile"),
	   "a second connection completes while the first waits for its answer");
	close(fd2);
	ok(silent(fd, 0), "and the first is still waiting");
	ok(srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, 0) == SRT_OK, "answer: allow");
	recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
	ok(!strncmp(resp, "HTTP/1.1 200 ", 13) && echo_roundtrip(fd, "asked"),
	   "the allowed connection opens its tunnel (%.40s)", resp);
	close(fd);
	ok(srt__ask_answer(a, t, SRT_ASK_DENY, NULL, 0) == SRT_E_STATE,
	   "a second answer to the same ticket is refused");

	/* not remembered: asked again; deny with a reason */
	fd = start_connect(other_port);
	t = question(1);
	ok(t != 0, "without remember, the next connection is asked again");
	srt__ask_answer(a, t, SRT_ASK_DENY, "not <approved>\nfor this session", 0);
	recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
	ok(!strncmp(resp, "HTTP/1.1 403 not approved for this session\r\n", 44),
	   "deny with a reason: 403 with the sanitised reason (%.60s)", resp);
	close(fd);
	snprintf(want, sizeof(want), "deny network-outbound localhost:%d (not approved for this session)",
		 other_port);
	ok(violation_seen(want), "the violation carries the sanitised reason");

	/* SOCKS5, remembered */
	fd = socks_start(other_port);
	t = question(2);
	ok(t != 0, "SOCKS5 to an unlisted host is asked");
	srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, SRT_ASK_REMEMBER);
	ok(socks_reply(fd) == 0 && echo_roundtrip(fd, "socks"), "allowed: the SOCKS tunnel opens");
	close(fd);
	base = questions();
	fd = socks_start(other_port);
	ok(socks_reply(fd) == 0 && echo_roundtrip(fd, "again") && questions() == base,
	   "a remembered answer: the next connection is not asked");
	close(fd);
	fd = start_connect(other_port);
	recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
	ok(!strncmp(resp, "HTTP/1.1 200 ", 13) && questions() == base,
	   "remembered across protocols for the same host and port");
	close(fd);

	/* plain HTTP: asked, remembered denial */
	fd = pconnect();
	snprintf(resp, sizeof(resp), "GET http://localhost:%d/x HTTP/1.1\r\nHost: localhost:%d\r\n"
		 "Connection: close\r\n%s\r\n", http_port, http_port, auth_hdr);
	netkit_send_all(fd, resp, strlen(resp));
	t = question(base);
	ok(t != 0 && asked[base].port == http_port, "plain HTTP to an unlisted host is asked");
	srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, 0);
	recv_until(fd, resp, sizeof(resp), "hello\n");
	ok(!strncmp(resp, "HTTP/1.1 200 ", 13) && strstr(resp, "hello\n"),
	   "allowed: the request reaches the server");
	close(fd);
	fd = pconnect();
	snprintf(resp, sizeof(resp), "GET http://localhost:%d/y HTTP/1.1\r\nHost: localhost:%d\r\n"
		 "Connection: close\r\n%s\r\n", http_port, http_port, auth_hdr);
	netkit_send_all(fd, resp, strlen(resp));
	t = question(base + 1);
	srt__ask_answer(a, t, SRT_ASK_DENY, "", SRT_ASK_REMEMBER);
	recv_until(fd, resp, sizeof(resp), NULL);
	ok(!strncmp(resp, "HTTP/1.1 403 ", 13), "denied: 403");
	close(fd);
	snprintf(want, sizeof(want), "deny network-outbound localhost:%d (user denied)", http_port);
	ok(violation_seen(want), "an empty reason is recorded as user denied");
	base = questions();
	vn = 0;
	fd = pconnect();
	snprintf(resp, sizeof(resp), "GET http://localhost:%d/z HTTP/1.1\r\nHost: localhost:%d\r\n"
		 "Connection: close\r\n%s\r\n", http_port, http_port, auth_hdr);
	netkit_send_all(fd, resp, strlen(resp));
	recv_until(fd, resp, sizeof(resp), NULL);
	ok(!strncmp(resp, "HTTP/1.1 403 ", 13) && questions() == base && violation_seen(want),
	   "a remembered denial: refused without asking, recorded again");
	close(fd);

	/* a failing callback */
	atomic_store(&cb_rc, -1);
	fd = socks_start(dead_port);
	ok(socks_reply(fd) == 2, "a callback that fails: SOCKS refused");
	close(fd);
	snprintf(want, sizeof(want), "deny network-outbound localhost:%d (permission prompt failed)",
		 dead_port);
	ok(violation_seen(want), "recorded as permission prompt failed");
	atomic_store(&cb_rc, 0);

	/* no answer within the timeout */
	base = questions();
	fd = start_connect(dead_port);
	t = question(base);
	{
		time_t t0 = time(NULL);
		recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
		ok(!strncmp(resp, "HTTP/1.1 403 permission prompt timed out", 40) &&
		   time(NULL) - t0 <= 4, "no answer in time: 403 permission prompt timed out (%.50s)", resp);
	}
	close(fd);
	ok(srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, SRT_ASK_REMEMBER) == SRT_E_STATE,
	   "a late answer is refused");

	/* the client leaves while its question is out */
	base = questions();
	fd = start_connect(dead_port);
	t = question(base);
	close(fd);
	/* a parked connection reads nothing, so it sees the close at its
	 * deadline at the latest */
	usleep(2000 * 1000);
	ok(t && srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, 0) == SRT_E_STATE,
	   "a question whose client left is cancelled (by its deadline at the latest)");
	ok(srt__ask_answer(a, 999999, SRT_ASK_ALLOW, NULL, 0) == SRT_E_STATE &&
	   srt__ask_answer(a, t, 7, NULL, 0) == SRT_E_INVAL &&
	   srt__ask_answer(a, t, SRT_ASK_ALLOW, NULL, 0x10) == SRT_E_INVAL,
	   "unknown tickets, verdicts and flags are refused");
	srt__proxy_free(p);

	/* strictAllowlist: never asked */
	p = start_proxy(dir, "strict.sock", a, true);
	base = questions();
	fd = start_connect(other_port);
	recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
	ok(p && !strncmp(resp, "HTTP/1.1 403 host is not on the allow list", 42) &&
	   questions() == base, "strictAllowlist: denied without asking");
	close(fd);
	srt__proxy_free(p);
	srt__ask_free(a);

	/* no callback: the default denial */
	p = start_proxy(dir, "none.sock", NULL, false);
	fd = start_connect(other_port);
	recv_until(fd, resp, sizeof(resp), "\r\n\r\n");
	ok(p && !strncmp(resp, "HTTP/1.1 403 host is not on the allow list", 42),
	   "without a callback an unlisted host is denied as before");
	close(fd);
	srt__proxy_free(p);
}

/* Runs in the case's child (tap forks it): the servers' threads start here. */
static void case_ask(void)
{
	static int lfd_echo, lfd_other, lfd_http;
	char cred[300], b64[420];
	pthread_t th;
	int dead;

	lfd_echo = netkit_listen_tcp(&echo_port);
	lfd_other = netkit_listen_tcp(&other_port);
	lfd_http = netkit_listen_tcp(&http_port);
	dead = netkit_listen_tcp(&dead_port);
	if (lfd_echo < 0 || lfd_other < 0 || lfd_http < 0 || dead < 0) {
		ok(0, "loopback listeners");
		return;
	}
	close(dead); /* nothing listens there any more */
	pthread_create(&th, NULL, netkit_echo_server, &lfd_echo);
	pthread_create(&th, NULL, netkit_echo_server, &lfd_other);
	pthread_create(&th, NULL, http_server, &lfd_http);
	snprintf(cred, sizeof(cred), "srt:%s", TOKEN);
	srt__b64_encode((uint8_t *)cred, strlen(cred), b64, sizeof(b64));
	snprintf(auth_hdr, sizeof(auth_hdr), "Proxy-Authorization: Basic %s\r\n", b64);
	test_sanitize();
	test_verdicts();
	test_open_max();
	test_proxy(tmpdir);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(tmpdir))
		return 1;
	tap_case_timeout(case_ask, "case_ask", 60);
	rmdir(tmpdir);
	return tap_done();
}
