/* tracer/host/procstatus.c: one field of a /proc status file (procstatus.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/host/procstatus.h"

unsigned long long procstatus_field(pid_t pid, pid_t tid, const char *key, int base,
				    unsigned long long dflt)
{
	unsigned long long v = dflt;
	size_t keylen = strlen(key);
	char path[64], line[256];
	FILE *f;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return dflt;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, keylen) && line[keylen] == ':') {
			v = strtoull(line + keylen + 1, NULL, base);
			break;
		}
	}
	fclose(f);
	return v;
}
