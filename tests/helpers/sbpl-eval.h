/* An evaluator of Seatbelt (SBPL) profiles for tests: reads a profile and
 * answers whether an operation on a path is allowed, with Seatbelt's
 * rules: the last rule that matches decides; a rule matches when the
 * operation is one of its operations (a name ending in "*" covers every
 * operation it starts, "default" every one) and any of its filters
 * matches (a rule without filters matches everything). Filters: subpath,
 * literal, prefix, regex and path-regex (POSIX extended), require-all,
 * require-any, require-not, vnode-type; any other filter (Mach names,
 * sockets, sysctls) matches no file operation. No match at all: denied. */
#ifndef SRT_TEST_SBPL_EVAL_H
#define SRT_TEST_SBPL_EVAL_H

struct sbpl_profile;

/* Parse text; NULL with a message in err on a syntax error. */
struct sbpl_profile *sbpl_parse(const char *text, char *err, int errlen);
void sbpl_free(struct sbpl_profile *p);

/* 1 allowed, 0 denied. vnode: "REGULAR-FILE", "DIRECTORY", ... */
int sbpl_allows(const struct sbpl_profile *p, const char *op, const char *path,
		const char *vnode);

/* The number of rules read (for the tests of the evaluator itself). */
int sbpl_rules(const struct sbpl_profile *p);

#endif
