/* probes/record.h: one timestamped record and its text and JSON renderings.
 * Pure: formats into caller buffers, never allocates, never prints. */
#ifndef PTAP_PROBES_RECORD_H
#define PTAP_PROBES_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/escape.h"
#include "probes/fetch.h"

enum rec_kind {
	REC_KIND_ENTRY,
	REC_KIND_RETURN,
	REC_KIND_SYSCALL,
	REC_KIND_MMAP,
	REC_KIND_FORK,
	REC_KIND_EXEC,
	REC_KIND_EXIT,
};

const char *rec_kind__name(enum rec_kind kind);	/* "entry", "return", ... */

/* The values a --context event captured last on the record's thread. */
struct record_ctx {
	const char *event;		/* the --context EVENT */
	unsigned int nargs;
	const char *const *names;
	const struct fetch_type *types;
	const struct fetch_val *vals;
};

/*
 * A frame of a call stack (record -g), deepest first.  A function inlined
 * at ADDR is a frame of its own (INLINED), before the one it is inlined in.
 */
struct stack_frame {
	uint64_t addr;			/* the pc; a caller's: its return address */
	const char *func;		/* NULL: no symbol covers ADDR */
	uint64_t off;			/* ADDR - FUNC's start (0 for an inlined frame) */
	const char *file;		/* NULL: no line information */
	unsigned int line;
	const char *module;		/* the file mapped at ADDR; NULL: none */
	bool inlined;
};

/*
 * record --account's counters (tracer/events/account.h), as a return
 * record's last arguments show them, in this order; what ptap report sums.
 */
#define RECORD_ACCT_N	9
extern const char *const record_account_names[RECORD_ACCT_N];

struct record {
	uint64_t ts;			/* ns, of the session's clock */
	int pid, tid;
	const char *comm;
	const char *event;
	enum rec_kind kind;
	uint64_t addr;			/* runtime address of the probe site */
	/* REC_KIND_RETURN (and timed records, e.g. syscalls): */
	uint64_t ret_addr;		/* where the function returned to (0: not shown) */
	uint64_t duration;		/* ns from the entry: the entry was at TS - DURATION */
	bool has_duration;		/* DURATION is meaningful */
	unsigned int nargs;
	const char *const *names;	/* NARGS argument names */
	const struct fetch_type *types;	/* NARGS types */
	const struct fetch_val *vals;	/* NARGS values */
	/* REC_KIND_SYSCALL: the contexts current on the thread (only those set) */
	unsigned int nctx;
	const struct record_ctx *ctx;
	/* record -g: the call stack when the hit was made */
	unsigned int nframes;
	const struct stack_frame *frames;
};

/*
 * Render REC into BUF (LEN bytes), newline-terminated and NUL-terminated.
 * Returns the length written (excluding the NUL).
 *
 * Text (perf-script-like; TS as seconds '.' 9-digit nanoseconds):
 *   COMM PID/TID SEC.NSEC: EVENT: (0xADDR) NAME=VALUE ...
 *   a return:  ... EVENT: (0xADDR <- 0xRET_ADDR) duration=Nns NAME=VALUE ...
 *   (" <- 0xRET_ADDR" only when RET_ADDR, "duration=Nns" only with HAS_DURATION)
 * JSON (one object per line, keys in this order):
 *   {"ts":N,"pid":N,"tid":N,"comm":"..","event":"..","kind":"entry",
 *    "addr":"0x..","args":{"NAME":VALUE,...}}
 *   a return:  ...,"kind":"return","addr":"0x..","ret_addr":"0x..",
 *    "duration_ns":N,"args":{...}}  (the same two conditions)
 * A syscall (REC_KIND_SYSCALL; EVENT is the syscall's name, TS the time of
 * its entry, DURATION the time to its exit; ADDR is not shown):
 *   text:  COMM PID/TID SEC.NSEC: pwrite64: duration=Nns fd=3</tmp/db>
 *          buf=0x7ffd1000 count=100 offset=0 ret=100 {exec_query: query_string="x"}
 *   JSON:  {"ts":N,"pid":N,"tid":N,"comm":"..","event":"pwrite64",
 *           "kind":"syscall","duration_ns":N,"args":{"fd":{"fd":3,"path":"/tmp/db"},
 *           ...,"ret":100},"context":{"exec_query":{"query_string":"x"}}}
 *   The result is the last argument, "ret": a number, or -ERRNO (FT_SYM:
 *   ret=-ENOENT, "ret":"-ENOENT"); none when the call did not return
 *   (exit_group) or was not seen to (the thread died, tracing ended), and
 *   then no duration either.  One {EVENT: NAME=VALUE ...} group per context
 *   in NCTX (text), one "context" object holding them (JSON, absent when
 *   NCTX is 0).
 * A task record (REC_KIND_FORK, _EXEC, _EXIT): no address either (ADDR is not shown):
 *   text:  COMM PID/TID SEC.NSEC: fork: child=4243
 *   JSON:  {"ts":N,"pid":N,"tid":N,"comm":"..","event":"fork","kind":"fork",
 *           "args":{"child":4243}}
 * COMM, EVENT and the NAMEs are escaped (escape.h: ESC_TEXT / ESC_JSON).
 * NAMES may be NULL (then "argN", 1-based), TYPES may be NULL (then x64).
 *
 * A record that does not fit is cut at a value boundary, never silently
 * shortened: the arguments that fit are kept, and the line ends with
 * " ...(truncated)" (text) or is closed as `...,"args":{...},"truncated":true}`
 * (JSON, still one valid object).  When not even the header fits, the text
 * line is " ...(truncated)" alone and the JSON line {"truncated":true}; a
 * buffer too small for those (17 bytes text, 20 JSON) gets "\n" (text) or ""
 * (JSON, returning 0).
 */
size_t record__format_text(const struct record *rec, char *buf, size_t len);
/*
 * The two text writers record__format_text() chooses between, for tests:
 * _plain, the fast one, takes only an entry or return whose values are
 * numbers and whole strings, with room to spare (else it returns 0 and
 * what it wrote means nothing); _general takes every record.  Where both
 * write, they write the same.
 */
size_t record__format_text_plain(const struct record *rec, char *buf, size_t len);
size_t record__format_text_general(const struct record *rec, char *buf, size_t len);
size_t record__format_json(const struct record *rec, char *buf, size_t len);
/* The same two for JSON. */
size_t record__format_json_plain(const struct record *rec, char *buf, size_t len);
size_t record__format_json_general(const struct record *rec, char *buf, size_t len);

/*
 * A stack frame (record -g) as text into OB, its strings escaped for MODE
 * (escape.h): FUNC+0xOFF, or FUNC (inlined), or [unknown]; then FILE:LINE
 * and (MODULE) when known.  A record's stack prints, in text, a frame a
 * line under the record's line (a tab, the address, this); in JSON as
 * "stack":[{"addr":"0x..","func":"f","off":N,"file":"..","line":N,
 * "module":".."},...] before "args" ("inlined":true in place of "off" for
 * an inlined function; "func":null when not known; file, line and module
 * only when known), absent without -g.
 */
struct obuf;
void ob_stack_frame(struct obuf *ob, const struct stack_frame *f, enum esc_mode mode);
/*
 * ,"stack":["FRAME",...] (each as ob_stack_frame() writes it, for JSON) into
 * OB: the frames that fit with room kept for what closes the record.  False
 * when some did not (the caller then marks the record cut).
 */
bool record__stack_strings(const struct record *rec, struct obuf *ob);

/*
 * The first line of a text or JSON stream, naming the clock of every TS
 * (CLOCK: "monotonic", "realtime", "boottime" or "tai"), so that the stream
 * can be joined with perf, ftrace or blktrace output taken on that clock:
 *   text:  # ptap clock=monotonic
 *   JSON:  {"kind":"clock","clock":"monotonic"}
 * Returns the length written (NUL-terminated; 0 when LEN is too small).
 */
size_t record__format_header_text(const char *clock, char *buf, size_t len);
size_t record__format_header_json(const char *clock, char *buf, size_t len);

/*
 * Format one value.  Integers are truncated to the type's size first (and
 * sign-extended for sN); bitfields (bN@O/S) are VAL->u already extracted.
 *
 *   type             text                    JSON
 *   sN               -1                      -1            (a number)
 *   uN, bN@O/S       255                     255           (a number, u64 too)
 *   xN, default,     0x1f                    "0x1f"        (hex is not a JSON
 *   symbol                                                  number: a string)
 *   string, ustring  "SELECT 1"              "SELECT 1"
 *     a NULL pointer NULL                    null          (VAL->null)
 *     longer than    "SELECT"...(+2 bytes)   {"value":"SELECT","truncated":true,
 *     --string-max                            "length":8}
 *       the bytes not shown (text) or the whole length (JSON) in bytes, from
 *       VAL->full_len; with VAL->full_len_min (no NUL within the scan, fetch.h)
 *       a lower bound: "SELECT"...(+65536 bytes or more), "length_min":65542;
 *       full_len 0 (not known): "SELECT"... and {"value":..,"truncated":true}
 *       a cut string is shown up to its last whole UTF-8 character: the lead and
 *       continuation bytes of one the cut split are left out (utf8_whole_len(),
 *       escape.h) and counted in the +N
 *   bool             true / false            true / false
 *   float            0.1  -2.5  1e+30        0.1 (a number; nan, inf, -inf:
 *                    (shortest "%g" that reads back to the same value) strings)
 *   enum             RED; 7 when no enumerator has the value   "RED"; 7
 *   char array       as a string              as a string
 *   struct, union    {x=1, name="ab", c=RED, in={...}}
 *                                            {"x":1,"name":"ab","c":"RED","in":"{...}"}
 *     members are formatted from the fetched bytes by their own types, one
 *     level deep (FT_OPAQUE members print {...}); a member past the bytes
 *     fetched prints (error: ...) like a failed value
 *   -EFAULT          (error: bad address 0x0)    {"error":"bad address 0x0"}
 *   other -errno     (error: <strerror text>)    {"error":"<strerror text>"}
 *
 * String bytes are escaped with ESC_TEXT / ESC_JSON (escape.h): a target's
 * string cannot end the line, start a record of its own or send a terminal
 * a control sequence.  Returns the length written (NUL-terminated), or 0
 * with BUF empty when the value does not fit in LEN bytes: a value is never
 * cut.
 */
size_t value__format_text(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len);
size_t value__format_json(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len);

/*
 * An upper bound of the length value__format_text() or _json() can write
 * for a value of type T with strings limited to STRMAX bytes (escaping
 * included), so a record buffer can be sized at start.
 */
size_t value__max_len(const struct fetch_type *t, size_t strmax);

#endif
