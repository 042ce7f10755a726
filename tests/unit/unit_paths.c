/* tests/unit/unit_paths.c: unit_path() (unit_paths.h). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/unit_paths.h"

const char *unit_path(const char *rel)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) / 2);

	cr_assert(gt(long, n, 0));
	path[n] = '\0';
	snprintf(strrchr(path, '/'), sizeof(path) - n, "/%s", rel);
	cr_assert(eq(int, access(path, R_OK), 0), "%s is missing: run `make unit`", path);
	return path;
}
