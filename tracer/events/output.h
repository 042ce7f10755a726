/* tracer/events/output.h: where records go (stdout or -o FILE), in one format. */
#ifndef PTAP_TRACER_EVENTS_OUTPUT_H
#define PTAP_TRACER_EVENTS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

struct record;
struct output;

/* OUT_PERFETTO: Chrome trace-event JSON (tracer/events/output.c, probes/perfetto.h). */
enum out_format { OUT_TEXT, OUT_JSON, OUT_PERFETTO };


/*
 * Open PATH (NULL: stdout) for FMT records; BUFLEN bounds one formatted
 * record (the buffer is allocated here, once).  0 or -errno.
 */
int output__open(const char *path, enum out_format fmt, size_t buflen, struct output **out);
/*
 * The stream's first line, naming the clock of every timestamp (CLOCK:
 * "monotonic" ...): a text or JSON header line; perfetto: the document's
 * "metadata".  Call once, before the first record.
 */
void output__header(struct output *o, const char *clock);
/*
 * Format and write REC.  Never allocates.  A failed write is counted, not
 * fatal.  A slow output (a pipe to a slow reader, even one left O_NONBLOCK)
 * is waited for: the record is never dropped, and the traced threads wait
 * with ptap; the time is counted for output__close().
 */
void output__record(struct output *o, const struct record *rec);
/*
 * Write the records held (output__record() holds them until 64 KiB are, or
 * the first is 100 ms older than the latest): for the event loop to call
 * when it is about to wait with nothing to do, so that a trace that went
 * quiet shows its last records.  Perfetto: they go to the spool.
 */
void output__flush(struct output *o);
/* The records given to output__record() so far. */
uint64_t output__records(const struct output *o);
/* The errno of the first failed write (EPIPE: the reader went away), or 0. */
int output__error(const struct output *o);
/*
 * Flush and close.  Returns the number of records that could not be written.
 * Says on stderr how long the writes took in all, "waited S.mmm s in all for
 * the output to take N records (...)": at the default level when 0.5 s or
 * more, else with -v (nothing when no record was given).
 */
uint64_t output__close(struct output *o, int *err);

#endif
