/* tracer/events/hitrec.c: a probe's record written and counted (hitrec.h). */
#include "probes/fetch.h"
#include "probes/filter.h"
#include "probes/record.h"
#include "tracer/events/hitrec.h"
#include "tracer/events/output.h"
#include "tracer/events/syscall.h"
#include "tracer/probe.h"
#include "tracer/session.h"

void hitrec_write(struct session *s, struct thread *t, struct probe *p, const struct record *rec)
{
	/* a hit --filter leaves out still made its call: it is the context */
	syscall_ctx_note(s, t, p, rec->vals);
	if (p->filter && !filter__match(p->filter, rec)) {
		p->nfiltered++;
		return;
	}
	output__record(s->out, rec);
	p->nrec++;
	for (unsigned int i = 0; i < rec->nargs; i++)
		if (rec->vals[i].err) {
			p->nrec_err++;
			break;
		}
}
