/* probes/nearest.c: ranking of names by closeness to a mistyped one
 * (bounded Levenshtein distance, then prefix and substring matches).
 * Pure: allocates only its scratch rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/nearest.h"

/*
 * Levenshtein distance between A and B, or MAX + 1 once it must exceed MAX
 * (every entry of a row is above MAX: later rows cannot come back down).
 * ROW has room for BLEN + 1 entries.
 */
static size_t edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t max,
			    size_t *row)
{
	size_t i, j;

	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		size_t diag = row[0], row_min;

		row[0] = i;
		row_min = row[0];
		for (j = 1; j <= blen; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
			if (best < row_min)
				row_min = best;
		}
		if (row_min > max)
			return max + 1;
	}
	return row[blen];
}

static int hit_cmp(const struct nearest_hit *a, const struct nearest_hit *b)
{
	if (a->tier != b->tier)
		return a->tier - b->tier;
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(a->name, b->name);
}

int nearest__init(struct nearest *nr, const char *query, size_t qlen, int max)
{
	memset(nr, 0, sizeof(*nr));
	if (max <= 0)
		return 0;
	nr->qlen = qlen;
	nr->maxd = qlen / 3 > 2 ? qlen / 3 : 2;
	nr->max = max;
	nr->best = malloc(max * sizeof(*nr->best));
	nr->row = malloc((qlen + NEAREST_LEN_SLACK + 1) * sizeof(*nr->row));
	nr->query = strndup(query, qlen);
	if (!nr->best || !nr->row || !nr->query) {
		nearest__exit(nr);
		return -ENOMEM;
	}
	return 0;
}

void nearest__add(struct nearest *nr, const char *name)
{
	struct nearest_hit hit = { .name = name };
	size_t len, qlen = nr->qlen;
	int k;

	if (nr->max <= 0)
		return;
	len = strlen(name);
	if (len >= qlen && strstr(name, nr->query)) {
		/* Insertions only: the distance is the length difference. */
		hit.dist = len - qlen;
		hit.tier = hit.dist <= nr->maxd ? 0 : strncmp(name, nr->query, qlen) ? 2 : 1;
	} else {
		if (len + NEAREST_LEN_SLACK < qlen || len > qlen + NEAREST_LEN_SLACK)
			return;
		hit.dist = edit_distance(name, len, nr->query, qlen, nr->maxd, nr->row);
		if (hit.dist > nr->maxd)
			return;
	}
	if (nr->n == nr->max && hit_cmp(&hit, &nr->best[nr->n - 1]) >= 0)
		return;
	for (k = 0; k < nr->n; k++)
		if (!strcmp(nr->best[k].name, name))
			return;
	/* Insertion into the sorted top MAX. */
	k = nr->n < nr->max ? nr->n++ : nr->n - 1;
	while (k > 0 && hit_cmp(&hit, &nr->best[k - 1]) < 0) {
		nr->best[k] = nr->best[k - 1];
		k--;
	}
	nr->best[k] = hit;
}

int nearest__names(const struct nearest *nr, const char **out)
{
	int k;

	for (k = 0; k < nr->n; k++)
		out[k] = nr->best[k].name;
	return nr->n;
}

void nearest__exit(struct nearest *nr)
{
	if (!nr)
		return;
	free(nr->query);
	free(nr->row);
	free(nr->best);
	memset(nr, 0, sizeof(*nr));
}

int nearest_names(const char *query, const char *const *names, size_t n, const char **out,
		  int max)
{
	struct nearest nr;
	size_t i;
	int ret = nearest__init(&nr, query, strlen(query), max);

	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		nearest__add(&nr, names[i]);
	ret = nearest__names(&nr, out);
	nearest__exit(&nr);
	return ret;
}
