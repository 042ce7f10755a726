/* tracer/events/taskrec.c: `--events task` records -- fork, exec and exit of
 * the traced processes (taskrec.h).  Each is put together on the stack. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/fetch.h"
#include "probes/record.h"
#include "tracer/events/output.h"
#include "tracer/events/taskrec.h"
#include "tracer/session.h"
#include "tracer/thread.h"

static void record_task(struct session *s, const struct thread *t, enum rec_kind kind,
			const char *name, const struct fetch_type *type,
			const struct fetch_val *val)
{
	const char *names[1] = { name };
	struct record rec = { .ts = session__now(s), .pid = t->tgid, .tid = t->tid,
			      .comm = t->comm, .event = rec_kind__name(kind), .kind = kind,
			      .nargs = 1, .names = names, .types = type, .vals = val };

	if (s->events_task && !t->quiet)
		output__record(s->out, &rec);
}

static void task_int(struct session *s, const struct thread *t, enum rec_kind kind,
		     const char *name, long v)
{
	static const struct fetch_type type = { .kind = FT_SIGNED, .size = 8 };
	struct fetch_val val = { .u = (uint64_t)v };

	record_task(s, t, kind, name, &type, &val);
}

static void task_str(struct session *s, const struct thread *t, enum rec_kind kind,
		     const char *name, char *str)
{
	static const struct fetch_type type = { .kind = FT_STRING, .size = 8 };
	struct fetch_val val = { .str = str, .len = strlen(str), .addr = 1 };

	record_task(s, t, kind, name, &type, &val);
}

void taskrec_exit(struct session *s, const struct thread *t, int status)
{
	char name[32];

	if (WIFEXITED(status)) {
		task_int(s, t, REC_KIND_EXIT, "status", WEXITSTATUS(status));
		return;
	}
	snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(WTERMSIG(status)) ?: "?");
	task_str(s, t, REC_KIND_EXIT, "signal", name);
}

void taskrec_exec(struct session *s, const struct thread *t)
{
	char link[40], path[4096];
	ssize_t n;

	if (!s->events_task)
		return;
	snprintf(link, sizeof(link), "/proc/%d/exe", t->tgid);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	task_str(s, t, REC_KIND_EXEC, "filename", path);
}

void taskrec_fork(struct session *s, const struct thread *t, pid_t child)
{
	task_int(s, t, REC_KIND_FORK, "child", child);
}
