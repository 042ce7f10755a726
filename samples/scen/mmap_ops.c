/* samples/scen/mmap_ops.c: one map change of each kind, for `--events mmap`.
 * usage: mmap_ops FILE
 * Maps anonymous memory, moves and grows it (mremap onto a reserved range),
 * makes a page of it read-only (mprotect), unmaps a page in its middle and
 * then the rest; creates FILE (2 pages), maps it shared, unlinks it and maps
 * it again (the kernel then names it "FILE (deleted)"); maps its own
 * executable, an ELF file with a build-id, read-only at offset 0.  Calls
 * step(I), I = 1, 2 ..., before each change.  States on fd 3, if open, each
 * call and its result, one line each (addresses 0x..., lengths in bytes):
 *   mmap ADDR LEN PGOFF PROT FLAGS FILE   (FILE "-" when anonymous)
 *   munmap ADDR LEN
 *   mprotect ADDR LEN PROT
 *   mremap OLD_ADDR OLD_LEN ADDR LEN
 * PROT as "rw-", FLAGS as "MAP_PRIVATE|MAP_ANONYMOUS".  Says "mmap_ops: done"
 * and exits 0, or 1 when a call failed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *out;
static int steps;

/* The probe point: nothing but a mark between two changes. */
__attribute__((noinline)) int step(int i)
{
	asm volatile("" ::: "memory");
	return i;
}

static const char *prot_str(int prot)
{
	static char s[4];

	s[0] = prot & PROT_READ ? 'r' : '-';
	s[1] = prot & PROT_WRITE ? 'w' : '-';
	s[2] = prot & PROT_EXEC ? 'x' : '-';
	return s;
}

static void *map(size_t len, int prot, int flags, const char *fl, int fd, const char *file)
{
	void *p;

	step(++steps);
	p = mmap(NULL, len, prot, flags, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap_ops: mmap");
		exit(1);
	}
	if (out)
		fprintf(out, "mmap %p %zu 0 %s %s %s\n", p, len, prot_str(prot), fl, file);
	return p;
}

static void unmap(void *p, size_t len)
{
	step(++steps);
	if (munmap(p, len)) {
		perror("mmap_ops: munmap");
		exit(1);
	}
	if (out)
		fprintf(out, "munmap %p %zu\n", p, len);
}

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char self[PATH_MAX], deleted[PATH_MAX + 16];
	ssize_t n;
	char *a, *q, *f1, *f2, *x;
	int fd;

	if (argc < 2)
		return 2;
	out = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;

	a = map(3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		"MAP_PRIVATE|MAP_ANONYMOUS", -1, "-");
	/* a range to move onto, so that the mremap surely moves */
	q = map(5 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		"MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE", -1, "-");
	step(++steps);
	if (mremap(a, 3 * pg, 5 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, q) != q) {
		perror("mmap_ops: mremap");
		return 1;
	}
	if (out)
		fprintf(out, "mremap %p %zu %p %zu\n", (void *)a, 3 * pg, (void *)q, 5 * pg);
	step(++steps);
	if (mprotect(q + pg, pg, PROT_READ)) {
		perror("mmap_ops: mprotect");
		return 1;
	}
	if (out)
		fprintf(out, "mprotect %p %zu r--\n", (void *)(q + pg), pg);
	unmap(q + 2 * pg, pg);
	unmap(q, 2 * pg);
	unmap(q + 3 * pg, 2 * pg);

	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)(2 * pg))) {
		perror(argv[1]);
		return 1;
	}
	f1 = map(2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, "MAP_SHARED", fd, argv[1]);
	unlink(argv[1]);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", argv[1]);
	f2 = map(pg, PROT_READ, MAP_SHARED, "MAP_SHARED", fd, deleted);
	close(fd);

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (n <= 0 || fd < 0) {
		perror("mmap_ops: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	x = map(pg, PROT_READ, MAP_PRIVATE, "MAP_PRIVATE", fd, self);
	close(fd);
	unmap(x, pg);
	unmap(f2, pg);
	unmap(f1, 2 * pg);
	step(++steps);
	if (out)
		fclose(out);
	printf("mmap_ops: done\n");
	return 0;
}
