/* tracer/host/libpath.c: bare library names for -x, found where a process has
 * them mapped or where the dynamic loader looks (ld.so(8), "search order"):
 * LD_LIBRARY_PATH, then the directories ldconfig(8) reads from
 * /etc/ld.so.conf, then the default ones.  Read only: no cache file is parsed
 * (its format is the loader's own), no library is loaded. */
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer/host/libpath.h"

static int set_out(char *out, size_t len, const char *dir, const char *name)
{
	int n = dir ? snprintf(out, len, "%s/%s", dir, name) : snprintf(out, len, "%s", name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Is a regular, readable file at DIR/NAME?  Then it goes to OUT. */
static bool try_dir(const char *dir, size_t dirlen, const char *name, char *out, size_t len)
{
	char d[4096];

	if (!dirlen || dirlen >= sizeof(d))
		return false;
	memcpy(d, dir, dirlen);
	d[dirlen] = '\0';
	return set_out(out, len, d, name) == 0 && access(out, R_OK) == 0;
}

/* A file mapped by PID whose last path component is NAME. */
static bool try_maps(pid_t pid, const char *name, char *out, size_t len)
{
	char path[40], line[4352];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/'), *base, *nl;

		if (!file)
			continue;
		nl = strchr(file, '\n');
		if (nl)
			*nl = '\0';
		base = strrchr(file, '/') + 1;
		found = !strcmp(base, name) && set_out(out, len, NULL, file) == 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* The directories listed in ld.so.conf-style file CONF (with its includes, to DEPTH). */
static bool try_conf(const char *conf, const char *name, char *out, size_t len, int depth)
{
	char line[4096];
	bool found = false;
	FILE *f = depth < 4 ? fopen(conf, "re") : NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end = p + strcspn(p, "#\n");

		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
			glob_t g;

			p += 8 + strspn(p + 8, " \t");
			if (glob(p, 0, NULL, &g) == 0)
				for (size_t i = 0; i < g.gl_pathc && !found; i++)
					found = try_conf(g.gl_pathv[i], name, out, len, depth + 1);
			globfree(&g);
		} else if (*p == '/') {
			found = try_dir(p, strlen(p), name, out, len);
		}
	}
	if (f)
		fclose(f);
	return found;
}

int libpath_find(const char *name, const pid_t *pids, int npids, char *out, size_t len)
{
	static const char *const defaults[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64" };
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (strchr(name, '/') || access(name, F_OK) == 0)
		return set_out(out, len, NULL, name);
	for (int i = 0; i < npids; i++)
		if (try_maps(pids[i], name, out, len))
			return 0;
	while (llp && *llp) {
		size_t n = strcspn(llp, ":;");

		if (try_dir(llp, n, name, out, len))
			return 0;
		llp += n + (llp[n] != '\0');
	}
	if (try_conf("/etc/ld.so.conf", name, out, len, 0))
		return 0;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (try_dir(defaults[i], strlen(defaults[i]), name, out, len))
			return 0;
	return -ENOENT;
}

const char *libpath_or(const char *name, char *buf, size_t len)
{
	return libpath_find(name, NULL, 0, buf, len) == 0 ? buf : name;
}
