/* dwarf/demangle.c: demangled names (demangle.h), through libiberty's
 * cplus_demangle(), which knows C++'s Itanium mangling and Rust's two. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "dwarf/demangle.h"

/* The library's names of the standard strings, and how they are written. */
static const struct {
	const char *long_name, *name;
} std_names[] = {
	{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
	  "std::string" },
	{ "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string" },
	{ "std::__cxx11::basic_string<wchar_t, std::char_traits<wchar_t>, "
	  "std::allocator<wchar_t> >", "std::wstring" },
	{ "std::basic_string_view<char, std::char_traits<char> >", "std::string_view" },
	{ "std::basic_ostream<char, std::char_traits<char> >", "std::ostream" },
	{ "std::basic_istream<char, std::char_traits<char> >", "std::istream" },
};

/* Each of std_names' long names in S replaced by its short one, in place (never longer). */
static void shorten(char *s)
{
	for (size_t i = 0; i < sizeof(std_names) / sizeof(std_names[0]); i++) {
		size_t ll = strlen(std_names[i].long_name), sl = strlen(std_names[i].name);
		char *p;

		while ((p = strstr(s, std_names[i].long_name))) {
			memcpy(p, std_names[i].name, sl);
			memmove(p + sl, p + ll, strlen(p + ll) + 1);
		}
	}
}

char *demangle(const char *sym, bool params)
{
	char *d;

	if (!sym || sym[0] != '_' || (sym[1] != 'Z' && sym[1] != 'R'))
		return NULL;
	d = cplus_demangle(sym, DMGL_ANSI | DMGL_RET_DROP | (params ? DMGL_PARAMS : 0));
	if (d)
		shorten(d);
	return d;
}

/* Does FUNC start with the word "operator" (not operator_init, a C name)? */
static bool starts_operator(const char *func)
{
	return !strncmp(func, "operator", 8) && !(isalnum((unsigned char)func[8]) || func[8] == '_');
}

bool demangle_is_qualified(const char *func)
{
	return strstr(func, "::") || func[0] == '<' || strchr(func, '{') || starts_operator(func) ||
	       (strchr(func, '(') && !strchr(func, '.'));
}

bool name_is_glob(const char *func)
{
	int depth = 0;

	for (const char *p = func; *p; p++) {
		/* operator*, operator[], operator*=: the operator's own characters */
		if (!strncmp(p, "operator", 8) && (p == func || !(isalnum((unsigned char)p[-1]) ||
								    p[-1] == '_'))) {
			p += 8;
			while (*p && strchr("*?[]", *p))
				p++;
			if (!*p)
				break;
		}
		if (*p == '(' || *p == '<')
			depth++;
		else if ((*p == ')' || *p == '>') && depth)
			depth--;
		else if (!depth && strchr("*?[", *p))	/* not f(char*), main.(*T).M */
			return true;
	}
	return false;
}

bool demangle_has_params(const char *func)
{
	size_t n = strlen(func);
	int depth = 0;

	/* a method's qualifiers: f() const, f() volatile &, f() const && */
	for (;;) {
		while (n && func[n - 1] == ' ')
			n--;
		if (n >= 5 && !strncmp(func + n - 5, "const", 5))
			n -= 5;
		else if (n >= 8 && !strncmp(func + n - 8, "volatile", 8))
			n -= 8;
		else if (n && func[n - 1] == '&')
			n--;
		else
			break;
	}
	if (!n || func[n - 1] != ')')
		return false;
	/* the '(' of that ')': params, unless it is operator()'s own "()" */
	for (size_t i = n; i-- > 0;) {
		if (func[i] == ')')
			depth++;
		else if (func[i] == '(' && !--depth)
			return !(i >= 8 && !strncmp(func + i - 8, "operator", 8) && func[i + 1] == ')');
	}
	return false;	/* not closed */
}

/* S without its spaces, into a malloc'd string (NULL: out of memory). */
static char *unspaced(const char *s)
{
	char *d = malloc(strlen(s) + 1), *o = d;

	for (; d && *s; s++)
		if (*s != ' ')
			*o++ = *s;
	if (d)
		*o = '\0';
	return d;
}

bool demangle_match(const char *pat, bool glob, const char *name)
{
	char *p = unspaced(pat), *n = unspaced(name);
	bool m = p && n && (glob ? fnmatch(p, n, 0) == 0 : !strcmp(p, n));

	free(p);
	free(n);
	return m;
}

/* C++'s operators as words, the longer of two with one start first. */
static const struct {
	const char *op, *word;
} op_words[] = {
	{ "()", "call" }, { "[]", "index" }, { "->*", "arrow_star" }, { "->", "arrow" },
	{ "<<=", "shl_assign" }, { ">>=", "shr_assign" }, { "<=>", "cmp" }, { "<<", "shl" },
	{ ">>", "shr" }, { "<=", "le" }, { ">=", "ge" }, { "==", "eq" }, { "!=", "ne" },
	{ "&&", "land" }, { "||", "lor" }, { "++", "inc" }, { "--", "dec" },
	{ "+=", "plus_assign" }, { "-=", "minus_assign" }, { "*=", "mul_assign" },
	{ "/=", "div_assign" }, { "%=", "mod_assign" }, { "^=", "xor_assign" },
	{ "&=", "and_assign" }, { "|=", "or_assign" }, { "+", "plus" }, { "-", "minus" },
	{ "*", "mul" }, { "/", "div" }, { "%", "mod" }, { "^", "xor" }, { "&", "and" },
	{ "|", "or" }, { "~", "compl" }, { "!", "not" }, { "=", "assign" }, { "<", "lt" },
	{ ">", "gt" }, { ",", "comma" },
};

const char *demangle_operator_word(const char *p, size_t *len)
{
	for (size_t i = 0; i < sizeof(op_words) / sizeof(op_words[0]); i++) {
		size_t n = strlen(op_words[i].op);

		if (!strncmp(p, op_words[i].op, n)) {
			*len = n;
			return op_words[i].word;
		}
	}
	return NULL;
}
