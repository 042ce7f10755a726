/* tracer/events/stack.h: the call stack of a hit at a stop (record -g):
 * unwound from its registers and a copy of its stack, by frame pointers or
 * CFI (dwarf/unwind.h), and symbolized through a cache of what each address
 * of a file is, shared by every process that maps the file. */
#ifndef PTAP_TRACER_EVENTS_STACK_H
#define PTAP_TRACER_EVENTS_STACK_H

#include <stdint.h>

#include "probes/record.h"

struct session;
struct site;
struct thread;

/* -g's state for S->stack_mode and S->stack_max.  0 or -ENOMEM. */
int stack_setup(struct session *s);
void stack_fini(struct session *s);

/*
 * The stack of T at a hit of site ST, REGS its registers (DWARF numbering):
 * *FRAMES (valid until the next call) and their count, at most
 * S->stack_max.  With frame pointers, allocates only what the symbol cache
 * learns; libdwfl's unwinder (dwarf) allocates as it unwinds.  A process's
 * modules are read again (its /proc/PID/maps) at its first hit after its
 * map table changed.
 */
unsigned int stack_take(struct session *s, struct thread *t, const struct site *st,
			const uint64_t *regs, const struct stack_frame **frames);

#endif
