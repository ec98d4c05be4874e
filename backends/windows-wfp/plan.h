/* windows-wfp: the policy as Windows objects, in pure C so it is built and
 * tested on any system.
 *
 * The filesystem rules become access control entries for the sandbox
 * account (whose SID is known only on the machine, so the plan names it by
 * a placeholder the module resolves): allowRead -> read and execute,
 * allowWrite -> modify without FILE_DELETE_CHILD, denyRead/denyWrite -> deny
 * entries, plus a FILE_DELETE_CHILD deny on the parent so a denied name can
 * be neither removed nor renamed away, and the mandatory write denies (the
 * protected names of common/protected.h found in the write roots). Globs
 * are expanded against the filesystem the caller hands in; a glob whose
 * fixed part is a drive or filesystem root is refused.
 *
 * The network rule becomes Windows Filtering Platform filters at
 * ALE_AUTH_CONNECT_V4 and _V6, all conditioned on the sandbox account:
 * permit loopback to the proxy's port range (heaviest), with
 * allowLocalBinding permit the rest of loopback except port 1, and block
 * everything else (lightest). WFP evaluates a sublayer's filters by
 * weight, so the permits win over the block only where they match. */
#ifndef SRT_WINDOWS_WFP_PLAN_H
#define SRT_WINDOWS_WFP_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <srt/error.h>
#include <srt/policy.h>

/* Access rights (winnt.h values; repeated so the plan builds anywhere). */
#define SRT__W_READ_DATA        0x00000001u
#define SRT__W_WRITE_DATA       0x00000002u
#define SRT__W_APPEND_DATA      0x00000004u
#define SRT__W_READ_EA          0x00000008u
#define SRT__W_WRITE_EA         0x00000010u
#define SRT__W_EXECUTE          0x00000020u
#define SRT__W_DELETE_CHILD     0x00000040u
#define SRT__W_READ_ATTRIBUTES  0x00000080u
#define SRT__W_WRITE_ATTRIBUTES 0x00000100u
#define SRT__W_DELETE           0x00010000u
#define SRT__W_READ_CONTROL     0x00020000u
#define SRT__W_WRITE_DAC        0x00040000u
#define SRT__W_WRITE_OWNER      0x00080000u
#define SRT__W_SYNCHRONIZE      0x00100000u

/* READ + EXECUTE, as Explorer's "Read & execute". */
#define SRT__W_MASK_READ 0x001200a9u
/* MODIFY: read, write, execute, delete itself; never FILE_DELETE_CHILD. */
#define SRT__W_MASK_MODIFY 0x001301bfu
/* What a deny-read refuses: data, extended attributes, execute/traverse.
 * Attributes stay readable (a stat sees the name, as on the other
 * backends); SYNCHRONIZE is never denied (waits would break). */
#define SRT__W_MASK_DENY_READ 0x00000029u
/* What a deny-write refuses: data, append (add subdirectory), extended
 * attributes, attributes, delete, the DACL and the owner. */
#define SRT__W_MASK_DENY_WRITE 0x000d0116u

/* Inheritance flags (ACE header flags). */
#define SRT__W_OBJECT_INHERIT    0x1u
#define SRT__W_CONTAINER_INHERIT 0x2u

/* The placeholders for SIDs only the machine knows. */
#define SRT__W_SID_USER  "<sandbox-user>"

/* What the plan needs to know about names. */
enum srt__winfs_kind {
	SRT__WINFS_MISSING = 0,
	SRT__WINFS_FILE,
	SRT__WINFS_DIR,
	SRT__WINFS_LINK, /* symbolic link, junction or other reparse point: never followed */
};

typedef int (*srt__winfs_entry_fn)(void *c, const char *name, enum srt__winfs_kind kind);

/* The filesystem as the plan sees it. Paths are absolute, '/'-separated
 * (a Windows path as "C:/Users/x"). list() calls fn once per entry (not
 * "." or "..") and returns 0, or -1 when the directory cannot be read; a
 * non-zero fn return stops it and is returned. */
struct srt__winfs {
	enum srt__winfs_kind (*kind)(void *ctx, const char *path);
	int (*list)(void *ctx, const char *dir, srt__winfs_entry_fn fn, void *c);
	void *ctx;
};

enum srt__win_ace_type { SRT__W_ALLOW, SRT__W_DENY };

struct srt__win_ace {
	char *path;
	enum srt__win_ace_type type;
	uint32_t mask;
	uint32_t inherit; /* SRT__W_*_INHERIT, 0 for a file or "this folder only" */
	int keep;         /* a persistent write grant: left in place at teardown */
	char *why;        /* the rule it comes from: "filesystem.allowWrite[0]", "mandatory .bashrc" */
};

enum srt__wfp_layer { SRT__WFP_CONNECT_V4, SRT__WFP_CONNECT_V6 };

struct srt__wfp_filter {
	enum srt__wfp_layer layer;
	int permit;           /* 1 permit, 0 block */
	uint8_t weight;       /* 0..15 inside the sublayer */
	int loopback;         /* condition: remote address is loopback */
	int port_lo, port_hi; /* condition: remote port in [lo, hi]; 0: any */
	int port_not;         /* condition: remote port != port_not; 0: none */
	const char *name;
};

struct srt__winplan_opts {
	const char *user;          /* sandbox account, default "srt-sandbox" */
	const char *group;         /* its group, default "sandbox-runtime-users" */
	int port_lo, port_hi;      /* proxy port range, default 60080-60089 */
	int allow_loopback;        /* permit all loopback except port 1 */
	size_t budget;             /* directory entries the walks may visit; 0: 20000 */
};

struct srt__winplan {
	char user[64], group[64];
	int port_lo, port_hi;
	struct srt__win_ace *aces;
	size_t n_aces, alloc_aces;
	struct srt__wfp_filter filters[8];
	size_t n_filters;
	char **notes; /* what the plan could not express, one line each */
	size_t n_notes, alloc_notes;
};

/* Build the plan for pol. On failure (a glob that would walk a whole
 * disk, a walk that ran out of budget on a deny rule, no memory) the plan
 * is freed and diag names the rule. */
int srt__winplan_build(const struct srt_policy *pol, const struct srt__winplan_opts *o,
		       const struct srt__winfs *fs, struct srt__winplan *out,
		       struct srt_diag *diag);
void srt__winplan_free(struct srt__winplan *p);

/* Does a run's windows.proxyPortRange [lo, hi] (0, 0: the default
 * 60080-60089) lie inside the range the installed WFP filters permit
 * [ilo, ihi] (0, 0: install recorded none)? Outside, the command could not
 * reach its proxy, and the filters would open to it loopback ports that
 * are not the run's proxy: SRT_E_UNAVAILABLE, diag naming both ranges and
 * the fix. */
int srt__winplan_check_installed_ports(int lo, int hi, int ilo, int ihi, struct srt_diag *diag);

/* Every object, one per line, in the order they are created. */
void srt__winplan_print(const struct srt__winplan *p, FILE *out);

/* The glob grammar of the filesystem rules (the same as on Linux: "?",
 * "*" within a component, "**" across them, "**" + "/" any run of whole
 * directories, "[set]" with ranges); 1 when the whole of path matches. */
int srt__winglob_match(const char *pat, const char *path);

#endif
