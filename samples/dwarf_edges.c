/* samples/dwarf_edges.c: DWARF corners where a careless reader prints a
 * wrong value -- a member of an anonymous struct (bitfields included), a
 * flexible char array, a variable hidden by an inner one of the same name
 * ($vars must show the inner), a block-scope `extern` declaration of a
 * global, constants recorded as one-byte data forms (int 200), and
 * qualified arrays (`ptap vars edge_quals`: the types gdb prints, a const
 * said once).
 *
 * When fd 3 is open, the program states what ptap prints (normalized text)
 * for these probes, one line per hit:
 *   edge_anon r->id r->lo r->hi r->mid r->word
 *   edge_flex m->len m->name
 *   edge_extern edge_total a
 *   edge_shadow:SHADOW $vars	(SHADOW: the line marked "inner x here", relative
 *				 to edge_shadow's line; -O0 build)
 *   edge_const big small	(-O2 build: the constants have no storage)
 *   edge_null s		(a char * that is NULL on the first call: NULL)
 */
#include <stdlib.h>
#include <string.h>

#include "expect.h"

#define PROBED __attribute__((noinline, noclone, used))

struct rec {
	int id;
	struct {
		unsigned lo : 3;
		unsigned hi : 5;
		unsigned mid : 11;
	};
	union {
		unsigned word;
		float as_float;
	};
};

struct msg {
	int len;
	char name[];
};

int edge_total = 7;
static volatile int sink_v;

static PROBED void sink(int x)
{
	sink_v = x;
}

PROBED int edge_anon(struct rec *r)
{
	return r->id + r->lo + r->hi + r->mid + (int)r->word;
}

PROBED int edge_flex(struct msg *m)
{
	return m->len + m->name[0];
}

PROBED int edge_extern(int a)
{
	extern int edge_total;

	sink(a);
	return a + edge_total;
}

PROBED int edge_shadow(int a)
{
	int x = a + 1;

	sink(x);
	{
		int x = a * 10;

		sink(x);	/* inner x here */
	}
	return x;
}

PROBED int edge_const(int a)
{
	int big = 200;
	unsigned small = 40000;

	sink(a + big);
	sink((int)small);
	return a;
}

PROBED int edge_null(const char *s)
{
	return s ? s[0] : -1;
}

/* Arrays with qualified elements: GCC qualifies __PRETTY_FUNCTION__'s array as well as its
 * chars; gdb prints each type with every qualifier once. */
PROBED int edge_quals(int i)
{
	static const char name[] = "quals";
	static const volatile int ticks[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
	static const char *const words[2] = { "a", "b" };
	static char *const bufs[2] = { NULL, NULL };
	static volatile const char *vp = "v";

	sink(__PRETTY_FUNCTION__[i] + name[i] + ticks[1][i] + words[i & 1][0] + !!bufs[i & 1] +
	     vp[0]);
	return i;
}

int main(void)
{
	FILE *ex = ex_open();
	struct msg *m = malloc(sizeof(*m) + 8);
	int sum = 0;

	for (int i = 1; i <= 2; i++) {
		struct rec r = { .id = i, .lo = 5, .hi = 17 + i, .mid = 1000 + i, .word = 77 * i };

		if (ex)
			fprintf(ex, "edge_anon: r->id=%d r->lo=%u r->hi=%u r->mid=%u r->word=%u\n",
				r.id, r.lo, r.hi, r.mid, r.word);
		sum += edge_anon(&r);
		m->len = 4 + i;
		strcpy(m->name, i == 1 ? "hello" : "flex\tme");
		if (ex) {
			fprintf(ex, "edge_flex: m->len=%d m->name=", m->len);
			ex_str(ex, m->name);
			fputc('\n', ex);
			fprintf(ex, "edge_extern: edge_total=%d a=%d\n", edge_total, 3 * i);
			fprintf(ex, "edge_shadow: a=%d x=%d\n", i, i * 10);
			fprintf(ex, "edge_const: big=200 small=40000\n");
			fprintf(ex, "edge_null: s=%s\n", i == 1 ? "NULL" : "\"null\"");
		}
		sum += edge_flex(m) + edge_extern(3 * i) + edge_shadow(i) + edge_const(i) +
		       edge_quals(i) + edge_null(i == 1 ? NULL : "null");
	}
	free(m);
	if (ex)
		fclose(ex);
	return sum > 0 ? 0 : 1;
}
