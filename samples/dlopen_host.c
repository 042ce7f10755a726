/* samples/dlopen_host.c: loads LIB (argv[1]) with dlopen, calls its
 * plugin_handle() ROUNDS times (argv[2]), unloads it, and does that twice:
 * a probe in LIB is pending until it is mapped, is planted again when it is
 * mapped again, and must not trip over the unmapped copy in between.
 * When fd 3 is open it states each call as ptap prints it with
 *   -e 'plugin_handle %di:string %si:s32'
 * When fd 4 is open it copies its /proc/self/maps there after each dlopen,
 * under a line "# load N" (N = 0, 1), for checking `--events mmap`.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* /proc/self/maps now, after "# load LOAD", to fd 4 (when open). */
static void copy_maps(int load)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (fcntl(4, F_GETFD) == -1)
		return;
	n = snprintf(buf, sizeof(buf), "# load %d\n", load);
	if (write(4, buf, (size_t)n) != n)
		return;
	fd = open("/proc/self/maps", O_RDONLY);
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		if (write(4, buf, (size_t)n) != n)
			break;
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	FILE *expect = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	int rounds = argc > 2 ? atoi(argv[2]) : 3;

	if (argc < 2)
		return 2;
	for (int load = 0; load < 2; load++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		int (*fn)(const char *, int) = h ? (int (*)(const char *, int))dlsym(h, "plugin_handle") : NULL;

		if (!fn) {
			fprintf(stderr, "dlopen_host: %s\n", dlerror());
			return 1;
		}
		copy_maps(load);
		for (int i = 0; i < rounds; i++) {
			char req[32];

			snprintf(req, sizeof(req), "load%d-call%d", load, i);
			if (expect)
				fprintf(expect, "plugin_handle: arg1=\"%s\" arg2=%d\n", req, i);
			fn(req, i);
		}
		dlclose(h);
	}
	if (expect)
		fclose(expect);
	printf("dlopen_host: done\n");
	return 0;
}
