/* tracer/host/fdlimit.c: RLIMIT_NOFILE for the run (fdlimit.h).  Raised as
 * a shell's `ulimit -n $(ulimit -Hn)` would; the launched command gets the
 * soft limit back, so that one that uses select(2), which cannot watch a
 * file numbered past 1023, sees no larger numbers than untraced. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>

#include "tracer/host/fdlimit.h"

static struct rlimit before;
static bool raised;

void fdlimit_raise(void)
{
	struct rlimit now;
	unsigned long nr_open = 0;
	FILE *f;

	if (raised || getrlimit(RLIMIT_NOFILE, &now) < 0 || now.rlim_cur >= now.rlim_max)
		return;
	before = now;
	now.rlim_cur = now.rlim_max;
	f = fopen("/proc/sys/fs/nr_open", "re");
	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (!nr_open)
		nr_open = 1u << 20;	/* the kernel's default fs.nr_open */
	if (now.rlim_cur > nr_open)
		now.rlim_cur = nr_open;	/* the kernel refuses more (an unlimited hard limit) */
	if (now.rlim_cur > before.rlim_cur && setrlimit(RLIMIT_NOFILE, &now) == 0)
		raised = true;
}

void fdlimit_restore(void)
{
	if (raised)
		setrlimit(RLIMIT_NOFILE, &before);
}

const char *fdlimit_hint(int err, char *buf, size_t len)
{
	struct rlimit now = { 0, 0 };

	if (!len)
		return buf;
	buf[0] = '\0';
	if (err != EMFILE || getrlimit(RLIMIT_NOFILE, &now) < 0)
		return buf;
	/* ptap raised its soft limit to the hard one: only the hard one can go higher */
	if (now.rlim_cur < now.rlim_max)
		snprintf(buf, len, "; ptap keeps a file open for each traced process: raise "
			 "`ulimit -n` (now %llu, hard limit %llu)", (unsigned long long)now.rlim_cur,
			 (unsigned long long)now.rlim_max);
	else
		snprintf(buf, len, "; ptap keeps a file open for each traced process, %llu at "
			 "most: the hard limit of open files (limits.conf's nofile, or root's "
			 "`ulimit -Hn`) lets more", (unsigned long long)now.rlim_cur);
	return buf;
}
