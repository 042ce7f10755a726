/* tracer/space/mapview.c: `ptap maps` tables -- a live process's (PROCMAP_QUERY or
 * /proc/PID/maps, files and memory for the ELF headers) or a core dump's --
 * and their text and JSON renderings. */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dwarf/core.h"
#include "probes/err.h"
#include "probes/escape.h"
#include "tracer/host/privs.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mapview.h"

#define DELETED_SUFFIX	" (deleted)"
/* How much of a file's first mapping is read for its ELF headers and notes. */
#define HEADER_READ	16384

/* ---- rows --------------------------------------------------------------- */

static struct mapview_row *add_row(struct mapview *v)
{
	if (v->nrows == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		struct mapview_row *rows = realloc(v->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		v->rows = rows;
		v->cap = cap;
	}
	memset(&v->rows[v->nrows], 0, sizeof(v->rows[0]));
	return &v->rows[v->nrows++];
}

/* Set R's name from the kernel's NAME, taking " (deleted)" off into R->deleted. */
static int set_name(struct mapview_row *r, const char *name)
{
	size_t len, sl = strlen(DELETED_SUFFIX);

	if (!name || !*name)
		return 0;
	len = strlen(name);
	if (len > sl && !strcmp(name + len - sl, DELETED_SUFFIX)) {
		r->deleted = true;
		len -= sl;
	}
	r->path = strndup(name, len);
	return r->path ? 0 : -ENOMEM;
}

/* PROT as "r-x"; then 's' or 'p' for SHARED 1 or 0, nothing when it is unknown (-1). */
static void set_perms(struct mapview_row *r, int prot, int shared)
{
	if (prot < 0) {
		memcpy(r->perms, "???", 3);
	} else {
		r->perms[0] = prot & PROT_READ ? 'r' : '-';
		r->perms[1] = prot & PROT_WRITE ? 'w' : '-';
		r->perms[2] = prot & PROT_EXEC ? 'x' : '-';
	}
	r->perms[3] = shared < 0 ? '\0' : shared ? 's' : 'p';
	r->perms[4] = '\0';
}

void mapview__free(struct mapview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nrows; i++)
		free(v->rows[i].path);
	free(v->rows);
	free(v->exe);
	free(v->core);
	free(v);
}

/* ---- segments and load bias --------------------------------------------- */

/* Do rows A and B show the same file (a core has no dev/inode: the path)? */
static bool same_file(const struct mapview_row *a, const struct mapview_row *b)
{
	if (!a->file || !b->file)
		return false;
	if (a->has_dev && b->has_dev)
		return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
		       a->inode == b->inode;
	return a->path && b->path && !strcmp(a->path, b->path);
}

void mapview__attribute(struct mapview *v, const struct elfimage *const *imgs, uint64_t page)
{
	const struct elfimage *prev_img = NULL;
	const struct mapview_row *prev = NULL;	/* the last row given a segment */

	for (size_t i = 0; i < v->nrows; i++) {
		struct mapview_row *r = &v->rows[i];
		const struct elfimage *img = imgs[i];
		bool hint = prev && same_file(prev, r);
		int k;

		if (img && r->file) {
			k = elfimage__segment(img, r->start, r->pgoff, r->perms[2] == 'x', page,
					      hint, hint ? prev->bias : 0, &r->bias);
			if (k >= 0) {
				r->has_seg = true;
				r->seg = k;
				prev = r;
				prev_img = img;
			}
			continue;
		}
		/* The anonymous zero-fill tail right after a segment's last file page. */
		if (!r->file && !r->path && prev && prev == r - 1 && prev->end == r->start) {
			k = elfimage__bss_segment(prev_img, r->start, prev->bias);
			if (k >= 0) {
				r->has_seg = r->bss = true;
				r->seg = k;
				r->bias = prev->bias;
				prev = r;
			}
		}
	}
}

/* ---- both ---------------------------------------------------------------- */

/* Reads the ELF image of ROW's file from SRC (a live process, a core). */
typedef int (*image_fn)(const struct mapview *v, const struct mapview_row *row,
			struct elfimage *img, const void *src);

/*
 * Each file row's build-id, segment and bias, from the image of its file
 * read once per file (the first row of each file reads it).
 */
static int attribute(struct mapview *v, image_fn read_image, const void *src, uint64_t page)
{
	struct elfimage *imgs = calloc(v->nrows ? v->nrows : 1, sizeof(*imgs));
	const struct elfimage **per_row = calloc(v->nrows ? v->nrows : 1, sizeof(*per_row));

	if (!imgs || !per_row) {
		free(imgs);
		free(per_row);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->nrows; i++) {
		struct mapview_row *r = &v->rows[i];
		size_t j;

		if (!r->file)
			continue;
		for (j = 0; j < i; j++)
			if (same_file(&v->rows[j], r))
				break;
		if (j < i)
			per_row[i] = per_row[j];
		else if (read_image(v, r, &imgs[i], src) == 0)
			per_row[i] = &imgs[i];
		/* The kernel's build-id (PROCMAP_QUERY) stands; else the file's. */
		if (per_row[i] && !r->build_id_len && per_row[i]->build_id_len) {
			memcpy(r->build_id, per_row[i]->build_id, per_row[i]->build_id_len);
			r->build_id_len = per_row[i]->build_id_len;
		}
	}
	mapview__attribute(v, per_row, page);
	/*
	 * gcore writes no PT_LOAD for file ranges it did not dump (text,
	 * read-only data): their perms are then their segment's p_flags.
	 */
	for (size_t i = 0; i < v->nrows; i++) {
		struct mapview_row *r = &v->rows[i];

		if (r->perms[0] == '?' && r->has_seg && !r->bss && per_row[i]) {
			uint32_t fl = per_row[i]->load[r->seg].flags;

			set_perms(r, (fl & PF_R ? PROT_READ : 0) | (fl & PF_W ? PROT_WRITE : 0) |
				     (fl & PF_X ? PROT_EXEC : 0), -1);
		}
	}
	free(imgs);
	free(per_row);
	return 0;
}

/* ---- a live process ----------------------------------------------------- */

int mapview__open_file(pid_t pid, uint64_t start, uint64_t end, const char *path, uint64_t dev,
		       uint64_t ino)
{
	char link[80];
	struct stat st;
	int fd;

	snprintf(link, sizeof(link), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (!path || path[0] != '/')
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((dev || ino) && (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Append MT's entries to V's rows; with QUERY, build-ids from PROCMAP_QUERY on MAPS_FD. */
static int add_entries(struct mapview *v, const struct maptab *mt, int maps_fd, bool query)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < maptab__count(mt); i++) {
		const struct map_entry *e = maptab__at(mt, i);
		struct mapview_row *row = add_row(v);

		if (!row)
			return -ENOMEM;
		row->start = e->start;
		row->end = e->end;
		row->pgoff = e->pgoff;
		set_perms(row, e->prot, !!(e->flags & MAP_SHARED));
		row->has_dev = true;
		row->dev_major = major(e->dev);
		row->dev_minor = minor(e->dev);
		row->inode = e->ino;
		row->file = !(e->flags & MAP_ANONYMOUS);
		r = set_name(row, e->path);
		if (r == 0 && row->file && query) {
			int n = maptab__query_build_id(maps_fd, e->start, row->build_id,
						       sizeof(row->build_id));

			row->build_id_len = n > 0 ? (size_t)n : 0;
		}
	}
	return r;
}

/*
 * Fill V's rows from PID's map table read through MAPS_FD, then the kernel's
 * gate area ([vsyscall]) from its text: /proc/PID/maps shows it last, and so
 * does `ptap maps`, row for row, although the table leaves it out.
 */
static int live_rows(struct mapview *v, int maps_fd, bool text)
{
	struct maptab *mt = maptab__new();
	bool query;
	int r;

	if (!mt)
		return -ENOMEM;
	r = maptab__load_fd(mt, maps_fd, text, &query);
	v->source = query ? "procmap_query" : "proc_maps";
	if (r == 0)
		r = add_entries(v, mt, maps_fd, query);
	if (r == 0)
		r = maptab__load_gate(mt, maps_fd);
	if (r == 0)
		r = add_entries(v, mt, maps_fd, false);
	maptab__free(mt);
	return r;
}

/* The row of R's file at file offset 0 at or before R (where its ELF header is mapped). */
static const struct mapview_row *header_row(const struct mapview *v, const struct mapview_row *r)
{
	for (const struct mapview_row *h = r; h >= v->rows; h--)
		if (same_file(h, r) && h->pgoff == 0)
			return h;
	return NULL;
}

/*
 * The ELF image of ROW's file in the live process V->pid: the file itself
 * (map_files, or its path while it is the same file), else the process's
 * memory at the file's first mapping.
 */
static int live_image(const struct mapview *v, const struct mapview_row *row,
		      struct elfimage *img, const void *src)
{
	const struct mapview_row *h;
	char path[64];
	void *buf;
	ssize_t n;
	int fd, r;

	(void)src;
	fd = mapview__open_file(v->pid, row->start, row->end, row->deleted ? NULL : row->path,
				makedev(row->dev_major, row->dev_minor), row->inode);
	if (fd >= 0) {
		r = elfimage__from_fd(fd, img);
		close(fd);
		return r;
	}
	h = header_row(v, row);
	if (!h || h->perms[0] != 'r')
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)v->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(HEADER_READ);
	n = buf ? pread(fd, buf, h->end - h->start < HEADER_READ ? h->end - h->start :
			HEADER_READ, (off_t)h->start) : -1;
	r = n > 0 ? elfimage__from_mem(buf, (size_t)n, img) : -EIO;
	free(buf);
	close(fd);
	return r;
}

/* RSS, PSS and swap of each row, from /proc/PID/smaps. */
static int live_rss(struct mapview *v)
{
	char path[64], *line = NULL;
	struct mapview_row *cur = NULL;
	size_t cap = 0, next = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)v->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long a, b, kb;

		if ((isdigit((unsigned char)line[0]) || islower((unsigned char)line[0])) &&
		    sscanf(line, "%llx-%llx ", &a, &b) == 2) {
			cur = NULL;
			while (next < v->nrows && v->rows[next].start < a)
				next++;
			if (next < v->nrows && v->rows[next].start == a) {
				cur = &v->rows[next];
				cur->has_rss = true;
			}
		} else if (cur && sscanf(line, "Rss: %llu kB", &kb) == 1) {
			cur->rss_kb = kb;
		} else if (cur && sscanf(line, "Pss: %llu kB", &kb) == 1) {
			cur->pss_kb = kb;
		} else if (cur && sscanf(line, "Swap: %llu kB", &kb) == 1) {
			cur->swap_kb = kb;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* /proc/PID/FILE's first line into BUF, without the newline; "" when unreadable. */
static void read_line(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

int mapview__live(pid_t pid, unsigned int flags, struct mapview **out, struct ptap_err *err)
{
	char path[64], exe[PATH_MAX];
	struct ptap_err why = { .pos = -1 };
	struct privs_target t;
	struct mapview *v;
	ssize_t n;
	int fd, r;

	if (pid <= 0)
		return ptap_err_set(err, -1, -EINVAL, "bad pid %d: give a process id", (int)pid);
	/*
	 * No such process, a zombie, a kernel thread: no table, say why.  A
	 * thread id stands for its process.  (Being traced, even by this ptap,
	 * does not matter here.)
	 */
	r = privs_check_target("/proc", pid, &t, &why);
	if (r == -ESRCH || r == -EPERM)
		return ptap_err_set(err, -1, r, "%s", why.msg);
	if (t.tgid > 0)
		pid = t.tgid;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		privs_explain_read("/proc", pid, r, err);
		return r == -ENOENT ? -ESRCH : r;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		close(fd);
		return -ENOMEM;
	}
	v->pid = pid;
	read_line(pid, "comm", v->comm, sizeof(v->comm));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		v->exe = strdup(exe);
	}
	r = live_rows(v, fd, flags & MAPVIEW_TEXT);
	close(fd);
	if (r == 0)
		r = attribute(v, live_image, NULL, (uint64_t)sysconf(_SC_PAGESIZE));
	if (r == 0 && (flags & MAPVIEW_RSS)) {
		r = live_rss(v);
		if (r < 0)
			privs_explain_read("/proc", pid, r, err);
	} else if (r < 0) {
		ptap_err_set(err, -1, r, "reading the map table of pid %d: %s", (int)pid,
			     strerror(-r));
	}
	if (r < 0) {
		mapview__free(v);
		return r;
	}
	*out = v;
	return 0;
}

/* ---- a core dump -------------------------------------------------------- */

/* Where core C holds map M's bytes. */
static void core_held(const struct core_map *m, struct mapview_row *r)
{
	r->core_bytes = m->present;
	if (!m->held)
		r->in_core = MV_CORE_NONE;
	else if (m->present < m->held)
		r->in_core = MV_CORE_CUT;
	else if (m->held >= m->end - m->start)
		r->in_core = MV_CORE_ALL;
	else
		r->in_core = MV_CORE_PART;
}

/* The image of ROW's file from the header page the core SRC holds, if it does. */
static int core_image(const struct mapview *v, const struct mapview_row *row,
		      struct elfimage *img, const void *src)
{
	const struct core *c = src;
	const struct mapview_row *h = header_row(v, row);
	void *buf;
	size_t n;
	int r;

	if (!h)
		return -ENOENT;
	buf = malloc(HEADER_READ);
	if (!buf)
		return -ENOMEM;
	n = core__read(c, h->start, buf, HEADER_READ);
	r = n ? elfimage__from_mem(buf, n, img) : -ENOENT;
	free(buf);
	return r;
}

static int core_rows(struct mapview *v, const struct core *c)
{
	const struct core_info *ci = core__info(c);

	for (size_t i = 0; i < core__count(c); i++) {
		const struct core_map *m = core__map(c, i);
		struct mapview_row *r = add_row(v);

		if (!r)
			return -ENOMEM;
		r->start = m->start;
		r->end = m->end;
		set_perms(r, m->prot, -1);
		core_held(m, r);
		if (m->path) {
			r->file = true;
			r->pgoff = m->pgoff;
			if (set_name(r, m->path) < 0)
				return -ENOMEM;
		} else if (ci->at_sysinfo_ehdr >= m->start && ci->at_sysinfo_ehdr < m->end) {
			r->path = strdup("[vdso]");
		} else if (ci->at_execfn >= m->start && ci->at_execfn < m->end) {
			r->path = strdup("[stack]");
		}
		if (ci->at_phdr >= m->start && ci->at_phdr < m->end && r->path && m->path && !v->exe)
			v->exe = strdup(r->path);
	}
	return 0;
}

int mapview__core(const char *path, struct mapview **out, struct ptap_err *err)
{
	const struct core_info *ci;
	struct mapview *v;
	struct core *c;
	char exe[PATH_MAX];
	int r;

	r = core__open(path, &c, err);
	if (r < 0)
		return r;
	ci = core__info(c);
	v = calloc(1, sizeof(*v));
	if (!v) {
		core__close(c);
		return -ENOMEM;
	}
	v->source = "core";
	v->pid = ci->pid;
	snprintf(v->comm, sizeof(v->comm), "%s", ci->comm);
	v->signal = ci->signal;
	v->core_missing = ci->missing;
	v->core = strdup(path);
	r = v->core ? core_rows(v, c) : -ENOMEM;
	if (r == 0 && !v->exe && ci->at_execfn &&
	    core__read_str(c, ci->at_execfn, exe, sizeof(exe)) == 0)
		v->exe = strdup(exe);
	if (r == 0)
		r = attribute(v, core_image, c, core__info(c)->page_size);
	core__close(c);
	if (r < 0) {
		ptap_err_set(err, -1, r, "reading core %s: %s", path, strerror(-r));
		mapview__free(v);
		return r;
	}
	*out = v;
	return 0;
}

/* ---- printing ----------------------------------------------------------- */

/* S escaped for MODE into a buffer that lives until the next call with the same SLOT. */
static const char *esc(const char *s, enum esc_mode mode, int slot)
{
	static char buf[2][PATH_MAX * 6 + 1];

	escape_str(s, strlen(s), mode, buf[slot], sizeof(buf[slot]), NULL);
	return buf[slot];
}

/*
 * S as /proc/PID/maps shows a path: raw, but for control bytes, which become
 * \ooo (the kernel does that to '\n'), so that a row stays one line.
 */
static void put_raw(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
}

static bool is_core(const struct mapview *v)
{
	return v->core != NULL;
}

static void text_header(const struct mapview *v, FILE *f, bool rss)
{
	fputs("# ptap maps: ", f);
	if (is_core(v)) {
		fputs("core ", f);
		put_raw(f, v->core);
		fputs(" of ", f);
	}
	fprintf(f, "pid %d (", (int)v->pid);
	put_raw(f, v->comm);
	fputc(')', f);
	if (v->exe) {
		fputc(' ', f);
		put_raw(f, v->exe);
	}
	if (!is_core(v))
		fprintf(f, ", via %s", v->source);
	if (v->signal)
		fprintf(f, ", signal SIG%s", sigabbrev_np(v->signal) ?: "?");
	if (v->core_missing)
		fprintf(f, ", truncated: %llu bytes missing", (unsigned long long)v->core_missing);
	fputc('\n', f);
	fprintf(f, "%-33s %9s %-4s %-8s %-5s %-9s %-6s %-14s %-40s ", "START-END", "SIZE", "PERM",
		"PGOFF", "DEV", "INODE", "SEG", "BIAS", "BUILD-ID");
	if (rss)
		fprintf(f, "%9s %9s %9s ", "RSS", "PSS", "SWAP");
	if (is_core(v))
		fprintf(f, "%-5s ", "CORE");
	fputs("PATH\n", f);
}

/* The CORE column: "all", "none", "cut", or the bytes held ("4K"). */
static void core_word(const struct mapview_row *r, char *buf, size_t len)
{
	static const char *const words[] = {
		[MV_CORE_NA] = "-", [MV_CORE_ALL] = "all", [MV_CORE_NONE] = "none",
		[MV_CORE_CUT] = "cut",
	};

	if (r->in_core == MV_CORE_PART)
		snprintf(buf, len, "%lluK", (unsigned long long)r->core_bytes / 1024);
	else
		snprintf(buf, len, "%s", words[r->in_core]);
}

static void text_row(const struct mapview *v, const struct mapview_row *r, FILE *f, bool rss)
{
	char range[40], size[24], dev[16], ino[24], seg[16], bias[24], word[24];
	char bid[2 * ELFIMAGE_MAX_BUILD_ID + 1], line[256];
	size_t n;

	snprintf(range, sizeof(range), "%016llx-%016llx", (unsigned long long)r->start,
		 (unsigned long long)r->end);
	snprintf(size, sizeof(size), "%lluK", (unsigned long long)(r->end - r->start) / 1024);
	snprintf(dev, sizeof(dev), r->has_dev ? "%02x:%02x" : "-", r->dev_major, r->dev_minor);
	snprintf(ino, sizeof(ino), r->has_dev ? "%llu" : "-", (unsigned long long)r->inode);
	snprintf(seg, sizeof(seg), !r->has_seg ? "-" : r->bss ? "L%d.bss" : "L%d", r->seg);
	snprintf(bias, sizeof(bias), r->has_seg ? "0x%llx" : "-", (unsigned long long)r->bias);
	if (r->build_id_len)
		elfimage__hex(r->build_id, r->build_id_len, bid);
	else
		strcpy(bid, "-");
	n = (size_t)snprintf(line, sizeof(line), "%-33s %9s %-4s %08llx %-5s %-9s %-6s %-14s %-40s ",
			     range, size, r->perms, (unsigned long long)r->pgoff, dev, ino, seg,
			     bias, bid);
	if (rss && n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%8lluK %8lluK %8lluK ",
				      (unsigned long long)r->rss_kb,
				      (unsigned long long)r->pss_kb,
				      (unsigned long long)r->swap_kb);
	if (is_core(v) && n < sizeof(line)) {
		core_word(r, word, sizeof(word));
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%-5s ", word);
	}
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	/* No trailing blanks on a row without a path. */
	while (!r->path && n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	if (r->path) {
		put_raw(f, r->path);
		if (r->deleted)
			fputs(DELETED_SUFFIX, f);
	}
	fputc('\n', f);
}

struct totals {
	uint64_t size, rss, pss, swap, core;
};

static struct totals sum(const struct mapview *v)
{
	struct totals t = { 0 };

	for (size_t i = 0; i < v->nrows; i++) {
		const struct mapview_row *r = &v->rows[i];

		t.size += r->end - r->start;
		t.rss += r->rss_kb;
		t.pss += r->pss_kb;
		t.swap += r->swap_kb;
		t.core += r->core_bytes;
	}
	return t;
}

/* Did the table get --rss figures (any row)? */
static bool has_rss(const struct mapview *v)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].has_rss)
			return true;
	return false;
}

static int finish(FILE *f)
{
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

int mapview__print_text(const struct mapview *v, FILE *f)
{
	bool rss = has_rss(v);
	struct totals t = sum(v);

	text_header(v, f, rss);
	for (size_t i = 0; i < v->nrows; i++)
		text_row(v, &v->rows[i], f, rss);
	fprintf(f, "total: %zu mappings, %lluK", v->nrows, (unsigned long long)t.size / 1024);
	if (rss)
		fprintf(f, ", rss %lluK, pss %lluK, swap %lluK", (unsigned long long)t.rss,
			(unsigned long long)t.pss, (unsigned long long)t.swap);
	if (is_core(v))
		fprintf(f, ", %lluK in the core", (unsigned long long)t.core / 1024);
	fputc('\n', f);
	return finish(f);
}

static void json_str_or_null(FILE *f, const char *key, const char *s)
{
	if (s)
		fprintf(f, ",\"%s\":\"%s\"", key, esc(s, ESC_JSON, 1));
	else
		fprintf(f, ",\"%s\":null", key);
}

static void json_row(const struct mapview *v, const struct mapview_row *r, FILE *f)
{
	char bid[2 * ELFIMAGE_MAX_BUILD_ID + 1];

	fprintf(f, "{\"kind\":\"map\",\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"size\":%llu,"
		"\"perms\":\"%s\",\"pgoff\":%llu", (unsigned long long)r->start,
		(unsigned long long)r->end, (unsigned long long)(r->end - r->start), r->perms,
		(unsigned long long)r->pgoff);
	if (r->has_dev)
		fprintf(f, ",\"dev\":\"%02x:%02x\",\"inode\":%llu", r->dev_major, r->dev_minor,
			(unsigned long long)r->inode);
	else
		fputs(",\"dev\":null,\"inode\":null", f);
	json_str_or_null(f, "path", r->path);
	fprintf(f, ",\"deleted\":%s", r->deleted ? "true" : "false");
	if (r->build_id_len)
		elfimage__hex(r->build_id, r->build_id_len, bid);
	json_str_or_null(f, "build_id", r->build_id_len ? bid : NULL);
	if (r->has_seg)
		fprintf(f, ",\"bias\":\"0x%llx\",\"segment\":%d", (unsigned long long)r->bias,
			r->seg);
	else
		fputs(",\"bias\":null,\"segment\":null", f);
	fprintf(f, ",\"bss\":%s", r->bss ? "true" : "false");
	if (r->has_rss)
		fprintf(f, ",\"rss_kb\":%llu,\"pss_kb\":%llu,\"swap_kb\":%llu",
			(unsigned long long)r->rss_kb, (unsigned long long)r->pss_kb,
			(unsigned long long)r->swap_kb);
	if (is_core(v)) {
		static const char *const words[] = {
			[MV_CORE_NA] = "na", [MV_CORE_ALL] = "all", [MV_CORE_NONE] = "none",
			[MV_CORE_PART] = "partial", [MV_CORE_CUT] = "cut",
		};

		fprintf(f, ",\"core\":\"%s\",\"core_bytes\":%llu", words[r->in_core],
			(unsigned long long)r->core_bytes);
	}
	fputs("}\n", f);
}

int mapview__print_json(const struct mapview *v, FILE *f)
{
	bool rss = has_rss(v);
	struct totals t = sum(v);

	fprintf(f, "{\"kind\":\"maps\",\"source\":\"%s\",\"pid\":%d,\"comm\":\"%s\"", v->source,
		(int)v->pid, esc(v->comm, ESC_JSON, 0));
	json_str_or_null(f, "exe", v->exe);
	if (is_core(v)) {
		fprintf(f, ",\"core\":\"%s\",\"signal\":%d,\"missing\":%llu",
			esc(v->core, ESC_JSON, 0), v->signal, (unsigned long long)v->core_missing);
	}
	fputs("}\n", f);
	for (size_t i = 0; i < v->nrows; i++)
		json_row(v, &v->rows[i], f);
	fprintf(f, "{\"kind\":\"total\",\"mappings\":%zu,\"size\":%llu", v->nrows,
		(unsigned long long)t.size);
	if (rss)
		fprintf(f, ",\"rss_kb\":%llu,\"pss_kb\":%llu,\"swap_kb\":%llu",
			(unsigned long long)t.rss, (unsigned long long)t.pss,
			(unsigned long long)t.swap);
	if (is_core(v))
		fprintf(f, ",\"core_bytes\":%llu", (unsigned long long)t.core);
	fputs("}\n", f);
	return finish(f);
}
