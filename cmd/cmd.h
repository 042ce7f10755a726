/* cmd/cmd.h: the subcommands; each returns the process exit status. */
#ifndef PTAP_CMD_CMD_H
#define PTAP_CMD_CMD_H

int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_vars(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_maps(int argc, char **argv);
/* After a usage error of `ptap CMD` (said already): where its help is.  Returns 2. */
int cmd_see_help(const char *cmd);

#endif
