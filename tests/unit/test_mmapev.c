/* tests/unit/test_mmapev.c: how --events mmap records spell prot and flags. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>
#include <sys/mman.h>

#include "tracer/events/mmapev.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

Test(mmapev, prot_letters)
{
	static const struct { unsigned long prot; const char *want; } rows[] = {
		{ PROT_NONE, "---" },
		{ PROT_READ, "r--" },
		{ PROT_READ | PROT_EXEC, "r-x" },
		{ PROT_READ | PROT_WRITE, "rw-" },
		{ PROT_READ | PROT_WRITE | PROT_EXEC, "rwx" },
		{ PROT_WRITE | PROT_EXEC, "-wx" },
		{ PROT_EXEC, "--x" },
		{ PROT_READ | PROT_GROWSDOWN, "r--|PROT_GROWSDOWN" },
		{ PROT_READ | PROT_WRITE | 0x100, "rw-|0x100" },
	};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		memset(buf, 'Z', sizeof(buf));
		size_t n = mmapev__prot(rows[i].prot, buf, sizeof(buf));

		cr_expect(eq(str, buf, (char *)rows[i].want), "prot %#lx", rows[i].prot);
		cr_expect(eq(sz, n, strlen(rows[i].want)),
			  "prot %#lx: length %zu", rows[i].prot, n);
	}
}

Test(mmapev, prot_small_buffer)
{
	char buf[8];

	cr_expect(eq(sz, mmapev__prot(PROT_READ, buf, 3), 0));	/* no room for the NUL */
	cr_expect(eq(sz, mmapev__prot(PROT_READ, buf, 4), 3));
	cr_expect_str_eq(buf, "r--");
	/* the extra bits do not fit: nothing, not a cut name */
	cr_expect(eq(sz, mmapev__prot(PROT_READ | PROT_GROWSDOWN, buf, sizeof(buf)), 0));
	cr_expect_str_eq(buf, "");
}

Test(mmapev, flags_names)
{
	static const struct { unsigned long flags; const char *want; } rows[] = {
		{ MAP_PRIVATE, "MAP_PRIVATE" },
		{ MAP_SHARED, "MAP_SHARED" },
		{ MAP_PRIVATE | MAP_ANONYMOUS, "MAP_PRIVATE|MAP_ANONYMOUS" },
		/* what the dynamic loader passes for a library's segments */
		{ MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE" },
		{ MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
		  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE|MAP_STACK" },
		{ MAP_SHARED | MAP_FIXED_NOREPLACE, "MAP_SHARED|MAP_FIXED_NOREPLACE" },
		{ MAP_PRIVATE | 0x80000000UL, "MAP_PRIVATE|0x80000000" },
		{ MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21UL << 26),
		  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT" },
	};
	char buf[160];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		size_t n = mmapev__flags(rows[i].flags, buf, sizeof(buf));

		cr_expect(eq(str, buf, (char *)rows[i].want), "flags %#lx", rows[i].flags);
		cr_expect(eq(sz, n, strlen(rows[i].want)),
			  "flags %#lx: length %zu", rows[i].flags, n);
	}
}

Test(mmapev, max_len_holds_a_long_path)
{
	/* a path of PATH_MAX bytes, all escaped (6 bytes each in JSON), and the rest */
	cr_expect(ge(sz, mmapev_max_len(), 4096 * 6 + 512));
}
