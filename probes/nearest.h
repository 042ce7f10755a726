/* probes/nearest.h: the names closest to a mistyped one, for "no function
 * 'exec_qurey'; nearest: exec_query" messages.  Pure: no I/O. */
#ifndef PTAP_PROBES_NEAREST_H
#define PTAP_PROBES_NEAREST_H

#include <stddef.h>

/*
 * The ranking, best first:
 *   0. a close edit: Levenshtein distance up to max(2, strlen(QUERY) / 3)
 *      (a name holding QUERY counts as insertions only: its extra length);
 *   1. a name starting with QUERY (a prefix too long for tier 0);
 *   2. a name holding QUERY elsewhere;
 * within a tier by distance (the extra length for 1 and 2), then by strcmp.
 * A name whose length differs from QUERY's by more than NEAREST_LEN_SLACK is
 * only considered when it holds QUERY.  A name is listed once.
 */
#define NEAREST_LEN_SLACK	3

struct nearest_hit {
	int tier;
	size_t dist;
	const char *name;
};

/* The state of one ranking: feed candidates one by one, then read the best. */
struct nearest {
	char *query;			/* QUERY's first QLEN bytes, NUL-terminated */
	size_t qlen, maxd;
	int max, n;
	struct nearest_hit *best;	/* N of MAX, best first */
	size_t *row;			/* the edit distance's DP row */
};

/*
 * Start ranking names against the first QLEN bytes of QUERY, keeping the
 * best MAX (MAX <= 0: none).  0, or -ENOMEM.  Free with nearest__exit().
 */
int nearest__init(struct nearest *nr, const char *query, size_t qlen, int max);
/* Consider NAME (borrowed: it must outlive NR's results). */
void nearest__add(struct nearest *nr, const char *name);
/* The kept names, best first, into OUT (room for the MAX given); returns their count. */
int nearest__names(const struct nearest *nr, const char **out);
void nearest__exit(struct nearest *nr);	/* NULL-safe; resets NR */

/*
 * Up to MAX of the N NAMES closest to QUERY, best first, into OUT (pointers
 * into NAMES).  Returns the count, or -ENOMEM.
 */
int nearest_names(const char *query, const char *const *names, size_t n, const char **out,
		  int max);

#endif
