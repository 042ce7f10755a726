/* tracer/space/stacks.h: the stacks of a stopped thread, word by word: its
 * own from its stack pointer up, and each further one that a signal frame
 * found on them saved a stack pointer in -- a handler on an alternate
 * stack that interrupted code on the thread's stack (or on another
 * alternate stack), which it will return to.  The signal frames are told
 * by the whole frame the kernel builds (arch.h's ARCH_SIGFRAME_*), not by a
 * word that looks like a saved pc.  For the attach (which code is live:
 * plant.c) and the detach (is a handler running over ptap's code:
 * detach.c). */
#ifndef PTAP_TRACER_SPACE_STACKS_H
#define PTAP_TRACER_SPACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct maptab;

#define STACKS_READ_MAX	(8u << 20)	/* bytes of a stack read, from its sp up */
#define STACKS_MAX	8		/* stacks looked at: the thread's, and alternate ones */

struct stacks_scan {
	/*
	 * N words of a stack, in order; each call's first
	 * ARCH_SIGFRAME_WORDS - 1 words may be the last call's last ones
	 * (a frame across two reads is seen whole).  NULL: none wanted.
	 */
	bool (*words)(const uint64_t *w, size_t n, void *arg);
	/* a signal frame at W (ARCH_SIGFRAME_WORDS words); NULL: none wanted */
	bool (*frame)(const uint64_t *w, void *arg);
	void *arg;	/* theirs; either returning true ends the scan */
};

/*
 * Read the stacks of TID (stopped; its map table MT) from SP up (from the
 * word below it on the thread's own: a frame whose handler has just
 * returned, its restorer running), calling
 * SC's functions: 1 when one of them ended it, 0 when all was read, -1
 * when SP is in no mapping MT knows or nothing of it could be read.
 */
int stacks_scan(pid_t tid, const struct maptab *mt, uint64_t sp, const struct stacks_scan *sc);

#endif
