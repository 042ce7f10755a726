/* tests/unit/test_maptab.c: tracer/space/maptab.c, replaying real loader syscall
 * sequences (recorded with strace) and checking the table range by range. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "tracer/space/maptab.h"

#define R	PROT_READ
#define RW	(PROT_READ | PROT_WRITE)
#define RX	(PROT_READ | PROT_EXEC)
#define NONE	PROT_NONE

enum op_kind { OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP, OP_END };

/* One traced syscall, as strace printed it (with the kernel's return value). */
struct op {
	enum op_kind kind;
	uint64_t addr;		/* mmap: the address returned; mremap: old address */
	uint64_t len;		/* mremap: old length */
	int prot;		/* mmap, mprotect */
	const char *path;	/* mmap: NULL for MAP_ANONYMOUS */
	uint64_t pgoff;		/* mmap */
	uint64_t new_addr;	/* mremap: returned address */
	uint64_t new_len;	/* mremap */
};

#define MMAP(a, l, p, f, o) \
	{ .kind = OP_MMAP, .addr = (a), .len = (l), .prot = (p), .path = (f), .pgoff = (o) }
#define MUNMAP(a, l)		{ .kind = OP_MUNMAP, .addr = (a), .len = (l) }
#define MPROTECT(a, l, p)	{ .kind = OP_MPROTECT, .addr = (a), .len = (l), .prot = (p) }
#define MREMAP(a, l, na, nl) \
	{ .kind = OP_MREMAP, .addr = (a), .len = (l), .new_addr = (na), .new_len = (nl) }
#define END			{ .kind = OP_END }

struct exp {
	uint64_t start, end, pgoff;
	int prot;
	const char *path;
};

static uint64_t page_up(uint64_t x)
{
	return (x + 4095) & ~4095ULL;
}

static void replay(struct maptab *mt, const struct op *ops)
{
	const struct op *o;

	for (o = ops; o->kind != OP_END; o++) {
		int ret = -1;

		switch (o->kind) {
		case OP_MMAP: {
			struct map_entry e = {
				.start = o->addr,
				.end = o->addr + page_up(o->len),
				.pgoff = o->pgoff,
				.prot = o->prot,
				.flags = MAP_PRIVATE | (o->path ? 0 : MAP_ANONYMOUS),
				.dev = o->path ? 0xfe00 : 0,
				.ino = o->path ? strlen(o->path) : 0,
				.path = (char *)o->path,
			};
			ret = maptab__insert(mt, &e);
			break;
		}
		case OP_MUNMAP:
			ret = maptab__remove(mt, o->addr, o->addr + o->len);
			break;
		case OP_MPROTECT:
			ret = maptab__protect(mt, o->addr, o->addr + o->len, o->prot);
			break;
		case OP_MREMAP:
			ret = maptab__move(mt, o->addr, o->len, o->new_addr, o->new_len, 0);
			break;
		case OP_END:
			break;
		}
		cr_assert(eq(int, ret, 0), "op %zu (kind %d at %#lx) returned %d",
			  (size_t)(o - ops), o->kind, (unsigned long)o->addr, ret);
	}
}

static void check_table(const struct maptab *mt, const struct exp *want, size_t n)
{
	size_t i;

	for (i = 0; i < maptab__count(mt) && i < n; i++) {
		const struct map_entry *e = maptab__at(mt, i);

		cr_assert(eq(u64, e->start, want[i].start), "entry %zu: start %#lx, want %#lx", i,
			  (unsigned long)e->start, (unsigned long)want[i].start);
		cr_assert(eq(u64, e->end, want[i].end), "entry %zu [%#lx): end %#lx, want %#lx", i,
			  (unsigned long)e->start, (unsigned long)e->end,
			  (unsigned long)want[i].end);
		cr_assert(eq(u64, e->pgoff, want[i].pgoff),
			  "entry %zu [%#lx): pgoff %#lx, want %#lx", i, (unsigned long)e->start,
			  (unsigned long)e->pgoff, (unsigned long)want[i].pgoff);
		cr_assert(eq(int, e->prot, want[i].prot), "entry %zu [%#lx): prot %d, want %d", i,
			  (unsigned long)e->start, e->prot, want[i].prot);
		if (want[i].path) {
			cr_assert(e->path && !strcmp(e->path, want[i].path),
				  "entry %zu [%#lx): path %s, want %s", i, (unsigned long)e->start,
				  e->path ? e->path : "(anon)", want[i].path);
			cr_assert(eq(ulong, e->ino, strlen(want[i].path)));
			cr_assert(eq(int, e->flags & MAP_ANONYMOUS, 0));
		} else {
			cr_assert_null(e->path, "entry %zu [%#lx): path %s, want anon", i,
				       (unsigned long)e->start, e->path);
			cr_assert(eq(int, e->flags & MAP_ANONYMOUS, MAP_ANONYMOUS));
		}
	}
	cr_assert(eq(sz, maptab__count(mt), n), "%zu entries, want %zu", maptab__count(mt), n);
}

#define CHECK_TABLE(mt, want) check_table(mt, want, sizeof(want) / sizeof(want[0]))

static struct map_entry file_map(uint64_t start, uint64_t end, uint64_t pgoff, int prot,
				 const char *path)
{
	struct map_entry e = {
		.start = start, .end = end, .pgoff = pgoff, .prot = prot,
		.flags = MAP_PRIVATE | (path ? 0 : MAP_ANONYMOUS),
		.dev = path ? 0xfe00 : 0, .ino = path ? strlen(path) : 0,
		.path = (char *)path,
	};
	return e;
}

static void insert(struct maptab *mt, uint64_t start, uint64_t end, uint64_t pgoff, int prot,
		   const char *path)
{
	struct map_entry e = file_map(start, end, pgoff, prot, path);

	cr_assert(eq(int, maptab__insert(mt, &e), 0));
}

/* ---- real loader sequences --------------------------------------------- */

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"
#define CACHE	"/etc/ld.so.cache"

/*
 * strace -f -e trace=mmap,munmap,mprotect,mremap /bin/true (glibc 2.36):
 * ld.so maps libc whole at pgoff 0 with PROT_READ, then maps text, rodata,
 * data over it with MAP_FIXED, then anonymous bss, then RELRO mprotect.
 */
static const struct op true_ops[] = {
	MMAP(0x7fe6b78ee000, 8192, RW, NULL, 0),
	MMAP(0x7fe6b78e3000, 43091, R, CACHE, 0),
	MMAP(0x7fe6b7701000, 1974096, R, LIBC, 0),
	MMAP(0x7fe6b7727000, 1400832, RX, LIBC, 0x26000),
	MMAP(0x7fe6b787d000, 339968, R, LIBC, 0x17c000),
	MMAP(0x7fe6b78d0000, 24576, RW, LIBC, 0x1cf000),
	MMAP(0x7fe6b78d6000, 53072, RW, NULL, 0),
	MMAP(0x7fe6b76fe000, 12288, RW, NULL, 0),
	MPROTECT(0x7fe6b78d0000, 16384, R),
	MPROTECT(0x555fe64c2000, 4096, R),	/* the executable: not in the table */
	MPROTECT(0x7fe6b7929000, 8192, R),	/* ld.so's RELRO: not in the table */
	MUNMAP(0x7fe6b78e3000, 43091),
	END,
};

Test(maptab, replay_bin_true)
{
	static const struct exp want[] = {
		{ 0x7fe6b76fe000, 0x7fe6b7701000, 0, RW, NULL },
		{ 0x7fe6b7701000, 0x7fe6b7727000, 0, R, LIBC },
		{ 0x7fe6b7727000, 0x7fe6b787d000, 0x26000, RX, LIBC },
		{ 0x7fe6b787d000, 0x7fe6b78d0000, 0x17c000, R, LIBC },
		{ 0x7fe6b78d0000, 0x7fe6b78d4000, 0x1cf000, R, LIBC },
		{ 0x7fe6b78d4000, 0x7fe6b78d6000, 0x1d3000, RW, LIBC },
		{ 0x7fe6b78d6000, 0x7fe6b78e3000, 0, RW, NULL },
		{ 0x7fe6b78ee000, 0x7fe6b78f0000, 0, RW, NULL },
	};
	struct maptab *mt = maptab__new();

	cr_assert_not_null(mt);
	replay(mt, true_ops);
	CHECK_TABLE(mt, want);
	maptab__free(mt);
}

/*
 * A library linked with -z max-page-size=0x10000 -z separate-code (so its
 * segments have holes), loaded by a program that then mremaps a buffer:
 * ld.so reserves PROT_NONE anonymous space, maps the file over it, munmaps
 * the unaligned head and the tail, mprotects the holes PROT_NONE, maps the
 * segments, then does libc as above.  Recorded from:
 *   gcc -shared -fPIC -Wl,-z,max-page-size=0x10000 -Wl,-z,separate-code -o libx.so lib.c
 *   gcc -o m main.c -L. -lx -Wl,-rpath,/tmp/mapexp
 *   strace -e trace=mmap,munmap,mprotect,mremap ./m
 * where lib.c has an initialized int and a 40000-byte array, and main()
 * does mmap(3 pages), mremap(to 8 pages, MREMAP_MAYMOVE), munmap(1 page).
 */
#define LIBX	"/tmp/mapexp/libx.so"
static const struct op libx_ops[] = {
	MMAP(0x7f1ad0175000, 8192, RW, NULL, 0),
	MMAP(0x7f1ad011b000, 367744, NONE, NULL, 0),
	MMAP(0x7f1ad0120000, 302208, R, LIBX, 0),
	MUNMAP(0x7f1ad011b000, 20480),
	MUNMAP(0x7f1ad016a000, 44160),
	MPROTECT(0x7f1ad0121000, 253952, NONE),
	MMAP(0x7f1ad0130000, 4096, RX, LIBX, 0x10000),
	MMAP(0x7f1ad0140000, 4096, R, LIBX, 0x20000),
	MMAP(0x7f1ad015f000, 8192, RW, LIBX, 0x2f000),
	MMAP(0x7f1ad0161000, 35968, RW, NULL, 0),
	MMAP(0x7f1ad016a000, 43091, R, CACHE, 0),
	MMAP(0x7f1acff3e000, 1974096, R, LIBC, 0),
	MMAP(0x7f1acff64000, 1400832, RX, LIBC, 0x26000),
	MMAP(0x7f1ad00ba000, 339968, R, LIBC, 0x17c000),
	MMAP(0x7f1ad010d000, 24576, RW, LIBC, 0x1cf000),
	MMAP(0x7f1ad0113000, 53072, RW, NULL, 0),
	MMAP(0x7f1acff3b000, 12288, RW, NULL, 0),
	MPROTECT(0x7f1ad010d000, 16384, R),
	MPROTECT(0x7f1ad015f000, 4096, R),
	MPROTECT(0x562e9b64a000, 4096, R),
	MPROTECT(0x7f1ad01b0000, 8192, R),
	MUNMAP(0x7f1ad016a000, 43091),
	/* main(): mmap 3 pages, mremap to 8 (moved down), munmap the first page */
	MMAP(0x7f1ad0172000, 12288, RW, NULL, 0),
	MREMAP(0x7f1ad0172000, 12288, 0x7f1ad016a000, 32768),
	MUNMAP(0x7f1ad016a000, 4096),
	END,
};

Test(maptab, replay_lib_with_holes_and_mremap)
{
	static const struct exp want[] = {
		{ 0x7f1acff3b000, 0x7f1acff3e000, 0, RW, NULL },
		{ 0x7f1acff3e000, 0x7f1acff64000, 0, R, LIBC },
		{ 0x7f1acff64000, 0x7f1ad00ba000, 0x26000, RX, LIBC },
		{ 0x7f1ad00ba000, 0x7f1ad010d000, 0x17c000, R, LIBC },
		{ 0x7f1ad010d000, 0x7f1ad0111000, 0x1cf000, R, LIBC },
		{ 0x7f1ad0111000, 0x7f1ad0113000, 0x1d3000, RW, LIBC },
		{ 0x7f1ad0113000, 0x7f1ad0120000, 0, RW, NULL },
		{ 0x7f1ad0120000, 0x7f1ad0121000, 0, R, LIBX },
		{ 0x7f1ad0121000, 0x7f1ad0130000, 0x1000, NONE, LIBX },
		{ 0x7f1ad0130000, 0x7f1ad0131000, 0x10000, RX, LIBX },
		{ 0x7f1ad0131000, 0x7f1ad0140000, 0x11000, NONE, LIBX },
		{ 0x7f1ad0140000, 0x7f1ad0141000, 0x20000, R, LIBX },
		{ 0x7f1ad0141000, 0x7f1ad015f000, 0x21000, NONE, LIBX },
		{ 0x7f1ad015f000, 0x7f1ad0160000, 0x2f000, R, LIBX },
		{ 0x7f1ad0160000, 0x7f1ad0161000, 0x30000, RW, LIBX },
		{ 0x7f1ad0161000, 0x7f1ad016a000, 0, RW, NULL },
		/* moved anonymous memory: its head trimmed, pgoff advanced */
		{ 0x7f1ad016b000, 0x7f1ad0172000, 0x1000, RW, NULL },
		{ 0x7f1ad0175000, 0x7f1ad0177000, 0, RW, NULL },
	};
	struct maptab *mt = maptab__new();
	const struct map_entry *e;

	replay(mt, libx_ops);
	CHECK_TABLE(mt, want);

	/* A probe in libx's text: start + (file offset - pgoff). */
	e = maptab__find(mt, 0x7f1ad0130000 + 0x123);
	cr_assert_not_null(e);
	cr_assert(eq(ulong, e->start + (0x10123 - e->pgoff), 0x7f1ad0130123));
	maptab__free(mt);
}

/* Replaying in a different order must not matter once the segments are mapped. */
Test(maptab, replay_prefix_intermediate_state)
{
	static const struct exp want[] = {
		{ 0x7f1ad0120000, 0x7f1ad0121000, 0, R, LIBX },
		{ 0x7f1ad0121000, 0x7f1ad015f000, 0x1000, NONE, LIBX },
		{ 0x7f1ad015f000, 0x7f1ad016a000, 0x3f000, R, LIBX },
		{ 0x7f1ad0175000, 0x7f1ad0177000, 0, RW, NULL },
	};
	struct op ops[7];
	struct maptab *mt = maptab__new();

	/* Up to the PROT_NONE mprotect of the holes. */
	memcpy(ops, libx_ops, 6 * sizeof(ops[0]));
	ops[6].kind = OP_END;
	replay(mt, ops);
	CHECK_TABLE(mt, want);
	maptab__free(mt);
}

/* ---- single operations ------------------------------------------------- */

Test(maptab, munmap_hole_in_middle)
{
	static const struct exp want[] = {
		{ 0x10000, 0x12000, 0x5000, RX, "/f" },
		{ 0x14000, 0x18000, 0x9000, RX, "/f" },
	};
	struct maptab *mt = maptab__new();
	uint64_t gen;

	insert(mt, 0x10000, 0x18000, 0x5000, RX, "/f");
	gen = maptab__at(mt, 0)->gen;
	cr_assert(eq(int, maptab__remove(mt, 0x12000, 0x13001), 0));	/* rounded up to 0x14000 */
	CHECK_TABLE(mt, want);
	/* Both pieces still hold what was mapped: same gen, shared path text. */
	cr_assert(eq(u64, maptab__at(mt, 0)->gen, gen));
	cr_assert(eq(u64, maptab__at(mt, 1)->gen, gen));
	/* Removing unmapped space and an empty range changes nothing. */
	cr_assert(eq(int, maptab__remove(mt, 0x12000, 0x14000), 0));
	cr_assert(eq(int, maptab__remove(mt, 0x20000, 0x20000), 0));
	CHECK_TABLE(mt, want);
	cr_assert(eq(int, maptab__remove(mt, 0x12001, 0x14000), -EINVAL));
	/* Removing across both pieces trims the first's tail and the second's head. */
	cr_assert(eq(int, maptab__remove(mt, 0x11000, 0x15000), 0));
	{
		static const struct exp want2[] = {
			{ 0x10000, 0x11000, 0x5000, RX, "/f" },
			{ 0x15000, 0x18000, 0xa000, RX, "/f" },
		};
		CHECK_TABLE(mt, want2);
	}
	cr_assert(eq(int, maptab__remove(mt, 0, 0x100000), 0));
	cr_assert(eq(sz, maptab__count(mt), 0));
	maptab__free(mt);
}

Test(maptab, insert_overlapping_several)
{
	static const struct exp want[] = {
		{ 0x10000, 0x11000, 0, R, "/a" },
		{ 0x11000, 0x1e000, 0x1000, RW, "/b" },
		{ 0x1e000, 0x20000, 0x2000, R, "/c" },
	};
	struct maptab *mt = maptab__new();
	struct map_entry bad = file_map(0x1000, 0x1000, 0, R, NULL);
	uint64_t g0;

	insert(mt, 0x10000, 0x14000, 0, R, "/a");
	insert(mt, 0x14000, 0x18000, 0, R, "/x");
	insert(mt, 0x18000, 0x1c000, 0, R, NULL);
	insert(mt, 0x1c000, 0x20000, 0, R, "/c");
	g0 = maptab__at(mt, 0)->gen;
	/* Trims /a's tail, swallows /x and the anon, trims /c's head. */
	insert(mt, 0x11000, 0x1e000, 0x1000, RW, "/b");
	CHECK_TABLE(mt, want);
	cr_assert(eq(u64, maptab__at(mt, 0)->gen, g0));
	cr_assert(gt(u64, maptab__at(mt, 1)->gen, maptab__at(mt, 2)->gen));
	/* The same range again replaces the entry and gives it a new gen. */
	g0 = maptab__at(mt, 1)->gen;
	insert(mt, 0x11000, 0x1e000, 0x1000, RW, "/b");
	CHECK_TABLE(mt, want);
	cr_assert(gt(u64, maptab__at(mt, 1)->gen, g0));

	cr_assert(eq(int, maptab__insert(mt, &bad), -EINVAL));
	bad.end = 0x2800;
	cr_assert(eq(int, maptab__insert(mt, &bad), -EINVAL));
	bad.start = 0x800;
	bad.end = 0x2000;
	cr_assert(eq(int, maptab__insert(mt, &bad), -EINVAL));
	CHECK_TABLE(mt, want);
	maptab__free(mt);
}

Test(maptab, adjacent_entries_not_merged)
{
	struct maptab *mt = maptab__new();

	insert(mt, 0x10000, 0x11000, 0, R, "/a");
	insert(mt, 0x11000, 0x12000, 0x1000, R, "/a");
	insert(mt, 0x12000, 0x13000, 0, RW, NULL);
	insert(mt, 0x13000, 0x14000, 0, RW, NULL);
	cr_assert(eq(sz, maptab__count(mt), 4));
	cr_assert(eq(int, maptab__protect(mt, 0x10000, 0x14000, RW), 0));
	cr_assert(eq(sz, maptab__count(mt), 4));
	maptab__free(mt);
}

Test(maptab, mprotect_split_edges)
{
	static const struct exp want[] = {
		{ 0x10000, 0x11000, 0, R, "/a" },
		{ 0x11000, 0x14000, 0x1000, RW, "/a" },
		{ 0x15000, 0x17000, 0x8000, RW, "/b" },
		{ 0x17000, 0x18000, 0xa000, R, "/b" },
		{ 0x18000, 0x1a000, 0, RW, NULL },
		{ 0x1a000, 0x1b000, 0x2000, RW, NULL },
	};
	struct maptab *mt = maptab__new();
	uint64_t gen_b;

	insert(mt, 0x10000, 0x14000, 0, R, "/a");
	insert(mt, 0x15000, 0x18000, 0x8000, R, "/b");
	insert(mt, 0x18000, 0x1b000, 0, RW, NULL);
	gen_b = maptab__at(mt, 1)->gen;
	/* Spans a hole; the anon part already has PROT and stays whole. */
	cr_assert(eq(int, maptab__protect(mt, 0x11000, 0x17000, RW), 0));
	cr_assert(eq(int, maptab__protect(mt, 0x1a000, 0x1b000, RX), 0));
	cr_assert(eq(int, maptab__protect(mt, 0x1a000, 0x1afff, RW), 0));	/* rounded up */
	/* Part of an entry that already has PROT: no split (as the kernel does). */
	cr_assert(eq(int, maptab__protect(mt, 0x19000, 0x1a000, RW), 0));
	CHECK_TABLE(mt, want);
	cr_assert(eq(u64, maptab__at(mt, 2)->gen, gen_b));
	cr_assert(eq(u64, maptab__at(mt, 3)->gen, gen_b));
	/* Strictly inside one entry: three pieces. */
	cr_assert(eq(int, maptab__protect(mt, 0x12000, 0x13000, NONE), 0));
	cr_assert(eq(sz, maptab__count(mt), 8));
	cr_assert(eq(int, maptab__find(mt, 0x12000)->prot, NONE));
	cr_assert(eq(u64, maptab__find(mt, 0x12000)->pgoff, 0x2000));
	cr_assert(eq(int, maptab__find(mt, 0x13000)->prot, RW));
	cr_assert(eq(u64, maptab__find(mt, 0x13000)->pgoff, 0x3000));
	cr_assert(eq(int, maptab__protect(mt, 0x12800, 0x13000, NONE), -EINVAL));
	maptab__free(mt);
}

Test(maptab, mremap_in_place)
{
	struct maptab *mt = maptab__new();
	const struct map_entry *e;
	uint64_t gen;

	insert(mt, 0x10000, 0x12000, 0, R, "/a");
	insert(mt, 0x12000, 0x14000, 0x7000, RW, "/b");
	insert(mt, 0x20000, 0x21000, 0, RW, NULL);
	gen = maptab__at(mt, 1)->gen;
	/* Grow: the last entry of the old range extends, same file and pgoff. */
	cr_assert(eq(int, maptab__move(mt, 0x10000, 0x4000, 0x10000, 0x6000, 0), 0));
	e = maptab__find(mt, 0x15fff);
	cr_assert_not_null(e);
	cr_assert(eq(u64, e->start, 0x12000));
	cr_assert(eq(u64, e->end, 0x16000));
	cr_assert(eq(u64, e->pgoff, 0x7000));
	cr_assert_str_eq(e->path, "/b");
	cr_assert(eq(u64, e->gen, gen));
	cr_assert(eq(sz, maptab__count(mt), 3));
	/* Shrink into the first entry: /b goes, /a is trimmed. */
	cr_assert(eq(int, maptab__move(mt, 0x10000, 0x6000, 0x10000, 0x1000, 0), 0));
	cr_assert(eq(sz, maptab__count(mt), 2));
	e = maptab__at(mt, 0);
	cr_assert(eq(u64, e->start, 0x10000));
	cr_assert(eq(u64, e->end, 0x11000));
	cr_assert_str_eq(e->path, "/a");
	cr_assert_null(maptab__find(mt, 0x11000));
	/* Growing something unmapped fails and changes nothing. */
	cr_assert(eq(int, maptab__move(mt, 0x30000, 0x1000, 0x30000, 0x2000, 0), -ENOENT));
	cr_assert(eq(sz, maptab__count(mt), 2));
	maptab__free(mt);
}

Test(maptab, mremap_move_grow_shrink_multi)
{
	static const struct exp want[] = {
		{ 0x10000, 0x13000, 0x2000, R, "/a" },
		{ 0x30000, 0x31000, 0x4000, RW, "/m" },
		{ 0x33000, 0x34000, 0x7000, RW, "/m" },
		{ 0x40000, 0x41000, 0x5000, R, "/a" },
		{ 0x41000, 0x45000, 0x9000, RW, "/b" },
		{ 0x45000, 0x48000, 0x5000, RW, NULL },
		{ 0x50000, 0x51000, 0x5000, RW, "/m" },
	};
	struct maptab *mt = maptab__new();
	uint64_t g;

	/* Two entries in the old range (the kernel may have merged them). */
	insert(mt, 0x10000, 0x14000, 0x2000, R, "/a");
	insert(mt, 0x14000, 0x16000, 0x9000, RW, "/b");
	insert(mt, 0x40000, 0x48000, 0, RW, NULL);	/* MREMAP_FIXED target: trimmed */
	insert(mt, 0x30000, 0x34000, 0x4000, RW, "/m");
	g = maptab__find(mt, 0x30000)->gen;
	/* Move [0x13000, 0x16000) to 0x40000, growing by two pages. */
	cr_assert(eq(int, maptab__move(mt, 0x13000, 0x3000, 0x40000, 0x5000, 0), 0));
	/* Move-and-shrink the second and third pages of /m to one page. */
	cr_assert(eq(int, maptab__move(mt, 0x31000, 0x2000, 0x50000, 0x1000, 0), 0));
	CHECK_TABLE(mt, want);
	cr_assert(gt(u64, maptab__find(mt, 0x40000)->gen, g));
	cr_assert(gt(u64, maptab__find(mt, 0x50000)->gen, g));
	cr_assert(ne(u64, maptab__find(mt, 0x40000)->gen, maptab__find(mt, 0x41000)->gen));
	cr_assert(eq(u64, maptab__find(mt, 0x33000)->gen, g));
	maptab__free(mt);
}

Test(maptab, mremap_dontunmap_and_dup)
{
	struct maptab *mt = maptab__new();
	const struct map_entry *e;
	uint64_t g_old;

	insert(mt, 0x10000, 0x13000, 0, RW, NULL);
	g_old = maptab__at(mt, 0)->gen;
	/* MREMAP_DONTUNMAP of the middle page: old stays (new gen there only). */
	cr_assert(eq(int, maptab__move(mt, 0x11000, 0x1000, 0x20000, 0x1000, 1), 0));
	cr_assert(eq(sz, maptab__count(mt), 4));
	cr_assert(eq(u64, maptab__find(mt, 0x10000)->gen, g_old));
	cr_assert(eq(u64, maptab__find(mt, 0x12000)->gen, g_old));
	e = maptab__find(mt, 0x11000);
	cr_assert(eq(u64, e->start, 0x11000));
	cr_assert(eq(u64, e->end, 0x12000));
	cr_assert(eq(int, e->prot, RW));
	cr_assert(gt(u64, e->gen, g_old));
	e = maptab__find(mt, 0x20000);
	cr_assert(eq(u64, e->start, 0x20000));
	cr_assert(eq(u64, e->end, 0x21000));
	cr_assert(eq(u64, e->pgoff, 0x1000));
	cr_assert(gt(u64, e->gen, maptab__find(mt, 0x11000)->gen));

	/* OLDLEN 0 on a shared file mapping: a second view, old untouched. */
	insert(mt, 0x30000, 0x34000, 0x10000, RW, "/shm");
	cr_assert(eq(int, maptab__move(mt, 0x31000, 0, 0x50000, 0x2000, 0), 0));
	e = maptab__find(mt, 0x50000);
	cr_assert(eq(u64, e->start, 0x50000));
	cr_assert(eq(u64, e->end, 0x52000));
	cr_assert(eq(u64, e->pgoff, 0x11000));
	cr_assert_str_eq(e->path, "/shm");
	cr_assert(eq(u64, maptab__find(mt, 0x31000)->start, 0x30000));
	cr_assert(eq(sz, maptab__count(mt), 6));

	cr_assert(eq(int, maptab__move(mt, 0x90000, 0x1000, 0xa0000, 0x1000, 0), -ENOENT));
	cr_assert(eq(int, maptab__move(mt, 0x10000, 0x1000, 0xa0000, 0, 0), -EINVAL));
	cr_assert(eq(int, maptab__move(mt, 0x10800, 0x1000, 0xa0000, 0x1000, 0), -EINVAL));
	cr_assert(eq(sz, maptab__count(mt), 6));
	maptab__free(mt);
}

Test(maptab, find_and_at)
{
	static const struct {
		uint64_t addr;
		uint64_t start;		/* 0: not mapped */
	} cases[] = {
		{ 0, 0 }, { 0xffff, 0 }, { 0x10000, 0x10000 }, { 0x10fff, 0x10000 },
		{ 0x11000, 0x11000 }, { 0x11fff, 0x11000 }, { 0x12000, 0 }, { 0x2ffff, 0 },
		{ 0x30000, 0x30000 }, { 0x30fff, 0x30000 }, { 0x31000, 0 },
		{ UINT64_MAX, 0 },
	};
	struct maptab *mt = maptab__new();
	size_t i;

	cr_assert_null(maptab__find(mt, 0x10000));
	cr_assert_null(maptab__at(mt, 0));
	insert(mt, 0x30000, 0x31000, 0, R, NULL);
	insert(mt, 0x10000, 0x11000, 0, R, NULL);
	insert(mt, 0x11000, 0x12000, 0, R, NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct map_entry *e = maptab__find(mt, cases[i].addr);

		if (!cases[i].start) {
			cr_assert_null(e, "%#lx", (unsigned long)cases[i].addr);
		} else {
			cr_assert_not_null(e, "%#lx", (unsigned long)cases[i].addr);
			cr_assert(eq(u64, e->start, cases[i].start), "%#lx",
				  (unsigned long)cases[i].addr);
		}
	}
	cr_assert(eq(u64, maptab__at(mt, 2)->start, 0x30000));
	cr_assert_null(maptab__at(mt, 3));
	maptab__free(mt);
}

Test(maptab, many_entries_sorted)
{
	struct maptab *mt = maptab__new();
	size_t i;

	/* Insert 500 pages in a scrambled order; growth goes through array_grow. */
	for (i = 0; i < 500; i++) {
		uint64_t p = (i * 7919) % 500;

		insert(mt, 0x100000 + p * 0x2000, 0x101000 + p * 0x2000, p, R, "/lib");
	}
	cr_assert(eq(sz, maptab__count(mt), 500));
	for (i = 0; i < 500; i++) {
		const struct map_entry *e = maptab__at(mt, i);

		cr_assert(eq(ulong, e->start, 0x100000 + i * 0x2000));
		cr_assert(eq(ulong, e->pgoff, i));
		cr_assert(eq(ptr, (void *)maptab__find(mt, e->start + 0xfff), (void *)e));
		cr_assert_null(maptab__find(mt, e->start + 0x1000));
	}
	maptab__free(mt);
}

Test(maptab, clone_is_independent)
{
	struct maptab *mt = maptab__new();
	struct maptab *c;
	const struct map_entry *e;

	replay(mt, true_ops);
	c = maptab__clone(mt);
	cr_assert_not_null(c);
	cr_assert(eq(sz, maptab__count(c), maptab__count(mt)));
	for (size_t i = 0; i < maptab__count(mt); i++) {
		const struct map_entry *a = maptab__at(mt, i), *b = maptab__at(c, i);

		cr_assert(eq(u64, a->start, b->start));
		cr_assert(eq(u64, a->end, b->end));
		cr_assert(eq(u64, a->pgoff, b->pgoff));
		cr_assert(eq(int, a->prot, b->prot));
		cr_assert(eq(u64, a->gen, b->gen));	/* fork keeps gens */
		if (a->path) {
			cr_assert(ne(ptr, a->path, b->path));
			cr_assert_str_eq(a->path, b->path);
		}
	}
	/* The child unmaps libc's text and execs; the parent is unaffected. */
	cr_assert(eq(int, maptab__remove(c, 0x7fe6b7727000, 0x7fe6b787d000), 0));
	cr_assert_null(maptab__find(c, 0x7fe6b7727000));
	e = maptab__find(mt, 0x7fe6b7727000);
	cr_assert_not_null(e);
	cr_assert(eq(u64, e->pgoff, 0x26000));
	maptab__free(mt);
	/* The clone's paths outlive the original. */
	e = maptab__find(c, 0x7fe6b787d000);
	cr_assert_str_eq(e->path, LIBC);
	{
		/* New gens in the clone continue past the parent's. */
		uint64_t max = 0;

		for (size_t i = 0; i < maptab__count(c); i++)
			if (maptab__at(c, i)->gen > max)
				max = maptab__at(c, i)->gen;
		insert(c, 0x1000, 0x2000, 0, R, NULL);
		cr_assert(gt(u64, maptab__find(c, 0x1000)->gen, max));
	}
	maptab__free(c);
	maptab__free(NULL);
}

Test(maptab, clear_on_exec)
{
	struct maptab *mt = maptab__new();
	uint64_t last;

	replay(mt, libx_ops);
	last = maptab__at(mt, 0)->gen;
	for (size_t i = 0; i < maptab__count(mt); i++)
		if (maptab__at(mt, i)->gen > last)
			last = maptab__at(mt, i)->gen;
	maptab__clear(mt);
	cr_assert(eq(sz, maptab__count(mt), 0));
	cr_assert_null(maptab__find(mt, 0x7f1ad0130000));
	/* The new image's entries never reuse a gen of the old one. */
	insert(mt, 0x7f1ad0130000, 0x7f1ad0131000, 0, RX, "/new");
	cr_assert(gt(u64, maptab__at(mt, 0)->gen, last));
	cr_assert(eq(sz, maptab__count(mt), 1));
	maptab__free(mt);
}

/* ---- find_gap ---------------------------------------------------------- */

#define REACH	0x7fff0000ULL

Test(maptab, find_gap_cases)
{
	/* A module [0x7f0000400000, 0x7f0000410000) with neighbours. */
	struct maptab *mt = maptab__new();
	static const struct {
		const char *what;
		uint64_t lo, hi, len, reach, min_addr;
		int ret;
		uint64_t want;
	} cases[] = {
		{ "nearest: the page just below the lower neighbour",
		  0x7f0000400000, 0x7f0000410000, 0x1000, REACH, 0x10000, 0, 0x7f00003fd000 },
		{ "a bigger hole: the first fit above",
		  0x7f0000400000, 0x7f0000410000, 0x4000, REACH, 0x10000, 0, 0x7f0000412000 },
		{ "too big for any hole within reach",
		  0x7f0000400000, 0x7f0000410000, 0x100000, 0x20000, 0x10000, -ENOSPC, 0 },
		{ "reach exactly hi - hole_start (below) and hole_end - lo (above): lower",
		  0x7f0000400000, 0x7f0000410000, 0x1000, 0x13000, 0x10000, 0, 0x7f00003fd000 },
		{ "one byte less reach: neither",
		  0x7f0000400000, 0x7f0000410000, 0x1000, 0x12fff, 0x10000, -ENOSPC, 0 },
		{ "below excluded by min_addr: hole_end - lo == reach above",
		  0x7f0000400000, 0x7f0000410000, 0x1000, 0x13000, 0x7f00003fe000, 0,
		  0x7f0000412000 },
		{ "below excluded by min_addr, one byte less reach",
		  0x7f0000400000, 0x7f0000410000, 0x1000, 0x12fff, 0x7f00003fe000, -ENOSPC, 0 },
		{ "min_addr above everything near: nothing",
		  0x7f0000400000, 0x7f0000410000, 0x1000, 0x100000, 0x7f0001000000, -ENOSPC, 0 },
		{ "min_addr inside the lower hole (unaligned, rounded up)",
		  0x7f0000400000, 0x7f0000410000, 0x1000, REACH, 0x7f00003fd001, 0,
		  0x7f0000412000 },
		{ "user limit: the module at the top, the hole below it",
		  0x7ffffff00000, 0x7ffffffff000, 0x1000, REACH, 0x10000, 0, 0x7fffffeff000 },
		{ "low module: nothing under min_addr",
		  0x10000, 0x20000, 0x1000, REACH, 0x10000, 0, 0x20000 },
		{ "empty range", 0x20000, 0x20000, 0x1000, REACH, 0, -EINVAL, 0 },
		{ "zero length", 0x20000, 0x30000, 0, REACH, 0, -EINVAL, 0 },
	};
	size_t i;

	insert(mt, 0x7f00003fe000, 0x7f0000400000, 0, RW, NULL);	/* lower neighbour */
	insert(mt, 0x7f0000400000, 0x7f0000410000, 0, RX, "/mod");
	insert(mt, 0x7f0000410000, 0x7f0000411000, 0, RW, NULL);
	insert(mt, 0x7f0000411000, 0x7f0000412000, 0, RW, NULL);
	insert(mt, 0x7f0000416000, 0x7f0000500000, 0, RW, NULL);
	insert(mt, 0x7f00003f0000, 0x7f00003fd000, 0, RW, NULL);
	insert(mt, 0x10000, 0x20000, 0, RX, "/low");
	insert(mt, 0x7ffffff00000, 0x7ffffffff000, 0, RX, "/top");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t out = 0;
		int ret = maptab__find_gap(mt, cases[i].lo, cases[i].hi, cases[i].len,
					   cases[i].reach, cases[i].min_addr, &out);

		cr_assert(eq(int, ret, cases[i].ret), "%s: ret %d", cases[i].what, ret);
		if (ret == 0) {
			cr_assert(eq(u64, out, cases[i].want), "%s: %#lx, want %#lx", cases[i].what,
				  (unsigned long)out, (unsigned long)cases[i].want);
			cr_assert_null(maptab__find(mt, out));
			cr_assert_null(maptab__find(mt, out + cases[i].len - 1));
			/* Every byte of the hole within reach of every byte of the module. */
			if (out + cases[i].len > cases[i].lo)
				cr_assert(le(u64, out + cases[i].len - cases[i].lo,
					     cases[i].reach));
			if (cases[i].hi > out)
				cr_assert(le(u64, cases[i].hi - out, cases[i].reach));
		}
	}
	maptab__free(mt);
}

Test(maptab, find_gap_empty_table_and_full)
{
	struct maptab *mt = maptab__new();
	uint64_t out = 0;

	/* Nothing mapped: right below the module (ties go to the lower). */
	cr_assert(eq(int, maptab__find_gap(mt, 0x400000, 0x401000, 0x1000, REACH, 0x10000, &out),
		     0));
	cr_assert(eq(u64, out, 0x3ff000));
	/* Everything within reach mapped. */
	insert(mt, 0x10000, MAPTAB_USER_LIMIT, 0, RW, NULL);
	cr_assert(eq(int, maptab__find_gap(mt, 0x400000, 0x401000, 0x1000, REACH, 0x10000, &out),
		     -ENOSPC));
	/* Below min_addr there is room, but it is not allowed. */
	cr_assert(eq(int, maptab__find_gap(mt, 0x400000, 0x401000, 0x1000, REACH, 0x1000, &out),
		     0));
	cr_assert(eq(u64, out, 0xf000));
	maptab__free(mt);
}

/* ---- /proc/PID/maps ---------------------------------------------------- */

static const char maps_text[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1234                       /usr/bin/prog name\n"
	"55d0c0a02000-55d0c0a07000 r-xp 00002000 fe:01 1234                       /usr/bin/prog name\n"
	"55d0c1c4b000-55d0c1c6c000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f3a10000000-7f3a10021000 rw-s 00000000 00:01 77                         /memfd:jit (deleted)\n"
	"7f3a10021000-7f3a10022000 rw-p 00000000 00:00 0 \n"
	"7f3a10022000-7f3a10023000 rw-p 00000000 00:00 0\n"
	"7f3a10100000-7f3a10101000 r--p 00003000 103:02 9999                      /tmp/a dir/lib x.so (deleted)\n"
	"7ffd7c000000-7ffd7c021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd7c1f0000-7ffd7c1f2000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

Test(maptab, parse_maps_text)
{
	static const struct {
		uint64_t start, end, pgoff;
		int prot, flags;
		uint64_t dev, ino;
		const char *path;
	} want[] = {
		{ 0x55d0c0a00000, 0x55d0c0a02000, 0, R, MAP_PRIVATE, 0, 1234, "/usr/bin/prog name" },
		{ 0x55d0c0a02000, 0x55d0c0a07000, 0x2000, RX, MAP_PRIVATE, 0, 1234,
		  "/usr/bin/prog name" },
		{ 0x55d0c1c4b000, 0x55d0c1c6c000, 0, RW, MAP_PRIVATE | MAP_ANONYMOUS, 0, 0, "[heap]" },
		{ 0x7f3a10000000, 0x7f3a10021000, 0, RW, MAP_SHARED, 0, 77, "/memfd:jit (deleted)" },
		{ 0x7f3a10021000, 0x7f3a10022000, 0, RW, MAP_PRIVATE | MAP_ANONYMOUS, 0, 0, NULL },
		{ 0x7f3a10022000, 0x7f3a10023000, 0, RW, MAP_PRIVATE | MAP_ANONYMOUS, 0, 0, NULL },
		{ 0x7f3a10100000, 0x7f3a10101000, 0x3000, R, MAP_PRIVATE, 0, 9999,
		  "/tmp/a dir/lib x.so (deleted)" },
		{ 0x7ffd7c000000, 0x7ffd7c021000, 0, RW, MAP_PRIVATE | MAP_ANONYMOUS, 0, 0, "[stack]" },
		{ 0x7ffd7c1f0000, 0x7ffd7c1f2000, 0, RX, MAP_PRIVATE | MAP_ANONYMOUS, 0, 0, "[vdso]" },
	};
	uint64_t devs[] = { makedev(0xfe, 1), makedev(0xfe, 1), 0, makedev(0, 1), 0, 0,
			    makedev(0x103, 2), 0, 0 };
	struct maptab *mt = maptab__new();
	size_t i;

	cr_assert(eq(int, maptab__parse_maps_str(mt, maps_text), 0));
	cr_assert(eq(ulong, maptab__count(mt), sizeof(want) / sizeof(want[0])));
	for (i = 0; i < maptab__count(mt); i++) {
		const struct map_entry *e = maptab__at(mt, i);

		cr_assert(eq(u64, e->start, want[i].start), "line %zu", i);
		cr_assert(eq(u64, e->end, want[i].end), "line %zu", i);
		cr_assert(eq(u64, e->pgoff, want[i].pgoff), "line %zu", i);
		cr_assert(eq(int, e->prot, want[i].prot), "line %zu", i);
		cr_assert(eq(int, e->flags, want[i].flags), "line %zu", i);
		cr_assert(eq(u64, e->dev, devs[i]), "line %zu: dev %#lx", i, (unsigned long)e->dev);
		cr_assert(eq(u64, e->ino, want[i].ino), "line %zu", i);
		if (want[i].path)
			cr_assert(eq(str, e->path, (char *)want[i].path), "line %zu", i);
		else
			cr_assert_null(e->path, "line %zu: %s", i, e->path);
	}
	/* A dev of fe:01 is what stat() reports for that device. */
	cr_assert(eq(uint, major(maptab__at(mt, 0)->dev), 0xfe));
	cr_assert(eq(uint, minor(maptab__at(mt, 0)->dev), 1));
	maptab__free(mt);
}

Test(maptab, parse_maps_errors_leave_table)
{
	static const char *bad[] = {
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01\n",
		"garbage\n",
		"1000-2000 r--p 0 fe:01 5 /a\n0000-1000 r--p 0 fe:01 5 /b\n",	/* unsorted */
	};
	struct maptab *mt = maptab__new();
	size_t i;

	cr_assert(eq(int, maptab__parse_maps_str(mt, maps_text), 0));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert(eq(int, maptab__parse_maps_str(mt, bad[i]), -EINVAL), "case %zu", i);
		cr_assert(eq(sz, maptab__count(mt), 9), "case %zu", i);
	}
	cr_assert(eq(int, maptab__parse_maps_str(mt, ""), 0));
	cr_assert(eq(sz, maptab__count(mt), 0));
	maptab__free(mt);
}

/*
 * Under ASan (make unit-asan) this process's anonymous mappings move between
 * two reads of its table: ASan's allocator grows its regions in place, and its
 * quarantine keeps freed memory from being reused, so no retry settles them.
 */
#ifdef __SANITIZE_ADDRESS__
static const bool anon_rows_move = true;
#else
static const bool anon_rows_move = false;
#endif

static bool entries_equal(const struct map_entry *a, const struct map_entry *b)
{
	bool moves = anon_rows_move && !a->path && !b->path;

	if ((!moves && (a->start != b->start || a->end != b->end)) || a->pgoff != b->pgoff ||
	    a->prot != b->prot || a->flags != b->flags || a->dev != b->dev || a->ino != b->ino)
		return false;
	if (!a->path || !b->path)
		return a->path == b->path;
	return !strcmp(a->path, b->path);
}

/* The first difference between the two tables, or -1. */
static long tables_differ(const struct maptab *a, const struct maptab *b)
{
	size_t i;

	for (i = 0; i < maptab__count(a) && i < maptab__count(b); i++)
		if (!entries_equal(maptab__at(a, i), maptab__at(b, i)))
			return i;
	return maptab__count(a) == maptab__count(b) ? -1 : (long)i;
}

struct self_fixture {
	char dir[64];
	char spaced[128], deleted[128];
	void *spaced_map, *deleted_map;
	struct stat spaced_st;
};

static struct self_fixture self_fx;

/* Map a file whose path has a space and one that is then unlinked. */
static void self_fixture_setup(void)
{
	struct self_fixture *fx = &self_fx;
	int fd;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/ptap maptab.XXXXXX");
	cr_assert_not_null(mkdtemp(fx->dir));
	snprintf(fx->spaced, sizeof(fx->spaced), "%.63s/a file", fx->dir);
	snprintf(fx->deleted, sizeof(fx->deleted), "%.63s/gone", fx->dir);

	fd = open(fx->spaced, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(ge(int, fd, 0));
	cr_assert(eq(int, ftruncate(fd, 3 * 4096), 0));
	fx->spaced_map = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
	cr_assert(ne(ptr, fx->spaced_map, MAP_FAILED));
	cr_assert(eq(int, fstat(fd, &fx->spaced_st), 0));
	close(fd);

	fd = open(fx->deleted, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(ge(int, fd, 0));
	cr_assert(eq(int, ftruncate(fd, 4096), 0));
	fx->deleted_map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert(ne(ptr, fx->deleted_map, MAP_FAILED));
	close(fd);
	cr_assert(eq(int, unlink(fx->deleted), 0));
}

/* Runs even when an assertion failed. */
static void self_fixture_teardown(void)
{
	struct self_fixture *fx = &self_fx;

	if (fx->spaced_map)
		munmap(fx->spaced_map, 2 * 4096);
	if (fx->deleted_map)
		munmap(fx->deleted_map, 4096);
	unlink(fx->spaced);
	unlink(fx->deleted);
	rmdir(fx->dir);
}

static void check_self_table(const struct maptab *mt, const struct self_fixture *fx)
{
	const struct map_entry *e;
	char exe[PATH_MAX];
	struct stat st;
	ssize_t n;

	/* This function lies in the test binary's text. */
	e = maptab__find(mt, (uintptr_t)check_self_table);
	cr_assert_not_null(e);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert(gt(long, n, 0));
	exe[n] = '\0';
	cr_assert_str_eq(e->path, exe);
	cr_assert(eq(int, e->prot & PROT_EXEC, PROT_EXEC));
	cr_assert(eq(int, stat(exe, &st), 0));
	cr_assert(eq(ulong, e->dev, st.st_dev));
	cr_assert(eq(ulong, e->ino, st.st_ino));

	e = maptab__find(mt, (uintptr_t)fx->spaced_map + 4096);
	cr_assert_not_null(e);
	cr_assert_str_eq(e->path, fx->spaced);
	cr_assert(eq(ulong, e->start, (uintptr_t)fx->spaced_map));
	cr_assert(eq(ulong, e->end, (uintptr_t)fx->spaced_map + 2 * 4096));
	cr_assert(eq(u64, e->pgoff, 4096));
	cr_assert(eq(int, e->prot, PROT_READ));
	cr_assert(eq(int, e->flags, MAP_PRIVATE));
	cr_assert(eq(ulong, e->dev, fx->spaced_st.st_dev));
	cr_assert(eq(ulong, e->ino, fx->spaced_st.st_ino));

	e = maptab__find(mt, (uintptr_t)fx->deleted_map);
	cr_assert_not_null(e);
	{
		char want[160];

		snprintf(want, sizeof(want), "%s (deleted)", fx->deleted);
		cr_assert_str_eq(e->path, want);
	}
	cr_assert(eq(int, e->flags, MAP_SHARED));
	cr_assert(eq(int, e->prot, PROT_READ | PROT_WRITE));

	/* The stack and the vdso keep their names, with no file identity. */
	{
		int local;

		e = maptab__find(mt, (uintptr_t)&local);
		cr_assert_not_null(e);
		cr_assert_str_eq(e->path, "[stack]");
		cr_assert(eq(u64, e->dev, 0));
		cr_assert(eq(u64, e->ino, 0));
	}
	cr_assert_null(maptab__find(mt, 0xffffffffff600000ULL));
}

/* The gate area alone, from the text of a maps fd read from its start; none when absent. */
Test(maptab, load_gate_rows)
{
	static const char no_gate[] =
		"7ffd7c000000-7ffd7c021000 rw-p 00000000 00:00 0                          [stack]\n";
	struct maptab *mt = maptab__new();
	const struct map_entry *e;
	int fd = memfd_create("maps", 0);

	cr_assert(ge(int, fd, 0));
	cr_assert(eq(long, write(fd, maps_text, sizeof(maps_text) - 1),
		     (ssize_t)sizeof(maps_text) - 1));
	cr_assert(eq(int, maptab__parse_maps_str(mt, no_gate), 0));	/* replaced, not added to */
	cr_assert(eq(int, maptab__load_gate(mt, fd), 0));
	cr_assert(eq(sz, maptab__count(mt), 1));
	e = maptab__at(mt, 0);
	cr_expect(eq(u64, e->start, 0xffffffffff600000ULL), "start %#llx",
		  (unsigned long long)e->start);
	cr_expect(eq(u64, e->end, 0xffffffffff601000ULL), "end %#llx",
		  (unsigned long long)e->end);
	cr_expect(eq(int, e->prot, PROT_EXEC));
	cr_expect(eq(int, e->flags, MAP_PRIVATE | MAP_ANONYMOUS), "flags %#x", e->flags);
	cr_expect_str_eq(e->path, "[vsyscall]");
	cr_assert(eq(int, ftruncate(fd, 0), 0));
	cr_assert(eq(long, pwrite(fd, no_gate, sizeof(no_gate) - 1, 0),
		     (ssize_t)sizeof(no_gate) - 1));
	cr_assert(eq(int, maptab__load_gate(mt, fd), 0));
	cr_expect(eq(sz, maptab__count(mt), 0));
	close(fd);
	maptab__free(mt);
}

Test(maptab, load_proc_self_both_paths, .init = self_fixture_setup,
     .fini = self_fixture_teardown)
{
	struct maptab *ioc = maptab__new(), *txt = maptab__new(), *auto_ = maptab__new();
	long diff = 0;
	int tries;

	/* The process may map memory between two reads: retry a few times. */
	for (tries = 0; tries < 5; tries++) {
		int fd = open("/proc/self/maps", O_RDONLY);
		FILE *f;

		cr_assert(ge(int, fd, 0));
		/* Kernel 6.18: the ioctl must work, not silently fall back. */
		cr_assert(eq(int, maptab__load_procmap_query(ioc, fd), 0));
		f = fdopen(fd, "r");
		cr_assert_not_null(f);
		cr_assert(eq(int, maptab__parse_maps(txt, f), 0));
		fclose(f);
		cr_assert(eq(int, maptab__load_proc(auto_, getpid()), 0));
		diff = tables_differ(ioc, txt);
		if (diff < 0)
			diff = tables_differ(ioc, auto_);
		if (diff < 0)
			break;
	}
	if (diff >= 0) {
		const struct map_entry *a = maptab__at(ioc, diff), *b = maptab__at(txt, diff);

		cr_fatal("entry %ld differs: ioctl %#lx-%#lx %s, maps %#lx-%#lx %s", diff,
			 a ? (unsigned long)a->start : 0, a ? (unsigned long)a->end : 0,
			 a && a->path ? a->path : "-", b ? (unsigned long)b->start : 0,
			 b ? (unsigned long)b->end : 0, b && b->path ? b->path : "-");
	}
	cr_assert(gt(sz, maptab__count(ioc), 5));
	check_self_table(ioc, &self_fx);
	check_self_table(txt, &self_fx);
	maptab__free(ioc);
	maptab__free(txt);
	maptab__free(auto_);
}

Test(maptab, load_proc_errors)
{
	struct maptab *mt = maptab__new();
	int fd;

	insert(mt, 0x1000, 0x2000, 0, R, NULL);
	/* No such process; the table is unchanged. */
	cr_assert(eq(int, maptab__load_proc(mt, 0x7ffffff0), -ENOENT));
	cr_assert(eq(sz, maptab__count(mt), 1));
	/* Not a maps file: the ioctl says ENOTTY, as an old kernel would. */
	fd = open("/dev/null", O_RDONLY);
	cr_assert(eq(int, maptab__load_procmap_query(mt, fd), -ENOTTY));
	close(fd);
	cr_assert(eq(sz, maptab__count(mt), 1));
	maptab__free(mt);
}

/*
 * maptab__find_near() finds what maptab__find() does, whatever its hint:
 * right, stale after an unmap or a split under it, or past the table's end.
 */
Test(maptab, find_near_equals_find)
{
	struct maptab *mt = maptab__new();
	static const uint64_t addrs[] = { 0x10000, 0x10fff, 0x12000, 0x13800, 0x20000, 0x5000 };
	size_t hint = 0;

	cr_assert(eq(int, maptab__insert(mt, &(struct map_entry){ .start = 0x10000, .end = 0x11000,
								  .prot = R }), 0));
	cr_assert(eq(int, maptab__insert(mt, &(struct map_entry){ .start = 0x12000, .end = 0x16000,
								  .prot = RW }), 0));
	cr_assert(eq(int, maptab__insert(mt, &(struct map_entry){ .start = 0x20000, .end = 0x21000,
								  .prot = RW }), 0));
	for (int round = 0; round < 3; round++) {
		for (size_t k = 0; k < sizeof(addrs) / sizeof(addrs[0]); k++)
			for (size_t h = 0; h < 5; h++) {
				hint = h;
				cr_assert(eq(ptr, (void *)maptab__find_near(mt, addrs[k], &hint),
					     (void *)maptab__find(mt, addrs[k])),
					  "round %d addr %#lx hint %zu", round, (unsigned long)addrs[k], h);
			}
		hint = 0;
		cr_assert(ne(ptr, (void *)maptab__find_near(mt, 0x15800, &hint), NULL));
		if (round == 0)	/* split under the hint: the piece now holding it */
			cr_assert(eq(int, maptab__protect(mt, 0x13000, 0x14000, R), 0));
		else if (round == 1)	/* an entry before the hint's gone */
			cr_assert(eq(int, maptab__remove(mt, 0x10000, 0x11000), 0));
		else
			break;
		cr_assert(eq(u64, maptab__find_near(mt, 0x15800, &hint)->start,
			     0x14000));
		cr_assert(eq(ptr, (void *)maptab__find_near(mt, 0x13800, &hint),
			     (void *)maptab__find(mt, 0x13800)));
	}
	maptab__free(mt);
}
