/* tracer/events/syscall.c: --syscalls records (decoded at the entry stop, recorded
 * at the exit stop) and the --context values they carry.  Buffers are
 * allocated when a thread is added: the stops allocate nothing. */
#include <errno.h>
#include <fcntl.h>
#include <linux/ptrace.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "arch/sctable.h"
#include "probes/log.h"
#include "probes/nearest.h"
#include "probes/record.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/output.h"
#include "tracer/events/syscall.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

#define SC_ARGS	7	/* six arguments and the result */

struct sc_call {
	long nr;			/* -1: none in flight */
	const struct sc_desc *d;
	uint64_t ts;			/* entry */
	uint64_t sp;			/* at the entry: which calls are on the stack */
	unsigned int nargs;		/* decoded so far (the result last) */
	const char *names[SC_ARGS];
	struct fetch_type types[SC_ARGS];
	struct fetch_val vals[SC_ARGS];
	char *buf[SC_ARGS];		/* session's sc_buflen bytes each */
};

/* An unscoped context's slot: this header, NARGS values, then their buffers. */
struct ctx_slot_hdr {
	const struct probe *p;		/* NULL: not set on this thread */
};

/* ---- selection ------------------------------------------------------------- */

static const char *const class_names[] = {
	"%file", "%desc", "%net", "%network", "%memory", "%process", "%signal", "%ipc",
	"%creds", "%clock",
};

static void select_nr(struct session *s, long nr)
{
	if (nr < 0 || nr >= SC_NR_MAX || (s->sc_on[nr / 8] & (1u << (nr % 8))))
		return;
	s->sc_on[nr / 8] |= (uint8_t)(1u << (nr % 8));
	s->nsc++;
}

/* "no syscall 'preed64'; close: pread64, ..." */
static void unknown_name(const char *name)
{
	size_t n, i;
	const struct sc_desc *tab = arch_sc_table(&n);
	const char **names = calloc(n ? n : 1, sizeof(*names)), *near[6];
	int k = 0;

	if (names) {
		for (i = 0; i < n; i++)
			names[i] = tab[i].name;
		k = nearest_names(name, names, n, near, 6);
	}
	pr_err("--syscalls: no syscall is named '%s'", name);
	for (int j = 0; j < k; j++)
		fprintf(stderr, "%s%s", j ? ", " : "; close: ", near[j]);
	fprintf(stderr, "%s\n", k ? "" : " (names as in strace, e.g. pread64; classes: %file, "
				  "%desc, %net, %memory, %process, %signal, %ipc, %creds, %clock)");
	free(names);
}

int syscall_select(struct session *s, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t n;
	const struct sc_desc *tab = arch_sc_table(&n);
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		const struct sc_desc *d;
		unsigned int cls;

		if (*tok == '%') {
			cls = sc_class(tok);
			if (!cls) {
				pr_err("--syscalls: no class is named '%s'; the classes:", tok);
				for (size_t i = 0; i < sizeof(class_names) / sizeof(*class_names); i++)
					fprintf(stderr, " %s", class_names[i]);
				fputc('\n', stderr);
				r = -EINVAL;
				break;
			}
			for (size_t i = 0; i < n; i++)
				if (tab[i].classes & cls)
					select_nr(s, tab[i].nr);
			continue;
		}
		d = sc_by_name(tok);
		if (!d) {
			unknown_name(tok);
			r = -EINVAL;
			break;
		}
		select_nr(s, d->nr);
	}
	if (!r && !s->nsc) {
		pr_err("--syscalls '%s': no syscall named\n", list);
		r = -EINVAL;
	}
	free(copy);
	return r;
}

bool syscall_selected(const struct session *s, long nr)
{
	return nr >= 0 && nr < SC_NR_MAX && (s->sc_on[nr / 8] & (1u << (nr % 8)));
}

int syscall_selected_list(const struct session *s, long *out, int max)
{
	int k = 0;

	for (long nr = 0; nr < SC_NR_MAX && k < max; nr++)
		if (syscall_selected(s, nr))
			out[k++] = nr;
	return k;
}

/* ---- threads ---------------------------------------------------------------- */

static size_t buflen(const struct session *s)
{
	return s->string_max < 256 ? 256 : s->string_max;
}

int syscall_thread_init(const struct session *s, struct thread *t)
{
	if (s->nsc) {
		char *mem = calloc(1, sizeof(*t->sc) + SC_ARGS * buflen(s));

		if (!mem)
			return -ENOMEM;
		t->sc = (struct sc_call *)mem;
		t->sc->nr = -1;
		for (int i = 0; i < SC_ARGS; i++)
			t->sc->buf[i] = mem + sizeof(*t->sc) + i * buflen(s);
	}
	if (s->nslots) {
		t->ctx_slot = calloc(s->nslots, sizeof(*t->ctx_slot));
		if (!t->ctx_slot)
			return -ENOMEM;
		for (int i = 0; i < s->nctxs; i++) {
			const struct ctx_def *c = &s->ctxs[i];

			if (!c->scoped && !(t->ctx_slot[c->slot] = calloc(1, c->slot_len)))
				return -ENOMEM;
		}
	}
	return 0;
}

void syscall_thread_free(struct thread *t)
{
	free(t->sc);
	t->sc = NULL;
	for (int i = 0; t->ctx_slot && t->ctx_slot[i]; i++)
		free(t->ctx_slot[i]);
	free(t->ctx_slot);
	t->ctx_slot = NULL;
}

/* ---- decoding ------------------------------------------------------------------ */

/* What socket FD of process TGID is: "TCP:[1.2.3.4:5->6.7.8.9:10]", "UNIX:[path]"; 0 if not known. */
static size_t socket_describe(pid_t tgid, int fd, char *buf, size_t len)
{
	struct sockaddr_storage a = { 0 }, b = { 0 };
	socklen_t al = sizeof(a), bl = sizeof(b), il = sizeof(int);
	int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0), sfd = -1, dom = 0, type = 0;
	char x[INET6_ADDRSTRLEN + 8] = "", y[INET6_ADDRSTRLEN + 8] = "";
	const char *proto;
	int n = 0;

	if (pidfd >= 0)
		sfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (sfd < 0 || getsockopt(sfd, SOL_SOCKET, SO_DOMAIN, &dom, &il) < 0 ||
	    getsockopt(sfd, SOL_SOCKET, SO_TYPE, &type, &il) < 0)
		goto out;
	getsockname(sfd, (struct sockaddr *)&a, &al);
	if (getpeername(sfd, (struct sockaddr *)&b, &bl) < 0)
		bl = 0;
	if (dom == AF_UNIX) {
		const struct sockaddr_un *u = (const struct sockaddr_un *)(bl > sizeof(sa_family_t) ? &b : &a);

		n = snprintf(buf, len, "UNIX:[%s]", u->sun_path[0] ? u->sun_path : "");
		goto out;
	}
	if (dom != AF_INET && dom != AF_INET6)
		goto out;
	proto = type == SOCK_STREAM ? "TCP" : type == SOCK_DGRAM ? "UDP" : "IP";
	for (int k = 0; k < 2; k++) {
		const struct sockaddr_storage *ss = k ? &b : &a;
		char *o = k ? y : x, ip[INET6_ADDRSTRLEN];

		if (k && !bl)
			break;
		if (ss->ss_family == AF_INET) {
			const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

			inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
			snprintf(o, sizeof(x), "%s:%u", ip, ntohs(in->sin_port));
		} else if (ss->ss_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

			inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
			snprintf(o, sizeof(x), "[%s]:%u", ip, ntohs(in6->sin6_port));
		}
	}
	n = snprintf(buf, len, "%s%s:[%s%s%s]", proto, dom == AF_INET6 ? "v6" : "", x,
		     y[0] ? "->" : "", y);
out:
	if (sfd >= 0)
		close(sfd);
	if (pidfd >= 0)
		close(pidfd);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* What descriptor FD of T refers to, into VAL (FT_FD): its path, a socket, a pipe. */
static void fd_value(const struct session *s, const struct thread *t, int fd,
		     struct fetch_type *type, struct fetch_val *val, char *buf)
{
	char link[48];
	ssize_t n = -1;

	*type = (struct fetch_type){ .kind = FT_FD, .size = 4 };
	*val = (struct fetch_val){ .u = (uint64_t)(int64_t)fd, .str = buf };
	if (fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tgid, fd);
	n = readlink(link, buf, buflen(s));
	if (n <= 0)
		return;
	val->len = (size_t)n;
	if (!strncmp(buf, "socket:[", 8)) {
		size_t k = socket_describe(t->tgid, fd, buf + n, buflen(s) - (size_t)n);

		if (k) {	/* described: the description alone */
			memmove(buf, buf + n, k);
			val->len = k;
		}
	}
}

static ssize_t read_target(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct thread *t = priv;

	return mem_read(t->tid, addr, buf, len);
}

/* A NUL-terminated string at ADDR in T, at most --string-max bytes, into VAL. */
static void str_value(const struct session *s, const struct thread *t, uint64_t addr,
		      struct fetch_type *type, struct fetch_val *val, char *buf)
{
	struct fetch_prog prog = { .nops = 1, .type = { .kind = FT_STRING, .size = 8 } };
	struct fetch_ctx ctx = { .read_mem = read_target, .priv = (void *)t };

	prog.ops[0] = (struct fetch_op){ .op = FETCH_OP_IMM, .imm = (int64_t)addr };
	*type = prog.type;
	fetch_prog__run(&prog, &ctx, val, buf, s->string_max < buflen(s) ? s->string_max :
									 buflen(s));
}

static void arg_value(const struct session *s, const struct thread *t, unsigned int kind,
		      uint64_t v, struct fetch_type *type, struct fetch_val *val, char *buf)
{
	size_t n;

	*val = (struct fetch_val){ .u = v };
	switch (kind) {
	case SA_INT:
		*type = (struct fetch_type){ .kind = FT_SIGNED, .size = 4 };
		return;
	case SA_UINT:
	case SA_SIZE:
		*type = (struct fetch_type){ .kind = FT_UNSIGNED, .size = 8 };
		return;
	case SA_OFF:
		*type = (struct fetch_type){ .kind = FT_SIGNED, .size = 8 };
		return;
	case SA_FD:
		fd_value(s, t, (int)v, type, val, buf);
		return;
	case SA_PATH:
	case SA_STR:
		str_value(s, t, v, type, val, buf);
		return;
	case SA_DIRFD:
		if (!sc_format(kind, v, buf, buflen(s))) {
			fd_value(s, t, (int)v, type, val, buf);
			return;
		}
		break;
	case SA_HEX:
	case SA_NONE:
		*type = (struct fetch_type){ .kind = FT_HEX, .size = 8 };
		return;
	}
	n = sc_format(kind, v, buf, buflen(s));
	if (!n) {
		*type = (struct fetch_type){ .kind = FT_HEX, .size = 8 };
		return;
	}
	*type = (struct fetch_type){ .kind = FT_SYM };
	val->str = buf;
	val->len = strlen(buf);
}

/* The result RET (-errno on error) as the call's last value, "ret". */
static void ret_value(const struct session *s, const struct thread *t, struct sc_call *c,
		      int64_t ret, bool is_error)
{
	unsigned int i = c->nargs;
	struct fetch_type *type = &c->types[i];
	struct fetch_val *val = &c->vals[i];
	const char *e = is_error ? sc_errno_name((int)-ret) : NULL;

	c->names[i] = "ret";
	c->nargs++;
	*val = (struct fetch_val){ .u = (uint64_t)ret };
	if (e) {
		*type = (struct fetch_type){ .kind = FT_SYM };
		val->str = c->buf[i];
		val->len = (size_t)snprintf(c->buf[i], buflen(s), "-%s", e);
	} else if (!is_error && c->d && c->d->ret == SR_FD) {
		fd_value(s, t, (int)ret, type, val, c->buf[i]);
	} else if (!is_error && c->d && c->d->ret == SR_HEX) {
		*type = (struct fetch_type){ .kind = FT_HEX, .size = 8 };
	} else {
		*type = (struct fetch_type){ .kind = FT_SIGNED, .size = 8 };
	}
}

/* ---- contexts ------------------------------------------------------------------ */

/* Is the call whose return address is at SLOT (on STACK) still on T's stack at SP? */
static bool frame_live(const struct thread *t, const struct shadow_frame *f, uint64_t sp)
{
	const struct map_entry *e = maptab__find(t->as->mt, sp);

	if (!shadow_same_stack(f->slot, f->stack, sp, e ? e->end : 0))
		return true;	/* a handler on another stack: the call it interrupted is */
	return f->slot >= sp;
}

/* The contexts current on T (stack pointer SP) into S->ctx_rec: how many. */
static unsigned int ctx_collect(struct session *s, struct thread *t, uint64_t sp)
{
	unsigned int n = 0;

	for (int k = 0; k < s->nctxs; k++) {
		struct ctx_def *c = &s->ctxs[k];
		const struct fetch_val *vals = NULL;
		const struct probe *p = NULL;

		if (c->scoped && t->shadow && t->as) {
			for (size_t i = t->shadow->depth; i-- > 0;) {
				const struct shadow_frame *f = &t->shadow->frames[i];

				if (f->p->ctx1 == k + 1 && frame_live(t, f, sp)) {
					p = f->p;
					vals = shadow__data(t->shadow, f);
					break;
				}
			}
		} else if (!c->scoped && t->ctx_slot) {
			const struct ctx_slot_hdr *h = (const void *)t->ctx_slot[c->slot];

			p = h->p;
			vals = (const void *)(h + 1);
		}
		if (!p)
			continue;
		for (unsigned int j = 0; j < c->nsel; j++) {
			c->vals[j] = vals[p->ctx_sel[j]];
			c->types[j] = p->types[p->ctx_sel[j]];
		}
		s->ctx_rec[n++] = (struct record_ctx){ .event = c->event, .nargs = c->nsel,
						       .names = (const char *const *)c->names,
						       .types = c->types, .vals = c->vals };
	}
	return n;
}

void syscall_ctx_note(struct session *s, struct thread *t, const struct probe *p,
		      const struct fetch_val *from)
{
	const struct ctx_def *c;
	struct ctx_slot_hdr *h;
	struct fetch_val *vals;
	char *buf;

	if (!p->ctx1 || !t->ctx_slot)
		return;
	c = &s->ctxs[p->ctx1 - 1];
	if (c->scoped)
		return;
	h = (void *)t->ctx_slot[c->slot];
	vals = (void *)(h + 1);
	buf = (char *)(vals + p->rp.nargs);
	h->p = p;
	for (int i = 0; i < p->rp.nargs; i++) {
		vals[i] = from[i];
		if (from[i].str && from[i].len) {
			memcpy(buf, from[i].str, from[i].len);
			vals[i].str = buf;
		}
		buf += fetch_prog__buflen(&p->rp.progs[i], s->string_max);
	}
}

/* ---- records ----------------------------------------------------------------- */

static void emit(struct session *s, struct thread *t, struct sc_call *c, uint64_t end,
		 bool finished)
{
	char name[32];
	struct record rec = { .ts = c->ts, .pid = t->tgid, .tid = t->tid, .comm = t->comm,
			      .kind = REC_KIND_SYSCALL, .duration = end - c->ts,
			      .has_duration = finished, .nargs = c->nargs, .names = c->names,
			      .types = c->types, .vals = c->vals };

	if (c->d) {
		rec.event = c->d->name;
	} else {
		snprintf(name, sizeof(name), "syscall_%ld", c->nr);
		rec.event = name;
	}
	if (!t->quiet && !(t->as && t->as->unplanted)) {
		rec.nctx = ctx_collect(s, t, c->sp);
		rec.ctx = s->ctx_rec;
		output__record(s->out, &rec);
	}
	c->nr = -1;
}

bool syscall_entry(struct session *s, struct thread *t, long nr, const uint64_t args[6],
		   uint64_t sp)
{
	struct sc_call *c = t->sc;
	const struct sc_desc *d = sc_by_nr(nr);
	unsigned int n = d ? sc_nargs(d, args) : 6;

	if (!c)
		return false;
	if (c->nr >= 0)		/* never seen to return (a restart?): say so */
		syscall_unfinished(s, t);
	c->nr = nr;
	c->d = d;
	c->ts = session__now(s);
	c->sp = sp;
	c->nargs = n;
	for (unsigned int i = 0; i < n; i++) {
		static const char *const raw[] = { "arg1", "arg2", "arg3", "arg4", "arg5", "arg6" };

		c->names[i] = d && d->argnames[i] ? d->argnames[i] : raw[i];
		arg_value(s, t, d ? d->args[i] : SA_HEX, args[i], &c->types[i], &c->vals[i],
			  c->buf[i]);
	}
	if (d && d->ret == SR_NONE && (nr == SYS_exit || nr == SYS_exit_group)) {
		emit(s, t, c, c->ts, false);
		return false;
	}
	return true;
}

void syscall_exit(struct session *s, struct thread *t, const struct ptrace_syscall_info *info)
{
	struct sc_call *c = t->sc;
	uint64_t now;

	if (!c || c->nr < 0)
		return;
	now = session__now(s);
	ret_value(s, t, c, info->exit.rval, info->exit.is_error);
	emit(s, t, c, now, true);
}

void syscall_unfinished(struct session *s, struct thread *t)
{
	if (t->sc && t->sc->nr >= 0)
		emit(s, t, t->sc, t->sc->ts, false);
}

/* ---- --context setup ---------------------------------------------------------- */

static int find_arg(const struct probe *p, const char *name)
{
	for (int i = 0; i < p->rp.nargs; i++)
		if (!strcmp(p->rp.names[i], name))
			return i;
	return -1;
}

/* Point every probe feeding context K (1-based in ctx1) at the arguments it shows. */
static int ctx_bind(struct session *s, int k)
{
	struct ctx_def *c = &s->ctxs[k];
	bool first = true;

	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];
		unsigned int n = c->nwant ? (unsigned int)c->nwant : (unsigned int)p->rp.nargs;

		if (p->ctx1 != k + 1)
			continue;
		if (first) {
			c->nsel = n;
			c->names = calloc(n ? n : 1, sizeof(*c->names));
			c->vals = calloc(n ? n : 1, sizeof(*c->vals));
			c->types = calloc(n ? n : 1, sizeof(*c->types));
			if (!c->names || !c->vals || !c->types)
				return -ENOMEM;
		}
		p->ctx_sel = calloc(n ? n : 1, sizeof(*p->ctx_sel));
		if (!p->ctx_sel)
			return -ENOMEM;
		if (n != c->nsel) {
			pr_err("--context %s: its sites have different arguments\n", c->event);
			return -EINVAL;
		}
		for (unsigned int j = 0; j < n; j++) {
			int a = c->nwant ? find_arg(p, c->want[j]) : (int)j;

			if (a < 0) {
				pr_err("--context %s:%s: %s records no argument named %s; it has:",
				       c->event, c->want[j], c->event, c->want[j]);
				for (int q = 0; q < p->rp.nargs; q++)
					fprintf(stderr, " %s", p->rp.names[q]);
				fprintf(stderr, "%s\n", p->rp.nargs ? "" : " none");
				return -EINVAL;
			}
			p->ctx_sel[j] = a;
			if (first)
				c->names[j] = p->rp.names[a];
		}
		/* an unscoped slot: the values, then every argument's buffer */
		if (!c->scoped) {
			size_t len = sizeof(struct ctx_slot_hdr) + p->rp.nargs * sizeof(struct fetch_val);

			for (int a = 0; a < p->rp.nargs; a++)
				len += fetch_prog__buflen(&p->rp.progs[a], s->string_max);
			if (len > c->slot_len)
				c->slot_len = len;
		}
		first = false;
	}
	return 0;
}

/* "the events are: a, b" for an EVENT no probe has. */
static void no_event(const struct session *s, const char *event)
{
	int shown = 0;

	pr_err("--context %s: no probe is named %s; ", event, event);
	for (int i = 0; i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		bool dup = false;

		if (p->rbrk || p->hidden)
			continue;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(s->probes[j].event, p->event);
		if (!dup)
			fprintf(stderr, "%s%s", shown++ ? ", " : "the events are: ", p->event);
	}
	fprintf(stderr, "%s\n", shown ? "" : "define it with -e");
}

int syscall_contexts_setup(struct session *s,
			   int (*add_scope)(struct session *s, const char *event, void *arg),
			   void *arg)
{
	for (int k = 0; k < s->nctxs; k++) {
		struct ctx_def *c = &s->ctxs[k];
		int src = -1, first, r;

		for (int j = 0; j < k; j++)
			if (!strcmp(s->ctxs[j].event, c->event)) {
				pr_err("--context %s: given twice\n", c->event);
				return -EINVAL;
			}
		for (int i = 0; i < s->nprobes && src < 0; i++)
			if (!s->probes[i].rbrk && !s->probes[i].hidden &&
			    !strcmp(s->probes[i].event, c->event))
				src = i;
		if (src < 0) {
			no_event(s, c->event);
			return -EINVAL;
		}
		first = s->probes[src].rp.retprobe ? -EINVAL : add_scope(s, c->event, arg);
		c->scoped = first >= 0;
		if (c->scoped) {
			for (int i = first; i < s->nprobes; i++) {
				s->probes[i].hidden = true;
				s->probes[i].ctx1 = k + 1;
			}
		} else {
			for (int i = 0; i < s->nprobes; i++)
				if (!s->probes[i].hidden && !strcmp(s->probes[i].event, c->event))
					s->probes[i].ctx1 = k + 1;
			c->slot = s->nslots++;
			pr_info("--context %s: kept until the next %s on the thread (its function's "
				"return cannot be probed)\n", c->event, c->event);
		}
		r = ctx_bind(s, k);
		if (r < 0)
			return r;
	}
	if (s->nctxs && !(s->ctx_rec = calloc(s->nctxs, sizeof(*s->ctx_rec))))
		return -ENOMEM;
	return 0;
}
