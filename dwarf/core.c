/* dwarf/core.c: placeholder until the core reader lands (issue 8). */
#include <errno.h>

#include "dwarf/core.h"
#include "probes/err.h"

int core__open(const char *path, struct core **out, struct ptap_err *err)
{
	(void)out;
	return ptap_err_set(err, -1, -ENOSYS, "%s: reading core files is not built yet", path);
}

void core__close(struct core *c)
{
	(void)c;
}

const struct core_info *core__info(const struct core *c)
{
	(void)c;
	return 0;
}

size_t core__count(const struct core *c)
{
	(void)c;
	return 0;
}

const struct core_map *core__map(const struct core *c, size_t i)
{
	(void)c;
	(void)i;
	return 0;
}

size_t core__read(const struct core *c, uint64_t vaddr, void *buf, size_t len)
{
	(void)c;
	(void)vaddr;
	(void)buf;
	(void)len;
	return 0;
}

int core__read_str(const struct core *c, uint64_t vaddr, char *buf, size_t len)
{
	(void)c;
	(void)vaddr;
	(void)buf;
	(void)len;
	return -ENOENT;
}
