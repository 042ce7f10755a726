/* cmd/main.c: argv -> cmd_*(); nothing else. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

#ifndef PTAP_VERSION
#define PTAP_VERSION "unknown"
#endif

static const char usage[] =
	"usage: ptap record [OPTIONS] -e PROBE [-e PROBE ...] -- COMMAND [ARG...]\n"
	"       ptap record [OPTIONS] -e PROBE [-e PROBE ...] -p PID[,PID...]\n"
	"       ptap record [OPTIONS] --syscalls LIST [-e PROBE ...] -- COMMAND [ARG...]\n"
	"       ptap list -x BINARY [GLOB]      functions of BINARY with source FILE:LINE\n"
	"       ptap vars [OPTIONS] -x BINARY POINT  variables at each site, with their types\n"
	"       ptap maps [--rss] [--format json] PID | --core FILE  the map table, with build-ids\n"
	"       ptap report [--by-context] [--format json] [FILE]  summary of a JSON-lines record file\n"
	"       ptap help COMMAND, ptap COMMAND --help  a command's options\n"
	"       ptap --version\n"
	"ptap records the arguments of user-space functions through ptrace.\n";

/* The subcommands: argv[1] -> its cmd_*(). */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "record", cmd_record },
	{ "list", cmd_list },
	{ "vars", cmd_vars },
	{ "maps", cmd_maps },
	{ "report", cmd_report },
};

/* The edits (insert, delete, change, swap two neighbours) from A to B; short words only. */
static size_t edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[17][17];

	if (la > 16 || lb > 16)
		return 99;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t v = i + j;

			if (i && j) {
				v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
				v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
				v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
				if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
				    d[i - 2][j - 2] + 1 < v)
					v = d[i - 2][j - 2] + 1;
			}
			d[i][j] = v;
		}
	return d[la][lb];
}

/* What ARG was meant to be, said after "unknown command". */
static void unknown_command(const char *arg)
{
	const char *best = NULL;
	size_t least = 3;	/* at most 2 edits */

	fprintf(stderr, "ptap: unknown command '%s'", arg);
	if (arg[0] == '-') {	/* perf probe's and strace's options come first: ours after */
		fprintf(stderr, "; an option goes after the command: ptap record %s ...\n", arg);
		return;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		size_t n = edits(arg, cmds[i].name);

		if (n < least) {
			least = n;
			best = cmds[i].name;
		}
	}
	if (best)
		fprintf(stderr, "; did you mean '%s'?", best);
	fputs("\n", stderr);
}

int main(int argc, char **argv)
{
	char help[] = "--help", *help_argv[] = { NULL, NULL, help, NULL };

	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
		printf("ptap %s\n", PTAP_VERSION);
		return 0;
	}
	/* ptap help COMMAND: ptap COMMAND --help */
	if (argc == 3 && !strcmp(argv[1], "help")) {
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		argc = 3;
		argv = help_argv;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			char name[32];

			/* getopt's messages start with it: "ptap: record: unrecognized option" */
			snprintf(name, sizeof(name), "ptap: %s", cmds[i].name);
			argv[1] = name;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	unknown_command(argv[1]);
	fputs(usage, stderr);
	return 2;
}
