/* tracer/events/output.c: the record writer.  One formatter per format behind one
 * function pointer; records are formatted in place into a write buffer of
 * our own, which goes out in writes of about 64 KiB (a record at once on a
 * terminal).  Perfetto traces are spooled to a temporary file and written,
 * sorted, at the end. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probes/log.h"
#include "probes/perfetto.h"
#include "probes/record.h"
#include "tracer/events/output.h"

/*
 * The write buffer holds WBUF_SIZE bytes and one record more: a record is
 * formatted in place when less than WBUF_SIZE is held, and the buffer is
 * written once WBUF_SIZE is reached -- or once it holds a record older than
 * HOLD_NS (by the records' own timestamps: no clock read), so that a slow
 * trace still shows its records as they come.
 */
#define WBUF_SIZE	(64 * 1024)
#define HOLD_NS		100000000ULL
#define NOT_HELD	UINT64_MAX	/* HELD_TS when no record is held */

struct output {
	int fd;
	bool own;			/* opened here: closed here */
	bool tty;			/* a terminal: each record written at once */
	bool fifo;			/* a pipe: written whole lines of at most PIPE_BUF bytes
					 * at a time, so that no other writer of the pipe (the
					 * command, sharing ptap's stdout) splits a record */
	size_t (*format)(const struct record *rec, char *buf, size_t len);
	size_t reclen;			/* the room of one record (perfetto: its spool_hdr too) */
	char *buf;			/* WBUF_SIZE + RECLEN bytes */
	size_t len;			/* bytes held in BUF */
	size_t head;			/* of which the first HEAD: the clock line, not a record */
	uint64_t held_ts;		/* TS of the first record held, or NOT_HELD */
	uint64_t failed;
	uint64_t records;		/* given to output__record() */
	uint64_t wait_ns;		/* in write(2) or waiting to write: the reader's pace */
	int err;
	char clock[16];			/* OUT_PERFETTO: for the document's metadata */
	/* OUT_PERFETTO: the events so far, each a spool_hdr and its JSON, in arrival order */
	FILE *spool;
	uint64_t spooled;		/* events given to the spool (held or written) */
	bool spool_broken;		/* a spool write failed: its framing is lost from there */
};

/*
 * One spooled event: this header, then LEN bytes of JSON.  Entries are not
 * aligned in the spool: read a header with memcpy.
 */
#define SPOOL_MAGIC	0x70746170u	/* "ptap" */
struct spool_hdr {
	uint32_t magic;
	uint32_t len;
	uint64_t start;			/* ns: where the event starts (a slice at its entry) */
	uint64_t dur;			/* ns, 0 for an instant */
	int32_t pid, tid;
	char comm[24];			/* the thread's name then, NUL-terminated (cut) */
};

int output__open(const char *path, enum out_format fmt, size_t buflen, struct output **out)
{
	struct output *o = calloc(1, sizeof(*o));
	struct stat st;
	int r = 0;

	if (!o)
		return -ENOMEM;
	o->fd = STDOUT_FILENO;
	o->reclen = buflen;
	o->held_ts = NOT_HELD;
	o->format = fmt == OUT_JSON ? record__format_json : record__format_text;
	if (fmt == OUT_PERFETTO) {
		/* unlinked at once; not inherited by the command (it might write to fd 3...) */
		o->spool = tmpfile();
		if (!o->spool || fcntl(fileno(o->spool), F_SETFD, FD_CLOEXEC) < 0)
			r = -errno;
		o->reclen += sizeof(struct spool_hdr);
	}
	o->buf = malloc(WBUF_SIZE + o->reclen);
	if (!o->buf && !r)
		r = -ENOMEM;
	if (path && !r) {
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		o->own = o->fd >= 0;
		if (o->fd < 0)
			r = -errno;
	}
	if (r) {
		if (o->spool)
			fclose(o->spool);
		free(o->buf);
		free(o);
		return r;
	}
	o->tty = !o->spool && isatty(o->fd);
	o->fifo = !o->spool && fstat(o->fd, &st) == 0 && S_ISFIFO(st.st_mode);
	*out = o;
	return 0;
}

/* A write to the output or the spool failed: keep its errno (the first one). */
static void write_failed(struct output *o, int err)
{
	if (!o->err)
		o->err = err ? err : EIO;
	o->failed++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * write(2) FD all of BUF[0..LEN) or fail: the bytes written, short after an
 * error (*ERR its errno; EIO for a write that wrote nothing).  It retries
 * on EINTR, and on EAGAIN waits in poll() for room: an output left
 * O_NONBLOCK by whoever opened it (a pipe shared with a program that set
 * it) slows the trace down like a blocking one, and loses nothing.  The time
 * spent in here is added to *WAIT_NS: while ptap writes, every traced thread
 * that hit a probe waits.
 */
static size_t write_all(int fd, const char *buf, size_t len, uint64_t *wait_ns, int *err)
{
	uint64_t t0 = now_ns();
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
				*err = errno;
				break;
			}
			continue;
		}
		if (w <= 0) {
			*err = w < 0 ? errno : EIO;
			break;
		}
		off += (size_t)w;
	}
	*wait_ns += now_ns() - t0;
	return off;
}

/* The records in S[0..N) of a text or JSON stream: its lines. */
static uint64_t lines(const char *s, size_t n)
{
	uint64_t k = 0;

	for (const char *e = s + n; (s = memchr(s, '\n', e - s)); s++)
		k++;
	return k;
}

/*
 * Write what the buffer holds, to the output or the spool.  After a failed
 * write the rest is dropped: text and JSON count its lines as records lost
 * (the clock line is none); the spool is broken there (write_perfetto()
 * counts what it cannot read).
 */
/*
 * A pipe: BUF[0..LEN) in writes of whole lines, each at most PIPE_BUF bytes
 * (a write that size is atomic on a pipe: pipe(7)) where its lines fit.
 * The bytes written, as write_all().
 */
static size_t write_lines(int fd, const char *buf, size_t len, uint64_t *wait_ns, int *err)
{
	size_t off = 0;

	while (off < len) {
		size_t n = len - off, w;
		const char *nl;

		if (n > PIPE_BUF) {	/* up to the last line end that fits, or past one line */
			n = PIPE_BUF;
			while (n && buf[off + n - 1] != '\n')
				n--;
			if (!n)
				n = (nl = memchr(buf + off, '\n', len - off)) ? (size_t)(nl - buf - off) + 1 :
									   len - off;
		}
		w = write_all(fd, buf + off, n, wait_ns, err);
		off += w;
		if (w < n)
			break;
	}
	return off;
}

static void flush(struct output *o)
{
	int fd = o->spool ? fileno(o->spool) : o->fd, err = 0;
	size_t off = o->fifo ? write_lines(fd, o->buf, o->len, &o->wait_ns, &err) :
			       write_all(fd, o->buf, o->len, &o->wait_ns, &err);

	if (off < o->len) {
		if (!o->err)
			o->err = err;
		if (o->spool)
			o->spool_broken = true;
		else
			o->failed += lines(o->buf + off, o->len - off) - (off < o->head);
	}
	o->len = o->head = 0;
	o->held_ts = NOT_HELD;
}

/* N more bytes held, formatted in place; TS: their record's, or NOT_HELD (the header). */
static void held(struct output *o, size_t n, uint64_t ts)
{
	o->len += n;
	if (ts != NOT_HELD && o->held_ts == NOT_HELD)
		o->held_ts = ts;
	if (o->len >= WBUF_SIZE || o->tty ||
	    (ts != NOT_HELD && !o->spool && (ts < o->held_ts || ts - o->held_ts >= HOLD_NS)))
		flush(o);
}

/* OUT_PERFETTO: the event and its sort key to the spool, together.  Never allocates. */
static void spool_record(struct output *o, const struct record *rec)
{
	struct spool_hdr h = { .magic = SPOOL_MAGIC, .start = perfetto__start(rec),
			       .dur = perfetto__is_slice(rec) ? rec->duration : 0,
			       .pid = rec->pid, .tid = rec->tid };
	size_t n, clen = rec->comm ? strnlen(rec->comm, sizeof(h.comm) - 1) : 0;
	char *p = o->buf + o->len;

	if (o->spool_broken) {
		o->failed++;
		return;
	}
	n = perfetto__format_event(rec, p + sizeof(h), o->reclen - sizeof(h));
	if (!n) {		/* not even its header fits (an event name of a kilobyte) */
		write_failed(o, EMSGSIZE);
		return;
	}
	if (clen)
		memcpy(h.comm, rec->comm, clen);
	h.len = (uint32_t)n;
	memcpy(p, &h, sizeof(h));
	o->spooled++;
	held(o, sizeof(h) + n, rec->ts);
}

void output__header(struct output *o, const char *clock)
{
	char *p = o->buf + o->len;
	size_t n;

	if (o->spool) {
		snprintf(o->clock, sizeof(o->clock), "%s", clock);
		return;
	}
	n = o->format == record__format_json ? record__format_header_json(clock, p, o->reclen) :
	    record__format_header_text(clock, p, o->reclen);
	if (!o->len)		/* the first line, as it should be */
		o->head = n;
	held(o, n, NOT_HELD);
}

void output__record(struct output *o, const struct record *rec)
{
	o->records++;
	if (o->spool) {
		spool_record(o, rec);
		return;
	}
	held(o, o->format(rec, o->buf + o->len, o->reclen), rec->ts);
}

void output__flush(struct output *o)
{
	if (o->len)
		flush(o);
}

uint64_t output__records(const struct output *o)
{
	return o ? o->records : 0;
}

int output__error(const struct output *o)
{
	return o ? o->err : 0;
}

/* ---- the perfetto document, at the end ------------------------------------ */

#define DOC_HEAD	"{\"displayTimeUnit\":\"ns\",\"metadata\":{\"ptap-clock\":\"%s\"}," \
			"\"traceEvents\":["
#define DOC_TAIL	"\n]}\n"

/* One spooled event, located in the mapped spool. */
struct spooled {
	uint64_t start, dur;
	uint64_t seq;			/* arrival order */
	size_t off;			/* of its header in the spool */
	uint32_t len;
	int32_t pid, tid;
	uint64_t end;			/* in the document: the offset past it, once written */
};

/* Time order: by start; at the same start the longer first (a parent before
 * the slices it holds, a slice before an instant at its start); then arrival. */
static int by_time(const void *a, const void *b)
{
	const struct spooled *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Thread order: by pid, tid, then arrival. */
static int by_thread(const void *a, const void *b)
{
	const struct spooled *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The spool's entries, in arrival order, into EV (room for MAX): stops at
 * the end, or at the first entry that is not whole (a failed write).
 */
static uint64_t spool_index(const char *map, size_t size, struct spooled *ev, uint64_t max)
{
	size_t off = 0;
	uint64_t n = 0;

	while (n < max && size - off >= sizeof(struct spool_hdr)) {
		struct spool_hdr h;

		memcpy(&h, map + off, sizeof(h));
		if (h.magic != SPOOL_MAGIC || h.len > size - off - sizeof(h))
			break;
		ev[n] = (struct spooled){ .start = h.start, .dur = h.dur, .seq = n, .off = off,
					  .len = h.len, .pid = h.pid, .tid = h.tid };
		off += sizeof(h) + h.len;
		n++;
	}
	return n;
}

/* The comm of spooled event E. */
static const char *spool_comm(const char *map, const struct spooled *e)
{
	return map + e->off + offsetof(struct spool_hdr, comm);
}

/*
 * The document goes out through write(2) in chunks of whole bytes we count,
 * not stdio: after a failure (EPIPE, ENOSPC) the events that reached the
 * output are known exactly, and only the others count as lost.
 */
struct doc {
	struct output *o;		/* its wait_ns counts the document's writes too */
	int fd;
	char *buf;
	size_t len, cap;
	uint64_t put;			/* bytes given to doc_put() */
	uint64_t out;			/* bytes written */
	int err;			/* the failed write's errno: nothing is tried after it */
	bool first;			/* no element in "traceEvents" yet */
};

static void doc_flush(struct doc *d)
{
	if (!d->err)
		d->out += write_all(d->fd, d->buf, d->len, &d->o->wait_ns, &d->err);
	d->len = 0;
}

static void doc_put(struct doc *d, const char *s, size_t n)
{
	d->put += n;
	while (n && !d->err) {
		size_t k = d->cap - d->len < n ? d->cap - d->len : n;

		memcpy(d->buf + d->len, s, k);
		d->len += k;
		s += k;
		n -= k;
		if (d->len == d->cap)
			doc_flush(d);
	}
}

/* One element of "traceEvents", on its own line. */
static void doc_event(struct doc *d, const char *s, size_t n)
{
	if (!n)
		return;		/* a metadata event that did not fit its buffer: none */
	doc_put(d, d->first ? "\n" : ",\n", d->first ? 1 : 2);
	doc_put(d, s, n);
	d->first = false;
}

/*
 * The metadata naming the tracks: per process its process_name (the latest
 * name of its main thread, else of its latest thread), per thread its
 * thread_name "COMM/TID" with its latest name (after an exec, the new
 * program's).  EV (N) is sorted by thread here.  BUF (LEN bytes) is scratch.
 */
static void write_metadata(struct doc *d, const char *map, struct spooled *ev, uint64_t n,
			   char *buf, size_t len)
{
	qsort(ev, n, sizeof(*ev), by_thread);
	for (uint64_t i = 0; i < n;) {
		uint64_t end = i, pname = i;

		while (end < n && ev[end].pid == ev[i].pid)
			end++;
		for (uint64_t j = i; j < end; j++) {
			bool jm = ev[j].tid == ev[j].pid, pm = ev[pname].tid == ev[pname].pid;

			if (jm > pm || (jm == pm && ev[j].seq > ev[pname].seq))
				pname = j;
		}
		doc_event(d, buf, perfetto__format_process_name(ev[i].pid,
								spool_comm(map, &ev[pname]),
								buf, len));
		for (uint64_t j = i; j < end; j++) {
			if (j + 1 < end && ev[j + 1].tid == ev[j].tid)
				continue;	/* the thread's last event has its latest name */
			doc_event(d, buf, perfetto__format_thread_name(ev[j].pid, ev[j].tid,
								       spool_comm(map, &ev[j]),
								       buf, len));
		}
		i = end;
	}
}

/*
 * OUT_PERFETTO at the end, the spool written: {"displayTimeUnit":"ns",
 * "metadata":{"ptap-clock":CLOCK},"traceEvents":[ the metadata, then the
 * spooled events sorted by time ]}.  Events that cannot be read back or
 * written are counted in o->failed.  The write buffer is the document's,
 * the record room after it scratch for the metadata.
 */
static void write_perfetto(struct output *o)
{
	struct doc d = { .o = o, .fd = o->fd, .buf = o->buf, .cap = WBUF_SIZE, .first = true };
	struct spooled *ev = NULL;
	char *map = NULL;
	uint64_t n = 0, i;
	struct stat st;
	char head[128];

	if (fstat(fileno(o->spool), &st) < 0) {
		if (!o->err)
			o->err = errno;
		st.st_size = 0;
	}
	if (o->spooled && st.st_size > 0) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fileno(o->spool), 0);
		ev = calloc(o->spooled, sizeof(*ev));
		if (map == MAP_FAILED || !ev) {
			if (!o->err)
				o->err = map == MAP_FAILED ? errno : ENOMEM;
		} else {
			n = spool_index(map, st.st_size, ev, o->spooled);
		}
	}
	o->failed += o->spooled - n;	/* lost in the spool */
	snprintf(head, sizeof(head), DOC_HEAD, o->clock[0] ? o->clock : "monotonic");
	doc_put(&d, head, strlen(head));
	if (n) {
		write_metadata(&d, map, ev, n, o->buf + WBUF_SIZE, o->reclen);
		qsort(ev, n, sizeof(*ev), by_time);
	}
	for (i = 0; i < n && !d.err; i++) {
		doc_event(&d, map + ev[i].off + sizeof(struct spool_hdr), ev[i].len);
		ev[i].end = d.put;
	}
	doc_put(&d, DOC_TAIL, strlen(DOC_TAIL));
	doc_flush(&d);
	/* not written (the reader went away, the disk is full): those past the bytes out */
	while (i > 0 && ev[i - 1].end > d.out)
		i--;
	o->failed += n - i;
	if (d.err && !o->err)
		o->err = d.err;
	free(ev);
	if (map && map != MAP_FAILED)
		munmap(map, st.st_size);
	fclose(o->spool);
}

/*
 * The summary of the output's pace, at the end: how long the writes took in
 * all, the time the traced threads that hit probes were held for the
 * reader (records are never dropped for a slow one).  Said when that came
 * to WAIT_SAY_NS or more, else only with -v.
 */
#define WAIT_SAY_NS	500000000ULL

static void say_wait(const struct output *o, uint64_t failed)
{
	enum log_level lvl = o->wait_ns >= WAIT_SAY_NS ? LOG_WARN : LOG_INFO;

	log_msg(lvl, "waited %lu.%03lu s in all for the output to take %lu records%s\n",
		(unsigned long)(o->wait_ns / 1000000000ULL),
		(unsigned long)(o->wait_ns / 1000000ULL % 1000), (unsigned long)o->records,
		lvl == LOG_INFO ? "" : failed ? " (the traced threads waited too)" :
		" (the traced threads waited too; no record was dropped)");
}

uint64_t output__close(struct output *o, int *err)
{
	uint64_t failed;

	if (!o)
		return 0;
	flush(o);
	if (o->spool)
		write_perfetto(o);
	if (o->own && close(o->fd) < 0 && !o->err)
		o->err = errno;
	failed = o->failed;
	if (o->err && !failed)
		failed = 1;	/* the close failed: what it had not written is lost */
	if (o->records)
		say_wait(o, failed);
	*err = o->err;
	free(o->buf);
	free(o);
	return failed;
}
