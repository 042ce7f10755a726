/* tests/bench/writers.c: the cost of the record writers, with no tracing.
 * usage: writers [N]  (default 1000000 records)
 * Formats N realistic records -- an entry with a string and two integers, a
 * return with $retval and a duration, a syscall with an fd, its path and a
 * --context value, in turn -- through the text, JSON and perfetto writers:
 * the formatter alone into a buffer in memory, then the whole writer
 * (output__record) into /dev/null, its close included (perfetto sorts and
 * writes its document there).  Prints ns/record (best of 3), the write
 * syscalls per 1000 records (/proc/self/io), and the allocations made in
 * each timed loop, counted by the malloc family defined below: any is a
 * failure (exit status 1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/perfetto.h"
#include "probes/record.h"
#include "tracer/events/output.h"

/* ---- counting allocations --------------------------------------------------
 * The executable's malloc, calloc and realloc interpose libc's (libc's own
 * calls included, stdio's buffers too) and count the calls. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static volatile unsigned long nallocs;	/* volatile: malloc is a builtin to the compiler */

void *malloc(size_t n)
{
	nallocs++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	nallocs++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	nallocs++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

/* ---- the records -------------------------------------------------------------- */

#define NKINDS	3
#define STRMAX	256
#define BUFLEN	8192		/* the record buffer ptap would size for these probes */

static const char query[] = "SELECT name, email FROM users WHERE id = 42 AND state = 'active'";

static const char *const entry_names[] = { "query_string", "len", "flags" };
static const struct fetch_type entry_types[] = {
	{ .kind = FT_STRING, .size = 8 },
	{ .kind = FT_SIGNED, .size = 4 },
	{ .kind = FT_HEX, .size = 8 },
};
static const char *const ret_names[] = { "retval" };
static const struct fetch_type ret_types[] = { { .kind = FT_SIGNED, .size = 8 } };
static const char *const sc_names[] = { "fd", "buf", "count", "offset", "ret" };
static const struct fetch_type sc_types[] = {
	{ .kind = FT_FD, .size = 4 },
	{ .kind = FT_HEX, .size = 8 },
	{ .kind = FT_UNSIGNED, .size = 8 },
	{ .kind = FT_SIGNED, .size = 8 },
	{ .kind = FT_SIGNED, .size = 8 },
};
static const char *const ctx_names[] = { "query_string" };
static const struct fetch_type ctx_types[] = { { .kind = FT_STRING, .size = 8 } };

struct recs {
	struct record rec[NKINDS];
	struct fetch_val entry_vals[3], ret_vals[1], sc_vals[5], ctx_vals[1];
	struct record_ctx ctx;
};

static void recs_init(struct recs *r)
{
	static const char path[] = "/var/lib/db/users.tbl";

	memset(r, 0, sizeof(*r));
	r->entry_vals[0] = (struct fetch_val){ .str = (char *)query, .len = sizeof(query) - 1,
					       .addr = 0x55d0c0a01040 };
	r->ctx_vals[0] = r->entry_vals[0];
	r->sc_vals[0] = (struct fetch_val){ .u = 3, .str = (char *)path, .len = sizeof(path) - 1 };
	r->ctx = (struct record_ctx){ .event = "exec_query", .nargs = 1, .names = ctx_names,
				      .types = ctx_types, .vals = r->ctx_vals };
	r->rec[0] = (struct record){ .pid = 41234, .tid = 41236, .comm = "query_server",
				     .event = "exec_query", .kind = REC_KIND_ENTRY,
				     .addr = 0x55d0c09f2b10, .nargs = 3, .names = entry_names,
				     .types = entry_types, .vals = r->entry_vals };
	r->rec[1] = (struct record){ .pid = 41234, .tid = 41236, .comm = "query_server",
				     .event = "exec_query__return", .kind = REC_KIND_RETURN,
				     .addr = 0x55d0c09f2b10, .ret_addr = 0x55d0c09f25bf,
				     .has_duration = true, .nargs = 1, .names = ret_names,
				     .types = ret_types, .vals = r->ret_vals };
	r->rec[2] = (struct record){ .pid = 41234, .tid = 41236, .comm = "query_server",
				     .event = "pwrite64", .kind = REC_KIND_SYSCALL,
				     .has_duration = true, .nargs = 5, .names = sc_names,
				     .types = sc_types, .vals = r->sc_vals, .nctx = 1,
				     .ctx = &r->ctx };
}

/* Record I (kind I % NKINDS), its changing fields set from I: as a trace's would. */
static const struct record *recs_get(struct recs *r, uint64_t i)
{
	struct record *rec = &r->rec[i % NKINDS];
	uint64_t ts = 12136681853777ULL + i * 1733 + (i * 7919) % 1000;

	rec->ts = ts;
	switch (i % NKINDS) {
	case 0:
		r->entry_vals[1].u = (uint32_t)(i % 5000);
		r->entry_vals[2].u = 0x40000 | (i & 0xff);
		break;
	case 1:
		rec->duration = 10000 + (i * 31) % 50000;
		r->ret_vals[0].u = i % 17 ? i % 100 : (uint64_t)-1;
		break;
	default:
		rec->duration = 20000 + (i * 13) % 9000;
		r->sc_vals[1].u = 0x55fe0b253670 + (i & 0xfff0);
		r->sc_vals[2].u = 13 + i % 200;
		r->sc_vals[3].u = (i * 213) & 0xfffff;
		r->sc_vals[4].u = r->sc_vals[2].u;
		break;
	}
	return rec;
}

/* ---- measuring --------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* The write syscalls this process has made ("syscw" of /proc/self/io), or 0. */
static uint64_t write_calls(void)
{
	char line[128];
	uint64_t n = 0;
	FILE *f = fopen("/proc/self/io", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscw: %" SCNu64, &n) == 1)
			break;
	fclose(f);
	return n;
}

static bool failed, allocated;

static void check_allocs(const char *what, unsigned long n)
{
	if (n) {
		printf("  FAIL: %s: %lu allocations in the timed loop\n", what, n);
		failed = allocated = true;
	}
}

static size_t fmt_perfetto(const struct record *rec, char *buf, size_t len)
{
	return perfetto__format_event(rec, buf, len);
}

static const struct writer {
	const char *name;
	enum out_format fmt;
	size_t (*format)(const struct record *rec, char *buf, size_t len);
} writers[] = {
	{ "text", OUT_TEXT, record__format_text },
	{ "json", OUT_JSON, record__format_json },
	{ "perfetto", OUT_PERFETTO, fmt_perfetto },
};

/* The formatter alone: N records into one buffer.  ns/record; *BYTES: per record. */
static double bench_format(const struct writer *w, uint64_t n, double *bytes)
{
	static char buf[BUFLEN];
	struct recs r;
	uint64_t t0, total = 0;
	unsigned long a0;

	recs_init(&r);
	for (int k = 0; k < NKINDS; k++)	/* warm up */
		w->format(recs_get(&r, k), buf, sizeof(buf));
	a0 = nallocs;
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		total += w->format(recs_get(&r, i), buf, sizeof(buf));
	t0 = now_ns() - t0;
	check_allocs(w->name, nallocs - a0);
	*bytes = (double)total / n;
	return (double)t0 / n;
}

/*
 * The whole writer: open /dev/null, N records, close.  ns/record, the close
 * included; *WRITES: write syscalls per 1000 records.
 */
static double bench_output(const struct writer *w, uint64_t n, double *writes)
{
	struct output *o;
	struct recs r;
	uint64_t t0, w0;
	unsigned long a0;
	int err;

	recs_init(&r);
	if (output__open("/dev/null", w->fmt, BUFLEN, &o) < 0) {
		perror("writers: /dev/null");
		exit(2);
	}
	output__header(o, "monotonic");
	output__record(o, recs_get(&r, 0));	/* warm up: a buffer allocated on first use */
	w0 = write_calls();
	a0 = nallocs;
	t0 = now_ns();
	for (uint64_t i = 1; i < n; i++)
		output__record(o, recs_get(&r, i));
	check_allocs(w->name, nallocs - a0);
	if (output__close(o, &err)) {
		fprintf(stderr, "writers: %s: records lost: %s\n", w->name, strerror(err));
		failed = true;
	}
	t0 = now_ns() - t0;
	*writes = (double)(write_calls() - w0) * 1000 / n;
	return (double)t0 / n;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;

	if (!n)
		n = 1;
	printf("bench writers: %" PRIu64 " records (entry, return, syscall in turn), best of 3\n",
	       n);
	for (size_t k = 0; k < sizeof(writers) / sizeof(writers[0]); k++) {
		const struct writer *w = &writers[k];
		double f = 0, o = 0, bytes = 0, writes = 0;

		for (int rep = 0; rep < 3; rep++) {
			double fb, ow, t;

			t = bench_format(w, n, &fb);
			if (!rep || t < f)
				f = t, bytes = fb;
			t = bench_output(w, n, &ow);
			if (!rep || t < o)
				o = t, writes = ow;
		}
		printf("  %-8s format %6.1f ns/record (%5.1f bytes) | to /dev/null %6.1f "
		       "ns/record, %.2f writes/1000 records\n", w->name, f, bytes, o, writes);
	}
	printf("  allocations in the timed loops: %s\n", allocated ? "SOME (FAIL)" : "none");
	return failed ? 1 : 0;
}
