/* tracer/engine/loop.h: the event loop -- waitpid(__WALL), classify each stop,
 * dispatch it, resume the thread. */
#ifndef PTAP_TRACER_ENGINE_LOOP_H
#define PTAP_TRACER_ENGINE_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct session;

/*
 * Set by ptap's SIGINT/SIGTERM/SIGHUP handler (the one thing a handler may
 * do): the signal to pass on, and where to send it -- the command while it
 * lives, then any traced process still running (the loop keeps this current)
 * so that the signal wakes the loop, which passes it to every traced process.
 */
extern volatile sig_atomic_t loop_stop_sig;
/* Set by a handler to end tracing (attached: SIGINT, SIGTERM, SIGHUP; --duration). */
extern volatile sig_atomic_t loop_end;
extern volatile pid_t loop_forward_pid;
/*
 * Every handler that sets one of the flags calls this last, with its
 * ucontext (SA_SIGINFO; installed with SA_RESTART): a wait under way ends.
 */
void loop_signal(void *ucontext);

/* Run until no traced thread is left.  0, or -errno for a fatal error. */
int loop_run(struct session *s);

#endif
