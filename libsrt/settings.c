/* The settings struct's lifecycle: the built-in defaults and freeing
 * what parsing filled in. Parsing lives in settings-json.c and
 * settings-yaml.c, validation in settings-sections.c, files in
 * settings-file.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "settings.h"

void srt__settings_init(struct srt__settings *s)
{
	memset(s, 0, sizeof(*s));
	s->mandatory_deny_search_depth = 3;
	s->tls_max_tunnels = 256;
	s->tls_handshake_timeout_ms = 10000;
}

void srt__path_entries_release(struct srt__path_entries *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static void credential_release(struct srt__credential *cr)
{
	free(cr->path);
	free(cr->name);
	free(cr->extract);
	free(cr->on_extract_no_match);
	srt__strv_release(&cr->mask_claims);
	srt__strv_release(&cr->inject_hosts);
}

void srt__settings_release(struct srt__settings *s)
{
	size_t i;

	if (!s)
		return;
	srt__strv_release(&s->allowed_domains);
	srt__strv_release(&s->denied_domains);
	for (i = 0; i < s->n_denied_domain_reasons; i++) {
		free(s->denied_domain_reasons[i].key);
		free(s->denied_domain_reasons[i].value);
	}
	free(s->denied_domain_reasons);
	srt__strv_release(&s->denied_resolved_addresses);
	srt__strv_release(&s->allow_unix_sockets);
	srt__strv_release(&s->allow_mach_lookup);
	free(s->mitm_socket_path);
	srt__strv_release(&s->mitm_domains);
	free(s->parent_http);
	free(s->parent_https);
	free(s->parent_no_proxy);
	srt__strv_release(&s->strip_response_headers);
	free(s->ambiguous_request_target);
	free(s->private_addresses);
	free(s->intercept);
	free(s->tls_ca_cert_path);
	free(s->tls_ca_key_path);
	srt__strv_release(&s->tls_exclude_domains);
	srt__strv_release(&s->tls_extra_ca_cert_paths);
	srt__path_entries_release(&s->deny_read);
	srt__path_entries_release(&s->cred_deny_read);
	srt__path_entries_release(&s->allow_read);
	srt__path_entries_release(&s->allow_write);
	srt__strv_release(&s->allow_protected_names);
	srt__path_entries_release(&s->deny_write);
	srt__strv_release(&s->allow_caches);
	for (i = 0; i < s->n_ignore_violations; i++) {
		free(s->ignore_violations[i].command_pattern);
		srt__strv_release(&s->ignore_violations[i].lines);
	}
	free(s->ignore_violations);
	free(s->bwrap_path);
	srt__strv_release(&s->git_safe_directories);
	srt__strv_release(&s->ignored_keys);
	srt__strv_release(&s->warnings);
	for (i = 0; i < s->n_filters; i++) {
		free(s->filters[i].plugin);
		free(s->filters[i].config_json);
	}
	free(s->filters);
	for (i = 0; i < s->n_cred_files; i++)
		credential_release(&s->cred_files[i]);
	free(s->cred_files);
	for (i = 0; i < s->n_cred_env_vars; i++)
		credential_release(&s->cred_env_vars[i]);
	free(s->cred_env_vars);
	for (i = 0; i < s->n_aws_pairs; i++) {
		free(s->aws_pairs[i].access_key_id_var);
		free(s->aws_pairs[i].secret_access_key_var);
		free(s->aws_pairs[i].session_token_var);
	}
	free(s->aws_pairs);
	free(s->sigv4_streaming);
	free(s->sigv4_presigned);
	free(s->sigv4_sigv4a);
	srt__settings_init(s);
}
