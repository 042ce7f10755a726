/* tracer/mapview.c: `ptap maps` tables -- a live process's (PROCMAP_QUERY or
 * /proc/PID/maps, files and memory for the ELF headers) or a core dump's --
 * and their text and JSON renderings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer/mapview.h"

int mapview__open_file(pid_t pid, uint64_t start, uint64_t end, const char *path, uint64_t dev,
		       uint64_t ino)
{
	char link[80];
	struct stat st;
	int fd;

	snprintf(link, sizeof(link), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (!path || path[0] != '/')
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((dev || ino) && (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
