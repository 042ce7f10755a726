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

Test(demangle, qualified_names)
{
	cr_assert(demangle_is_qualified("ns::Db::query"), "ns::Db::query");
	cr_assert(demangle_is_qualified("f(int)"), "f(int)");
	cr_assert(demangle_is_qualified("<T as Tr>::f"), "<T as Tr>::f");
	cr_assert(demangle_is_qualified("operator new"), "operator new");
	cr_assert(demangle_is_qualified("app::main::{{closure}}"), "app::main::{{closure}}");
	cr_assert_not(demangle_is_qualified("exec_query"), "exec_query");
	cr_assert_not(demangle_is_qualified("exec_*"), "exec_*");
	/* Go's are symbol names already */
	cr_assert_not(demangle_is_qualified("main.(*Server).Serve"), "main.(*Server).Serve");
}

Test(demangle, globs)
{
	cr_assert(name_is_glob("exec_*"), "exec_*");
	cr_assert(name_is_glob("ns::Db::*"), "ns::Db::*");
	cr_assert(name_is_glob("*::query(*string*)"), "*::query(*string*)");
	cr_assert_not(name_is_glob("ns::f(char*)"), "ns::f(char*)");
	cr_assert_not(name_is_glob("ns::V::operator*"), "ns::V::operator*");
	cr_assert_not(name_is_glob("ns::V::operator[]"), "ns::V::operator[]");
	cr_assert_not(name_is_glob("runtime.(*p).init"), "runtime.(*p).init");
	cr_assert_not(demangle_is_qualified("operator_init"), "operator_init (a C name)");
}

Test(demangle, parameters)
{
	cr_assert(demangle_has_params("ns::f(int)"), "ns::f(int)");
	cr_assert(demangle_has_params("ns::f(int) const"), "ns::f(int) const");
	cr_assert(demangle_has_params("main::{lambda(int)#1}::operator()(int) const"),
		  "the lambda's operator(), with its parameters");
	cr_assert_not(demangle_has_params("main::{lambda(int)#1}::operator()"), "main::{lambda(int)#1}::operator()");
	cr_assert_not(demangle_has_params("ns::twice<int>"), "ns::twice<int>");
	cr_assert_not(demangle_has_params("operator()"), "operator()");
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
