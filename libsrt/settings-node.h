/* The settings document tree: a parsed document, the same for JSON and
 * YAML, so both front ends (settings-json.c, settings-yaml.c) hand one
 * shape to the validator (settings-sections.c) and a file means the same
 * thing, and fails with the same message, in either spelling. */
#ifndef SRT_SETTINGS_NODE_H
#define SRT_SETTINGS_NODE_H

#include <stdbool.h>
#include <stddef.h>

enum srt__snode_type {
	SRT_SNODE_NULL,
	SRT_SNODE_BOOL,
	SRT_SNODE_NUMBER,
	SRT_SNODE_STRING,
	SRT_SNODE_ARRAY,
	SRT_SNODE_OBJECT,
};

struct srt__snode {
	enum srt__snode_type type;
	bool boolean;
	double number;
	char *string;               /* SRT_SNODE_STRING (NUL-free) */
	char *key;                  /* set when this node is an object member */
	struct srt__snode *child;   /* ARRAY/OBJECT: first element or member */
	struct srt__snode *last;    /* ARRAY/OBJECT: last, for appending */
	struct srt__snode *next;    /* next sibling */
	size_t n_children;
};

/* Allocate a node (NULL on ENOMEM). */
struct srt__snode *srt__snode_new(enum srt__snode_type type);
/* Free a node and everything below it; NULL is a no-op. */
void srt__snode_free(struct srt__snode *n);
/* Append child (ownership moves to parent; child->key already set for an
 * object member). */
void srt__snode_append(struct srt__snode *parent, struct srt__snode *child);
/* The first member of obj named key, or NULL; borrowed from obj. */
const struct srt__snode *srt__snode_member(const struct srt__snode *obj, const char *key);

/* The shortest "%g" spelling of v that reads back as the same double. */
void srt__snode_format_number(char *out, size_t cap, double v);

/* n re-serialised as compact JSON into *out (the caller frees it).
 * Returns SRT_OK or SRT_E_NOMEM (then *out is untouched). */
int srt__snode_to_json(const struct srt__snode *n, char **out);

#endif
