/* tests/bench/peakrss.c: the peak resident set of a command.
 * usage: peakrss CMD [ARG...]
 * Runs CMD and prints to stderr "peakrss: KB" from its wait4() rusage:
 * the larger of CMD's own peak and that of the children it waited for
 * (the kernel folds those in), so for `ptap record -- TARGET` it is ptap's
 * peak unless the target grew larger.  Exits with CMD's status. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int st;

	if (argc < 2)
		return 2;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 2;
	if (pid == 0) {
		execvp(argv[1], &argv[1]);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return perror("wait4"), 2;
	fprintf(stderr, "peakrss: %ld\n", ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
