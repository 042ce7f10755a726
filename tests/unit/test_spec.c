/* tests/unit/test_spec.c: probe spec parsing, errors with their columns,
 * synthesis and round trips. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probes/err.h"
#include "probes/spec.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a dump of every parsed field, written independently of spec.c ------- */

struct dump {
	char buf[2048];
	size_t pos;
	bool with_pos;		/* print positions and the argument text */
};

static void dp(struct dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void dp(struct dump *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	d->pos += vsnprintf(d->buf + d->pos, sizeof(d->buf) - d->pos, fmt, ap);
	va_end(ap);
	cr_assert(lt(ulong, d->pos, sizeof(d->buf)));
}

static void dump_expr(struct dump *d, const struct arg_expr *e)
{
	switch (e->kind) {
	case ARG_REG:
		dp(d, "reg(%s)", e->name);
		break;
	case ARG_ARGN:
		dp(d, "argn(%ld)", e->n);
		break;
	case ARG_DEREF:
		dp(d, "deref(%ld,", e->off);
		dump_expr(d, e->inner);
		dp(d, ")");
		break;
	case ARG_SYMBOL:
		dp(d, "sym(%s,%ld)", e->name, e->off);
		break;
	case ARG_VAR:
		dp(d, "var(%d,%s", e->nderef, e->name);
		for (int i = 0; i < e->nchain; i++) {
			const struct arg_access *a = &e->chain[i];

			if (a->kind == ACC_INDEX)
				dp(d, ",IX:%ld", a->index);
			else
				dp(d, ",%s:%s", a->kind == ACC_ARROW ? "AR" : "DOT", a->member);
		}
		dp(d, ")");
		break;
	case ARG_RETVAL:
		dp(d, "retval");
		break;
	case ARG_PARAMS:
		dp(d, "params");
		break;
	case ARG_VARS:
		dp(d, "vars");
		break;
	case ARG_IMM:
		dp(d, "imm(%ld)", e->n);
		break;
	default:
		dp(d, "BAD-KIND(%d)", e->kind);
	}
	if (d->with_pos)
		dp(d, "@%d", e->pos);
}

static void dump_type(struct dump *d, const struct probe_arg *a)
{
	static const char *const kinds[] = { "DEF", "S", "U", "X", "STR", "USTR", "SYM", "BF" };
	const struct fetch_type *t = &a->type;

	if (!a->has_type) {
		cr_assert(eq(int, t->kind, FT_DEFAULT));
		dp(d, "-");
		return;
	}
	cr_assert(lt(ulong, t->kind, ARRAY_SIZE(kinds)));
	if (t->kind == FT_BITFIELD)
		dp(d, "BF(%u,%u,%u)", t->bits, t->bit_off, t->size);
	else
		dp(d, "%s%u", kinds[t->kind], t->size);
}

static void dump_point(struct dump *d, const struct probe_point *pp)
{
	switch (pp->kind) {
	case PP_FUNC:
		dp(d, "FUNC(%s,src=%s,off=%ld,line=%d,ret=%d)", pp->func,
		   pp->src ? pp->src : "-", pp->offset, pp->line, pp->retprobe);
		cr_assert(eq(u64, pp->addr, 0));
		break;
	case PP_SRCLINE:
		dp(d, "SRC(%s:%d)", pp->src, pp->line);
		cr_assert_null(pp->func);
		cr_assert(eq(long, pp->offset, 0));
		cr_assert(eq(int, pp->retprobe, false));
		cr_assert(eq(u64, pp->addr, 0));
		break;
	case PP_ADDR:
		dp(d, "ADDR(0x%llx)", (unsigned long long)pp->addr);
		cr_assert_null(pp->func);
		cr_assert_null(pp->src);
		cr_assert(eq(long, pp->offset, 0));
		cr_assert(eq(int, pp->line, 0));
		cr_assert(eq(int, pp->retprobe, false));
		break;
	default:
		dp(d, "BAD-POINT(%d)", pp->kind);
	}
}

static const char *dump_spec(struct dump *d, const struct probe_spec *spec)
{
	d->pos = 0;
	d->buf[0] = '\0';
	dp(d, "ev=%s ", spec->event ? spec->event : "-");
	dump_point(d, &spec->point);
	for (int i = 0; i < spec->nargs; i++) {
		const struct probe_arg *a = &spec->args[i];

		dp(d, " ");
		if (d->with_pos)
			dp(d, "#%d", a->pos);
		dp(d, "[%s|", a->name ? a->name : "-");
		if (d->with_pos)
			dp(d, "%s|", a->text);
		dump_expr(d, a->expr);
		dp(d, "|");
		dump_type(d, a);
		dp(d, "]");
	}
	return d->buf;
}

/* ---- accepted specs ------------------------------------------------------ */

static const struct {
	const char *in;
	const char *dump;	/* dump_spec() with positions and texts */
} good[] = {
	/* points */
	{ "main", "ev=- FUNC(main,src=-,off=0,line=0,ret=0)" },
	{ "my_ev=main", "ev=my_ev FUNC(main,src=-,off=0,line=0,ret=0)" },
	{ "grp:ev2=main", "ev=ev2 FUNC(main,src=-,off=0,line=0,ret=0)" },
	{ "main@src/main.c", "ev=- FUNC(main,src=src/main.c,off=0,line=0,ret=0)" },
	{ "main%return", "ev=- FUNC(main,src=-,off=0,line=0,ret=1)" },
	{ "main@a.c%return", "ev=- FUNC(main,src=a.c,off=0,line=0,ret=1)" },
	{ "main+16", "ev=- FUNC(main,src=-,off=16,line=0,ret=0)" },
	{ "main+0x10", "ev=- FUNC(main,src=-,off=16,line=0,ret=0)" },
	{ "main:3", "ev=- FUNC(main,src=-,off=0,line=3,ret=0)" },
	{ "main@a.c:3", "ev=- FUNC(main,src=a.c,off=0,line=3,ret=0)" },
	{ "main:3@a.c", "ev=- FUNC(main,src=a.c,off=0,line=3,ret=0)" },
	{ "foo.c:42", "ev=- SRC(foo.c:42)" },
	{ "dir/sub/foo.c:7", "ev=- SRC(dir/sub/foo.c:7)" },
	{ "0x4011a6", "ev=- ADDR(0x4011a6)" },
	{ "0xFFFFFFFFFFFFFFFF", "ev=- ADDR(0xffffffffffffffff)" },
	{ "exec_*", "ev=- FUNC(exec_*,src=-,off=0,line=0,ret=0)" },
	{ "exec_?uery%return", "ev=- FUNC(exec_?uery,src=-,off=0,line=0,ret=1)" },
	{ "[ab]*_init", "ev=- FUNC([ab]*_init,src=-,off=0,line=0,ret=0)" },
	{ "[[:alpha:]]x:2", "ev=- FUNC([[:alpha:]]x,src=-,off=0,line=2,ret=0)" },
	{ "*", "ev=- FUNC(*,src=-,off=0,line=0,ret=0)" },
	/* C++, Rust and Go names (issue 21) */
	{ "ns::Db::query", "ev=- FUNC(ns::Db::query,src=-,off=0,line=0,ret=0)" },
	{ "ns::Db::query:3", "ev=- FUNC(ns::Db::query,src=-,off=0,line=3,ret=0)" },
	{ "ns::Db::query(std::string const&, int) sql",
	  "ev=- FUNC(ns::Db::query(std::string const&, int),src=-,off=0,line=0,ret=0) "
	  "#39[-|sql|var(0,sql)@39|-]" },
	{ "ns::twice<int>%return", "ev=- FUNC(ns::twice<int>,src=-,off=0,line=0,ret=1)" },
	{ "ns::Db::~Db@db.cc", "ev=- FUNC(ns::Db::~Db,src=db.cc,off=0,line=0,ret=0)" },
	{ "operator new %di", "ev=- FUNC(operator new,src=-,off=0,line=0,ret=0) "
	  "#13[-|%di|reg(di)@13|-]" },
	{ "operator delete[]", "ev=- FUNC(operator delete[],src=-,off=0,line=0,ret=0)" },
	{ "ns::operator==", "ev=- FUNC(ns::operator==,src=-,off=0,line=0,ret=0)" },
	{ "S::get() const", "ev=- FUNC(S::get() const,src=-,off=0,line=0,ret=0)" },
	{ "S::get() const%return", "ev=- FUNC(S::get() const,src=-,off=0,line=0,ret=1)" },
	{ "ns::f(int) const && x", "ev=- FUNC(ns::f(int) const &&,src=-,off=0,line=0,ret=0) "
	  "#20[-|x|var(0,x)@20|-]" },
	{ "ns::f(int) constant", "ev=- FUNC(ns::f(int),src=-,off=0,line=0,ret=0) "
	  "#11[-|constant|var(0,constant)@11|-]" },
	{ "operator== a", "ev=- FUNC(operator==,src=-,off=0,line=0,ret=0) #11[-|a|var(0,a)@11|-]" },
	{ "operator=%return", "ev=- FUNC(operator=,src=-,off=0,line=0,ret=1)" },
	{ "operator=", "ev=- FUNC(operator=,src=-,off=0,line=0,ret=0)" },
	{ "operator=malloc", "ev=operator FUNC(malloc,src=-,off=0,line=0,ret=0)" },
	{ "op=ns::operator<<(std::ostream&, int)",
	  "ev=op FUNC(ns::operator<<(std::ostream&, int),src=-,off=0,line=0,ret=0)" },
	{ "main::{lambda(int)#1}::operator()",
	  "ev=- FUNC(main::{lambda(int)#1}::operator(),src=-,off=0,line=0,ret=0)" },
	{ "<app::Account as core::fmt::Display>::fmt",
	  "ev=- FUNC(<app::Account as core::fmt::Display>::fmt,src=-,off=0,line=0,ret=0)" },
	{ "<Box<dyn Fn(i32) -> i32> as X>::call",
	  "ev=- FUNC(<Box<dyn Fn(i32) -> i32> as X>::call,src=-,off=0,line=0,ret=0)" },
	{ "app::*", "ev=- FUNC(app::*,src=-,off=0,line=0,ret=0)" },
	{ "main.handle", "ev=- FUNC(main.handle,src=-,off=0,line=0,ret=0)" },
	{ "main.(*Server).Serve%return", "ev=- FUNC(main.(*Server).Serve,src=-,off=0,line=0,ret=1)" },
	{ "main.*", "ev=- FUNC(main.*,src=-,off=0,line=0,ret=0)" },
	{ "main.go:12", "ev=- SRC(main.go:12)" },
	{ "lex.yy.c:10", "ev=- SRC(lex.yy.c:10)" },
	{ "call_operator=foo", "ev=call_operator FUNC(foo,src=-,off=0,line=0,ret=0)" },
	{ "g:operator=foo", "ev=operator FUNC(foo,src=-,off=0,line=0,ret=0)" },
	{ "uprobe:ev=foo", "ev=ev FUNC(foo,src=-,off=0,line=0,ret=0)" },	/* a group */
	{ "operator_init", "ev=- FUNC(operator_init,src=-,off=0,line=0,ret=0)" },
	{ "ns::V::operator==%return", "ev=- FUNC(ns::V::operator==,src=-,off=0,line=0,ret=1)" },
	{ "ns::V::operator+%return", "ev=- FUNC(ns::V::operator+,src=-,off=0,line=0,ret=1)" },
	{ "ns::V::operator->+4", "ev=- FUNC(ns::V::operator->,src=-,off=4,line=0,ret=0)" },
	{ "lib.rs:3", "ev=- SRC(lib.rs:3)" },
	/* registers, $ variables */
	{ "f %di", "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|%di|reg(di)@2|-]" },
	{ "  f   %rdi\t%r8  %ip  ",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #6[-|%rdi|reg(rdi)@6|-] "
	  "#11[-|%r8|reg(r8)@11|-] #16[-|%ip|reg(ip)@16|-]" },
	{ "f $arg1 $arg64",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|$arg1|argn(1)@2|-] "
	  "#8[-|$arg64|argn(64)@8|-]" },
	{ "f%return $retval",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=1) #9[-|$retval|retval@9|-]" },
	{ "main.cut%return ~r0 ~r12",
	  "ev=- FUNC(main.cut,src=-,off=0,line=0,ret=1) #16[-|~r0|retval@16|-] "
	  "#20[-|~r12|retval@20|-]" },
	{ "f $params $vars",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|$params|params@2|-] "
	  "#10[-|$vars|vars@10|-]" },
	/* dereferences */
	{ "f +8(%si)", "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|+8(%si)|deref(8,reg(si)@5)@2|-]" },
	{ "f -16(%sp)",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|-16(%sp)|deref(-16,reg(sp)@6)@2|-]" },
	{ "f +8(+0(%si))",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) "
	  "#2[-|+8(+0(%si))|deref(8,deref(0,reg(si)@8)@5)@2|-]" },
	{ "f +0x10($arg2)",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|+0x10($arg2)|deref(16,argn(2)@8)@2|-]" },
	{ "f%return +0($retval):string",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=1) #9[-|+0($retval)|deref(0,retval@12)@9|STR8]" },
	/* symbols */
	{ "f @global @counter+8 @tbl-0x4 @x.0",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|@global|sym(global,0)@2|-] "
	  "#10[-|@counter+8|sym(counter,8)@10|-] #21[-|@tbl-0x4|sym(tbl,-4)@21|-] "
	  "#30[-|@x.0|sym(x.0,0)@30|-]" },
	/* DWARF variables */
	{ "f var", "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|var|var(0,var)@2|-]" },
	{ "f v->m v.m v[3] *v **v",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|v->m|var(0,v,AR:m)@2|-] "
	  "#7[-|v.m|var(0,v,DOT:m)@7|-] #11[-|v[3]|var(0,v,IX:3)@11|-] "
	  "#16[-|*v|var(1,v)@16|-] #19[-|**v|var(2,v)@19|-]" },
	{ "f a->b.c[3]->d",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) "
	  "#2[-|a->b.c[3]->d|var(0,a,AR:b,DOT:c,IX:3,AR:d)@2|-]" },
	{ "f *req->hdr[0x10].len a[-1] _x9",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) "
	  "#2[-|*req->hdr[0x10].len|var(1,req,AR:hdr,IX:16,DOT:len)@2|-] "
	  "#22[-|a[-1]|var(0,a,IX:-1)@22|-] #28[-|_x9|var(0,_x9)@28|-]" },
	/* immediates */
	{ "f 42 -5 0xff +7 0",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|42|imm(42)@2|-] #5[-|-5|imm(-5)@5|-] "
	  "#8[-|0xff|imm(255)@8|-] #13[-|+7|imm(7)@13|-] #16[-|0|imm(0)@16|-]" },
	/* names and types */
	{ "f x=%di:u32 q=+0(%si):string",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[x|%di|reg(di)@4|U4] "
	  "#12[q|+0(%si)|deref(0,reg(si)@17)@14|STR8]" },
	{ "f %ax:s8 %ax:s16 %ax:s32 %ax:s64",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|%ax|reg(ax)@2|S1] "
	  "#9[-|%ax|reg(ax)@9|S2] #17[-|%ax|reg(ax)@17|S4] #25[-|%ax|reg(ax)@25|S8]" },
	{ "f %ax:u8 %ax:u16 %ax:u32 %ax:u64",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|%ax|reg(ax)@2|U1] "
	  "#9[-|%ax|reg(ax)@9|U2] #17[-|%ax|reg(ax)@17|U4] #25[-|%ax|reg(ax)@25|U8]" },
	{ "f %ax:x8 %ax:x16 %ax:x32 %ax:x64",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|%ax|reg(ax)@2|X1] "
	  "#9[-|%ax|reg(ax)@9|X2] #17[-|%ax|reg(ax)@17|X4] #25[-|%ax|reg(ax)@25|X8]" },
	{ "f %ax:string %ax:ustring %ax:symbol %ax:b4@3/32 %ax:b1@63/64",
	  "ev=- FUNC(f,src=-,off=0,line=0,ret=0) #2[-|%ax|reg(ax)@2|STR8] "
	  "#13[-|%ax|reg(ax)@13|USTR8] #25[-|%ax|reg(ax)@25|SYM8] "
	  "#36[-|%ax|reg(ax)@36|BF(4,3,4)] #48[-|%ax|reg(ax)@48|BF(1,63,8)]" },
	{ "query=exec_query sql=query_string:string len=$arg2:u32",
	  "ev=query FUNC(exec_query,src=-,off=0,line=0,ret=0) "
	  "#17[sql|query_string|var(0,query_string)@21|STR8] "
	  "#41[len|$arg2|argn(2)@45|U4]" },
	{ "foo.c:12 cnt @g:s64", "ev=- SRC(foo.c:12) #9[-|cnt|var(0,cnt)@9|-] "
	  "#13[-|@g|sym(g,0)@13|S8]" },
	{ "0x1000 %di", "ev=- ADDR(0x1000) #7[-|%di|reg(di)@7|-]" },
};

Test(spec, accepts_every_form)
{
	struct dump d = { .with_pos = true };

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct ptap_err err = { .pos = -1 };
		struct probe_spec *spec = NULL;
		int ret = probe_spec__parse(good[i].in, &spec, &err);

		cr_assert(eq(int, ret, 0),
			  "'%s': %d %s (at %d)", good[i].in, ret, err.msg, err.pos);
		cr_assert_not_null(spec);
		cr_expect(eq(str, (char *)dump_spec(&d, spec), (char *)good[i].dump),
			  "'%s'", good[i].in);
		cr_expect_str_eq(spec->text, good[i].in);
		cr_assert(eq(int, err.pos, -1), "success must not touch ERR");
		probe_spec__free(spec);
	}
}

/* ---- rejected specs ------------------------------------------------------ */

static const struct {
	const char *in;
	const char *msg;	/* a substring of err.msg */
	int pos;		/* err.pos */
} bad[] = {
	{ "", "empty probe", 0 },
	{ "   ", "empty probe", 3 },
	{ "ev=", "empty probe", 3 },
	{ "ev= %di", "empty probe", 3 },
	{ "main+4:12", "FUNC+OFF cannot be combined with :LINE", 6 },
	{ "main:12+4", "FUNC+OFF cannot be combined with :LINE", 7 },
	{ "main%return+4", "%return cannot be combined with +OFF", 11 },
	{ "main+4%return", "%return cannot be combined with +OFF", 6 },
	{ "main+0%return", "%return cannot be combined with +OFF", 6 },
	{ "main:3%return", "%return cannot be combined with :LINE", 6 },
	{ "main%return:3", "%return cannot be combined with :LINE", 11 },
	{ "foo.c", "requires a line", 0 },
	{ "x=dir/foo.c", "requires a line", 2 },
	{ "foo.c:", "requires a line", 0 },
	{ "foo.c+4", "requires a line", 5 },
	{ "foo.c:x", "line number expected", 6 },
	{ "foo.c:12x", "trailing garbage", 8 },
	{ "foo.c:0", "line numbers start at 1", 6 },
	{ "foo.c:99999999999", "line number out of range", 6 },
	{ "main:0", "line numbers start at 1", 5 },
	{ "main:", "line number expected", 5 },
	{ "main%foo", "unknown suffix", 4 },
	{ "main%returnx", "unknown suffix", 4 },
	{ "main+4x", "trailing garbage", 6 },
	{ "main++4", "offset expected", 5 },
	{ "main+99999999999999999999", "offset out of range", 5 },
	{ "main@", "source file name expected", 4 },
	{ "main+4+8", "+OFF given twice", 6 },
	{ "main:1:2", ":LINE given twice", 6 },
	{ "main@a.c@b.c", "@SRC given twice", 8 },
	{ "main%return%return", "%return given twice", 11 },
	{ "1main", "bad function name", 0 },
	{ "ns::f(int", "bad function name", 0 },
	{ "operator", "bad function name", 0 },
	{ "ns::operator %di", "bad function name", 0 },
	{ "ns::f<int)", "bad function name", 0 },
	{ "main.go", "requires a line", 0 },
	{ "ma-in", "bad function name", 0 },
	{ "ev=[ab", "bad function name", 3 },
	{ "+4", "function name expected", 0 },
	{ "%return", "function name expected", 0 },
	{ "0x", "bad address", 0 },
	{ "0x12g", "trailing garbage", 4 },
	{ "0x12%return", "%return needs a function entry (FUNC%return), not an address", 4 },
	{ "a.c:3%return", "%return needs a function entry (FUNC%return), not a line", 5 },
	{ "0x10000000000000000", "address out of range", 0 },
	{ "1ev=main", "bad event name", 0 },
	{ "e-v=main", "bad event name", 0 },
	{ "g:=main", "bad event name", 2 },
	{ "uprobe:./bin:main", "a bpftrace probe: ptap takes perf probe's syntax", 0 },
	{ "uretprobe:/bin/bash:readline", "a bpftrace probe: ptap takes perf probe's syntax", 0 },
	{ "g-x:ev=main", "bad group name", 0 },
	{ "main %di:s7", "bad type 's7' (the types: s8 s16 s32 s64, u8..u64, x8..x64, string, ustring, symbol, bBITS@OFF/SIZE)", 9 },
	{ "main %di:", "bad type ''", 9 },
	{ "main %di:str", "bad type", 9 },
	{ "main %di:u", "bad type", 9 },
	{ "main %di:x128", "bad type", 9 },
	{ "main %di:b0@0/32", "bad type", 9 },
	{ "main %di:b4@30/32", "bad type", 9 },
	{ "main %di:b4@0/24", "bad type", 9 },
	{ "main %di:b4@0", "bad type", 9 },
	{ "main %di:u8:u8", "bad type", 9 },
	{ "main $arg0", "$argN: N must be between 1 and 64", 5 },
	{ "main $arg65", "$argN: N must be between 1 and 64", 5 },
	{ "main $arg", "unknown variable '$arg'", 5 },
	{ "main $arg1x", "unknown variable", 5 },
	{ "main $arg0x1", "unknown variable", 5 },
	{ "main $foo", "unknown variable '$foo'", 5 },
	{ "main $", "unknown variable", 5 },
	{ "main $retval", "$retval is only available in a FUNC%return probe", 5 },
	{ "main.cut ~r0", "~r0, a Go result, is only available in a FUNC%return probe", 9 },
	{ "main.cut%return ~x", "unknown variable '~x' (a Go result is ~r0, ~r1, ...)", 16 },
	{ "main.cut%return ~r", "unknown variable '~r'", 16 },
	{ "main %di +0($retval)", "$retval is only available in a FUNC%return probe", 12 },
	{ "foo.c:3 $retval", "$retval is only available", 8 },
	{ "main +8(%si", "unbalanced parentheses", 7 },
	{ "main +8(+0(%si)", "unbalanced parentheses", 7 },
	{ "main %si)", "unbalanced parentheses", 8 },
	{ "main )", "unbalanced parentheses", 5 },
	{ "main +8(%si))", "unbalanced parentheses", 12 },
	{ "main +8(%si)x", "trailing garbage", 12 },
	{ "main +8(%si%di)", "trailing garbage", 11 },
	{ "main extra!", "trailing garbage '!'", 10 },
	{ "main 12abc", "trailing garbage", 7 },
	{ "main a-1", "trailing garbage", 6 },
	{ "main x=%di x=%si", "duplicate argument name 'x'", 11 },
	{ "main arg2=%di %si", "duplicate argument name 'arg2'", 14 },
	{ "main %si arg1=%di", "duplicate argument name 'arg1'", 9 },
	{ "main 1x=%di", "bad argument name", 5 },
	{ "main =%di", "bad argument name", 5 },
	{ "main x=", "empty argument", 7 },
	{ "main :u8", "empty argument", 5 },
	{ "main %", "register name expected", 5 },
	{ "main %:u8", "register name expected", 5 },
	{ "main a->", "member name expected", 8 },
	{ "main a.3", "member name expected", 7 },
	{ "main a[3", "missing ']'", 6 },
	{ "main a[x]", "array index expected", 7 },
	{ "main *", "variable name expected", 6 },
	{ "main @", "symbol name expected", 5 },
	{ "main @1x", "symbol name expected", 5 },
	{ "main @s+", "offset expected", 8 },
	{ "main +8()", "expression expected", 8 },
	{ "main +8(", "expression expected", 8 },
	{ "main +(%di)", "offset expected", 6 },
	{ "main &x", "unexpected character '&'", 5 },
	{ "main 99999999999999999999", "number out of range", 5 },
	{ "main +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))))",
	  "too deeply nested", 53 },
};

Test(spec, rejects_with_message_and_column)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct probe_spec *spec = (struct probe_spec *)&bad;	/* must be reset */
		struct ptap_err err = { .pos = -2 };
		int ret = probe_spec__parse(bad[i].in, &spec, &err);

		cr_expect(eq(int, ret, -EINVAL), "'%s': %d", bad[i].in, ret);
		cr_expect_null(spec, "'%s'", bad[i].in);
		cr_expect_not_null(strstr(err.msg, bad[i].msg), "'%s': got '%s', want '%s'",
				   bad[i].in, err.msg, bad[i].msg);
		cr_expect(eq(int, err.pos, bad[i].pos), "'%s' (%s): column %d, want %d", bad[i].in,
			  err.msg, err.pos, bad[i].pos);
	}
}

Test(spec, null_err_is_fine)
{
	struct probe_spec *spec = NULL;

	cr_assert(eq(int, probe_spec__parse("main+1:2", &spec, NULL), -EINVAL));
	cr_assert_null(spec);
	probe_spec__free(NULL);
}

/* ---- synthesis and round trips ------------------------------------------- */

static const struct {
	const char *in;
	const char *canon;
} canonical[] = {
	{ "main", "main" },
	{ "grp:ev=main@a.c%return $retval:s32", "ev=main@a.c%return $retval:s32" },
	{ "main%return@a.c", "main@a.c%return" },
	{ "main:3@a.c", "main@a.c:3" },
	{ "main+0x10", "main+16" },
	{ "0X1F", "0x1f" },
	{ "dir/foo.c:12", "dir/foo.c:12" },
	{ "  f   %di  ", "f %di" },
	{ "f +0x10(%di):x8", "f +16(%di):x8" },
	{ "f -0x8(%sp)", "f -8(%sp)" },
	{ "f +8(+0(%si)):string", "f +8(+0(%si)):string" },
	{ "f @sym-0x4 @t+0 @u+1", "f @sym-4 @t @u+1" },
	{ "f 0xff +7 -5", "f 255 7 -5" },
	{ "f a[0x10] **p->q.r", "f a[16] **p->q.r" },
	{ "f x=%di:b4@3/32 y=%si:ustring", "f x=%di:b4@3/32 y=%si:ustring" },
	{ "f $arg3:u64 $params $vars", "f $arg3:u64 $params $vars" },
	{ "f -9223372036854775808 0xffffffffffffffff", "f -9223372036854775808 -1" },
};

Test(spec, synthesizes_canonical_form)
{
	for (size_t i = 0; i < ARRAY_SIZE(canonical); i++) {
		struct probe_spec *spec = NULL;
		char buf[256];
		int n;

		cr_assert(eq(int, probe_spec__parse(canonical[i].in, &spec, NULL), 0), "%s",
			  canonical[i].in);
		n = probe_spec__synthesize(spec, buf, sizeof(buf));
		cr_expect_str_eq(buf, canonical[i].canon);
		cr_expect(eq(int, n, (int)strlen(canonical[i].canon)));
		probe_spec__free(spec);
	}
}

/* parse(synthesize(parse(x))) has the same fields as parse(x), and the
 * canonical text is a fixed point. */
static void check_round_trip(const char *in)
{
	struct dump d1 = { .with_pos = false }, d2 = { .with_pos = false };
	struct probe_spec *s1 = NULL, *s2 = NULL;
	char b1[512], b2[512];

	cr_assert(eq(int, probe_spec__parse(in, &s1, NULL), 0), "%s", in);
	cr_assert(lt(int, probe_spec__synthesize(s1, b1, sizeof(b1)), (int)sizeof(b1)));
	cr_assert(eq(int, probe_spec__parse(b1, &s2, NULL), 0), "'%s' -> '%s'", in, b1);
	cr_expect(eq(str, (char *)dump_spec(&d2, s2), (char *)dump_spec(&d1, s1)),
		  "'%s' -> '%s'", in, b1);
	probe_spec__synthesize(s2, b2, sizeof(b2));
	cr_expect_str_eq(b2, b1);
	probe_spec__free(s1);
	probe_spec__free(s2);
}

Test(spec, round_trips)
{
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		check_round_trip(good[i].in);
	for (size_t i = 0; i < ARRAY_SIZE(canonical); i++)
		check_round_trip(canonical[i].in);
}

Test(spec, synthesize_reports_needed_length)
{
	struct probe_spec *spec = NULL;
	char buf[8];

	cr_assert(eq(int, probe_spec__parse("exec_query %di:string", &spec, NULL), 0));
	memset(buf, 'Z', sizeof(buf));
	cr_expect(eq(int, probe_spec__synthesize(spec, buf, sizeof(buf)), 21));
	cr_expect_str_eq(buf, "exec_qu");
	cr_expect(eq(int, probe_spec__synthesize(spec, NULL, 0), 21));
	probe_spec__free(spec);
}

Test(spec, arg_names)
{
	struct probe_spec *spec = NULL;
	char buf[16];

	cr_assert(eq(int, probe_spec__parse("f %di n=%si %dx", &spec, NULL), 0));
	cr_expect_str_eq(probe_arg__name(&spec->args[0], 0, buf, sizeof(buf)), "arg1");
	cr_expect_str_eq(probe_arg__name(&spec->args[1], 1, buf, sizeof(buf)), "n");
	cr_expect(eq(ptr, (void *)probe_arg__name(&spec->args[1], 1, buf, sizeof(buf)),
		     spec->args[1].name));
	cr_expect_str_eq(probe_arg__name(&spec->args[2], 2, buf, sizeof(buf)), "arg3");
	probe_spec__free(spec);
}

/* VAR@FILE: the file runs to "->" or "[", and survives synthesis. */
Test(spec, var_at_file)
{
	struct probe_spec *spec = NULL;
	struct ptap_err err = { .pos = -1 };
	char buf[128];

	cr_assert(eq(int, probe_spec__parse("f counter@structs2.c g@dir/a-b.c->next[2] h", &spec,
					    &err), 0), "%s", err.msg);
	cr_assert(eq(int, spec->nargs, 3));
	cr_expect_str_eq(spec->args[0].expr->name, "counter");
	cr_expect_str_eq(spec->args[0].expr->file, "structs2.c");
	cr_expect(eq(int, spec->args[0].expr->nchain, 0));
	cr_expect_str_eq(spec->args[1].expr->file, "dir/a-b.c");
	cr_assert(eq(int, spec->args[1].expr->nchain, 2));
	cr_expect_str_eq(spec->args[1].expr->chain[0].member, "next");
	cr_expect(eq(long, spec->args[1].expr->chain[1].index, 2));
	cr_expect_null(spec->args[2].expr->file);
	probe_spec__synthesize(spec, buf, sizeof(buf));
	cr_expect_str_eq(buf, "f counter@structs2.c g@dir/a-b.c->next[2] h");
	probe_spec__free(spec);
	cr_expect(ne(int, probe_spec__parse("f counter@", &spec, &err), 0));
	cr_expect_not_null(strstr(err.msg, "source file name expected"), "%s", err.msg);
}
