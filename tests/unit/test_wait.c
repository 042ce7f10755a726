/* tests/unit/test_wait.c: arch_wait4_cancellable(), the loop's wait that a
 * signal handler ends without ptap blocking its signals around it. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"

static volatile sig_atomic_t flag_a, flag_b, handled;
static const volatile sig_atomic_t *const flags[] = { &flag_a, &flag_b, NULL };

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	handled++;
	flag_a = 1;
	arch_wait4_cancel(uc);
}

static void on_alarm_only(int sig)
{
	(void)sig;
	handled++;
}

static pid_t child_exiting(int code, unsigned int after_ms)
{
	pid_t pid = fork();

	cr_assert(ge(int, pid, 0), "fork: %s", strerror(errno));
	if (pid == 0) {
		usleep(after_ms * 1000);
		_exit(code);
	}
	return pid;
}

static void alarm_in(unsigned int ms, struct sigaction *sa)
{
	struct itimerval it = { .it_value = { .tv_sec = 0, .tv_usec = ms * 1000 } };

	sigemptyset(&sa->sa_mask);
	sa->sa_flags |= SA_RESTART;
	cr_assert(eq(int, sigaction(SIGALRM, sa, NULL), 0));
	setitimer(ITIMER_REAL, &it, NULL);
}

static void reset(void)
{
	flag_a = flag_b = 0;
	handled = 0;
	signal(SIGALRM, SIG_DFL);
}

TestSuite(wait, .init = reset, .timeout = 20);

Test(wait, returns_the_pid_and_status)
{
	pid_t pid = child_exiting(42, 0);
	int st = 0;
	long r = arch_wait4_cancellable(pid, &st, 0, flags);

	cr_assert(eq(long, r, pid));
	cr_assert(eq(int, WIFEXITED(st), true), "status %#x", st);
	cr_assert(eq(int, WEXITSTATUS(st), 42));
}

/* A flag already set: no wait at all, the child is still there to reap. */
Test(wait, a_set_flag_returns_eintr_without_reaping)
{
	pid_t pid = child_exiting(7, 0);
	int st = -1;

	usleep(50 * 1000);
	flag_b = 1;
	cr_assert(eq(long, arch_wait4_cancellable(pid, &st, 0, flags), -EINTR));
	cr_assert(eq(int, st, -1));
	cr_assert(eq(int, waitpid(pid, &st, 0), pid));
	cr_assert(eq(int, WEXITSTATUS(st), 7));
}

/* A handler that cancels ends a wait that sleeps, though it runs with SA_RESTART. */
Test(wait, a_cancelling_handler_ends_the_wait)
{
	struct sigaction sa = { .sa_sigaction = on_alarm, .sa_flags = SA_SIGINFO };
	pid_t pid = child_exiting(3, 10000);
	int st = -1;

	alarm_in(100, &sa);
	cr_assert(eq(long, arch_wait4_cancellable(pid, &st, 0, flags), -EINTR));
	cr_assert(eq(int, handled, 1));
	cr_assert(eq(int, st, -1));
	kill(pid, SIGKILL);
	cr_assert(eq(int, waitpid(pid, &st, 0), pid));
	cr_assert(eq(int, WIFSIGNALED(st), true), "status %#x", st);
}

/* Any other handler (SA_RESTART) leaves the wait alone: it goes on to the child's exit. */
Test(wait, other_handlers_do_not_end_the_wait)
{
	struct sigaction sa = { .sa_handler = on_alarm_only };
	pid_t pid = child_exiting(5, 300);
	int st = -1;

	alarm_in(50, &sa);
	cr_assert(eq(long, arch_wait4_cancellable(pid, &st, 0, flags), pid));
	cr_assert(eq(int, handled, 1));
	cr_assert(eq(int, WEXITSTATUS(st), 5));
}

/* No such child: wait4's own error, as -errno. */
Test(wait, errors_are_negative_errno)
{
	int st;

	cr_assert(eq(long, arch_wait4_cancellable(1, &st, WNOHANG, flags), -ECHILD));
}
