/* tests/unit/test_demangle.c: dwarf/demangle.c - the names C++ and Rust
 * functions have in their source, from their symbols, and how a probe's
 * FUNC is matched against them. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdlib.h>

#include "dwarf/demangle.h"

static void expect_demangled(const char *sym, bool params, const char *want)
{
	char *d = demangle(sym, params);

	cr_assert_not_null(d, "%s: not demangled", sym);
	cr_assert(eq(str, d, (char *)want), "%s (params %d)", sym, params);
	free(d);
}

Test(demangle, cxx_without_and_with_parameters)
{
	const char *q = "_ZN2ns2Db5queryERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEi";

	expect_demangled(q, false, "ns::Db::query");
	/* std::string as it is written, not libstdc++'s basic_string<char, ...> */
	expect_demangled(q, true, "ns::Db::query(std::string const&, int)");
	/* a template's return type dropped */
	expect_demangled("_ZN2ns5twiceIiEET_S1_", false, "ns::twice<int>");
	expect_demangled("_ZN2ns5twiceIiEET_S1_", true, "ns::twice<int>(int)");
	expect_demangled("_Znwm", false, "operator new");
	expect_demangled("_ZZ4mainENKUliE_clEi", false, "main::{lambda(int)#1}::operator()");
	expect_demangled("_ZN2ns2DbD2Ev", false, "ns::Db::~Db");
}

Test(demangle, rust_legacy_and_v0)
{
	/* the legacy hash is dropped */
	expect_demangled("_ZN6unwind6middle17h0123456789abcdefE", false, "unwind::middle");
	expect_demangled("_ZN56_$LT$app..app..Account$u20$as$u20$core..fmt..Display$GT$"
			 "3fmt17h721bb148f17c6238E", false,
			 "<app::app::Account as core::fmt::Display>::fmt");
	expect_demangled("_RNvCs1234_6unwind6middle", false, "unwind::middle");
}

Test(demangle, plain_names_are_not_demangled)
{
	cr_assert_null(demangle("exec_query", false));
	cr_assert_null(demangle("main.handle", false));
	cr_assert_null(demangle("_start", false));
}

/* Each predicate on names, and what it must say of each. */
static const struct {
	bool (*fn)(const char *);
	const char *what, *name;
	bool want;
} preds[] = {
	{ demangle_is_qualified, "qualified", "ns::Db::query", true },
	{ demangle_is_qualified, "qualified", "f(int)", true },
	{ demangle_is_qualified, "qualified", "<T as Tr>::f", true },
	{ demangle_is_qualified, "qualified", "operator new", true },
	{ demangle_is_qualified, "qualified", "app::main::{{closure}}", true },
	{ demangle_is_qualified, "qualified", "exec_query", false },
	{ demangle_is_qualified, "qualified", "exec_*", false },
	{ demangle_is_qualified, "qualified", "operator_init", false },	/* a C name */
	{ demangle_is_qualified, "qualified", "main.(*Server).Serve", false },	/* Go's: symbols */
	{ name_is_glob, "a glob", "exec_*", true },
	{ name_is_glob, "a glob", "ns::Db::*", true },
	{ name_is_glob, "a glob", "*::query(*string*)", true },
	{ name_is_glob, "a glob", "ns::f(char*)", false },
	{ name_is_glob, "a glob", "ns::V::operator*", false },
	{ name_is_glob, "a glob", "ns::V::operator[]", false },
	{ name_is_glob, "a glob", "runtime.(*p).init", false },
	{ demangle_has_params, "with parameters", "ns::f(int)", true },
	{ demangle_has_params, "with parameters", "ns::f(int) const", true },
	{ demangle_has_params, "with parameters", "ns::f(int) &&", true },
	{ demangle_has_params, "with parameters", "ns::f() const volatile &", true },
	{ demangle_has_params, "with parameters", "ns::constant", false },
	{ demangle_has_params, "with parameters", "main::{lambda(int)#1}::operator()(int) const",
	  true },
	{ demangle_has_params, "with parameters", "main::{lambda(int)#1}::operator()", false },
	{ demangle_has_params, "with parameters", "ns::twice<int>", false },
	{ demangle_has_params, "with parameters", "operator()", false },
};

Test(demangle, predicates)
{
	for (size_t i = 0; i < sizeof(preds) / sizeof(preds[0]); i++)
		cr_expect(eq(int, preds[i].fn(preds[i].name), preds[i].want), "%s %s: expected %d",
			  preds[i].name, preds[i].what, preds[i].want);
}

Test(demangle, match_spaces_aside_and_globs)
{
	cr_assert(demangle_match("ns::Db::query(std::string const &,int)", false,
				 "ns::Db::query(std::string const&, int)"), "ns::Db::query(std::string const &,int)");
	cr_assert_not(demangle_match("ns::Db::query(int)", false,
				  "ns::Db::query(std::string const&, int)"), "ns::Db::query(int)");
	cr_assert(demangle_match("ns::Db::*", true, "ns::Db::query"), "ns::Db::*");
	cr_assert_not(demangle_match("ns::Db::*", true, "ns::twice<int>"), "ns::Db::*");
	cr_assert(demangle_match("*::query(*string*)", true,
				 "ns::Db::query(std::string const&, int)"), "*::query(*string*)");
}
