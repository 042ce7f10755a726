/* tracer/events/account.c: a thread's counters (account.h), read with one
 * pread of each of four files kept open per thread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/log.h"
#include "probes/record.h"
#include "tracer/events/account.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/thread.h"

_Static_assert(ACCT_N == RECORD_ACCT_N, "the counters probes/record.h names");

static const char *const files[4] = { "io", "schedstat", "stat", "status" };

static const struct fetch_type u64_type = { .kind = FT_UNSIGNED, .size = 8 };

int account_setup(struct session *s, const char *const *events, int n)
{
	for (int e = 0; e < n; e++) {
		int found = 0;

		for (int i = 0; i < s->nprobes; i++) {
			struct probe *p = &s->probes[i];
			int nargs = p->rp.nargs;

			if (!probe__asked(p) || strcmp(p->event, events[e]))
				continue;
			found++;
			if (!p->rp.retprobe) {
				pr_err("--account %s: not a return probe: the cost of a call is known "
				       "at its return (-e '%s%%return ...')\n", events[e],
				       p->rp.func ? p->rp.func : events[e]);
				return 2;
			}
			if (probe__accounted(p))
				continue;
			if (p->rp.go_stack) {
				pr_err("--account %s: Go code: a goroutine runs on many threads, and a "
				       "thread's counters are not one call's\n", events[e]);
				return 2;
			}
			for (int k = 0; k < nargs; k++)
				for (int c = 0; c < ACCT_N; c++)
					if (!strcmp(p->rp.names[k], record_account_names[c])) {
						pr_err("--account %s: its probe records an argument "
						       "named %s, as a counter is: name it otherwise "
						       "(-e '...%%return my_%s=%s')\n", events[e],
						       record_account_names[c], record_account_names[c],
						       record_account_names[c]);
						return 2;
					}
			p->rec_names = calloc((size_t)nargs + ACCT_N, sizeof(*p->rec_names));
			if (!p->rec_names ||
			    !(p->vals = realloc(p->vals, ((size_t)nargs + ACCT_N) * sizeof(*p->vals))) ||
			    !(p->types = realloc(p->types, ((size_t)nargs + ACCT_N) * sizeof(*p->types)))) {
				pr_err("--account: out of memory\n");
				return 2;
			}
			for (int k = 0; k < nargs; k++)
				p->rec_names[k] = p->rp.names[k];
			for (int k = 0; k < ACCT_N; k++) {
				p->rec_names[nargs + k] = record_account_names[k];
				p->types[nargs + k] = u64_type;
			}
			/* the entry's counters in the call's shadow frame, after its arguments */
			p->acct_off = (p->ent_len + 7) & ~(size_t)7;
			p->ent_len = p->acct_off + sizeof(struct acct);
		}
		if (!found) {
			pr_err("--account %s: no such event: give the EVENT of a return probe "
			       "given with -e (its name as the records show it)\n", events[e]);
			return 2;
		}
	}
	return 0;
}

/* Threads whose files are kept open, at most: past them, a read opens and closes them. */
#define ACCT_KEEP_MAX	128

/* Open T's four files, each -1 when it cannot be (its counters then say why). */
static void acct_open(struct thread *t, int *err)
{
	char path[64];

	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", t->tgid, t->tid, files[k]);
		t->acct_fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		err[k] = t->acct_fd[k] < 0 ? -errno : 0;
	}
}

/* The number after KEY at the start of a line of TEXT into *V: 0, or -ENODATA. */
static int keyed(const char *text, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, n)) {
			*v = strtoull(l + n, NULL, 10);
			return 0;
		}
	return -ENODATA;
}

/* Field N (1-based, as proc(5) counts them) of /proc/.../stat TEXT into *V: 0, or -ENODATA. */
static int stat_field(const char *text, int n, uint64_t *v)
{
	const char *p = strrchr(text, ')');	/* the comm may hold spaces and parentheses */
	int f = 2;

	while (p && f < n) {
		p = strchr(p + 1, ' ');
		f++;
	}
	if (!p)
		return -ENODATA;
	*v = strtoull(p + 1, NULL, 10);
	return 0;
}

/* What file K gives, from TEXT, into A (an error: its counters'). */
static void parse(int k, const char *text, struct acct *a)
{
	int *e = a->ferr;

	switch (k) {
	case 0:
		e[0] = keyed(text, "read_bytes:", &a->v[ACCT_READ_BYTES]) ?:
		       keyed(text, "write_bytes:", &a->v[ACCT_WRITE_BYTES]) ?:
		       keyed(text, "cancelled_write_bytes:", &a->v[ACCT_CANCELLED]);
		break;
	case 1:
		if (sscanf(text, "%lu %lu", (unsigned long *)&a->v[ACCT_CPU_NS],
			   (unsigned long *)&a->v[ACCT_RUNQ_NS]) != 2)
			e[1] = -ENODATA;
		break;
	case 2:
		e[2] = stat_field(text, 10, &a->v[ACCT_MINFLT]) ?:
		       stat_field(text, 12, &a->v[ACCT_MAJFLT]);
		break;
	default:
		e[3] = keyed(text, "voluntary_ctxt_switches:", &a->v[ACCT_NVCSW]) ?:
		       keyed(text, "nonvoluntary_ctxt_switches:", &a->v[ACCT_NIVCSW]);
		break;
	}
}

void account_read(struct session *s, struct thread *t, struct acct *a)
{
	char buf[8192];		/* status grows with groups and CPUs: its switches come last */
	bool keep = t->acct_open || s->acct_kept < ACCT_KEEP_MAX;

	memset(a, 0, sizeof(*a));
	a->tid = t->tid;
	a->nstops = t->nstops;
	if (!t->acct_open) {
		acct_open(t, a->ferr);
		t->acct_open = true;
		s->acct_kept++;
	}
	for (int k = 0; k < 4; k++) {
		ssize_t n;

		if (t->acct_fd[k] < 0) {
			a->ferr[k] = a->ferr[k] ?: -ENOENT;
			continue;
		}
		n = pread(t->acct_fd[k], buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			a->ferr[k] = -errno;
			continue;
		}
		buf[n] = '\0';
		parse(k, buf, a);
	}
	if (!keep)	/* many threads: not a descriptor each, kept */
		thread__acct_close(s, t);
}

/* The file each counter comes from. */
static const int file_of[ACCT_N] = { 0, 0, 0, 1, 1, 2, 2, 3, 3 };

void account_diff(struct session *s, struct thread *t, const struct acct *entry,
		  struct fetch_val *vals)
{
	struct acct now;

	account_read(s, t, &now);
	/* a ptrace stop is a voluntary switch: those ptap made in the call are not the call's */
	now.v[ACCT_NVCSW] -= now.nstops - entry->nstops < now.v[ACCT_NVCSW] ?
			     now.nstops - entry->nstops : now.v[ACCT_NVCSW];
	for (int k = 0; k < ACCT_N; k++) {
		int f = file_of[k];
		int err = entry->tid != t->tid ? FETCH_ERR_MOVED :
			  entry->ferr[f] ? entry->ferr[f] : now.ferr[f];

		vals[k] = err ? (struct fetch_val){ .err = err } :
			(struct fetch_val){ .u = now.v[k] >= entry->v[k] ? now.v[k] - entry->v[k] : 0 };
	}
}
