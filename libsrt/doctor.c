/* srt doctor: every backend module found, its ABI, every layer it needs,
 * what works, what does not, and the narrowest fix for each. */
#include "config.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/srt.h>
#include <srt/backend.h>

#include "backend-call.h"
#include "backend-choice.h"
#include "loader.h"

struct report_ctx {
	FILE *out;
	cJSON *layers; /* JSON mode */
	int failed;
};

static void report(void *vctx, const char *layer, int works, const char *detail,
		   const char *fix)
{
	struct report_ctx *c = vctx;

	if (!works)
		c->failed++;
	if (c->layers) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "layer", layer);
		cJSON_AddBoolToObject(o, "works", works);
		cJSON_AddStringToObject(o, "detail", detail ? detail : "");
		if (fix)
			cJSON_AddStringToObject(o, "fix", fix);
		cJSON_AddItemToArray(c->layers, o);
		return;
	}
	fprintf(c->out, "  [%s] %s: %s\n", works ? " ok " : "FAIL", layer, detail ? detail : "");
	if (!works && fix)
		fprintf(c->out, "         fix: %s\n", fix);
}

/* Inspect one module; returns 1 when it can run here. */
static int inspect(const char *spec, FILE *out, cJSON *arr, char *name_out, size_t name_len)
{
	struct srt__module *m = NULL;
	const struct srt_backend *be = NULL;
	struct srt_diag d;
	struct srt_policy pol;
	struct report_ctx rc;
	cJSON *o = NULL;
	int runs = 0;

	memset(&d, 0, sizeof(d));
	memset(&rc, 0, sizeof(rc));
	rc.out = out;
	if (arr) {
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "module", spec);
	}
	if (srt__module_load_backend(spec, &m, &be, &d) != SRT_OK) {
		if (o) {
			cJSON_AddBoolToObject(o, "loads", 0);
			cJSON_AddStringToObject(o, "error", d.message);
			cJSON_AddBoolToObject(o, "runs", 0);
		} else {
			fprintf(out, "module %s\n  [FAIL] loader: %s\n", spec, d.message);
		}
		return 0;
	}
	if (o) {
		char abi[32];
		snprintf(abi, sizeof(abi), "%u.%u", be->hdr.abi_major, be->hdr.abi_minor);
		cJSON_AddBoolToObject(o, "loads", 1);
		cJSON_AddStringToObject(o, "name", be->hdr.name);
		cJSON_AddStringToObject(o, "path", srt__module_path(m));
		cJSON_AddStringToObject(o, "abi", abi);
		rc.layers = cJSON_AddArrayToObject(o, "layers");
	} else {
		fprintf(out, "backend %s (%s, ABI %u.%u)\n", be->hdr.name, srt__module_path(m),
			be->hdr.abi_major, be->hdr.abi_minor);
	}
	/* a backend without it reports no layer, only whether it runs */
	(void)srt__backend_diagnose(be, report, &rc);
	memset(&pol, 0, sizeof(pol));
	pol.mandatory_deny_depth = 3;
	memset(&d, 0, sizeof(d));
	runs = be->probe(&pol, &d) == SRT_OK;
	if (o) {
		cJSON_AddBoolToObject(o, "runs", runs);
		if (!runs)
			cJSON_AddStringToObject(o, "diagnosis", d.message);
	} else {
		fprintf(out, "  => %s\n", runs ? "can run here" : "cannot run here");
		if (!runs)
			fprintf(out, "     %s\n", d.message);
	}
	if (runs && name_out && !*name_out)
		snprintf(name_out, name_len, "%s", be->hdr.name);
	srt__module_free(m);
	return runs;
}

/* Is file (a module's file name, "linux_bwrap.so") one of the automatic
 * order's, which were inspected first? */
static int in_auto_order(const char *file)
{
	const char *name;
	size_t i, j;

	for (i = 0; (name = srt__auto_backend(i)); i++) {
		for (j = 0; name[j] && (file[j] == name[j] || (name[j] == '-' && file[j] == '_')); j++)
			;
		if (!name[j] && !strcmp(file + j, ".so"))
			return 1;
	}
	return 0;
}

int srt_doctor(const char *backend, FILE *out, int json)
{
	cJSON *root = NULL, *arr = NULL;
	char chosen[64] = "";
	int any = 0;

	if (json) {
		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "version", PACKAGE_VERSION);
		cJSON_AddStringToObject(root, "moduleDirectory", srt__backend_dir());
		arr = cJSON_AddArrayToObject(root, "backends");
	} else {
		fprintf(out, "srt %s doctor (modules in %s)\n", PACKAGE_VERSION, srt__backend_dir());
	}
	if (backend) {
		any = inspect(backend, out, arr, chosen, sizeof(chosen));
	} else {
		/* the automatic order first, then anything else installed */
		const char *name;
		DIR *dir;
		size_t i;

		for (i = 0; (name = srt__auto_backend(i)); i++)
			any |= inspect(name, out, arr, chosen, sizeof(chosen));
		/* an untrusted SRT_BACKEND_DIR was reported by the lookups above */
		dir = srt__backend_dir_check(NULL) == SRT_OK ? opendir(srt__backend_dir()) : NULL;
		if (dir) {
			struct dirent *e;
			while ((e = readdir(dir))) {
				char path[PATH_MAX];
				size_t l = strlen(e->d_name);
				if (l < 4 || strcmp(e->d_name + l - 3, ".so") || in_auto_order(e->d_name))
					continue;
				snprintf(path, sizeof(path), "%s/%s", srt__backend_dir(), e->d_name);
				any |= inspect(path, out, arr, chosen, sizeof(chosen));
			}
			closedir(dir);
		}
	}
	if (json) {
		char *s;
		if (any)
			cJSON_AddStringToObject(root, "chosen", chosen);
		else
			cJSON_AddNullToObject(root, "chosen");
		s = cJSON_Print(root);
		if (s)
			fprintf(out, "%s\n", s);
		free(s);
		cJSON_Delete(root);
	} else if (any) {
		fprintf(out, "srt will use: %s\n", chosen);
	} else {
		fprintf(out, "no backend can run here: srt refuses to run commands until one of the fixes above is applied\n");
	}
	return any ? 0 : 1;
}
