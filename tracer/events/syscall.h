/* tracer/events/syscall.h: `--syscalls` records and `--context` (README.md,
 * "Syscalls, and which call made them").  A listed syscall is decoded at its
 * entry stop (seccomp stop when launched, syscall-entry stop when attached)
 * into the thread's in-flight call, and recorded at its exit stop with its
 * result, its duration and the contexts current on the thread. */
#ifndef PTAP_TRACER_EVENTS_SYSCALL_H
#define PTAP_TRACER_EVENTS_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/fetch.h"

struct session;
struct thread;
struct probe;
struct ptrace_syscall_info;

/* One --context EVENT[:ARG,...]. */
struct ctx_def {
	char *event;
	char **want;		/* the ARGs named (NWANT), or none: all of EVENT's */
	int nwant;
	/*
	 * Scoped: ptap's own return probe on EVENT's function carries the values
	 * in its shadow frames, and the context is the newest of them whose call
	 * is still on the stack.  Else the values EVENT recorded last on the
	 * thread (struct thread's ctx slots).
	 */
	bool scoped;
	int slot;		/* unscoped: the thread's ctx slot */
	size_t slot_len;	/* unscoped: the slot's bytes (values, then buffers) */
	unsigned int nsel;	/* arguments shown */
	char **names;		/* NSEL */
	struct fetch_val *vals;	/* NSEL, scratch for one record */
	struct fetch_type *types;	/* NSEL, scratch */
};

/*
 * Parse --syscalls LIST (names, aliases, %classes, comma-separated) into
 * S's selection.  0; or -EINVAL after printing what is wrong and the close
 * names.
 */
int syscall_select(struct session *s, const char *list);
bool syscall_selected(const struct session *s, long nr);
/* The selected numbers (for the seccomp filter), at most MAX of them into OUT. */
int syscall_selected_list(const struct session *s, long *out, int max);

/*
 * Set up S's contexts once the probes are resolved: check every EVENT and
 * ARG (-EINVAL, said), add the scope probes (via ADD_SCOPE, which resolves
 * EVENT's -e as FUNC%return and returns its first probe's index, or -errno
 * when the return cannot be probed) and size the scratch.  0 or -errno.
 */
int syscall_contexts_setup(struct session *s,
			   int (*add_scope)(struct session *s, const char *event, void *arg),
			   void *arg);

/* A new thread's buffers (in-flight call, context slots).  0 or -ENOMEM. */
int syscall_thread_init(const struct session *s, struct thread *t);
void syscall_thread_free(struct thread *t);

/* T is at the entry (or seccomp) stop of syscall NR(ARGS), a selected one, with
 * stack pointer SP.  True when its exit stop is wanted (it returns). */
bool syscall_entry(struct session *s, struct thread *t, long nr, const uint64_t args[6],
		   uint64_t sp);
/* T is at a syscall-exit stop (INFO): record its in-flight call, if any. */
void syscall_exit(struct session *s, struct thread *t, const struct ptrace_syscall_info *info);
/* T's in-flight call will not be seen to return (T is gone, tracing ends): record it so. */
void syscall_unfinished(struct session *s, struct thread *t);

/* Probe P was recorded on T with values VALS: keep them when P is an unscoped context's
 * event. */
void syscall_ctx_note(struct session *s, struct thread *t, const struct probe *p,
		      const struct fetch_val *vals);

#endif
