/* samples/scen/shared_map.c: scenario 19, shared-mapping-refused: probed code
 * in a shared file mapping, which a breakpoint would write to the file.
 * usage: shared_map FILE [N]  (default 100)
 * FILE is a copy of this program.  It is mapped twice, MAP_SHARED: a
 * read-write view and a read-execute view.  shm_func is called N times in
 * the read-execute view (at the file offset it has in this program) and
 * every result is checked.  A tracer asked to probe shm_func in FILE must
 * refuse (an int3 there would reach the file and every process mapping it)
 * and record nothing.  As a control, FILE is also mapped read-execute
 * MAP_PRIVATE and shm_func called N times there with x = 1000 + i: those
 * calls are to be recorded.  The program then compares shm_func's bytes in the
 * read-write view with its own copy (never probed) and prints
 * SHARED-FILE-OK or SHARED-FILE-CHANGED.  Says on fd 3, if open,
 * "shared_calls N" and "private_calls N";
 * exits 0 when the results and the file are right, 1 if not. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../selfcheck.h"

/* The function called in the shared view: x * 7 + 3 (position independent). */
__attribute__((noinline)) long shm_func(long x)
{
	asm volatile("" ::: "memory");
	return x * 7 + 3;
}

/* The file offset of FN in this program's mapping, or -1. */
static long file_offset(const void *fn)
{
	unsigned long start, end, off, addr = (unsigned long)fn;
	char line[4352];
	long ret = -1;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 && addr >= start &&
		    addr < end) {
			ret = (long)(addr - start + off);
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 100, off = file_offset(shm_func), bad = 0;
	unsigned char *rw, *rx, *priv;
	long (*fn)(long), (*pfn)(long);
	struct stat sb;
	int fd, same;

	if (argc < 2) {
		fprintf(stderr, "usage: shared_map FILE [N]\n");
		return 2;
	}
	SELFCHECK_SAVE(shm_func);
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &sb) || off < 0 || off + SELFCHECK_BYTES > sb.st_size) {
		perror("shared_map: open");
		return 2;
	}
	rw = mmap(NULL, sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	rx = mmap(NULL, sb.st_size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	priv = mmap(NULL, sb.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (rw == MAP_FAILED || rx == MAP_FAILED || priv == MAP_FAILED) {
		perror("shared_map: mmap");
		return 2;
	}
	fn = (long (*)(long))(rx + off);
	pfn = (long (*)(long))(priv + off);
	for (long i = 0; i < n; i++)
		if (fn(i) != i * 7 + 3)
			bad++;
	for (long i = 1000; i < 1000 + n; i++)
		if (pfn(i) != i * 7 + 3)
			bad++;
	same = !memcmp(rw + off, (const void *)shm_func, SELFCHECK_BYTES);
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "shared_calls %ld\nprivate_calls %ld\n", n, n);
	printf("shared_map: %ld calls in the shared view, %ld in the private one, %ld wrong "
	       "results\n", n, n, bad);
	printf("%s\n", same ? "SHARED-FILE-OK" : "SHARED-FILE-CHANGED");
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return !bad && same ? 0 : 1;
}
