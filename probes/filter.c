/* probes/filter.c: --filter expressions (filter.h): a recursive-descent
 * parser into a small tree of nodes, and its evaluation on a record.  Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/fetch.h"
#include "probes/filter.h"
#include "probes/filter_int.h"
#include "probes/record.h"

struct parser {
	const char *text, *at;
	const char *const *names;
	const struct fetch_type *types;
	unsigned int nargs;
	struct filter *f;
	struct ptap_err *err;
	int depth;
};

static int fail(struct parser *ps, const char *at, const char *msg)
{
	return ptap_err_set(ps->err, (int)(at - ps->text), -EINVAL, "%s", msg);
}

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->at))
		ps->at++;
}

/* Take TOK (and the blanks before it) when it comes next. */
static bool take(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(ps);
	if (strncmp(ps->at, tok, n))
		return false;
	ps->at += n;
	return true;
}

static int new_node(struct parser *ps, enum node_kind kind, int a, int b)
{
	struct filter *f = ps->f;

	if (f->n == FILTER_NODES)
		return ptap_err_set(ps->err, (int)(ps->at - ps->text), -EINVAL,
				    "more than %d comparisons and operators", FILTER_NODES);
	f->node[f->n] = (struct fnode){ .kind = (uint8_t)kind, .a = (int16_t)a, .b = (int16_t)b };
	return f->n++;
}

/* Whether S starts a name's next character (FIRST: its first: Go's ~r0, a *VAR). */
static bool name_char(const char *s, bool first)
{
	return isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.' || *s == '[' ||
	       *s == ']' || (s[0] == '-' && s[1] == '>') || (first && (*s == '~' || *s == '*'));
}

/* How a value of type T compares; -1: it cannot (a struct, a slice ...). */
static int type_class(const struct fetch_type *t)
{
	switch (t->kind) {
	case FT_STRING:
	case FT_USTRING:
	case FT_CHARS:
	case FT_STRN:
		return V_STR;
	case FT_FLOAT:
		return t->size == 4 || t->size == 8 ? V_FLOAT : -1;
	case FT_DEFAULT:
	case FT_SIGNED:
	case FT_UNSIGNED:
	case FT_HEX:
	case FT_SYMBOL:
	case FT_BITFIELD:
	case FT_BOOL:
	case FT_ENUM:
		return V_INT;
	default:
		return -1;
	}
}

/* The names a filter may use, for a message: "query_string, len (and pid, tid, comm)". */
static void list_names(const struct parser *ps, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < ps->nargs && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", ps->names[i]);

		if (w < 0)
			return;
		used += (size_t)w;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%spid, tid, comm", ps->nargs ? "; and " : "");
}

static int parse_field(struct parser *ps, struct fnode *nd)
{
	const char *start, *name;
	size_t len;
	char names[400];

	skip_space(ps);
	start = ps->at;
	while (name_char(ps->at, ps->at == start))
		ps->at += ps->at[0] == '-' ? 2 : 1;
	if (ps->at == start)
		return fail(ps, start, "expected an argument's name (or pid, tid, comm)");
	name = start;
	len = (size_t)(ps->at - start);
	if (len == 7 && !strncmp(name, "$retval", 7)) {
		name++;
		len--;
	}
	for (unsigned int i = 0; i < ps->nargs; i++) {
		int cls;

		if (strlen(ps->names[i]) != len || strncmp(ps->names[i], name, len))
			continue;
		cls = type_class(&ps->types[i]);
		if (cls < 0)
			return ptap_err_set(ps->err, (int)(start - ps->text), -EINVAL,
					    "'%.*s' is not a number or a string: filter on one "
					    "of its members (VAR->M, VAR.M) instead", (int)len, name);
		nd->field = (int)i;
		nd->cls = (uint8_t)cls;
		nd->tkind = ps->types[i].kind;
		nd->tsize = ps->types[i].size;
		nd->tflags = ps->types[i].flags;
		return 0;
	}
	if (len == 3 && !strncmp(name, "pid", 3)) {
		nd->field = F_PID;
		nd->cls = V_INT;
	} else if (len == 3 && !strncmp(name, "tid", 3)) {
		nd->field = F_TID;
		nd->cls = V_INT;
	} else if (len == 4 && !strncmp(name, "comm", 4)) {
		nd->field = F_COMM;
		nd->cls = V_STR;
	} else {
		list_names(ps, names, sizeof(names));
		return ptap_err_set(ps->err, (int)(start - ps->text), -EINVAL,
				    "no argument '%.*s' in this probe's records: it has %s", (int)len,
				    name, names);
	}
	return 0;
}

static int parse_op(struct parser *ps, struct fnode *nd)
{
	static const struct {
		const char *tok;
		enum cmp_op op;
	} ops[] = {	/* two-character ones first */
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "<", OP_LT }, { ">", OP_GT }, { "~", OP_GLOB },
	};

	skip_space(ps);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (take(ps, ops[i].tok)) {
			nd->op = (uint8_t)ops[i].op;
			return 0;
		}
	return fail(ps, ps->at, "expected a comparison: == != < <= > >= or ~ (a glob)");
}

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10);
}

/* A quoted string literal at ps->at into ND (its bytes in the filter's pool). */
static int parse_string(struct parser *ps, struct fnode *nd)
{
	struct filter *f = ps->f;
	const char *start = ps->at;
	char q = *ps->at++;
	size_t n = 0;

	nd->str = f->pool_used;
	for (;; ps->at++) {
		char c = *ps->at;

		if (!c)
			return fail(ps, start, "a string without its closing quote");
		if (c == q)
			break;
		if (c == '\\') {
			c = *++ps->at;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'x' && isxdigit((unsigned char)ps->at[1]) &&
				 isxdigit((unsigned char)ps->at[2])) {
				c = (char)(hexval(ps->at[1]) << 4 | hexval(ps->at[2]));
				ps->at += 2;
			} else if (c != '\\' && c != '"' && c != '\'') {
				return fail(ps, ps->at - 1, "unknown escape: use \\\" \\\\ \\n \\t or \\xNN");
			}
		}
		if (f->pool_used + n == FILTER_POOL)
			return ptap_err_set(ps->err, (int)(start - ps->text), -EINVAL,
					    "the strings of one filter are more than %d bytes",
					    FILTER_POOL);
		f->pool[f->pool_used + n++] = c;
	}
	ps->at++;
	nd->strlen = (uint32_t)n;
	f->pool_used += (uint32_t)n;
	return 0;
}

/*
 * A word for a number: true, false, or an enumerator of the field's enum
 * type (T).  0 with *V, or -1.
 */
static int number_word(const char *w, size_t len, const struct fetch_type *t, int64_t *v)
{
	if ((len == 4 && !strncmp(w, "true", 4)) || (len == 5 && !strncmp(w, "false", 5))) {
		*v = len == 4;
		return 0;
	}
	for (unsigned int i = 0; t && t->kind == FT_ENUM && t->desc && i < t->desc->n; i++)
		if (strlen(t->desc->enums[i].name) == len && !strncmp(t->desc->enums[i].name, w, len)) {
			*v = t->desc->enums[i].value;
			return 0;
		}
	return -1;
}

static int64_t fkey_of(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return filter_fkey(bits);
}

static int parse_number(struct parser *ps, struct fnode *nd)
{
	const char *start = ps->at;
	bool neg = *ps->at == '-';
	const char *digits = start + (neg || *start == '+');
	const struct fetch_type *t = nd->field >= 0 ? &ps->types[nd->field] : NULL;
	char *end;

	if (isalpha((unsigned char)*start) || *start == '_') {
		const char *w = start;
		int64_t v;

		while (isalnum((unsigned char)*ps->at) || *ps->at == '_')
			ps->at++;
		if (number_word(w, (size_t)(ps->at - w), t, &v) < 0)
			return fail(ps, w, t && t->kind == FT_ENUM ?
				    "not a number, true, false or a name of this enum" :
				    "expected a number (or true, false) or a quoted string");
		nd->num = v;
		nd->fkey = fkey_of((double)v);
		return 0;
	}
	if (!isdigit((unsigned char)*digits))
		return fail(ps, start, "expected a number or a quoted string");
	if (nd->cls == V_FLOAT) {
		double d = strtod(start, &end);

		if (t && t->size == 4)	/* as the field holds it: 0.1 is 0.1f's double */
			d = (double)(float)d;
		nd->fkey = fkey_of(d);
	} else {
		unsigned long long mag;
		bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');

		errno = 0;
		mag = strtoull(digits, &end, hex ? 16 : 10);	/* a leading 0 is no octal */
		if (errno == ERANGE)
			return fail(ps, start, "a number beyond 64 bits");
		if (*end == '.' || *end == 'e' || *end == 'E')
			return fail(ps, start, "a number with a point: this argument is an integer");
		nd->num = neg ? -(__int128)mag : (__int128)mag;
	}
	if (end == digits || isalnum((unsigned char)*end) || *end == '_')
		return fail(ps, start, "not a number");
	ps->at = end;
	return 0;
}

static int parse_or(struct parser *ps);

static int parse_cmp(struct parser *ps)
{
	int i = new_node(ps, N_CMP, -1, -1), r;
	struct fnode *nd;
	const char *lit;

	if (i < 0)
		return i;
	nd = &ps->f->node[i];
	r = parse_field(ps, nd);
	if (!r)
		r = parse_op(ps, nd);
	if (r)
		return r;
	skip_space(ps);
	lit = ps->at;
	if (nd->cls == V_STR) {
		if (*lit != '"' && *lit != '\'')
			return fail(ps, lit, "this argument is a string: compare it with a quoted string");
		r = parse_string(ps, nd);
	} else {
		if (nd->op == OP_GLOB)
			return fail(ps, lit, "~ matches strings; this argument is a number");
		if (*lit == '"' || *lit == '\'')
			return fail(ps, lit, "this argument is a number: compare it with a number");
		r = parse_number(ps, nd);
	}
	return r ? r : i;
}

static int parse_not(struct parser *ps)
{
	int i;

	if (++ps->depth > FILTER_DEPTH)
		return fail(ps, ps->at, "nested too deep");
	if (take(ps, "!")) {
		if (*ps->at == '=')
			return fail(ps, ps->at - 1, "expected an argument's name before !=");
		i = parse_not(ps);
		i = i < 0 ? i : new_node(ps, N_NOT, i, -1);
	} else if (take(ps, "(")) {
		i = parse_or(ps);
		if (i >= 0 && !take(ps, ")"))
			i = fail(ps, ps->at, "expected ')'");
	} else {
		i = parse_cmp(ps);
	}
	ps->depth--;
	return i;
}

/* OPERAND { TOK OPERAND }, left to right, into KIND nodes. */
static int parse_chain(struct parser *ps, const char *tok, enum node_kind kind,
		       int (*operand)(struct parser *))
{
	int i = operand(ps);

	while (i >= 0 && take(ps, tok)) {
		int j = operand(ps);

		i = j < 0 ? j : new_node(ps, kind, i, j);
	}
	return i;
}

static int parse_and(struct parser *ps)
{
	return parse_chain(ps, "&&", N_AND, parse_not);
}

static int parse_or(struct parser *ps)
{
	return parse_chain(ps, "||", N_OR, parse_and);
}

int filter__compile(const char *text, const char *const *names,
		    const struct fetch_type *types, unsigned int n, struct filter **out,
		    struct ptap_err *err)
{
	struct filter *f = calloc(1, sizeof(*f));
	struct parser ps = { .text = text, .at = text, .names = names, .types = types,
			     .nargs = n, .f = f, .err = err };
	int r;

	*out = NULL;
	if (!f)
		return ptap_err_set(err, -1, -ENOMEM, "out of memory");
	r = parse_or(&ps);
	skip_space(&ps);
	if (r >= 0 && *ps.at)
		r = fail(&ps, ps.at, *ps.at == '&' || *ps.at == '|' ? "expected && or ||" :
				     "expected && or || or the end");
	if (r < 0) {
		filter__free(f);
		return r;
	}
	f->root = r;
	*out = f;
	return 0;
}

void filter__free(struct filter *f)
{
	free(f);
}

size_t filter__size(void)
{
	return sizeof(struct filter);
}

bool filter__agent_ok(const struct filter *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->node[i].kind == N_CMP &&
		    (f->node[i].field == F_PID || f->node[i].field == F_COMM))
			return false;
	return true;
}

