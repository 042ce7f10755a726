/* samples/selfcheck.h: what every scenario target (samples/scen/) does to
 * prove a tracer left it as it was: it keeps the
 * first bytes of each probed function (read from its file, else copied from
 * memory before tracing starts) and compares them at the end, printing
 * BYTES-OK or BYTES-CORRUPT; it can wait for a tracer to come and go
 * (TracerPid in /proc/self/status); and it lets any process of its user
 * attach (Yama ptrace_scope 1).  Header-only. */
#ifndef PTAP_SAMPLES_SELFCHECK_H
#define PTAP_SAMPLES_SELFCHECK_H

#include <stdint.h>
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

/*
 * Read the SELFCHECK_BYTES bytes at FN from the file mapped there (found in
 * /proc/self/maps) into BUF.  Returns 1 when read, 0 when FN is not in a
 * file mapping (anonymous or memfd code) or the file cannot be read.
 */
static inline int selfcheck_file_bytes(const void *fn, unsigned char *buf)
{
	unsigned long start, end, off, addr = (unsigned long)fn;
	char line[4352], path[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &off, path) < 3 ||
		    addr < start || addr >= end)
			continue;
		if (path[0] == '/') {
			FILE *bin = fopen(path, "r");

			found = bin && !fseek(bin, (long)(addr - start + off), SEEK_SET) &&
				fread(buf, 1, SELFCHECK_BYTES, bin) == SELFCHECK_BYTES;
			if (bin)
				fclose(bin);
		}
		break;
	}
	fclose(f);
	return found;
}

/*
 * Remember FN's first bytes.  They come from the file FN is mapped from when
 * there is one: in launch mode a tracer has planted its breakpoints at exec,
 * before main() runs, so memory would already hold them.  Code that no file
 * backs is copied from memory (call this before any tracer is there).
 */
static inline void selfcheck_save(const char *name, const void *fn)
{
	int i = selfcheck_state.n;

	if (i == SELFCHECK_MAX)
		return;
	selfcheck_state.fn[i] = fn;
	selfcheck_state.name[i] = name;
	if (!selfcheck_file_bytes(fn, selfcheck_state.bytes[i]))
		memcpy(selfcheck_state.bytes[i], fn, SELFCHECK_BYTES);
	selfcheck_state.n++;
}
#define SELFCHECK_SAVE(fn)	selfcheck_save(#fn, (const void *)(fn))

static inline int selfcheck_tracer(void);

/*
 * Where the "jmp rel32" (e9) at AT goes, or NULL when AT holds none: a
 * tracer's jump site (ptap's, launched: the first instructions of a probed
 * function jump to a trampoline, and the bytes left over are int3s).
 */
static inline const volatile unsigned char *selfcheck_jump_target(const unsigned char *at)
{
	int32_t rel;

	if (at[0] != 0xe9)
		return NULL;
	memcpy(&rel, at + 1, 4);
	return (const volatile unsigned char *)(at + 5 + rel);
}

/*
 * Is AT a jump site: a jump to a trampoline that starts with an int3, or
 * with a nop once tracing ended, or -- a probe recorded in the process --
 * with a short jump (eb) over its relocated instructions to the call of
 * ptap's agent (0 once tracing ended)?  (The jump's last 4 bytes may lie
 * past those compared: the code goes on there.)
 */
static inline int selfcheck_is_jump(const unsigned char *at)
{
	const volatile unsigned char *to = selfcheck_jump_target(at);

	return to && (*to == 0xcc || *to == 0x90 || *to == 0xeb);
}

/*
 * Do the saved bytes of function I match it now?  While a tracer is
 * attached, a byte that reads 0xcc (an int3: its breakpoint) stands for the
 * original, and so does a jump to a trampoline (selfcheck_is_jump()) with
 * its 4 bytes; every other difference is corruption.  Untraced, all must
 * match.
 */
static inline int selfcheck_intact(int i, int traced)
{
	const unsigned char *now = selfcheck_state.fn[i];

	for (int j = 0; j < SELFCHECK_BYTES; j++) {
		if (now[j] == selfcheck_state.bytes[i][j] || (traced && now[j] == 0xcc))
			continue;
		if (traced && selfcheck_is_jump(now + j)) {
			j += 4;
			continue;
		}
		return 0;
	}
	return 1;
}

/* Compare every saved function with its bytes now (see selfcheck_intact()):
 * prints BYTES-OK or BYTES-CORRUPT (with the function's name); 1 when intact. */
static inline int selfcheck_verify(void)
{
	int ok = 1, traced = selfcheck_tracer() > 0;

	for (int i = 0; i < selfcheck_state.n; i++)
		if (!selfcheck_intact(i, traced)) {
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

/*
 * Poll (every ms, up to TIMEOUT_S seconds) until saved function I holds a
 * breakpoint its file does not (an 0xcc in its first bytes, or a jump
 * site): a tracer that
 * has just attached plants its probes only after that.  1, or 0 on timeout.
 */
static inline int selfcheck_wait_planted(int i, int timeout_s)
{
	struct timespec ms = { 0, 1000000 };
	const volatile unsigned char *now = selfcheck_state.fn[i];

	for (long k = 0; k < timeout_s * 1000L; k++) {
		for (int j = 0; j < SELFCHECK_BYTES; j++)
			if ((now[j] == 0xcc && selfcheck_state.bytes[i][j] != 0xcc) ||
			    (now[j] == 0xe9 && selfcheck_state.bytes[i][j] != 0xe9 &&
			     selfcheck_is_jump((const unsigned char *)now + j)))
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
