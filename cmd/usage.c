/* cmd/usage.c: what every subcommand says after a usage error. */
#include <stdio.h>

#include "cmd/cmd.h"

int cmd_see_help(const char *cmd)
{
	fprintf(stderr, "see `ptap %s --help`\n", cmd);
	return 2;
}
