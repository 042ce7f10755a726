/* tests/fuzz/fuzz_util.c: the helpers of fuzz.h. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probes/log.h"
#include "tests/fuzz/fuzz.h"

int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("ptap-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void quiet_sink(enum log_level lvl, const char *fmt, va_list ap)
{
	(void)lvl;
	(void)fmt;
	(void)ap;
}

void fuzz_quiet(void)
{
	log_set_sink(quiet_sink);
	log_set_level(LOG_ERR);
}
