/* cmd/summary.c: the start line and the summary of a record run (summary.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/summary.h"
#include "probes/report.h"
#include "probes/log.h"
#include "tracer/probe.h"
#include "tracer/session.h"

#define SUMMARY_EVENTS	10	/* events named one a line; the rest are told together */
#define SUMMARY_FILES	3	/* files named in the start line */

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
		bool seen = false, same_site = false;

		if (!probe__asked(p))
			continue;
		for (int k = 0; k < i && !same_site; k++) {
			const struct probe *q = &s->probes[k];

			if (!probe__asked(q) || strcmp(q->module, p->module))
				continue;
			seen = true;
			same_site = q->rp.vaddr == p->rp.vaddr;
		}
		nsites += !same_site;
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
		pr_notice("%d probe%s at %d sites in %d files: %s%s\n", nreqs, nreqs == 1 ? "" : "s",
			  nsites, nfiles, list, nfiles > SUMMARY_FILES ? ", ..." : "");
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
		snprintf(filt, sizeof(filt), " (%lu more hit%s left out by --filter)",
			 (unsigned long)e->nfilt, e->nfilt == 1 ? "" : "s");
	if (e->nerr)
		snprintf(err, sizeof(err), ", %lu with an argument not read (its error is in the "
			 "record)", (unsigned long)e->nerr);
	pr_notice("%s: %lu record%s%s%s\n", e->event, (unsigned long)e->nrec,
		  e->nrec == 1 ? "" : "s", err, filt);
}

void summary_records(const struct session *s, uint64_t total, uint64_t unwritten, uint64_t ns)
{
	struct ev_count *ev = calloc(s->nprobes ? s->nprobes : 1, sizeof(*ev));
	uint64_t ours = 0, rest_rec = 0;
	int n = 0, rest = 0, rest_none = 0;

	if (!ev)
		goto total;	/* no room to sort them: the total alone */
	for (int i = 0; i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		int k;

		if (!probe__asked(p))
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
	qsort(ev, n, sizeof(*ev), by_records);
	for (int k = 0; k < n; k++) {
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
		pr_notice("syscalls and other events: %lu record%s\n", (unsigned long)(total - ours),
			  total - ours == 1 ? "" : "s");
total:
	pr_notice("%lu record%s in %lu.%03lu s\n", (unsigned long)total, total == 1 ? "" : "s",
		  (unsigned long)(ns / 1000000000ULL), (unsigned long)(ns / 1000000ULL % 1000));
	if (unwritten)
		pr_notice("%lu of them not written: the output's reader went away\n",
			  (unsigned long)unwritten);
	free(ev);
}

struct summary_run {
	int rfd;		/* the pipe's read end: the thread's */
	FILE *out;		/* where the report goes: -o FILE, opened at the start, or stdout */
	pthread_t thread;
	struct report *rep;
	int status;		/* the thread's: 0, or 2 after it said why */
};

static void summary_run_free(struct summary_run *sr)
{
	if (sr->out && sr->out != stdout)
		fclose(sr->out);
	report__free(sr->rep);
	free(sr);
}

static void *summary_reader(void *arg)
{
	struct summary_run *sr = arg;
	FILE *f = fdopen(sr->rfd, "r");
	char sink[4096];

	if (!f) {
		pr_err("--summary: %s\n", strerror(errno));
		sr->status = 2;
		while (read(sr->rfd, sink, sizeof(sink)) > 0)	/* never hold the writer up */
			;
		close(sr->rfd);
		return NULL;
	}
	sr->status = report_read_records(f, "--summary", sr->rep);
	while (fread(sink, 1, sizeof(sink), f) > 0)	/* the rest, after an error */
		;
	fclose(f);
	return NULL;
}

int summary_run_start(struct summary_run **out, const char *out_path, char *path,
		      size_t pathlen)
{
	struct summary_run *sr = calloc(1, sizeof(*sr));
	sigset_t all, old;
	int fds[2], r;

	*out = NULL;
	if (!sr)
		return -ENOMEM;
	sr->out = stdout;
	if (out_path && !(sr->out = fopen(out_path, "we"))) {	/* now: not after the run */
		r = -errno;
		free(sr);
		return r;
	}
	if (report__new(&sr->rep) < 0) {
		summary_run_free(sr);
		return -ENOMEM;
	}
	report__set_bounded(sr->rep);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		summary_run_free(sr);
		return r;
	}
	sr->rfd = fds[0];
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* the thread starts with all blocked */
	r = -pthread_create(&sr->thread, NULL, summary_reader, sr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		close(fds[0]);
		close(fds[1]);
		summary_run_free(sr);
		return r;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fds[1]);
	*out = sr;
	return fds[1];
}

int summary_run_finish(struct summary_run *sr, const char *out_path, bool json)
{
	FILE *f = sr->out;
	int status, r;

	pthread_join(sr->thread, NULL);
	status = sr->status;
	if (!status && !json && report__records(sr->rep) == 0) {
		fputs("no records\n", f);
	} else if (!status) {
		r = json ? report__write_json(sr->rep, f) : report__write_text(sr->rep, f);
		if (r < 0) {
			pr_err("--summary: cannot write it: %s\n", strerror(-r));
			status = 2;
		}
	}
	if (f != stdout && fclose(f) != 0 && !status) {
		pr_err("cannot write %s: %s\n", out_path, strerror(errno));
		status = 2;
	} else if (f == stdout && fflush(stdout) != 0 && !status) {
		pr_err("cannot write the summary: %s\n", strerror(errno));
		status = 2;
	}
	sr->out = stdout;	/* closed */
	summary_run_free(sr);
	return status;
}

void summary_run_abort(struct summary_run *sr)
{
	if (!sr)
		return;
	pthread_join(sr->thread, NULL);
	summary_run_free(sr);
}
