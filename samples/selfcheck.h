/* samples/selfcheck.h: what every scenario target (samples/scen/) does to
 * prove a tracer left it as it was (RELIABILITY.md section 3): it copies the
 * first bytes of each probed function before tracing starts and compares
 * them at the end, printing BYTES-OK or BYTES-CORRUPT; it can wait for a
 * tracer to come and go (TracerPid in /proc/self/status); and it lets any
 * process of its user attach (Yama ptrace_scope 1).  Header-only. */
#ifndef PTAP_SAMPLES_SELFCHECK_H
#define PTAP_SAMPLES_SELFCHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SELFCHECK_BYTES	16
#define SELFCHECK_MAX	32

static struct {
	const void *fn[SELFCHECK_MAX];
	const char *name[SELFCHECK_MAX];
	unsigned char bytes[SELFCHECK_MAX][SELFCHECK_BYTES];
	int n;
} selfcheck_state;

/* Remember FN's first bytes (call before any tracer is there). */
static inline void selfcheck_save(const char *name, const void *fn)
{
	int i = selfcheck_state.n;

	if (i == SELFCHECK_MAX)
		return;
	selfcheck_state.fn[i] = fn;
	selfcheck_state.name[i] = name;
	memcpy(selfcheck_state.bytes[i], fn, SELFCHECK_BYTES);
	selfcheck_state.n++;
}
#define SELFCHECK_SAVE(fn)	selfcheck_save(#fn, (const void *)(fn))

/* Compare every saved function with its bytes now: prints BYTES-OK or
 * BYTES-CORRUPT (with the function's name); returns 1 when intact. */
static inline int selfcheck_verify(void)
{
	int ok = 1;

	for (int i = 0; i < selfcheck_state.n; i++)
		if (memcmp(selfcheck_state.fn[i], selfcheck_state.bytes[i], SELFCHECK_BYTES)) {
			printf("BYTES-CORRUPT %s\n", selfcheck_state.name[i]);
			ok = 0;
		}
	if (ok)
		printf("BYTES-OK\n");
	fflush(stdout);
	return ok;
}

/* The pid tracing this process, 0 when none (TracerPid in /proc/self/status). */
static inline int selfcheck_tracer(void)
{
	char line[256];
	int pid = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10)) {
			pid = atoi(line + 10);
			break;
		}
	fclose(f);
	return pid;
}

/* Poll (every ms, up to TIMEOUT_S seconds) until traced (WANT 1) or not (WANT 0).
 * Returns 1 when it happened, 0 on timeout. */
static inline int selfcheck_wait_tracer(int want, int timeout_s)
{
	struct timespec ms = { 0, 1000000 };

	for (long i = 0; i < timeout_s * 1000L; i++) {
		if ((selfcheck_tracer() > 0) == want)
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* Let any process of this user attach, whatever Yama's ptrace_scope (1). */
static inline void selfcheck_allow_tracers(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

#endif
