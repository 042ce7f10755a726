/* tests/unit/test_langs.c: Go's and Rust's runtimes told from the ELF file
 * alone (dwarf/elfmod.c elfmod__runtime(), issue 17), on build/samples; Go's
 * stack-bound check at a function's entry (arch_go_stack_check_len()). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "arch/arch.h"
#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "tests/unit/unit_paths.h"

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"


static enum elfmod_runtime runtime_of(const char *path)
{
	struct ptap_err err = { .pos = -1 };
	struct elfmod *mod = NULL;
	enum elfmod_runtime rt;

	cr_assert(eq(int, elfmod__open(path, &mod, &err), 0), "open %s: %s", path, err.msg);
	rt = elfmod__runtime(mod);
	elfmod__close(mod);
	return rt;
}

/*
 * By the sections `strip` keeps (-stripped), and by symbols.  The -nomark
 * builds lack Rust's markers on purpose (the Makefile removes them): only
 * their mangled names tell (dwarf/resolve.c), not the file.
 */
Test(langs, runtime_markers)
{
	static const struct {
		const char *sample;
		enum elfmod_runtime rt;
	} cases[] = {
		{ "samples/go/app", ELFMOD_RT_GO },
		{ "samples/go/app-nodwarf", ELFMOD_RT_GO },
		{ "samples/go/app-stripped", ELFMOD_RT_GO },
		{ "samples/rust/unwind", ELFMOD_RT_RUST },
		{ "samples/rust/unwind-nodwarf", ELFMOD_RT_RUST },
		{ "samples/rust/unwind-v0", ELFMOD_RT_RUST },
		{ "samples/rust/unwind-nomark", ELFMOD_RT_NONE },
		{ "samples/rust/unwind-v0-nomark", ELFMOD_RT_NONE },
		{ "samples/query_server", ELFMOD_RT_NONE },
		{ "samples/query_server-stripped", ELFMOD_RT_NONE },
		{ "samples/cxx_throw", ELFMOD_RT_NONE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect(eq(int, runtime_of(unit_path(cases[i].sample)), cases[i].rt), "%s",
			  cases[i].sample);
	cr_expect(eq(int, runtime_of(LIBC), ELFMOD_RT_NONE), "libc");
}

#define PC	0x485460ULL

static size_t check_len(const char *bytes, size_t n)
{
	uint8_t code[64] = { 0 };

	memcpy(code, bytes, n);
	return arch_go_stack_check_len(code, sizeof(code), PC);
}

#define CHECK(str)	check_len(str, sizeof(str) - 1)

/* The forms Go's linker writes (objdump of build/samples/go/app and its runtime). */
Test(langs, go_stack_check_forms)
{
	/* cmp rsp, [r14+0x10]; jbe */
	cr_assert(eq(sz, CHECK("\x49\x3b\x66\x10\x76\x6a"), 6));
	/* lea r12, [rsp-0x20]; cmp r12, [r14+0x10]; jbe rel32 */
	cr_assert(eq(sz, CHECK("\x4c\x8d\x64\x24\xe0\x4d\x3b\x66\x10\x0f\x86\xb0\0\0\0"), 15));
	/* mov r12, rsp; sub r12, 0x1fa8; jb; cmp r12, [r14+0x10]; jbe */
	cr_assert(eq(sz, CHECK("\x49\x89\xe4\x49\x81\xec\xa8\x1f\0\0\x0f\x82\xdd\0\0\0"
			       "\x4d\x3b\x66\x10\x0f\x86\xd3\0\0\0"), 26));
	/* before Go 1.17: mov rcx, fs:[-8]; cmp rsp, [rcx+0x10]; jbe */
	cr_assert(eq(sz, CHECK("\x64\x48\x8b\x0c\x25\xf8\xff\xff\xff\x48\x3b\x61\x10\x76\x30"),
		     15));
}

Test(langs, go_stack_check_not)
{
	/* C: push rbp; mov rbp, rsp */
	cr_assert(eq(sz, CHECK("\x55\x48\x89\xe5"), 0));
	/* the bound in rax, an argument register of Go's ABIInternal */
	cr_assert(eq(sz, CHECK("\x48\x8d\x44\x24\xe0\x49\x3b\x46\x10\x76\x30"), 0));
	/* not stackguard0 (+0x18) */
	cr_assert(eq(sz, CHECK("\x49\x3b\x66\x18\x76\x6a"), 0));
	/* a jump back */
	cr_assert(eq(sz, CHECK("\x49\x3b\x66\x10\x76\xf0"), 0));
	/* no jump after the compare */
	cr_assert(eq(sz, CHECK("\x49\x3b\x66\x10\x90"), 0));
}
