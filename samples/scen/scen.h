/* samples/scen/scen.h: what several scenario targets share: the probed
 * function (it reads both arguments into a per-thread sum, so a tracer that
 * changed one shows; SCEN_OWN_PROBE_ME for a program with its own) and a
 * strict parser for counts in argv.  Header-only; include once per program. */
#ifndef PTAP_SAMPLES_SCEN_H
#define PTAP_SAMPLES_SCEN_H

#include <errno.h>
#include <stdlib.h>

#ifndef SCEN_OWN_PROBE_ME
/* What this thread's calls of probe_me added up to: probe_me's own view. */
static __thread long probe_sum;

__attribute__((noinline, noclone)) void probe_me(long a, const char *s)
{
	probe_sum += a + s[1];
	asm volatile("" : : "r"(a), "r"(s) : "memory");
}
#endif

/* S as a count from 1 to MAX into *OUT: 0, or -1 when it is not one. */
static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *out < 1 || *out > max ? -1 : 0;
}

#endif
