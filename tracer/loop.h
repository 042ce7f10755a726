/* tracer/loop.h: the event loop -- waitpid(__WALL), classify each stop,
 * dispatch it, resume the thread. */
#ifndef PTAP_TRACER_LOOP_H
#define PTAP_TRACER_LOOP_H

struct session;

/* Run until no traced thread is left.  0, or -errno for a fatal error. */
int loop_run(struct session *s);

#endif
