/* tests/unit/test_writers.c: the record writers on the hit path -- formatting
 * (text, JSON, perfetto) allocates nothing; tracer/events/output.c holds records in
 * its buffer, writes them by 64 KiB or when they are 100 ms old, and counts
 * the records a failed write lost. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/log.h"
#include "probes/perfetto.h"
#include "probes/record.h"
#include "tracer/events/output.h"

/* ---- counting allocations --------------------------------------------------
 * The unit binary's malloc, calloc and realloc are these: they count the
 * calls made on a thread that set COUNTING (libc's own calls too), and
 * leave the work to libc's.  Under ASan (make unit-asan) the allocator must
 * stay ASan's (it frees what it did not allocate otherwise): ASan calls a
 * hook on each allocation instead, which counts the same way. */

/* volatile: the compiler takes malloc for a builtin that reads no variable of ours */
static __thread volatile int counting;
static __thread volatile unsigned long nallocs;

#ifdef __SANITIZE_ADDRESS__
/* libasan's; gcc ships no header declaring it */
int __sanitizer_install_malloc_and_free_hooks(void (*on_malloc)(const volatile void *, size_t),
					      void (*on_free)(const volatile void *));

static void count_malloc(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	if (counting)
		nallocs++;
}

static void ignore_free(const volatile void *p)
{
	(void)p;
}

__attribute__((constructor)) static void install_counter(void)
{
	if (!__sanitizer_install_malloc_and_free_hooks(count_malloc, ignore_free))
		abort();
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (counting)
		nallocs++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (counting)
		nallocs++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		nallocs++;
	return __libc_realloc(p, n);
}
#endif

/* ---- records --------------------------------------------------------------- */

#define TY(k, s)	((struct fetch_type){ .kind = FT_##k, .size = (s) })

static const char query[] = "SELECT name FROM users WHERE id = 42";
static const char *const entry_names[] = { "query_string", "len", "flags" };
static const struct fetch_type entry_types[] = { TY(STRING, 8), TY(SIGNED, 4), TY(HEX, 8) };
static const char *const ret_names[] = { "retval" };
static const struct fetch_type ret_types[] = { TY(SIGNED, 8) };
static const char *const sc_names[] = { "fd", "count", "ret" };
static const struct fetch_type sc_types[] = { TY(FD, 4), TY(UNSIGNED, 8), TY(SIGNED, 8) };
static const char *const ctx_names[] = { "query_string" };

/* Three records, I's numbers in them: an entry, a return, a syscall with a context. */
struct recs {
	struct fetch_val ev[3], rv[1], sv[3], cv[1];
	struct record_ctx ctx;
	struct record r[3];
};

static void recs_set(struct recs *s, uint64_t i)
{
	static const struct fetch_type ctx_types[] = { TY(STRING, 8) };

	memset(s, 0, sizeof(*s));
	s->ev[0] = (struct fetch_val){ .str = (char *)query, .len = sizeof(query) - 1 };
	s->ev[1].u = (uint32_t)-(int64_t)i;
	s->ev[2].u = 0x40000 + i;
	s->rv[0].u = i;
	s->sv[0] = (struct fetch_val){ .u = 3, .str = (char *)"/tmp/db", .len = 7 };
	s->sv[1].u = i * 10;
	s->sv[2].u = i * 10;
	s->cv[0] = s->ev[0];
	s->ctx = (struct record_ctx){ .event = "exec_query", .nargs = 1, .names = ctx_names,
				      .types = ctx_types, .vals = s->cv };
	s->r[0] = (struct record){ .ts = 5000000000ULL + i * 1000, .pid = 7, .tid = 8,
				   .comm = "srv", .event = "exec_query", .kind = REC_KIND_ENTRY,
				   .addr = 0x401000, .nargs = 3, .names = entry_names,
				   .types = entry_types, .vals = s->ev };
	s->r[1] = (struct record){ .ts = 5000000500ULL + i * 1000, .pid = 7, .tid = 8,
				   .comm = "srv", .event = "exec_query__return",
				   .kind = REC_KIND_RETURN, .addr = 0x401000, .ret_addr = 0x401234,
				   .duration = 500, .has_duration = true, .nargs = 1,
				   .names = ret_names, .types = ret_types, .vals = s->rv };
	s->r[2] = (struct record){ .ts = 5000000200ULL + i * 1000, .pid = 7, .tid = 8,
				   .comm = "srv", .event = "pwrite64", .kind = REC_KIND_SYSCALL,
				   .duration = 100, .has_duration = true, .nargs = 3,
				   .names = sc_names, .types = sc_types, .vals = s->sv, .nctx = 1,
				   .ctx = &s->ctx };
}

static const char *const text_1[] = {
	"srv 7/8 5.000001000: exec_query: (0x401000) query_string=\"SELECT name FROM users "
	"WHERE id = 42\" len=-1 flags=0x40001\n",
	"srv 7/8 5.000001500: exec_query__return: (0x401000 <- 0x401234) duration=500ns "
	"retval=1\n",
	"srv 7/8 5.000001200: pwrite64: duration=100ns fd=3</tmp/db> count=10 ret=10 "
	"{exec_query: query_string=\"SELECT name FROM users WHERE id = 42\"}\n",
};

static const char *const json_1[] = {
	"{\"ts\":5000001000,\"pid\":7,\"tid\":8,\"comm\":\"srv\",\"event\":\"exec_query\","
	"\"kind\":\"entry\",\"addr\":\"0x401000\",\"args\":{\"query_string\":\"SELECT name "
	"FROM users WHERE id = 42\",\"len\":-1,\"flags\":\"0x40001\"}}\n",
	"{\"ts\":5000001500,\"pid\":7,\"tid\":8,\"comm\":\"srv\",\"event\":"
	"\"exec_query__return\",\"kind\":\"return\",\"addr\":\"0x401000\",\"ret_addr\":"
	"\"0x401234\",\"duration_ns\":500,\"args\":{\"retval\":1}}\n",
	"{\"ts\":5000001200,\"pid\":7,\"tid\":8,\"comm\":\"srv\",\"event\":\"pwrite64\","
	"\"kind\":\"syscall\",\"duration_ns\":100,\"args\":{\"fd\":{\"fd\":3,\"path\":"
	"\"/tmp/db\"},\"count\":10,\"ret\":10},\"context\":{\"exec_query\":{\"query_string\":"
	"\"SELECT name FROM users WHERE id = 42\"}}}\n",
};

static size_t fmt_perfetto(const struct record *rec, char *buf, size_t len)
{
	return perfetto__format_event(rec, buf, len);
}

/*
 * FORMAT on the three records: round 1 (the warm-up) as GOLDEN says (NULL:
 * not checked), then 1000 more rounds without an allocation (counted, and
 * the heap's bytes in use unchanged).
 */
static void no_alloc(size_t (*format)(const struct record *, char *, size_t),
		     const char *const *golden, const char *what)
{
	static char buf[4096];
	struct mallinfo2 before, after;
	struct recs s;
	unsigned long n;
	size_t total = 0;

	recs_set(&s, 1);
	for (int k = 0; k < 3; k++) {
		size_t len = format(&s.r[k], buf, sizeof(buf));

		cr_assert(gt(sz, len, 0));
		if (golden) {
			cr_expect(eq(str, buf, (char *)golden[k]), "%s record %d", what, k);
			cr_expect(eq(sz, len, strlen(golden[k])), "%s record %d", what, k);
		}
	}
	before = mallinfo2();
	nallocs = 0;
	counting = 1;
	for (uint64_t i = 2; i <= 1001; i++) {
		recs_set(&s, i);
		for (int k = 0; k < 3; k++)
			total += format(&s.r[k], buf, sizeof(buf));
	}
	counting = 0;
	n = nallocs;
	after = mallinfo2();
	cr_expect(eq(ulong, n, 0), "%s: %lu allocations in 3000 records", what, n);
	cr_expect(eq(sz, after.uordblks, before.uordblks), "%s: heap in use %zu -> %zu", what,
		  before.uordblks, after.uordblks);
	cr_expect(gt(sz, total, 3000 * 60), "%s: %zu bytes", what, total);
}

Test(writers, text_formats_without_allocating)
{
	no_alloc(record__format_text, text_1, "text");
}

Test(writers, json_formats_without_allocating)
{
	no_alloc(record__format_json, json_1, "json");
}

Test(writers, perfetto_formats_without_allocating)
{
	no_alloc(fmt_perfetto, NULL, "perfetto");
}

/* The counter counts: a malloc in the window is seen (the test above is not vacuous). */
Test(writers, counter_counts)
{
	void *volatile p;	/* volatile: or the compiler drops the malloc and the free */

	nallocs = 0;
	counting = 1;
	p = malloc(100);
	counting = 0;
	free(p);
	cr_expect(eq(ulong, nallocs, 1), "%lu", nallocs);
}

/* ---- tracer/events/output.c ------------------------------------------------------------ */

static char path[] = "/tmp/ptap-test-writers.XXXXXX";

static void setup_path(void)
{
	int fd = mkstemp(path);

	cr_assert(ge(int, fd, 0));
	close(fd);
}

static void teardown_path(void)
{
	unlink(path);
}

static off_t file_size(void)
{
	struct stat st;

	cr_assert(eq(int, stat(path, &st), 0));
	return st.st_size;
}

/* How many leading bytes of A and B agree (N if all): where a long comparison failed. */
static size_t same_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * Records 1 us apart are held until 64 KiB are: the file stays empty, then
 * gets them all in one write; output__record() allocates nothing; the close
 * writes the rest, and the file reads as the records formatted one by one.
 */
Test(writers, output_holds_then_writes_by_64k, .init = setup_path, .fini = teardown_path)
{
	static char want[1 << 20], buf[4096];
	struct output *o;
	struct recs s;
	size_t wlen, total = 0, first = 0;
	int err = -1;
	FILE *f;

	cr_assert(eq(int, output__open(path, OUT_TEXT, sizeof(buf), &o), 0));
	output__header(o, "monotonic");
	wlen = record__format_header_text("monotonic", want, sizeof(want));
	nallocs = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		recs_set(&s, i);
		counting = 1;
		output__record(o, &s.r[i % 3]);
		counting = 0;
		total += record__format_text(&s.r[i % 3], want + wlen + total, sizeof(want) - wlen);
		if (!first && file_size())
			first = wlen + total;
	}
	cr_expect(eq(ulong, nallocs, 0), "%lu allocations", nallocs);
	cr_expect(ge(sz, first, 64 * 1024), "written after %zu bytes", first);
	cr_expect(lt(ulong, first, 64 * 1024 + sizeof(buf)));
	cr_expect(eq(ulong, (size_t)file_size(), first), "not in one write");
	cr_expect(eq(u64, output__close(o, &err), 0));
	cr_expect(eq(int, err, 0));
	f = fopen(path, "r");
	cr_assert_not_null(f);
	{
		static char got[1 << 20];
		size_t n = fread(got, 1, sizeof(got), f);

		cr_expect(eq(sz, n, wlen + total));
		cr_expect(eq(sz, same_prefix(got, want, wlen + total), wlen + total),
			  "the file is not the records: it differs from byte %zu on",
			  same_prefix(got, want, wlen + total));
	}
	fclose(f);
}

/* Records that come slowly (100 ms apart, by their timestamps) go out at once. */
Test(writers, output_writes_records_100ms_old, .init = setup_path, .fini = teardown_path)
{
	struct output *o;
	struct recs s;
	off_t size = 0;
	int err;

	cr_assert(eq(int, output__open(path, OUT_JSON, 4096, &o), 0));
	output__header(o, "monotonic");
	recs_set(&s, 0);
	output__record(o, &s.r[0]);
	cr_expect(eq(i64, file_size(), 0), "the clock line and a record held");
	s.r[0].ts += 99999999;
	output__record(o, &s.r[0]);
	cr_expect(eq(i64, file_size(), 0), "a record 99.999999 ms after the first one held");
	s.r[0].ts += 1;
	output__record(o, &s.r[0]);
	size = file_size();
	cr_expect(gt(i64, size, 0), "three records, the first 100 ms old: held");
	s.r[0].ts += 1000;
	output__record(o, &s.r[0]);
	cr_expect(eq(i64, file_size(), size));
	s.r[0].ts -= 5000;	/* before the record held (a syscall's entry): out */
	output__record(o, &s.r[0]);
	cr_expect(gt(i64, file_size(), size));
	cr_expect(eq(u64, output__close(o, &err), 0));
}

/* output__flush() writes what is held, at once. */
Test(writers, output_flush_writes_what_is_held, .init = setup_path, .fini = teardown_path)
{
	static const char want[] = "# ptap clock=monotonic\n"
		"srv 7/8 5.000001000: exec_query: (0x401000) query_string=\"SELECT name FROM "
		"users WHERE id = 42\" len=-1 flags=0x40001\n";
	char got[sizeof(want) + 16];
	struct output *o;
	struct recs s;
	int err = -1;
	FILE *f;

	cr_assert(eq(int, output__open(path, OUT_TEXT, 4096, &o), 0));
	output__header(o, "monotonic");
	recs_set(&s, 1);
	output__record(o, &s.r[0]);
	cr_expect(eq(i64, file_size(), 0));
	output__flush(o);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	got[fread(got, 1, sizeof(got) - 1, f)] = '\0';
	fclose(f);
	cr_expect_str_eq(got, want);
	output__flush(o);	/* nothing held: nothing written */
	cr_expect(eq(long, file_size(), (off_t)strlen(want)));
	cr_expect(eq(u64, output__close(o, &err), 0));
	cr_expect(eq(int, err, 0));
}

/* A full disk: every record is counted lost (the clock line is not one), with its errno. */
Test(writers, output_counts_records_lost)
{
	struct output *o;
	struct recs s;
	int err = 0;

	cr_assert(eq(int, output__open("/dev/full", OUT_TEXT, 4096, &o), 0));
	output__header(o, "monotonic");
	for (uint64_t i = 0; i < 1000; i++) {
		recs_set(&s, i);
		output__record(o, &s.r[i % 3]);
	}
	cr_expect(eq(int, output__error(o), ENOSPC), "a failed write is seen before the close");
	cr_expect(eq(u64, output__close(o, &err), 1000));
	cr_expect(eq(int, err, ENOSPC));
}

/* The log messages of a test, captured. */
static char logged[1024];

static void capture(enum log_level lvl, const char *fmt, va_list ap)
{
	size_t n = strlen(logged);

	(void)lvl;
	vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
}

/*
 * Stdout a pipe left O_NONBLOCK whose reader starts 0.8 s late: nothing is
 * lost (EAGAIN is waited out, not a failed write), and the close says how
 * long the writes waited -- at the default level, for 0.5 s or more.
 */
Test(writers, output_waits_for_a_slow_nonblocking_reader)
{
	int p[2], res[2], saved, err = -1, st;
	unsigned long lines = 0;
	struct output *o;
	struct recs s;
	double secs = 0;
	pid_t pid;

	cr_assert(eq(int, pipe(p), 0));
	cr_assert(eq(int, pipe(res), 0));
	pid = fork();
	cr_assert(ge(int, pid, 0));
	if (pid == 0) {	/* the reader: late, then counts the lines */
		char buf[65536];
		ssize_t n;

		close(p[1]);
		usleep(800000);
		while ((n = read(p[0], buf, sizeof(buf))) > 0)
			for (ssize_t i = 0; i < n; i++)
				lines += buf[i] == '\n';
		_exit(write(res[1], &lines, sizeof(lines)) == sizeof(lines) ? 0 : 1);
	}
	close(p[0]);
	cr_assert(eq(int, fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK), 0));
	saved = dup(STDOUT_FILENO);
	cr_assert(eq(int, dup2(p[1], STDOUT_FILENO), STDOUT_FILENO));
	log_set_sink(capture);
	cr_assert(eq(int, output__open(NULL, OUT_TEXT, 4096, &o), 0));
	output__header(o, "monotonic");
	for (uint64_t i = 0; i < 5000; i++) {	/* about 500 KB: the pipe holds 64 KiB */
		recs_set(&s, i);
		output__record(o, &s.r[i % 3]);
	}
	cr_expect(eq(u64, output__close(o, &err), 0), "records lost");
	cr_expect(eq(int, err, 0), "%s", strerror(err));
	log_set_sink(NULL);
	dup2(saved, STDOUT_FILENO);
	close(p[1]);
	cr_assert(eq(long, read(res[0], &lines, sizeof(lines)), (ssize_t)sizeof(lines)));
	cr_assert(eq(int, waitpid(pid, &st, 0), pid));
	cr_expect(eq(ulong, lines, 5001), "%lu lines read", lines);
	cr_expect(eq(int, sscanf(logged, "waited %lf s in all for the output to take 5000 records",
				 &secs), 1), "%s", logged);
	cr_expect(ge(dbl, secs, 0.45), "waited %.3f s", secs);
	cr_expect(lt(dbl, secs, 5), "waited %.3f s", secs);
	cr_expect_not_null(strstr(logged, "no record was dropped"), "%s", logged);
}
