/* cmd/cmd.h: the subcommands; each returns the process exit status. */
#ifndef PTAP_CMD_CMD_H
#define PTAP_CMD_CMD_H

#include <stdio.h>

int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_vars(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_maps(int argc, char **argv);
struct report;
/*
 * Feed each line of F (named NAME) to REP (`ptap report`, `record
 * --summary`); 0, or 2 after saying what is wrong where.
 */
int report_read_records(FILE *f, const char *name, struct report *rep);
/* After a usage error of `ptap CMD` (said already): where its help is.  Returns 2. */
int cmd_see_help(const char *cmd);

#endif
