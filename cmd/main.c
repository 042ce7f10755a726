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
	fprintf(stderr, "ptap: unknown command '%s'\n%s", argv[1], usage);
	return 2;
}
