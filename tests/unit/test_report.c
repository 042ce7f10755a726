/* tests/unit/test_report.c: `ptap report`'s statistics on fixed records,
 * rendered as text and JSON and compared with golden output worked out by
 * hand (counts, ties, histogram buckets and bars, nearest-rank percentiles). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/json.h"
#include "probes/report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct json_doc *doc;
static struct report *rep;

static void setup(void)
{
	cr_assert(eq(int, json_doc__new(&doc), 0));
	cr_assert(eq(int, report__new(&rep), 0));
}

static void teardown(void)
{
	report__free(rep);
	json_doc__free(doc);
}

TestSuite(report, .init = setup, .fini = teardown);

/* Account the record LINE (JSON text). */
static void add(const char *line)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v;

	cr_assert(eq(int, json_doc__parse(doc, line, strlen(line), &v, &err), 0), "%s: %s", line,
		  err.msg);
	cr_assert(eq(int, report__add(rep, v), 0), "%s", line);
}

/* The report rendered (text or JSON); caller frees. */
static char *render(bool json)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	cr_assert(eq(int, json ? report__write_json(rep, f) : report__write_text(rep, f), 0));
	fclose(f);
	return out;
}

/* The fixed set: three events, one record cut before its header. */
static void add_fixed_set(void)
{
	static const char *const queries[] = {
		"\"SELECT 1\"", "\"DELETE\"", "\"SELECT 2\"", "\"SELECT 1\"", "\"SELECT 2\"",
		"{\"error\":\"bad address 0x0\"}", "\"DELETE\"", "\"SELECT 1\"",
		"{\"value\":\"SELECT\",\"truncated\":true}",
	};
	static const char *const lens[] = { "8", "6", "8", "8", "8", NULL, "6", "8", "8" };
	static const unsigned int durs[] = {
		2000, 600, 1500, 9000, 700, 2047, 1000, 3500, 1100, 2048, 1500, 3000,
	};
	static const int nums[] = { 0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11 };
	unsigned long long ts = 1000000000;
	char line[512];

	for (size_t i = 0; i < ARRAY_SIZE(queries); i++, ts += 1000) {
		snprintf(line, sizeof(line),
			 "{\"ts\":%llu,\"pid\":7,\"tid\":7,\"comm\":\"qs\","
			 "\"event\":\"exec_query\",\"kind\":\"entry\",\"addr\":\"0x1000\","
			 "\"args\":{\"query_string\":%s%s%s}%s}",
			 ts, queries[i], lens[i] ? ",\"len\":" : "", lens[i] ? lens[i] : "",
			 i == 8 ? ",\"truncated\":true" : "");
		add(line);
	}
	add("{\"truncated\":true}");
	for (size_t i = 0; i < ARRAY_SIZE(durs); i++, ts += 1000) {
		snprintf(line, sizeof(line),
			 "{\"ts\":%llu,\"pid\":7,\"tid\":7,\"comm\":\"qs\","
			 "\"event\":\"query_done\","
			 "\"kind\":\"return\",\"addr\":\"0x1000\",\"ret_addr\":\"0x2000\","
			 "\"duration_ns\":%u,\"args\":{\"ret\":%d}}",
			 ts, durs[i], i == 4 ? -1 : 0);
		add(line);
	}
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++, ts += 1000) {
		if (i == ARRAY_SIZE(nums) - 1)
			ts = 3000000000ULL;	/* a span of 2 s */
		snprintf(line, sizeof(line),
			 "{\"ts\":%llu,\"pid\":7,\"tid\":8,\"comm\":\"qs\",\"event\":\"tick\","
			 "\"kind\":\"entry\",\"addr\":\"0x3000\",\"args\":{\"n\":%d}}",
			 ts, nums[i]);
		add(line);
	}
}

/*
 * Worked out by hand.  query_string: SELECT 1 3 times; DELETE and SELECT 2
 * twice each, DELETE seen first.  Durations sorted: 600 700 1000 1100 1500
 * 1500 2000 2047 2048 3000 3500 9000; p50 = rank 6 = 1500, p90 = rank
 * ceil(10.8) = 11 = 3500, p99 = rank 12 = 9000; mean 27995 / 12 = 2332.9.
 * Buckets [512, 1024) 3, [1024, 2048) 5, [2048, 4096) 3, [4096, 8192) 0,
 * [8192, 16384) 1; bars 3 * 40 / 5 = 24, 40, 24, 0, 8.
 */
static const char golden_text[] =
	"35 records of 3 events over 2.000000000 s\n"
	"1 record without an event name\n"
	"\n"
	"exec_query: 9 records, 4.50/s (entry 9), 1 truncated\n"
	"  query_string: 5 distinct values\n"
	"    3  \"SELECT 1\"\n"
	"    2  \"DELETE\"\n"
	"    2  \"SELECT 2\"\n"
	"    1  {\"error\":\"bad address 0x0\"}\n"
	"    1  {\"value\":\"SELECT\",\"truncated\":true}\n"
	"  len: 2 distinct values in 8 of 9 records\n"
	"    6  8\n"
	"    2  6\n"
	"\n"
	"query_done: 12 records, 6.00/s (return 12)\n"
	"  ret: 2 distinct values\n"
	"    11  0\n"
	"     1  -1\n"
	"  duration: 12 records\n"
	"    [512ns, 1.02us)  3 |@@@@@@@@@@@@@@@@@@@@@@@@                |\n"
	"    [1.02us, 2.05us) 5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"    [2.05us, 4.10us) 3 |@@@@@@@@@@@@@@@@@@@@@@@@                |\n"
	"    [4.10us, 8.19us) 0 |                                        |\n"
	"    [8.19us, 16.4us) 1 |@@@@@@@@                                |\n"
	"    p50 1.50us  p90 3.50us  p99 9.00us  min 600ns  max 9.00us  mean 2.33us\n"
	"\n"
	"tick: 13 records, 6.50/s (entry 13)\n"
	"  n: 12 distinct values\n"
	"    2  5\n"
	"    1  0\n"
	"    1  1\n"
	"    1  2\n"
	"    1  3\n"
	"    1  4\n"
	"    1  6\n"
	"    1  7\n"
	"    1  8\n"
	"    1  9\n"
	"    ... 2 more values in 2 records\n";

Test(report, text_golden)
{
	char *out;

	add_fixed_set();
	cr_expect(eq(u64, report__records(rep), 35));
	out = render(false);
	cr_expect_str_eq(out, golden_text);
	free(out);
	out = render(false);	/* rendering twice gives the same */
	cr_expect_str_eq(out, golden_text);
	free(out);
}

/* The JSON document of the same records, read back with the JSON reader. */
Test(report, json_values)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v, *ev, *arg, *top, *dur, *hist;
	struct json_doc *d2;
	char *out;

	add_fixed_set();
	out = render(true);
	cr_assert(eq(int, json_doc__new(&d2), 0));
	cr_assert(eq(int, json_doc__parse(d2, out, strlen(out), &v, &err), 0), "%s at %d:\n%s",
		  err.msg, err.pos, out);
	cr_expect(eq(i64, json_get(v, "records")->i, 35));
	cr_expect(eq(i64, json_get(v, "without_event")->i, 1));
	cr_expect(eq(i64, json_get(v, "first_ts")->i, 1000000000));
	cr_expect(eq(long, json_get(v, "last_ts")->i, 3000000000));
	cr_expect(eq(i64, json_get(v, "span_ns")->i, 2000000000));
	cr_assert(eq(sz, json_get(v, "events")->arr.n, 3));

	ev = &json_get(v, "events")->arr.v[0];
	cr_expect_str_eq(json_get(ev, "event")->str.s, "exec_query");
	cr_expect(eq(i64, json_get(ev, "records")->i, 9));
	cr_expect(eq(dbl, json_get(ev, "rate_per_s")->d, 4.5));
	cr_expect(eq(i64, json_get(json_get(ev, "kinds"), "entry")->i, 9));
	cr_expect(eq(i64, json_get(ev, "truncated")->i, 1));
	cr_expect(eq(uint, json_get(ev, "duration")->type, JSON_NULL));
	cr_assert(eq(sz, json_get(ev, "args")->arr.n, 2));
	arg = &json_get(ev, "args")->arr.v[0];
	cr_expect_str_eq(json_get(arg, "name")->str.s, "query_string");
	cr_expect(eq(i64, json_get(arg, "records")->i, 9));
	cr_expect(eq(i64, json_get(arg, "distinct")->i, 5));
	top = json_get(arg, "top");
	cr_assert(eq(sz, top->arr.n, 5));
	cr_expect(eq(i64, json_get(&top->arr.v[0], "count")->i, 3));
	cr_expect_str_eq(json_get(&top->arr.v[0], "value")->str.s, "SELECT 1");
	cr_expect_str_eq(json_get(&top->arr.v[1], "value")->str.s, "DELETE");
	cr_expect_str_eq(json_get(&top->arr.v[2], "value")->str.s, "SELECT 2");
	cr_expect_str_eq(json_get(json_get(&top->arr.v[3], "value"), "error")->str.s,
			 "bad address 0x0");
	arg = &json_get(ev, "args")->arr.v[1];
	cr_expect(eq(i64, json_get(arg, "records")->i, 8));
	cr_expect(eq(i64, json_get(&json_get(arg, "top")->arr.v[0], "value")->i, 8));

	ev = &json_get(v, "events")->arr.v[1];
	cr_expect_str_eq(json_get(ev, "event")->str.s, "query_done");
	cr_expect(eq(i64, json_get(ev, "rate_per_s")->i, 6));
	dur = json_get(ev, "duration");
	cr_expect(eq(i64, json_get(dur, "count")->i, 12));
	cr_expect(eq(i64, json_get(dur, "min_ns")->i, 600));
	cr_expect(eq(i64, json_get(dur, "max_ns")->i, 9000));
	cr_expect(eq(i64, json_get(dur, "p50_ns")->i, 1500));
	cr_expect(eq(i64, json_get(dur, "p90_ns")->i, 3500));
	cr_expect(eq(i64, json_get(dur, "p99_ns")->i, 9000));
	cr_expect(eq(dbl, json_get(dur, "mean_ns")->d, 27995.0 / 12));
	hist = json_get(dur, "hist");
	cr_assert(eq(sz, hist->arr.n, 5));
	cr_expect(eq(i64, json_get(&hist->arr.v[0], "lo_ns")->i, 512));
	cr_expect(eq(i64, json_get(&hist->arr.v[0], "hi_ns")->i, 1024));
	cr_expect(eq(i64, json_get(&hist->arr.v[0], "count")->i, 3));
	cr_expect(eq(i64, json_get(&hist->arr.v[1], "count")->i, 5));
	cr_expect(eq(i64, json_get(&hist->arr.v[2], "count")->i, 3));
	cr_expect(eq(i64, json_get(&hist->arr.v[3], "lo_ns")->i, 4096));
	cr_expect(eq(i64, json_get(&hist->arr.v[3], "count")->i, 0));
	cr_expect(eq(i64, json_get(&hist->arr.v[4], "hi_ns")->i, 16384));
	cr_expect(eq(i64, json_get(&hist->arr.v[4], "count")->i, 1));

	ev = &json_get(v, "events")->arr.v[2];
	arg = &json_get(ev, "args")->arr.v[0];
	cr_expect(eq(i64, json_get(arg, "distinct")->i, 12));
	top = json_get(arg, "top");
	cr_assert(eq(sz, top->arr.n, REPORT_TOP));
	cr_expect(eq(i64, json_get(&top->arr.v[0], "value")->i, 5));
	cr_expect(eq(i64, json_get(&top->arr.v[0], "count")->i, 2));
	cr_expect(eq(i64, json_get(&top->arr.v[9], "value")->i, 9));
	json_doc__free(d2);
	free(out);
}

/* The exact JSON layout, on a small report. */
Test(report, json_golden)
{
	static const char golden[] =
		"{\n"
		"  \"records\": 3,\n"
		"  \"without_event\": 0,\n"
		"  \"clocks\": [],\n"
		"  \"first_ts\": 100,\n"
		"  \"last_ts\": 400,\n"
		"  \"span_ns\": 300,\n"
		"  \"events\": [\n"
		"    {\n"
		"      \"event\": \"f\\\"x\",\n"
		"      \"records\": 2,\n"
		"      \"rate_per_s\": 6666666.666666667,\n"
		"      \"kinds\": {\"return\": 2},\n"
		"      \"truncated\": 0,\n"
		"      \"args\": [\n"
		"        {\n"
		"          \"name\": \"s\",\n"
		"          \"records\": 2,\n"
		"          \"distinct\": 1,\n"
		"          \"top\": [\n"
		"            {\"count\": 2, \"value\": {\"a\":1,\"b\":\"x\\ty\"}}\n"
		"          ]\n"
		"        }\n"
		"      ],\n"
		"      \"duration\": {\n"
		"        \"count\": 2,\n"
		"        \"min_ns\": 0,\n"
		"        \"max_ns\": 3,\n"
		"        \"mean_ns\": 1.5,\n"
		"        \"p50_ns\": 0,\n"
		"        \"p90_ns\": 3,\n"
		"        \"p99_ns\": 3,\n"
		"        \"hist\": [\n"
		"          {\"lo_ns\": 0, \"hi_ns\": 1, \"count\": 1},\n"
		"          {\"lo_ns\": 1, \"hi_ns\": 2, \"count\": 0},\n"
		"          {\"lo_ns\": 2, \"hi_ns\": 4, \"count\": 1}\n"
		"        ]\n"
		"      }\n"
		"    },\n"
		"    {\n"
		"      \"event\": \"g\",\n"
		"      \"records\": 1,\n"
		"      \"rate_per_s\": 3333333.3333333335,\n"
		"      \"kinds\": {},\n"
		"      \"truncated\": 0,\n"
		"      \"args\": [],\n"
		"      \"duration\": null\n"
		"    }\n"
		"  ]\n"
		"}\n";
	char *out;

	add("{\"ts\":100,\"event\":\"f\\\"x\",\"kind\":\"return\",\"duration_ns\":3,"
	    "\"args\":{\"s\":{ \"a\" : 1, \"b\" : \"x\\ty\" }}}");
	add("{\"ts\":400,\"event\":\"g\"}");
	add("{\"ts\":200,\"event\":\"f\\\"x\",\"kind\":\"return\",\"duration_ns\":0,"
	    "\"args\":{\"s\":{\"a\":1,\"b\":\"x\\u0009y\"}}}");
	out = render(true);
	cr_expect_str_eq(out, golden);
	free(out);
}

/* No record, or no timestamps: spans and rates are n/a, the document still valid. */
Test(report, empty_and_without_timestamps)
{
	char *out = render(false);

	cr_expect_str_eq(out, "0 records of 0 events over n/a (no timestamps)\n");
	free(out);
	out = render(true);
	cr_expect_str_eq(out, "{\n  \"records\": 0,\n  \"without_event\": 0,\n"
			      "  \"clocks\": [],\n"
			      "  \"first_ts\": null,\n  \"last_ts\": null,\n  \"span_ns\": null,\n"
			      "  \"events\": []\n}\n");
	free(out);

	add("{\"event\":\"e\",\"args\":{\"x\":null,\"y\":[1,2]}}");
	add("{\"ts\":5,\"event\":\"e\",\"args\":\"not an object\",\"duration_ns\":-1}");
	out = render(false);
	cr_expect_str_eq(out, "2 records of 1 event over 0.000000000 s\n"
			      "\n"
			      "e: 2 records, n/a\n"
			      "  x: 1 distinct value in 1 of 2 records\n"
			      "    1  null\n"
			      "  y: 1 distinct value in 1 of 2 records\n"
			      "    1  [1,2]\n");
	free(out);
}

/* Not an object: refused, nothing counted. */
Test(report, refuses_non_objects)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v;

	cr_assert(eq(int, json_doc__parse(doc, "[1]", 3, &v, &err), 0));
	cr_expect(eq(int, report__add(rep, v), -EINVAL));
	cr_expect(eq(int, report__add(rep, NULL), -EINVAL));
	cr_expect(eq(u64, report__records(rep), 0));
}

/* One duration a report: its histogram row and its statistics line. */
static const struct {
	const char *ns;
	const char *row;
	const char *stats;
} one_duration[] = {
	{ "0", "    [0ns, 1ns) 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n",
	  "    p50 0ns  p90 0ns  p99 0ns  min 0ns  max 0ns  mean 0ns\n" },
	{ "1", "    [1ns, 2ns) 1 |", "p50 1ns  " },
	{ "999", "    [512ns, 1.02us) 1 |", "p50 999ns  " },
	{ "1000", "    [512ns, 1.02us) 1 |", "p50 1.00us  " },
	{ "99949", "    [65.5us, 131us) 1 |", "p50 99.9us  " },
	{ "99950", "    [65.5us, 131us) 1 |", "p50 100us  " },
	{ "999499", "    [524us, 1.05ms) 1 |", "p50 999us  " },
	{ "999500", "    [524us, 1.05ms) 1 |", "p50 1.00ms  " },
	{ "1500000000", "    [1.07s, 2.15s) 1 |", "p50 1.50s  " },
	{ "3600000000000", "    [2199s, 4398s) 1 |", "p50 3600s  " },
	{ "18446744073709551615", "    [9223372037s, 18446744074s) 1 |",
	  "p50 18446744074s  " },
};

Test(report, duration_units_and_extreme_buckets)
{
	char line[256], *out;

	for (size_t i = 0; i < ARRAY_SIZE(one_duration); i++) {
		report__free(rep);
		cr_assert(eq(int, report__new(&rep), 0));
		snprintf(line, sizeof(line), "{\"ts\":1,\"event\":\"e\",\"duration_ns\":%s}",
			 one_duration[i].ns);
		add(line);
		out = render(false);
		cr_expect_not_null(strstr(out, one_duration[i].row), "%s:\n%s", one_duration[i].ns,
				   out);
		cr_expect_not_null(strstr(out, one_duration[i].stats), "%s:\n%s",
				   one_duration[i].ns, out);
		free(out);
	}
	out = render(true);	/* the last: 2^64 - 1 in the bucket [2^63, 2^64) */
	cr_expect_not_null(strstr(out, "{\"lo_ns\": 9223372036854775808, \"hi_ns\": "
				       "18446744073709551616, \"count\": 1}"), "%s", out);
	cr_expect_not_null(strstr(out, "\"p50_ns\": 18446744073709551615,"), "%s", out);
	free(out);
}

/* Many distinct values: the hash table keeps every count. */
Test(report, many_distinct_values)
{
	char line[128], *out, want[64];

	/* value i (0..4999) appears i % 7 + 1 times; ties broken by first appearance */
	for (int round = 0; round < 7; round++)
		for (int i = 0; i < 5000; i++)
			if (i % 7 >= round) {
				snprintf(line, sizeof(line),
					 "{\"ts\":%d,\"event\":\"e\",\"args\":{\"v\":\"s%d\"}}",
					 round * 5000 + i, i);
				add(line);
			}
	out = render(false);
	cr_expect_not_null(strstr(out, "  v: 5000 distinct values\n"), "%s", out);
	/* 6, 13, 20, ... (i % 7 == 6) appear 7 times: the first ten of them lead */
	for (int k = 0; k < REPORT_TOP; k++) {
		snprintf(want, sizeof(want), "    7  \"s%d\"\n", 6 + 7 * k);
		cr_expect_not_null(strstr(out, want), "%s", want);
	}
	cr_expect_not_null(strstr(out, "    7  \"s6\"\n    7  \"s13\"\n"));
	/*
	 * 5000 = 714 * 7 + 2: residues 0 and 1 have 715 values, 2..6 have 714, so
	 * 715 * (1 + 2) + 714 * (3 + 4 + 5 + 6 + 7) = 19995 records, 70 of them shown
	 */
	cr_expect(eq(u64, report__records(rep), 19995));
	cr_expect_not_null(strstr(out, "    ... 4990 more values in 19925 records\n"), "%s", out);
	free(out);
}

/*
 * Bounded (record --summary): values past the first REPORT_KEEP_VALUES
 * distinct ones counted, not kept; durations past REPORT_KEEP_DURATIONS a
 * sample, with count, min, max, mean and histogram exact.
 */
Test(report, bounded)
{
	char line[160], *out;
	int n = REPORT_KEEP_DURATIONS + 1000;

	report__set_bounded(rep);
	/* value i % 5000; duration 1000 ns, but the last call's 1 s and one of 5 ns */
	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof(line),
			 "{\"ts\":%d,\"event\":\"e\",\"duration_ns\":%d,\"args\":{\"v\":%d}}", i,
			 i == n - 1 ? 1000000000 : i == 7 ? 5 : 1000, i % 5000);
		add(line);
	}
	out = render(false);
	/* the first 4096 values kept (54784 records); the other 904 counted (11752) */
	cr_expect_not_null(strstr(out, "  v: 4096 distinct values kept (then 11752 records of "
				       "values not kept)\n"), "%s", out);
	cr_expect_not_null(strstr(out, "  duration: 66536 records (percentiles from a uniform "
				       "sample of them)\n"), "%s", out);
	cr_expect_not_null(strstr(out, "min 5ns  max 1.00s  mean "), "%s", out);
	cr_expect_not_null(strstr(out, "p50 1.00us  p90 1.00us  p99 1.00us"), "%s", out);
	free(out);
	out = render(true);
	cr_expect_not_null(strstr(out, "\"distinct\": 4096,\n          \"not_kept\": 11752,"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"count\": 66536,"), "%s", out);
	free(out);
}

/* ---- --by-context -------------------------------------------------------- */

#define CTX_A	"{\"exec_query\":{\"query_string\":\"INSERT INTO t VALUES (1)\"}}"
#define CTX_B	"{\"exec_query\":{\"query_string\":\"SELECT 1\",\"len\":8}}"
/* two contexts on one record: one group, not two */
#define CTX_AB	"{\"exec_query\":{\"query_string\":\"SELECT 1\",\"len\":8},\"txn\":{\"id\":7}}"

/* Account a syscall record: NAME, ARGS (the inside of "args"), DUR (< 0: none), CTX (or NULL). */
static void add_sc(const char *name, const char *args, long dur, const char *ctx)
{
	static unsigned long long ts = 5000;
	char line[1024], d[48] = "";

	if (dur >= 0)
		snprintf(d, sizeof(d), ",\"duration_ns\":%ld", dur);
	snprintf(line, sizeof(line),
		 "{\"ts\":%llu,\"pid\":10,\"tid\":10,\"comm\":\"qs\",\"event\":\"%s\","
		 "\"kind\":\"syscall\"%s,\"args\":{%s}%s%s}",
		 ts += 100, name, d, args, ctx ? ",\"context\":" : "", ctx ? ctx : "");
	add(line);
}

#define FD4	"\"fd\":{\"fd\":4,\"path\":\"/tmp/db\"}"

/*
 * The clock line first, entry and return records between the syscalls (not
 * counted), contexts A and B, A again after B, A and a second context on one
 * record, and syscalls without a context.
 */
static void add_ctx_set(void)
{
	add("{\"kind\":\"clock\",\"clock\":\"monotonic\"}");
	add("{\"ts\":4000,\"event\":\"exec_query\",\"kind\":\"entry\","
	    "\"args\":{\"query_string\":\"INSERT INTO t VALUES (1)\"}}");
	add_sc("openat", "\"dirfd\":\"AT_FDCWD\",\"pathname\":\"/tmp/db\",\"ret\":{\"fd\":4,"
	       "\"path\":\"/tmp/db\"}", 20000, CTX_A);
	add_sc("pwrite64", FD4 ",\"count\":100,\"offset\":0,\"ret\":100", 5000, CTX_A);
	add_sc("pwrite64", FD4 ",\"count\":100,\"offset\":100,\"ret\":\"-ENOSPC\"", 1000, CTX_A);
	add_sc("fsync", FD4 ",\"ret\":0", 2000000, CTX_A);
	add("{\"ts\":4500,\"event\":\"exec_query__return\",\"kind\":\"return\","
	    "\"duration_ns\":9999999,\"args\":{\"retval\":0}}");
	add_sc("pread64", FD4 ",\"count\":4096,\"offset\":0,\"ret\":4096", 3000, CTX_B);
	add_sc("pread64", FD4 ",\"count\":4096,\"offset\":4096,\"ret\":17", 1000, CTX_B);
	add_sc("lseek", FD4 ",\"offset\":0,\"whence\":\"SEEK_END\",\"ret\":8192", 500, CTX_B);
	add_sc("pwrite64", FD4 ",\"count\":50,\"offset\":200,\"ret\":50", 4000, CTX_A);
	add_sc("pread64", FD4 ",\"count\":10,\"offset\":0,\"ret\":10", 700, CTX_AB);
	/* no context: a string ret that is not an error, an unnamed errno, no ret, no duration */
	add_sc("mmap", "\"addr\":\"0x0\",\"ret\":\"0x7f0000001000\"", 900, NULL);
	add_sc("read", "\"fd\":{\"fd\":0,\"path\":\"pipe:[9]\"},\"ret\":-530", 100, NULL);
	add_sc("read", "\"fd\":{\"fd\":0,\"path\":\"pipe:[9]\"},\"ret\":64", 300, NULL);
	add_sc("exit_group", "\"status\":0", -1, NULL);
	add_sc("fsync", FD4 ",\"ret\":0", 1500, "{}");	/* an empty context: none */
}

/*
 * Worked out by hand.  A: openat 1 call 20.0us; pwrite64 3 calls, 1 error,
 * 100 + 50 bytes, 5000 + 1000 + 4000 ns; fsync 2.00ms; total 5 calls, 1
 * error, 150 bytes, 2030000 ns.  B: pread64 2 calls, 4113 bytes, 4.00us;
 * lseek 500ns, its ret is no byte count; total 4.50us.  A+txn: pread64 10
 * bytes 700ns.  None: mmap's "0x7f.." is no error, read's -530 is one, 64
 * bytes, 400ns; exit_group has no time; fsync 1.50us; total 2.80us.
 */
static const char ctx_golden_text[] =
	"14 syscall records of 16 records, in 3 contexts, 5 without a context\n"
	"clock: monotonic\n"
	"\n"
	"exec_query query_string=\"INSERT INTO t VALUES (1)\"\n"
	"  syscall     calls  errors  bytes    time\n"
	"  openat          1       0      -  20.0us\n"
	"  pwrite64        3       1    150  10.0us\n"
	"  fsync           1       0      -  2.00ms\n"
	"  total           5       1    150  2.03ms\n"
	"\n"
	"exec_query query_string=\"SELECT 1\" len=8\n"
	"  syscall     calls  errors  bytes    time\n"
	"  pread64         2       0   4113  4.00us\n"
	"  lseek           1       0      -   500ns\n"
	"  total           3       0   4113  4.50us\n"
	"\n"
	"exec_query query_string=\"SELECT 1\" len=8, txn id=7\n"
	"  syscall     calls  errors  bytes    time\n"
	"  pread64         1       0     10   700ns\n"
	"  total           1       0     10   700ns\n"
	"\n"
	"(no context)\n"
	"  syscall     calls  errors  bytes    time\n"
	"  mmap            1       0      -   900ns\n"
	"  read            2       1     64   400ns\n"
	"  exit_group      1       0      -       -\n"
	"  fsync           1       0      -  1.50us\n"
	"  total           5       1     64  2.80us\n";

Test(report, by_context_text_golden)
{
	char *out;

	report__set_mode(rep, REPORT_BY_CONTEXT);
	add_ctx_set();
	cr_expect(eq(u64, report__records(rep), 16));	/* the clock line is not a record */
	out = render(false);
	cr_expect_str_eq(out, ctx_golden_text);
	free(out);
	out = render(false);
	cr_expect_str_eq(out, ctx_golden_text);
	free(out);
}

/* The values of each group in the JSON document, read back. */
Test(report, by_context_json_values)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v, *g, *rows, *row, *tot, *ctx;
	struct json_doc *d2;
	char *out;

	report__set_mode(rep, REPORT_BY_CONTEXT);
	add_ctx_set();
	out = render(true);
	cr_assert(eq(int, json_doc__new(&d2), 0));
	cr_assert(eq(int, json_doc__parse(d2, out, strlen(out), &v, &err), 0), "%s at %d:\n%s",
		  err.msg, err.pos, out);
	cr_expect(eq(i64, json_get(v, "records")->i, 16));
	cr_expect(eq(i64, json_get(v, "syscall_records")->i, 14));
	cr_expect(eq(i64, json_get(v, "truncated")->i, 0));
	cr_assert(eq(sz, json_get(v, "clocks")->arr.n, 1));
	cr_expect_str_eq(json_get(v, "clocks")->arr.v[0].str.s, "monotonic");
	cr_assert(eq(sz, json_get(v, "contexts")->arr.n, 4));

	g = &json_get(v, "contexts")->arr.v[0];
	ctx = json_get(json_get(g, "context"), "exec_query");
	cr_expect_str_eq(json_get(ctx, "query_string")->str.s, "INSERT INTO t VALUES (1)");
	rows = json_get(g, "syscalls");
	cr_assert(eq(sz, rows->arr.n, 3));
	row = &rows->arr.v[0];
	cr_expect_str_eq(json_get(row, "name")->str.s, "openat");
	cr_expect(eq(i64, json_get(row, "calls")->i, 1));
	cr_expect(eq(uint, json_get(row, "bytes")->type, JSON_NULL));
	cr_expect(eq(i64, json_get(row, "time_ns")->i, 20000));
	row = &rows->arr.v[1];
	cr_expect_str_eq(json_get(row, "name")->str.s, "pwrite64");
	cr_expect(eq(i64, json_get(row, "calls")->i, 3));
	cr_expect(eq(i64, json_get(row, "errors")->i, 1));
	cr_expect(eq(i64, json_get(row, "bytes")->i, 150));
	cr_expect(eq(i64, json_get(row, "time_ns")->i, 10000));
	tot = json_get(g, "total");
	cr_expect(eq(i64, json_get(tot, "calls")->i, 5));
	cr_expect(eq(i64, json_get(tot, "errors")->i, 1));
	cr_expect(eq(i64, json_get(tot, "bytes")->i, 150));
	cr_expect(eq(i64, json_get(tot, "time_ns")->i, 2030000));

	g = &json_get(v, "contexts")->arr.v[1];
	cr_expect(eq(i64, json_get(json_get(json_get(g, "context"), "exec_query"), "len")->i, 8));
	cr_expect_null(json_get(json_get(g, "context"), "txn"));
	tot = json_get(g, "total");
	cr_expect(eq(i64, json_get(tot, "calls")->i, 3));
	cr_expect(eq(i64, json_get(tot, "bytes")->i, 4113));
	cr_expect(eq(i64, json_get(tot, "time_ns")->i, 4500));

	/* both contexts of the record, whole */
	g = &json_get(v, "contexts")->arr.v[2];
	cr_expect(eq(sz, json_get(json_get(g, "context"), "exec_query")->obj.n, 2));
	cr_expect(eq(i64, json_get(json_get(json_get(g, "context"), "txn"), "id")->i, 7));
	cr_expect(eq(i64, json_get(json_get(g, "total"), "bytes")->i, 10));

	g = &json_get(v, "contexts")->arr.v[3];
	cr_expect(eq(uint, json_get(g, "context")->type, JSON_NULL));
	rows = json_get(g, "syscalls");
	cr_assert(eq(sz, rows->arr.n, 4));
	cr_expect_str_eq(json_get(&rows->arr.v[0], "name")->str.s, "mmap");
	cr_expect(eq(i64, json_get(&rows->arr.v[0], "errors")->i, 0));
	cr_expect(eq(i64, json_get(&rows->arr.v[1], "calls")->i, 2));
	cr_expect(eq(i64, json_get(&rows->arr.v[1], "errors")->i, 1));
	cr_expect(eq(i64, json_get(&rows->arr.v[1], "bytes")->i, 64));
	cr_expect_str_eq(json_get(&rows->arr.v[2], "name")->str.s, "exit_group");
	cr_expect(eq(uint, json_get(&rows->arr.v[2], "time_ns")->type, JSON_NULL));
	tot = json_get(g, "total");
	cr_expect(eq(i64, json_get(tot, "calls")->i, 5));
	cr_expect(eq(i64, json_get(tot, "errors")->i, 1));
	cr_expect(eq(i64, json_get(tot, "time_ns")->i, 2800));
	json_doc__free(d2);
	free(out);
}

/* The exact JSON layout, and the empty document. */
Test(report, by_context_json_golden)
{
	static const char golden[] =
		"{\n"
		"  \"records\": 3,\n"
		"  \"syscall_records\": 2,\n"
		"  \"truncated\": 1,\n"
		"  \"clocks\": [],\n"
		"  \"contexts\": [\n"
		"    {\n"
		"      \"context\": {\"q\":{\"s\":\"a\\\"b\\tc\"}},\n"
		"      \"syscalls\": [\n"
		"        {\"name\": \"write\", \"calls\": 1, \"errors\": 0, \"bytes\": 3, "
		"\"time_ns\": 7}\n"
		"      ],\n"
		"      \"total\": {\"calls\": 1, \"errors\": 0, \"bytes\": 3, \"time_ns\": 7}\n"
		"    },\n"
		"    {\n"
		"      \"context\": null,\n"
		"      \"syscalls\": [\n"
		"        {\"name\": \"close\", \"calls\": 1, \"errors\": 0, \"bytes\": null, "
		"\"time_ns\": null}\n"
		"      ],\n"
		"      \"total\": {\"calls\": 1, \"errors\": 0, \"bytes\": null, "
		"\"time_ns\": null}\n"
		"    }\n"
		"  ]\n"
		"}\n";
	char *out;

	report__set_mode(rep, REPORT_BY_CONTEXT);
	out = render(true);
	cr_expect_str_eq(out, "{\n  \"records\": 0,\n  \"syscall_records\": 0,\n"
			      "  \"truncated\": 0,\n  \"clocks\": [],\n  \"contexts\": []\n}\n");
	free(out);
	add("{\"event\":\"write\",\"kind\":\"syscall\",\"duration_ns\":7,\"args\":{\"ret\":3},"
	    "\"context\":{\"q\":{\"s\":\"a\\\"b\\u0009c\"}}}");
	add("{\"event\":\"close\",\"kind\":\"syscall\",\"args\":{},\"truncated\":true}");
	add("{\"event\":\"close\",\"kind\":\"entry\",\"args\":{}}");
	out = render(true);
	cr_expect_str_eq(out, golden);
	free(out);
}

/* No syscall record: the header says so. */
Test(report, by_context_without_syscalls)
{
	char *out;

	report__set_mode(rep, REPORT_BY_CONTEXT);
	add("{\"ts\":1,\"event\":\"f\",\"kind\":\"entry\",\"args\":{}}");
	add("{\"ts\":2,\"event\":\"f\",\"kind\":\"syscall\"}");	/* an event, no args */
	add("{\"ts\":3,\"kind\":\"syscall\"}");			/* no event: skipped */
	out = render(false);
	cr_expect_str_eq(out, "1 syscall record of 3 records, in 0 contexts, 1 without a context\n"
			      "\n"
			      "(no context)\n"
			      "  syscall  calls  errors  bytes  time\n"
			      "  f            1       0      -     -\n"
			      "  total        1       0      -     -\n");
	free(out);
	report__free(rep);
	cr_assert(eq(int, report__new(&rep), 0));
	report__set_mode(rep, REPORT_BY_CONTEXT);
	add("{\"ts\":1,\"event\":\"f\",\"kind\":\"entry\",\"args\":{}}");
	out = render(false);
	cr_expect_str_eq(out, "0 syscall records of 1 record, in 0 contexts\n"
			      "(no syscall records: `ptap record --syscalls LIST` writes them)\n");
	free(out);
}

/* The heading of the group of the one record with context CTX (JSON text). */
static char *ctx_heading(const char *ctx)
{
	char line[2048], *out, *nl, *h;

	report__free(rep);
	cr_assert(eq(int, report__new(&rep), 0));
	report__set_mode(rep, REPORT_BY_CONTEXT);
	snprintf(line, sizeof(line), "{\"event\":\"read\",\"kind\":\"syscall\",\"context\":%s}",
		 ctx);
	add(line);
	out = render(false);
	h = strstr(out, "\n\n");
	cr_assert_not_null(h, "%s", out);
	h += 2;
	nl = strchr(h, '\n');
	cr_assert_not_null(nl);
	*nl = '\0';
	h = strdup(h);
	free(out);
	return h;
}

#define A47	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* Values are escaped for the terminal and cut after REPORT_CUT columns, never mid-escape. */
Test(report, by_context_values_escaped_and_cut)
{
	static const struct {
		const char *ctx, *heading;
	} cases[] = {
		/* 48 columns: whole; 49: cut */
		{ "{\"e\":{\"s\":\"" A47 "b\"}}", "e s=\"" A47 "b\"" },
		{ "{\"e\":{\"s\":\"" A47 "bc\"}}", "e s=\"" A47 "b\"..." },
		/* \t would be columns 48 and 49: cut before it */
		{ "{\"e\":{\"s\":\"" A47 "\\tc\"}}", "e s=\"" A47 "\"..." },
		{ "{\"e\":{\"s\":\"" A47 "\\u0001\"}}", "e s=\"" A47 "\"..." },
		{ "{\"e\":{\"s\":\"x\\u0001\\u001b[2J\\n\"}}", "e s=\"x\\x01\\x1b[2J\\n\"" },
		/* a UTF-8 character is one column */
		{ "{\"e\":{\"s\":\"" A47 "\u00e9\u00e9\"}}", "e s=\"" A47 "\u00e9\"..." },
		/* cut strings, errors, other values as the text records show them */
		{ "{\"e\":{\"s\":{\"value\":\"SELECT\",\"truncated\":true}}}",
		  "e s=\"SELECT\"..." },
		{ "{\"e\":{\"s\":{\"value\":\"" A47 "bc\",\"truncated\":true}}}",
		  "e s=\"" A47 "b\"..." },
		{ "{\"e\":{\"s\":{\"value\":\"SEL\",\"truncated\":true,\"length\":8}}}",
		  "e s=\"SEL\"..." },
		{ "{\"e\":{\"s\":{\"value\":\"SEL\",\"truncated\":true,\"length_min\":65539}}}",
		  "e s=\"SEL\"..." },
		{ "{\"e\":{\"s\":{\"value\":\"SEL\",\"truncated\":true,\"x\":1}}}",
		  "e s={\"value\":\"SEL\",\"truncated\":true,\"x\":1}" },
		/* C1 controls and bidi overrides escaped, as in the records */
		{ "{\"e\":{\"s\":\"\\u009b2J\\u202e\"}}", "e s=\"\\u009b2J\\u202e\"" },
		{ "{\"e\":{\"s\":{\"error\":\"bad address 0x0\"}}}",
		  "e s=(error: bad address 0x0)" },
		{ "{\"e\":{\"n\":-3,\"b\":true,\"o\":{\"fd\":3,\"path\":\"/x\"}}}",
		  "e n=-3 b=true o={\"fd\":3,\"path\":\"/x\"}" },
		{ "{\"e\":{\"o\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}}",
		  "e o=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19..." },
		/* names escaped; a context that is not an object of arguments */
		{ "{\"e\\u001b\":{\"a\\nb\":1},\"f\":2}", "e\\x1b a\\nb=1, f=2" },
	};
	char *h;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		h = ctx_heading(cases[i].ctx);
		cr_expect(eq(str, h, (char *)cases[i].heading), "case %zu", i);
		free(h);
	}
}

/* Long syscall names are cut too; the columns stay aligned; sums saturate. */
Test(report, by_context_names_and_sums)
{
	char *out;

	report__set_mode(rep, REPORT_BY_CONTEXT);
	add("{\"event\":\"" A47 "bc\",\"kind\":\"syscall\"}");
	add("{\"event\":\"read\",\"kind\":\"syscall\",\"duration_ns\":18446744073709551615,"
	    "\"args\":{\"ret\":18446744073709551615}}");
	add("{\"event\":\"read\",\"kind\":\"syscall\",\"duration_ns\":1,\"args\":{\"ret\":1}}");
	out = render(false);
	cr_expect_str_eq(out,
		"3 syscall records of 3 records, in 0 contexts, 3 without a context\n"
		"\n"
		"(no context)\n"
		"  syscall                                              calls  errors"
		"                 bytes          time\n"
		"  " A47 "b...      1       0"
		"                     -             -\n"
		"  read                                                     2       0"
		"  18446744073709551615  18446744074s\n"
		"  total                                                    3       0"
		"  18446744073709551615  18446744074s\n");
	free(out);
}

/* The clock line is not a record, in either mode; it is shown, mixed clocks too. */
Test(report, clock_line_skipped)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v;
	struct json_doc *d2;
	char *out;

	add("{\"kind\":\"clock\",\"clock\":\"monotonic\"}");
	add("{\"ts\":1,\"event\":\"f\",\"kind\":\"entry\"}");
	cr_expect(eq(u64, report__records(rep), 1));
	out = render(false);
	cr_expect_str_eq(out, "1 record of 1 event over 0.000000000 s\n"
			      "clock: monotonic\n"
			      "\n"
			      "f: 1 record, n/a (entry 1)\n");
	free(out);
	out = render(true);
	cr_assert(eq(int, json_doc__new(&d2), 0));
	cr_assert(eq(int, json_doc__parse(d2, out, strlen(out), &v, &err), 0), "%s", out);
	cr_expect(eq(i64, json_get(v, "records")->i, 1));
	cr_expect(eq(i64, json_get(v, "without_event")->i, 0));
	cr_assert(eq(sz, json_get(v, "clocks")->arr.n, 1));
	cr_expect_str_eq(json_get(v, "clocks")->arr.v[0].str.s, "monotonic");
	json_doc__free(d2);
	free(out);

	add("{\"kind\":\"clock\",\"clock\":\"realtime\"}");
	add("{\"kind\":\"clock\",\"clock\":\"monotonic\"}");
	out = render(false);
	cr_expect_not_null(strstr(out, "\nclock: monotonic, realtime (mixed)\n"), "%s", out);
	free(out);
}

/* Without --by-context, syscall records are events like the others; "context" is not counted. */
Test(report, syscalls_as_events)
{
	char *out;

	add_ctx_set();
	out = render(false);
	cr_expect_not_null(strstr(out, "\npwrite64: 3 records, "), "%s", out);
	cr_expect_not_null(strstr(out, " (syscall 3)\n  fd: 1 distinct value\n"
				       "    3  {\"fd\":4,\"path\":\"/tmp/db\"}\n"), "%s", out);
	cr_expect_not_null(strstr(out, "  ret: 3 distinct values\n    1  100\n"
				       "    1  \"-ENOSPC\"\n    1  50\n"), "%s", out);
	cr_expect_null(strstr(out, "context"), "%s", out);
	cr_expect_null(strstr(out, "exec_query query_string="), "%s", out);
	free(out);
}

/* record -g: each event's stacks, most frequent first, a frame a line */
Test(report, stacks_text_and_json)
{
	static const char golden[] =
		"3 records of 1 event over 0.000000002 s\n"
		"\n"
		"leaf: 3 records, 1500000000.00/s (entry 3)\n"
		"  stacks: 2 distinct\n"
		"    2 records\n"
		"      leaf+0x0\n"
		"      helper (inlined)\n"
		"      main+0x1a\n"
		"    1 record\n"
		"      leaf+0x0\n"
		"      [unknown]\n";
	const char *a = "\"stack\":[{\"addr\":\"0x1\",\"func\":\"leaf\",\"off\":0},"
			"{\"addr\":\"0x2\",\"func\":\"helper\",\"inlined\":true},"
			"{\"addr\":\"0x2\",\"func\":\"main\",\"off\":26}]";
	char line[512], *text, *json;

	snprintf(line, sizeof(line), "{\"ts\":1,\"event\":\"leaf\",\"kind\":\"entry\",%s}", a);
	add(line);
	add("{\"ts\":2,\"event\":\"leaf\",\"kind\":\"entry\",\"stack\":[{\"addr\":\"0x1\","
	    "\"func\":\"leaf\",\"off\":0},{\"addr\":\"0x9\",\"func\":null}]}");
	snprintf(line, sizeof(line), "{\"ts\":3,\"event\":\"leaf\",\"kind\":\"entry\",%s}", a);
	add(line);
	text = render(false);
	cr_expect(eq(str, text, (char *)golden));
	json = render(true);
	cr_expect(ne(ptr, strstr(json, "\"stacks\": {\"distinct\": 2, \"top\": [\n"
				       "        {\"count\": 2, \"frames\": [\"leaf+0x0\", "
				       "\"helper (inlined)\", \"main+0x1a\"]},\n"
				       "        {\"count\": 1, \"frames\": [\"leaf+0x0\", "
				       "\"[unknown]\"]}\n      ]},\n"), NULL), "%s", json);
	free(text);
	free(json);
}

/* record --account: sums and the calls of most; a call whose counters are not all known is
 * counted apart, and the counters are never listed as values */
Test(report, account_sums_and_top_calls)
{
	static const char *const recs[] = {
		"{\"ts\":1,\"event\":\"q\",\"kind\":\"return\",\"args\":{\"s\":\"a\",\"read_bytes\":10,"
		"\"write_bytes\":0,\"cancelled_write_bytes\":0,\"cpu_ns\":5,\"runq_ns\":1,\"minflt\":0,"
		"\"majflt\":1,\"nvcsw\":0,\"nivcsw\":0}}",
		"{\"ts\":2,\"event\":\"q\",\"kind\":\"return\",\"args\":{\"s\":\"b\",\"read_bytes\":30,"
		"\"write_bytes\":4,\"cancelled_write_bytes\":0,\"cpu_ns\":2,\"runq_ns\":1,\"minflt\":3,"
		"\"majflt\":0,\"nvcsw\":1,\"nivcsw\":0}}",
		"{\"ts\":3,\"event\":\"q\",\"kind\":\"return\",\"args\":{\"s\":\"c\",\"read_bytes\":"
		"{\"error\":\"Too many open files\"},\"write_bytes\":{\"error\":\"x\"},"
		"\"cancelled_write_bytes\":{\"error\":\"x\"},\"cpu_ns\":9,\"runq_ns\":1,\"minflt\":0,"
		"\"majflt\":0,\"nvcsw\":0,\"nivcsw\":0}}",
	};
	char *text;

	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		add(recs[i]);
	text = render(false);
	cr_expect_not_null(strstr(text,
		"  cost (--account), the sums of 2 calls (1 more whose counters are not known):\n"
		"    read_bytes 40, write_bytes 4, cancelled_write_bytes 0, cpu_ns 7, runq_ns 2\n"
		"    minflt 3, majflt 1, nvcsw 1, nivcsw 0\n"
		"    most read_bytes:\n"
		"      30  s=\"b\"\n"
		"      10  s=\"a\"\n"
		"    most write_bytes:\n"
		"      4  s=\"b\"\n"
		"    most cpu_ns:\n"
		"      5  s=\"a\"\n"
		"      2  s=\"b\"\n"), "%s", text);
	cr_expect_null(strstr(text, "  read_bytes:"), "%s", text);
	cr_expect_not_null(strstr(text, "  s: 3 distinct values"), "%s", text);
	free(text);
}
