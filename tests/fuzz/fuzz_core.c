/* tests/fuzz/fuzz_core.c: the core dump reader (dwarf/core.h) on a mutated
 * core: open it, walk its ranges, read from each and the exec'd file name;
 * then `ptap maps --core` (tracer/space/mapview.h) on it, both outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/core.h"
#include "probes/err.h"
#include "tests/fuzz/fuzz.h"
#include "tracer/space/mapview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct ptap_err err = { .pos = -1 };
	struct mapview *v = NULL;
	struct core *c = NULL;
	char path[64], buf[4096];
	int fd;

	if (!null) {
		fuzz_quiet();
		null = fopen("/dev/null", "w");
		if (!null)
			abort();
	}
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (core__open(path, &c, &err) == 0) {
		const struct core_info *ci = core__info(c);
		size_t n = core__count(c);

		for (size_t i = 0; i < n; i++) {
			const struct core_map *m = core__map(c, i);
			size_t got;

			if (m->start >= m->end)
				abort();	/* sorted, disjoint, non-empty */
			if (i && m->start < core__map(c, i - 1)->end)
				abort();
			got = core__read(c, m->start, buf, sizeof(buf));
			if (got > sizeof(buf) || got > m->held)
				abort();
			core__read(c, m->end - 1, buf, 2);
		}
		if (core__read_str(c, ci->at_execfn, buf, sizeof(buf)) == 0 &&
		    !memchr(buf, '\0', sizeof(buf)))
			abort();
		core__close(c);
	}
	if (mapview__core(path, &v, &err) == 0) {
		mapview__print_text(v, null);
		mapview__print_json(v, null);
		mapview__free(v);
	}
	close(fd);
	return 0;
}
