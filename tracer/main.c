/* tracer/main.c: argv -> cmd_*(); nothing else. */
#include <stdio.h>
#include <string.h>

#include "tracer/cmd.h"

static const char usage[] =
	"usage: ptap record [OPTIONS] -e PROBE [-e PROBE ...] -- COMMAND [ARG...]\n"
	"       ptap vars [OPTIONS] -x BINARY POINT\n"
	"       ptap record --help | ptap vars --help\n"
	"ptap records the arguments of user-space functions through ptrace.\n";

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "vars"))
		return cmd_vars(argc - 1, argv + 1);
	fprintf(stderr, "ptap: unknown command '%s'\n%s", argv[1], usage);
	return 2;
}
