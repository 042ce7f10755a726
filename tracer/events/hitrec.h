/* tracer/events/hitrec.h: a probe's record -- written, counted on its probe
 * for the summary at the end, and kept for --context -- wherever it was made
 * (at a stop, in the process, at a return). */
#ifndef PTAP_TRACER_EVENTS_HITREC_H
#define PTAP_TRACER_EVENTS_HITREC_H

struct probe;
struct record;
struct session;
struct thread;

/* Write REC, a record of probe P made on T (REC's values are P's, by position). */
void hitrec_write(struct session *s, struct thread *t, struct probe *p, const struct record *rec);

#endif
