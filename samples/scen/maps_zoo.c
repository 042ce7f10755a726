/* samples/scen/maps_zoo.c: a process whose map table has the hard cases for
 * `ptap maps` (issue 8): data in a memfd, a data file it deleted, and one
 * library loaded three ways -- by its path, from a copy it then deleted, and
 * from a copy in a memfd through /proc/self/fd/N.
 * usage: maps_zoo LIBPLUGIN EXPECT   (EXPECT: else $MAPS_ZOO_EXPECT)
 * The deleted files are made next to EXPECT.  It writes to EXPECT what ptap
 * must show, one line each, with the name as the kernel shows it in
 * /proc/PID/maps:
 *   lib BIAS NAME         an ELF object: its load bias (link_map l_addr)
 *   data START END NAME   a data mapping, [START, END) ("-": anonymous)
 * for the executable, libc, the three libplugin copies, the memfd data
 * (MAP_SHARED, written), the deleted file (MAP_PRIVATE, read) and an
 * anonymous mapping with 3 of its 8 pages touched; then prints READY and
 * waits in pause() until a signal kills it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DATA_LEN (4 * 4096)
#define ANON_LEN (8 * 4096)
#define LIB_FD 900

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Copy the file FROM into the open file TO. */
static void copy_into(const char *from, int to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY);

	if (in < 0)
		die(from);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(to, buf, n) != n)
			die("write");
	if (n < 0)
		die(from);
	close(in);
}

/* dlopen PATH and state its load bias under NAME (the kernel's name). */
static void load(FILE *out, const char *path, const char *name)
{
	struct link_map *lm;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) {
		fprintf(stderr, "maps_zoo: %s: %s\n", path, dlerror());
		exit(1);
	}
	fprintf(out, "lib %#lx %s\n", (unsigned long)lm->l_addr, name);
}

/* Map LEN bytes of FD with FLAGS and state it under NAME; returns it. */
static char *map_data(FILE *out, int fd, int prot, int flags, const char *name)
{
	char *p = mmap(NULL, DATA_LEN, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	fprintf(out, "data %#lx %#lx %s\n", (unsigned long)p, (unsigned long)p + DATA_LEN, name);
	return p;
}

int main(int argc, char **argv)
{
	const char *expect = argc > 2 ? argv[2] : getenv("MAPS_ZOO_EXPECT");
	char dir[PATH_MAX], path[PATH_MAX + 32], name[PATH_MAX + 64], real[PATH_MAX];
	char fill[DATA_LEN];
	volatile char sum = 0;
	struct link_map *lm;
	Dl_info libc;
	char *p, *slash;
	FILE *out;
	int fd;

	if (argc < 2 || !expect) {
		fprintf(stderr, "usage: maps_zoo LIBPLUGIN EXPECT\n");
		return 2;
	}
	out = fopen(expect, "w");
	if (!out || !realpath(expect, dir))
		die(expect);
	slash = strrchr(dir, '/');
	*slash = '\0';

	/* The executable and libc, as the loader mapped them. */
	if (!realpath("/proc/self/exe", real) || dlinfo(dlopen(NULL, RTLD_NOW), RTLD_DI_LINKMAP, &lm))
		die("exe");
	fprintf(out, "lib %#lx %s\n", (unsigned long)lm->l_addr, real);
	if (!dladdr((void *)printf, &libc) || !realpath(libc.dli_fname, real))
		die("libc");
	load(out, libc.dli_fname, real);

	/* libplugin by its path. */
	if (!realpath(argv[1], real))
		die(argv[1]);
	load(out, argv[1], real);

	/* A copy of it, deleted once loaded. */
	snprintf(path, sizeof(path), "%s/libplugin-deleted.so", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		die(path);
	copy_into(argv[1], fd);
	close(fd);
	snprintf(name, sizeof(name), "%s (deleted)", path);
	load(out, path, name);
	if (unlink(path))
		die(path);

	/* A copy in a memfd, loaded through /proc/self/fd/N.  N is high: gdb
	 * (gcore) opens the loader's name for it in its own process, and
	 * blocks reading a pipe of its own when it has an fd N. */
	fd = memfd_create("zoo-lib", 0);
	if (fd < 0 || dup2(fd, LIB_FD) != LIB_FD)
		die("memfd_create");
	close(fd);
	fd = LIB_FD;
	copy_into(argv[1], fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	load(out, path, "/memfd:zoo-lib (deleted)");

	/* Data: a memfd mapped shared and written, a deleted file mapped private and read. */
	memset(fill, 'z', sizeof(fill));
	fd = memfd_create("zoo-data", 0);
	if (fd < 0 || ftruncate(fd, DATA_LEN))
		die("memfd zoo-data");
	p = map_data(out, fd, PROT_READ | PROT_WRITE, MAP_SHARED, "/memfd:zoo-data (deleted)");
	memcpy(p, fill, DATA_LEN);
	snprintf(path, sizeof(path), "%s/zoo.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, fill, DATA_LEN) != DATA_LEN)
		die(path);
	snprintf(name, sizeof(name), "%s (deleted)", path);
	p = map_data(out, fd, PROT_READ, MAP_PRIVATE, name);
	if (unlink(path))
		die(path);
	for (int i = 0; i < DATA_LEN; i += 4096)
		sum += p[i];

	/* Anonymous, 3 of its 8 pages touched, between PROT_NONE guards (so
	 * that it merges with no neighbour). */
	p = mmap(NULL, ANON_LEN + 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + 4096, ANON_LEN, PROT_READ | PROT_WRITE))
		die("mmap anon");
	p += 4096;
	for (int i = 0; i < 3; i++)
		p[i * 2 * 4096] = 1;
	fprintf(out, "data %#lx %#lx -\n", (unsigned long)p, (unsigned long)p + ANON_LEN);

	if (fclose(out))
		die(expect);
	printf("READY\n");
	fflush(stdout);
	for (;;)
		pause();
}
