/* tests/unit/test_langs.c: Go's and Rust's runtimes told from the ELF file
 * alone (dwarf/elfmod.c elfmod__runtime(), issue 17), on build/samples. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/elfmod.h"
#include "probes/err.h"

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"

/* A file of build/samples (next to the unit binary), which `make unit` builds. */
static const char *sample_path(const char *rel)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) / 2);

	cr_assert(gt(sz, (size_t)(n > 0 ? n : 0), 0));
	path[n] = '\0';
	snprintf(strrchr(path, '/'), sizeof(path) - n, "/samples/%s", rel);
	cr_assert(eq(int, access(path, R_OK), 0), "%s is missing: run `make unit`", path);
	return path;
}

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
		{ "go/app", ELFMOD_RT_GO },
		{ "go/app-nodwarf", ELFMOD_RT_GO },
		{ "go/app-stripped", ELFMOD_RT_GO },
		{ "rust/unwind", ELFMOD_RT_RUST },
		{ "rust/unwind-nodwarf", ELFMOD_RT_RUST },
		{ "rust/unwind-v0", ELFMOD_RT_RUST },
		{ "rust/unwind-nomark", ELFMOD_RT_NONE },
		{ "rust/unwind-v0-nomark", ELFMOD_RT_NONE },
		{ "query_server", ELFMOD_RT_NONE },
		{ "query_server-stripped", ELFMOD_RT_NONE },
		{ "cxx_throw", ELFMOD_RT_NONE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect(eq(int, runtime_of(sample_path(cases[i].sample)), cases[i].rt), "%s",
			  cases[i].sample);
	cr_expect(eq(int, runtime_of(LIBC), ELFMOD_RT_NONE), "libc");
}

