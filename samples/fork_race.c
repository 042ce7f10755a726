/* samples/fork_race.c: fork while another thread maps and unmaps probed
 * code.  usage: fork_race LIB OFFSET N
 * A mapper thread keeps mmapping LIB executable and unmapping it; the main
 * thread forks N times, and each child calls the function at OFFSET in the
 * copy of the mapping it inherited (if one was mapped at that moment).  A
 * tracer must give each child the probe table of its own memory, not the
 * parent's at some later moment.  Exits 1 if any child died; states on fd 3
 * how many children called the function: "calls N". */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAP_LEN 16384

static _Atomic(char *) current;
static atomic_int stop;
static int fd;

static void *mapper(void *arg)
{
	while (!atomic_load(&stop)) {
		char *m = mmap(NULL, MAP_LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED)
			break;
		atomic_store(&current, m);
		for (volatile int i = 0; i < 20000; i++)
			;
		atomic_store(&current, NULL);
		munmap(m, MAP_LEN);
	}
	return arg;
}

/* In the child: call the inherited copy.  Exit 0 called, 2 nothing mapped, 1 wrong result. */
static void child(long off, int i)
{
	char *m = atomic_load(&current);
	int (*fn)(const char *, int);

	if (!m)
		_exit(2);
	fn = (int (*)(const char *, int))(m + off);
	_exit(fn("x", i) == 'x' + i ? 0 : 1);
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 0, calls = 0, died = 0;
	long off = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	pthread_t t;

	fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0 || off <= 0 || off >= MAP_LEN || n <= 0) {
		fprintf(stderr, "usage: fork_race LIB OFFSET N\n");
		return 2;
	}
	pthread_create(&t, NULL, mapper, NULL);
	for (int i = 0; i < n; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			child(off, i);
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			calls++;
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
			died++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	dprintf(3, "calls %d\n", calls);
	printf("fork_race: %d children called, %d died\n", calls, died);
	return died ? 1 : 0;
}
