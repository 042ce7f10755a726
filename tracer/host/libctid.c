/* tracer/host/libctid.c: glibc's struct pthread's tid in a process (libctid.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dwarf/member.h"
#include "tracer/host/libctid.h"

int libc_tid_offset(pid_t pid, uint32_t *off)
{
	char path[64], line[PATH_MAX + 128], libc[PATH_MAX] = "";
	uint64_t o;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!libc[0] && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		size_t n = p ? strcspn(p, "\n") : 0;

		if (n > 10 && !strncmp(p + n - 10, "/libc.so.6", 10))
			snprintf(libc, sizeof(libc), "%.*s", (int)n, p);
	}
	fclose(f);
	if (!libc[0])
		return -ENOENT;
	r = dwarf_member_offset(libc, NULL, "pthread", "tid", &o);
	if (r == 0 && (o == 0 || o > 4096 - 4))
		r = -ENOENT;	/* not where a thread pointer's struct could hold it */
	if (r == 0)
		*off = (uint32_t)o;
	return r;
}
