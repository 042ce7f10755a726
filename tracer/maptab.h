/* tracer/maptab.h: the map table of one address space -- a sorted set of
 * non-overlapping ranges fed by the target's mmap/munmap/mremap/mprotect, with
 * MAP_FIXED semantics (a new range splits or trims what it overlaps). */
#ifndef PTAP_TRACER_MAPTAB_H
#define PTAP_TRACER_MAPTAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
	uint64_t start, end;	/* [start, end), page aligned */
	uint64_t pgoff;		/* file offset of START, in bytes */
	int prot;		/* PROT_* */
	int flags;		/* MAP_SHARED / MAP_PRIVATE / MAP_ANONYMOUS ... */
	uint64_t dev, ino;	/* file identity (st_dev, st_ino); 0, 0 for anonymous */
	char *path;		/* owned by the table; NULL for anonymous; "[vdso]" etc. */
	uint64_t gen;		/* set by the table: changes whenever this range is (re)mapped */
};

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
/* munmap: remove [START, END), splitting and trimming.  0 or -ENOMEM. */
int maptab__remove(struct maptab *mt, uint64_t start, uint64_t end);
/* mprotect: set PROT on [START, END) where mapped, splitting at the edges.  0 or -ENOMEM. */
int maptab__protect(struct maptab *mt, uint64_t start, uint64_t end, int prot);
/*
 * mremap: the ranges in [OLD, OLD+OLDLEN) now live at [NEW, NEW+NEWLEN)
 * (NEW == OLD for an in-place resize).  Growth extends the last entry of the
 * old range (same file, pgoff continuing); shrinking trims.  With KEEP_OLD
 * (MREMAP_DONTUNMAP) the old range stays, as anonymous memory.  0 or -ENOMEM.
 */
int maptab__move(struct maptab *mt, uint64_t old, uint64_t oldlen, uint64_t new_,
		 uint64_t newlen, int keep_old);

/* The entry containing ADDR, or NULL.  Borrowed: valid until the next change. */
const struct map_entry *maptab__find(const struct maptab *mt, uint64_t addr);
size_t maptab__count(const struct maptab *mt);
/* The I-th entry in address order.  Borrowed: valid until the next change. */
const struct map_entry *maptab__at(const struct maptab *mt, size_t i);

/*
 * A free, page-aligned range of LEN bytes every byte of which is within
 * REACH of every byte of [LO, HI) (for a scratch page near a module), and
 * above MIN_ADDR.  0 with *OUT set, or -ENOSPC.
 */
int maptab__find_gap(const struct maptab *mt, uint64_t lo, uint64_t hi, uint64_t len,
		     uint64_t reach, uint64_t min_addr, uint64_t *out);

/*
 * Replace the table with the live mappings of PID: the PROCMAP_QUERY ioctl
 * where the kernel has it (Linux 6.11+), else /proc/PID/maps.  0 or -errno.
 */
int maptab__load_proc(struct maptab *mt, pid_t pid);

#endif
