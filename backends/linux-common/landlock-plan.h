/* linux-landlock: the policy compiled into a Landlock rule plan.
 *
 * Landlock only grants: every handled right is refused unless a rule on an
 * ancestor (or the object itself) allows it. srt's model has denies inside
 * allowed regions (denyRead in the readable world, denyWrite and the
 * mandatory denies inside write roots), so the planner expands each such
 * region into its complement: walking from the allowed root down to the
 * denied path, it grants the right on every sibling along the way and on
 * none of the directories on the path itself. Consequences, printed by
 * --explain: the directories on such a path cannot be listed (reads) or
 * gain/lose entries (writes), and entries that appear there after planning
 * are not covered. A rule the planner cannot express (a directory it must
 * list but cannot, a denied file with other hard links, a write glob, too
 * many rules) is a refusal naming the rule; the plan is never weakened.
 *
 * The planning runs in srt (the parent); the exec helper only replays the
 * rules, so it stays small. The plan travels to the helper in a memfd as
 * NUL-terminated records:
 *
 *   "srt-landlock-plan 1"
 *   "abi N"            Landlock ABI the plan needs at least
 *   "fs HEX"           handled filesystem rights (0: no filesystem ruleset)
 *   "net HEX"          handled network rights
 *   "scope HEX"        scoped IPC (ABI 6)
 *   "seccomp HEX"      SRT_SECCOMP_* flags for the shared filter
 *   "inet-block N"     1: sockets of any family but AF_UNIX are refused
 *   "meta-block N"     1: chown and xattr changes are refused
 *   "stdio HEX"        rights on a regular-file stdout/stderr
 *   "rule HEX DEV INO PATH"   one grant; the helper checks dev/ino
 *   "end"
 */
#ifndef SRT_LANDLOCK_PLAN_H
#define SRT_LANDLOCK_PLAN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <srt/error.h>
#include <srt/policy.h>

#define SRT_LL_PLAN_MAGIC "srt-landlock-plan 1"
#define SRT_LL_PLAN_MAX_BYTES (32u * 1024 * 1024)
#define SRT_LL_MAX_RULES 50000

struct srt__ll_rule {
	char *path;      /* real path of the object the rule is attached to */
	uint64_t access; /* granted rights, limited to what the object can carry */
	uint64_t dev, ino;
	int is_dir;
	char *why;       /* the policy entry it came from */
};

struct srt__ll_plan {
	int abi;
	uint64_t handled_fs; /* 0: no filesystem ruleset (filesystem.disabled) */
	uint64_t handled_net;
	uint64_t scoped;
	unsigned seccomp_flags;
	int block_inet;
	int block_meta;
	uint64_t stdio_access;
	struct srt__ll_rule *rules;
	size_t n_rules, alloc_rules;
	char **notes; /* one line per decision worth explaining */
	size_t n_notes, alloc_notes;
};

struct srt__ll_plan_limits {
	size_t max_rules;   /* 0: SRT_LL_MAX_RULES */
	size_t scan_budget; /* directory entries the deny globs may visit, and
			     * apart from them the mandatory-deny scan; 0: default */
	int private_dev;    /* the plan is applied where /dev is the sandbox's
			     * own (linux-bwrap's layer): its /dev/pts holds
			     * only the command's terminals. Otherwise /dev/pts
			     * is the host's, and only the caller's own terminal
			     * in it is granted. */
};

/* The refusals that depend only on pol and the ABI (no filesystem access):
 * the proxy, allowAllUnixSockets before ABI 6, filesystem rules before
 * ABI 3. */
int srt__ll_plan_check(const struct srt_policy *pol, int abi, struct srt_diag *diag);

/* The protected names of $HOME (the ~/ ones, and ~/.bashrc and the
 * like as they lie in $HOME) are held by name at their own path (the write
 * supervisor matches them below $HOME only): refuse when another mount
 * of a directory that holds one (a bind of ~/.config, or of $HOME's
 * parent) shows it at a second path in one of pol's write roots (red
 * team: a bind of ~/.config in the write root added a systemd user
 * unit). Reads /proc/self/mountinfo; SRT_OK, or the refusal in diag. */
int srt__ll_check_protected_mounts(const struct srt_policy *pol, struct srt_diag *diag);

/* Where the allow rule p really is, for a grant: 0 with out set when p
 * resolves without following a symbolic link a sandboxed command could
 * have planted (one in a directory this user can write or owns, or in a
 * write root of pol), and a second look lands at the same place; 1 when
 * it goes through such a link or moved between the looks (a link flipped
 * meanwhile: the grant is left out, which fails closed); -1 when it
 * cannot be resolved. With st, also the status of the object at out then,
 * reached without following any link (out has none; one found there now,
 * the object gone, or a look that fails is 1: a caller that falls back to
 * another way of granting on -1 must not grant it): a grant keyed on its
 * device and inode is the object checked, never one a later flip of a
 * directory on the way leads to. */
int srt__ll_allow_real(const struct srt_policy *pol, const char *p, char out[PATH_MAX],
		       struct stat *st);
/* Compile pol for Landlock ABI abi (>= 1) into plan (caller's memory,
 * zeroed by the call). limits may be NULL. On failure plan is released and
 * diag names the rule that could not be enforced. */
int srt__ll_plan_build(const struct srt_policy *pol, int abi,
		       const struct srt__ll_plan_limits *limits,
		       struct srt__ll_plan *plan, struct srt_diag *diag);
void srt__ll_plan_release(struct srt__ll_plan *plan);

/* The rule granted on exactly path, or NULL. */
const struct srt__ll_rule *srt__ll_plan_find(const struct srt__ll_plan *plan, const char *path);

/* Serialise plan into a malloc'd buffer in the format above. */
int srt__ll_plan_serialize(const struct srt__ll_plan *plan, char **buf, size_t *len);

/* The serialised plan's records: each one printf-formatted and ended by its
 * NUL, the buffer growing up to SRT_LL_PLAN_MAX_BYTES (then SRT_E_LIMIT).
 * Exposed so linux-bwrap's layer can append records of its own. */
struct srt__ll_buf {
	char *p;
	size_t len, cap;
};
int srt__ll_rec(struct srt__ll_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Short names of the rights in access ("read-file,read-dir,..."). */
void srt__ll_access_names(uint64_t access, char *out, size_t outlen);

#endif
