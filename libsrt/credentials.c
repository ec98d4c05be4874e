/* credentials at the sandbox's creation: the core reads what is to be
 * masked (the variables from srt's own environment, the files), the
 * credentials module (common/credmask.h) decides what the sandbox sees
 * instead and returns its filter's configuration (sentinels and real
 * values), and that filter goes first in the chain, so it sees every
 * request whichever filter decides. The real values stay in srt's memory:
 * the request and the configuration are wiped once handed over, nothing
 * of them is written to a file. PCRE2 lives in the module only. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/credmask.h"
#include "common/fdio.h"
#include "common/platform.h"
#include "credentials.h"
#include "loader.h"
#include "paths.h"
#include "policy-build.h"
#include "proxies/filter-chain.h"

#define CRED_FILE_MAX (1u << 20) /* a credential file larger is refused */

/* The module's body-rewriting hook lies inside the size it declared. */
#define FILTER_HAS_REWRITE(vt) \
	(offsetof(struct srt_filter, rewrite_body) + sizeof((vt)->rewrite_body) <= (vt)->hdr.size && \
	 (vt)->rewrite_body != NULL)

static void wipe_free(char *s)
{
	if (!s)
		return;
	srt__os_wipe(s, strlen(s));
	free(s);
}

/* allowedDomains without their ":port": the default injectHosts. */
static cJSON *default_hosts(const struct srt__settings *s)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < s->allowed_domains.n; i++) {
		char h[300];
		char *colon;

		snprintf(h, sizeof(h), "%s", s->allowed_domains.v[i]);
		colon = strrchr(h, ':');
		if (colon && h[0] != '[' && strspn(colon + 1, "0123456789") == strlen(colon + 1))
			*colon = '\0';
		else if (h[0] == '[' && (colon = strstr(h, "]:")))
			colon[1] = '\0';
		cJSON_AddItemToArray(a, cJSON_CreateString(h));
	}
	return a;
}

static cJSON *strv_json(const struct srt__strv *v)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < v->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->v[i]));
	return a;
}

/* The whole file, NUL-terminated, or NULL (*why says why: missing files
 * are skipped, as the reference does). */
static char *read_cred_file(const char *path, const char **why)
{
	struct stat st;
	char *buf;
	ssize_t n = 0;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	*why = NULL;
	if (fd < 0) {
		*why = errno == ENOENT ? NULL : "cannot be read";
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CRED_FILE_MAX) {
		*why = "is not a regular file of at most 1 MiB";
		close(fd);
		return NULL;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		*why = "cannot be read (out of memory)";
		close(fd);
		return NULL;
	}
	/* all of it or nothing: a part (or none) read would mask too little,
	 * and an empty value shows the file as it is; the caller denies it */
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		*why = n < 0 ? "cannot be read (a read failed)" : "changed while srt read it";
		wipe_free(buf);
		return NULL;
	}
	buf[got] = '\0';
	if (strlen(buf) != got) {
		*why = "holds NUL bytes (not text)";
		wipe_free(buf);
		return NULL;
	}
	return buf;
}

static cJSON *entry_json(const struct srt__settings *s, const struct srt__credential *c,
			 const char *kind, const char *label, const char *value, bool present)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, !strcmp(kind, "env") ? "name" : "path", label);
	cJSON_AddStringToObject(o, "mode", c->mask ? "mask" : "deny");
	cJSON_AddBoolToObject(o, "present", present);
	if (value)
		cJSON_AddStringToObject(o, "value", value);
	if (c->extract)
		cJSON_AddStringToObject(o, "extract", c->extract);
	if (c->on_extract_no_match)
		cJSON_AddStringToObject(o, "onExtractNoMatch", c->on_extract_no_match);
	if (c->decode_jwt)
		cJSON_AddStringToObject(o, "decode", "jwt");
	if (c->has_mask_claims)
		cJSON_AddItemToObject(o, "maskClaims", strv_json(&c->mask_claims));
	cJSON_AddBoolToObject(o, "maskDuplicates", c->mask_duplicates);
	cJSON_AddItemToObject(o, "injectHosts",
			      c->has_inject_hosts ? strv_json(&c->inject_hosts) : default_hosts(s));
	return o;
}

static cJSON *build_request(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const struct srt__settings *s = &sb->settings;
	cJSON *req = cJSON_CreateObject(), *entries, *aws, *sig;
	size_t i;

	if (!req || !(entries = cJSON_AddArrayToObject(req, "entries")))
		goto nomem;
	cJSON_AddNumberToObject(req, "version", SRT__CREDMASK_VERSION);
	for (i = 0; i < s->n_cred_env_vars; i++) {
		const struct srt__credential *c = &s->cred_env_vars[i];
		const char *v = getenv(c->name);

		cJSON_AddItemToArray(entries, entry_json(s, c, "env", c->name, c->mask ? v : NULL,
							 v != NULL));
	}
	for (i = 0; i < s->n_cred_files; i++) {
		const struct srt__credential *c = &s->cred_files[i];
		char *path = NULL, *content = NULL;
		const char *why = NULL;

		if (srt__path_normalize(c->path, sb->cwd, getenv("HOME"), &path, NULL) || !path)
			path = strdup(c->path);
		if (!path)
			goto nomem;
		if (c->mask) {
			content = read_cred_file(path, &why);
			if (why)
				srt__sandbox_log(sb, 0, "credentials.files[%zu]: %s %s; it is denied to the sandbox instead",
						 i, path, why);
		}
		cJSON_AddItemToArray(entries, entry_json(s, c, "file", path, content, content != NULL));
		/* a masked file that cannot be read is denied, never shown */
		if (why) {
			cJSON *last = cJSON_GetArrayItem(entries, cJSON_GetArraySize(entries) - 1);

			cJSON_ReplaceItemInObject(last, "mode", cJSON_CreateString("deny"));
		}
		wipe_free(content);
		free(path);
	}
	cJSON_AddBoolToObject(req, "allowPlaintextInject", s->cred_allow_plaintext_inject);
	aws = cJSON_AddArrayToObject(req, "awsPairs");
	for (i = 0; aws && i < s->n_aws_pairs; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "accessKeyIdVar", s->aws_pairs[i].access_key_id_var);
		cJSON_AddStringToObject(o, "secretAccessKeyVar", s->aws_pairs[i].secret_access_key_var);
		if (s->aws_pairs[i].session_token_var)
			cJSON_AddStringToObject(o, "sessionTokenVar", s->aws_pairs[i].session_token_var);
		cJSON_AddItemToArray(aws, o);
	}
	sig = cJSON_AddObjectToObject(req, "sigv4");
	cJSON_AddStringToObject(sig, "streaming", s->sigv4_streaming ? s->sigv4_streaming : "deny");
	cJSON_AddStringToObject(sig, "presigned", s->sigv4_presigned ? s->sigv4_presigned : "deny");
	cJSON_AddStringToObject(sig, "sigv4a", s->sigv4_sigv4a ? s->sigv4_sigv4a : "deny");
	return req;
nomem:
	cJSON_Delete(req);
	srt_diag_set(diag, SRT_E_NOMEM, "credentials", "credentials: out of memory");
	return NULL;
}

static int push_deny(struct srt__settings *s, const char *path)
{
	struct srt__path_entries *pe = &s->cred_deny_read;
	struct srt__path_entry *nv = realloc(pe->v, (pe->n + 1) * sizeof(*nv));

	if (!nv)
		return SRT_E_NOMEM;
	pe->v = nv;
	if (!(nv[pe->n].path = strdup(path)))
		return SRT_E_NOMEM;
	nv[pe->n].literal = false;
	pe->n++;
	return SRT_OK;
}

/* A masked file: its real path (normalised, links resolved, as the
 * backend mounts there), what the command sees and the entry's name. */
static int push_masked(struct srt_sandbox *sb, const char *raw, const char *data, const char *key)
{
	char *path = NULL, real[PATH_MAX];
	int rc;

	if (srt__path_normalize(raw, sb->cwd, getenv("HOME"), &path, NULL) || !path)
		path = strdup(raw);
	if (!path)
		return SRT_E_NOMEM;
	rc = srt__strv_push(&sb->cred_mask_path, realpath(path, real) ? real : path);
	free(path);
	if (!rc)
		rc = srt__strv_push(&sb->cred_mask_data, data);
	if (!rc)
		rc = srt__strv_push(&sb->cred_mask_origin, key);
	return rc;
}

/* One result: what the sandbox sees of entry i. */
static int apply_result(struct srt_sandbox *sb, size_t i, const cJSON *res, struct srt_diag *diag)
{
	struct srt__settings *s = &sb->settings;
	const char *action = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "action"));
	const char *value = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "value"));
	bool env = i < s->n_cred_env_vars;
	const struct srt__credential *c = env ? &s->cred_env_vars[i] : &s->cred_files[i - s->n_cred_env_vars];
	char key[64];
	int rc = SRT_OK;

	snprintf(key, sizeof(key), env ? "credentials.envVars[%zu]" : "credentials.files[%zu]",
		 env ? i : i - s->n_cred_env_vars);
	if (!action)
		return srt_diag_set(diag, SRT_E_MODULE, key, "%s: the credentials module gave no answer", key);
	if (!strcmp(action, "keep"))
		return SRT_OK;
	if (env && !strcmp(action, "unset"))
		rc = srt__strv_push(&sb->cred_unset, c->name);
	else if (env && !strcmp(action, "set") && value) {
		char *kv = NULL;

		if (asprintf(&kv, "%s=%s", c->name, value) < 0)
			return srt_diag_set(diag, SRT_E_NOMEM, key, "%s: out of memory", key);
		rc = srt__strv_push(&sb->cred_env, kv);
		free(kv);
	} else if (!env && !strcmp(action, "deny")) {
		rc = push_deny(s, c->path);
	} else if (!env && !strcmp(action, "set") && value) {
		/* shown as a copy at the file's real path once the backend
		 * is known (srt__sandbox_masked_files) */
		rc = push_masked(sb, c->path, value, key);
	} else {
		return srt_diag_set(diag, SRT_E_MODULE, key, "%s: the credentials module answered \"%s\"",
				    key, action);
	}
	if (rc)
		return srt_diag_set(diag, rc, key, "%s: out of memory", key);
	return SRT_OK;
}

static int apply_answer(struct srt_sandbox *sb, const cJSON *ans, char **filter_cfg,
			struct srt_diag *diag)
{
	const struct srt__settings *s = &sb->settings;
	const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ans, "error"));
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(ans, "results");
	const cJSON *warnings = cJSON_GetObjectItemCaseSensitive(ans, "warnings"), *w;
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(ans, "filterConfig");
	size_t i;
	int rc;

	if (err)
		return srt_diag_set(diag, SRT_E_SETTINGS, "credentials", "%s", err);
	if (!cJSON_IsArray(results) || !cJSON_IsObject(cfg) ||
	    (size_t)cJSON_GetArraySize(results) != s->n_cred_env_vars + s->n_cred_files)
		return srt_diag_set(diag, SRT_E_MODULE, "credentials",
				    "credentials: the credentials module answered something this srt does not understand (reinstall srt and its modules from one build)");
	cJSON_ArrayForEach(w, warnings)
		if (cJSON_IsString(w))
			srt__sandbox_log(sb, 0, "%s", w->valuestring);
	for (i = 0; i < s->n_cred_env_vars + s->n_cred_files; i++)
		if ((rc = apply_result(sb, i, cJSON_GetArrayItem(results, (int)i), diag)))
			return rc;
	if (!(*filter_cfg = cJSON_PrintUnformatted(cfg)))
		return srt_diag_set(diag, SRT_E_NOMEM, "credentials", "credentials: out of memory");
	return SRT_OK;
}

/* Free a cJSON tree that held real values, wiping its strings first. */
static void wipe_json(cJSON *j)
{
	cJSON *c;

	if (!j)
		return;
	if (cJSON_IsString(j) && j->valuestring)
		srt__os_wipe(j->valuestring, strlen(j->valuestring));
	for (c = j->child; c; c = c->next)
		wipe_json(c);
}

int srt__sandbox_load_credentials(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const struct srt_filter *vt;
	struct srt_filter_error ferr;
	struct srt__module *m = NULL;
	struct srt_diag ld;
	srt__credmask_fn fn;
	cJSON *req, *ans = NULL;
	char *text = NULL, *answer = NULL, *cfg = NULL;
	int rc;

	if (!sb->settings.has_credentials)
		return SRT_OK;
	if (sb->settings.fs_disabled && sb->settings.n_cred_files)
		return srt_diag_set(diag, SRT_E_SETTINGS, "credentials.files",
				    "credentials.files cannot be enforced with filesystem.disabled (no filesystem rules at all); remove one of them");
	memset(&ld, 0, sizeof(ld));
	rc = srt__module_load_filter("credentials", &m, &vt, &ld);
	if (rc)
		return srt_diag_set(diag, rc, "credentials",
				    "credentials: the credentials module cannot be loaded: %s (install srt-filter-credentials)",
				    ld.message);
	sb->filter_modules[sb->n_filter_modules++] = m;
	fn = (srt__credmask_fn)srt__module_symbol(m, SRT__CREDMASK_SYMBOL);
	if (!fn || !FILTER_HAS_REWRITE(vt))
		return srt_diag_set(diag, SRT_E_MODULE, "credentials",
				    "credentials: %s is not srt's credentials module (it lacks the masking entry point or the body hook)",
				    srt__module_path(m));
	if (!(req = build_request(sb, diag)))
		return SRT_E_NOMEM;
	text = cJSON_PrintUnformatted(req);
	wipe_json(req);
	cJSON_Delete(req);
	if (!text)
		return srt_diag_set(diag, SRT_E_NOMEM, "credentials", "credentials: out of memory");
	answer = fn(text);
	wipe_free(text);
	if (!answer || !(ans = cJSON_Parse(answer))) {
		rc = srt_diag_set(diag, answer ? SRT_E_MODULE : SRT_E_NOMEM, "credentials",
				  "credentials: the credentials module failed to mask the credentials");
		goto out;
	}
	if ((rc = apply_answer(sb, ans, &cfg, diag)))
		goto out;
	memset(&ferr, 0, sizeof(ferr));
	rc = srt__filter_chain_add(sb->filters, vt, "credentials", cfg, &ferr);
	if (rc)
		rc = srt_diag_set(diag, rc, "credentials", "credentials: the credentials filter refused its configuration: %s",
				  ferr.message);
out:
	wipe_free(answer);
	wipe_free(cfg);
	wipe_json(ans);
	cJSON_Delete(ans);
	return rc;
}

/* The copy of masked file i: written whole, then read-only. */
static int write_copy(int dfd, size_t i, const char *data, struct srt_diag *diag)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "masked-%zu", i);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd < 0)
		return srt_diag_set(diag, SRT_E_IO, "credentials.files",
				    "credentials.files: cannot write the masked copy in srt's private directory: %s",
				    strerror(errno));
	if (srt__write_full(fd, data, strlen(data))) {
		int e = errno;

		close(fd);
		return srt_diag_set(diag, SRT_E_IO, "credentials.files",
				    "credentials.files: cannot write the masked copy in srt's private directory: %s",
				    strerror(e));
	}
	close(fd);
	return SRT_OK;
}

static int write_copies(struct srt_sandbox *sb, struct srt_diag *diag)
{
	char *dir = NULL;
	size_t i;
	int dfd, rc = SRT_OK;

	if (asprintf(&dir, "%s/masked", sb->proxy_dir) < 0)
		return srt_diag_set(diag, SRT_E_NOMEM, "credentials.files", "out of memory");
	if (mkdir(dir, 0700) != 0 ||
	    (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = srt_diag_set(diag, SRT_E_IO, "credentials.files",
				  "credentials.files: cannot create %s for the masked copies: %s",
				  dir, strerror(errno));
		free(dir);
		return rc;
	}
	sb->cred_mask_dir = dir;
	for (i = 0; !rc && i < sb->cred_mask_data.n; i++)
		rc = write_copy(dfd, i, sb->cred_mask_data.v[i], diag);
	close(dfd);
	return rc;
}

int srt__sandbox_masked_files(struct srt_sandbox *sb, struct srt_policy *pol,
			      struct srt_diag *diag)
{
	size_t i, n = sb->cred_mask_path.n;
	int rc;

	if (!n)
		return SRT_OK;
	if (!(sb->be->caps & SRT_CAP_MASKED_FILES) || sb->be->hdr.abi_minor < 6 || !sb->proxy_dir) {
		/* fail closed: no copy, no real content either */
		for (i = 0, rc = SRT_OK; !rc && i < n; i++) {
			srt__sandbox_log(sb, 0, "%s: backend \"%s\" cannot show the masked copy of %s inside the sandbox (use --backend=linux-bwrap); the file is denied to the sandbox instead",
					 sb->cred_mask_origin.v[i], sb->be->hdr.name, sb->cred_mask_path.v[i]);
			rc = srt__policy_deny_read_path(pol, sb->cred_mask_path.v[i],
							sb->cred_mask_origin.v[i], diag);
		}
		return rc;
	}
	if (!sb->cred_mask_dir && (rc = write_copies(sb, diag)))
		return rc;
	if (!(pol->masked_files = calloc(n, sizeof(*pol->masked_files))) ||
	    !(pol->masked_dir = strdup(sb->cred_mask_dir)))
		return srt_diag_set(diag, SRT_E_NOMEM, "credentials.files", "out of memory");
	for (i = 0; i < n; i++) {
		struct srt_masked_file *f = &pol->masked_files[pol->n_masked_files];

		f->path = strdup(sb->cred_mask_path.v[i]);
		f->origin = strdup(sb->cred_mask_origin.v[i]);
		if (asprintf(&f->source, "%s/masked-%zu", sb->cred_mask_dir, i) < 0)
			f->source = NULL;
		pol->n_masked_files++;
		if (!f->path || !f->origin || !f->source)
			return srt_diag_set(diag, SRT_E_NOMEM, "credentials.files", "out of memory");
	}
	return SRT_OK;
}

void srt__credentials_free(struct srt_sandbox *sb)
{
	size_t i;

	if (sb->cred_mask_dir) {
		for (i = 0; i < sb->cred_mask_data.n; i++) {
			char name[PATH_MAX];

			snprintf(name, sizeof(name), "%s/masked-%zu", sb->cred_mask_dir, i);
			unlink(name);
		}
		rmdir(sb->cred_mask_dir);
		free(sb->cred_mask_dir);
		sb->cred_mask_dir = NULL;
	}
	srt__strv_release(&sb->cred_mask_path);
	srt__strv_release(&sb->cred_mask_data);
	srt__strv_release(&sb->cred_mask_origin);
}

void srt__credentials_env_drop(const struct srt_sandbox *sb, char **env)
{
	size_t i, j, w = 0;

	if (!env || !sb->cred_unset.n)
		return;
	for (i = 0; env[i]; i++) {
		bool drop = false;

		for (j = 0; j < sb->cred_unset.n && !drop; j++) {
			size_t l = strlen(sb->cred_unset.v[j]);

			drop = !strncmp(env[i], sb->cred_unset.v[j], l) && env[i][l] == '=';
		}
		if (drop)
			free(env[i]);
		else
			env[w++] = env[i];
	}
	env[w] = NULL;
}
