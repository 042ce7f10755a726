/* tracer/cmd_report.c: `ptap report` (placeholder until it is written). */
#include <stdio.h>

#include "tracer/cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("ptap report: not written yet\n", stderr);
	return 2;
}
