/* cmd/record.c: `ptap record` -- parse the options, resolve every
 * probe before anything runs (bad input exits 2 with the target untouched),
 * launch the command, run the loop, exit with the command's status. */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/summary.h"
#include "dwarf/demangle.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolve.h"
#include "probes/err.h"
#include "probes/filter.h"
#include "probes/log.h"
#include "probes/record.h"
#include "probes/spec.h"
#include "tracer/engine/attach.h"
#include "tracer/engine/launch.h"
#include "tracer/engine/loop.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/account.h"
#include "tracer/events/mmapev.h"
#include "tracer/events/output.h"
#include "tracer/events/stack.h"
#include "tracer/events/syscall.h"
#include "tracer/host/fdlimit.h"
#include "tracer/host/libpath.h"
#include "tracer/host/placement.h"
#include "tracer/host/privs.h"
#include "tracer/probe.h"
#include "tracer/session.h"

#define STRING_MAX_DEFAULT	256
#define STACK_MAX_DEFAULT	64	/* -g: frames a stack */
#define STACK_MAX_LIMIT		1024
#define STACK_FRAME_ROOM	2048	/* bytes of one frame's text, escaped */
#define STRING_MAX_LIMIT	(1 << 20)

struct probe_req {
	const char *text;	/* -e PROBE */
	const char *module;	/* the -x before it, or NULL: the command */
	const char *filter;	/* the --filter after it, or NULL */
	char *path;		/* MODULE found (libpath_find()), owned; NULL: none */
};

struct record_opts {
	struct probe_req *reqs;
	int nreqs;
	const char *cur_module;
	bool module_unused;	/* the last -x came after the last -e */
	char **cmd;
	const char *debuginfo_dir;
	int max_probes;
	bool no_inlines;
	bool no_jumps;		/* --no-jumps: every site an int3 */
	bool summary;		/* --summary: ptap report's statistics instead of records */
	bool quiet;		/* -q: no start line, no summary of the records at the end */
	const char **accounts;	/* --account EVENT, each (tracer/events/account.h) */
	int naccounts;
	pid_t *pids;		/* -p */
	int npids;
	double duration;	/* --duration, 0: none */
	const char *user;	/* -u USER, else NULL */
	struct launch_user run_as;	/* USER looked up */
};

static const char record_usage[] =
	"usage: ptap record [OPTIONS] -e PROBE [-e PROBE ...] -- COMMAND [ARG...]\n"
	"       ptap record [OPTIONS] -e PROBE [-e PROBE ...] -p PID[,PID...]\n"
	"       ptap record [OPTIONS] --syscalls LIST [-e PROBE ...] -- COMMAND [ARG...]\n"
	"  -e, --event PROBE     [EVENT=]POINT [ARG...]   (perf probe syntax)\n"
	"                        POINT: FUNC[@SRC][+OFF|:RELLINE] | SRC:LINE | 0xADDR;\n"
	"                        FUNC may be a glob (* ? [..]); FUNC%return: a return\n"
	"                        probe (its record at the return, with the duration)\n"
	"                        ARG: [NAME=]VAR[->M|.M|[I]...] | *VAR | VAR@FILE.c |\n"
	"                             $params | $vars | %REG | $argN | +OFF(ARG) | @SYMBOL,\n"
	"                             $retval (%return; the others there: at the entry),\n"
	"                             then [:TYPE]  (TYPE: s8..s64 u8..u64 x8..x64 string;\n"
	"                             DWARF variables print by their type without one)\n"
	"      --filter EXPR     write only the hits of the -e before it that match EXPR:\n"
	"                        ARG OP VALUE (OP: == != < <= > >=, ~ a glob on strings;\n"
	"                        ARG: its argument names, pid, tid, comm), joined with\n"
	"                        && || ! and ( ), e.g. 'q ~ \"*pg_class*\" && len > 10'\n"
	"  -g                    record each hit's call stack, by frame pointers (as\n"
	"                        --call-graph fp)\n"
	"      --call-graph MODE fp (frame pointers: cheap, stops at code built without\n"
	"                        them) or dwarf (CFI: .eh_frame, .debug_frame); each\n"
	"                        record shows its stack, deepest first: function+offset,\n"
	"                        FILE:LINE, inlined functions; every hit then stops\n"
	"      --stack-max N     at most N frames a stack (default 64)\n"
	"  -x, --exec BINARY     the following probes live in BINARY (default: COMMAND,\n"
	"                        or the first PID's executable)\n"
	"  -p, --pid PID[,PID]   attach to running processes (all their threads); detach\n"
	"                        cleanly on SIGINT, SIGTERM, SIGHUP or --duration\n"
	"  -u, --user USER       run COMMAND as USER (uid, gid and groups; root only);\n"
	"                        ptap itself stays root\n"
	"      --no-follow       do not trace children (fork, vfork, clone): no records,\n"
	"                        breakpoints removed from them\n"
	"      --no-jumps        a probe whose first instructions allow it (attached: where\n"
	"                        no thread is inside them) is a jump to a trampoline that\n"
	"                        holds the int3 (no register written at a hit); this\n"
	"                        makes every probe a plain int3\n"
	"      --no-agent        a probe at such a jump (attached too, where no thread is\n"
	"                        inside its bytes) that records only its arguments is\n"
	"                        recorded inside the process, by ptap's agent, without\n"
	"                        stopping the thread; this makes every hit a stop\n"
	"      --events KINDS    also record, KINDS a comma list (repeatable):\n"
	"                        task: fork, exec and exit of traced processes;\n"
	"                        mmap: map changes (mmap, munmap, mprotect, mremap, and\n"
	"                        the mappings present at attach and exec), with each\n"
	"                        file's dev:inode and ELF build-id\n"
	"      --duration SECS   stop tracing after SECS seconds\n"
	"      --mmap-tracking M attached: rbrk (default; map changes seen at dlopen and\n"
	"                        dlclose) or syscall (at every mmap: slower)\n"
	"  -o, --output FILE     write records to FILE (default, or -: stdout)\n"
	"  -F, --format FMT      text (default), json or perfetto (a trace for ui.perfetto.dev)\n"
	"      --summary         no records: at the end, what `ptap report` would print for\n"
	"                        them (per event: count, rate, top values, durations), in\n"
	"                        bounded memory; --format json: its JSON document\n"
	"      --string-max N    read at most N bytes of a string (default 256)\n"
	"      --cpu POLICY      where ptap runs: follow (default: on the CPU of the thread\n"
	"                        it stopped, so hits cost about what they do pinned to one\n"
	"                        CPU; needs CAP_SYS_NICE or RLIMIT_NICE 20, else as free)\n"
	"                        or free (wherever the scheduler puts it)\n"
	"      --syscalls LIST   also record these syscalls (names as strace has them, and\n"
	"                        %file %desc %net %memory %process %signal %ipc %creds\n"
	"                        %clock), with decoded arguments, result and duration\n"
	"      --context EVENT[:ARG,...]  every syscall record carries what EVENT (an -e\n"
	"                        probe) recorded last on its thread, while EVENT's function\n"
	"                        is on the stack (repeatable)\n"
	"      --account EVENT   what each call of EVENT (a return probe's) cost its thread:\n"
	"                        storage bytes read and written, CPU and run-queue time,\n"
	"                        page faults, context switches, from /proc/PID/task/TID\n"
	"                        at its entry and return; on the return record\n"
	"                        (repeatable; every hit then stops)\n"
	"      --clock CLOCK     monotonic (default), realtime, boottime or tai; the output's\n"
	"                        first line names it\n"
	"      --debuginfo-dir DIR  look for separate debug files in DIR first\n"
	"                        (DIR/.build-id/NN/REST.debug, DIR/PATH, .gnu_debuglink)\n"
	"      --max-probes N    at most N sites per probe (default 128)\n"
	"      --no-inlines      probe only out-of-line copies of functions\n"
	"  -q, --quiet           say nothing but warnings and errors: no line naming the\n"
	"                        probes at the start, no summary of the records at the end\n"
	"  -v, --verbose         more messages (repeat for more)\n";

/* Print ERR for the probe TEXT, with a caret under the column when known. */
static void show_probe_err(const char *text, const struct ptap_err *err)
{
	pr_err("bad probe '%s': %s\n", text, err->msg);
	if (err->pos >= 0 && (size_t)err->pos <= strlen(text))
		fprintf(stderr, "  %s\n  %*s^\n", text, err->pos, "");
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("ptap: record: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	return cmd_see_help("record");
}

static int parse_clock(struct session *s, const char *name)
{
	static const struct { const char *name; clockid_t id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "realtime", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
	};

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(name, clocks[i].name)) {
			s->clock = clocks[i].id;
			s->clock_name = clocks[i].name;
			return 0;
		}
	return -EINVAL;
}

/* --context EVENT[:ARG,...] */
static int add_context(struct session *s, const char *arg)
{
	struct ctx_def *c = realloc(s->ctxs, (s->nctxs + 1) * sizeof(*c));
	char *colon, *tok, *save = NULL;

	if (!c)
		return -ENOMEM;
	s->ctxs = c;
	c = &s->ctxs[s->nctxs];
	memset(c, 0, sizeof(*c));
	c->event = strdup(arg);
	if (!c->event)
		return -ENOMEM;
	s->nctxs++;
	colon = strchr(c->event, ':');
	if (!colon)
		return c->event[0] ? 0 : -EINVAL;
	*colon = '\0';
	for (tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **w = realloc(c->want, (c->nwant + 1) * sizeof(*w));

		if (!w)
			return -ENOMEM;
		c->want = w;
		c->want[c->nwant++] = tok;
	}
	return c->event[0] && c->nwant ? 0 : -EINVAL;
}

static int add_req(struct record_opts *o, const char *text)
{
	struct probe_req *r = realloc(o->reqs, (o->nreqs + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	o->reqs = r;
	o->reqs[o->nreqs++] = (struct probe_req){ .text = text, .module = o->cur_module };
	o->module_unused = false;
	return 0;
}

enum { OPT_STRING_MAX = 256, OPT_CLOCK, OPT_DEBUGINFO_DIR, OPT_MAX_PROBES,
       OPT_NO_INLINES, OPT_NO_FOLLOW, OPT_EVENTS, OPT_DURATION, OPT_MMAP_TRACKING,
       OPT_SYSCALLS, OPT_CONTEXT, OPT_CPU,
       OPT_NO_JUMPS, OPT_NO_AGENT, OPT_FILTER, OPT_SUMMARY, OPT_CALL_GRAPH, OPT_STACK_MAX,
       OPT_ACCOUNT };

/* -p 12,34: the pids, appended to O's list.  0 or -EINVAL. */
static int parse_pids(struct record_opts *o, const char *arg)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		pid_t *n;

		if (end == p || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return -EINVAL;
		n = realloc(o->pids, (o->npids + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		o->pids = n;
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return o->npids ? 0 : -EINVAL;
}

/* --events KIND[,KIND...]: task, mmap (added to the ones given before).  0 or -EINVAL. */
static int parse_events(struct session *s, const char *arg)
{
	const char *p = arg;

	do {
		size_t n = strcspn(p, ",");

		if (n == 4 && !strncmp(p, "task", 4))
			s->events_task = true;
		else if (n == 4 && !strncmp(p, "mmap", 4))
			s->events_mmap = true;
		else
			return -EINVAL;
		p += n;
	} while (*p++ == ',');
	return 0;
}

struct choice {
	const char *name;
	int val;
};

/* The value of NAME in CHOICES (ended by a NULL name), or -EINVAL. */
static int choose(const struct choice *choices, const char *name)
{
	for (; choices->name; choices++)
		if (!strcmp(name, choices->name))
			return choices->val;
	return -EINVAL;
}

/* ARG as a decimal number from LO to HI into *OUT: 0 or -EINVAL. */
static int parse_long(const char *arg, long lo, long hi, long *out)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || n < lo || n > hi)
		return -EINVAL;
	*out = n;
	return 0;
}

/* --duration SECS: 0 or -EINVAL. */
static int parse_duration(struct record_opts *o, const char *arg)
{
	char *end;
	double d = strtod(arg, &end);

	if (*end || !(d > 0) || d > 1e7)
		return -EINVAL;
	o->duration = d;
	return 0;
}

/*
 * One option C (as getopt_long() returns it) with its argument ARG, into S and O.  0, or the
 * exit status for a usage error.
 */
static int parse_opt(struct session *s, struct record_opts *o, int c, const char *arg)
{
	static const struct choice cpus[] = {
		{ "follow", CPU_FOLLOW }, { "free", CPU_FREE }, { NULL, 0 }
	};
	static const struct choice call_graphs[] = {
		{ "fp", STACK_FP }, { "dwarf", STACK_DWARF }, { NULL, 0 }
	};
	static const struct choice trackings[] = {
		{ "rbrk", MMAP_RBRK }, { "syscall", MMAP_SYSCALL }, { NULL, 0 }
	};
	static const struct choice formats[] = {
		{ "text", OUT_TEXT }, { "json", OUT_JSON }, { "perfetto", OUT_PERFETTO }, { NULL, 0 }
	};
	long n;
	int v;

	switch (c) {
	case 'e':
		return add_req(o, arg) < 0 ? 1 : 0;
	case 'x':
		o->cur_module = arg;
		o->module_unused = true;
		return 0;
	case OPT_FILTER:
		if (!o->nreqs)
			return usage_error("--filter %s: give it after the -e whose hits it filters",
					   arg);
		if (o->reqs[o->nreqs - 1].filter)
			return usage_error("--filter %s: one --filter for each -e (join them with &&)",
					   arg);
		o->reqs[o->nreqs - 1].filter = arg;
		return 0;
	case 'p':
		if (parse_pids(o, arg) < 0)
			return usage_error("-p %s: give process ids, separated by commas", arg);
		s->attach = true;
		return 0;
	case 'u':
		o->user = arg;
		return 0;
	case 'o':
		s->out_path = strcmp(arg, "-") ? arg : NULL;	/* -: stdout, as report's - is stdin */
		return 0;
	case OPT_NO_JUMPS:
		o->no_jumps = true;
		return 0;
	case OPT_NO_AGENT:
		s->inproc_on = false;
		return 0;
	case OPT_SUMMARY:
		o->summary = true;
		return 0;
	case 'g':
		s->stack_mode = STACK_FP;
		return 0;
	case OPT_CALL_GRAPH:
		if ((v = choose(call_graphs, arg)) < 0)
			return usage_error("--call-graph %s: use fp (frame pointers) or dwarf (CFI)",
					   arg);
		s->stack_mode = v;
		return 0;
	case OPT_STACK_MAX:
		if (parse_long(arg, 1, STACK_MAX_LIMIT, &n) < 0)
			return usage_error("--stack-max %s: give a number from 1 to 1024", arg);
		s->stack_max = (int)n;
		return 0;
	case OPT_NO_FOLLOW:
		s->no_follow = true;
		return 0;
	case OPT_SYSCALLS:
		return syscall_select(s, arg) < 0 ? 2 : 0;
	case OPT_ACCOUNT: {
		const char **a = realloc(o->accounts, (o->naccounts + 1) * sizeof(*a));

		if (!a)
			return usage_error("%sout of memory", "");
		o->accounts = a;
		a[o->naccounts++] = arg;
		return 0;
	}
	case OPT_CONTEXT:
		if (add_context(s, arg) < 0)
			return usage_error("--context %s: give EVENT or EVENT:ARG[,ARG...]", arg);
		return 0;
	case OPT_CPU:
		if ((v = choose(cpus, arg)) < 0)
			return usage_error("--cpu %s: use follow or free", arg);
		s->cpu = v;
		return 0;
	case OPT_EVENTS:
		if (parse_events(s, arg) < 0)
			return usage_error("--events %s: give a comma list of task (fork, exec, exit) "
					   "and mmap (map changes)", arg);
		return 0;
	case OPT_DURATION:
		if (parse_duration(o, arg) < 0)
			return usage_error("--duration %s: give seconds, more than 0", arg);
		return 0;
	case OPT_MMAP_TRACKING:
		if ((v = choose(trackings, arg)) < 0)
			return usage_error("--mmap-tracking %s: use rbrk or syscall", arg);
		s->mmap_tracking = v;
		return 0;
	case 'F':
		if ((v = choose(formats, arg)) < 0)
			return usage_error("--format %s: use text, json or perfetto", arg);
		s->format = v;
		return 0;
	case OPT_STRING_MAX:
		if (parse_long(arg, 1, STRING_MAX_LIMIT, &n) < 0)
			return usage_error("--string-max %s: give a number from 1 to 1048576", arg);
		s->string_max = (size_t)n;
		return 0;
	case OPT_DEBUGINFO_DIR:
		o->debuginfo_dir = arg;
		return 0;
	case OPT_MAX_PROBES:
		if (parse_long(arg, 1, 100000, &n) < 0)
			return usage_error("--max-probes %s: give a number from 1 to 100000", arg);
		o->max_probes = (int)n;
		return 0;
	case OPT_NO_INLINES:
		o->no_inlines = true;
		return 0;
	case OPT_CLOCK:
		if (parse_clock(s, arg) < 0)
			return usage_error("--clock %s: use monotonic, realtime, boottime or tai", arg);
		return 0;
	case 'v':
		log_more_verbose();
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'h':
		fputs(record_usage, stdout);
		exit(0);
	default:	/* getopt said what */
		return cmd_see_help("record");
	}
}

/* The options that do not go together, once all are read.  0, or the exit status. */
static int check_opts(const struct session *s, const struct record_opts *o, int argc,
		      char **argv)
{
	if (s->attach && optind < argc)
		return usage_error("%s: give either -p PID or -- COMMAND, not both", argv[optind]);
	if (s->attach && o->user)
		return usage_error("-u %s runs a launched COMMAND as that user: an attached "
				   "process (-p) keeps its own", o->user);
	if (!s->attach && optind >= argc)
		return usage_error("%sno command: give it after --, or attach with -p PID", "");
	if (!o->nreqs && !s->nsc)
		return usage_error("%sno probes: give at least one -e PROBE, or --syscalls", "");
	if (s->nctxs && !s->nsc)
		return usage_error("%s--context tags syscall records: give --syscalls too", "");
	if (o->summary && s->format == OUT_PERFETTO)
		return usage_error("%s--summary writes ptap report's text or JSON (--format json), "
				   "not a trace", "");
	if (s->format == OUT_PERFETTO && !s->out_path && !s->attach)
		return usage_error("%s--format perfetto writes one JSON document: give -o FILE, "
				   "not stdout (the command's own output would mix into it)", "");
	if (!s->attach && s->mmap_tracking != MMAP_SECCOMP)
		return usage_error("%s--mmap-tracking is for attached processes (-p): a launched "
				   "command's maps are tracked through a seccomp filter", "");
	return 0;
}

/*
 * Each -x BINARY as a path (libpath_find(): a path, or a library the dynamic loader would
 * find, or one the attached processes map).  0, or the exit status after saying which is
 * missing.
 */
static int find_modules(const struct session *s, struct record_opts *o)
{
	for (int i = 0; i < o->nreqs; i++) {
		struct probe_req *req = &o->reqs[i];
		char path[4096];

		if (!req->module)
			continue;
		if (libpath_find(req->module, o->pids, o->npids, path, sizeof(path)) < 0) {
			pr_err("-x %s: no such file, nor a library of that name %s the dynamic "
			       "loader's directories: give its path\n", req->module,
			       s->attach ? "mapped by the process or in" : "in");
			return 2;
		}
		req->path = strdup(path);
		if (!req->path)
			return usage_error("%sout of memory", "");
		req->module = req->path;
	}
	return 0;
}

/* 0, or the exit status for a usage error. */
static int parse_args(struct session *s, struct record_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "exec", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'F' },
		{ "string-max", required_argument, NULL, OPT_STRING_MAX },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "debuginfo-dir", required_argument, NULL, OPT_DEBUGINFO_DIR },
		{ "max-probes", required_argument, NULL, OPT_MAX_PROBES },
		{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "mmap-tracking", required_argument, NULL, OPT_MMAP_TRACKING },
		{ "syscalls", required_argument, NULL, OPT_SYSCALLS },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "no-jumps", no_argument, NULL, OPT_NO_JUMPS },
		{ "no-agent", no_argument, NULL, OPT_NO_AGENT },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "account", required_argument, NULL, OPT_ACCOUNT },
		{ "stack-max", required_argument, NULL, OPT_STACK_MAX },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, ret;

	while ((c = getopt_long(argc, argv, "+e:x:o:p:u:F:gvqh", longopts, NULL)) != -1)
		if ((ret = parse_opt(s, o, c, optarg)))
			return ret;
	if (o->module_unused && o->nreqs)	/* perf probe's -x is anywhere: ours is not */
		return usage_error("-x %s comes after the last -e: it names the binary of the -e "
				   "options after it; put it before the -e", o->cur_module);
	ret = check_opts(s, o, argc, argv);
	if (ret)
		return ret;
	if (s->attach && s->mmap_tracking == MMAP_SECCOMP)
		s->mmap_tracking = MMAP_RBRK;
	o->cmd = s->attach ? NULL : &argv[optind];
	return find_modules(s, o);
}

/* Modules opened for resolution, once per path, and their debug information. */
struct modcache {
	char *path[64];		/* owned */
	struct elfmod *mod[64];
	int n;
	struct dbg_cache *dbgs;		/* once per build-id (dwarf/debuginfo.h) */
};

static int modcache_get(struct modcache *mc, const char *path, struct elfmod **out,
			struct ptap_err *err)
{
	for (int i = 0; i < mc->n; i++)
		if (!strcmp(mc->path[i], path)) {
			*out = mc->mod[i];
			return 0;
		}
	if (mc->n == 64)
		return ptap_err_set(err, -1, -E2BIG, "too many binaries (at most 64)");
	int r = elfmod__open(path, out, err);

	if (r < 0)
		return r;
	mc->path[mc->n] = strdup(path);
	if (!mc->path[mc->n]) {
		elfmod__close(*out);
		return ptap_err_set(err, -1, -ENOMEM, "out of memory");
	}
	mc->mod[mc->n++] = *out;
	return 0;
}

static void modcache_exit(struct modcache *mc)
{
	for (int i = 0; i < mc->n; i++) {
		elfmod__close(mc->mod[i]);
		free(mc->path[i]);
	}
	mc->n = 0;
	dbg_cache__free(mc->dbgs);	/* the probes keep copies of what they need */
	mc->dbgs = NULL;
}

/*
 * EVENT= if given, else the site as an identifier ("exec_query",
 * "exec_query+4" -> "exec_query_4", "structs.c:42" -> "structs_c_42",
 * "ns::Db::query" -> "ns_Db_query", "main.(*Server).Serve" ->
 * "main_Server_Serve": in a C++, Rust or Go name a run of other
 * characters is one '_', none at either end); a return probe's is perf's
 * FUNC__return.
 */
static char *event_name(const struct probe_spec *spec, const struct resolved_probe *rp)
{
	const char *base = spec->event ? spec->event :
			   spec->point.kind == PP_FUNC && !spec->point.offset ? rp->func : rp->where;
	/* room for operators as words: "<<=" is "_shl_assign" */
	char *name = malloc(strlen(base) * 4 + sizeof("__return")), *o = name;
	bool qual = demangle_is_qualified(base) || strchr(base, '(');	/* or Go's main.(*T).M */
	bool op_word = false;

	if (!name)
		return NULL;
	for (const char *c = base; *c; c++) {
		const char *word;
		size_t n;

		/* C++'s operator+ and operator- are operator_plus and operator_minus */
		if (qual && !spec->event && c - base >= 8 && !strncmp(c - 8, "operator", 8) &&
		    (c - base == 8 || !(isalnum((unsigned char)c[-9]) || c[-9] == '_')) &&
		    (word = demangle_operator_word(c, &n))) {
			o += sprintf(o, "_%s", word);
			c += n - 1;
			op_word = true;	/* a word: the characters after it are a new run */
			continue;
		}
		if (spec->event || isalnum((unsigned char)*c) || *c == '_')
			*o++ = *c;
		else if (!qual || (o > name && (isalnum((unsigned char)c[-1]) || c[-1] == '_' ||
						op_word)))
			*o++ = '_';	/* C's, each; a C++ or Rust name's, the first of a run */
		op_word = false;
	}
	if (qual && !spec->event && o > name + 1 && o[-1] == '_' &&
	    !(isalnum((unsigned char)base[strlen(base) - 1]) || base[strlen(base) - 1] == '_'))
		o--;
	strcpy(o, rp->retprobe && !spec->event ? "__return" : "");
	return name;
}

/* A return probe's shadow frame: the values, then the buffers of those fetched at the entry. */
static int retprobe_setup(struct session *s, struct probe *p)
{
	int n = p->rp.nargs;
	size_t off = n * sizeof(struct fetch_val);

	s->retprobes = true;
	p->ent_off = calloc(n ? n : 1, sizeof(*p->ent_off));
	if (!p->ent_off)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (p->rp.at_return[i])
			continue;
		p->ent_off[i] = off;
		off += (fetch_prog__buflen(&p->rp.progs[i], s->string_max) + 7) & ~(size_t)7;
	}
	p->ent_len = off;
	if (p->rp.noreturn)
		pr_warn("%s: %s is declared noreturn: it never returns, so this probe records "
			"nothing\n", p->event, p->rp.func);
	return 0;
}

static int probe_setup(struct session *s, struct probe *p, const struct probe_spec *spec,
		       struct elfmod *mod)
{
	int n = p->rp.nargs;
	size_t total = 0;

	p->event = event_name(spec, &p->rp);
	p->module = strdup(elfmod__path(mod));
	p->dev = elfmod__dev(mod);
	p->ino = elfmod__ino(mod);
	/* Everything one hit needs, allocated now: the hit path allocates nothing. */
	p->vals = calloc(n ? n : 1, sizeof(*p->vals));
	p->types = calloc(n ? n : 1, sizeof(*p->types));
	p->bufs = calloc(n ? n : 1, sizeof(*p->bufs));
	if (!p->event || !p->module || !p->vals || !p->types || !p->bufs)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		total += fetch_prog__buflen(&p->rp.progs[i], s->string_max);
	p->strbuf = malloc(total ? total : 1);
	if (!p->strbuf)
		return -ENOMEM;
	total = 0;
	for (int i = 0; i < n; i++) {
		p->types[i] = p->rp.progs[i].type;
		p->bufs[i] = p->strbuf + total;
		total += fetch_prog__buflen(&p->rp.progs[i], s->string_max);
	}
	return p->rp.retprobe ? retprobe_setup(s, p) : 0;
}

/* Resolve SPEC in MOD into as many probes as it has sites, appended to S->probes. */
static int add_probes(struct session *s, struct elfmod *mod, const struct probe_spec *spec,
		      const struct resolve_opts *ro, bool rbrk, struct ptap_err *err)
{
	struct resolved_probe *rps = NULL;
	int n = 0, done = 0;
	int r = resolve_probes(mod, spec, ro, &rps, &n, err);

	if (r == 0) {
		struct probe *p = realloc(s->probes, (s->nprobes + n) * sizeof(*p));

		if (!p)
			r = -ENOMEM;
		else
			s->probes = p;
	}
	for (; r == 0 && done < n; done++) {
		struct probe *p = &s->probes[s->nprobes++];

		memset(p, 0, sizeof(*p));
		p->req = -1;	/* ptap's own, until resolve_one() says which -e */
		p->rp = rps[done];
		p->rbrk = rbrk;
		r = probe_setup(s, p, spec, mod);
	}
	/* the ones not moved into S->probes */
	for (int i = done; i < n; i++)
		resolved_probe__exit(&rps[i]);
	free(rps);
	return r;
}

/*
 * The exits of every return probe (rp.exits), each a probe of its own after
 * all the others: planted, restored and healed as any site, the hit pops the
 * call's frame (tracer/engine/shadow.h).  No record, no summary line of
 * their own: a site that cannot be planted is said with the return probe's
 * name.
 */
static int add_exit_probes(struct session *s)
{
	int n = s->nprobes, total = n;
	struct probe *v;

	for (int i = 0; i < n; i++)
		total += s->probes[i].rp.nexits;
	if (total == n)
		return 0;
	v = realloc(s->probes, total * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->probes = v;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < s->probes[i].rp.nexits; k++) {
			const struct probe *owner = &s->probes[i];
			const struct resolved_exit *e = &owner->rp.exits[k];
			struct probe *q = &s->probes[s->nprobes++];

			memset(q, 0, sizeof(*q));
			q->exit_of = i + 1;
			q->exit_kind = e->kind;
			q->hidden = owner->hidden;
			q->req = owner->req;
			q->dev = owner->dev;
			q->ino = owner->ino;
			q->rp.vaddr = e->vaddr;
			q->rp.file_off = e->file_off;
			q->rp.insn = e->insn;
			q->rp.jump = e->jump;
			q->rp.nojump = e->nojump ? strdup(e->nojump) : NULL;
			/* $retval in xmm0 is read at a ret; a tail call's is not known yet */
			q->rp.fpregs = owner->rp.fpregs_ret && e->kind == ARCH_EXIT_RET;
			q->event = strdup(owner->event);
			q->module = strdup(owner->module);
			if (!q->event || !q->module)
				return -ENOMEM;
		}
	}
	return 0;
}

static bool is_glob(const struct probe_spec *spec)
{
	return spec->point.kind == PP_FUNC && spec->point.func &&
	       name_is_glob(spec->point.func);
}

/*
 * "ptap: 'sqlite3*': 1 of 1370 sites left out: cannot probe
 * sqlite3MemoryBarrier: its first instruction ..." -- once per glob, with the
 * first few reasons (-v: each one, as it is found).
 */
static void report_skips(const char *text, const struct site_skips *sk, int kept)
{
	char list[SITE_SKIPS_SHOWN * 404] = "";
	size_t used = 0;

	for (int i = 0; i < sk->n && i < SITE_SKIPS_SHOWN; i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s", i ? "; " : "",
				 sk->first[i]);
	pr_warn("'%s': %d of %d sites cannot be probed and are left out: %s%s\n", text, sk->n,
		sk->n + kept, list, sk->n > SITE_SKIPS_SHOWN ? "; ... (-v lists them all)" : "");
}

/* Is EVENT the name of one of S's first N probes in MODULE? */
static bool event_taken(const struct session *s, int n, const char *event, const char *module)
{
	for (int i = 0; i < n; i++)
		if (!s->probes[i].rbrk && !strcmp(s->probes[i].event, event) &&
		    !strcmp(s->probes[i].module, module))
			return true;
	return false;
}

/*
 * The probes from FIRST on (one -e, its events named by default) take names
 * no earlier -e's in the same binary have, as perf probe's do: a second
 * probe on exec_query is exec_query_1, a third exec_query_2 (a function of
 * that name in another binary keeps it).  0 or -ENOMEM.
 */
static int distinct_events(struct session *s, int first)
{
	for (int i = first; i < s->nprobes; i++) {
		char *was = s->probes[i].event, *name = NULL;

		if (!event_taken(s, first, was, s->probes[i].module))
			continue;
		for (int k = 1; !name || event_taken(s, first, name, s->probes[i].module); k++) {
			free(name);
			if (asprintf(&name, "%s_%d", was, k) < 0)
				return -ENOMEM;
		}
		/* every site of this -e named so too */
		for (int j = i; j < s->nprobes; j++)
			if (j == i || !strcmp(s->probes[j].event, was)) {
				char *dup = j == i ? name : strdup(name);

				if (!dup)
					return -ENOMEM;
				if (j != i)
					free(s->probes[j].event);
				s->probes[j].event = dup;
			}
		free(was);
	}
	return 0;
}

/* Resolve one -e into as many probes as it has sites, appended to S->probes. */
#define NEEDED_MAX	64

/*
 * FUNC of SPEC, not in the command's executable EXE, in the libraries it
 * links, as ltrace and uftrace look: DT_NEEDED, breadth first (libc's
 * malloc, fsync).  The probes from the first library that has it, said once,
 * into S.  0; -ENOENT with ERR (the command's) also naming the libraries
 * looked in and -x; or another -errno with ERR.
 */
static int resolve_in_needed(struct session *s, struct modcache *mc, const struct record_opts *o,
			     const struct probe_spec *spec, struct elfmod *exe,
			     const struct resolve_opts *ro, struct ptap_err *err)
{
	const char *names[NEEDED_MAX], *more[NEEDED_MAX];
	char seen[512] = "";
	int n = elfmod__needed(exe, names, NEEDED_MAX), r = -ENOENT;

	for (int i = 0; i < n && r == -ENOENT; i++) {
		struct ptap_err e2 = { .pos = -1 };
		char path[PATH_MAX];
		struct elfmod *lib;
		size_t used;
		int m;

		if (libpath_find(names[i], o->pids, o->npids, path, sizeof(path)) < 0 ||
		    modcache_get(mc, path, &lib, &e2) < 0)
			continue;
		used = strlen(seen);
		if (snprintf(seen + used, sizeof(seen) - used, "%s%s", used ? ", " : "",
			     names[i]) >= (int)(sizeof(seen) - used))
			pr_debug("the list of libraries looked in was cut\n");
		/* and the ones it links in turn, after the command's own */
		m = elfmod__needed(lib, more, NEEDED_MAX);
		for (int k = 0; k < m && n < NEEDED_MAX; k++) {
			bool dup = false;

			for (int j = 0; j < n && !dup; j++)
				dup = !strcmp(names[j], more[k]);
			if (!dup)
				names[n++] = more[k];
		}
		r = add_probes(s, lib, spec, ro, false, &e2);
		if (r == 0) {
			pr_warn("'%s' is not in %s: probed in %s, a library it links (-x LIB "
				"names the binary)\n", spec->point.func, elfmod__path(exe), path);
			return 0;
		}
		if (r != -ENOENT) {
			*err = e2;
			return r;
		}
	}
	/* the command's own message (its nearest names), and where else it was looked for */
	if (*seen) {
		size_t used = strlen(err->msg), room = sizeof(err->msg) - used;

		if (snprintf(err->msg + used, room, " (nor in the libraries it links: %s; a library "
			     "loaded later, with dlopen, is named with -x LIB)", seen) >= (int)room)
			pr_debug("the message was cut: %s\n", err->msg);
	}
	return -ENOENT;
}

/* Does MOD define a function NAME (not a variable of that name: libc's index, an int)? */
static bool has_function(const struct elfmod *mod, const char *name)
{
	struct elfmod_sym sym;

	return elfmod__find_sym(mod, name, &sym) == 0 &&
	       (sym.type == STT_FUNC || sym.type == STT_GNU_IFUNC);
}

static int resolve_one(struct session *s, struct modcache *mc, const struct record_opts *o,
		       const struct probe_req *req, const char *cmd_path)
{
	struct site_skips skips = { .n = 0 };
	struct resolve_opts ro = { .debuginfo_dir = o->debuginfo_dir, .dbgs = mc->dbgs,
				   .max_probes = o->max_probes, .no_inlines = o->no_inlines,
				   .skips = &skips };
	struct ptap_err err = { .pos = -1 };
	struct probe_spec *spec = NULL;
	struct elfmod *mod, *exe = NULL;
	int r = probe_spec__parse(req->text, &spec, &err);

	if (r == 0)
		r = modcache_get(mc, req->module ? req->module : cmd_path, &mod, &err);
	/* A library's globals may live in the command's executable (copy
	 * relocations); a command that is not ELF (a script) has none. */
	if (r == 0 && req->module) {
		struct ptap_err ignored = { .pos = -1 };

		if (modcache_get(mc, cmd_path, &exe, &ignored) < 0)
			exe = NULL;
		ro.exe = exe;
	}
	if (r == 0) {
		int first = s->nprobes;

		r = add_probes(s, mod, spec, &ro, false, &err);
		/*
		 * malloc, fsync: not the command's own, its libraries'.  Not
		 * a function the command has, whose variable or line was not
		 * found: that is its message
		 */
		if (r == -ENOENT && !req->module && spec->point.kind == PP_FUNC &&
		    !spec->point.src && !is_glob(spec) && s->nprobes == first &&
		    !has_function(mod, spec->point.func))
			r = resolve_in_needed(s, mc, o, spec, mod, &ro, &err);
		for (int i = first; i < s->nprobes; i++) {
			s->probes[i].req = (int)(req - o->reqs);
			if (is_glob(spec))
				s->probes[i].glob = req->text;
		}
		if (r == 0 && !spec->event)
			r = distinct_events(s, first);
		if (r == 0 && skips.n)
			report_skips(req->text, &skips, s->nprobes - first);
	}
	if (r < 0 && err.msg[0])
		show_probe_err(req->text, &err);
	else if (r < 0)
		pr_err("probe '%s': %s\n", req->text, strerror(-r));
	probe_spec__free(spec);
	return r;
}

static void probes_free(struct session *s)
{
	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];

		resolved_probe__exit(&p->rp);
		free(p->event);
		free(p->module);
		free(p->vals);
		free(p->types);
		free(p->bufs);
		free(p->strbuf);
		free(p->ent_off);
		free(p->rec_names);
		free(p->ctx_sel);
		filter__free(p->filter);
	}
	for (int i = 0; i < s->nctxs; i++) {
		free(s->ctxs[i].event);
		free(s->ctxs[i].want);
		free(s->ctxs[i].names);
		free(s->ctxs[i].vals);
		free(s->ctxs[i].types);
	}
	free(s->ctxs);
	free(s->ctx_rec);
	free(s->probes);
	s->probes = NULL;
	s->nprobes = 0;
}

/*
 * Attached: ptap's own probe on the dynamic loader at LOADER (see
 * attach_loader_path()), so a dlopen or dlclose re-reads the maps.
 */
static void add_rbrk_probe(struct session *s, struct modcache *mc, const char *loader)
{
	struct resolve_opts ro = { .dbgs = mc->dbgs, .max_probes = 8, .no_inlines = true };
	struct ptap_err err = { .pos = -1 };
	struct probe_spec *spec = NULL;
	struct elfmod *mod;
	int r = probe_spec__parse("r_brk=_dl_debug_state", &spec, &err);

	if (r == 0)
		r = modcache_get(mc, loader, &mod, &err);
	if (r == 0)
		r = add_probes(s, mod, spec, &ro, true, &err);
	probe_spec__free(spec);
	if (r < 0)
		pr_warn("no breakpoint on %s's r_brk (%s): libraries loaded from now on are not "
			"probed; --mmap-tracking=syscall sees them\n", loader,
			err.msg[0] ? err.msg : strerror(-r));
}

struct scope_arg {
	struct modcache *mc;
	const struct record_opts *o;
	const char *cmd_path;
};

/*
 * --context EVENT on a function's entry: ptap's own return probe on that
 * function (EVENT's -e as FUNC%return, its arguments fetched at the entry)
 * scopes the context to the call.  The index of its first probe, or -errno
 * when the return cannot be probed (said at -v).
 */
static int add_scope(struct session *s, const char *event, void *arg)
{
	const struct scope_arg *sa = arg;
	struct resolve_opts ro = { .debuginfo_dir = sa->o->debuginfo_dir, .dbgs = sa->mc->dbgs,
				   .max_probes = sa->o->max_probes, .no_inlines = true };
	struct ptap_err err = { .pos = -1 };
	struct probe_spec *spec = NULL;
	const struct probe_req *req = NULL;
	struct elfmod *mod;
	int r, first = s->nprobes;

	for (int i = 0; i < s->nprobes && !req; i++)
		if (!strcmp(s->probes[i].event, event) && s->probes[i].req >= 0)
			req = &sa->o->reqs[s->probes[i].req];
	if (!req)
		return -ENOENT;
	r = probe_spec__parse(req->text, &spec, &err);
	if (r == 0 && (spec->point.kind != PP_FUNC || spec->point.offset || spec->point.line ||
		       spec->point.retprobe))
		r = ptap_err_set(&err, -1, -EINVAL, "not a function's entry");
	if (r == 0) {
		spec->point.retprobe = true;
		r = modcache_get(sa->mc, req->module ? req->module : sa->cmd_path, &mod, &err);
	}
	if (r == 0)
		r = add_probes(s, mod, spec, &ro, false, &err);
	probe_spec__free(spec);
	if (r < 0 || s->nprobes == first) {
		pr_debug("--context %s: no return probe: %s\n", event,
			 err.msg[0] ? err.msg : strerror(r < 0 ? -r : ENOENT));
		return r < 0 ? r : -ENOENT;
	}
	return first;
}

static int resolve_all(struct session *s, const struct record_opts *o, const char *cmd_path)
{
	struct modcache mc = { .n = 0 };
	struct scope_arg sa = { &mc, o, cmd_path };
	char loaders[4][PATH_MAX];
	int r = dbg_cache__new(&mc.dbgs), nloaders = 0;

	if (r < 0)
		pr_err("cannot resolve the probes: %s\n", strerror(-r));
	for (int i = 0; i < o->nreqs && r == 0; i++)
		r = resolve_one(s, &mc, o, &o->reqs[i], cmd_path);
	for (int i = 0; r == 0 && s->mmap_tracking == MMAP_RBRK && i < o->npids; i++) {
		char path[PATH_MAX];
		bool seen = false;

		if (attach_loader_path(o->pids[i], path, sizeof(path)) < 0)
			continue;	/* static, or gone: attach says which */
		for (int j = 0; j < nloaders; j++)
			seen |= !strcmp(loaders[j], path);
		if (seen || nloaders == 4)
			continue;
		snprintf(loaders[nloaders++], PATH_MAX, "%s", path);
		add_rbrk_probe(s, &mc, path);
	}
	if (r == 0)
		r = syscall_contexts_setup(s, add_scope, &sa);
	if (r == 0 && (r = add_exit_probes(s)) < 0)
		pr_err("cannot resolve the probes: %s\n", strerror(-r));
	/* before the jumps are decided: an accounted probe is never in the process */
	if (r == 0 && account_setup(s, o->accounts, o->naccounts))
		r = -EINVAL;
	if (r == 0)
		plant_decide_jumps(s, !o->no_jumps);
	modcache_exit(&mc);
	return r;
}

/* The longest record any probe can produce, so one buffer fits them all. */
static size_t record_buflen(const struct session *s)
{
	size_t max = 0;

	for (int i = 0; i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		size_t n = 0;

		/* each argument: its escaped name, its longest value, separators */
		for (int j = 0; j < p->rp.nargs; j++)
			n += strlen(p->rp.names[j]) * 6 + 16 +
			     value__max_len(&p->types[j], s->string_max);
		if (probe__accounted(p))	/* --account's counters: a name and a number, or an error */
			n += ACCT_N * 128;
		max = n > max ? n : max;
	}
	if (s->nsc) {	/* a syscall: 7 values of up to sc_buflen bytes, then the contexts */
		static const struct fetch_type fd = { .kind = FT_FD, .size = 4 };
		size_t n = 7 * (64 + value__max_len(&fd, s->string_max < 256 ? 256 : s->string_max));

		for (int i = 0; i < s->nprobes; i++)
			if (s->probes[i].ctx1)
				for (int j = 0; j < s->probes[i].rp.nargs; j++)
					n += strlen(s->probes[i].rp.names[j]) * 6 + 16 +
					     strlen(s->probes[i].event) * 6 +
					     value__max_len(&s->probes[i].types[j], s->string_max);
		max = n > max ? n : max;
	}
	if (s->events_mmap && mmapev_max_len() > max)
		max = mmapev_max_len();
	if (s->stack_mode)	/* a frame's names and paths: a longer one cuts the stack there */
		max += (size_t)s->stack_max * STACK_FRAME_ROOM;
	return max + 1024;
}

static volatile pid_t forward_cmd_pid;

/*
 * SIGINT/SIGTERM/SIGHUP sent to ptap go to the command.  A terminal's ^C
 * (si_code SI_KERNEL) already reached the command through its process group:
 * do not send it twice.  Once the command is gone, the loop passes the signal
 * to every traced process left (see loop_stop_sig).
 */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = loop_forward_pid;

	loop_stop_sig = sig;
	if (pid > 0 && (si->si_code != SI_KERNEL || pid != forward_cmd_pid))
		kill(pid, sig);
	loop_signal(uc);
}

/* Attached (SIGINT, SIGTERM, SIGHUP) or --duration (SIGALRM): tracing ends. */
static void end_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	loop_end = 1;
	loop_signal(uc);
}

/*
 * The handlers only set flags and end the loop's wait (loop_signal()).
 * SA_RESTART: no other system call of ptap's is cut short by them.
 */
static void signals_setup(bool attach, double duration)
{
	struct sigaction fwd = { .sa_sigaction = forward_signal,
				 .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction end = { .sa_sigaction = end_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	const struct sigaction *on_stop = attach ? &end : &fwd;

	sigemptyset(&fwd.sa_mask);
	sigemptyset(&end.sa_mask);
	sigaction(SIGINT, on_stop, NULL);
	sigaction(SIGTERM, on_stop, NULL);
	sigaction(SIGHUP, on_stop, NULL);
	sigaction(SIGALRM, &end, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed output pipe must not kill ptap mid-trace */
	fdlimit_raise();		/* a file a traced process: past 1024 of them too */
	if (duration > 0) {
		struct itimerval it = { .it_value = {
			.tv_sec = (time_t)duration,
			.tv_usec = (suseconds_t)((duration - (double)(time_t)duration) * 1e6) } };

		if (!it.it_value.tv_sec && !it.it_value.tv_usec)
			it.it_value.tv_usec = 1;
		setitimer(ITIMER_REAL, &it, NULL);
	}
}

/*
 * A glob's sites never planted (those of S->probes[I..J)), in one message:
 * how many, and the first few with why (once when all have one reason).
 */
static void report_unplanted_glob(const struct session *s, int i, int j)
{
	char list[3 * 200] = "", nowhy[PATH_MAX + 64];
	const struct probe *first = NULL;
	bool one_why = true;
	int n = 0;
	size_t used = 0;

	for (int k = i; k < j; k++) {
		const struct probe *p = &s->probes[k];

		if (p->planted)
			continue;
		first = first ? first : p;
		one_why &= !strcmp(first->why, p->why);
	}
	if (!first)
		return;
	snprintf(nowhy, sizeof(nowhy), "%s was not mapped executable by the %s", first->module,
		 s->attach ? "process" : "command");
	for (int k = i; k < j; k++) {
		const struct probe *p = &s->probes[k];

		if (p->planted)
			continue;
		if (n < 3 && used < sizeof(list))
			used += snprintf(list + used, sizeof(list) - used, "%s%s%s%s",
					 n ? (one_why ? ", " : "; ") : "", p->event,
					 one_why ? "" : ": ", one_why ? "" : p->why[0] ? p->why : nowhy);
		n++;
	}
	if (one_why && !first->why[0])
		pr_warn("'%s': %d of %d sites never planted: %s\n", first->glob, n, j - i, nowhy);
	else if (one_why)
		pr_warn("'%s': %d of %d sites never planted: %s (%s%s)\n", first->glob, n, j - i,
			first->why, list, n > 3 ? ", ..." : "");
	else
		pr_warn("'%s': %d of %d sites never planted: %s%s\n", first->glob, n, j - i, list,
			n > 3 ? "; ..." : "");
}

static void report_unplanted(const struct session *s)
{
	for (int i = 0, j; i < s->nprobes; i = j) {
		const struct probe *p = &s->probes[i];

		for (j = i + 1; p->glob && j < s->nprobes && s->probes[j].glob == p->glob; j++)
			;
		if (p->glob) {
			report_unplanted_glob(s, i, j);
			continue;
		}
		if (!probe__asked(p))
			continue;
		if (!p->planted && p->why[0])
			pr_warn("%s: never planted: %s\n", p->event, p->why);
		else if (!p->planted)
			pr_warn("%s: never planted: %s was not mapped executable by the %s\n",
				p->event, p->module, s->attach ? "process" : "command");
	}
}

/* Return probes' calls whose return was not recorded, and why. */
static void report_returns(const struct session *s)
{
	if (s->ret_full)
		pr_warn("%lu calls' returns not recorded: more than %d probed calls nested in one "
			"thread, or their entry arguments over %u MiB (--string-max)\n",
			(unsigned long)s->ret_full, SHADOW_MAX_DEPTH, SHADOW_DATA >> 20);
	if (s->ret_unwound)
		pr_info("%lu probed calls left without a return (longjmp, an exception, a panic): "
			"no return to record\n", (unsigned long)s->ret_unwound);
	if (s->ret_unmatched)
		pr_info("%lu returns of calls whose entry ptap had not seen (made before it "
			"came), or had taken as left: not recorded\n",
			(unsigned long)s->ret_unmatched);
}

/*
 * Each --filter compiled for every probe of its -e (the names of a glob's
 * sites may differ).  0, or -EINVAL / -ENOMEM, said with a caret.
 */
static int setup_filters(struct session *s, const struct record_opts *o)
{
	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];
		struct ptap_err err = { .pos = -1 };
		const char *text;
		int r;

		if (!probe__asked(p))	/* ptap's own, or an exit: its owner filters */
			continue;
		text = o->reqs[p->req].filter;
		if (!text)
			continue;
		/* an accounted probe's counters are arguments of its records too */
		r = filter__compile(text, p->rec_names ? p->rec_names :
					  (const char *const *)p->rp.names, p->types,
				    (unsigned int)p->rp.nargs + (probe__accounted(p) ? ACCT_N : 0),
				    &p->filter, &err);
		if (r < 0) {
			pr_err("--filter '%s' of %s: %s\n", text, p->event, err.msg);
			if (err.pos >= 0 && (size_t)err.pos <= strlen(text))
				fprintf(stderr, "  %s\n  %*s^\n", text, err.pos, "");
			return r;
		}
	}
	return 0;
}

static int exit_status(const struct session *s)
{
	if (!s->cmd_exited)
		return 1;
	if (WIFEXITED(s->cmd_status))
		return WEXITSTATUS(s->cmd_status);
	return 128 + WTERMSIG(s->cmd_status);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Nothing was traced: the output closed, a --summary thread ended; returns STATUS. */
static int not_run(struct session *s, struct summary_run *sr, int status)
{
	int err;

	output__close(s->out, &err);
	s->out = NULL;
	summary_run_abort(sr);
	return status;
}

static int run(struct session *s, const struct record_opts *o, const char *cmd_path)
{
	uint64_t lost, total, t0 = mono_ns();
	struct summary_run *sr = NULL;
	char sumpath[64];
	int r, err = 0, st;

	if (o->summary) {	/* JSON lines to the thread that sums them up */
		int w = summary_run_start(&sr, s->out_path, sumpath, sizeof(sumpath));

		if (w < 0) {
			pr_err("--summary: %s%s%s\n", s->out_path ? s->out_path : "",
			       s->out_path ? ": " : "", strerror(-w));
			return 2;
		}
		r = output__open(sumpath, OUT_JSON, record_buflen(s), &s->out);
		close(w);
		if (r < 0) {
			pr_err("--summary: %s\n", strerror(-r));
			summary_run_abort(sr);	/* the pipe's last writer is gone: EOF */
			return 2;
		}
	} else {
		r = output__open(s->out_path, s->format, record_buflen(s), &s->out);
		if (r < 0) {
			pr_err("cannot open %s: %s\n", s->out_path ? s->out_path : "stdout",
			       strerror(-r));
			return 2;
		}
	}
	output__header(s->out, s->clock_name);
	if (s->events_mmap && mmapev__new(&s->mmapev) < 0) {
		pr_err("out of memory\n");
		return not_run(s, sr, 2);
	}
	signals_setup(s->attach, o->duration);
	if (s->attach) {
		r = attach_pids(s, o->pids, o->npids);
		if (r < 0)
			return not_run(s, sr, 2);
	} else {
		r = launch_command_as(s, cmd_path, o->cmd, o->user ? &o->run_as : NULL);
		if (r == -ECHILD)		/* it exited before exec: it said why */
			return not_run(s, sr, exit_status(s));
		if (r < 0) {
			pr_err("cannot start %s: %s\n", o->cmd[0], strerror(-r));
			return not_run(s, sr, 1);
		}
		loop_forward_pid = forward_cmd_pid = s->cmd_pid;
	}
	placement_init(s);	/* after the launch: the command keeps ptap's scheduling */
	r = loop_run(s);
	placement_fini(s);
	if (r < 0)
		pr_err("tracing stopped: %s\n", strerror(-r));
	total = output__records(s->out);
	lost = output__close(s->out, &err);
	mmapev__free(s->mmapev);
	s->mmapev = NULL;
	if (lost && err != EPIPE)
		pr_err("%lu records could not be written to %s: %s\n", (unsigned long)lost,
		       s->out_path ? s->out_path : "stdout", strerror(err));
	st = sr ? summary_run_finish(sr, s->out_path, s->format == OUT_JSON) : 0;
	report_unplanted(s);
	report_returns(s);
	if (!o->quiet)
		summary_records(s, total, lost && err == EPIPE ? lost : 0, mono_ns() - t0);
	if (st)
		return st;
	if (s->attach)
		return r < 0 ? 1 : 0;
	return exit_status(s);
}

/*
 * Attached without -x: the probes live in the first process's executable.
 * What attaching will check comes first: a ptap with CAP_SYS_PTRACE reads
 * nothing (not even the path) of a process it is going to refuse.
 */
static int attach_exe(pid_t pid, char *path, size_t len)
{
	struct privs_target pt;
	struct ptap_err err = { .pos = -1 };
	char link[40];
	ssize_t n;

	if (privs_check_target("/proc", pid, &pt, &err) < 0) {
		pr_err("%s\n", err.msg);
		return -EPERM;
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, path, len - 1);
	if (n < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM) {
			/* the kernel's rules for reading it are those of attaching (less Yama) */
			privs_explain_attach("/proc", &pt, -EPERM, &err);
			pr_err("%s\n", err.msg);
		} else {
			pr_err("pid %d: %s\n", pid,
			       e == ENOENT ? "no executable (a kernel thread?)" : strerror(e));
		}
		return -e;
	}
	path[n] = '\0';
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		path[n - 10] = '\0';
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct session s = { .format = OUT_TEXT, .clock = CLOCK_MONOTONIC, .cpu = CPU_FOLLOW,
			     .clock_name = "monotonic", .string_max = STRING_MAX_DEFAULT,
			     .inproc_on = true, .stack_max = STACK_MAX_DEFAULT };
	struct record_opts o = { 0 };
	char cmd_path[4096];
	int r;

	if (log_get_level() == LOG_WARN)
		log_set_level(LOG_NOTICE);	/* the start line and the summary (-q: not them) */
	r = parse_args(&s, &o, argc, argv);

	if (r)
		goto out;
	if (o.user) {
		struct ptap_err err = { .pos = -1 };

		if (launch_user_lookup(o.user, &o.run_as, &err) < 0) {
			pr_err("%s\n", err.msg);
			r = 2;
			goto out;
		}
	}
	if (s.attach) {
		r = attach_exe(o.pids[0], cmd_path, sizeof(cmd_path)) < 0 ? 2 : 0;
	} else {
		r = launch_find(o.cmd[0], cmd_path, sizeof(cmd_path));
		if (r < 0) {
			/* as a shell says it: a path that is not there, a name not in PATH */
			pr_err("%s: %s\n", o.cmd[0],
			       r == -EACCES ? "Permission denied" :
			       strchr(o.cmd[0], '/') ? "No such file or directory" :
			       "command not found");
			r = r == -EACCES ? 126 : 127;
		}
	}
	if (r)
		goto out;
	r = resolve_all(&s, &o, cmd_path);
	if (r < 0) {
		r = 2;
		goto out;
	}
	if (setup_filters(&s, &o) < 0) {
		r = 2;
		goto out;
	}
	if (stack_setup(&s) < 0) {
		pr_err("-g: out of memory\n");
		r = 2;
		goto out;
	}
	if (!o.quiet)
		summary_probes(&s, o.nreqs);
	r = run(&s, &o, cmd_path);
out:
	stack_fini(&s);
	probes_free(&s);
	for (int i = 0; i < o.nreqs; i++)
		free(o.reqs[i].path);
	free(o.reqs);
	free(o.accounts);
	free(o.pids);
	launch_user_free(&o.run_as);
	free(s.threads);
	free(s.deferred);
	return r;
}
