/* cmd/main.c: argv -> cmd_*(); nothing else. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

static const char usage[] =
	"usage: ptap record [OPTIONS] -e PROBE [-e PROBE ...] -- COMMAND [ARG...]\n"
	"       ptap list -x BINARY [GLOB]      functions of BINARY with source FILE:LINE\n"
	"       ptap vars [OPTIONS] -x BINARY POINT  variables at each site, with their types\n"
	"       ptap maps [--rss] [--format json] PID | --core FILE  the map table, with build-ids\n"
	"       ptap report [--format json] [FILE]  summary of a JSON-lines record file\n"
	"       ptap COMMAND --help\n"
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
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ptap: unknown command '%s'\n%s", argv[1], usage);
	return 2;
}
