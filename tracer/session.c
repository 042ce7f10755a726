/* tracer/session.c: the session's queue of deferred wait statuses. */
#include <errno.h>
#include <time.h>

#include "probes/array.h"
#include "tracer/session.h"

int session__defer(struct session *s, pid_t pid, int status)
{
	if (s->deferred_head == s->ndeferred)
		s->deferred_head = s->ndeferred = 0;
	if (array_grow((void **)&s->deferred, &s->deferred_cap, sizeof(*s->deferred),
		       s->ndeferred + 1))
		return -ENOMEM;
	s->deferred[s->ndeferred++] = (struct deferred){ .pid = pid, .status = status };
	return 0;
}

bool session__undefer(struct session *s, pid_t *pid, int *status)
{
	if (s->deferred_head == s->ndeferred)
		return false;
	*pid = s->deferred[s->deferred_head].pid;
	*status = s->deferred[s->deferred_head++].status;
	return true;
}

uint64_t session__now(const struct session *s)
{
	struct timespec ts;

	clock_gettime(s->clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
