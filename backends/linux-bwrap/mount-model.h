/* linux-bwrap: the mount plan's model, shared by the files that build it:
 * one node per resolved rule path (its rule kinds, what exists there, the
 * mount decided for it) in a hash-indexed table, and the read/write state
 * the rules give any path. Private to the mount plan (mounts.c and the
 * mount-*.c files); the rest of the backend uses mounts.h. */
#ifndef SRT_BWRAP_MOUNT_MODEL_H
#define SRT_BWRAP_MOUNT_MODEL_H

#include <stddef.h>
#include <srt/error.h>
#include <srt/policy.h>

#include "common/strv.h"
#include "mount-resolve.h"
#include "mounts.h"

#define MAX_NODES 20000

/* K_DIR marks a deny whose name is a directory's (a protected directory:
 * .vscode, .idea, .husky): when it is missing, its placeholder is an empty
 * directory, so a host tool that makes it (an editor, husky install: a
 * recursive mkdir) finds one during the run instead of failing on a file */
enum { K_DR = 1, K_AR = 2, K_AW = 4, K_DW = 8, K_DIR = 16 };
enum mkind { M_NONE, M_RW, M_RO, M_TMPFS, M_NULL, M_PH_FILE, M_PH_DIR };

struct srt__mount_node {
	char *path;
	size_t depth;
	unsigned kinds;
	char *origin;
	int type;
	size_t missing_at; /* T_MISSING: length of the prefix that exists */
	int dflt;          /* only default write roots put it here */
	int forced;        /* placeholder mount kind, or M_NONE */
	int mount;         /* decided mount kind */
	long parent;       /* nearest mounted ancestor node, -1 = "/" */
	int has_kids;      /* some mounted node has this one as parent */
	int done;          /* already emitted while preparing a tmpfs */
	int skip;
};

struct srt__mount_ctx {
	const struct srt_policy *pol;
	struct srt__mount_plan *plan;
	struct srt_diag *diag;
	srt__plan_create_fn announce; /* told of each path before it is created */
	void *announce_ctx;
	struct srt__mount_node *v;
	size_t n, alloc;
	long *tab; /* open addressing: node index + 1, 0 = empty */
	size_t tab_size;
	struct srt__strv wroots; /* allowWrite spellings and targets */
	int root_rw;
	int err; /* set when srt__mount_node_get() fails */
	size_t budget;
	size_t hide_max; /* hidden files the helper may take (plan->hidden) */
};

/* The state the rules at p and above give p (see mount-model.c). */
struct srt__mount_state {
	int r, w;
};

/* Append up to three words (b and d may be NULL) to plan->words. */
int srt__mount_push3(struct srt__mount_ctx *c, const char *a, const char *b, const char *d);
/* Append one line to plan->notes. */
int srt__mount_note(struct srt__mount_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Is b the path a or below it? ("/" covers everything.) */
int srt__mount_covers(const char *a, const char *b);
/* The number of components of an absolute path ("/" is 0). */
size_t srt__mount_depth_of(const char *p);
/* Index of the node spelled by the first n bytes of p, or -1. */
long srt__mount_lookup(const struct srt__mount_ctx *c, const char *p, size_t n);
/* Find or add the node for an absolute, resolved path; -1 with c->err set
 * on failure. May move c->v. */
long srt__mount_node_get(struct srt__mount_ctx *c, const char *path);
/* The model of mount-model.c, from the rules at p and above. */
struct srt__mount_state srt__mount_state_of(const struct srt__mount_ctx *c, const char *p);

#endif
