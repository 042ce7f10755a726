/* tracer/events/account.c: a thread's counters (account.h), read with one
 * pread of each of four files kept open per thread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/log.h"
#include "tracer/events/account.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/thread.h"

const char *const account_names[ACCT_N] = {
	"read_bytes", "write_bytes", "cancelled_write_bytes", "cpu_ns", "runq_ns",
	"minflt", "majflt", "nvcsw", "nivcsw",
};

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
			if (p->account)
				continue;
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
				p->rec_names[nargs + k] = account_names[k];
				p->types[nargs + k] = u64_type;
			}
			p->account = true;
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

/* Open T's four files.  0 or -errno (none left open). */
static int acct_open(struct thread *t)
{
	char path[64];

	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", t->tgid, t->tid, files[k]);
		t->acct_fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (t->acct_fd[k] < 0) {
			int err = -errno;

			while (k--)
				close(t->acct_fd[k]);
			return err;
		}
	}
	t->acct_open = true;
	return 0;
}

/* The number after KEY at the start of a line of TEXT, or 0 when there is none. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, n))
			return strtoull(l + n, NULL, 10);
	return 0;
}

/* Field N (1-based, as proc(5) counts them) of /proc/.../stat TEXT, or 0. */
static uint64_t stat_field(const char *text, int n)
{
	const char *p = strrchr(text, ')');	/* the comm may hold spaces and parentheses */
	int f = 2;

	while (p && f < n) {
		p = strchr(p + 1, ' ');
		f++;
	}
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

void account_read(struct thread *t, struct acct *a)
{
	char buf[4][2048];
	int r;

	memset(a, 0, sizeof(*a));
	a->tid = t->tid;
	a->nstops = t->nstops;
	if (!t->acct_open && (r = acct_open(t)) < 0) {
		a->err = r;
		return;
	}
	for (int k = 0; k < 4; k++) {
		ssize_t n = pread(t->acct_fd[k], buf[k], sizeof(buf[k]) - 1, 0);

		if (n < 0) {
			a->err = -errno;
			return;
		}
		buf[k][n] = '\0';
	}
	a->v[ACCT_READ_BYTES] = keyed(buf[0], "read_bytes:");
	a->v[ACCT_WRITE_BYTES] = keyed(buf[0], "write_bytes:");
	a->v[ACCT_CANCELLED] = keyed(buf[0], "cancelled_write_bytes:");
	if (sscanf(buf[1], "%lu %lu", (unsigned long *)&a->v[ACCT_CPU_NS],
		   (unsigned long *)&a->v[ACCT_RUNQ_NS]) != 2)
		a->err = -EINVAL;
	a->v[ACCT_MINFLT] = stat_field(buf[2], 10);
	a->v[ACCT_MAJFLT] = stat_field(buf[2], 12);
	a->v[ACCT_NVCSW] = keyed(buf[3], "voluntary_ctxt_switches:");
	a->v[ACCT_NIVCSW] = keyed(buf[3], "nonvoluntary_ctxt_switches:");
}

void account_diff(struct thread *t, const struct acct *entry, struct fetch_val *vals)
{
	struct acct now;

	account_read(t, &now);
	/* a ptrace stop is a voluntary switch: those ptap made in the call are not the call's */
	now.v[ACCT_NVCSW] -= now.nstops - entry->nstops < now.v[ACCT_NVCSW] ?
			     now.nstops - entry->nstops : now.v[ACCT_NVCSW];
	for (int k = 0; k < ACCT_N; k++) {
		int err = entry->tid != t->tid ? FETCH_ERR_MOVED : entry->err ? entry->err : now.err;

		vals[k] = err ? (struct fetch_val){ .err = err } :
			(struct fetch_val){ .u = now.v[k] >= entry->v[k] ? now.v[k] - entry->v[k] : 0 };
	}
}
