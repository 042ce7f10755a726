/* tracer/host/vdso.c: clock_gettime in a process's vDSO. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/elfimage.h"
#include "tracer/host/vdso.h"

#define VDSO_MAX	(64u << 10)

/* The [vdso] mapping of PID: [*LO, *HI).  0 or -ENOENT. */
static int vdso_range(pid_t pid, uint64_t *lo, uint64_t *hi)
{
	char path[64], line[512];
	FILE *f;
	int r = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (r < 0 && fgets(line, sizeof(line), f))
		if (strstr(line, " [vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, lo, hi) == 2)
			r = 0;
	fclose(f);
	return r;
}

int vdso_gettime(pid_t pid, uint64_t *addr)
{
	uint64_t lo, hi, off;
	char path[64];
	void *img;
	ssize_t n;
	int fd, r = vdso_range(pid, &lo, &hi);

	if (r < 0)
		return r;
	if (hi <= lo || hi - lo > VDSO_MAX)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	img = malloc(hi - lo);
	n = img ? pread(fd, img, hi - lo, (off_t)lo) : -1;
	r = !img ? -ENOMEM : n != (ssize_t)(hi - lo) ? -EIO : 0;
	close(fd);
	/* the kernel names it __vdso_clock_gettime; clock_gettime is its alias */
	if (r == 0 && elfimage__dynsym(img, hi - lo, "__vdso_clock_gettime", &off) < 0 &&
	    elfimage__dynsym(img, hi - lo, "clock_gettime", &off) < 0)
		r = -ENOENT;
	free(img);
	if (r == 0)
		*addr = lo + off;
	return r;
}
