/* tests/unit/test_perfetto.c: records as Chrome trace-event JSON (probes/perfetto.c) against
 * golden strings, and the whole document tracer/events/output.c writes: sorted, with track names. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/perfetto.h"
#include "probes/record.h"
#include "tracer/events/output.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TY(k, s)	((struct fetch_type){ .kind = FT_##k, .size = (s) })
#define INT(v)		((struct fetch_val){ .u = (v) })
#define STR(s)		((struct fetch_val){ .str = (char *)(s), .len = sizeof(s) - 1, \
					     .addr = 0x1000 })

static const char *const qnames[] = { "query_string", "len" };
static const struct fetch_type qtypes[] = { TY(STRING, 8), TY(UNSIGNED, 4) };
static const struct fetch_val qvals[] = { STR("SELECT 1"), INT(8) };

/* exec_query's entry at 1.000000500 s, with its query and length. */
static struct record entry_rec(void)
{
	return (struct record){ .ts = 1000000500, .pid = 42, .tid = 43, .comm = "query_server",
				.event = "exec_query", .kind = REC_KIND_ENTRY, .addr = 0x5555d0,
				.nargs = 2, .names = qnames, .types = qtypes, .vals = qvals };
}

/* Its return at 2.000001500 s, 1.000000250 s after the entry, with the value returned. */
static struct record return_rec(void)
{
	static const char *const names[] = { "ret" };
	static const struct fetch_type types[] = { TY(SIGNED, 4) };
	static const struct fetch_val vals[] = { INT(0xfffffffe) };

	return (struct record){ .ts = 2000001500, .pid = 42, .tid = 43, .comm = "query_server",
				.event = "exec_query__return", .kind = REC_KIND_RETURN,
				.addr = 0x5555d0, .ret_addr = 0x555612, .duration = 1000001250,
				.has_duration = true, .nargs = 1, .names = names, .types = types,
				.vals = vals };
}

static void expect_event(const struct record *rec, const char *golden)
{
	char buf[1024];
	size_t n = perfetto__format_event(rec, buf, sizeof(buf));

	cr_expect_str_eq(buf, golden);
	cr_expect(eq(sz, n, strlen(golden)));
}

Test(perfetto, return_is_a_complete_event)
{
	struct record rec = return_rec();

	cr_expect(eq(int, perfetto__is_slice(&rec), true));
	cr_expect(eq(u64, perfetto__start(&rec), 1000000250));
	expect_event(&rec, "{\"ph\":\"X\",\"name\":\"exec_query\",\"cat\":\"probe\",\"pid\":42,"
			   "\"tid\":43,\"ts\":1000000.250,\"dur\":1000001.250,\"args\":{"
			   "\"ts_ns\":1000000250,\"dur_ns\":1000001250,\"addr\":\"0x5555d0\","
			   "\"ret_addr\":\"0x555612\",\"ret\":-2}}");
}

Test(perfetto, entry_is_an_instant_event)
{
	struct record rec = entry_rec();

	cr_expect(eq(int, perfetto__is_slice(&rec), false));
	cr_expect(eq(u64, perfetto__start(&rec), 1000000500));
	expect_event(&rec, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"exec_query\",\"cat\":\"probe\","
			   "\"pid\":42,\"tid\":43,\"ts\":1000000.500,\"args\":{"
			   "\"ts_ns\":1000000500,\"addr\":\"0x5555d0\","
			   "\"query_string\":\"SELECT 1\",\"len\":8}}");
}

/* fork/exec/exit: instants of category "task", no address; a timed syscall: a slice. */
Test(perfetto, task_and_syscall_records)
{
	static const char *const names[] = { "child" };
	static const struct fetch_type types[] = { TY(SIGNED, 8) };
	static const struct fetch_val vals[] = { INT(77) };
	struct record rec = { .ts = 3000, .pid = 1, .tid = 1, .comm = "sh", .event = "fork",
			      .kind = REC_KIND_FORK, .nargs = 1, .names = names, .types = types,
			      .vals = vals };

	expect_event(&rec, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"fork\",\"cat\":\"task\",\"pid\":1,"
			   "\"tid\":1,\"ts\":3.000,\"args\":{\"ts_ns\":3000,\"child\":77}}");
	rec = (struct record){ .ts = 9000, .pid = 1, .tid = 2, .event = "read",
			       .kind = REC_KIND_SYSCALL, .duration = 2500, .has_duration = true };
	expect_event(&rec, "{\"ph\":\"X\",\"name\":\"read\",\"cat\":\"syscall\",\"pid\":1,"
			   "\"tid\":2,\"ts\":9.000,\"dur\":2.500,\"args\":{\"ts_ns\":9000,"
			   "\"dur_ns\":2500}}");
}

/* Microseconds with the nanoseconds as 3 decimals: exact at any magnitude. */
Test(perfetto, timestamps_keep_the_nanoseconds)
{
	static const struct {
		uint64_t ns;
		const char *ts;
	} rows[] = {
		{ 0, "0.000" }, { 5, "0.005" }, { 999, "0.999" }, { 1000, "1.000" },
		{ 1001, "1.001" }, { 123456789, "123456.789" },
		{ 1700000000123456789ULL, "1700000000123456.789" },	/* realtime */
		{ 18446744073709551615ULL, "18446744073709551.615" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct record rec = { .ts = rows[i].ns, .pid = 1, .tid = 1, .event = "e" };
		char buf[256], want[256];

		snprintf(want, sizeof(want), "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"e\",\"cat\":"
			 "\"probe\",\"pid\":1,\"tid\":1,\"ts\":%s,\"args\":{\"ts_ns\":%llu}}",
			 rows[i].ts, (unsigned long long)rows[i].ns);
		perfetto__format_event(&rec, buf, sizeof(buf));
		cr_expect(eq(str, buf, want), "ns %llu", (unsigned long long)rows[i].ns);
	}
}

/* A duration longer than the timestamp (a clock that went back): the slice starts at 0. */
Test(perfetto, start_never_wraps)
{
	struct record rec = { .ts = 100, .pid = 1, .tid = 1, .event = "f__return",
			      .kind = REC_KIND_RETURN, .duration = 250, .has_duration = true };

	cr_expect(eq(u64, perfetto__start(&rec), 0));
	expect_event(&rec, "{\"ph\":\"X\",\"name\":\"f\",\"cat\":\"probe\",\"pid\":1,\"tid\":1,"
			   "\"ts\":0.000,\"dur\":0.250,\"args\":{\"ts_ns\":0,\"dur_ns\":250}}");
}

/* The slice is named after the function: only a whole trailing "__return" goes, only from
 * slices. */
Test(perfetto, slice_names)
{
	static const struct {
		const char *event;
		bool slice;
		const char *name;
	} rows[] = {
		{ "exec_query__return", true, "exec_query" },
		{ "a__return__return", true, "a__return" },
		{ "__return", true, "__return" },	/* nothing would be left */
		{ "f__returns", true, "f__returns" },
		{ "f__retur", true, "f__retur" },
		{ "q", true, "q" },			/* EVENT=... named by the user */
		{ "f__return", false, "f__return" },	/* no duration: an instant, as named */
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct record rec = { .ts = 2000, .pid = 1, .tid = 1, .event = rows[i].event,
				      .kind = REC_KIND_RETURN, .duration = 1000,
				      .has_duration = rows[i].slice };
		const char *ph = rows[i].slice ? "{\"ph\":\"X\"" : "{\"ph\":\"i\"";
		char buf[256], want[64];

		perfetto__format_event(&rec, buf, sizeof(buf));
		snprintf(want, sizeof(want), "\"name\":\"%s\",", rows[i].name);
		cr_expect_not_null(strstr(buf, want), "%s: %s", rows[i].event, buf);
		cr_expect(eq(mem, ((struct cr_mem){ buf, 9 }), ((struct cr_mem){ ph, 9 })),
			  "%s: %s", rows[i].event, buf);
	}
}

/* Target bytes and user names are escaped: control bytes, quotes, backslashes, bad UTF-8. */
Test(perfetto, escaping)
{
	static const char *const names[] = { "we\"ird\\", NULL };
	static const struct fetch_type types[] = { TY(STRING, 8), TY(HEX, 8) };
	static const struct fetch_val vals[] = { STR("a\nb\t\x01\"\\\xff\xc3\xa9"), INT(0x10) };
	struct record rec = { .ts = 1, .pid = 1, .tid = 1, .comm = "x", .event = "ev\"\n",
			      .nargs = 2, .names = names, .types = types, .vals = vals };
	char buf[256];

	expect_event(&rec, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"ev\\\"\\n\",\"cat\":\"probe\","
			   "\"pid\":1,\"tid\":1,\"ts\":0.001,\"args\":{\"ts_ns\":1,"
			   "\"we\\\"ird\\\\\":\"a\\nb\\t\\u0001\\\"\\\\\\u00ff\xc3\xa9\","
			   "\"arg2\":\"0x10\"}}");
	perfetto__format_thread_name(5, 6, "a\"b\x1b", buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":6,"
			      "\"args\":{\"name\":\"a\\\"b\\u001b/6\"}}");
}

/* Values keep their JSON types; failed ones are {"error":...}; ptap's own keys are not shadowed. */
Test(perfetto, typed_args_errors_and_reserved_names)
{
	static const char *const names[] = { "addr", "ts_ns", "ok", "bad", "f" };
	static const struct fetch_type types[] = { TY(HEX, 8), TY(UNSIGNED, 8), TY(BOOL, 1),
						   TY(STRING, 8), TY(FLOAT, 8) };
	static const struct fetch_val vals[] = { INT(0xbeef), INT(7), INT(1),
						 { .err = -EFAULT, .addr = 0 },
						 { .u = 0x3ff8000000000000ULL } };
	struct record rec = { .ts = 1000, .pid = 1, .tid = 1, .event = "e", .addr = 0x10,
			      .nargs = 5, .names = names, .types = types, .vals = vals };

	expect_event(&rec, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"e\",\"cat\":\"probe\",\"pid\":1,"
			   "\"tid\":1,\"ts\":1.000,\"args\":{\"ts_ns\":1000,\"addr\":\"0x10\","
			   "\"arg:addr\":\"0xbeef\",\"arg:ts_ns\":7,\"ok\":true,"
			   "\"bad\":{\"error\":\"bad address 0x0\"},\"f\":1.5}}");
}

Test(perfetto, metadata)
{
	char buf[256];
	size_t n;

	n = perfetto__format_process_name(42, "query_server", buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":42,"
			      "\"args\":{\"name\":\"query_server\"}}");
	cr_expect(eq(sz, n, strlen(buf)));
	n = perfetto__format_thread_name(42, 43, "query_server", buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":42,\"tid\":43,"
			      "\"args\":{\"name\":\"query_server/43\"}}");
	cr_expect(eq(sz, n, strlen(buf)));
	n = perfetto__format_thread_name(42, 43, NULL, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":42,\"tid\":43,"
			      "\"args\":{\"name\":\"/43\"}}");
	/* too small: nothing rather than a cut object */
	n = perfetto__format_thread_name(42, 43, "query_server", buf, 40);
	cr_expect(eq(sz, n, 0));
	cr_expect_str_eq(buf, "");
	n = perfetto__format_process_name(42, "query_server", buf, 40);
	cr_expect(eq(sz, n, 0));
	cr_expect_str_eq(buf, "");
}

/* An event that does not fit keeps the arguments that fit, and says so; still one object. */
Test(perfetto, truncation)
{
	static const char *const names[] = { "query_string", "len", "long" };
	static const struct fetch_type types[] = { TY(STRING, 8), TY(UNSIGNED, 4), TY(STRING, 8) };
	static const struct fetch_val vals[] = { STR("SELECT 1"), INT(8),
						 STR("a string longer than the truncation mark") };
	struct record rec = entry_rec();
	const char *head = "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"exec_query\",\"cat\":\"probe\","
			   "\"pid\":42,\"tid\":43,\"ts\":1000000.500,\"args\":{"
			   "\"ts_ns\":1000000500,\"addr\":\"0x5555d0\"";
	char full[512], buf[512], want[512];
	size_t n;

	rec.nargs = 3;
	rec.names = names;
	rec.types = types;
	rec.vals = vals;
	n = perfetto__format_event(&rec, full, sizeof(full));
	cr_assert(gt(sz, n, 0));
	/* one byte short: the last argument goes */
	snprintf(want, sizeof(want), "%s,\"query_string\":\"SELECT 1\",\"len\":8,"
		 "\"truncated\":true}}", head);
	cr_expect(eq(sz, perfetto__format_event(&rec, buf, n), strlen(want)));
	cr_expect_str_eq(buf, want);
	/* room for the header and the mark only */
	snprintf(want, sizeof(want), "%s,\"truncated\":true}}", head);
	cr_expect(eq(sz, perfetto__format_event(&rec, buf, strlen(want) + 1), strlen(want)));
	cr_expect_str_eq(buf, want);
	/* not even the header: nothing */
	cr_expect(eq(sz, perfetto__format_event(&rec, buf, strlen(want)), 0));
	cr_expect_str_eq(buf, "");
	cr_expect(eq(sz, perfetto__format_event(&rec, buf, 3), 0));
	cr_expect_str_eq(buf, "");
}

/* ---- the document (tracer/events/output.c) --------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[8192];
	size_t n;

	cr_assert_not_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/*
 * Records in arrival order: an entry, an instant inside it, the inner
 * function's return, the outer return (both slices start before what
 * arrived earlier), then a second thread; the first thread execs (a new
 * name).  The document: the names (latest), then the events by start time.
 */
Test(perfetto, document_sorted_with_track_names)
{
	char path[] = "/tmp/ptap-test-perfetto.XXXXXX";
	int fd = mkstemp(path), err = -1;
	struct output *o;
	struct record r[6] = {
		{ .ts = 1000, .pid = 10, .tid = 10, .comm = "sh", .event = "outer" },
		{ .ts = 3000, .pid = 10, .tid = 10, .comm = "sh", .event = "mark" },
		{ .ts = 5000, .pid = 10, .tid = 10, .comm = "sh", .event = "inner__return",
		  .kind = REC_KIND_RETURN, .duration = 3000, .has_duration = true },
		{ .ts = 9000, .pid = 10, .tid = 10, .comm = "srv", .event = "outer__return",
		  .kind = REC_KIND_RETURN, .duration = 8000, .has_duration = true },
		{ .ts = 2500, .pid = 10, .tid = 11, .comm = "worker", .event = "w" },
		{ .ts = 1000, .pid = 10, .tid = 10, .comm = "srv", .event = "same_start" },
	};

	cr_assert(ge(int, fd, 0));
	close(fd);
	cr_assert(eq(int, output__open(path, OUT_PERFETTO, 1024, &o), 0));
	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		output__record(o, &r[i]);
	cr_expect(eq(int, output__error(o), 0));
	cr_expect(eq(u64, output__close(o, &err), 0));
	cr_expect(eq(int, err, 0));
	cr_expect_str_eq(read_all(path),
		"{\"displayTimeUnit\":\"ns\",\"metadata\":{\"ptap-clock\":\"monotonic\"},"
		"\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":10,\"args\":{\"name\":\"srv\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":10,"
		"\"args\":{\"name\":\"srv/10\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,"
		"\"args\":{\"name\":\"worker/11\"}},\n"
		"{\"ph\":\"X\",\"name\":\"outer\",\"cat\":\"probe\",\"pid\":10,\"tid\":10,"
		"\"ts\":1.000,\"dur\":8.000,\"args\":{\"ts_ns\":1000,\"dur_ns\":8000}},\n"
		"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"outer\",\"cat\":\"probe\",\"pid\":10,"
		"\"tid\":10,"		"\"ts\":1.000,\"args\":{\"ts_ns\":1000}},\n"
		"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"same_start\",\"cat\":\"probe\",\"pid\":10,"
		"\"tid\":10,\"ts\":1.000,\"args\":{\"ts_ns\":1000}},\n"
		"{\"ph\":\"X\",\"name\":\"inner\",\"cat\":\"probe\",\"pid\":10,\"tid\":10,"
		"\"ts\":2.000,\"dur\":3.000,\"args\":{\"ts_ns\":2000,\"dur_ns\":3000}},\n"
		"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"w\",\"cat\":\"probe\",\"pid\":10,\"tid\":11,"
		"\"ts\":2.500,\"args\":{\"ts_ns\":2500}},\n"
		"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\",\"cat\":\"probe\",\"pid\":10,"
		"\"tid\":10,"		"\"ts\":3.000,\"args\":{\"ts_ns\":3000}}\n"
		"]}\n");
	unlink(path);
}

/* No record: still a valid, empty trace. */
Test(perfetto, empty_document)
{
	char path[] = "/tmp/ptap-test-perfetto.XXXXXX";
	int fd = mkstemp(path), err = -1;
	struct output *o;

	cr_assert(ge(int, fd, 0));
	close(fd);
	cr_assert(eq(int, output__open(path, OUT_PERFETTO, 1024, &o), 0));
	cr_expect(eq(u64, output__close(o, &err), 0));
	cr_expect(eq(int, err, 0));
	cr_expect_str_eq(read_all(path), "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"ptap-clock\":\"monotonic\"},"
		"\"traceEvents\":[\n]}\n");
	unlink(path);
}

/* The document cannot be written (a full disk): every event counts as lost, with the errno. */
Test(perfetto, write_errors_are_counted)
{
	struct record rec = entry_rec();
	struct output *o;
	int err = 0;

	/* Linux always has it (devices.txt: char 1,7); its absence is a broken test host */
	cr_assert(eq(int, access("/dev/full", W_OK), 0), "/dev/full is not writable: %s",
		  strerror(errno));
	cr_assert(eq(int, output__open("/dev/full", OUT_PERFETTO, 1024, &o), 0));
	for (int i = 0; i < 3; i++)
		output__record(o, &rec);
	cr_expect(eq(int, output__error(o), 0), "nothing is written before the end");
	cr_expect(eq(u64, output__close(o, &err), 3));
	cr_expect(eq(int, err, ENOSPC));
}

/* The reader of a pipe went away before the end: EPIPE, every event lost (as for text). */
Test(perfetto, closed_pipe)
{
	struct record rec = entry_rec();
	struct output *o;
	char path[32];
	int p[2], err = 0;

	signal(SIGPIPE, SIG_IGN);
	cr_assert(eq(int, pipe(p), 0));
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	cr_assert(eq(int, output__open(path, OUT_PERFETTO, 1024, &o), 0));
	close(p[1]);
	close(p[0]);
	output__record(o, &rec);
	output__record(o, &rec);
	cr_expect(eq(u64, output__close(o, &err), 2));
	cr_expect(eq(int, err, EPIPE));
}
