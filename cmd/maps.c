/* cmd/maps.c: `ptap maps [--rss] [--format text|json] PID` and
 * `ptap maps [--format text|json] --core FILE` -- the map table of a live
 * process or of a core dump (tracer/space/mapview.h).  Exit 0; 2 for a usage
 * error, no such process, not permitted, or a file that is not a (whole) core. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/err.h"
#include "probes/log.h"
#include "tracer/space/mapview.h"

static const char maps_usage[] =
	"usage: ptap maps [--rss] [--proc-maps] [--format text|json] PID\n"
	"       ptap maps [--format text|json] --core FILE\n"
	"  the map table: each mapping's range, size, perms, file offset, device and inode,\n"
	"  PT_LOAD segment, load bias, build-id and path\n"
	"      --core FILE          read the table from a core dump (kernel or gcore), saying\n"
	"                           which ranges' contents it holds\n"
	"      --rss                add RSS, PSS and swap per mapping (from /proc/PID/smaps)\n"
	"      --format text|json   a table (default), or JSON lines\n"
	"      --proc-maps          read /proc/PID/maps, not the PROCMAP_QUERY ioctl (which\n"
	"                           kernels from 6.11 have); build-ids then come from the files\n"
	"  -v, --verbose            more messages\n";

enum { OPT_CORE = 256, OPT_RSS, OPT_FORMAT, OPT_PROC_MAPS };

static int usage_error(const char *what, const char *arg)
{
	pr_err("maps: %s%s\n", what, arg ? arg : "");
	return cmd_see_help("maps");
}

/* A decimal process id, or -1. */
static long parse_pid(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 0x7fffffff)
		return -1;
	return v;
}

int cmd_maps(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "core", required_argument, NULL, OPT_CORE },
		{ "rss", no_argument, NULL, OPT_RSS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "proc-maps", no_argument, NULL, OPT_PROC_MAPS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ptap_err err = { .pos = -1 };
	const char *core = NULL;
	struct mapview *v = NULL;
	bool rss = false, json = false, text = false;
	long pid = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CORE:
			core = optarg;
			break;
		case OPT_RSS:
			rss = true;
			break;
		case OPT_PROC_MAPS:
			text = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return usage_error("--format: text or json, not ", optarg);
			json = !strcmp(optarg, "json");
			break;
		case 'v':
			log_more_verbose();
			break;
		case 'h':
			fputs(maps_usage, stdout);
			return 0;
		default:
			return cmd_see_help("maps");
		}
	}
	if (core && optind < argc)
		return usage_error("give a PID or --core FILE, not both", NULL);
	if (core && (rss || text))
		return usage_error(rss ? "--rss needs a live process: a core has no RSS"
				       : "--proc-maps needs a live process", NULL);
	if (!core && optind >= argc)
		return usage_error("give the PID of a process, or --core FILE", NULL);
	if (!core && optind + 1 < argc)
		return usage_error("one PID at a time; extra argument ", argv[optind + 1]);
	if (!core) {
		pid = parse_pid(argv[optind]);
		if (pid < 0)
			return usage_error("not a process id: ", argv[optind]);
	}
	r = core ? mapview__core(core, &v, &err)
		 : mapview__live((pid_t)pid, (rss ? MAPVIEW_RSS : 0) | (text ? MAPVIEW_TEXT : 0),
					 &v, &err);
	if (r < 0) {
		pr_err("maps: %s\n", err.msg[0] ? err.msg : strerror(-r));
		return 2;
	}
	r = json ? mapview__print_json(v, stdout) : mapview__print_text(v, stdout);
	if (r < 0)
		pr_err("maps: writing the table: %s\n", strerror(-r));
	/* A core cut short: the table is shown, marked, but the input was bad. */
	if (r == 0 && v->core_missing) {
		pr_err("maps: core %s is truncated: %llu bytes of its memory are missing "
		       "(rows marked \"cut\"); was the dump interrupted or the disk full?\n",
		       core, (unsigned long long)v->core_missing);
		r = -EIO;
	}
	mapview__free(v);
	return r < 0 ? 2 : 0;
}
