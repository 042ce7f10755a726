/* tracer/thread.c: the thread table: open addressing by tid, linear
 * probing, backward-shift deletion (no tombstones). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/log.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/shadow.h"
#include "tracer/engine/stop.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/thread.h"

static size_t slot_of(const struct session *s, pid_t tid)
{
	return ((size_t)tid * 2654435761u) & (s->threads_cap - 1);
}

struct thread *thread__find(const struct session *s, pid_t tid)
{
	if (!s->threads_cap)
		return NULL;
	for (size_t i = slot_of(s, tid);; i = (i + 1) & (s->threads_cap - 1)) {
		struct thread *t = s->threads[i];

		if (!t || t->tid == tid)
			return t;
	}
}

static void table_put(struct session *s, struct thread *t)
{
	size_t i = slot_of(s, t->tid);

	while (s->threads[i])
		i = (i + 1) & (s->threads_cap - 1);
	s->threads[i] = t;
}

static int table_grow(struct session *s)
{
	struct thread **old = s->threads;
	size_t oldcap = s->threads_cap, cap = oldcap ? oldcap * 2 : 64;

	s->threads = calloc(cap, sizeof(*s->threads));
	if (!s->threads) {
		s->threads = old;
		return -ENOMEM;
	}
	s->threads_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			table_put(s, old[i]);
	free(old);
	return 0;
}

void thread__read_comm(struct thread *t)
{
	char path[40];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", t->tgid, t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, t->comm, sizeof(t->comm) - 1);
	close(fd);
	if (n > 0 && t->comm[n - 1] == '\n')
		n--;
	t->comm[n > 0 ? n : 0] = '\0';
}

struct thread *thread__add(struct session *s, pid_t tid, pid_t tgid, struct aspace *as)
{
	struct thread *t;

	if ((s->nthreads + 1) * 2 > s->threads_cap && table_grow(s) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->tgid = tgid;
	t->as = as ? aspace__get(as) : NULL;
	t->sc_nr = -1;
	if (s->retprobes && !(t->shadow = shadow__new())) {
		aspace__put(t->as);
		free(t);
		return NULL;
	}
	table_put(s, t);
	s->nthreads++;
	return t;
}

void thread__acct_close(struct session *s, struct thread *t)
{
	if (!t->acct_open)
		return;
	for (int k = 0; k < 4; k++)
		if (t->acct_fd[k] >= 0)
			close(t->acct_fd[k]);
	t->acct_open = false;
	s->acct_kept--;
}

void thread__remove(struct session *s, struct thread *t)
{
	size_t mask = s->threads_cap - 1, i = slot_of(s, t->tid), j;

	while (s->threads[i] != t)
		i = (i + 1) & mask;
	s->threads[i] = NULL;
	/* Backward shift: move later entries of the cluster into the hole. */
	for (j = (i + 1) & mask; s->threads[j]; j = (j + 1) & mask) {
		size_t home = slot_of(s, s->threads[j]->tid);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->threads[i] = s->threads[j];
			s->threads[j] = NULL;
			i = j;
		}
	}
	s->nthreads--;
	thread__acct_close(s, t);
	aspace__put(t->as);
	shadow__free(t->shadow);
	free(t);
}

void thread__for_each(struct session *s, void (*fn)(struct session *, struct thread *, void *),
		      void *arg)
{
	/* Collect first: FN may remove threads and reshuffle the table. */
	size_t n = 0;
	pid_t *tids = malloc(s->nthreads * sizeof(*tids) + 1);

	if (!tids)
		return;
	for (size_t i = 0; i < s->threads_cap; i++)
		if (s->threads[i])
			tids[n++] = s->threads[i]->tid;
	for (size_t i = 0; i < n; i++) {
		struct thread *t = thread__find(s, tids[i]);

		if (t)
			fn(s, t, arg);
	}
	free(tids);
}

void thread__resume(struct thread *t, int sig)
{
	int r;

	t->stopped = false;
	t->stop_kind = STOP_NONE;
	r = t->want_exit || t->sysmode ? pt_syscall(t->tid, sig) : pt_cont(t->tid, sig);
	if (r < 0 && r != -ESRCH)	/* ESRCH: killed meanwhile; its exit is on the way */
		pr_warn("tid %d: cannot resume: %s\n", t->tid, strerror(-r));
}
