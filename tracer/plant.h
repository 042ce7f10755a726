/* tracer/plant.h: planting probe sites into an address space as the
 * modules they live in are mapped. */
#ifndef PTAP_TRACER_PLANT_H
#define PTAP_TRACER_PLANT_H

#include <stdint.h>

struct session;
struct thread;

/*
 * Plant every probe whose module has an executable mapping overlapping
 * [LO, HI) of T's address space and is not planted there yet.  T is in a
 * ptrace stop (a scratch page may have to be mapped through it).  Returns the
 * number of sites planted, or -ESRCH when T exited or exec'd meanwhile (its
 * event is queued for the main loop: do not resume T).
 */
int plant_range(struct session *s, struct thread *t, uint64_t lo, uint64_t hi);

#endif
