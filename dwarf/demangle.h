/* dwarf/demangle.h: the names C++ and Rust functions have in their source,
 * from their symbols (libiberty's demangler: C++ Itanium, Rust legacy and
 * v0): what `ptap list` shows and what a probe's FUNC is matched against
 * when it is written that way (ns::Db::query, app::Account::deposit).  Go's
 * symbols are their names already (main.(*Server).Serve). */
#ifndef PTAP_DWARF_DEMANGLE_H
#define PTAP_DWARF_DEMANGLE_H

#include <stdbool.h>

/*
 * SYM demangled, malloc'd: without its parameters (ns::Db::query,
 * ns::twice<int>, operator new), or, PARAMS, with them and without a
 * template's return type (ns::Db::query(std::string const&, int)); the
 * standard strings named as they are written (std::string, not
 * std::__cxx11::basic_string<char, ...>).  NULL when SYM is not a mangled
 * name (or memory ran out).
 */
char *demangle(const char *sym, bool params);

/*
 * Is FUNC, as a probe names it, a C++ or Rust name to match against the
 * demangled symbols (ns::f, f(int), <T as Tr>::f, operator new) rather
 * than a symbol's or DWARF's own name (exec_query, main.handle)?
 */
bool demangle_is_qualified(const char *func);

/*
 * Is FUNC a glob: a '*', '?' or '[' outside the parentheses and angle
 * brackets of a C++, Rust or Go name (f(char*), main.(*T).M) and not an
 * operator's own (operator*, operator[])?
 */
bool name_is_glob(const char *func);

/* Does FUNC end in a parameter list (ns::f(int), operator()(int) const), not operator()? */
bool demangle_has_params(const char *func);

/* Does PAT name the function whose demangled name is NAME: PAT a glob of it, or it; spaces aside. */
bool demangle_match(const char *pat, bool glob, const char *name);

/*
 * The C++ operator at P (after "operator": "+=", "()") as a word for an
 * identifier ("plus_assign", "call"), *LEN its characters; NULL when P
 * starts none.
 */
const char *demangle_operator_word(const char *p, size_t *len);

#endif
