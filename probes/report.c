/* probes/report.c: the statistics of `ptap report` -- counters of distinct
 * values in small open-addressing hash tables, durations kept exactly and
 * sorted at the end; or the syscalls made per context (--by-context) -- and
 * their text and JSON renderings.  Pure. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "probes/array.h"
#include "probes/escape.h"
#include "probes/json.h"
#include "probes/record.h"
#include "probes/report.h"

/*
 * The JSON document (report__write_json), keys in this order:
 *
 * {
 *   "records": N,                  every line of the file but its clock line
 *   "without_event": N,            records with no "event" (cut before it)
 *   "clocks": ["monotonic", ...],  the clocks of the clock lines, first seen
 *                                  first ([]: none, an older file)
 *   "first_ts": N | null,          the earliest and latest "ts" (null: none)
 *   "last_ts": N | null,
 *   "span_ns": N | null,           last_ts - first_ts
 *   "events": [                    in the order of their first record
 *     {
 *       "event": "NAME",
 *       "records": N,
 *       "rate_per_s": X | null,    records / span (null when the span is 0)
 *       "kinds": {"entry": N, ...},     in the order first seen
 *       "truncated": N,            records marked "truncated":true
 *       "args": [                  in the order first seen
 *         {
 *           "name": "NAME",
 *           "records": N,          records that have the argument
 *           "distinct": N,         distinct values (kept: report__set_bounded())
 *           "not_kept": N,         bounded, and values were not kept: their records
 *           "top": [ {"count": N, "value": VALUE}, ... ]
 *                                  REPORT_TOP at most, most frequent first;
 *                                  VALUE is the value itself, compact JSON
 *         }, ...
 *       ],
 *       "account": {               only with record --account's counters in args:
 *         "calls": N, "not_known": N,   summed; and those with a counter not read
 *         "sums": {"read_bytes": N, ...},
 *         "top": {"read_bytes": [{"value": N, "call": "NAME=VALUE ..."}, ...],
 *                 "write_bytes": [...], "cpu_ns": [...]}   REPORT_TOP_CALLS most
 *       },
 *       "stacks": {                only with record -g's "stack"s: each stack, its
 *         "distinct": N,           frames as FUNC+0xOFF, FUNC (inlined) or [unknown]
 *         "not_kept": N,           (bounded, as for values)
 *         "top": [ {"count": N, "frames": ["leaf+0x0", ...]}, ... ]
 *       },                         REPORT_TOP_STACKS at most, most frequent first
 *       "duration": null | {       the records with "duration_ns"
 *         "count": N, "min_ns": N, "max_ns": N, "mean_ns": X,
 *         "p50_ns": N, "p90_ns": N, "p99_ns": N,   (nearest rank)
 *         "hist": [ {"lo_ns": N, "hi_ns": N, "count": N}, ... ]
 *                                  log2 buckets [lo, hi): [0, 1), then
 *                                  [2^(k-1), 2^k), from the lowest to the
 *                                  highest non-empty one
 *       }
 *     }, ...
 *   ]
 * }
 *
 * With REPORT_BY_CONTEXT:
 *
 * {
 *   "records": N,                  every line of the file but its clock line
 *   "syscall_records": N,          those of kind "syscall" (with an "event")
 *   "truncated": N,                syscall records marked "truncated":true
 *   "clocks": ["monotonic", ...],
 *   "contexts": [                  in the order of their first record; the
 *     {                            records without a context last
 *       "context": {...} | null,   the record's "context" object, as it was
 *                                  written (null: the records without one)
 *       "syscalls": [              in the order first seen
 *         {"name": "pwrite64", "calls": N, "errors": N,
 *          "bytes": N | null,      null: a call that does not move bytes
 *          "time_ns": N | null},   null: no call with a duration
 *         ...
 *       ],
 *       "total": {"calls": N, "errors": N, "bytes": N | null, "time_ns": N | null}
 *     }, ...
 *   ]
 * }
 */

/* ---- counters: distinct byte strings, with counts, in order of arrival --- */

struct centry {
	char *key;		/* NUL-terminated copy (may hold NULs) */
	size_t len;
	uint64_t hash;
	uint64_t count;
};

struct counter {
	struct centry *ent;	/* in the order first seen */
	size_t n, cap;
	size_t *slots;		/* open addressing, linear probing: 0 empty, else index + 1 */
	size_t nslots;		/* a power of two, at least twice N */
	size_t max;		/* entries kept at most (0: no limit); then new keys are */
	uint64_t not_kept;	/* counted here, not kept */
};

/* FNV-1a, 64 bits. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void counter__exit(struct counter *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->ent[i].key);
	free(c->ent);
	free(c->slots);
	*c = (struct counter){ 0 };
}

/* Double the slot table (or make the first one) and re-place every entry. */
static int counter_rehash(struct counter *c)
{
	size_t nslots = c->nslots ? c->nslots * 2 : 16;
	size_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		size_t s = c->ent[i].hash & (nslots - 1);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = nslots;
	return 0;
}

/*
 * Count one KEY[0..LEN): its entry's count goes up by one (a new entry is
 * added at the end).  *IDX gets the entry's index.  0 or -ENOMEM.
 */
static int counter__add(struct counter *c, const char *key, size_t len, size_t *idx)
{
	uint64_t h = hash_bytes(key, len);
	struct centry *e;
	size_t s;

	if ((c->n + 1) * 2 > c->nslots && counter_rehash(c))
		return -ENOMEM;
	for (s = h & (c->nslots - 1); c->slots[s]; s = (s + 1) & (c->nslots - 1)) {
		e = &c->ent[c->slots[s] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) {
			e->count++;
			*idx = c->slots[s] - 1;
			return 0;
		}
	}
	if (c->max && c->n >= c->max) {
		c->not_kept++;
		*idx = (size_t)-1;
		return 0;
	}
	if (array_grow_zeroed((void **)&c->ent, &c->cap, sizeof(*c->ent), c->n + 1))
		return -ENOMEM;
	e = &c->ent[c->n];
	e->key = malloc(len + 1);
	if (!e->key)
		return -ENOMEM;
	memcpy(e->key, key, len);
	e->key[len] = '\0';
	e->len = len;
	e->hash = h;
	e->count = 1;
	c->slots[s] = c->n + 1;
	*idx = c->n++;
	return 0;
}

/* ---- the statistics ------------------------------------------------------ */

#define NBUCKETS	65	/* [0, 1), then [2^(k-1), 2^k) for k = 1..64 */

struct durations {
	uint64_t *v;			/* all of them; bounded: a uniform sample of at most */
	size_t n, cap;			/* REPORT_KEEP_DURATIONS (reservoir sampling) */
	uint64_t count, min, max;	/* exact, as SUM and HIST are */
	unsigned __int128 sum;
	uint64_t hist[NBUCKETS];
	uint64_t rng;			/* the sampling's xorshift state */
};

/* The --account counters of an event's records: their sums, and the calls that made most. */
#define ACCT_TOPS	3		/* read_bytes, write_bytes, cpu_ns: the calls by each */
static const int acct_tops[ACCT_TOPS] = { 0, 1, 3 };

struct acct_call {
	uint64_t v;
	char *call;			/* its other arguments, NAME=VALUE ... (compact JSON values) */
};

struct acct_stats {
	uint64_t sum[RECORD_ACCT_N];
	uint64_t records;
	uint64_t unknown;		/* calls whose counters could not all be read */
	struct acct_call top[ACCT_TOPS][REPORT_TOP_CALLS];	/* most first; call NULL: none */
};

struct event_stats {
	struct counter kinds;		/* "entry", "return", ... */
	struct counter args;		/* argument names; count: records that have it */
	struct counter *values;		/* per argument (the index in ARGS): its values */
	size_t capvalues;
	uint64_t truncated;
	struct durations dur;
	struct counter stacks;		/* record -g: each stack, its frames a line each */
	struct acct_stats *acct;	/* record --account's counters, NULL: none seen */
};

/* The calls of one syscall under one context (REPORT_BY_CONTEXT); how many: its name's count. */
struct sc_row {
	bool moves_bytes;		/* a call of byte_calls[] */
	uint64_t errors;
	uint64_t bytes;			/* the sum of the non-negative "ret"s, when MOVES_BYTES */
	uint64_t time_ns;		/* the sum of the "duration_ns"s */
	uint64_t timed;			/* the calls with a "duration_ns" */
};

/* The syscalls made under one context. */
struct ctx_group {
	char *label;			/* the text heading, escaped, values cut */
	size_t label_len;
	struct acct_stats *acct;	/* the --account counters of the calls that are the
					 * context, NULL: none (add_ctx_acct()) */
	struct counter calls;		/* syscall names, in the order first seen; count: calls */
	struct sc_row *rows;		/* per name (the index in CALLS) */
	size_t caprows;
};

struct report {
	enum report_mode mode;
	bool bounded;			/* report__set_bounded() */
	struct counter events;		/* event names; count: records */
	struct event_stats *ev;		/* per event (the index in EVENTS) */
	size_t capev;
	uint64_t records, without_event;
	bool has_ts;
	uint64_t ts_min, ts_max;
	struct counter clocks;		/* the clock lines' clocks; count: lines */
	/* REPORT_BY_CONTEXT */
	struct counter ctxs;		/* "context" objects (compact JSON); count: records */
	struct ctx_group *groups;	/* per context (the index in CTXS) */
	size_t capgroups;
	struct ctx_group nocontext;	/* the syscall records without a context */
	uint64_t syscalls, sc_truncated;
	uint64_t acct_calls;		/* return records with --account's counters */
	char *fmt;			/* json_format() scratch */
	size_t fmtcap;
};

int report__new(struct report **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void report__set_mode(struct report *rep, enum report_mode mode)
{
	rep->mode = mode;
}

void report__set_bounded(struct report *rep)
{
	rep->bounded = true;
}

static void ctx_group__exit(struct ctx_group *g)
{
	free(g->acct);
	free(g->label);
	counter__exit(&g->calls);
	free(g->rows);
}

void report__free(struct report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->ctxs.n; i++)
		ctx_group__exit(&rep->groups[i]);
	free(rep->groups);
	counter__exit(&rep->ctxs);
	ctx_group__exit(&rep->nocontext);
	counter__exit(&rep->clocks);
	for (size_t i = 0; i < rep->events.n; i++) {
		struct event_stats *ev = &rep->ev[i];

		for (size_t a = 0; a < ev->args.n; a++)
			counter__exit(&ev->values[a]);
		free(ev->values);
		counter__exit(&ev->args);
		counter__exit(&ev->kinds);
		counter__exit(&ev->stacks);
		for (int k = 0; ev->acct && k < ACCT_TOPS; k++)
			for (int j = 0; j < REPORT_TOP_CALLS; j++)
				free(ev->acct->top[k][j].call);
		free(ev->acct);
		free(ev->dur.v);
	}
	free(rep->ev);
	counter__exit(&rep->events);
	free(rep->fmt);
	free(rep);
}

uint64_t report__records(const struct report *rep)
{
	return rep->records;
}

/* A non-negative integer V into *U; false for anything else. */
static bool json_u64(const struct json_val *v, uint64_t *u)
{
	if (v && v->type == JSON_INT && v->i >= 0) {
		*u = (uint64_t)v->i;
		return true;
	}
	if (v && v->type == JSON_UINT) {
		*u = v->u;
		return true;
	}
	return false;
}

/* The log2 bucket of NS: 0 for 0, else k with 2^(k-1) <= NS < 2^k. */
static unsigned int bucket_of(uint64_t ns)
{
	return ns ? 64 - __builtin_clzll(ns) : 0;
}

/* Keep NS in D; BOUNDED: D->v stays a uniform sample of REPORT_KEEP_DURATIONS. */
static int durations__add(struct durations *d, uint64_t ns, bool bounded)
{
	d->min = !d->count || ns < d->min ? ns : d->min;
	d->max = !d->count || ns > d->max ? ns : d->max;
	d->count++;
	d->sum += ns;
	d->hist[bucket_of(ns)]++;
	if (bounded && d->n == REPORT_KEEP_DURATIONS) {
		uint64_t j;

		d->rng ^= d->rng << 13;
		d->rng ^= d->rng >> 7;
		d->rng ^= d->rng << 17;
		j = d->rng % d->count;	/* the new one replaces one kept with P = n / count */
		if (j < d->n)
			d->v[j] = ns;
		return 0;
	}
	if (array_grow_zeroed((void **)&d->v, &d->cap, sizeof(*d->v), d->n + 1))
		return -ENOMEM;
	d->v[d->n++] = ns;
	if (!d->rng)
		d->rng = 0x9e3779b97f4a7c15ULL;
	return 0;
}

/* V as compact JSON in rep->fmt; its length, or -ENOMEM. */
static long format_value(struct report *rep, const struct json_val *v)
{
	size_t n = json_format(v, rep->fmt, rep->fmtcap);

	if (n >= rep->fmtcap) {
		if (array_grow_zeroed((void **)&rep->fmt, &rep->fmtcap, 1, n + 1))
			return -ENOMEM;
		json_format(v, rep->fmt, rep->fmtcap);
	}
	return (long)n;
}

static uint64_t add_sat(uint64_t a, uint64_t b);

/* The --account counter NAME (KEY[0..LEN)) is, or -1. */
static int acct_index(const char *key, size_t len)
{
	for (int k = 0; k < RECORD_ACCT_N; k++)
		if (strlen(record_account_names[k]) == len && !memcmp(record_account_names[k], key, len))
			return k;
	return -1;
}

/* The call a record of ARGS is, without its counters: NAME=VALUE ..., malloc'd. */
static char *acct_call(struct report *rep, const struct json_val *args)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < args->obj.n; i++) {
		const struct json_member *m = &args->obj.m[i];
		long n;

		if (acct_index(m->key, m->key_len) >= 0)
			continue;
		n = format_value(rep, &m->val);
		if (n < 0)
			break;
		fprintf(f, "%s%.*s=", len ? " " : "", (int)m->key_len, m->key);
		fwrite(rep->fmt, 1, (size_t)n, f);
		fflush(f);
	}
	if (fclose(f))
		return NULL;
	return out;
}

/* Put CALL with V among TOP's most (most first, ties: the first seen first). */
static int acct_top(struct report *rep, struct acct_call *top, uint64_t v,
		    const struct json_val *args)
{
	int at = REPORT_TOP_CALLS;

	while (at > 0 && (!top[at - 1].call || top[at - 1].v < v))
		at--;
	if (at == REPORT_TOP_CALLS)
		return 0;
	char *call = acct_call(rep, args);

	if (!call)
		return -ENOMEM;
	free(top[REPORT_TOP_CALLS - 1].call);
	memmove(&top[at + 1], &top[at], (REPORT_TOP_CALLS - 1 - at) * sizeof(*top));
	top[at] = (struct acct_call){ .v = v, .call = call };
	return 0;
}

/* Has ARGS all of --account's counters (as a record --account made)? */
static bool acct_present(const struct json_val *args)
{
	for (int k = 0; k < RECORD_ACCT_N; k++)
		if (!json_get(args, record_account_names[k]))
			return false;
	return true;
}

/*
 * ARGS' --account counters (a record --account made: all nine there) into
 * *AP (made at the first), their values in V: 2 when summed, 1 when one is
 * not a number (an error: the call counted as not known), 0 when ARGS has
 * not all of them, -ENOMEM.
 */
static int acct_sum(struct acct_stats **ap, const struct json_val *args,
		    uint64_t v[RECORD_ACCT_N])
{
	int known = 0;

	if (!acct_present(args))
		return 0;
	for (int k = 0; k < RECORD_ACCT_N; k++)
		known += json_u64(json_get(args, record_account_names[k]), &v[k]);
	if (!*ap && !(*ap = calloc(1, sizeof(**ap))))
		return -ENOMEM;
	if (known < RECORD_ACCT_N) {
		(*ap)->unknown++;
		return 1;
	}
	(*ap)->records++;
	for (int k = 0; k < RECORD_ACCT_N; k++)
		(*ap)->sum[k] = add_sat((*ap)->sum[k], v[k]);
	return 2;
}

/* EV's --account sums and top calls from ARGS: 1 when ARGS had the counters, 0, -ENOMEM. */
static int add_acct(struct report *rep, struct event_stats *ev, const struct json_val *args)
{
	uint64_t v[RECORD_ACCT_N];
	int r = acct_sum(&ev->acct, args, v);

	if (r < 2)
		return r;
	for (int t = 0; t < ACCT_TOPS; t++)
		if (v[acct_tops[t]] && acct_top(rep, ev->acct->top[t], v[acct_tops[t]], args))
			return -ENOMEM;
	return 1;
}

/*
 * Count each member of ARGS (an object) under EV's arguments; not the
 * --account counters when ACCT (they are summed: add_acct()).
 */
static int add_args(struct report *rep, struct event_stats *ev, const struct json_val *args,
		    bool acct)
{
	for (size_t i = 0; args && args->type == JSON_OBJECT && i < args->obj.n; i++) {
		const struct json_member *m = &args->obj.m[i];
		size_t a, idx;
		long n;

		if (acct && acct_index(m->key, m->key_len) >= 0)
			continue;
		if (counter__add(&ev->args, m->key, m->key_len, &a) ||
		    array_grow_zeroed((void **)&ev->values, &ev->capvalues, sizeof(*ev->values), ev->args.n))
			return -ENOMEM;
		n = format_value(rep, &m->val);
		if (rep->bounded)
			ev->values[a].max = REPORT_KEEP_VALUES;
		if (n < 0 || counter__add(&ev->values[a], rep->fmt, n, &idx))
			return -ENOMEM;
	}
	return 0;
}

/* Append "FUNC+0xOFF", "FUNC (inlined)" or "[unknown]" of frame F to REP's scratch at *LEN. */
static int stack_frame_key(struct report *rep, const struct json_val *f, size_t *len)
{
	const struct json_val *func = json_get(f, "func"), *inl = json_get(f, "inlined");
	uint64_t off = 0;
	char tail[40];
	size_t n = func && func->type == JSON_STRING ? func->str.len : strlen("[unknown]");

	if (func && func->type == JSON_STRING && inl && inl->type == JSON_BOOL && inl->b)
		snprintf(tail, sizeof(tail), " (inlined)");
	else if (func && func->type == JSON_STRING && json_u64(json_get(f, "off"), &off))
		snprintf(tail, sizeof(tail), "+0x%llx", (unsigned long long)off);
	else
		tail[0] = '\0';
	if (array_grow_zeroed((void **)&rep->fmt, &rep->fmtcap, 1, *len + n + strlen(tail) + 2))
		return -ENOMEM;
	memcpy(rep->fmt + *len, func && func->type == JSON_STRING ? func->str.s : "[unknown]", n);
	memcpy(rep->fmt + *len + n, tail, strlen(tail));
	*len += n + strlen(tail);
	return 0;
}

/* Count STACK (a record's "stack" array) under EV: its frames, a line each, are the key. */
static int add_stack(struct report *rep, struct event_stats *ev, const struct json_val *stack)
{
	size_t len = 0, idx;

	if (!stack || stack->type != JSON_ARRAY)
		return 0;
	for (size_t i = 0; i < stack->arr.n; i++) {
		if (i) {
			if (array_grow_zeroed((void **)&rep->fmt, &rep->fmtcap, 1, len + 2))
				return -ENOMEM;
			rep->fmt[len++] = '\n';
		}
		if (stack_frame_key(rep, &stack->arr.v[i], &len))
			return -ENOMEM;
	}
	if (rep->bounded)
		ev->stacks.max = REPORT_KEEP_VALUES;
	return counter__add(&ev->stacks, rep->fmt, len, &idx) ? -ENOMEM : 0;
}

/* V is the string S. */
static bool json_is(const struct json_val *v, const char *s)
{
	return v && v->type == JSON_STRING && v->str.len == strlen(s) &&
	       !memcmp(v->str.s, s, v->str.len);
}

static int add_syscall(struct report *rep, const struct json_val *rec);

int report__add(struct report *rep, const struct json_val *rec)
{
	const struct json_val *event = json_get(rec, "event"), *kind = json_get(rec, "kind");
	const struct json_val *trunc = json_get(rec, "truncated"), *clock, *args;
	struct event_stats *ev;
	int acct;
	uint64_t ts, ns;
	size_t e, k;

	if (!rec || rec->type != JSON_OBJECT)
		return -EINVAL;
	if (json_is(kind, "clock")) {	/* the header line, not a record */
		clock = json_get(rec, "clock");
		if (clock && clock->type == JSON_STRING &&
		    counter__add(&rep->clocks, clock->str.s, clock->str.len, &k))
			return -ENOMEM;
		return 0;
	}
	rep->records++;
	if (json_u64(json_get(rec, "ts"), &ts)) {
		rep->ts_min = !rep->has_ts || ts < rep->ts_min ? ts : rep->ts_min;
		rep->ts_max = !rep->has_ts || ts > rep->ts_max ? ts : rep->ts_max;
		rep->has_ts = true;
	}
	if (rep->mode == REPORT_BY_CONTEXT)
		return add_syscall(rep, rec);
	if (!event || event->type != JSON_STRING) {
		rep->without_event++;
		return 0;
	}
	if (counter__add(&rep->events, event->str.s, event->str.len, &e) ||
	    array_grow_zeroed((void **)&rep->ev, &rep->capev, sizeof(*rep->ev), rep->events.n))
		return -ENOMEM;
	ev = &rep->ev[e];
	if (kind && kind->type == JSON_STRING &&
	    counter__add(&ev->kinds, kind->str.s, kind->str.len, &k))
		return -ENOMEM;
	if (trunc && trunc->type == JSON_BOOL && trunc->b)
		ev->truncated++;
	if (json_u64(json_get(rec, "duration_ns"), &ns) && durations__add(&ev->dur, ns, rep->bounded))
		return -ENOMEM;
	if (add_stack(rep, ev, json_get(rec, "stack")))
		return -ENOMEM;
	args = json_get(rec, "args");
	acct = args && args->type == JSON_OBJECT ? add_acct(rep, ev, args) : 0;
	if (acct < 0)
		return acct;
	return add_args(rep, ev, args, acct == 1);
}

/* ---- what the renderings share ------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank P-th percentile of the sorted D (not empty). */
static uint64_t percentile(const struct durations *d, unsigned int p)
{
	size_t rank = (size_t)(((unsigned __int128)d->n * p + 99) / 100);

	return d->v[rank ? rank - 1 : 0];
}

/* The first and the last non-empty bucket of D (not empty). */
static void hist_range(const struct durations *d, unsigned int *lo, unsigned int *hi)
{
	*lo = 0;
	while (!d->hist[*lo])
		(*lo)++;
	*hi = NBUCKETS - 1;
	while (!d->hist[*hi])
		(*hi)--;
}

/* Bucket K's bounds; HI of the last bucket (2^64) does not fit: *HI_OVER says so. */
static void bucket_bounds(unsigned int k, uint64_t *lo, uint64_t *hi, bool *hi_over)
{
	*lo = k ? 1ULL << (k - 1) : 0;
	*hi_over = k == 64;
	*hi = k == 64 ? 0 : 1ULL << k;
}

/* Entry indices of the counter PRIV: count descending, then the order first seen. */
static int cmp_top(const void *a, const void *b, void *priv)
{
	const struct counter *c = priv;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t cx = c->ent[x].count, cy = c->ent[y].count;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The indices of C's entries, most frequent first; caller frees; NULL on ENOMEM. */
static size_t *top_order(struct counter *c)
{
	size_t *idx = malloc((c->n ? c->n : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		idx[i] = i;
	qsort_r(idx, c->n, sizeof(*idx), cmp_top, c);
	return idx;
}

static void sort_durations(struct report *rep)
{
	for (size_t i = 0; i < rep->events.n; i++)
		if (rep->ev[i].dur.n)
			qsort(rep->ev[i].dur.v, rep->ev[i].dur.n, sizeof(uint64_t), cmp_u64);
}

/* S[0..LEN) escaped for MODE onto F, through a small buffer. */
static void put_escaped(FILE *f, const char *s, size_t len, enum esc_mode mode)
{
	char tmp[256];
	size_t used, out;

	while (len) {
		out = escape_str(s, len, mode, tmp, sizeof(tmp), &used);
		fwrite(tmp, 1, out, f);
		s += used;
		len -= used;
	}
}

static void put_json_str(FILE *f, const char *s, size_t len)
{
	putc('"', f);
	put_escaped(f, s, len, ESC_JSON);
	putc('"', f);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ---- by context: the accounting ----------------------------------------- */

/* The calls whose non-negative result is a number of bytes moved. */
static const char *const byte_calls[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
	"preadv2", "pwritev2", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendfile",
	"copy_file_range", "splice", "tee",
};

static bool moves_bytes(const struct json_val *name)
{
	for (size_t i = 0; i < sizeof(byte_calls) / sizeof(byte_calls[0]); i++)
		if (json_is(name, byte_calls[i]))
			return true;
	return false;
}

/* A failed call's "ret": "-ENOENT" (FT_SYM), or a negative number (an errno without a name). */
static bool ret_is_error(const struct json_val *ret)
{
	if (!ret)
		return false;
	if (ret->type == JSON_STRING)
		return ret->str.len && ret->str.s[0] == '-';
	return ret->type == JSON_INT && ret->i < 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Escaped text of at most REPORT_CUT columns needs at most 4 bytes a column (\xNN, UTF-8). */
#define CUTBUF		(4 * REPORT_CUT + 8)

/*
 * The length of the longest start of the escaped text T[0..LEN) that is at
 * most MAX columns wide and splits no character and no escape (\n, \xNN,
 * \u00NN: as wide as their text; a UTF-8 character: one column).  *COLS
 * (may be NULL) gets its width.
 */
static size_t cut_cols(const char *t, size_t len, size_t max, size_t *cols)
{
	size_t pos = 0, w = 0;

	while (pos < len) {
		unsigned char c = (unsigned char)t[pos];
		size_t n = 1, cw = 1;

		if (c == '\\' && pos + 1 < len)
			n = cw = t[pos + 1] == 'x' ? 4 : t[pos + 1] == 'u' ? 6 : 2;
		else if (c >= 0xf0)
			n = 4;
		else if (c >= 0xe0)
			n = 3;
		else if (c >= 0xc0)
			n = 2;
		if (n > len - pos)
			n = cw = len - pos;
		if (w + cw > max)
			break;
		pos += n;
		w += cw;
	}
	if (cols)
		*cols = w;
	return pos;
}

/*
 * S[0..LEN) escaped for MODE into OUT (CUTBUF bytes, NUL-terminated), at
 * most REPORT_CUT columns of it; its width in *COLS.  True when it was cut.
 */
static bool escape_cut(const char *s, size_t len, enum esc_mode mode, char *out, size_t *cols)
{
	size_t used, n = escape_str(s, len, mode, out, CUTBUF, &used);
	size_t keep = cut_cols(out, n, REPORT_CUT, cols);

	out[keep] = '\0';
	return keep < n || used < len;
}

/* S[0..LEN) escaped (ESC_TEXT) and quoted onto F, cut after REPORT_CUT columns; true when cut. */
static bool put_quoted_cut(FILE *f, const char *s, size_t len)
{
	char buf[CUTBUF];
	bool cut = escape_cut(s, len, ESC_TEXT, buf, NULL);

	fprintf(f, "\"%s\"%s", buf, cut ? "..." : "");
	return cut;
}

/*
 * A context value onto F as the text records show it: a string quoted, a
 * cut string ({"value":..,"truncated":true}, maybe with its "length" or
 * "length_min") quoted and followed by "...",
 * an error ({"error":..}) as (error: ..), anything else as compact JSON;
 * each cut after REPORT_CUT columns.
 */
static int put_value_cut(struct report *rep, FILE *f, const struct json_val *v)
{
	const struct json_val *str = json_get(v, "value"), *err = json_get(v, "error");
	size_t keep;
	long n;

	if (v->type == JSON_STRING) {
		put_quoted_cut(f, v->str.s, v->str.len);
		return 0;
	}
	if (v->type == JSON_OBJECT && str && str->type == JSON_STRING && json_get(v, "truncated") &&
	    v->obj.n == 2u + (json_get(v, "length") || json_get(v, "length_min"))) {
		if (!put_quoted_cut(f, str->str.s, str->str.len))
			fputs("...", f);
		return 0;
	}
	if (v->type == JSON_OBJECT && v->obj.n == 1 && err && err->type == JSON_STRING) {
		char buf[CUTBUF];
		bool cut = escape_cut(err->str.s, err->str.len, ESC_TEXT, buf, NULL);

		fprintf(f, "(error: %s%s)", buf, cut ? "..." : "");
		return 0;
	}
	n = format_value(rep, v);
	if (n < 0)
		return -ENOMEM;
	keep = cut_cols(rep->fmt, n, REPORT_CUT, NULL);
	fwrite(rep->fmt, 1, keep, f);
	fputs(keep < (size_t)n ? "..." : "", f);
	return 0;
}

/*
 * The heading of the group of CTX (a non-empty object):
 * EVENT NAME=VALUE ...[, EVENT NAME=VALUE ...] into a new *LABEL.
 */
static int ctx_label(struct report *rep, const struct json_val *ctx, char **label, size_t *len)
{
	FILE *f = open_memstream(label, len);
	int r = 0;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < ctx->obj.n && !r; i++) {
		const struct json_member *m = &ctx->obj.m[i];

		fputs(i ? ", " : "", f);
		put_escaped(f, m->key, m->key_len, ESC_TEXT);
		if (m->val.type != JSON_OBJECT) {	/* not as ptap writes it */
			fputs("=", f);
			r = put_value_cut(rep, f, &m->val);
			continue;
		}
		for (size_t a = 0; a < m->val.obj.n && !r; a++) {
			fputs(" ", f);
			put_escaped(f, m->val.obj.m[a].key, m->val.obj.m[a].key_len, ESC_TEXT);
			fputs("=", f);
			r = put_value_cut(rep, f, &m->val.obj.m[a].val);
		}
	}
	if (fclose(f) || r) {
		free(*label);
		*label = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The group of CTX (NULL, or not a non-empty object: the records without a context). */
static int ctx_group(struct report *rep, const struct json_val *ctx, struct ctx_group **g)
{
	size_t c;
	long n;

	if (!ctx || ctx->type != JSON_OBJECT || !ctx->obj.n) {
		*g = &rep->nocontext;
		return 0;
	}
	n = format_value(rep, ctx);
	if (n < 0 || counter__add(&rep->ctxs, rep->fmt, n, &c) ||
	    array_grow_zeroed((void **)&rep->groups, &rep->capgroups, sizeof(*rep->groups),
			      rep->ctxs.n))
		return -ENOMEM;
	*g = &rep->groups[c];
	if (!(*g)->label)	/* a new one */
		return ctx_label(rep, ctx, &(*g)->label, &(*g)->label_len);
	return 0;
}

/*
 * A return record with --account's counters, under the context it is: the
 * object {"EVENT":{ARGS}} (EVENT without its "__return", ARGS without the
 * counters) that --context EVENT puts on the syscall records made in the
 * call, so the call's cost and its syscalls are one group.
 */
static int add_ctx_acct(struct report *rep, const struct json_val *rec)
{
	const struct json_val *event = json_get(rec, "event"), *args = json_get(rec, "args");
	struct json_member *inner, outer;
	struct json_val in, ctx;
	struct ctx_group *g;
	uint64_t v[RECORD_ACCT_N];
	size_t n = 0, elen;
	int r;

	if (!event || event->type != JSON_STRING || !args || args->type != JSON_OBJECT ||
	    !acct_present(args))
		return 0;
	inner = malloc(args->obj.n * sizeof(*inner));
	if (!inner)
		return -ENOMEM;
	for (size_t i = 0; i < args->obj.n; i++)
		if (acct_index(args->obj.m[i].key, args->obj.m[i].key_len) < 0)
			inner[n++] = args->obj.m[i];
	elen = event->str.len;
	if (elen > 8 && !memcmp(event->str.s + elen - 8, "__return", 8))
		elen -= 8;
	in = (struct json_val){ .type = JSON_OBJECT, .obj = { inner, n } };
	outer = (struct json_member){ .key = event->str.s, .key_len = elen, .val = in };
	ctx = (struct json_val){ .type = JSON_OBJECT, .obj = { &outer, 1 } };
	r = ctx_group(rep, &ctx, &g);
	free(inner);
	if (r)
		return -ENOMEM;
	r = acct_sum(&g->acct, args, v);
	if (r > 0)
		rep->acct_calls++;
	return r < 0 ? r : 0;
}

/* Account one syscall record under its context (REPORT_BY_CONTEXT); others are skipped. */
static int add_syscall(struct report *rep, const struct json_val *rec)
{
	const struct json_val *event = json_get(rec, "event"), *trunc = json_get(rec, "truncated");
	const struct json_val *ret = json_get(json_get(rec, "args"), "ret");
	struct ctx_group *g;
	struct sc_row *row;
	uint64_t bytes, ns;
	size_t k;

	if (json_is(json_get(rec, "kind"), "return"))
		return add_ctx_acct(rep, rec);
	if (!json_is(json_get(rec, "kind"), "syscall") || !event || event->type != JSON_STRING)
		return 0;
	rep->syscalls++;
	if (trunc && trunc->type == JSON_BOOL && trunc->b)
		rep->sc_truncated++;
	if (ctx_group(rep, json_get(rec, "context"), &g) ||
	    counter__add(&g->calls, event->str.s, event->str.len, &k) ||
	    array_grow_zeroed((void **)&g->rows, &g->caprows, sizeof(*g->rows), g->calls.n))
		return -ENOMEM;
	row = &g->rows[k];
	if (g->calls.ent[k].count == 1)
		row->moves_bytes = moves_bytes(event);
	if (ret_is_error(ret))
		row->errors++;
	else if (row->moves_bytes && json_u64(ret, &bytes))
		row->bytes = add_sat(row->bytes, bytes);
	if (json_u64(json_get(rec, "duration_ns"), &ns)) {
		row->time_ns = add_sat(row->time_ns, ns);
		row->timed++;
	}
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

/*
 * NS in 3 significant digits of the largest unit that keeps it at 1 or
 * more: "512ns", "1.02us", "16.4us", "131us", "1.05ms", "2.50s".
 */
static void fmt_ns(double ns, char *buf, size_t len)
{
	static const struct {
		const char *unit;
		double div;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t i;
	double v = ns;

	for (i = 0; i < 3; i++) {
		v = ns / units[i].div;
		if (v < 999.5)	/* rounds below 1000 at 3 digits */
			break;
	}
	if (i == 3)
		v = ns / units[i].div;
	if (i == 0 || v >= 99.95)
		snprintf(buf, len, "%.0f%s", v, units[i].unit);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f%s", v, units[i].unit);
	else
		snprintf(buf, len, "%.2f%s", v, units[i].unit);
}

static void fmt_bucket(unsigned int k, char *buf, size_t len)
{
	char lo[24], hi[24];
	uint64_t l, h;
	bool over;

	bucket_bounds(k, &l, &h, &over);
	fmt_ns((double)l, lo, sizeof(lo));
	fmt_ns(over ? 18446744073709551616.0 : (double)h, hi, sizeof(hi));
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

static int digits(uint64_t n)
{
	int d = 1;

	while (n >= 10)
		n /= 10, d++;
	return d;
}

static void text_hist(const struct durations *d, FILE *f)
{
	unsigned int lo, hi;
	uint64_t max = 0;
	int lw = 0, cw;
	char label[64], bar[REPORT_BAR + 1];

	hist_range(d, &lo, &hi);
	for (unsigned int k = lo; k <= hi; k++) {
		fmt_bucket(k, label, sizeof(label));
		lw = (int)strlen(label) > lw ? (int)strlen(label) : lw;
		max = d->hist[k] > max ? d->hist[k] : max;
	}
	cw = digits(max);
	for (unsigned int k = lo; k <= hi; k++) {
		uint64_t c = d->hist[k];
		size_t w = (size_t)((unsigned __int128)c * REPORT_BAR / max);

		if (c && !w)
			w = 1;
		memset(bar, '@', w);
		bar[w] = '\0';
		fmt_bucket(k, label, sizeof(label));
		fprintf(f, "    %-*s %*llu |%-*s|\n", lw, label, cw, (unsigned long long)c,
			REPORT_BAR, bar);
	}
}

static void text_durations(const struct durations *d, FILE *f)
{
	static const unsigned int pcts[] = { 50, 90, 99 };
	char buf[32];

	fprintf(f, "  duration: %llu %s%s\n", (unsigned long long)d->count,
		plural(d->count, "record", "records"),
		d->count > d->n ? " (percentiles from a uniform sample of them)" : "");
	text_hist(d, f);
	fputs("    ", f);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		fmt_ns((double)percentile(d, pcts[i]), buf, sizeof(buf));
		fprintf(f, "p%u %s  ", pcts[i], buf);
	}
	fmt_ns((double)d->min, buf, sizeof(buf));
	fprintf(f, "min %s  ", buf);
	fmt_ns((double)d->max, buf, sizeof(buf));
	fprintf(f, "max %s  ", buf);
	fmt_ns((double)d->sum / d->count, buf, sizeof(buf));
	fprintf(f, "mean %s\n", buf);
}

/* One argument: its distinct values, the top ones with their counts. */
static int text_arg(const struct centry *arg, struct counter *vals, uint64_t records, FILE *f)
{
	size_t *idx = top_order(vals), shown = vals->n < REPORT_TOP ? vals->n : REPORT_TOP;
	uint64_t rest = 0;
	int cw;

	if (!idx)
		return -ENOMEM;
	fputs("  ", f);
	put_escaped(f, arg->key, arg->len, ESC_TEXT);
	fprintf(f, ": %zu distinct %s", vals->n, plural(vals->n, "value", "values"));
	if (vals->not_kept)
		fprintf(f, " kept (then %llu records of values not kept)",
			(unsigned long long)vals->not_kept);
	if (arg->count != records)
		fprintf(f, " in %llu of %llu records", (unsigned long long)arg->count,
			(unsigned long long)records);
	fputs("\n", f);
	cw = shown ? digits(vals->ent[idx[0]].count) : 1;
	for (size_t i = 0; i < shown; i++) {
		const struct centry *v = &vals->ent[idx[i]];

		fprintf(f, "    %*llu  ", cw, (unsigned long long)v->count);
		fwrite(v->key, 1, v->len, f);	/* JSON text: already escaped, one line */
		fputs("\n", f);
	}
	for (size_t i = shown; i < vals->n; i++)
		rest += vals->ent[idx[i]].count;
	if (vals->n > shown)
		fprintf(f, "    ... %zu more %s in %llu %s\n", vals->n - shown,
			plural(vals->n - shown, "value", "values"), (unsigned long long)rest,
			plural(rest, "record", "records"));
	free(idx);
	return 0;
}

/* "  cost (--account), the sums of N calls:" and the sums, on two lines. */
static void text_acct_sums(const struct acct_stats *a, FILE *f)
{
	fprintf(f, "  cost (--account), the sums of %llu %s", (unsigned long long)a->records,
		plural(a->records, "call", "calls"));
	if (a->unknown)
		fprintf(f, " (%llu more whose counters are not known)",
			(unsigned long long)a->unknown);
	fputs(":\n", f);
	for (int k = 0; k < RECORD_ACCT_N; k++)
		fprintf(f, "%s%s %llu", k % 5 ? ", " : k ? "\n    " : "    ", record_account_names[k],
			(unsigned long long)a->sum[k]);
	fputs("\n", f);
}

/* --account's sums, then the calls that read, wrote and ran most. */
static void text_acct(const struct acct_stats *a, FILE *f)
{
	text_acct_sums(a, f);
	for (int t = 0; t < ACCT_TOPS; t++) {
		if (!a->top[t][0].call)
			continue;
		fprintf(f, "    most %s:\n", record_account_names[acct_tops[t]]);
		for (int j = 0; j < REPORT_TOP_CALLS && a->top[t][j].call; j++)
			fprintf(f, "      %*llu  %s\n", digits(a->top[t][0].v),
				(unsigned long long)a->top[t][j].v, a->top[t][j].call);
	}
}

/* A stack's key (add_stack()) frame by frame: the one at *P, N bytes; false past the last. */
static bool next_frame(const char **p, const char *end, size_t *n)
{
	const char *nl;

	if (*p > end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	return true;
}

/* record -g's stacks: the REPORT_TOP_STACKS most frequent, a frame a line under each count. */
static int text_stacks(struct counter *st, FILE *f)
{
	size_t *idx, shown = st->n < REPORT_TOP_STACKS ? st->n : REPORT_TOP_STACKS;

	if (!st->n)
		return 0;
	if (!(idx = top_order(st)))
		return -ENOMEM;
	fprintf(f, "  stacks: %zu distinct", st->n);
	if (st->not_kept)
		fprintf(f, " kept (then %llu records of stacks not kept)",
			(unsigned long long)st->not_kept);
	fputs("\n", f);
	for (size_t i = 0; i < shown; i++) {
		const struct centry *v = &st->ent[idx[i]];
		const char *p = v->key, *end = v->key + v->len;

		fprintf(f, "    %llu %s\n", (unsigned long long)v->count,
			plural(v->count, "record", "records"));
		for (size_t n; next_frame(&p, end, &n); p += n + 1) {
			fputs("      ", f);
			put_escaped(f, p, n, ESC_TEXT);
			fputs("\n", f);
		}
	}
	if (st->n > shown)
		fprintf(f, "    ... %zu more\n", st->n - shown);
	free(idx);
	return 0;
}

/* "R/s" for N records over the file's span; "n/a" for a span of 0 or no ts. */
static void fmt_rate(const struct report *rep, uint64_t n, char *buf, size_t len)
{
	double rate;

	if (!rep->has_ts || rep->ts_max == rep->ts_min) {
		snprintf(buf, len, "n/a");
		return;
	}
	rate = (double)n * 1e9 / (double)(rep->ts_max - rep->ts_min);
	snprintf(buf, len, rate >= 1 ? "%.2f/s" : "%.3g/s", rate);
}

static int text_event(struct report *rep, size_t e, FILE *f)
{
	const struct centry *name = &rep->events.ent[e];
	struct event_stats *ev = &rep->ev[e];
	char rate[48];
	int r;

	fputs("\n", f);
	put_escaped(f, name->key, name->len, ESC_TEXT);
	fmt_rate(rep, name->count, rate, sizeof(rate));
	fprintf(f, ": %llu %s, %s", (unsigned long long)name->count,
		plural(name->count, "record", "records"), rate);
	for (size_t k = 0; k < ev->kinds.n; k++) {
		fputs(k ? ", " : " (", f);
		put_escaped(f, ev->kinds.ent[k].key, ev->kinds.ent[k].len, ESC_TEXT);
		fprintf(f, " %llu", (unsigned long long)ev->kinds.ent[k].count);
	}
	fputs(ev->kinds.n ? ")" : "", f);
	if (ev->truncated)
		fprintf(f, ", %llu truncated", (unsigned long long)ev->truncated);
	fputs("\n", f);
	for (size_t a = 0; a < ev->args.n; a++) {
		r = text_arg(&ev->args.ent[a], &ev->values[a], name->count, f);
		if (r < 0)
			return r;
	}
	if (ev->dur.n)
		text_durations(&ev->dur, f);
	if (ev->acct)
		text_acct(ev->acct, f);
	return text_stacks(&ev->stacks, f);
}

/* "clock: monotonic" when the file named its clock. */
static void text_clocks(const struct report *rep, FILE *f)
{
	if (!rep->clocks.n)
		return;
	fputs("clock: ", f);
	for (size_t i = 0; i < rep->clocks.n; i++) {
		fputs(i ? ", " : "", f);
		put_escaped(f, rep->clocks.ent[i].key, rep->clocks.ent[i].len, ESC_TEXT);
	}
	fputs(rep->clocks.n > 1 ? " (mixed)\n" : "\n", f);
}

static int text_by_context(struct report *rep, FILE *f);

int report__write_text(struct report *rep, FILE *f)
{
	int r;

	if (rep->mode == REPORT_BY_CONTEXT)
		return text_by_context(rep, f);
	sort_durations(rep);
	fprintf(f, "%llu %s of %zu %s over ", (unsigned long long)rep->records,
		plural(rep->records, "record", "records"), rep->events.n,
		plural(rep->events.n, "event", "events"));
	if (rep->has_ts)
		fprintf(f, "%llu.%09llu s\n",
			(unsigned long long)((rep->ts_max - rep->ts_min) / 1000000000),
			(unsigned long long)((rep->ts_max - rep->ts_min) % 1000000000));
	else
		fputs("n/a (no timestamps)\n", f);
	text_clocks(rep, f);
	if (rep->without_event)
		fprintf(f, "%llu %s without an event name\n",
			(unsigned long long)rep->without_event,
			plural(rep->without_event, "record", "records"));
	for (size_t e = 0; e < rep->events.n; e++) {
		r = text_event(rep, e, f);
		if (r < 0)
			return r;
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- by context: text ---------------------------------------------------- */

/* The groups to show, in order: the contexts, then the one without (when used). */
static size_t ngroups(const struct report *rep)
{
	return rep->ctxs.n + (rep->nocontext.calls.n ? 1 : 0);
}

static struct ctx_group *group_at(struct report *rep, size_t i)
{
	return i < rep->ctxs.n ? &rep->groups[i] : &rep->nocontext;
}

/* The total of G's rows into *TOT, its calls into *CALLS. */
static void group_total(const struct ctx_group *g, struct sc_row *tot, uint64_t *calls)
{
	*tot = (struct sc_row){ 0 };
	*calls = 0;
	for (size_t k = 0; k < g->calls.n; k++) {
		const struct sc_row *r = &g->rows[k];

		*calls = add_sat(*calls, g->calls.ent[k].count);
		tot->moves_bytes |= r->moves_bytes;
		tot->errors = add_sat(tot->errors, r->errors);
		tot->bytes = add_sat(tot->bytes, r->bytes);
		tot->time_ns = add_sat(tot->time_ns, r->time_ns);
		tot->timed = add_sat(tot->timed, r->timed);
	}
}

enum { COL_NAME, COL_CALLS, COL_ERRORS, COL_BYTES, COL_TIME, NCOLS };

/* One row of a table, as text: the name escaped and cut, the numbers, "-" for none. */
struct cells {
	char name[CUTBUF + 4];
	size_t cols[NCOLS];	/* the width of each cell */
	char num[NCOLS][32];	/* COL_CALLS and on */
};

static void row_cells(const char *name, size_t len, uint64_t calls, const struct sc_row *r,
		      struct cells *c)
{
	if (escape_cut(name, len, ESC_TEXT, c->name, &c->cols[COL_NAME])) {
		strcat(c->name, "...");
		c->cols[COL_NAME] += 3;
	}
	snprintf(c->num[COL_CALLS], sizeof(c->num[0]), "%llu", (unsigned long long)calls);
	snprintf(c->num[COL_ERRORS], sizeof(c->num[0]), "%llu", (unsigned long long)r->errors);
	if (r->moves_bytes)
		snprintf(c->num[COL_BYTES], sizeof(c->num[0]), "%llu",
			 (unsigned long long)r->bytes);
	else
		strcpy(c->num[COL_BYTES], "-");
	if (r->timed)
		fmt_ns((double)r->time_ns, c->num[COL_TIME], sizeof(c->num[0]));
	else
		strcpy(c->num[COL_TIME], "-");
	for (int i = COL_CALLS; i < NCOLS; i++)
		c->cols[i] = strlen(c->num[i]);
}

/* Call FN on the cells of each row of G, its total last. */
static void group_rows(const struct ctx_group *g, void (*fn)(const struct cells *, void *),
		       void *priv)
{
	struct cells c;
	struct sc_row tot;
	uint64_t calls;

	for (size_t k = 0; k < g->calls.n; k++) {
		row_cells(g->calls.ent[k].key, g->calls.ent[k].len, g->calls.ent[k].count,
			  &g->rows[k], &c);
		fn(&c, priv);
	}
	group_total(g, &tot, &calls);
	row_cells("total", 5, calls, &tot, &c);
	fn(&c, priv);
}

static const char *const col_heads[NCOLS] = { "syscall", "calls", "errors", "bytes", "time" };

/* Widen the columns of PRIV (size_t[NCOLS]) to fit C. */
static void widen(const struct cells *c, void *priv)
{
	size_t *w = priv;

	for (int i = 0; i < NCOLS; i++)
		w[i] = c->cols[i] > w[i] ? c->cols[i] : w[i];
}

struct row_out {
	FILE *f;
	const size_t *w;
};

/* "  NAME   CALLS  ERRORS  BYTES  TIME": the name left-aligned, the rest right-aligned. */
static void put_row(const char *name, size_t name_cols, const char *const *nums,
		    const size_t *w, FILE *f)
{
	fprintf(f, "  %s%*s", name, (int)(w[COL_NAME] - name_cols), "");
	for (int i = COL_CALLS; i < NCOLS; i++)
		fprintf(f, "  %*s", (int)w[i], nums[i]);
	fputs("\n", f);
}

static void print_cells(const struct cells *c, void *priv)
{
	const struct row_out *o = priv;
	const char *nums[NCOLS];

	for (int i = COL_CALLS; i < NCOLS; i++)
		nums[i] = c->num[i];
	put_row(c->name, c->cols[COL_NAME], nums, o->w, o->f);
}

static int text_by_context(struct report *rep, FILE *f)
{
	size_t w[NCOLS], ng = ngroups(rep);
	struct row_out o = { f, w };
	struct sc_row tot;
	uint64_t noctx;

	size_t nsc = 0;		/* the contexts syscalls were made in */

	for (size_t i = 0; i < rep->ctxs.n; i++)
		nsc += rep->groups[i].calls.n > 0;
	fprintf(f, "%llu syscall %s of %llu %s, in %zu %s", (unsigned long long)rep->syscalls,
		plural(rep->syscalls, "record", "records"), (unsigned long long)rep->records,
		plural(rep->records, "record", "records"), nsc, plural(nsc, "context", "contexts"));
	if (rep->acct_calls)
		fprintf(f, ", %llu %s with --account's counters", (unsigned long long)rep->acct_calls,
			plural(rep->acct_calls, "call", "calls"));
	group_total(&rep->nocontext, &tot, &noctx);
	if (noctx)
		fprintf(f, ", %llu without a context", (unsigned long long)noctx);
	if (rep->sc_truncated)
		fprintf(f, ", %llu truncated", (unsigned long long)rep->sc_truncated);
	fputs("\n", f);
	text_clocks(rep, f);
	if (!rep->syscalls)
		fputs("(no syscall records: `ptap record --syscalls LIST` writes them)\n", f);
	for (int i = 0; i < NCOLS; i++)
		w[i] = strlen(col_heads[i]);
	for (size_t i = 0; i < ng; i++)
		group_rows(group_at(rep, i), widen, w);
	for (size_t i = 0; i < ng; i++) {
		const struct ctx_group *g = group_at(rep, i);

		fputs("\n", f);
		if (g == &rep->nocontext)
			fputs("(no context)", f);
		else
			fwrite(g->label, 1, g->label_len, f);
		fputs("\n", f);
		if (g->acct)
			text_acct_sums(g->acct, f);
		if (!g->calls.n)
			continue;
		put_row(col_heads[COL_NAME], strlen(col_heads[COL_NAME]), col_heads, w, f);
		group_rows(g, print_cells, &o);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/*
 * D (a rate or a mean: positive, far below 1e20) without an exponent, in the
 * fewest decimals that read back as D ("1500", "2333.3333333333335").
 */
static void json_double(FILE *f, double d)
{
	char buf[64];

	for (int prec = 0; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*f", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

static void json_durations(const struct durations *d, FILE *f)
{
	unsigned int lo, hi;

	fprintf(f, "      \"duration\": {\n        \"count\": %llu,\n", (unsigned long long)d->count);
	fprintf(f, "        \"min_ns\": %llu,\n", (unsigned long long)d->min);
	fprintf(f, "        \"max_ns\": %llu,\n", (unsigned long long)d->max);
	fputs("        \"mean_ns\": ", f);
	json_double(f, (double)d->sum / d->count);
	fprintf(f, ",\n        \"p50_ns\": %llu,\n", (unsigned long long)percentile(d, 50));
	fprintf(f, "        \"p90_ns\": %llu,\n", (unsigned long long)percentile(d, 90));
	fprintf(f, "        \"p99_ns\": %llu,\n", (unsigned long long)percentile(d, 99));
	fputs("        \"hist\": [\n", f);
	hist_range(d, &lo, &hi);
	for (unsigned int k = lo; k <= hi; k++) {
		uint64_t l, h;
		bool over;

		bucket_bounds(k, &l, &h, &over);
		fprintf(f, "          {\"lo_ns\": %llu, \"hi_ns\": ", (unsigned long long)l);
		if (over)
			fputs("18446744073709551616", f);
		else
			fprintf(f, "%llu", (unsigned long long)h);
		fprintf(f, ", \"count\": %llu}%s\n", (unsigned long long)d->hist[k],
			k < hi ? "," : "");
	}
	fputs("        ]\n      }\n", f);
}

static int json_arg(const struct centry *arg, struct counter *vals, bool last, FILE *f)
{
	size_t *idx = top_order(vals), shown = vals->n < REPORT_TOP ? vals->n : REPORT_TOP;

	if (!idx)
		return -ENOMEM;
	fputs("        {\n          \"name\": ", f);
	put_json_str(f, arg->key, arg->len);
	fprintf(f, ",\n          \"records\": %llu,\n", (unsigned long long)arg->count);
	fprintf(f, "          \"distinct\": %zu,\n", vals->n);
	if (vals->not_kept)
		fprintf(f, "          \"not_kept\": %llu,\n", (unsigned long long)vals->not_kept);
	fputs("          \"top\": [", f);
	for (size_t i = 0; i < shown; i++) {
		const struct centry *v = &vals->ent[idx[i]];

		fprintf(f, "%s\n            {\"count\": %llu, \"value\": ", i ? "," : "",
			(unsigned long long)v->count);
		fwrite(v->key, 1, v->len, f);
		fputs("}", f);
	}
	fprintf(f, "%s]\n        }%s\n", shown ? "\n          " : "", last ? "" : ",");
	free(idx);
	return 0;
}

/* "account": {"calls": N, "sums": {NAME: N, ...}, "top": {NAME: [{"value": N, "call": ".."}]}}, */
static void json_acct(const struct acct_stats *a, FILE *f)
{
	fprintf(f, "      \"account\": {\"calls\": %llu, \"not_known\": %llu, \"sums\": {",
		(unsigned long long)a->records, (unsigned long long)a->unknown);
	for (int k = 0; k < RECORD_ACCT_N; k++)
		fprintf(f, "%s\"%s\": %llu", k ? ", " : "", record_account_names[k],
			(unsigned long long)a->sum[k]);
	fputs("}, \"top\": {", f);
	for (int t = 0; t < ACCT_TOPS; t++) {
		fprintf(f, "%s\"%s\": [", t ? ", " : "", record_account_names[acct_tops[t]]);
		for (int j = 0; j < REPORT_TOP_CALLS && a->top[t][j].call; j++) {
			fprintf(f, "%s{\"value\": %llu, \"call\": ", j ? ", " : "",
				(unsigned long long)a->top[t][j].v);
			put_json_str(f, a->top[t][j].call, strlen(a->top[t][j].call));
			fputs("}", f);
		}
		fputs("]", f);
	}
	fputs("}},\n", f);
}

/* "stacks": {"distinct": N, ["not_kept": N,] "top": [{"count": N, "frames": [..]}, ...]}, */
static int json_stacks(struct counter *st, FILE *f)
{
	size_t *idx = top_order(st), shown = st->n < REPORT_TOP_STACKS ? st->n : REPORT_TOP_STACKS;

	if (!idx)
		return -ENOMEM;
	fprintf(f, "      \"stacks\": {\"distinct\": %zu, ", st->n);
	if (st->not_kept)
		fprintf(f, "\"not_kept\": %llu, ", (unsigned long long)st->not_kept);
	fputs("\"top\": [", f);
	for (size_t i = 0; i < shown; i++) {
		const struct centry *v = &st->ent[idx[i]];
		const char *p = v->key, *end = v->key + v->len;

		fprintf(f, "%s\n        {\"count\": %llu, \"frames\": [", i ? "," : "",
			(unsigned long long)v->count);
		for (size_t n; next_frame(&p, end, &n); p += n + 1) {
			fputs(p == v->key ? "" : ", ", f);
			put_json_str(f, p, n);
		}
		fputs("]}", f);
	}
	fputs("\n      ]},\n", f);
	free(idx);
	return 0;
}

static int json_event(struct report *rep, size_t e, bool last, FILE *f)
{
	const struct centry *name = &rep->events.ent[e];
	struct event_stats *ev = &rep->ev[e];
	int r;

	fputs("    {\n      \"event\": ", f);
	put_json_str(f, name->key, name->len);
	fprintf(f, ",\n      \"records\": %llu,\n      \"rate_per_s\": ",
		(unsigned long long)name->count);
	if (rep->has_ts && rep->ts_max != rep->ts_min)
		json_double(f, (double)name->count * 1e9 / (double)(rep->ts_max - rep->ts_min));
	else
		fputs("null", f);
	fputs(",\n      \"kinds\": {", f);
	for (size_t k = 0; k < ev->kinds.n; k++) {
		fputs(k ? ", " : "", f);
		put_json_str(f, ev->kinds.ent[k].key, ev->kinds.ent[k].len);
		fprintf(f, ": %llu", (unsigned long long)ev->kinds.ent[k].count);
	}
	fprintf(f, "},\n      \"truncated\": %llu,\n      \"args\": [%s",
		(unsigned long long)ev->truncated, ev->args.n ? "\n" : "");
	for (size_t a = 0; a < ev->args.n; a++) {
		r = json_arg(&ev->args.ent[a], &ev->values[a], a + 1 == ev->args.n, f);
		if (r < 0)
			return r;
	}
	fprintf(f, "%s],\n", ev->args.n ? "      " : "");
	if (ev->stacks.n && json_stacks(&ev->stacks, f))
		return -ENOMEM;
	if (ev->acct)
		json_acct(ev->acct, f);
	if (ev->dur.n)
		json_durations(&ev->dur, f);
	else
		fputs("      \"duration\": null\n", f);
	fprintf(f, "    }%s\n", last ? "" : ",");
	return 0;
}

/* "  \"clocks\": [...],\n" */
static void json_clocks(const struct report *rep, FILE *f)
{
	fputs("  \"clocks\": [", f);
	for (size_t i = 0; i < rep->clocks.n; i++) {
		fputs(i ? ", " : "", f);
		put_json_str(f, rep->clocks.ent[i].key, rep->clocks.ent[i].len);
	}
	fputs("],\n", f);
}

/* The numbers of a row: "\"calls\": N, \"errors\": N, \"bytes\": N|null, \"time_ns\": N|null". */
static void json_row(const struct sc_row *r, uint64_t calls, FILE *f)
{
	fprintf(f, "\"calls\": %llu, \"errors\": %llu, \"bytes\": ", (unsigned long long)calls,
		(unsigned long long)r->errors);
	if (r->moves_bytes)
		fprintf(f, "%llu", (unsigned long long)r->bytes);
	else
		fputs("null", f);
	fputs(", \"time_ns\": ", f);
	if (r->timed)
		fprintf(f, "%llu", (unsigned long long)r->time_ns);
	else
		fputs("null", f);
}

static void json_group(struct report *rep, size_t i, bool last, FILE *f)
{
	const struct ctx_group *g = group_at(rep, i);
	struct sc_row tot;
	uint64_t calls;

	fputs("    {\n      \"context\": ", f);
	if (g == &rep->nocontext)
		fputs("null", f);
	else	/* compact JSON, as json_format() wrote it */
		fwrite(rep->ctxs.ent[i].key, 1, rep->ctxs.ent[i].len, f);
	if (g->acct) {	/* the calls that are the context: their --account counters */
		fprintf(f, ",\n      \"account\": {\"calls\": %llu, \"not_known\": %llu, \"sums\": {",
			(unsigned long long)g->acct->records, (unsigned long long)g->acct->unknown);
		for (int k = 0; k < RECORD_ACCT_N; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "", record_account_names[k],
				(unsigned long long)g->acct->sum[k]);
		fputs("}}", f);
	}
	fputs(",\n      \"syscalls\": [\n", f);
	for (size_t k = 0; k < g->calls.n; k++) {
		fputs("        {\"name\": ", f);
		put_json_str(f, g->calls.ent[k].key, g->calls.ent[k].len);
		fputs(", ", f);
		json_row(&g->rows[k], g->calls.ent[k].count, f);
		fprintf(f, "}%s\n", k + 1 < g->calls.n ? "," : "");
	}
	group_total(g, &tot, &calls);
	fputs("      ],\n      \"total\": {", f);
	json_row(&tot, calls, f);
	fprintf(f, "}\n    }%s\n", last ? "" : ",");
}

static int json_by_context(struct report *rep, FILE *f)
{
	size_t ng = ngroups(rep);

	fprintf(f, "{\n  \"records\": %llu,\n  \"syscall_records\": %llu,\n",
		(unsigned long long)rep->records, (unsigned long long)rep->syscalls);
	fprintf(f, "  \"truncated\": %llu,\n", (unsigned long long)rep->sc_truncated);
	json_clocks(rep, f);
	fprintf(f, "  \"contexts\": [%s", ng ? "\n" : "");
	for (size_t i = 0; i < ng; i++)
		json_group(rep, i, i + 1 == ng, f);
	fprintf(f, "%s]\n}\n", ng ? "  " : "");
	return ferror(f) ? -EIO : 0;
}

int report__write_json(struct report *rep, FILE *f)
{
	int r;

	if (rep->mode == REPORT_BY_CONTEXT)
		return json_by_context(rep, f);
	sort_durations(rep);
	fprintf(f, "{\n  \"records\": %llu,\n  \"without_event\": %llu,\n",
		(unsigned long long)rep->records, (unsigned long long)rep->without_event);
	json_clocks(rep, f);
	if (rep->has_ts)
		fprintf(f, "  \"first_ts\": %llu,\n  \"last_ts\": %llu,\n  \"span_ns\": %llu,\n",
			(unsigned long long)rep->ts_min, (unsigned long long)rep->ts_max,
			(unsigned long long)(rep->ts_max - rep->ts_min));
	else
		fputs("  \"first_ts\": null,\n  \"last_ts\": null,\n  \"span_ns\": null,\n", f);
	fprintf(f, "  \"events\": [%s", rep->events.n ? "\n" : "");
	for (size_t e = 0; e < rep->events.n; e++) {
		r = json_event(rep, e, e + 1 == rep->events.n, f);
		if (r < 0)
			return r;
	}
	fprintf(f, "%s]\n}\n", rep->events.n ? "  " : "");
	return ferror(f) ? -EIO : 0;
}
