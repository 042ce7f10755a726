/* probes/filter.h: `record --filter EXPR`, which hits of a probe are
 * written.  Pure: compiled once against the probe's argument names and
 * types, then matched against each record before it is formatted.
 *
 *   EXPR := OR;  OR := AND { "||" AND };  AND := NOT { "&&" NOT };
 *   NOT  := "!" NOT | "(" OR ")" | FIELD OP LITERAL
 *   FIELD: an argument's name as the record shows it (query_string,
 *          arg1, desc->nrows, retval; "$retval" is retval), or pid, tid,
 *          comm (an argument of that name wins)
 *   OP: == != < <= > >= on numbers; == != ~ (a glob: * ? [...]) and the
 *       same orderings (bytewise) on strings
 *   LITERAL: a number (-12, 4096, 0x1f; 1.5 for a float; true, false; a
 *       name of the field's enum) or a string in double or single quotes
 *       (\" \\ \n \t \xNN)
 *
 * A value that could not be read (an error in the record) satisfies no
 * comparison ("!" of one is true); a NULL string is no string: only !=
 * holds (as for a NaN).  A string cut at --string-max compares by the
 * bytes read; a 4-byte float with the literal rounded to a float.
 */
#ifndef PTAP_PROBES_FILTER_H
#define PTAP_PROBES_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fetch_type;
struct fetch_val;
struct ptap_err;
struct record;
struct filter;

/*
 * Compile TEXT for records whose N arguments are NAMES with TYPES.  0, or
 * -EINVAL with ERR saying what is wrong and where (an unknown name lists
 * the names there are), or -ENOMEM.
 */
int filter__compile(const char *text, const char *const *names,
		    const struct fetch_type *types, unsigned int n, struct filter **out,
		    struct ptap_err *err);
void filter__free(struct filter *f);

/* Does REC (of the names and types F was compiled for) match F?  Allocates nothing. */
bool filter__match(const struct filter *f, const struct record *rec);

/* A hit's values to match: NVALS of the probe's arguments, and who made it. */
struct filter_in {
	const struct fetch_val *vals;
	unsigned int nvals;
	long pid, tid;
	const char *comm;		/* NUL-terminated; NULL: not known */
};

/*
 * The same from IN (probes/filter_eval.c: freestanding, as the agent runs
 * it in a target).  F is flat, filter__size() bytes with no pointer: a copy
 * anywhere matches as F does.
 */
bool filter__eval(const struct filter *f, const struct filter_in *in);
size_t filter__size(void);

/*
 * Can F be matched in the target, by the agent, which knows neither the
 * pid nor the comm of the thread it runs on?
 */
bool filter__agent_ok(const struct filter *f);

/* Does S[0..LEN) match the glob PAT[0..PLEN) (* ? [abc] [a-z] [!x])?  Bytes, no locale. */
bool filter__glob(const char *pat, size_t plen, const char *s, size_t len);

#endif
