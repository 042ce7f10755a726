/* tests/unit/test_mapview.c: tracer/space/mapview.c -- this test process's own
 * table against /proc/self/maps and the loader (dl_iterate_phdr: each
 * object's load bias), both ways of reading it, --rss, a pid that does not
 * exist, and the exact text and JSON of a table built by hand. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "tracer/space/mapview.h"

/*
 * Whether a row of this process's own table named PATH may move between two
 * reads for a reason other than the heap: under ASan (make unit-asan) the
 * anonymous ones do, as ASan's allocator grows its regions in place and its
 * quarantine keeps freed memory from being reused.
 */
static bool anon_row_moves(const char *path)
{
#ifdef __SANITIZE_ADDRESS__
	return !path || !*path;
#else
	(void)path;
	return false;
#endif
}

/*
 * Compare V's rows with /proc/self/maps, line by line ([vsyscall] too, where
 * the kernel shows it: PROCMAP_QUERY does not return it).  Read with read() into a static buffer: a stdio buffer could grow
 * the heap under the comparison.
 */
static void check_against_proc(const struct mapview *v)
{
	static char text[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY);
	char *line, *save = NULL;
	size_t i = 0, n = 0;
	ssize_t nread;

	cr_assert(ge(int, fd, 0));
	while ((nread = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)nread;
	close(fd);
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, mnr;
		char perms[8], want[4096] = "", got[4096];
		int pos = 0;

		cr_assert(eq(int, sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
					 perms, &off, &maj, &mnr, &ino, &pos), 7), "%s", line);
		snprintf(want, sizeof(want), "%s", line + pos);
		cr_assert(lt(sz, i, v->nrows), "more lines than rows at %s", line);
		const struct mapview_row *r = &v->rows[i++];

		/* The heap's end moves with this process's own mallocs. */
		if (!anon_row_moves(want))
			cr_expect(eq(u64, r->start, start), "%s", line);
		if (!strstr(line, "[heap]") && !anon_row_moves(want))
			cr_expect(eq(u64, r->end, end), "%s", line);
		cr_expect(eq(str, (char *)r->perms, perms), "%s", line);
		cr_expect(eq(u64, r->pgoff, off), "%s", line);
		cr_expect(eq(uint, r->dev_major, maj), "%s", line);
		cr_expect(eq(uint, r->dev_minor, mnr), "%s", line);
		cr_expect(eq(u64, r->inode, ino), "%s", line);
		snprintf(got, sizeof(got), "%s%s", r->path ? r->path : "",
			 r->deleted ? " (deleted)" : "");
		cr_expect(eq(str, got, want), "%s", line);
	}
	cr_expect(eq(sz, i, v->nrows), "lines in /proc/self/maps, rows");
}

struct obj {
	char name[PATH_MAX];
	uint64_t bias;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct obj *objs = arg;

	(void)size;
	for (int i = 0; i < 8; i++)
		if (!objs[i].name[0]) {
			/* The loader's name may go through a symlink (/lib -> usr/lib). */
			if (!realpath(info->dlpi_name, objs[i].name))
				snprintf(objs[i].name, sizeof(objs[i].name), "%s", info->dlpi_name);
			objs[i].bias = info->dlpi_addr;
			break;
		}
	return 0;
}

Test(mapview, self_matches_proc_and_loader)
{
	struct ptap_err err = { .pos = -1 };
	struct obj objs[8] = { 0 };
	struct mapview *v;
	int checked = 0;

	/* Once to grow the heap to what a call needs, then the call compared. */
	cr_assert(eq(int, mapview__live(getpid(), 0, &v, &err), 0), "%s", err.msg);
	mapview__free(v);
	cr_assert(eq(int, mapview__live(getpid(), 0, &v, &err), 0), "%s", err.msg);
	check_against_proc(v);
	cr_expect_str_eq(v->source, "procmap_query");
	cr_expect(eq(int, v->pid, getpid()));
	/* Each shared object's rows (all of them) carry the loader's bias. */
	dl_iterate_phdr(collect, objs);
	for (int k = 0; k < 8; k++) {
		if (objs[k].name[0] != '/')
			continue;
		for (size_t i = 0; i < v->nrows; i++) {
			const struct mapview_row *r = &v->rows[i];

			if (!r->path || strcmp(r->path, objs[k].name))
				continue;
			cr_expect(r->has_seg, "%s at %lx has a segment", r->path, r->start);
			cr_expect(eq(u64, r->bias, objs[k].bias), "%s at %lx: bias %lx, loader %lx",
				  r->path, r->start, r->bias, objs[k].bias);
			cr_expect(eq(sz, r->build_id_len, 20), "%s has a build-id", r->path);
			checked++;
		}
	}
	cr_expect(ge(int, checked, 8), "libc and ld.so rows checked (%d)", checked);
	mapview__free(v);
}

Test(mapview, proc_maps_text_gives_the_same_rows)
{
	struct ptap_err err = { .pos = -1 };
	struct mapview *a, *b;

	cr_assert(eq(int, mapview__live(getpid(), MAPVIEW_TEXT, &b, &err), 0), "%s", err.msg);
	mapview__free(b);
	cr_assert(eq(int, mapview__live(getpid(), 0, &a, &err), 0), "%s", err.msg);
	cr_assert(eq(int, mapview__live(getpid(), MAPVIEW_TEXT, &b, &err), 0), "%s", err.msg);
	cr_expect_str_eq(b->source, "proc_maps");
	check_against_proc(b);
	cr_assert(eq(sz, a->nrows, b->nrows));
	for (size_t i = 0; i < a->nrows; i++) {
		cr_expect(eq(sz, a->rows[i].build_id_len, b->rows[i].build_id_len), "row %zu", i);
		cr_expect(eq(mem, ((struct cr_mem){ a->rows[i].build_id, a->rows[i].build_id_len }),
			     ((struct cr_mem){ b->rows[i].build_id, a->rows[i].build_id_len })),
			  "row %zu", i);
		cr_expect(eq(int, a->rows[i].has_seg, b->rows[i].has_seg), "row %zu", i);
		cr_expect(eq(int, a->rows[i].seg, b->rows[i].seg), "row %zu", i);
		cr_expect(eq(u64, a->rows[i].bias, b->rows[i].bias), "row %zu", i);
	}
	mapview__free(a);
	mapview__free(b);
}

Test(mapview, rss_of_touched_memory)
{
	struct ptap_err err = { .pos = -1 };
	size_t len = 64 << 20;
	char *p = malloc(len);
	struct mapview *v;
	bool found = false;

	cr_assert_not_null(p);
	memset(p, 1, len);
	cr_assert(eq(int, mapview__live(getpid(), MAPVIEW_RSS, &v, &err), 0), "%s", err.msg);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct mapview_row *r = &v->rows[i];

		/* smaps is read after maps: a row that moved since has no figures */
		if (!anon_row_moves(r->path))
			cr_expect(r->has_rss, "%lx-%lx %s", r->start, r->end,
				  r->path ? r->path : "");
		if ((uintptr_t)p >= r->start && (uintptr_t)p < r->end) {
			found = true;
			cr_expect(ge(u64, r->rss_kb, 64 * 1024), "rss %lu kB", r->rss_kb);
			cr_expect(le(u64, r->pss_kb, r->rss_kb));
		}
	}
	cr_expect(eq(int, found, true));
	mapview__free(v);
	free(p);
}

Test(mapview, no_such_process)
{
	struct ptap_err err = { .pos = -1 };
	struct mapview *v = NULL;
	pid_t pid = fork();

	cr_assert(ge(int, pid, 0));
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	cr_expect(eq(int, mapview__live(pid, 0, &v, &err), -ESRCH));
	cr_expect_null(v);
	cr_expect_not_null(strstr(err.msg, "no process"), "%s", err.msg);
}

/* A table by hand: an executable, its bss, a deleted memfd, anonymous memory. */
static struct mapview *hand_made(void)
{
	struct mapview *v = calloc(1, sizeof(*v));
	static const struct mapview_row rows[] = {
		{ .start = 0x400000, .end = 0x401000, .pgoff = 0, .perms = "r-xp", .has_dev = true,
		  .dev_major = 8, .dev_minor = 1, .inode = 42, .file = true,
		  .build_id = { 0xde, 0xad }, .build_id_len = 2, .has_seg = true, .seg = 0 },
		{ .start = 0x401000, .end = 0x403000, .perms = "rw-p", .has_dev = true,
		  .has_seg = true, .seg = 1, .bss = true },
		{ .start = 0x7f0000000000, .end = 0x7f0000001000, .perms = "rw-s", .has_dev = true,
		  .inode = 7, .dev_minor = 1, .deleted = true, .file = true },
	};

	cr_assert_not_null(v);
	v->pid = 42;
	strcpy(v->comm, "zoo\"1");
	v->exe = strdup("/bin/zoo");
	v->source = "procmap_query";
	v->nrows = v->cap = 3;
	v->rows = calloc(3, sizeof(*v->rows));
	memcpy(v->rows, rows, sizeof(rows));
	v->rows[0].path = strdup("/bin/zoo");
	v->rows[2].path = strdup("/memfd:a\nb");
	return v;
}

static char *print(const struct mapview *v, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert(eq(int, json ? mapview__print_json(v, f) : mapview__print_text(v, f), 0));
	fclose(f);
	return buf;
}

Test(mapview, json_exact)
{
	struct mapview *v = hand_made();
	char *out = print(v, true);

	cr_expect_str_eq(out,
		"{\"kind\":\"maps\",\"source\":\"procmap_query\",\"pid\":42,\"comm\":\"zoo\\\"1\","
		"\"exe\":\"/bin/zoo\"}\n"
		"{\"kind\":\"map\",\"start\":\"0x400000\",\"end\":\"0x401000\",\"size\":4096,"
		"\"perms\":\"r-xp\",\"pgoff\":0,\"dev\":\"08:01\",\"inode\":42,\"path\":\"/bin/zoo\","
		"\"deleted\":false,\"build_id\":\"dead\",\"bias\":\"0x0\",\"segment\":0,"
		"\"bss\":false}\n"
		"{\"kind\":\"map\",\"start\":\"0x401000\",\"end\":\"0x403000\",\"size\":8192,"
		"\"perms\":\"rw-p\",\"pgoff\":0,\"dev\":\"00:00\",\"inode\":0,\"path\":null,"
		"\"deleted\":false,\"build_id\":null,\"bias\":\"0x0\",\"segment\":1,\"bss\":true}\n"
		"{\"kind\":\"map\",\"start\":\"0x7f0000000000\",\"end\":\"0x7f0000001000\","
		"\"size\":4096,\"perms\":\"rw-s\",\"pgoff\":0,\"dev\":\"00:01\",\"inode\":7,"
		"\"path\":\"/memfd:a\\nb\",\"deleted\":true,\"build_id\":null,\"bias\":null,"
		"\"segment\":null,\"bss\":false}\n"
		"{\"kind\":\"total\",\"mappings\":3,\"size\":16384}\n");
	free(out);
	mapview__free(v);
}

Test(mapview, text_exact)
{
	struct mapview *v = hand_made();
	char *out = print(v, false);

	cr_expect_str_eq(out,
		"# ptap maps: pid 42 (zoo\"1) /bin/zoo, via procmap_query\n"
		"START-END                              SIZE PERM PGOFF    DEV   INODE     SEG    "
		"BIAS           BUILD-ID                                 PATH\n"
		"0000000000400000-0000000000401000        4K r-xp 00000000 08:01 42        L0     "
		"0x0            dead                                     /bin/zoo\n"
		"0000000000401000-0000000000403000        8K rw-p 00000000 00:00 0         L1.bss "
		"0x0            -\n"
		"00007f0000000000-00007f0000001000        4K rw-s 00000000 00:01 7         -      "
		"-              -                                        /memfd:a\\012b (deleted)\n"
		"total: 3 mappings, 16K\n");
	free(out);
	mapview__free(v);
}
