/* samples/scen/jump_sites.c: jump sites (tracer/space/aspace.h).  Prints the first
 * byte of each function as it is in memory at main() ("FIRST jump_plain e9":
 * launched, ptap planted before main), then calls jump_plain(i),
 * jump_riprel(i), jump_looped(i, 3), jump_entered(i) and jump_enterer(i) (which
 * jumps into jump_entered) for i = 1 .. N, in this process and in
 * a fork child (jump_plain(1000 + i) there; it says first whether its code
 * is the file's: "CHILD-CODE file" or "patched"), and checks every result.
 * "wait": then polls (up to 10 s) until jump_plain's trampoline no longer
 * traps or calls the agent (disarmed(): a tracer that ended while the
 * process ran), prints
 * DISARMED and calls them all once more.  Ends with BYTES-OK or BYTES-CORRUPT (samples/selfcheck.h) and
 * "CALLS-OK" or "CALLS-BAD"; exit 0 when all is well. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../selfcheck.h"

long jump_plain(long x);
long jump_riprel(long x);
long jump_looped(long x, long n);
long jump_entered(long x);
long jump_enterer(long x);
extern long jump_total;

static int bad;

static void check(const char *what, long i, long got, long want)
{
	if (got != want) {
		printf("BAD %s(%ld) = %ld, want %ld\n", what, i, got, want);
		bad = 1;
	}
}

static void calls(long n, long base)
{
	long total = jump_total;

	for (long i = 1; i <= n; i++) {
		check("jump_plain", base + i, jump_plain(base + i), base + i + 1);
		total += i;
		check("jump_riprel", i, jump_riprel(i), total);
		check("jump_looped", i, jump_looped(i, 3), i + 3);
		check("jump_entered", i, jump_entered(i), i + 1);
		check("jump_enterer", i, jump_enterer(i), i + 1);
	}
}

/*
 * jump_plain jumps to a trampoline that starts with a nop, or (recorded in
 * the process) whose short jump to the agent's call now jumps 0 bytes.
 */
static int disarmed(void)
{
	const volatile unsigned char *to =
		selfcheck_jump_target((const unsigned char *)jump_plain);

	return to && (*to == 0x90 || (to[0] == 0xeb && to[1] == 0));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	int wait_restored = argc > 2 && !strcmp(argv[2], "wait");
	int st;
	pid_t pid;

	SELFCHECK_SAVE(jump_plain);
	SELFCHECK_SAVE(jump_riprel);
	SELFCHECK_SAVE(jump_looped);
	for (int i = 0; i < selfcheck_state.n; i++)
		printf("FIRST %s %02x\n", selfcheck_state.name[i],
		       *(const unsigned char *)selfcheck_state.fn[i]);
	fflush(stdout);
	calls(n, 0);
	pid = fork();
	if (pid == 0) {
		int same = 1;

		for (int i = 0; i < selfcheck_state.n; i++)
			same &= selfcheck_intact(i, 0);
		printf("CHILD-CODE %s\n", same ? "file" : "patched");
		fflush(stdout);
		calls(n, 1000);
		_exit(bad);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1, printf("BAD child\n");
	if (wait_restored) {
		struct timespec ms = { 0, 1000000 };

		for (int k = 0; k < 10000 && !disarmed(); k++)
			nanosleep(&ms, NULL);
		printf(disarmed() ? "DISARMED\n" : "NOT-DISARMED\n");
		calls(1, 0);
	}
	selfcheck_verify();
	printf(bad ? "CALLS-BAD\n" : "CALLS-OK\n");
	return bad || !selfcheck_verify();
}
