/* samples/structs.c (with samples/structs2.c): DWARF types for ptap's
 * probes by variable name -- nested structs, a union, arrays, bitfields, an
 * enum, typedef chains with qualifiers, pointers to pointers, char arrays,
 * bool, float and double -- and a global `counter` next to a file-static
 * `counter` in structs2.c.  Each probed function is called three times with
 * distinct values.
 *
 * When fd 3 is open, the program states there what ptap prints (text,
 * normalized: "EVENT: NAME=VALUE ...") for these probes, one line per hit;
 * pointers are stated as 0x%lx of the pointer.  Run any subset of them and
 * compare the lines of each EVENT:
 *
 *   show_outer o->kind o->inner.id o->inner.tag o->inner.name o->origin->x o->vals[2]
 *              o->color o->label o->weight o->on
 *   outer_whole=show_outer *o o->inner
 *   show_point p.x p.y pp->y *pp *ppp **ppp p
 *   point_params=show_point $params
 *   show_union n.i n.f np->u np->half[1] *np n
 *   show_flags f->ready f->level f->mode f->delta f->code f->wide f->big fv.level fv.mode fv.big
 *   flags_whole=show_flags *f
 *   show_typedefs cp->x cp->y pv.y *vc n *cp
 *   show_chars s sp=s:x64 g->tag g->note note=g->note:string g->cells[1][2] g->cells[0][1]
 *              sc uc c *names names[1]
 *   show_floats f d b c
 *   floats_params=show_floats $params
 *   show_globals tick counter g_label g_origin.y g_origin st=counter@structs2.c
 *                gl=counter@structs.c
 *   show_inner2 counter in->name in->id		(in structs2.c: its static counter)
 *   scopes=show_scopes:RELLINE $vars		(RELLINE: the line marked "$vars here",
 *						 relative to show_scopes' line)
 *
 * The program's exit status is 0; stdout gets one line with the sum of the
 * functions' results, so that none of them is optimized away.
 */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "structs.h"

int counter;				/* structs2.c has a static one of the same name */
const char *g_label = "global label";
struct point g_origin = { 100, 200 };

PROBED int show_outer(struct outer *o)
{
	int sum = o->kind + o->inner.id + o->inner.tag + o->origin->x + o->vals[2] + o->color;

	sum += (int)strlen(o->inner.name) + (int)strlen(o->label) + (int)o->weight + o->on;
	return sum;
}

PROBED int show_point(struct point p, const struct point *pp, struct point **ppp)
{
	return p.x + p.y + pp->x + pp->y + (*ppp)->x + (*ppp)->y;
}

PROBED int show_union(union number n, union number *np)
{
	return n.i + (int)np->u + np->half[1];
}

PROBED long show_flags(const struct flags *f, struct flags fv)
{
	return f->ready + f->level + f->mode + f->delta + f->code + f->wide + f->big +
	       fv.level + fv.mode + fv.big;
}

PROBED long show_typedefs(cv_pos_t *cp, pos_t pv, vcount_t *vc, count_t n)
{
	return cp->x + cp->y + pv.x + pv.y + *vc + n;
}

PROBED int show_chars(const char *s, const struct grid *g, signed char sc, unsigned char uc,
		      char c, const char **names)
{
	return (int)strlen(s) + g->cells[1][2] + g->cells[0][1] + g->tag[0] +
	       (int)strlen(g->note) + sc + uc + c + (int)strlen(names[0]) +
	       (int)strlen(names[1]);
}

PROBED double show_floats(float f, double d, bool b, enum color c)
{
	return f + d + b + c;
}

PROBED int show_globals(int tick)
{
	return counter + tick + g_origin.y + (int)strlen(g_label);
}

PROBED int show_scopes(int a, const struct point *pt)
{
	int base = a * 2;
	const char *word = a > 1 ? "many" : "one";
	int total = base + (int)strlen(word);

	if (a > 0) {
		int step = base + pt->x;

		total += step;	/* $vars here */
		total *= 2;
	}
	return total + a + pt->y;
}

/* ---- what ptap should print ------------------------------------------ */

static FILE *ex;

/* An enum color by enumerator name, or its number when it has none. */
static void ex_color(enum color c)
{
	switch (c) {
	case RED:
		fputs("RED", ex);
		break;
	case GREEN:
		fputs("GREEN", ex);
		break;
	case BLUE:
		fputs("BLUE", ex);
		break;
	default:
		fprintf(ex, "%d", (int)c);
	}
}

static void ex_point(const struct point *p)
{
	fprintf(ex, "{x=%d, y=%d}", p->x, p->y);
}

static void ex_inner(const struct inner *in)
{
	fprintf(ex, "{id=%d, tag=%u, name=", in->id, in->tag);
	ex_chars(ex, in->name, sizeof(in->name));
	fputc('}', ex);
}

static void call_outer(struct outer *o, long *sum)
{
	if (ex) {
		fprintf(ex, "show_outer: o->kind=%d o->inner.id=%d o->inner.tag=%u o->inner.name=",
			o->kind, o->inner.id, o->inner.tag);
		ex_chars(ex, o->inner.name, sizeof(o->inner.name));
		fprintf(ex, " o->origin->x=%d o->vals[2]=%d o->color=", o->origin->x, o->vals[2]);
		ex_color(o->color);
		fputs(" o->label=", ex);
		ex_str(ex, o->label);
		fputs(" o->weight=", ex);
		ex_double(ex, o->weight);
		fputs(" o->on=", ex);
		ex_bool(ex, o->on);
		fprintf(ex, "\nouter_whole: *o={kind=%d, inner={...}, origin=", o->kind);
		ex_ptr(ex, o->origin);
		fputs(", label=", ex);
		ex_ptr(ex, o->label);
		fputs(", color=", ex);
		ex_color(o->color);
		fputs(", vals={...}, weight=", ex);
		ex_double(ex, o->weight);
		fputs(", on=", ex);
		ex_bool(ex, o->on);
		fputs("} o->inner=", ex);
		ex_inner(&o->inner);
		fputc('\n', ex);
	}
	*sum += show_outer(o);
}

static void call_point(struct point p, const struct point *pp, struct point **ppp, long *sum)
{
	if (ex) {
		fprintf(ex, "show_point: p.x=%d p.y=%d pp->y=%d *pp=", p.x, p.y, pp->y);
		ex_point(pp);
		fputs(" *ppp=", ex);
		ex_ptr(ex, *ppp);
		fputs(" **ppp=", ex);
		ex_point(*ppp);
		fputs(" p=", ex);
		ex_point(&p);
		fputs("\npoint_params: p=", ex);
		ex_point(&p);
		fputs(" pp=", ex);
		ex_ptr(ex, pp);
		fputs(" ppp=", ex);
		ex_ptr(ex, ppp);
		fputc('\n', ex);
	}
	*sum += show_point(p, pp, ppp);
}

static void ex_number(const union number *n)
{
	fprintf(ex, "{i=%d, f=", n->i);
	ex_float(ex, n->f);
	fprintf(ex, ", u=%u, half={...}}", n->u);
}

static void call_union(union number n, union number *np, long *sum)
{
	if (ex) {
		fprintf(ex, "show_union: n.i=%d n.f=", n.i);
		ex_float(ex, n.f);
		fprintf(ex, " np->u=%u np->half[1]=%d *np=", np->u, np->half[1]);
		ex_number(np);
		fputs(" n=", ex);
		ex_number(&n);
		fputc('\n', ex);
	}
	*sum += show_union(n, np);
}

static void call_flags(const struct flags *f, struct flags fv, long *sum)
{
	if (ex) {
		fprintf(ex, "show_flags: f->ready=%u f->level=%d f->mode=%u f->delta=%d f->code=%u "
			"f->wide=%u f->big=%lld fv.level=%d fv.mode=%u fv.big=%lld\n",
			f->ready, f->level, f->mode, f->delta, f->code, f->wide,
			(long long)f->big, fv.level, fv.mode, (long long)fv.big);
		fprintf(ex, "flags_whole: *f={ready=%u, level=%d, mode=%u, delta=%d, code=%u, "
			"wide=%u, big=%lld}\n", f->ready, f->level, f->mode, f->delta, f->code,
			f->wide, (long long)f->big);
	}
	*sum += show_flags(f, fv);
}

static void call_typedefs(cv_pos_t *cp, pos_t pv, vcount_t *vc, count_t n, long *sum)
{
	if (ex)
		fprintf(ex, "show_typedefs: cp->x=%d cp->y=%d pv.y=%d *vc=%d n=%d "
			"*cp={x=%d, y=%d}\n", cp->x, cp->y, pv.y, *vc, n, cp->x, cp->y);
	*sum += show_typedefs(cp, pv, vc, n);
}

static void call_chars(const char *s, const struct grid *g, signed char sc, unsigned char uc,
		       char c, const char **names, long *sum)
{
	if (ex) {
		fputs("show_chars: s=", ex);
		ex_str(ex, s);
		fputs(" sp=", ex);
		ex_ptr(ex, s);
		fputs(" g->tag=", ex);
		ex_chars(ex, g->tag, sizeof(g->tag));
		fputs(" g->note=", ex);
		ex_chars(ex, g->note, sizeof(g->note));
		fputs(" note=", ex);
		ex_chars(ex, g->note, sizeof(g->note));
		fprintf(ex, " g->cells[1][2]=%d g->cells[0][1]=%d sc=%d uc=%u c=%d *names=",
			g->cells[1][2], g->cells[0][1], sc, uc, c);
		ex_str(ex, names[0]);
		fputs(" names[1]=", ex);
		ex_str(ex, names[1]);
		fputc('\n', ex);
	}
	*sum += show_chars(s, g, sc, uc, c, names);
}

static void call_floats(float f, double d, bool b, enum color c, long *sum)
{
	if (ex) {
		for (int i = 0; i < 2; i++) {
			fputs(i ? "floats_params: f=" : "show_floats: f=", ex);
			ex_float(ex, f);
			fputs(" d=", ex);
			ex_double(ex, d);
			fputs(" b=", ex);
			ex_bool(ex, b);
			fputs(" c=", ex);
			ex_color(c);
			fputc('\n', ex);
		}
	}
	*sum += (long)show_floats(f, d, b, c);
}

/* Sets the globals, then calls show_globals(TICK) and show_inner2(IN). */
static void call_globals(int tick, int by, const char *label, const struct inner *in, long *sum)
{
	int st;

	counter = tick * 3;
	g_label = label;
	g_origin.y = -tick;
	st = bump2(by);
	if (ex) {
		fprintf(ex, "show_globals: tick=%d counter=%d g_label=", tick, counter);
		ex_str(ex, g_label);
		fprintf(ex, " g_origin.y=%d g_origin=", g_origin.y);
		ex_point(&g_origin);
		fprintf(ex, " st=%d gl=%d\n", st, counter);
		fprintf(ex, "show_inner2: counter=%d in->name=", st);
		ex_chars(ex, in->name, sizeof(in->name));
		fprintf(ex, " in->id=%d\n", in->id);
	}
	*sum += show_globals(tick);
	*sum += show_inner2(in);
}

/* show_scopes(A, PT) with what $vars sees on the marked line. */
static void call_scopes(int a, const struct point *pt, long *sum)
{
	int base = a * 2;
	const char *word = a > 1 ? "many" : "one";

	if (ex && a > 0) {
		fprintf(ex, "scopes: a=%d pt=", a);
		ex_ptr(ex, pt);
		fprintf(ex, " base=%d word=", base);
		ex_str(ex, word);
		fprintf(ex, " total=%d step=%d\n", base + (int)strlen(word), base + pt->x);
	}
	*sum += show_scopes(a, pt);
}

int main(void)
{
	static struct point pts[3] = { { 10, 11 }, { -5, 2147483647 }, { 0, -2147483647 - 1 } };
	static struct outer outs[3] = {
		{ 1, { -3, 200, "alpha" }, &pts[0], "first", RED, { 0, 1, 7, 3 }, 0.5, true },
		{ -20, { 32000, 0, "b\"q\\\t" }, &pts[1], "zwei \xc3\xa9", BLUE,
		  { 9, 9, -70000, 9 }, -2.25, false },
		{ 300, { -32768, 255, "1234567" }, &pts[2], "", (enum color)42,
		  { 0, 0, 2147483647, 0 }, 1e30, true },
	};
	static union number nums[3];
	static struct flags flags[3] = {
		{ 1, -3, 17, -50, 9, 1000000, -34359738368LL },
		{ 0, 3, 31, 63, 255, 1048575, 34359738367LL },
		{ 1, -4, 0, -64, 0, 0, 12345678901LL },
	};
	static const char *names[3][2] = {
		{ "ann", "bob" }, { "", "line\nbreak" }, { "\x7f\x01", "caf\xc3\xa9" },
	};
	static struct grid grids[3] = {
		{ { { 1, 2, 3 }, { 4, 5, 6 } }, "abcd", "hi" },
		{ { { -1, -2, -3 }, { -4, -5, -6 } }, "wxyz", "12345" },
		{ { { 0, 100, 0 }, { 0, 0, 600 } }, "q\"\\\t", "" },
	};
	static const char *strs[3] = {
		"plain", "tab\there \"q\" back\\slash\nnl", "\xc3\xbc\x01\r",
	};
	static struct inner in2[3] = { { 7, 1, "two" }, { -7, 2, "deux" }, { 77, 3, "zwei" } };
	static volatile count_t vcs[3] = { 42, -1, 0 };
	long sum = 0;

	ex = ex_open();
	nums[0].i = 42;
	nums[1].f = 1.0f;
	nums[2].f = -0.1f;
	for (int i = 0; i < 3; i++) {
		struct point *pp = &pts[(i + 1) % 3];
		union number n = { .u = 0xC0490FDBu + (unsigned)i };	/* about -3.14159 */
		cv_pos_t cv = { 3 * i, -3 * i - 1 };

		call_outer(&outs[i], &sum);
		call_point(pts[i], &pts[(i + 2) % 3], &pp, &sum);
		call_union(n, &nums[i], &sum);
		call_flags(&flags[i], flags[(i + 1) % 3], &sum);
		call_typedefs(&cv, pts[i], &vcs[i], 1000 * i - 1, &sum);
		call_chars(strs[i], &grids[i], (signed char)(i * 127 - 128),
			   (unsigned char)(i * 100), (char)(i == 1 ? -1 : 'A' + i), names[i], &sum);
		call_floats(i == 0 ? 0.1f : i == 1 ? -2.5f : FLT_MAX,
			    i == 0 ? 0.1 : i == 1 ? 1e30 : -0.0, i != 1,
			    i == 0 ? GREEN : i == 1 ? BLUE : (enum color)42, &sum);
		call_globals(i + 1, 5 * i - 2, strs[(i + 1) % 3], &in2[i], &sum);
		call_scopes(i, &pts[i], &sum);
	}
	printf("structs: sum %ld\n", sum);
	if (ex)
		fclose(ex);
	return 0;
}
