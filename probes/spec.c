/* probes/spec.c: parse and synthesize probe specs (perf probe's syntax).
 * Owns struct probe_spec and everything it points to.  Pure: never prints;
 * errors are returned with the byte column of the offending token. */

/*
 * <Syntax>
 * PROBE  := [[GROUP:]EVENT=]POINT [ARG ...]      (ARGs separated by whitespace)
 * POINT  := FUNC[@SRC][+OFF|:RELLINE|%return]    (suffixes in any order)
 *         | SRC:LINE                             (SRC contains '/', or ends in a
 *                                                 source file's extension: .c .go ...)
 *         | 0xADDR
 * FUNC   := a C identifier, or a glob of one (*, ?, [...]); or a name as C++,
 *           Rust and Go write it (ns::Db::query, ns::Db::query(int),
 *           ns::twice<int>, operator new, <app::Account as core::fmt::Display>::fmt,
 *           main.(*Server).Serve), maybe a glob: '::' is part of it, and spaces
 *           and anything else inside <...>, (...) and {...}
 * ARG    := [NAME=]EXPR[:TYPE]
 * EXPR   := %REG                                 (register name, checked later)
 *         | $argN | $retval | $params | $vars    (1 <= N <= 64)
 *         | +OFF(EXPR) | -OFF(EXPR)              (load at EXPR+OFF)
 *         | @SYMBOL | @SYMBOL+OFF | @SYMBOL-OFF
 *         | *...VAR{->MEMBER | .MEMBER | [INDEX]}  (DWARF variable; *a->b is *(a->b))
 *         | NUMBER                               (an immediate; may have a sign)
 * TYPE   := s8|s16|s32|s64|u8|u16|u32|u64|x8|x16|x32|x64|string|ustring|symbol
 *         | bBITS@OFF/SIZE
 * NUMBER := decimal | 0x hex;  LINE, RELLINE, N := decimal >= 1
 *
 * Semantic rules (each one message, -EINVAL): +OFF with :LINE; %return with
 * +OFF or :LINE; SRC without :LINE; $retval outside a %return probe; two
 * arguments recorded under the same name.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/spec.h"

#define ARGN_MAX	64
#define EXPR_DEPTH_MAX	16

/* A parse in progress: the whole text, for columns, and the error sink. */
struct parser {
	const char *text;
	struct ptap_err *err;
	bool retprobe;		/* the point is FUNC%return ($retval allowed) */
};

static int perr(const struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(const struct parser *ps, const char *at, const char *fmt, ...)
{
	char msg[sizeof(((struct ptap_err *)0)->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ptap_err_set(ps->err, (int)(at - ps->text), -EINVAL, "%s", msg);
}

static int enomem(const struct parser *ps)
{
	return ptap_err_set(ps->err, -1, -ENOMEM, "out of memory");
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* [S, E) is a C identifier. */
static bool is_ident(const char *s, const char *e)
{
	if (s == e || !is_ident_start(*s))
		return false;
	while (++s < e)
		if (!is_ident_char(*s))
			return false;
	return true;
}

static bool all_digits(const char *s, const char *e)
{
	for (; s < e; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static const char *skip_ident(const char *p, const char *end)
{
	while (p < end && is_ident_char(*p))
		p++;
	return p;
}

static const char *find_char(const char *s, const char *e, char c)
{
	const char *p = memchr(s, c, e - s);

	return p ? p : e;
}

/*
 * Parse a decimal or 0x-hex number at *PP (before END) into *V, advancing
 * *PP.  0; -EINVAL when there are no digits; -ERANGE on overflow.
 */
static int parse_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	unsigned int base = 10;
	uint64_t x = 0;
	int ndig = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	for (; p < end; p++, ndig++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (tolower((unsigned char)*p) - 'a') + 10;
		else
			break;
		if (x > (UINT64_MAX - d) / base)
			return -ERANGE;
		x = x * base + d;
	}
	if (!ndig)
		return -EINVAL;
	*pp = p;
	*v = x;
	return 0;
}

/* A number that must fit LIMIT; the error names WHAT. */
static int parse_bounded(const struct parser *ps, const char **pp, const char *end,
			 uint64_t limit, const char *what, uint64_t *v)
{
	const char *at = *pp;
	int ret = parse_u64(pp, end, v);

	if (ret == -EINVAL)
		return perr(ps, at, "%s expected", what);
	if (ret < 0 || *v > limit)
		return perr(ps, at, "%s out of range", what);
	return 0;
}

static char *dup_range(const char *s, const char *e)
{
	return strndup(s, e - s);
}

/* ---- expressions ------------------------------------------------------- */

struct expr_parser {
	const struct parser *ps;
	const char *p, *end;
	int depth;
	int ret;		/* the error, once one happened */
};

static void expr_free(struct arg_expr *e)
{
	if (!e)
		return;
	expr_free(e->inner);
	for (int i = 0; i < e->nchain; i++)
		free(e->chain[i].member);
	free(e->chain);
	free(e->name);
	free(e->file);
	free(e);
}

static struct arg_expr *expr_new(struct expr_parser *ep, enum arg_kind kind, const char *at)
{
	struct arg_expr *e = calloc(1, sizeof(*e));

	if (!e) {
		ep->ret = enomem(ep->ps);
		return NULL;
	}
	e->kind = kind;
	e->pos = (int)(at - ep->ps->text);
	return e;
}

static struct arg_expr *expr_fail(struct expr_parser *ep, struct arg_expr *e, int ret)
{
	expr_free(e);
	ep->ret = ret;
	return NULL;
}

/* Give E the name [S, P); NULL on ENOMEM. */
static struct arg_expr *expr_name(struct expr_parser *ep, struct arg_expr *e, const char *s)
{
	e->name = dup_range(s, ep->p);
	return e->name ? e : expr_fail(ep, e, enomem(ep->ps));
}

static struct arg_expr *parse_expr(struct expr_parser *ep);

/* %REG */
static struct arg_expr *parse_reg(struct expr_parser *ep)
{
	const char *at = ep->p++;
	const char *s = ep->p;
	struct arg_expr *e;

	ep->p = skip_ident(s, ep->end);
	if (ep->p == s)
		return expr_fail(ep, NULL, perr(ep->ps, at, "register name expected after '%%'"));
	e = expr_new(ep, ARG_REG, at);
	return e ? expr_name(ep, e, s) : NULL;
}

/* ~rN: a Go function's result N, as Go's DWARF names its unnamed results (N 0: $retval) */
static struct arg_expr *parse_go_result(struct expr_parser *ep)
{
	const char *at = ep->p, *d = at + 2, *e = skip_ident(at + 1, ep->end);
	uint64_t n;
	struct arg_expr *x;

	ep->p = e;
	if (e - at < 3 || at[1] != 'r' || !all_digits(d, e) || parse_u64(&d, e, &n) || n > 63)
		return expr_fail(ep, NULL, perr(ep->ps, at, "unknown variable '%.*s' (a Go result "
						"is ~r0, ~r1, ...)", (int)(e - at), at));
	if (!ep->ps->retprobe)
		return expr_fail(ep, NULL, perr(ep->ps, at, "%.*s, a Go result, is only available in a "
						"FUNC%%return probe", (int)(e - at), at));
	x = expr_new(ep, ARG_RETVAL, at);
	if (x) {
		x->n = (long)n;
		x->name = dup_range(at, e);
		if (!x->name)
			return expr_fail(ep, x, enomem(ep->ps));
	}
	return x;
}

/* $argN, $retval, $params, $vars */
static struct arg_expr *parse_dollar(struct expr_parser *ep)
{
	const char *at = ep->p;
	const char *s = at + 1;
	const char *e = skip_ident(s, ep->end);
	size_t n = e - s;
	const char *digits;
	struct arg_expr *x;
	uint64_t argn;

	ep->p = e;
	if (n == 6 && !memcmp(s, "retval", 6)) {
		if (!ep->ps->retprobe)
			return expr_fail(ep, NULL, perr(ep->ps, at,
				"$retval is only available in a FUNC%%return probe"));
		return expr_new(ep, ARG_RETVAL, at);
	}
	if (n == 6 && !memcmp(s, "params", 6))
		return expr_new(ep, ARG_PARAMS, at);
	if (n == 4 && !memcmp(s, "vars", 4))
		return expr_new(ep, ARG_VARS, at);
	digits = s + 3;
	if (n < 4 || memcmp(s, "arg", 3) || !all_digits(digits, e) ||
	    parse_u64(&digits, e, &argn))
		return expr_fail(ep, NULL, perr(ep->ps, at, "unknown variable '$%.*s'", (int)n, s));
	if (argn < 1 || argn > ARGN_MAX)
		return expr_fail(ep, NULL, perr(ep->ps, at, "$argN: N must be between 1 and %d",
						  ARGN_MAX));
	x = expr_new(ep, ARG_ARGN, at);
	if (x)
		x->n = (long)argn;
	return x;
}

/* +OFF(EXPR), -OFF(EXPR), or a signed immediate */
static struct arg_expr *parse_signed(struct expr_parser *ep)
{
	const char *at = ep->p;
	bool neg = *ep->p++ == '-';
	struct arg_expr *e;
	const char *paren;
	uint64_t v;

	if (parse_bounded(ep->ps, &ep->p, ep->end, neg ? (uint64_t)LONG_MAX + 1 : LONG_MAX,
			  "offset", &v))
		return expr_fail(ep, NULL, -EINVAL);
	if (ep->p == ep->end || *ep->p != '(') {
		e = expr_new(ep, ARG_IMM, at);
		if (e)
			e->n = neg ? (long)(0 - v) : (long)v;
		return e;
	}
	paren = ep->p++;
	e = expr_new(ep, ARG_DEREF, at);
	if (!e)
		return NULL;
	e->off = neg ? (long)(0 - v) : (long)v;
	e->inner = parse_expr(ep);
	if (!e->inner)
		return expr_fail(ep, e, ep->ret);
	if (ep->p == ep->end)
		return expr_fail(ep, e, perr(ep->ps, paren, "unbalanced parentheses: missing ')'"));
	if (*ep->p != ')')
		return expr_fail(ep, e, perr(ep->ps, ep->p, "trailing garbage '%.*s'",
					     (int)(ep->end - ep->p), ep->p));
	ep->p++;
	return e;
}

/* @SYMBOL[+OFF|-OFF]; symbols may contain '.' (static "x.0" names). */
static struct arg_expr *parse_symbol(struct expr_parser *ep)
{
	const char *at = ep->p++;
	const char *s = ep->p;
	struct arg_expr *e;
	uint64_t v;
	bool neg;

	while (ep->p < ep->end && (is_ident_char(*ep->p) || *ep->p == '.'))
		ep->p++;
	if (ep->p == s || isdigit((unsigned char)*s))
		return expr_fail(ep, NULL, perr(ep->ps, at, "symbol name expected after '@'"));
	e = expr_new(ep, ARG_SYMBOL, at);
	if (!e || !expr_name(ep, e, s))
		return NULL;
	if (ep->p == ep->end || (*ep->p != '+' && *ep->p != '-'))
		return e;
	neg = *ep->p++ == '-';
	if (parse_bounded(ep->ps, &ep->p, ep->end, LONG_MAX, "offset", &v))
		return expr_fail(ep, e, -EINVAL);
	e->off = neg ? -(long)v : (long)v;
	return e;
}

/* A number with no sign. */
static struct arg_expr *parse_imm(struct expr_parser *ep)
{
	const char *at = ep->p;
	struct arg_expr *e;
	uint64_t v;

	if (parse_bounded(ep->ps, &ep->p, ep->end, UINT64_MAX, "number", &v))
		return expr_fail(ep, NULL, -EINVAL);
	e = expr_new(ep, ARG_IMM, at);
	if (e)
		e->n = (long)v;
	return e;
}

/* One ->MEMBER, .MEMBER or [INDEX] of E's chain at ep->p. */
static int parse_access(struct expr_parser *ep, struct arg_expr *e)
{
	struct arg_access *acc, *chain;
	const char *at = ep->p;
	uint64_t v;
	bool neg;

	chain = realloc(e->chain, (e->nchain + 1) * sizeof(*chain));
	if (!chain)
		return enomem(ep->ps);
	e->chain = chain;
	acc = &chain[e->nchain];
	memset(acc, 0, sizeof(*acc));
	if (*ep->p == '[') {
		ep->p++;
		neg = ep->p < ep->end && *ep->p == '-';
		ep->p += neg;
		if (parse_bounded(ep->ps, &ep->p, ep->end, LONG_MAX, "array index", &v))
			return -EINVAL;
		if (ep->p == ep->end || *ep->p != ']')
			return perr(ep->ps, at, "missing ']'");
		ep->p++;
		acc->kind = ACC_INDEX;
		acc->index = neg ? -(long)v : (long)v;
		e->nchain++;
		return 0;
	}
	acc->kind = *ep->p == '.' ? ACC_DOT : ACC_ARROW;
	ep->p += acc->kind == ACC_DOT ? 1 : 2;
	if (ep->p == ep->end || !is_ident_start(*ep->p))
		return perr(ep->ps, ep->p, "member name expected after '%.*s'",
			    acc->kind == ACC_DOT ? 1 : 2, at);
	at = ep->p;
	ep->p = skip_ident(ep->p, ep->end);
	acc->member = dup_range(at, ep->p);
	if (!acc->member)
		return enomem(ep->ps);
	e->nchain++;
	return 0;
}

static bool at_access(const struct expr_parser *ep)
{
	const char *p = ep->p;

	if (p == ep->end)
		return false;
	return *p == '.' || *p == '[' || (*p == '-' && ep->end - p > 1 && p[1] == '>');
}

/* *...VAR{->M|.M|[I]} */
static struct arg_expr *parse_var(struct expr_parser *ep)
{
	const char *at = ep->p;
	struct arg_expr *e;
	const char *s;
	int nderef = 0;
	int ret;

	while (ep->p < ep->end && *ep->p == '*') {
		ep->p++;
		nderef++;
	}
	s = ep->p;
	if (s == ep->end || !is_ident_start(*s))
		return expr_fail(ep, NULL, perr(ep->ps, s, "variable name expected"));
	ep->p = skip_ident(s, ep->end);
	e = expr_new(ep, ARG_VAR, at);
	if (!e || !expr_name(ep, e, s))
		return NULL;
	e->nderef = nderef;
	/* VAR@FILE: the file-scope variable of that source file.  The file name
	 * runs to "->", "[" or the end (a ".member" would read as part of it). */
	if (ep->p < ep->end && *ep->p == '@') {
		const char *f = ++ep->p;

		while (ep->p < ep->end && (is_ident_char(*ep->p) || strchr("./+-", *ep->p)) &&
		       !(*ep->p == '-' && ep->end - ep->p > 1 && ep->p[1] == '>'))
			ep->p++;
		if (ep->p == f)
			return expr_fail(ep, e, perr(ep->ps, f, "source file name expected after '@'"));
		e->file = strndup(f, ep->p - f);
		if (!e->file)
			return expr_fail(ep, e, enomem(ep->ps));
	}
	while (at_access(ep)) {
		ret = parse_access(ep, e);
		if (ret)
			return expr_fail(ep, e, ret);
	}
	return e;
}

static struct arg_expr *parse_expr(struct expr_parser *ep)
{
	char c;

	if (ep->p == ep->end)
		return expr_fail(ep, NULL, perr(ep->ps, ep->p, "expression expected"));
	if (++ep->depth > EXPR_DEPTH_MAX)
		return expr_fail(ep, NULL, perr(ep->ps, ep->p, "expression too deeply nested"));
	c = *ep->p;
	switch (c) {
	case '%':
		return parse_reg(ep);
	case '$':
		return parse_dollar(ep);
	case '~':
		return parse_go_result(ep);
	case '+':
	case '-':
		return parse_signed(ep);
	case '@':
		return parse_symbol(ep);
	case ')':
		return expr_fail(ep, NULL, perr(ep->ps, ep->p, ep->depth > 1 ?
				 "expression expected" : "unbalanced parentheses: unexpected ')'"));
	}
	if (isdigit((unsigned char)c))
		return parse_imm(ep);
	if (c == '*' || is_ident_start(c))
		return parse_var(ep);
	return expr_fail(ep, NULL, perr(ep->ps, ep->p, "unexpected character '%c'", c));
}

/* ---- arguments --------------------------------------------------------- */

static void arg_exit(struct probe_arg *arg)
{
	free(arg->name);
	free(arg->text);
	expr_free(arg->expr);
	memset(arg, 0, sizeof(*arg));
}

/* The whole EXPR in [S, E): one expression and nothing after it. */
static int parse_arg_expr(const struct parser *ps, const char *s, const char *e,
			  struct probe_arg *arg)
{
	struct expr_parser ep = { .ps = ps, .p = s, .end = e };

	if (s == e)
		return perr(ps, s, "empty argument");
	arg->expr = parse_expr(&ep);
	if (!arg->expr)
		return ep.ret;
	if (ep.p == e)
		return 0;
	if (*ep.p == ')')
		return perr(ps, ep.p, "unbalanced parentheses: unexpected ')'");
	return perr(ps, ep.p, "trailing garbage '%.*s'", (int)(e - ep.p), ep.p);
}

/* One whitespace-free token [S, E): [NAME=]EXPR[:TYPE]. */
static int parse_arg(const struct parser *ps, const char *s, const char *e, struct probe_arg *arg)
{
	const char *eq = find_char(s, e, '=');
	const char *colon;
	int ret;

	arg->pos = (int)(s - ps->text);
	if (eq < e) {
		if (!is_ident(s, eq))
			return perr(ps, s, "bad argument name '%.*s'", (int)(eq - s), s);
		arg->name = dup_range(s, eq);
		if (!arg->name)
			return enomem(ps);
		s = eq + 1;
	}
	colon = find_char(s, e, ':');
	arg->text = dup_range(s, colon);
	if (!arg->text)
		return enomem(ps);
	ret = parse_arg_expr(ps, s, colon, arg);
	if (ret || colon == e)
		return ret;
	if (fetch_type__parse(colon + 1, e - colon - 1, &arg->type))
		return perr(ps, colon + 1, "bad type '%.*s' (the types: s8 s16 s32 s64, u8..u64, "
			    "x8..x64, string, ustring, symbol, bBITS@OFF/SIZE)", (int)(e - colon - 1),
			    colon + 1);
	arg->has_type = true;
	return 0;
}

/* Every argument is recorded under a different name (probe_arg__name()). */
static int check_arg_names(const struct parser *ps, const struct probe_spec *spec)
{
	char a[32], b[32];

	for (int i = 1; i < spec->nargs; i++) {
		const char *ni = probe_arg__name(&spec->args[i], i, a, sizeof(a));

		for (int j = 0; j < i; j++) {
			if (strcmp(ni, probe_arg__name(&spec->args[j], j, b, sizeof(b))))
				continue;
			return perr(ps, ps->text + spec->args[i].pos,
				    "duplicate argument name '%s'", ni);
		}
	}
	return 0;
}

/* ---- the probe point ----------------------------------------------------- */

/* Where each FUNC suffix was seen (NULL: not given), for errors. */
struct point_marks {
	const char *src, *off, *line, *ret;
};

static const char *later(const char *a, const char *b)
{
	return a > b ? a : b;
}

/*
 * P is at a '[' of a glob: the matching ']' ("[]a]", "[!]a]" and "[[:alpha:]]"
 * included), or NULL when there is none before END.
 */
static const char *skip_bracket(const char *p, const char *end)
{
	p++;
	if (p < end && (*p == '!' || *p == '^'))
		p++;
	if (p < end && *p == ']')
		p++;
	for (; p < end && *p != ']'; p++) {
		if (*p == '[' && end - p > 1 && p[1] == ':') {
			const char *q = memchr(p + 2, ']', end - p - 2);

			if (q && q[-1] == ':')
				p = q;
		}
	}
	return p < end ? p : NULL;
}

/* Does P (before END) start the word "operator" (a C++ operator function's name)? */
static bool at_operator(const char *start, const char *p, const char *end)
{
	return end - p >= 8 && !memcmp(p, "operator", 8) && (p == start || !is_ident_char(p[-1])) &&
	       (end - p == 8 || !is_ident_char(p[8]) || p[8] == ' ');
}

/* C++'s operators, the longer of two with one start first */
static const char *const cxx_ops[] = {
	"()", "[]", "->*", "->", "<<=", ">>=", "<=>", "<<", ">>", "<=", ">=", "==", "!=", "&&",
	"||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "+", "-", "*", "/", "%",
	"^", "&", "|", "~", "!", "=", "<", ">", ",",
};

/*
 * Past the operator after "operator" at P: a word (new, delete, a
 * conversion's type: "operator new[]", "operator bool"), "()", "[]", or a
 * run of operator characters ("<<=", "->*", "==").
 */
static const char *skip_operator(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q == ' ')
		q++;
	if (q < end && is_ident_start(*q)) {
		q = skip_ident(q, end);
		if (end - q >= 2 && q[0] == '[' && q[1] == ']')
			q += 2;
		return q;
	}
	/* a symbol's operator follows the word: "operator*", never "operator *"; the longest
	 * (so that "operator==%return" keeps its suffix) */
	for (size_t i = 0; i < sizeof(cxx_ops) / sizeof(cxx_ops[0]); i++) {
		size_t n = strlen(cxx_ops[i]);

		if ((size_t)(end - p) >= n && !memcmp(p, cxx_ops[i], n))
			return p + n;
	}
	return p;
}

/*
 * Past a C++ method's qualifiers after its parameters, at P (a space after
 * the ')'): " const", " volatile", " &", " &&", in any number; P when none.
 */
static const char *skip_method_quals(const char *p, const char *end)
{
	const char *done = p;

	for (;;) {
		const char *q = p;

		while (q < end && *q == ' ')
			q++;
		if (end - q >= 5 && !memcmp(q, "const", 5) && (q + 5 == end || !is_ident_char(q[5])))
			q += 5;
		else if (end - q >= 8 && !memcmp(q, "volatile", 8) &&
			 (q + 8 == end || !is_ident_char(q[8])))
			q += 8;
		else if (end - q >= 2 && q[0] == '&' && q[1] == '&')
			q += 2;
		else if (q < end && q[0] == '&')
			q++;
		else
			return done;
		done = p = q;
	}
}

/*
 * The end of FUNC or SRC: the first '@', '+', '%' or ':' outside a [...] glob,
 * '::' and brackets of a C++, Rust or Go name (ns::f<int>(long)) and an
 * operator's name (operator+=) being part of it; at a space outside
 * brackets, the end of the point.
 */
static const char *point_name_end(const char *p, const char *end)
{
	const char *start = p;
	int depth = 0;

	while (p < end) {
		if (at_operator(start, p, end)) {
			p = skip_operator(p + 8, end);
			continue;
		}
		if (depth && end - p >= 2 && p[0] == '-' && p[1] == '>') {	/* Fn(i32) -> i32 */
			p += 2;
			continue;
		}
		if (*p == '<' || *p == '(' || *p == '{') {
			depth++;
		} else if ((*p == '>' || *p == ')' || *p == '}') && depth) {
			depth--;
		} else if (!depth) {
			if (*p == ':' && end - p >= 2 && p[1] == ':') {
				p += 2;
				continue;
			}
			/* ns::Db::get() const: the method's qualifiers are its name's */
			if (*p == ' ' && p > start && p[-1] == ')' && skip_method_quals(p, end) != p) {
				p = skip_method_quals(p, end);
				continue;
			}
			if (strchr("@+%:", *p) || isspace((unsigned char)*p))
				return p;
			if (*p == '[') {
				p = skip_bracket(p, end);
				if (!p)
					return end;
			}
		}
		p++;
	}
	return p;
}

/* The end of the point that starts at P: its name (spaces inside brackets), then its suffixes. */
static const char *point_end(const char *p)
{
	const char *e = point_name_end(p, p + strlen(p));

	while (*e && !isspace((unsigned char)*e))
		e = point_name_end(e + 1, e + 1 + strlen(e + 1));
	return e;
}

/* A name of C++, Rust or Go (not a C identifier or a glob of one): '::', brackets, '.', spaces. */
static bool is_qualified(const char *s, const char *e)
{
	for (const char *p = s; p < e; p++)
		if (strchr(":<>(){}. ", *p))
			return true;
	return at_operator(s, s, e);
}

/* Are the brackets of the name [S, E) closed, each by its kind? */
static bool brackets_balance(const char *s, const char *e)
{
	char stack[64];
	int n = 0;

	for (const char *p = s; p < e; p++) {
		if (at_operator(s, p, e)) {
			p = skip_operator(p + 8, e) - 1;
			continue;
		}
		if (p + 1 < e && p[0] == '-' && p[1] == '>') {
			p++;
			continue;
		}
		if (*p == '<' || *p == '(' || *p == '{') {
			if (n == (int)sizeof(stack))
				return false;
			stack[n++] = *p == '<' ? '>' : *p == '(' ? ')' : '}';
		} else if (*p == '>' || *p == ')' || *p == '}') {
			if (!n || stack[--n] != *p)
				return false;
		}
	}
	return n == 0;
}

/*
 * SRC of SRC:LINE: a path ('/'), or a name ending in a source file's
 * extension -- not a Go function (main.handle) or method (main.(*T).M).
 */
static bool is_src_name(const char *s, const char *e)
{
	static const char *const exts[] = { "c", "h", "cc", "cp", "cpp", "cxx", "c++", "C", "H",
					    "hh", "hpp", "hxx", "h++", "inc", "inl", "ipp", "tpp",
					    "def", "tcc", "cu", "cuh", "go", "rs", "s", "S", "asm",
					    "m", "mm", "y", "l", "f", "F", "f90", "F90", "d", "zig" };
	const char *dot = NULL;

	if (memchr(s, '/', e - s))
		return true;
	for (const char *p = s; p < e; p++)
		if (*p == '.')
			dot = p;
	if (!dot)
		return false;
	for (const char *p = s; p < dot; p++)	/* lex.yy.c is a file, main.(*T).M a function */
		if (strchr(":<>(){} ", *p))
			return false;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if ((size_t)(e - dot - 1) == strlen(exts[i]) && !memcmp(dot + 1, exts[i], e - dot - 1))
			return true;
	return false;
}

/* FUNC is an identifier, or a glob of one; or a C++, Rust or Go name, its brackets closed. */
static bool is_func_glob(const char *s, const char *e)
{
	if (s == e || isdigit((unsigned char)*s))
		return false;
	/* "operator" with no operator after it: "operator new" would read the same */
	if (e - s >= 8 && at_operator(s, e - 8, e))
		return false;
	if (is_qualified(s, e))
		return brackets_balance(s, e);
	for (const char *p = s; p < e; p++) {
		if (*p == '[') {
			p = skip_bracket(p, e);
			if (!p)
				return false;
			continue;
		}
		if (!is_ident_char(*p) && *p != '*' && *p != '?')
			return false;
	}
	return true;
}

/* One suffix at *PP: @SRC, +OFF, :LINE or %return. */
static int parse_point_suffix(const struct parser *ps, const char **pp, const char *end,
			      struct probe_point *pp_out, struct point_marks *m)
{
	const char *at = *pp, *p = at + 1, *e;
	uint64_t v;

	e = point_name_end(p, end);
	switch (*at) {
	case '@':
		if (m->src)
			return perr(ps, at, "@SRC given twice");
		if (p == e)
			return perr(ps, at, "source file name expected after '@'");
		pp_out->src = dup_range(p, e);
		if (!pp_out->src)
			return enomem(ps);
		m->src = at;
		break;
	case '%':
		if (e - p != 6 || memcmp(p, "return", 6))
			return perr(ps, at, "unknown suffix '%%%.*s' (only %%return)", (int)(e - p), p);
		if (m->ret)
			return perr(ps, at, "%%return given twice");
		pp_out->retprobe = true;
		m->ret = at;
		break;
	case '+':
		if (m->off)
			return perr(ps, at, "+OFF given twice");
		if (parse_bounded(ps, &p, end, LONG_MAX, "offset", &v))
			return -EINVAL;
		pp_out->offset = (long)v;
		m->off = at;
		break;
	default:	/* ':' */
		if (m->line)
			return perr(ps, at, ":LINE given twice");
		if (parse_bounded(ps, &p, end, INT_MAX, "line number", &v))
			return -EINVAL;
		if (v < 1)
			return perr(ps, at + 1, "line numbers start at 1");
		pp_out->line = (int)v;
		m->line = at;
		break;
	}
	if (*at == '+' || *at == ':')
		e = p;
	if (e < end && !strchr("@+%:", *e))
		return perr(ps, e, "trailing garbage '%.*s'", (int)(end - e), e);
	*pp = e;
	return 0;
}

/* The exclusion rules between FUNC suffixes. */
static int check_point(const struct parser *ps, const struct point_marks *m)
{
	if (m->off && m->line)
		return perr(ps, later(m->off, m->line), "FUNC+OFF cannot be combined with :LINE");
	if (m->ret && m->off)
		return perr(ps, later(m->ret, m->off), "%%return cannot be combined with +OFF");
	if (m->ret && m->line)
		return perr(ps, later(m->ret, m->line), "%%return cannot be combined with :LINE");
	return 0;
}

/* SRC:LINE; S..E is the whole point, NE the end of SRC. */
static int parse_srcline(const struct parser *ps, const char *s, const char *ne, const char *e,
			 struct probe_point *pp)
{
	const char *p = ne + 1;
	uint64_t v;

	pp->kind = PP_SRCLINE;
	if (ne == e || *ne != ':' || p == e)
		return perr(ps, ne == e || *ne == ':' ? s : ne,
			    "'%.*s': a source file probe requires a line (SRC:LINE)",
			    (int)(ne - s), s);
	if (parse_bounded(ps, &p, e, INT_MAX, "line number", &v))
		return -EINVAL;
	if (v < 1)
		return perr(ps, ne + 1, "line numbers start at 1");
	if (e - p == 7 && !memcmp(p, "%return", 7))
		return perr(ps, p, "%%return needs a function entry (FUNC%%return), not a line");
	if (p != e)
		return perr(ps, p, "trailing garbage '%.*s'", (int)(e - p), p);
	pp->line = (int)v;
	pp->src = dup_range(s, ne);
	return pp->src ? 0 : enomem(ps);
}

static int parse_addr(const struct parser *ps, const char *s, const char *e,
		      struct probe_point *pp)
{
	const char *p = s;

	pp->kind = PP_ADDR;
	if (parse_u64(&p, e, &pp->addr) == -ERANGE)
		return perr(ps, s, "address out of range");
	if (p == s || p - s < 3)
		return perr(ps, s, "bad address '%.*s'", (int)(e - s), s);
	if (e - p == 7 && !memcmp(p, "%return", 7))
		return perr(ps, p, "%%return needs a function entry (FUNC%%return), not an address");
	if (p != e)
		return perr(ps, p, "trailing garbage '%.*s'", (int)(e - p), p);
	return 0;
}

/* The POINT token [S, E). */
static int parse_point(const struct parser *ps, const char *s, const char *e,
		       struct probe_point *pp)
{
	struct point_marks m = { 0 };
	const char *ne, *p;
	int ret;

	if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_addr(ps, s, e, pp);
	ne = point_name_end(s, e);
	if (is_src_name(s, ne))
		return parse_srcline(ps, s, ne, e, pp);
	pp->kind = PP_FUNC;
	if (ne == s)
		return perr(ps, s, "function name expected");
	if (!is_func_glob(s, ne))
		return perr(ps, s, "bad function name '%.*s'", (int)(ne - s), s);
	pp->func = dup_range(s, ne);
	if (!pp->func)
		return enomem(ps);
	for (p = ne; p < e;) {
		ret = parse_point_suffix(ps, &p, e, pp, &m);
		if (ret)
			return ret;
	}
	return check_point(ps, &m);
}

/* [[GROUP:]EVENT=] at the start of the first token; *PP moves past it. */
static int parse_event(const struct parser *ps, const char **pp, const char *e,
		       struct probe_spec *spec)
{
	const char *s = *pp;
	const char *eq = find_char(s, e, '=');
	const char *colon;

	/* operator=, operator==, ns::operator<=: the name's own (a bare "operator=" only
	 * before '=' or the point's end: "operator=malloc" names an event) */
	if (eq == e ||
	    (eq - s >= 8 && !memcmp(eq - 8, "operator", 8) &&
	     (eq - s == 8 || !is_ident_char(eq[-9])) && memmem(s, eq - s, "::", 2)) ||
	    (eq - s == 8 && !memcmp(s, "operator", 8) && (eq + 1 == e || strchr("=%@:+ ", eq[1]))) ||
	    (eq > s && strchr("=!<>+-*/%^&|", eq[-1])))
		return 0;
	colon = find_char(s, eq, ':');
	if (colon < eq) {
		if (!is_ident(s, colon))
			return perr(ps, s, "bad group name '%.*s'", (int)(colon - s), s);
		s = colon + 1;
	}
	if (!is_ident(s, eq))
		return perr(ps, s, "bad event name '%.*s'", (int)(eq - s), s);
	spec->event = dup_range(s, eq);
	if (!spec->event)
		return enomem(ps);
	*pp = eq + 1;
	return 0;
}

/* ---- the whole probe ----------------------------------------------------- */

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *token_end(const char *p)
{
	while (*p && !isspace((unsigned char)*p))
		p++;
	return p;
}

static int count_tokens(const char *p)
{
	int n = 0;

	for (p = skip_space(p); *p; p = skip_space(token_end(p)))
		n++;
	return n;
}

static int parse_args(struct parser *ps, const char *p, struct probe_spec *spec)
{
	int n = count_tokens(p);
	int ret;

	if (!n)
		return 0;
	spec->args = calloc(n, sizeof(*spec->args));
	if (!spec->args)
		return enomem(ps);
	for (p = skip_space(p); *p; p = skip_space(token_end(p))) {
		ret = parse_arg(ps, p, token_end(p), &spec->args[spec->nargs++]);
		if (ret)
			return ret;
	}
	return check_arg_names(ps, spec);
}

static int parse_spec(struct parser *ps, struct probe_spec *spec)
{
	const char *s = skip_space(ps->text);
	const char *e = point_end(s);
	int ret;

	if (s == e)
		return perr(ps, s, "empty probe");
	ret = parse_event(ps, &s, e, spec);
	if (ret)
		return ret;
	if (s == e)
		return perr(ps, s, "empty probe: a probe point is expected after '='");
	ret = parse_point(ps, s, e, &spec->point);
	if (ret)
		return ret;
	ps->retprobe = spec->point.kind == PP_FUNC && spec->point.retprobe;
	return parse_args(ps, e, spec);
}

int probe_spec__parse(const char *text, struct probe_spec **out, struct ptap_err *err)
{
	struct parser ps = { .text = text, .err = err };
	struct probe_spec *spec;
	int ret;

	*out = NULL;
	/* bpftrace's probe, written from habit (a group so named has its EVENT=) */
	if ((!strncmp(text, "uprobe:", 7) || !strncmp(text, "uretprobe:", 10)) &&
	    !memchr(text, '=', strcspn(text, " ")))
		return perr(&ps, text, "a bpftrace probe: ptap takes perf probe's syntax, "
			    "-x BINARY -e 'FUNC ARG...' (uretprobe: FUNC%%return $retval)");
	spec = calloc(1, sizeof(*spec));
	if (!spec)
		return enomem(&ps);
	spec->text = strdup(text);
	if (!spec->text) {
		free(spec);
		return enomem(&ps);
	}
	ret = parse_spec(&ps, spec);
	if (ret) {
		probe_spec__free(spec);
		return ret;
	}
	*out = spec;
	return 0;
}

void probe_spec__free(struct probe_spec *spec)
{
	if (!spec)
		return;
	for (int i = 0; i < spec->nargs; i++)
		arg_exit(&spec->args[i]);
	free(spec->args);
	free(spec->point.func);
	free(spec->point.src);
	free(spec->event);
	free(spec->text);
	free(spec);
}

/* ---- synthesis ----------------------------------------------------------- */

/* snprintf-style output: POS counts what was needed, BUF gets what fits. */
struct sbuf {
	char *buf;
	size_t len;
	size_t pos;
};

static void sb_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->pos < sb->len ? sb->len - sb->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += n;
}

static void synth_offset(struct sbuf *sb, long off)
{
	if (off < 0)
		sb_printf(sb, "-%lu", 0UL - (unsigned long)off);
	else
		sb_printf(sb, "+%ld", off);
}

static void synth_expr(struct sbuf *sb, const struct arg_expr *e)
{
	switch (e->kind) {
	case ARG_REG:
		sb_printf(sb, "%%%s", e->name);
		break;
	case ARG_ARGN:
		sb_printf(sb, "$arg%ld", e->n);
		break;
	case ARG_DEREF:
		synth_offset(sb, e->off);
		sb_printf(sb, "(");
		synth_expr(sb, e->inner);
		sb_printf(sb, ")");
		break;
	case ARG_SYMBOL:
		sb_printf(sb, "@%s", e->name);
		if (e->off)
			synth_offset(sb, e->off);
		break;
	case ARG_VAR:
		for (int i = 0; i < e->nderef; i++)
			sb_printf(sb, "*");
		sb_printf(sb, "%s", e->name);
		if (e->file)
			sb_printf(sb, "@%s", e->file);
		for (int i = 0; i < e->nchain; i++) {
			const struct arg_access *a = &e->chain[i];

			if (a->kind == ACC_INDEX)
				sb_printf(sb, "[%ld]", a->index);
			else
				sb_printf(sb, "%s%s", a->kind == ACC_DOT ? "." : "->", a->member);
		}
		break;
	case ARG_RETVAL:
		sb_printf(sb, "%s", e->name ? e->name : "$retval");
		break;
	case ARG_PARAMS:
		sb_printf(sb, "$params");
		break;
	case ARG_VARS:
		sb_printf(sb, "$vars");
		break;
	case ARG_IMM:
		sb_printf(sb, "%ld", e->n);
		break;
	}
}

static void synth_point(struct sbuf *sb, const struct probe_point *pp)
{
	switch (pp->kind) {
	case PP_FUNC:
		sb_printf(sb, "%s", pp->func);
		if (pp->src)
			sb_printf(sb, "@%s", pp->src);
		if (pp->offset)
			sb_printf(sb, "+%ld", pp->offset);
		if (pp->line)
			sb_printf(sb, ":%d", pp->line);
		if (pp->retprobe)
			sb_printf(sb, "%%return");
		break;
	case PP_SRCLINE:
		sb_printf(sb, "%s:%d", pp->src, pp->line);
		break;
	case PP_ADDR:
		sb_printf(sb, "0x%llx", (unsigned long long)pp->addr);
		break;
	}
}

int probe_spec__synthesize(const struct probe_spec *spec, char *buf, size_t len)
{
	struct sbuf sb = { .buf = buf, .len = len };
	char tname[32];

	if (len)
		buf[0] = '\0';
	if (spec->event)
		sb_printf(&sb, "%s=", spec->event);
	synth_point(&sb, &spec->point);
	for (int i = 0; i < spec->nargs; i++) {
		const struct probe_arg *arg = &spec->args[i];

		sb_printf(&sb, " ");
		if (arg->name)
			sb_printf(&sb, "%s=", arg->name);
		synth_expr(&sb, arg->expr);
		if (arg->has_type)
			sb_printf(&sb, ":%s", fetch_type__name(&arg->type, tname, sizeof(tname)));
	}
	return (int)sb.pos;
}

const char *probe_arg__name(const struct probe_arg *arg, int i, char *buf, size_t len)
{
	if (arg->name)
		return arg->name;
	snprintf(buf, len, "arg%d", i + 1);
	return buf;
}
