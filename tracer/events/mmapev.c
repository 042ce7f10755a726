/* tracer/events/mmapev.c: `--events mmap` records (see mmapev.h).  A record is put
 * together on the stack: its values point into local buffers, so writing
 * one allocates nothing; only a build-id not in the cache reads its file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "arch/sctable.h"
#include "dwarf/elfimage.h"
#include "probes/record.h"
#include "tracer/events/mmapev.h"
#include "tracer/events/output.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mapview.h"
#include "tracer/thread.h"

/* Files whose build-id is remembered, by (dev, inode): the loader maps a library 4-5
 * times in a row. */
#define BID_CACHE	32

struct bid_slot {
	bool used;
	uint64_t dev, ino;
	uint64_t size;			/* the version of the file read: st_size, st_mtim */
	struct timespec mtime;
	uint8_t len;			/* 0: none (not ELF, no note, not a regular file) */
	uint8_t id[ELFIMAGE_MAX_BUILD_ID];
};

struct mmapev {
	struct bid_slot slot[BID_CACHE];
	unsigned int next;		/* the slot to replace next (round robin) */
};

int mmapev__new(struct mmapev **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void mmapev__free(struct mmapev *m)
{
	free(m);
}

/* ---- flags ---------------------------------------------------------------- */

size_t mmapev__prot(uint64_t prot, char *buf, size_t len)
{
	uint64_t rest = prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC);
	size_t n;

	if (len < 4)
		return 0;
	buf[0] = prot & PROT_READ ? 'r' : '-';
	buf[1] = prot & PROT_WRITE ? 'w' : '-';
	buf[2] = prot & PROT_EXEC ? 'x' : '-';
	buf[3] = '\0';
	if (!rest)
		return 3;
	if (len < 5)
		return 0;
	buf[3] = '|';
	n = sc_format(SA_PROT, rest, buf + 4, len - 4);
	if (!n) {
		buf[0] = '\0';
		return 0;
	}
	return 4 + n;
}

size_t mmapev__flags(uint64_t flags, char *buf, size_t len)
{
	return sc_format(SA_MAP_FLAGS, flags, buf, len);
}

/* ---- build-ids ------------------------------------------------------------ */

/*
 * The slot of file (DEV, INO).  With ST (the file as it is now), only one
 * read from the same version of it: same size and modification time (a file
 * rewritten in place, or a new file given a freed inode, is read again).
 */
static const struct bid_slot *bid_find(const struct mmapev *m, uint64_t dev, uint64_t ino,
				       const struct stat *st)
{
	for (int i = 0; i < BID_CACHE; i++) {
		const struct bid_slot *sl = &m->slot[i];

		if (sl->used && sl->dev == dev && sl->ino == ino &&
		    (!st || (sl->size == (uint64_t)st->st_size &&
			     sl->mtime.tv_sec == st->st_mtim.tv_sec &&
			     sl->mtime.tv_nsec == st->st_mtim.tv_nsec)))
			return sl;
	}
	return NULL;
}

/*
 * Read FD's build-id into the cache as the one of the file ST describes,
 * and close FD.  FD < 0: the file is not one to read (not a regular file):
 * it has none.
 */
static const struct bid_slot *bid_store(struct mmapev *m, const struct stat *st, int fd)
{
	struct bid_slot *sl = NULL;
	struct elfimage img;

	for (int i = 0; i < BID_CACHE && !sl; i++)	/* an older version's slot */
		if (m->slot[i].used && m->slot[i].dev == st->st_dev &&
		    m->slot[i].ino == st->st_ino)
			sl = &m->slot[i];
	if (!sl) {
		sl = &m->slot[m->next];
		m->next = (m->next + 1) % BID_CACHE;
	}
	memset(sl, 0, sizeof(*sl));
	sl->used = true;
	sl->dev = st->st_dev;
	sl->ino = st->st_ino;
	sl->size = (uint64_t)st->st_size;
	sl->mtime = st->st_mtim;
	if (fd >= 0 && elfimage__from_fd(fd, &img) == 0 && img.build_id_len &&
	    img.build_id_len <= sizeof(sl->id)) {
		memcpy(sl->id, img.build_id, img.build_id_len);
		sl->len = (uint8_t)img.build_id_len;
	}
	if (fd >= 0)
		close(fd);
	return sl;
}

/*
 * The build-id of the file of descriptor FD of TID, just mapped as E.  A
 * device (a GPU's, a tty) is never opened for it: regular files only.
 */
static const struct bid_slot *bid_of_fd(struct mmapev *m, pid_t tid, int fd,
					const struct map_entry *e)
{
	const struct bid_slot *sl;
	char link[64];
	struct stat st;
	int f;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, fd);
	if (stat(link, &st) < 0)
		return bid_find(m, e->dev, e->ino, NULL);
	if ((sl = bid_find(m, st.st_dev, st.st_ino, &st)))
		return sl;
	if (!S_ISREG(st.st_mode))
		return bid_store(m, &st, -1);
	f = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	return f < 0 ? NULL : bid_store(m, &st, f);
}

/* The build-id of the file mapped as E in TID (/proc/TID/map_files, else E's path). */
static const struct bid_slot *bid_of_entry(struct mmapev *m, pid_t tid, const struct map_entry *e)
{
	const struct bid_slot *sl;
	char link[80];
	struct stat st;
	int f;

	snprintf(link, sizeof(link), "/proc/%d/map_files/%llx-%llx", (int)tid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	/* map_files wants CAP_SYS_ADMIN: else the path, if it is still the file */
	if (stat(link, &st) < 0 &&
	    (!e->path || e->path[0] != '/' || stat(e->path, &st) < 0 || st.st_dev != e->dev ||
	     st.st_ino != e->ino))
		return bid_find(m, e->dev, e->ino, NULL);
	if ((sl = bid_find(m, st.st_dev, st.st_ino, &st)))
		return sl;
	if (!S_ISREG(st.st_mode))
		return bid_store(m, &st, -1);
	f = mapview__open_file(tid, e->start, e->end, e->path, e->dev, e->ino);
	return f < 0 ? NULL : bid_store(m, &st, f);
}

/* ---- records -------------------------------------------------------------- */

#define MREC_MAX	10
#define SYM_LEN		160		/* flags, prot: "MAP_PRIVATE|MAP_FIXED|..." */

/* One record's arguments, and the text of its symbolic ones. */
struct mrec {
	unsigned int n;
	const char *names[MREC_MAX];
	struct fetch_type types[MREC_MAX];
	struct fetch_val vals[MREC_MAX];
	char prot[SYM_LEN], flags[SYM_LEN], dev[24];
	char bid[2 * ELFIMAGE_MAX_BUILD_ID + 1];
};

static void add(struct mrec *r, const char *name, uint8_t kind, uint64_t u, char *str)
{
	unsigned int i = r->n++;

	r->names[i] = name;
	r->types[i] = (struct fetch_type){ .kind = kind, .size = 8 };
	r->vals[i] = (struct fetch_val){ .u = u, .addr = str ? 1 : 0, .str = str,
					 .len = str ? strlen(str) : 0 };
}

static void add_prot(struct mrec *r, uint64_t prot)
{
	if (mmapev__prot(prot, r->prot, sizeof(r->prot)))
		add(r, "prot", FT_SYM, 0, r->prot);
	else
		add(r, "prot", FT_HEX, prot, NULL);
}

static void add_flags(struct mrec *r, uint64_t flags)
{
	if (mmapev__flags(flags, r->flags, sizeof(r->flags)))
		add(r, "flags", FT_SYM, 0, r->flags);
	else
		add(r, "flags", FT_HEX, flags, NULL);
}

/*
 * E's file (or its name, "[heap]" ...), dev, inode and the build-id SL knows.
 * The path is E's: the table's copy, valid while the record is written.
 */
static void add_file(struct mrec *r, const struct map_entry *e, const struct bid_slot *sl)
{
	if (!e->path && !e->ino)
		return;
	if (!e->ino) {	/* anonymous, named by the kernel */
		add(r, "name", FT_STRING, 0, e->path);
		return;
	}
	if (e->path)
		add(r, "file", FT_STRING, 0, e->path);
	snprintf(r->dev, sizeof(r->dev), "%02x:%02x", major(e->dev), minor(e->dev));
	add(r, "dev", FT_SYM, 0, r->dev);
	add(r, "inode", FT_UNSIGNED, e->ino, NULL);
	if (sl && sl->len) {
		elfimage__hex(sl->id, sl->len, r->bid);
		add(r, "build_id", FT_SYM, 0, r->bid);
	}
}

static bool wanted(const struct session *s, const struct thread *t)
{
	return s->events_mmap && s->mmapev && !t->quiet;
}

static void emit(struct session *s, const struct thread *t, const char *event, uint64_t addr,
		 const struct mrec *r)
{
	struct record rec = { .ts = session__now(s), .pid = t->tgid, .tid = t->tid,
			      .comm = t->comm, .event = event, .kind = REC_KIND_MMAP,
			      .addr = addr, .nargs = r->n, .names = r->names, .types = r->types,
			      .vals = r->vals };

	output__record(s->out, &rec);
}

static uint64_t page_up(uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) & ~(page - 1);
}

/* The mapping E in full: addr len pgoff prot flags [file dev inode build_id | name]. */
static void mapping(struct session *s, const struct thread *t, const char *event,
		    const struct map_entry *e, uint64_t flags, const struct bid_slot *sl)
{
	struct mrec r;

	r.n = 0;
	add(&r, "addr", FT_HEX, e->start, NULL);
	add(&r, "len", FT_UNSIGNED, e->end - e->start, NULL);
	add(&r, "pgoff", FT_UNSIGNED, e->pgoff, NULL);
	add_prot(&r, (uint64_t)(unsigned int)e->prot);
	add_flags(&r, flags);
	add_file(&r, e, sl);
	emit(s, t, event, e->start, &r);
}

void mmapev_syscall(struct session *s, const struct thread *t, uint64_t ret,
		    const struct map_entry *e)
{
	const uint64_t *a = t->sc_args;
	const struct bid_slot *sl = NULL;
	struct mrec r;

	if (!wanted(s, t))
		return;
	r.n = 0;
	switch (t->sc_nr) {
	case SYS_mmap:
		if (!e)
			return;
		if (!(a[3] & MAP_ANONYMOUS) && e->ino)
			sl = bid_of_fd(s->mmapev, t->tid, (int)a[4], e);
		mapping(s, t, "mmap", e, a[3], sl);
		return;
	case SYS_munmap:
		add(&r, "addr", FT_HEX, a[0], NULL);
		add(&r, "len", FT_UNSIGNED, page_up(a[1]), NULL);
		emit(s, t, "munmap", a[0], &r);
		return;
	case SYS_mprotect:
		add(&r, "addr", FT_HEX, a[0], NULL);
		add(&r, "len", FT_UNSIGNED, page_up(a[1]), NULL);
		add_prot(&r, a[2]);
		emit(s, t, "mprotect", a[0], &r);
		return;
	case SYS_mremap:
		add(&r, "old_addr", FT_HEX, a[0], NULL);
		add(&r, "old_len", FT_UNSIGNED, page_up(a[1]), NULL);
		add(&r, "addr", FT_HEX, ret, NULL);
		add(&r, "len", FT_UNSIGNED, page_up(a[2]), NULL);
		emit(s, t, "mremap", ret, &r);
		return;
	}
}

/* ptap's own pages (out-of-line slots, trampolines) are not the target's doing. */
static bool is_scratch(const struct aspace *as, uint64_t addr)
{
	for (size_t i = 0; i < as->nscratch; i++)
		if (addr - as->scratch[i].start < as->scratch[i].len)
			return true;
	return false;
}

/* What the table knows of how E was mapped: shared or private, and anonymous. */
static uint64_t table_flags(const struct map_entry *e)
{
	return (uint64_t)(unsigned int)e->flags & (MAP_SHARED | MAP_PRIVATE | MAP_ANONYMOUS);
}

void mmapev_table(struct session *s, const struct thread *t)
{
	const struct maptab *mt;

	if (!wanted(s, t) || !t->as || s->detaching)
		return;
	mt = t->as->mt;
	for (size_t i = 0; i < maptab__count(mt); i++) {
		const struct map_entry *e = maptab__at(mt, i);

		if (is_scratch(t->as, e->start))
			continue;
		mapping(s, t, "map", e, table_flags(e),
			e->ino ? bid_of_entry(s->mmapev, t->tid, e) : NULL);
	}
}

void mmapev_entry(struct session *s, const struct thread *t, const char *event,
		  const struct map_entry *e)
{
	struct mrec r;

	if (!wanted(s, t) || is_scratch(t->as, e->start))
		return;
	if (!strcmp(event, "mmap")) {
		mapping(s, t, event, e, table_flags(e),
			e->ino ? bid_of_entry(s->mmapev, t->tid, e) : NULL);
		return;
	}
	r.n = 0;
	add(&r, "addr", FT_HEX, e->start, NULL);
	add(&r, "len", FT_UNSIGNED, e->end - e->start, NULL);
	if (!strcmp(event, "mprotect"))
		add_prot(&r, (uint64_t)(unsigned int)e->prot);
	emit(s, t, event, e->start, &r);
}

size_t mmapev_max_len(void)
{
	static const struct fetch_type str = { .kind = FT_STRING, .size = 8 };

	/* the path, and the rest: names, numbers, the symbolic values */
	return value__max_len(&str, PATH_MAX + 32) + MREC_MAX * 64 + 2 * SYM_LEN +
	       2 * ELFIMAGE_MAX_BUILD_ID + 256;
}
