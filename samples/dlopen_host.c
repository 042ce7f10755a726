/* samples/dlopen_host.c: loads LIB (argv[1]) with dlopen, calls its
 * plugin_handle() ROUNDS times (argv[2]), unloads it, and does that twice:
 * a probe in LIB is pending until it is mapped, is planted again when it is
 * mapped again, and must not trip over the unmapped copy in between.
 * When fd 3 is open it states each call as ptap prints it with
 *   -e 'plugin_handle %di:string %si:s32'
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

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
