/* samples/scen/vfork_hold.c: a process whose only thread spends its time in
 * vfork(2): the child sleeps MS milliseconds, then _exits; the parent waits
 * for it in the kernel, where a ptrace interrupt does not stop it (issue
 * 17.3: an attach to several pids then takes that long over this one, and a
 * pid after it in the list can exit meanwhile).
 *
 *   vfork_hold MS N   N vforks (calling hold_once() before each), prints
 *                     READY first, then "VFORKS n", BYTES-OK and
 *                     EXIT-SUCCESS; exit 0
 *   vfork_hold MS N kill   the first child kills its parent (SIGKILL) after
 *                     the MS: the process ends while a tracer attaches */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "samples/selfcheck.h"

/* more than a ret within its first 5 bytes: a probe on it can be a jump, recorded in the process */
__attribute__((noinline)) long hold_once(long i)
{
	__asm__ volatile("" ::: "memory");
	return i * 3 + 1;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500, n = argc > 2 ? atol(argv[2]) : 4;
	int kill_parent = argc > 3 && !strcmp(argv[3], "kill");
	static volatile long done;	/* static: vfork's child shares the frame */

	if (argc > 4 || (argc > 3 && !kill_parent) || ms <= 0 || ms >= 1000000 || n <= 0) {
		fprintf(stderr, "usage: vfork_hold [MS [N [kill]]]  (500 4)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	selfcheck_allow_tracers();
	SELFCHECK_SAVE(hold_once);
	printf("READY\n");
	for (volatile long i = 0; i < n; i++) {
		int st;
		pid_t pid;

		hold_once(i);
		pid = vfork();
		if (pid == 0) {
			/* only async-signal-safe calls in a vfork child: nanosleep, _exit */
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

			nanosleep(&ts, NULL);
			if (kill_parent)
				kill(getppid(), SIGKILL);
			_exit(0);
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
			done++;
	}
	printf("VFORKS %ld\n", done);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return 0;
}
