/* tracer/space/maptab.h: the map table of one address space -- a sorted set of
 * non-overlapping ranges fed by the target's mmap/munmap/mremap/mprotect, with
 * MAP_FIXED semantics (a new range splits or trims what it overlaps). */
#ifndef PTAP_TRACER_SPACE_MAPTAB_H
#define PTAP_TRACER_SPACE_MAPTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The end of x86-64 user space (4-level paging): TASK_SIZE_MAX. */
#define MAPTAB_USER_LIMIT	0x7ffffffff000ULL

struct map_entry {
	uint64_t start, end;	/* [start, end), page aligned */
	uint64_t pgoff;		/* file offset of START, in bytes */
	int prot;		/* PROT_* */
	int flags;		/* MAP_SHARED / MAP_PRIVATE / MAP_ANONYMOUS ... */
	uint64_t dev, ino;	/* file identity (st_dev, st_ino); 0, 0 for anonymous */
	char *path;		/* owned by the table; NULL for anonymous; "[vdso]" etc. */
	uint64_t gen;		/* set by the table: changes whenever this range is (re)mapped */
};

/*
 * GEN comes from a counter per table that is never reset (not by
 * maptab__clear() either): maptab__insert(), maptab__move() (the moved
 * entries, and with KEEP_OLD the old range) and the loaders give each entry
 * they create a new one.  Pieces left by a split, trim or protect keep their
 * entry's gen, since their content did not change; maptab__clone() keeps
 * every gen.  So "the entry at ADDR still has gen G" means "the bytes
 * planted at ADDR under G are still there".
 */

struct maptab;

struct maptab *maptab__new(void);			/* NULL on ENOMEM */
void maptab__free(struct maptab *mt);			/* NULL is fine */
void maptab__clear(struct maptab *mt);
struct maptab *maptab__clone(const struct maptab *mt);	/* deep copy (fork); NULL on ENOMEM */

/*
 * Insert E (its PATH is copied) with MAP_FIXED semantics: whatever overlaps
 * [E->start, E->end) is removed first -- an entry covering it is split, one
 * overlapping an edge is trimmed (a trimmed head advances its pgoff).  0 or
 * -ENOMEM (the table is then unchanged) / -EINVAL (empty or unaligned range).
 */
int maptab__insert(struct maptab *mt, const struct map_entry *e);
/*
 * munmap: remove [START, END) (END is rounded up to a page), splitting and
 * trimming.  0 or -ENOMEM / -EINVAL (unaligned START).
 */
int maptab__remove(struct maptab *mt, uint64_t start, uint64_t end);
/*
 * mprotect: set PROT on [START, END) where mapped, splitting at the edges
 * (entries that already have PROT are left whole).  0 or -ENOMEM / -EINVAL.
 */
int maptab__protect(struct maptab *mt, uint64_t start, uint64_t end, int prot);
/*
 * mremap: the ranges in [OLD, OLD+OLDLEN) now live at [NEW, NEW+NEWLEN)
 * (NEW == OLD for an in-place resize).  Growth extends the last entry of the
 * old range (same file, pgoff continuing); shrinking trims.  With KEEP_OLD
 * (MREMAP_DONTUNMAP) the old range stays mapped as it was (the kernel keeps
 * its VMAs) but its pages moved away, so it gets new gens.  OLDLEN 0 (a
 * duplicate of a shared mapping) maps at NEW what the entry at OLD maps.
 * Lengths are rounded up to pages.  0 or -ENOMEM / -EINVAL (unaligned) /
 * -ENOENT (nothing mapped at OLD); on error the table is unchanged.
 */
int maptab__move(struct maptab *mt, uint64_t old, uint64_t oldlen, uint64_t new_,
		 uint64_t newlen, int keep_old);

/* The entry containing ADDR, or NULL.  Borrowed: valid until the next change. */
const struct map_entry *maptab__find(const struct maptab *mt, uint64_t addr);
/*
 * As maptab__find(), first trying the entry at index *HINT (where the last
 * look found one: a caller that looks near the same place again and again
 * skips the search), which is then set to the entry's.  Right whatever the
 * table did since: a hint that no longer holds ADDR is only searched past.
 */
const struct map_entry *maptab__find_near(const struct maptab *mt, uint64_t addr, size_t *hint);
size_t maptab__count(const struct maptab *mt);
/* The last gen handed out: a table whose gen is unchanged has not changed. */
uint64_t maptab__gen(const struct maptab *mt);
/* The I-th entry in address order.  Borrowed: valid until the next change. */
const struct map_entry *maptab__at(const struct maptab *mt, size_t i);

/*
 * A free, page-aligned range of LEN bytes every byte of which is within
 * REACH of every byte of [LO, HI) (for a scratch page near a module):
 * hole_end - LO <= REACH and HI - hole_start <= REACH; at or above MIN_ADDR
 * and below MAPTAB_USER_LIMIT.  Of the candidates, the one nearest [LO, HI)
 * (then the lowest).  0 with *OUT set, -ENOSPC, or -EINVAL (LEN 0, LO >= HI).
 */
int maptab__find_gap(const struct maptab *mt, uint64_t lo, uint64_t hi, uint64_t len,
		     uint64_t reach, uint64_t min_addr, uint64_t *out);

/*
 * Replace the table with the live mappings of PID: the PROCMAP_QUERY ioctl
 * where the kernel has it (Linux 6.11+), else /proc/PID/maps.  0 or -errno.
 */
int maptab__load_proc(struct maptab *mt, pid_t pid);
/*
 * The same from MAPS_FD, an open /proc/PID/maps (left open): the ioctl
 * unless TEXT, else (or where the kernel lacks it) the text.  *QUERY says
 * which it was.  0 or -errno.
 */
int maptab__load_fd(struct maptab *mt, int maps_fd, bool text, bool *query);
/*
 * The rows the tables above leave out, for `ptap maps`: those of MAPS_FD's
 * text (an open /proc/PID/maps, left open) at or above MAPTAB_USER_LIMIT,
 * i.e. the kernel's gate area, [vsyscall] on x86-64 where the kernel maps it
 * (PROCMAP_QUERY never returns it; nothing of the process lives there).  MT
 * gets them alone, maybe none.  0 or -errno.
 */
int maptab__load_gate(struct maptab *mt, int maps_fd);

/*
 * The two halves of maptab__load_proc(), for tests.  Each replaces the table
 * only on success.  maptab__load_procmap_query() walks MAPS_FD (an open
 * /proc/PID/maps) with the ioctl: 0, -ENOTTY/-EINVAL (kernel without it) or
 * -errno.  maptab__parse_maps() reads /proc/PID/maps text from F (entries at
 * or above MAPTAB_USER_LIMIT, i.e. [vsyscall], are skipped as the ioctl skips
 * them): 0, -EINVAL (a malformed or unsorted line), -ENOMEM, -EIO.  Both
 * derive dev as makedev(major, minor), comparable with st_dev; special names
 * ("[heap]", "[vdso]") are kept as PATH with dev = ino = 0 and MAP_ANONYMOUS.
 */
int maptab__load_procmap_query(struct maptab *mt, int maps_fd);
/*
 * The build-id the kernel reads for the file mapped at ADDR, through
 * PROCMAP_QUERY on MAPS_FD, into ID (CAP bytes).  Its length, 0 when the
 * mapping has none (anonymous, not ELF), or -errno (-ENOTTY: no such ioctl).
 */
int maptab__query_build_id(int maps_fd, uint64_t addr, uint8_t *id, size_t cap);
int maptab__parse_maps(struct maptab *mt, FILE *f);
int maptab__parse_maps_str(struct maptab *mt, const char *text);

#endif
