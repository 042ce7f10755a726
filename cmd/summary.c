/* cmd/summary.c: the start line and the summary of a record run (summary.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/summary.h"
#include "probes/log.h"
#include "tracer/probe.h"
#include "tracer/session.h"

#define SUMMARY_EVENTS	10	/* events named one a line; the rest are told together */
#define SUMMARY_FILES	3	/* files named in the start line */

/* The probes of S a user asked for: not ptap's own, not the exits of a return probe. */
static bool asked(const struct probe *p)
{
	return !p->hidden && !p->exit_of && !p->rbrk;
}

static const char *base(const char *path)
{
	const char *sl = strrchr(path, '/');

	return sl ? sl + 1 : path;
}

void summary_probes(const struct session *s, int nreqs)
{
	const char *files[SUMMARY_FILES];
	char list[3 * 80] = "";
	int nsites = 0, nfiles = 0;
	size_t used = 0;

	if (!nreqs)
		return;
	for (int i = 0; i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		bool seen = false;

		if (!asked(p))
			continue;
		nsites++;
		for (int k = 0; k < i && !seen; k++)
			seen = asked(&s->probes[k]) && !strcmp(s->probes[k].module, p->module);
		if (seen)
			continue;
		if (nfiles < SUMMARY_FILES)
			files[nfiles] = p->module;
		nfiles++;
	}
	for (int k = 0; k < nfiles && k < SUMMARY_FILES; k++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", k ? ", " : "",
				 base(files[k]));

		if (n < 0 || (size_t)n >= sizeof(list) - used)
			break;
		used += (size_t)n;
	}
	if (nfiles == 1)
		pr_notice("%d probe%s at %d site%s in %s\n", nreqs, nreqs == 1 ? "" : "s", nsites,
			  nsites == 1 ? "" : "s", list);
	else
		pr_notice("%d probes at %d sites in %d files: %s%s\n", nreqs, nsites, nfiles,
			  list, nfiles > SUMMARY_FILES ? ", ..." : "");
}

struct ev_count {
	const char *event;
	uint64_t nrec, nerr, nfilt;
	int first;		/* the index of its first probe: ties keep the order of -e */
};

static int by_records(const void *a, const void *b)
{
	const struct ev_count *x = a, *y = b;

	if (x->nrec != y->nrec)
		return x->nrec < y->nrec ? 1 : -1;
	return x->first - y->first;
}

static void say_event(const struct ev_count *e)
{
	char filt[64] = "", err[96] = "";

	if (e->nfilt)
		snprintf(filt, sizeof(filt), " (%lu more hits left out by --filter)",
			 (unsigned long)e->nfilt);
	if (e->nerr)
		snprintf(err, sizeof(err), ", %lu with an argument not read (its error is in the "
			 "record)", (unsigned long)e->nerr);
	pr_notice("%s: %lu record%s%s%s\n", e->event, (unsigned long)e->nrec,
		  e->nrec == 1 ? "" : "s", err, filt);
}

void summary_records(const struct session *s, uint64_t total, uint64_t ns)
{
	struct ev_count *ev = calloc(s->nprobes ? s->nprobes : 1, sizeof(*ev));
	uint64_t ours = 0, rest_rec = 0;
	int n = 0, rest = 0, rest_none = 0;

	if (log_get_level() < LOG_NOTICE)
		goto out;
	for (int i = 0; ev && i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		int k;

		if (!asked(p))
			continue;
		for (k = 0; k < n && strcmp(ev[k].event, p->event); k++)
			;
		if (k == n)
			ev[n++] = (struct ev_count){ .event = p->event, .first = i };
		ev[k].nrec += p->nrec;
		ev[k].nerr += p->nrec_err;
		ev[k].nfilt += p->nfiltered;
		ours += p->nrec;
	}
	if (ev)
		qsort(ev, n, sizeof(*ev), by_records);
	for (int k = 0; ev && k < n; k++) {
		if (k < SUMMARY_EVENTS || n == SUMMARY_EVENTS + 1) {
			say_event(&ev[k]);
			continue;
		}
		rest++;
		rest_rec += ev[k].nrec;
		rest_none += !ev[k].nrec;
	}
	if (rest)
		pr_notice("%d more events: %lu records (%d of them never hit)\n", rest,
			  (unsigned long)rest_rec, rest_none);
	if (total > ours)
		pr_notice("syscalls and other events: %lu records\n", (unsigned long)(total - ours));
	pr_notice("%lu records in %lu.%03lu s\n", (unsigned long)total,
		  (unsigned long)(ns / 1000000000ULL), (unsigned long)(ns / 1000000ULL % 1000));
out:
	free(ev);
}
