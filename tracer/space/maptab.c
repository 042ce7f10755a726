/* tracer/space/maptab.c: the map table of one address space.  Owns a sorted array
 * of non-overlapping ranges and their paths; applies mmap/munmap/mprotect/
 * mremap with the kernel's MAP_FIXED split/trim rules; loads /proc/PID. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probes/array.h"
#include "tracer/space/maptab.h"

/*
 * Paths are shared by the pieces a split leaves, so that splitting never
 * allocates: an entry's PATH points at the S of a refcounted blob.  The
 * refcount is plain (a table is used by one thread); maptab__clone() copies.
 */
struct mt_str {
	size_t ref;
	char s[];
};

struct maptab {
	struct map_entry *v;	/* sorted by start, non-overlapping */
	size_t n, cap;
	uint64_t next_gen;	/* never reset, not even by maptab__clear() */
};

static struct mt_str *mt_str_of(char *path)
{
	return (struct mt_str *)(path - offsetof(struct mt_str, s));
}

static char *mt_str_new(const char *path)
{
	size_t len;
	struct mt_str *str;

	if (!path)
		return NULL;
	len = strlen(path);
	str = malloc(sizeof(*str) + len + 1);
	if (!str)
		return NULL;
	str->ref = 1;
	memcpy(str->s, path, len + 1);
	return str->s;
}

static void mt_str_get(char *path)
{
	if (path)
		mt_str_of(path)->ref++;
}

static void mt_str_put(char *path)
{
	struct mt_str *str;

	if (!path)
		return;
	str = mt_str_of(path);
	if (--str->ref == 0)
		free(str);
}

static int mt_reserve(struct maptab *mt, size_t extra)
{
	return array_grow((void **)&mt->v, &mt->cap, sizeof(*mt->v), mt->n + extra);
}

/* Index of the first entry ending after ADDR (n if none). */
static size_t mt_first_after(const struct maptab *mt, uint64_t addr)
{
	size_t lo = 0, hi = mt->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mt->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Cut entry I in two at ADDR (start < ADDR < end).  The tail keeps the file,
 * gen and prot; its pgoff advances by the head's length.  The caller has
 * reserved one slot.
 */
static void mt_split(struct maptab *mt, size_t i, uint64_t addr)
{
	struct map_entry *e = &mt->v[i];

	memmove(e + 2, e + 1, (mt->n - i - 1) * sizeof(*e));
	e[1] = e[0];
	e[1].start = addr;
	e[1].pgoff += addr - e[0].start;
	mt_str_get(e[1].path);
	e[0].end = addr;
	mt->n++;
}

/* Split whatever entry strictly contains ADDR.  Needs one reserved slot. */
static void mt_split_at(struct maptab *mt, uint64_t addr)
{
	size_t i = mt_first_after(mt, addr);

	if (i < mt->n && mt->v[i].start < addr)
		mt_split(mt, i, addr);
}

static void mt_drop(struct maptab *mt, size_t i, size_t j)
{
	size_t k;

	if (i == j)
		return;
	for (k = i; k < j; k++)
		mt_str_put(mt->v[k].path);
	memmove(&mt->v[i], &mt->v[j], (mt->n - j) * sizeof(*mt->v));
	mt->n -= j - i;
}

/*
 * Remove [START, END): an entry covering it is split, one overlapping an
 * edge trimmed (a trimmed head advances its pgoff).  Needs two reserved
 * slots; cannot fail.  Returns the index where [START, END) was.
 */
static size_t mt_carve(struct maptab *mt, uint64_t start, uint64_t end)
{
	size_t i, j;

	mt_split_at(mt, start);
	mt_split_at(mt, end);
	i = mt_first_after(mt, start);
	for (j = i; j < mt->n && mt->v[j].end <= end; j++)
		;
	mt_drop(mt, i, j);
	return i;
}

#define PAGE_MASK_4K	4095ULL

static bool mt_aligned(uint64_t x)
{
	return (x & PAGE_MASK_4K) == 0;
}

static uint64_t mt_page_up(uint64_t x)
{
	return (x + PAGE_MASK_4K) & ~PAGE_MASK_4K;
}

struct maptab *maptab__new(void)
{
	return calloc(1, sizeof(struct maptab));
}

void maptab__clear(struct maptab *mt)
{
	if (!mt)
		return;
	mt_drop(mt, 0, mt->n);
}

void maptab__free(struct maptab *mt)
{
	if (!mt)
		return;
	maptab__clear(mt);
	free(mt->v);
	free(mt);
}

struct maptab *maptab__clone(const struct maptab *mt)
{
	struct maptab *c = maptab__new();
	size_t i;

	if (!c)
		return NULL;
	if (mt_reserve(c, mt->n) < 0)
		goto err;
	c->next_gen = mt->next_gen;
	for (i = 0; i < mt->n; i++) {
		struct map_entry *e = &c->v[i];

		*e = mt->v[i];
		if (mt->v[i].path) {
			/* Pieces of one split share the parent's blob. */
			if (i > 0 && mt->v[i].path == mt->v[i - 1].path) {
				e->path = c->v[i - 1].path;
				mt_str_get(e->path);
			} else {
				e->path = mt_str_new(mt->v[i].path);
				if (!e->path)
					goto err;
			}
		}
		c->n++;
	}
	return c;
err:
	maptab__free(c);
	return NULL;
}

int maptab__insert(struct maptab *mt, const struct map_entry *e)
{
	struct map_entry *ne;
	char *path = NULL;
	size_t i;

	if (e->start >= e->end || !mt_aligned(e->start) || !mt_aligned(e->end))
		return -EINVAL;
	if (mt_reserve(mt, 3) < 0)
		return -ENOMEM;
	if (e->path) {
		path = mt_str_new(e->path);
		if (!path)
			return -ENOMEM;
	}
	i = mt_carve(mt, e->start, e->end);
	memmove(&mt->v[i + 1], &mt->v[i], (mt->n - i) * sizeof(*mt->v));
	ne = &mt->v[i];
	*ne = *e;
	ne->path = path;
	ne->gen = ++mt->next_gen;
	mt->n++;
	return 0;
}

int maptab__remove(struct maptab *mt, uint64_t start, uint64_t end)
{
	end = mt_page_up(end);
	if (!mt_aligned(start) || start > end)
		return -EINVAL;
	if (start == end)
		return 0;
	if (mt_reserve(mt, 2) < 0)
		return -ENOMEM;
	mt_carve(mt, start, end);
	return 0;
}

int maptab__protect(struct maptab *mt, uint64_t start, uint64_t end, int prot)
{
	size_t i;

	end = mt_page_up(end);
	if (!mt_aligned(start) || start > end)
		return -EINVAL;
	if (mt_reserve(mt, 2) < 0)
		return -ENOMEM;
	/* Like the kernel, leave entries that already have PROT unsplit. */
	for (i = mt_first_after(mt, start); i < mt->n && mt->v[i].start < end; i++) {
		if (mt->v[i].prot == prot)
			continue;
		if (mt->v[i].start < start)
			mt_split(mt, i++, start);
		if (mt->v[i].end > end)
			mt_split(mt, i, end);
		mt->v[i].prot = prot;
	}
	return 0;
}

/* In-place resize of the range at OLD (mremap without a move). */
static int mt_resize(struct maptab *mt, uint64_t old, uint64_t oldlen, uint64_t newlen)
{
	size_t i;

	if (newlen <= oldlen)
		return maptab__remove(mt, old + newlen, old + oldlen);
	if (oldlen == 0)
		return -EINVAL;
	if (mt_reserve(mt, 2) < 0)
		return -ENOMEM;
	i = mt_first_after(mt, old + oldlen - 1);
	if (i == mt->n || mt->v[i].start > old + oldlen - 1)
		return -ENOENT;
	/* The entry holding the old range's last page grows; its content stays. */
	mt_carve(mt, old + oldlen, old + newlen);
	i = mt_first_after(mt, old + oldlen - 1);
	mt->v[i].end = old + newlen;
	return 0;
}

int maptab__move(struct maptab *mt, uint64_t old, uint64_t oldlen, uint64_t new_,
		 uint64_t newlen, int keep_old)
{
	struct map_entry *pieces = NULL;
	uint64_t copy_len, delta = new_ - old;
	size_t i, k = 0, first, at;

	oldlen = mt_page_up(oldlen);
	newlen = mt_page_up(newlen);
	if (!mt_aligned(old) || !mt_aligned(new_) || newlen == 0)
		return -EINVAL;
	if (new_ == old && !keep_old)
		return mt_resize(mt, old, oldlen, newlen);

	/*
	 * OLDLEN 0 duplicates a shared mapping: the new range maps what the
	 * entry at OLD maps, from OLD on.
	 */
	copy_len = oldlen ? (oldlen < newlen ? oldlen : newlen) : 1;
	first = mt_first_after(mt, old);
	for (i = first; i < mt->n && mt->v[i].start < old + copy_len; i++)
		k++;
	if (k == 0)
		return -ENOENT;
	pieces = malloc(k * sizeof(*pieces));
	if (!pieces || mt_reserve(mt, k + 4) < 0) {
		free(pieces);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++) {
		struct map_entry *p = &pieces[i];

		*p = mt->v[first + i];
		if (p->start < old) {
			p->pgoff += old - p->start;
			p->start = old;
		}
		if (oldlen && p->end > old + copy_len)
			p->end = old + copy_len;
		p->start += delta;
		p->end += delta;
		mt_str_get(p->path);
	}
	/* Growth extends the last piece, its pgoff continuing. */
	if (oldlen == 0)
		pieces[0].end = new_ + newlen;
	else if (newlen > oldlen)
		pieces[k - 1].end = new_ + newlen;

	if (keep_old && oldlen) {
		/*
		 * MREMAP_DONTUNMAP: the old VMAs stay as they were, but their
		 * pages moved away (anonymous memory reads back as zeroes), so
		 * the content is new.
		 */
		mt_split_at(mt, old);
		mt_split_at(mt, old + oldlen);
		for (i = mt_first_after(mt, old); i < mt->n && mt->v[i].start < old + oldlen; i++)
			mt->v[i].gen = ++mt->next_gen;
	} else if (oldlen) {
		mt_carve(mt, old, old + oldlen);
	}
	at = mt_carve(mt, new_, new_ + newlen);
	memmove(&mt->v[at + k], &mt->v[at], (mt->n - at) * sizeof(*mt->v));
	for (i = 0; i < k; i++) {
		mt->v[at + i] = pieces[i];
		mt->v[at + i].gen = ++mt->next_gen;
	}
	mt->n += k;
	free(pieces);
	return 0;
}

const struct map_entry *maptab__find(const struct maptab *mt, uint64_t addr)
{
	size_t i = mt_first_after(mt, addr);

	if (i < mt->n && mt->v[i].start <= addr)
		return &mt->v[i];
	return NULL;
}

const struct map_entry *maptab__find_near(const struct maptab *mt, uint64_t addr, size_t *hint)
{
	size_t i = *hint;

	if (i >= mt->n || mt->v[i].start > addr || mt->v[i].end <= addr)
		i = mt_first_after(mt, addr);
	if (i < mt->n && mt->v[i].start <= addr) {
		*hint = i;
		return &mt->v[i];
	}
	return NULL;
}

uint64_t maptab__gen(const struct maptab *mt)
{
	return mt->next_gen;
}

size_t maptab__count(const struct maptab *mt)
{
	return mt->n;
}

const struct map_entry *maptab__at(const struct maptab *mt, size_t i)
{
	return i < mt->n ? &mt->v[i] : NULL;
}

/* Distance from [H, H+LEN) to [LO, HI); 0 if they overlap. */
static uint64_t mt_gap_dist(uint64_t h, uint64_t len, uint64_t lo, uint64_t hi)
{
	if (h + len <= lo)
		return lo - (h + len);
	if (h >= hi)
		return h - hi;
	return 0;
}

int maptab__find_gap(const struct maptab *mt, uint64_t lo, uint64_t hi, uint64_t len,
		     uint64_t reach, uint64_t min_addr, uint64_t *out)
{
	uint64_t best = 0, best_dist = UINT64_MAX;
	size_t i;

	len = mt_page_up(len);
	if (len == 0 || lo >= hi || len > MAPTAB_USER_LIMIT)
		return -EINVAL;
	/*
	 * Each hole [gs, ge) between entries admits starts H with
	 *   gs <= H, H + LEN <= ge, MIN_ADDR <= H, H + LEN <= USER_LIMIT,
	 *   H + LEN - LO <= REACH (the hole's end is within reach of LO),
	 *   HI - H <= REACH (its start is within reach of HI - 1 ... HI),
	 * page aligned.  Within the hole the best H is the admissible one
	 * nearest the module.
	 */
	for (i = 0; i <= mt->n; i++) {
		uint64_t gs = i ? mt->v[i - 1].end : 0;
		uint64_t ge = i < mt->n ? mt->v[i].start : MAPTAB_USER_LIMIT;
		uint64_t low, high, cand[4];
		int c;

		if (ge > MAPTAB_USER_LIMIT)
			ge = MAPTAB_USER_LIMIT;
		if (lo <= UINT64_MAX - reach && lo + reach < ge)
			ge = lo + reach;
		low = gs > min_addr ? gs : min_addr;
		if (hi > reach && hi - reach > low)
			low = hi - reach;
		low = mt_page_up(low);
		if (low < gs || ge < len || low > ge - len)
			continue;
		high = (ge - len) & ~PAGE_MASK_4K;
		if (high < low)
			continue;
		cand[0] = low;
		cand[1] = high;
		cand[2] = lo >= len ? (lo - len) & ~PAGE_MASK_4K : 0;
		cand[3] = mt_page_up(hi);
		for (c = 0; c < 4; c++) {
			uint64_t h = cand[c] < low ? low : cand[c] > high ? high : cand[c];
			uint64_t d = mt_gap_dist(h, len, lo, hi);

			if (d < best_dist || (d == best_dist && h < best)) {
				best = h;
				best_dist = d;
			}
		}
	}
	if (best_dist == UINT64_MAX)
		return -ENOSPC;
	*out = best;
	return 0;
}

/* ---- loading /proc/PID ------------------------------------------------- */

/*
 * PROCMAP_QUERY (Linux 6.11, include/uapi/linux/fs.h); Debian 12's headers
 * predate it, so the ABI is spelled out here.
 */
struct procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

_Static_assert(sizeof(struct procmap_query) == 104, "PROCMAP_QUERY ABI");

#define PROCMAP_QUERY				_IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_VMA_READABLE		0x01
#define PROCMAP_QUERY_VMA_WRITABLE		0x02
#define PROCMAP_QUERY_VMA_EXECUTABLE		0x04
#define PROCMAP_QUERY_VMA_SHARED		0x08
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA	0x10
#define PROCMAP_QUERY_FILE_BACKED_VMA		0x20

/* Append a loaded entry (ranges arrive sorted and disjoint). */
static int mt_append(struct maptab *mt, const struct map_entry *e)
{
	struct map_entry *ne;

	if (mt->n && mt->v[mt->n - 1].end > e->start)
		return -EINVAL;
	if (mt_reserve(mt, 1) < 0)
		return -ENOMEM;
	ne = &mt->v[mt->n];
	*ne = *e;
	ne->path = NULL;
	if (e->path) {
		ne->path = mt_str_new(e->path);
		if (!ne->path)
			return -ENOMEM;
	}
	ne->gen = ++mt->next_gen;
	mt->n++;
	return 0;
}

/* Special names ("[heap]", "[vdso]", "[anon:x]") and no name mean no file. */
static void mt_fill_identity(struct map_entry *e, uint64_t dev, uint64_t ino, bool shared)
{
	e->flags = shared ? MAP_SHARED : MAP_PRIVATE;
	if (ino == 0 || (e->path && e->path[0] == '[')) {
		e->flags |= MAP_ANONYMOUS;
		dev = ino = 0;
	}
	e->dev = dev;
	e->ino = ino;
}

/* Move the loaded content of FROM into MT (whose gen counter goes on). */
static void mt_take(struct maptab *mt, struct maptab *from)
{
	size_t i;

	maptab__clear(mt);
	free(mt->v);
	mt->v = from->v;
	mt->n = from->n;
	mt->cap = from->cap;
	for (i = 0; i < mt->n; i++)
		mt->v[i].gen = ++mt->next_gen;
	from->v = NULL;
	from->n = from->cap = 0;
}

int maptab__load_procmap_query(struct maptab *mt, int maps_fd)
{
	struct maptab tmp = { 0 };
	char *name;
	uint64_t addr = 0;
	int ret = 0;

	/*
	 * PATH_MAX plus " (deleted)".  Zeroed: valgrind (3.19) does not know
	 * PROCMAP_QUERY, and memcheck would take the names the kernel writes
	 * for uninitialised.
	 */
	name = calloc(1, PATH_MAX + 32);
	if (!name)
		return -ENOMEM;
	for (;;) {
		struct procmap_query q = {
			.size = sizeof(q),
			.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA,
			.query_addr = addr,
			.vma_name_addr = (uintptr_t)name,
			.vma_name_size = PATH_MAX + 32,
		};
		struct map_entry e = { 0 };

		if (ioctl(maps_fd, PROCMAP_QUERY, &q) < 0) {
			ret = -errno;
			/* ENOENT: no VMA at or after ADDR, the end of the walk. */
			if (ret == -ENOENT)
				ret = 0;
			break;
		}
		e.start = q.vma_start;
		e.end = q.vma_end;
		e.pgoff = q.vma_offset;
		e.prot = (q.vma_flags & PROCMAP_QUERY_VMA_READABLE ? PROT_READ : 0) |
			 (q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE ? PROT_WRITE : 0) |
			 (q.vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE ? PROT_EXEC : 0);
		e.path = q.vma_name_size ? name : NULL;
		mt_fill_identity(&e, makedev(q.dev_major, q.dev_minor), q.inode,
				 q.vma_flags & PROCMAP_QUERY_VMA_SHARED);
		ret = mt_append(&tmp, &e);
		if (ret < 0)
			break;
		addr = q.vma_end;
	}
	free(name);
	if (ret == 0)
		mt_take(mt, &tmp);
	maptab__clear(&tmp);
	free(tmp.v);
	return ret;
}

int maptab__query_build_id(int maps_fd, uint64_t addr, uint8_t *id, size_t cap)
{
	struct procmap_query q = {
		.size = sizeof(q),
		.query_addr = addr,
		.build_id_addr = (uintptr_t)id,
		.build_id_size = (uint32_t)cap,
	};

	memset(id, 0, cap);	/* for memcheck, as in maptab__load_procmap_query */
	if (ioctl(maps_fd, PROCMAP_QUERY, &q) < 0)
		return -errno;
	return (int)q.build_id_size;
}

/*
 * One line of /proc/PID/maps:
 *   start-end perms offset major:minor inode [path]
 * with hex numbers except the inode; PATH runs to the end of the line and
 * may contain spaces or end in " (deleted)".
 */
static int mt_parse_line(char *line, struct map_entry *e)
{
	unsigned long long start, end, off, ino;
	unsigned int major, minor;
	char perms[8];
	char *path;
	size_t len;
	int pos = -1;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off,
		   &major, &minor, &ino, &pos) != 7 || pos < 0 || strlen(perms) != 4)
		return -EINVAL;
	path = line + pos;
	while (*path == ' ' || *path == '\t')
		path++;
	len = strlen(path);
	if (len && path[len - 1] == '\n')
		path[--len] = '\0';
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->end = end;
	e->pgoff = off;
	e->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	e->path = len ? path : NULL;
	mt_fill_identity(e, makedev(major, minor), ino, perms[3] == 's');
	return 0;
}

/* The rows of F below MAPTAB_USER_LIMIT, or with GATE only those at or above it. */
static int parse_maps(struct maptab *mt, FILE *f, bool gate)
{
	struct maptab tmp = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	while (getline(&line, &cap, f) > 0) {
		struct map_entry e;

		ret = mt_parse_line(line, &e);
		if (ret < 0)
			break;
		/* [vsyscall] lies above the user limit; PROCMAP_QUERY skips it too. */
		if ((e.start >= MAPTAB_USER_LIMIT) != gate)
			continue;
		ret = mt_append(&tmp, &e);
		if (ret < 0)
			break;
	}
	if (ret == 0 && ferror(f))
		ret = -EIO;
	free(line);
	if (ret == 0)
		mt_take(mt, &tmp);
	maptab__clear(&tmp);
	free(tmp.v);
	return ret;
}

int maptab__parse_maps(struct maptab *mt, FILE *f)
{
	return parse_maps(mt, f, false);
}

int maptab__parse_maps_str(struct maptab *mt, const char *text)
{
	FILE *f;
	int ret;

	/* fmemopen() refuses a zero size; an empty text is an empty table. */
	if (!*text) {
		maptab__clear(mt);
		return 0;
	}
	f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return -errno;
	ret = maptab__parse_maps(mt, f);
	fclose(f);
	return ret;
}

/* The text of MAPS_FD, from its start, through parse_maps(); MAPS_FD is left open. */
static int parse_maps_fd(struct maptab *mt, int maps_fd, bool gate)
{
	FILE *f;
	int fd, ret;

	fd = dup(maps_fd);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		ret = -errno;
	else
		ret = parse_maps(mt, f, gate);
	fclose(f);
	return ret;
}

int maptab__load_fd(struct maptab *mt, int maps_fd, bool text, bool *query)
{
	int ret;

	*query = !text;
	ret = text ? -ENOTTY : maptab__load_procmap_query(mt, maps_fd);
	/* ENOTTY: a kernel before 6.11; EINVAL: one that rejects our struct size. */
	if (ret != -ENOTTY && ret != -EINVAL)
		return ret;
	*query = false;
	return parse_maps_fd(mt, maps_fd, false);
}

int maptab__load_gate(struct maptab *mt, int maps_fd)
{
	return parse_maps_fd(mt, maps_fd, true);
}

int maptab__load_proc(struct maptab *mt, pid_t pid)
{
	char path[64];
	bool query;
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = maptab__load_fd(mt, fd, false, &query);
	close(fd);
	return ret;
}
