/* cmd/report.c: `ptap report [--by-context] [--format json] [FILE]` --
 * summarise a JSON-lines record file (`ptap record --format json`) per event:
 * counts, rates, top argument values, durations; or per context, the
 * syscalls made under it.  The statistics are probes/report.c; this reads
 * the lines and refuses one that is not a JSON object. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/err.h"
#include "probes/json.h"
#include "probes/log.h"
#include "probes/report.h"

static const char report_usage[] =
	"usage: ptap report [--by-context] [--format text|json] [FILE]\n"
	"  summarise FILE (stdin when absent or '-'), written by `ptap record --format json`:\n"
	"  per event, in the order first seen: its records and rate (records / the span\n"
	"  from the earliest to the latest ts), for each argument the 10 most frequent\n"
	"  values with their counts and the number of distinct values, and for records\n"
	"  with duration_ns a log2 histogram with p50/p90/p99, min, max and mean.\n"
	"  Syscall records (--syscalls) are events like the others here.  The clock line\n"
	"  that starts the file is not a record: its clock is shown (\"clock: monotonic\").\n"
	"  --by-context      instead, per context (the whole \"context\" object of the\n"
	"      syscall records, e.g. exec_query query_string=\"...\"; in the order first\n"
	"      seen, then \"(no context)\"), one row per syscall in the order first seen:\n"
	"      its calls, errors (ret \"-ERRNO\"), bytes (the sum of the non-negative rets\n"
	"      of read, write, pread64, pwrite64, readv, writev, preadv(2), pwritev(2),\n"
	"      sendto, recvfrom, sendmsg, recvmsg, sendfile, copy_file_range, splice, tee;\n"
	"      \"-\" for other calls) and total time (the sum of duration_ns), and a total\n"
	"      row.  Counted too: a return record with record --account's counters,\n"
	"      under the context {EVENT:{its args}} (EVENT its event without __return,\n"
	"      the counters not among its args): their sums, above the rows.  Context\n"
	"      values longer than 48 columns are cut with \"...\" (never in JSON).\n"
	"  -F, --format FMT  text (default) or json: one document,\n"
	"      {\"records\":N, \"without_event\":N, \"clocks\":[S,...],\n"
	"       \"first_ts\":N|null, \"last_ts\":N|null,\n"
	"       \"span_ns\":N|null, \"events\":[{\"event\":S, \"records\":N,\n"
	"        \"rate_per_s\":X|null, \"kinds\":{KIND:N,...}, \"truncated\":N,\n"
	"        \"args\":[{\"name\":S, \"records\":N, \"distinct\":N,\n"
	"                 \"top\":[{\"count\":N, \"value\":VALUE},...]},...],\n"
	"        \"duration\":null|{\"count\":N, \"min_ns\":N, \"max_ns\":N, \"mean_ns\":X,\n"
	"                          \"p50_ns\":N, \"p90_ns\":N, \"p99_ns\":N,\n"
	"                          \"hist\":[{\"lo_ns\":N, \"hi_ns\":N, \"count\":N},...]}},...]}\n"
	"      with --by-context:\n"
	"      {\"records\":N, \"syscall_records\":N, \"truncated\":N, \"clocks\":[S,...],\n"
	"       \"contexts\":[{\"context\":{EVENT:{NAME:VALUE,...},...}|null,\n"
	"        [\"account\":{\"calls\":N, \"not_known\":N, \"sums\":{NAME:N,...}},]\n"
	"        \"syscalls\":[{\"name\":S, \"calls\":N, \"errors\":N, \"bytes\":N|null,\n"
	"                     \"time_ns\":N|null},...],\n"
	"        \"total\":{\"calls\":N, \"errors\":N, \"bytes\":N|null,\n"
	"                 \"time_ns\":N|null}},...]}\n"
	"  Exit 0; 2 for a usage error, a file that cannot be read, or a line that is\n"
	"  not a JSON object (its line number is given).  An empty file: \"no records\".\n";

/* Feed each line of F (named NAME) to REP; 0, or 2 after saying what is wrong where. */
int report_read_records(FILE *f, const char *name, struct report *rep)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *rec;
	struct json_doc *doc = NULL;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int r = 0, status = 0;

	if (json_doc__new(&doc)) {
		pr_err("report: out of memory\n");
		return 2;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			n--;
		r = json_doc__parse(doc, line, n, &rec, &err);
		if (r == -EINVAL && lineno == 1 && n >= 6 && !memcmp(line, "# ptap", 6)) {
			pr_err("%s: a text record file: ptap report reads JSON lines; record with "
			       "`ptap record --format json`\n", name);
			status = 2;
			break;
		}
		if (r == -EINVAL) {
			/* not JSON at all: likely a launched command's own output, on the same stdout */
			bool text = n && line[0] != '{';

			pr_err("%s:%zu:%d: not a JSON object: %s%s\n", name, lineno, err.pos + 1,
			       err.msg, text ? " (a traced command's own output among the "
			       "records? `ptap record -o FILE` keeps them apart)" : "");
			status = 2;
			break;
		}
		if (r == 0 && rec->type != JSON_OBJECT) {
			pr_err("%s:%zu: not a JSON object (a record is one object a line)\n", name,
			       lineno);
			status = 2;
			break;
		}
		if (r == 0)
			r = report__add(rep, rec);
		if (r < 0) {
			pr_err("%s:%zu: %s\n", name, lineno, strerror(-r));
			status = 2;
			break;
		}
	}
	if (!status && ferror(f)) {
		pr_err("cannot read %s: %s\n", name, strerror(errno));
		status = 2;
	}
	free(line);
	json_doc__free(doc);
	return status;
}

/* Parse the options into *JSON, *MODE and *PATH; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bool *json, enum report_mode *mode,
		      const char **path)
{
	static const struct option longopts[] = {
		{ "by-context", no_argument, NULL, 'C' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "+F:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			*mode = REPORT_BY_CONTEXT;
			break;
		case 'F':
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				pr_err("report: unknown format '%s' (text or json)\n", optarg);
				return 2;
			}
			*json = !strcmp(optarg, "json");
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			return cmd_see_help("report");
		}
	}
	if (optind < argc)
		*path = argv[optind++];
	if (optind < argc) {
		pr_err("report: one FILE at most ('%s' is extra)\n", argv[optind]);
		return cmd_see_help("report");
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	enum report_mode mode = REPORT_EVENTS;
	const char *path = NULL, *name;
	struct report *rep = NULL;
	bool json = false;
	FILE *f = stdin;
	int status, r;

	status = parse_args(argc, argv, &json, &mode, &path);
	if (status >= 0)
		return status;
	name = path && strcmp(path, "-") ? path : "<stdin>";
	if (path && strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			pr_err("cannot open %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	if (report__new(&rep)) {
		pr_err("report: out of memory\n");
		status = 2;
	} else {
		report__set_mode(rep, mode);
		status = report_read_records(f, name, rep);
	}
	if (f != stdin)
		fclose(f);
	if (!status && !json && report__records(rep) == 0) {
		puts("no records");
	} else if (!status) {
		r = json ? report__write_json(rep, stdout) : report__write_text(rep, stdout);
		if (r < 0) {
			pr_err("report: cannot write the summary: %s\n", strerror(-r));
			status = 2;
		}
	}
	if (fflush(stdout) != 0 && !status) {
		pr_err("report: cannot write the output: %s\n", strerror(errno));
		status = 2;
	}
	report__free(rep);
	return status;
}
