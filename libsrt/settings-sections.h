/* The settings schema: a document tree validated into struct
 * srt__settings. Both front ends (settings-json.c, settings-yaml.c) end
 * here, so a file gives identical settings and identical errors in either
 * spelling. */
#ifndef SRT_SETTINGS_SECTIONS_H
#define SRT_SETTINGS_SECTIONS_H

#include <srt/error.h>

#include "settings.h"
#include "settings-node.h"

/* Validate a parsed document into s (freshly initialised); the contract of
 * srt__settings_parse_json() from the document on. root (borrowed) may be
 * NULL: an empty document. */
int srt__settings_from_snode(struct srt__settings *s, const struct srt__snode *root,
			     const char *origin, struct srt_diag *diag);

#endif
