/* tests/fuzz/fuzz_spec.c: the probe spec parser (probes/spec.h) on any text,
 * and its promise that parse(synthesize(spec)) gives the same probe: the
 * canonical text of a parsed spec parses, and synthesizes to itself. */
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/spec.h"
#include "tests/fuzz/fuzz.h"

#define MAXTEXT 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[MAXTEXT + 1], canon[2 * MAXTEXT], again[2 * MAXTEXT];
	struct ptap_err err = { .pos = -1 };
	struct probe_spec *spec = NULL, *spec2 = NULL;
	struct fetch_type t;
	char name[64];
	int n;

	if (size > MAXTEXT)
		size = MAXTEXT;
	memcpy(text, data, size);
	text[size] = '\0';

	/* The TYPE parser on the raw bytes (it takes a length, not a string). */
	if (fetch_type__parse((const char *)data, size, &t) == 0)
		fetch_type__name(&t, name, sizeof(name));

	if (probe_spec__parse(text, &spec, &err) < 0) {
		if (spec)
			abort();	/* on error *OUT is NULL */
		if (err.pos < -1 || err.pos > (int)size)
			abort();	/* the column points into the text */
		return 0;
	}
	for (int i = 0; i < spec->nargs; i++)
		probe_arg__name(&spec->args[i], i, name, sizeof(name));
	n = probe_spec__synthesize(spec, canon, sizeof(canon));
	if (n < 0 || (size_t)n >= sizeof(canon))
		abort();
	if (probe_spec__parse(canon, &spec2, &err) < 0)
		abort();	/* the canonical text must parse */
	probe_spec__synthesize(spec2, again, sizeof(again));
	if (strcmp(canon, again) != 0)
		abort();	/* and be a fixed point */
	probe_spec__free(spec2);
	probe_spec__free(spec);
	return 0;
}
