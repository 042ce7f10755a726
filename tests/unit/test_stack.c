/* tests/unit/test_stack.c: record -g's pure parts: frame pointers followed
 * through a fake stack (dwarf/unwind.h), and a record's stack in text, JSON
 * and a cut that keeps whole frames (probes/record.h). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "dwarf/unwind.h"
#include "probes/err.h"
#include "probes/json.h"
#include "probes/perfetto.h"
#include "probes/record.h"

/* ---- frame pointers ---------------------------------------------------- */

/* A fake stack of 64 words at 0x7000; reads outside it fail. */
#define STK_LO	0x7000ULL
static uint64_t stk[64];

static ssize_t stk_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	(void)priv;
	if (addr < STK_LO || addr + len > STK_LO + sizeof(stk))
		return -14;
	memcpy(buf, (char *)stk + (addr - STK_LO), len);
	return (ssize_t)len;
}

static const struct stack_mem mem = { stk_read, NULL };

/* word I of the fake stack's address */
#define AT(i)	(STK_LO + 8 * (i))

static void regs_at(uint64_t *r, uint64_t pc, uint64_t sp, uint64_t fp)
{
	memset(r, 0, 17 * sizeof(*r));
	r[16] = pc;
	r[7] = sp;
	r[6] = fp;
}

/* main's frame at word 20 (its caller's fp 0: the end), f's at 10, g's at 4 */
static void three_frames(void)
{
	memset(stk, 0, sizeof(stk));
	stk[4] = AT(10);	stk[5] = 0x401100;	/* g's frame: back into f */
	stk[10] = AT(20);	stk[11] = 0x401200;	/* f's frame: back into main */
	stk[20] = 0;		stk[21] = 0x401300;	/* main's: back into libc */
	stk[2] = 0x401050;	/* at sp, a function entered, not set up: back into g */
}

Test(unwind_fp, follows_the_chain_to_its_end)
{
	uint64_t r[17], pcs[8];

	three_frames();
	regs_at(r, 0x401000, AT(2), AT(4));
	cr_assert(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 8), 4));
	cr_expect(eq(u64, pcs[0], 0x401000));
	cr_expect(eq(u64, pcs[1], 0x401100));
	cr_expect(eq(u64, pcs[2], 0x401200));
	cr_expect(eq(u64, pcs[3], 0x401300));
}

Test(unwind_fp, entry_takes_its_return_address_at_sp)
{
	uint64_t r[17], pcs[8];

	three_frames();
	regs_at(r, 0x402000, AT(2), AT(4));
	cr_assert(eq(int, stack_unwind_fp(r, 0, &mem, pcs, 8), 5));
	cr_expect(eq(u64, pcs[1], 0x401050));	/* its caller, g, from the stack top */
	cr_expect(eq(u64, pcs[2], 0x401100));	/* then g's caller through rbp */
	/* after the push: 8 bytes further */
	stk[3] = 0x401060;
	cr_assert(eq(int, stack_unwind_fp(r, 8, &mem, pcs, 8), 5));
	cr_expect(eq(u64, pcs[1], 0x401060));
}

Test(unwind_fp, stops_at_max_bad_links_and_unreadable_memory)
{
	uint64_t r[17], pcs[8];

	three_frames();
	regs_at(r, 0x401000, AT(2), AT(4));
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 2), 2));
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 0), 0));
	stk[10] = AT(4);	/* a loop: f's saved fp points down at g's */
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 8), 3));
	regs_at(r, 0x401000, AT(2), AT(4) + 3);	/* misaligned */
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 8), 1));
	regs_at(r, 0x401000, AT(2), 0x9000);	/* outside the stack */
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 8), 1));
	regs_at(r, 0x401000, AT(8), AT(4));	/* below the sp: not a frame */
	cr_expect(eq(int, stack_unwind_fp(r, -1, &mem, pcs, 8), 1));
}

/* ---- a record's stack --------------------------------------------------- */

static const struct stack_frame frames[] = {
	{ .addr = 0x401000, .func = "leaf", .off = 0, .file = "s.c", .line = 13,
	  .module = "/bin/s" },
	{ .addr = 0x401100, .func = "helper", .file = "s.c", .line = 18, .module = "/bin/s",
	  .inlined = true },
	{ .addr = 0x401100, .func = "middle", .off = 9, .file = "s.c", .line = 23,
	  .module = "/bin/s" },
	{ .addr = 0x7f0000, .module = "/lib/a\tb.so" },
	{ .addr = 0x1000 },
};

static const struct record rec = { .ts = 12345678901ULL, .pid = 7, .tid = 8, .comm = "s",
				   .event = "leaf", .addr = 0x401000, .nframes = 5,
				   .frames = frames };

Test(stack_format, text)
{
	static const char golden[] =
		"s 7/8 12.345678901: leaf: (0x401000)\n"
		"\t0x401000 leaf+0x0 s.c:13 (/bin/s)\n"
		"\t0x401100 helper (inlined) s.c:18 (/bin/s)\n"
		"\t0x401100 middle+0x9 s.c:23 (/bin/s)\n"
		"\t0x7f0000 [unknown] (/lib/a\\tb.so)\n"
		"\t0x1000 [unknown]\n";
	char buf[512];

	cr_expect(eq(sz, record__format_text(&rec, buf, sizeof(buf)), strlen(golden)));
	cr_expect(eq(str, buf, (char *)golden));
}

Test(stack_format, json)
{
	static const char golden[] =
		"{\"ts\":12345678901,\"pid\":7,\"tid\":8,\"comm\":\"s\",\"event\":\"leaf\","
		"\"kind\":\"entry\",\"addr\":\"0x401000\",\"stack\":["
		"{\"addr\":\"0x401000\",\"func\":\"leaf\",\"off\":0,\"file\":\"s.c\",\"line\":13,"
		"\"module\":\"/bin/s\"},"
		"{\"addr\":\"0x401100\",\"func\":\"helper\",\"inlined\":true,\"file\":\"s.c\","
		"\"line\":18,\"module\":\"/bin/s\"},"
		"{\"addr\":\"0x401100\",\"func\":\"middle\",\"off\":9,\"file\":\"s.c\",\"line\":23,"
		"\"module\":\"/bin/s\"},"
		"{\"addr\":\"0x7f0000\",\"func\":null,\"module\":\"/lib/a\\tb.so\"},"
		"{\"addr\":\"0x1000\",\"func\":null}],\"args\":{}}\n";
	char buf[1024];

	cr_expect(eq(sz, record__format_json(&rec, buf, sizeof(buf)), strlen(golden)));
	cr_expect(eq(str, buf, (char *)golden));
}

/* A stack too long for the buffer keeps the frames that fit, whole, and says it was cut. */
Test(stack_format, text_cut_keeps_whole_frames)
{
	char buf[120];
	size_t n = record__format_text(&rec, buf, sizeof(buf));

	cr_assert(eq(str, buf + n - strlen(" ...(truncated)\n"), " ...(truncated)\n"), "%s", buf);
	cr_expect(eq(ptr, strstr(buf, "helper"), NULL), "%s", buf);
	cr_expect(ne(ptr, strstr(buf, "\t0x401000 leaf+0x0 s.c:13 (/bin/s) ...(truncated)"), NULL),
		  "%s", buf);
}

/* A stack longer than the buffer, in JSON and Perfetto: the header kept, the frames
 * that fit, one valid JSON object marked cut (a long demangled name) */
Test(stack_format, json_and_perfetto_cut_stay_valid)
{
	static char longname[3000];
	struct stack_frame fr[3] = { frames[0], frames[2], frames[0] };
	struct record r = rec;
	struct ptap_err err = { .pos = -1 };
	struct json_doc *doc;
	const struct json_val *v, *st;
	char buf[1024];
	size_t n;

	memset(longname, 'x', sizeof(longname) - 1);
	fr[1].func = longname;
	r.frames = fr;
	r.nframes = 3;
	cr_assert(eq(int, json_doc__new(&doc), 0));
	n = record__format_json(&r, buf, sizeof(buf));
	cr_assert(eq(int, json_doc__parse(doc, buf, n, &v, &err), 0), "%s: %s", buf, err.msg);
	cr_expect(eq(u64, (uint64_t)json_get(v, "ts")->i, 12345678901ULL), "%s", buf);
	cr_expect(json_get(v, "truncated") && json_get(v, "truncated")->b, "%s", buf);
	st = json_get(v, "stack");
	cr_assert_not_null(st, "%s", buf);
	cr_assert(eq(int, st->type, JSON_ARRAY), "%s", buf);
	cr_expect(eq(sz, st->arr.n, 1), "%s", buf);	/* leaf; not the long one, nor after it */
	n = perfetto__format_event(&r, buf, sizeof(buf));
	cr_assert(gt(sz, n, 0));
	cr_assert(eq(int, json_doc__parse(doc, buf, n, &v, &err), 0), "%s: %s", buf, err.msg);
	cr_expect_not_null(json_get(json_get(v, "args"), "truncated"), "%s", buf);
	cr_expect(eq(sz, json_get(json_get(v, "args"), "stack")->arr.n, 1), "%s", buf);
	json_doc__free(doc);
}
