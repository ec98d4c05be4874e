/* The SBPL evaluator for tests (sbpl-eval.h). */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl-eval.h"

enum kind { ATOM, STR, LIST };

struct node {
	enum kind kind;
	char *text;          /* ATOM, STR */
	struct node **kids;  /* LIST */
	int n;
	regex_t *re;         /* compiled regex of a (regex ...) STR, lazily */
};

struct sbpl_profile {
	struct node **rules; /* (allow|deny ...) lists, in order */
	int n;
	struct node *top;
};

struct parser {
	const char *s;
	char *err;
	int errlen;
};

static void node_free(struct node *x)
{
	int i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++)
		node_free(x->kids[i]);
	free(x->kids);
	free(x->text);
	if (x->re) {
		regfree(x->re);
		free(x->re);
	}
	free(x);
}

static void skip(struct parser *p)
{
	for (;;) {
		while (isspace((unsigned char)*p->s))
			p->s++;
		if (*p->s != ';')
			return;
		while (*p->s && *p->s != '\n')
			p->s++;
	}
}

static struct node *parse_node(struct parser *p);

static struct node *parse_string(struct parser *p, int raw)
{
	struct node *x = calloc(1, sizeof(*x));
	size_t cap = 64, n = 0;
	char *t = malloc(cap);

	x->kind = STR;
	p->s++; /* the quote */
	while (*p->s && *p->s != '"') {
		char c = *p->s++;

		if (c == '\\' && !raw) {
			c = *p->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned v = 0;
				sscanf(p->s, "%4x", &v);
				p->s += 4;
				c = (char)v;
				break;
			}
			default: break; /* '"', '\\', '/' stand for themselves */
			}
		}
		if (n + 2 > cap)
			t = realloc(t, cap *= 2);
		t[n++] = c;
	}
	if (*p->s != '"') {
		snprintf(p->err, p->errlen, "unterminated string");
		free(t);
		free(x);
		return NULL;
	}
	p->s++;
	t[n] = '\0';
	x->text = t;
	return x;
}

static struct node *parse_list(struct parser *p)
{
	struct node *x = calloc(1, sizeof(*x));

	x->kind = LIST;
	p->s++;
	for (;;) {
		struct node *k;

		skip(p);
		if (*p->s == ')') {
			p->s++;
			return x;
		}
		if (!*p->s) {
			snprintf(p->err, p->errlen, "unbalanced parentheses");
			node_free(x);
			return NULL;
		}
		k = parse_node(p);
		if (!k) {
			node_free(x);
			return NULL;
		}
		x->kids = realloc(x->kids, (size_t)(x->n + 1) * sizeof(*x->kids));
		x->kids[x->n++] = k;
	}
}

static struct node *parse_node(struct parser *p)
{
	struct node *x;
	const char *b;

	skip(p);
	if (*p->s == '(')
		return parse_list(p);
	if (*p->s == '"')
		return parse_string(p, 0);
	if (p->s[0] == '#' && p->s[1] == '"') {
		p->s++;
		return parse_string(p, 1);
	}
	b = p->s;
	while (*p->s && !isspace((unsigned char)*p->s) && *p->s != '(' && *p->s != ')')
		p->s++;
	if (p->s == b) {
		snprintf(p->err, p->errlen, "unexpected '%c'", *p->s);
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	x->kind = ATOM;
	x->text = strndup(b, (size_t)(p->s - b));
	return x;
}

struct sbpl_profile *sbpl_parse(const char *text, char *err, int errlen)
{
	struct parser p = { text, err, errlen };
	struct sbpl_profile *prof = calloc(1, sizeof(*prof));

	prof->top = calloc(1, sizeof(*prof->top));
	prof->top->kind = LIST;
	for (;;) {
		struct node *x;

		skip(&p);
		if (!*p.s)
			break;
		x = parse_node(&p);
		if (!x) {
			sbpl_free(prof);
			return NULL;
		}
		prof->top->kids = realloc(prof->top->kids, (size_t)(prof->top->n + 1) * sizeof(x));
		prof->top->kids[prof->top->n++] = x;
		if (x->kind == LIST && x->n >= 2 && x->kids[0]->kind == ATOM &&
		    (!strcmp(x->kids[0]->text, "allow") || !strcmp(x->kids[0]->text, "deny"))) {
			prof->rules = realloc(prof->rules, (size_t)(prof->n + 1) * sizeof(x));
			prof->rules[prof->n++] = x;
		}
	}
	return prof;
}

void sbpl_free(struct sbpl_profile *p)
{
	if (!p)
		return;
	node_free(p->top);
	free(p->rules);
	free(p);
}

int sbpl_rules(const struct sbpl_profile *p)
{
	return p->n;
}

static int op_covers(const char *rule_op, const char *op)
{
	size_t n = strlen(rule_op);

	if (!strcmp(rule_op, "default"))
		return 1;
	if (n && rule_op[n - 1] == '*')
		return !strncmp(rule_op, op, n - 1);
	return !strcmp(rule_op, op);
}

static int under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return p[0] == '/';
	return !strncmp(p, dir, n) && (p[n] == '\0' || p[n] == '/');
}

static int filter_matches(struct node *f, const char *path, const char *vnode)
{
	const char *name;
	int i;

	if (f->kind != LIST || !f->n || f->kids[0]->kind != ATOM)
		return 0;
	name = f->kids[0]->text;
	if (!strcmp(name, "require-all")) {
		for (i = 1; i < f->n; i++)
			if (!filter_matches(f->kids[i], path, vnode))
				return 0;
		return 1;
	}
	if (!strcmp(name, "require-any")) {
		for (i = 1; i < f->n; i++)
			if (filter_matches(f->kids[i], path, vnode))
				return 1;
		return 0;
	}
	if (!strcmp(name, "require-not"))
		return f->n == 2 && !filter_matches(f->kids[1], path, vnode);
	if (f->n != 2 || f->kids[1]->kind == LIST)
		return 0;
	if (!strcmp(name, "vnode-type"))
		return !strcmp(f->kids[1]->text, vnode);
	if (!strcmp(name, "subpath"))
		return under(path, f->kids[1]->text);
	if (!strcmp(name, "literal"))
		return !strcmp(path, f->kids[1]->text);
	if (!strcmp(name, "prefix"))
		return !strncmp(path, f->kids[1]->text, strlen(f->kids[1]->text));
	if (!strcmp(name, "regex") || !strcmp(name, "path-regex")) {
		struct node *s = f->kids[1];

		if (!s->re) {
			s->re = calloc(1, sizeof(*s->re));
			if (regcomp(s->re, s->text, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "sbpl-eval: bad regex %s\n", s->text);
				abort();
			}
		}
		return regexec(s->re, path, 0, NULL, 0) == 0;
	}
	return 0; /* global-name, local ip, sysctl-name, ...: not a file filter */
}

static int rule_matches(struct node *r, const char *op, const char *path, const char *vnode)
{
	int i, ops = 0, filters = 0;

	for (i = 1; i < r->n; i++) {
		struct node *k = r->kids[i];

		if (k->kind == ATOM) {
			ops |= op_covers(k->text, op);
			continue;
		}
		if (k->kind == LIST && k->n && k->kids[0]->kind == ATOM &&
		    !strcmp(k->kids[0]->text, "with"))
			continue;
		if (filters == 0)
			filters = -1; /* has filters, none matched yet */
		if (filter_matches(k, path, vnode))
			filters = 1;
	}
	return ops && filters >= 0;
}

int sbpl_allows(const struct sbpl_profile *p, const char *op, const char *path,
		const char *vnode)
{
	int i;

	for (i = p->n - 1; i >= 0; i--)
		if (rule_matches(p->rules[i], op, path, vnode))
			return !strcmp(p->rules[i]->kids[0]->text, "allow");
	return 0;
}
