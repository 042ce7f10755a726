/* arch/x86_64/insn.c: decides how a probe on an x86-64 instruction is stepped
 * over while its int3 stays planted (out of line, or emulated), builds the
 * out-of-line copies and emulates branches; jump sites; a function's exits
 * (its returns and tail calls).  The only user of capstone. */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "arch/arch.h"
#include "probes/array.h"
#include "probes/err.h"

const uint8_t arch_bp_insn[ARCH_BP_LEN] = { 0xcc };

/* int3 traps after itself: rip is one past the breakpoint byte. */
uint64_t arch_bp_addr(uint64_t pc_after_trap)
{
	return pc_after_trap - ARCH_BP_LEN;
}

/* do_int3_user() raises SIGTRAP with no siginfo of its own: si_code SI_KERNEL. */
bool arch_is_bp_trap(int si_code)
{
	return si_code == SI_KERNEL;
}

/* ---- little-endian fields ------------------------------------------------ */

static int32_t get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* ---- capstone ----------------------------------------------------------- */

/*
 * The handle is opened on first use and kept for the life of the process
 * (ptap decodes on one thread; capstone handles are not shared across
 * threads here).
 */
static csh x86_64_cs;
static int x86_64_cs_state;	/* 0: not tried, 1: open, -errno: cs_open failed */

static int x86_64_cs_get(csh *h)
{
	if (x86_64_cs_state == 0) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &x86_64_cs) != CS_ERR_OK) {
			x86_64_cs_state = -ENOMEM;
		} else if (cs_option(x86_64_cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
			cs_close(&x86_64_cs);
			x86_64_cs_state = -ENOMEM;
		} else {
			x86_64_cs_state = 1;
		}
	}
	*h = x86_64_cs;
	return x86_64_cs_state < 0 ? x86_64_cs_state : 0;
}

/* ---- classification ---------------------------------------------------- */

/* Say why in WHY (NULL: nowhere), a message with no position; returns CODE. */
#define set_why(why, code, ...)	ptap_err_set((why), -1, (code), __VA_ARGS__)

/* Legacy prefixes and REX in front of the opcode (Intel SDM vol. 2, 2.1). */
struct x86_64_pfx {
	unsigned int n;		/* bytes before the opcode */
	bool lock;		/* f0 */
	bool opsize;		/* 66 */
	bool adsize;		/* 67 */
};

static void x86_64_scan_prefixes(const uint8_t *b, unsigned int len, struct x86_64_pfx *pfx)
{
	unsigned int i;

	memset(pfx, 0, sizeof(*pfx));
	for (i = 0; i < len; i++) {
		switch (b[i]) {
		case 0xf0:
			pfx->lock = true;
			continue;
		case 0x66:
			pfx->opsize = true;
			continue;
		case 0x67:
			pfx->adsize = true;
			continue;
		case 0xf2: case 0xf3:				/* rep/repne, bnd */
		case 0x26: case 0x2e: case 0x36: case 0x3e:	/* segments, branch hints */
		case 0x64: case 0x65:
			continue;
		}
		if ((b[i] & 0xf0) == 0x40)			/* REX */
			continue;
		break;
	}
	pfx->n = i;
}

/*
 * Refusals by opcode: instructions that must not run at another address
 * (they trap, talk to the kernel or hardware, or push a return address that
 * would be the slot's) and that ptap does not emulate.  NULL: no objection.
 */
static const char *x86_64_refusal(const uint8_t *op, unsigned int left)
{
	uint8_t modrm_reg = left > 1 ? (op[1] >> 3) & 7 : 0;

	switch (op[0]) {
	case 0xcc: return "int3 is the program's own breakpoint";
	case 0xcd: return "int n traps to the kernel";
	case 0xce: return "into traps to the kernel";
	case 0xf1: return "int1 (icebp) traps to the kernel";
	case 0xf4: return "hlt is privileged";
	case 0xfa: case 0xfb: return "cli/sti are privileged";
	case 0xcf: return "iret cannot run out of line";
	case 0xca: case 0xcb: return "far return";
	case 0x9a: case 0xea: return "far call/jmp";
	case 0xe4: case 0xe5: case 0xe6: case 0xe7:
	case 0xec: case 0xed: case 0xee: case 0xef:
		return "in/out port I/O";
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:
		return "ins/outs port I/O";
	case 0xe0: case 0xe1: case 0xe2: return "loop is not emulated";
	case 0xe3: return "jrcxz is not emulated";
	case 0xc7:
		if (left > 1 && op[1] == 0xf8)
			return "xbegin has a relative abort target";
		return NULL;
	case 0xff:
		if (modrm_reg == 2)
			return "indirect call at a probe site (would push the slot's address)";
		if (modrm_reg == 3 || modrm_reg == 5)
			return "far call/jmp";
		return NULL;
	case 0x0f:
		if (left < 2)
			return NULL;
		switch (op[1]) {
		case 0x05: return "syscall cannot run out of line";
		case 0x07: return "sysret is privileged";
		case 0x34: return "sysenter cannot run out of line";
		case 0x35: return "sysexit is privileged";
		case 0x0b: case 0xb9: case 0xff: return "ud2/ud1/ud0 raise an invalid-opcode fault";
		case 0x01: return "0f 01 group (system instructions)";
		}
		return NULL;
	}
	return NULL;
}

/*
 * Relative branches ptap emulates, recognised by opcode alone (so that a
 * 66-prefixed form, which capstone decodes with a rel16, is still seen as a
 * branch and refused): fills STEP, TARGET, COND, POP_EXTRA.  The relative
 * offset is the last 1 or 4 bytes of the instruction.
 */
static bool x86_64_branch(const uint8_t *op, unsigned int left, struct arch_insn *insn)
{
	const uint8_t *end = insn->bytes + insn->len;
	uint64_t next = insn->pc + insn->len;
	int64_t rel8 = (int8_t)end[-1];
	int64_t rel32 = insn->len >= 4 ? get_s32(end - 4) : 0;

	if (op[0] >= 0x70 && op[0] <= 0x7f) {				/* jcc rel8 */
		insn->step = ARCH_STEP_JCC;
		insn->cond = op[0] & 0xf;
		insn->target = next + rel8;
	} else if (op[0] == 0x0f && left > 1 && op[1] >= 0x80 && op[1] <= 0x8f) {
		insn->step = ARCH_STEP_JCC;				/* jcc rel32 */
		insn->cond = op[1] & 0xf;
		insn->target = next + rel32;
	} else if (op[0] == 0xeb) {					/* jmp rel8 */
		insn->step = ARCH_STEP_JMP;
		insn->target = next + rel8;
	} else if (op[0] == 0xe9) {					/* jmp rel32 */
		insn->step = ARCH_STEP_JMP;
		insn->target = next + rel32;
	} else if (op[0] == 0xe8) {					/* call rel32 */
		insn->step = ARCH_STEP_CALL;
		insn->target = next + rel32;
	} else if (op[0] == 0xc3) {					/* ret */
		insn->step = ARCH_STEP_RET;
	} else if (op[0] == 0xc2) {					/* ret imm16 */
		insn->step = ARCH_STEP_RET;
		insn->pop_extra = (uint16_t)(end[-2] | end[-1] << 8);
	} else {
		return false;
	}
	return true;
}

/*
 * A rip-relative memory operand (ModRM mod=00 rm=101: disp32 from the end of
 * the instruction).  Capstone says whether there is one; its encoding info
 * says where the ModRM byte is, and the disp32 follows it directly (no SIB
 * in this form).  Capstone 4.0.2's disp_size is wrong with a 66 prefix
 * ("movw $imm, x(%rip)" reports 2), so only the offsets are used, and the
 * bytes are checked against the decoded displacement.
 */
static int x86_64_riprel(const cs_insn *ci, struct arch_insn *insn, struct ptap_err *why)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned int mo = x->encoding.modrm_offset;
	bool cs_rip = false, modrm_rip;

	for (unsigned int i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (x->operands[i].mem.base == X86_REG_EIP)
			return set_why(why, -ENOTSUP, "eip-relative operand (addr32)");
		if (x->operands[i].mem.base == X86_REG_RIP)
			cs_rip = true;
	}
	modrm_rip = mo > 0 && mo + 4 < insn->len && (insn->bytes[mo] & 0xc7) == 0x05;
	if (!cs_rip && !modrm_rip)
		return 0;
	if (!cs_rip || !modrm_rip || x->encoding.disp_offset != mo + 1 ||
	    get_s32(insn->bytes + mo + 1) != x->disp)
		return set_why(why, -ENOTSUP, "cannot locate the rip-relative displacement");
	insn->riprel = true;
	insn->disp_off = (uint8_t)(mo + 1);
	return 0;
}

static int x86_64_classify(const cs_insn *ci, struct arch_insn *insn, struct ptap_err *why)
{
	struct x86_64_pfx pfx;
	const uint8_t *op;
	unsigned int left;
	const char *no;

	x86_64_scan_prefixes(insn->bytes, insn->len, &pfx);
	if (pfx.n >= insn->len)
		return set_why(why, -EINVAL, "prefixes without an opcode");
	op = insn->bytes + pfx.n;
	left = insn->len - pfx.n;

	if (pfx.lock)
		return set_why(why, -ENOTSUP, "lock prefix");
	no = x86_64_refusal(op, left);
	if (no)
		return set_why(why, -ENOTSUP, "%s", no);
	if (x86_64_branch(op, left, insn)) {
		/* 66 makes rip wrap at 16 bits on AMD; 67 is not worth guessing. */
		no = pfx.opsize ? "operand-size prefix on a branch" :
		     pfx.adsize ? "address-size prefix on a branch" : NULL;
		if (!no)
			return 0;
		insn->step = ARCH_STEP_OOL;	/* not a usable branch after all */
		insn->target = 0;
		insn->cond = 0;
		insn->pop_extra = 0;
		return set_why(why, -ENOTSUP, "%s", no);
	}
	insn->step = ARCH_STEP_OOL;
	return x86_64_riprel(ci, insn, why);
}

int arch_insn_analyze(const uint8_t *code, size_t len, uint64_t pc, struct arch_insn *insn,
		      struct ptap_err *why)
{
	cs_insn *ci;
	csh h;
	int err;

	memset(insn, 0, sizeof(*insn));
	insn->pc = pc;
	set_why(why, 0, "%s", "");
	if (!code || !len)
		return set_why(why, -EINVAL, "no code");
	err = x86_64_cs_get(&h);
	if (err)
		return set_why(why, err, "capstone: cannot open an x86-64 handle");
	if (len > ARCH_MAX_INSN)
		len = ARCH_MAX_INSN;
	if (cs_disasm(h, code, len, pc, 1, &ci) != 1)
		return set_why(why, -EINVAL, "cannot decode %02x", code[0]);

	insn->len = (uint8_t)ci->size;
	memcpy(insn->bytes, code, ci->size);
	if (snprintf(insn->text, sizeof(insn->text), "%s%s%s", ci->mnemonic,
		     ci->op_str[0] ? " " : "", ci->op_str) >= (int)sizeof(insn->text))
		memcpy(insn->text + sizeof(insn->text) - 4, "...", 4);	/* say it was cut */
	err = x86_64_classify(ci, insn, why);
	cs_free(ci, 1);
	return err;
}

/* ---- out of line -------------------------------------------------------- */

#define JMP_REL32_LEN	5

/*
 * The slot holds the instruction and "jmp rel32" back to pc + len; any room
 * left in BUF (up to ARCH_SLOT_SIZE) is filled with int3 so a stray jump
 * traps instead of running garbage.  -EINVAL for an emulated instruction,
 * -ENOSPC when LEN is too small.
 */
int arch_ool_build(const struct arch_insn *insn, uint64_t slot, uint8_t *buf, size_t len)
{
	size_t used = (size_t)insn->len + JMP_REL32_LEN;
	int64_t rel;

	if (insn->step != ARCH_STEP_OOL || !insn->len || insn->len > ARCH_MAX_INSN)
		return -EINVAL;
	if (len < used)
		return -ENOSPC;

	memset(buf, 0xcc, len < ARCH_SLOT_SIZE ? len : ARCH_SLOT_SIZE);
	memcpy(buf, insn->bytes, insn->len);
	if (insn->riprel) {
		/*
		 * Both displacements count from the end of the instruction:
		 * pc + len + old == slot + len + new.
		 */
		int64_t disp = (int64_t)get_s32(insn->bytes + insn->disp_off) +
			       (int64_t)(insn->pc - slot);

		if (!fits_s32(disp))
			return -ERANGE;
		put_u32(buf + insn->disp_off, (uint32_t)disp);
	}
	rel = (int64_t)((insn->pc + insn->len) - (slot + used));
	if (!fits_s32(rel))
		return -ERANGE;
	buf[insn->len] = 0xe9;
	put_u32(buf + insn->len + 1, (uint32_t)rel);
	return (int)used;
}

/* ---- jump sites ---------------------------------------------------------- */

/*
 * The branches of the function at FN_PC ([FN, FN+FNLEN)), decoded whole
 * from its start, once, for the checks of any number of jumps in it
 * (arch_branches_check()): the targets of its direct branches and calls,
 * its instructions' starts, its first indirect jump, where it stops
 * decoding.
 */
static size_t vex_len(const uint8_t *code, size_t len);

static int by_to(const void *a, const void *b)
{
	const struct arch_branch *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

int arch_branches_of(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, struct arch_branches *out)
{
	const uint8_t *code = fn;
	uint64_t at = fn_pc;
	size_t left = fnlen, cap = 0;
	cs_insn *ci;
	csh h;
	int r = x86_64_cs_get(&h);

	memset(out, 0, sizeof(*out));
	out->lo = fn_pc;
	out->hi = fn_pc + fnlen;
	if (r)
		return r;
	out->starts = calloc(fnlen / 8 + 1, 1);
	ci = cs_malloc(h);
	if (!out->starts || !ci) {
		cs_free(ci, 1);
		arch_branches_free(out);
		return -ENOMEM;
	}
	while (left > 0) {
		uint64_t here = at;
		const cs_x86 *x;
		bool jump;

		out->starts[(here - fn_pc) / 8] |= (uint8_t)(1u << (here - fn_pc) % 8);
		if (!cs_disasm_iter(h, &code, &left, &at, ci)) {
			/* AVX-512 and the like, which capstone 4 does not decode: never a branch */
			size_t skip = vex_len(code, left);

			if (!skip) {
				out->bad = here;
				break;
			}
			code += skip;
			left -= skip;
			at += skip;
			continue;
		}
		x = &ci->detail->x86;
		jump = cs_insn_group(h, ci, CS_GRP_JUMP);
		if (!jump && !cs_insn_group(h, ci, CS_GRP_CALL) &&
		    !cs_insn_group(h, ci, CS_GRP_BRANCH_RELATIVE))
			continue;
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			if (out->n == cap &&
			    array_grow((void **)&out->b, &cap, sizeof(*out->b), out->n + 1) < 0) {
				cs_free(ci, 1);
				arch_branches_free(out);
				return -ENOMEM;
			}
			out->b[out->n++] = (struct arch_branch){ here, (uint64_t)x->operands[0].imm };
		} else if (jump && !out->indirect) {
			out->indirect = here;
			if (snprintf(out->indirect_text, sizeof(out->indirect_text), "%s %s",
				     ci->mnemonic, ci->op_str) >= (int)sizeof(out->indirect_text))
				memcpy(out->indirect_text + sizeof(out->indirect_text) - 4, "...", 4);
		}
	}
	cs_free(ci, 1);
	if (out->n > 1)
		qsort(out->b, out->n, sizeof(*out->b), by_to);
	return 0;
}

void arch_branches_free(struct arch_branches *b)
{
	free(b->b);
	free(b->starts);
	memset(b, 0, sizeof(*b));
}

/* The text of the instruction at PC in B's function (FN its code), for a message. */
static void insn_text_at(const uint8_t *fn, const struct arch_branches *b, uint64_t pc,
			 char *text, size_t len)
{
	struct arch_insn insn;

	if (arch_insn_analyze(fn + (pc - b->lo), b->hi - pc, pc, &insn, NULL) == 0)
		snprintf(text, len, "%s", insn.text);
	else
		snprintf(text, len, "the branch");
}

int arch_branches_check(const uint8_t *fn, const struct arch_branches *b, uint64_t pc,
			unsigned int len, bool holds_pc, struct ptap_err *why)
{
	size_t lo = 0, hi = b->n;
	char text[sizeof(((struct arch_insn *)0)->text)];

	if (b->bad)
		return set_why(why, -ENOTSUP, "the function does not decode at 0x%lx",
			       (unsigned long)b->bad);
	/* the first branch whose target is past PC */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->b[mid].to <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->n && b->b[lo].to < pc + len) {
		insn_text_at(fn, b, b->b[lo].from, text, sizeof(text));
		return set_why(why, -ENOTSUP, "'%s' at 0x%lx jumps into the bytes a jump would "
			       "replace", text, (unsigned long)b->b[lo].from);
	}
	if (b->indirect)
		return set_why(why, -ENOTSUP, "an indirect jump at 0x%lx ('%s')",
			       (unsigned long)b->indirect, b->indirect_text);
	if (holds_pc && (pc < b->lo || pc >= b->hi ||
			 !(b->starts[(pc - b->lo) / 8] >> (pc - b->lo) % 8 & 1)))
		return set_why(why, -ENOTSUP, "0x%lx is not an instruction boundary of the "
			       "function", (unsigned long)pc);
	return 0;
}

/*
 * Does the function at FN_PC ([FN, FN+FNLEN)) let a jump replace
 * (PC, PC + LEN)?  Decoded whole, from its start: every instruction must
 * decode, PC must be an instruction boundary (HOLDS_PC), no jump may be
 * indirect, and no direct branch or call may land in (PC, PC + LEN).
 */
static int x86_64_jump_fn_ok(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t pc,
			     unsigned int len, bool holds_pc, struct ptap_err *why)
{
	struct arch_branches b;
	int r = arch_branches_of(fn, fnlen, fn_pc, &b);

	if (r < 0)
		return set_why(why, r, "capstone: no x86-64 handle, or out of memory");
	r = arch_branches_check(fn, &b, pc, len, holds_pc, why);
	arch_branches_free(&b);
	return r;
}

int arch_jump_analyze(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t pc,
		      struct arch_jump *j, struct ptap_err *why)
{
	size_t off = pc - fn_pc;
	unsigned int len = 0;
	int r;

	memset(j, 0, sizeof(*j));
	if (pc < fn_pc || off >= fnlen)
		return set_why(why, -ENOTSUP, "the site is outside its function");
	while (len < JMP_REL32_LEN) {
		struct arch_insn insn;

		r = arch_insn_analyze(fn + off + len, fnlen - off - len, pc + len, &insn, why);
		if (r == 0 && insn.step != ARCH_STEP_OOL)
			r = set_why(why, -ENOTSUP, "'%s' is a branch", insn.text);
		if (r == 0 && len + insn.len > ARCH_JUMP_MAX)
			r = set_why(why, -ENOTSUP, "the instructions are too long");
		if (r < 0)
			return -ENOTSUP;
		len += insn.len;
	}
	r = x86_64_jump_fn_ok(fn, fnlen, fn_pc, pc, len, true, why);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOTSUP;
	j->len = (uint8_t)len;
	memcpy(j->bytes, fn + off, len);
	return 0;
}

int arch_exit_jump_before(const uint8_t *fn, const struct arch_branches *br,
			  const struct arch_exit *ex, struct arch_jump *j, struct ptap_err *why)
{
	uint64_t fn_pc = br->lo, pc = ex->pc, start = 0, s = pc;
	size_t fnlen = br->hi - br->lo;
	struct arch_insn insn;
	int r;

	memset(j, 0, sizeof(*j));
	if (pc < fn_pc || pc - fn_pc >= fnlen ||
	    arch_insn_analyze(fn + (pc - fn_pc), fnlen - (pc - fn_pc), pc, &insn, why) < 0 ||
	    insn.step != ARCH_STEP_RET)
		return set_why(why, -ENOTSUP, "not a ret");
	/* the fewest before it that make the jump, each one relocatable */
	for (int k = 0; k < ARCH_EXIT_BEFORE && ex->before[k] && !start; k++) {
		struct arch_insn b;

		s -= ex->before[k];
		if (s < fn_pc || arch_insn_analyze(fn + (s - fn_pc), pc - s, s, &b, NULL) < 0 ||
		    b.len != ex->before[k] || b.step != ARCH_STEP_OOL)
			return set_why(why, -ENOTSUP, "a branch among the instructions before it");
		if (pc + insn.len - s >= JMP_REL32_LEN)
			start = s;
	}
	if (!start || pc + insn.len - start > ARCH_JUMP_MAX)
		return set_why(why, -ENOTSUP, "too few instructions before it to make a "
			       "jump's 5 bytes");
	r = arch_branches_check(fn, br, start, (unsigned int)(pc + insn.len - start), true, why);
	if (r < 0)
		return -ENOTSUP;
	j->len = (uint8_t)(pc + insn.len - start);
	j->at = (uint8_t)(pc - start);
	memcpy(j->bytes, fn + (start - fn_pc), j->len);
	return 0;
}

int arch_exit_jump(const uint8_t *code, size_t len, uint64_t pc, struct arch_jump *j,
		   struct ptap_err *why)
{
	struct arch_insn insn;
	uint64_t at;

	memset(j, 0, sizeof(*j));
	if (arch_insn_analyze(code, len, pc, &insn, why) < 0 ||
	    (insn.step != ARCH_STEP_RET && insn.step != ARCH_STEP_JMP))
		return set_why(why, -ENOTSUP, "not a ret or a jmp");
	/* what follows, up to the jump's end: padding (nops, int3s) that never runs */
	for (at = pc + insn.len; at < pc + JMP_REL32_LEN;) {
		struct arch_insn pad;
		size_t off = at - pc;

		if (off < len && code[off] == 0xcc) {
			at++;
			continue;
		}
		if (off >= len || arch_insn_analyze(code + off, len - off, at, &pad, NULL) < 0 ||
		    (strncmp(pad.text, "nop", 3) && strcmp(pad.text, "xchg ax, ax")))
			return set_why(why, -ENOTSUP, "no padding after the %s", insn.text);
		at += pad.len;
	}
	j->len = JMP_REL32_LEN > insn.len ? JMP_REL32_LEN : insn.len;
	memcpy(j->bytes, code, j->len);
	return 0;
}

int arch_jump_check_part(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t pc,
			 const struct arch_jump *j, struct ptap_err *why)
{
	int r = x86_64_jump_fn_ok(fn, fnlen, fn_pc, pc, j->len, false, why);

	return r < 0 && r != -ENOMEM ? -ENOTSUP : r;
}

/*
 * The length of the VEX- or EVEX-encoded instruction at CODE[0..LEN) (AVX,
 * AVX-512), or 0 when it is not one.  Capstone 4.0 (Debian 12's) decodes
 * neither AVX-512 nor its mask instructions (kmovd), and glibc's string
 * functions are full of them; none is a branch, so for finding a function's
 * exits their length is all that matters: the prefix (c5: 2 bytes, c4: 3,
 * 62: 4; in 64-bit mode these bytes are always these prefixes), the opcode,
 * ModRM (not for vzeroupper and vzeroall), SIB and displacement as ModRM
 * says, and an 8-bit immediate in opcode map 0F3A and for the few 0F
 * opcodes that take one (Intel SDM vol. 2, 2.3 and 2.7).
 */
static size_t vex_len(const uint8_t *code, size_t len)
{
	size_t n;
	unsigned int map, op, mod, rm;

	if (len < 4)
		return 0;
	switch (code[0]) {
	case 0xc5:
		n = 2;
		map = 1;
		break;
	case 0xc4:
		n = 3;
		map = code[1] & 0x1f;
		break;
	case 0x62:
		n = 4;
		map = code[1] & 0x07;
		if ((code[2] & 0x04) == 0)	/* EVEX's P1 bit 2 is always 1 */
			return 0;
		break;
	default:
		return 0;
	}
	if (map < 1 || map > 3 || len < n + 1)
		return 0;
	op = code[n];
	if (map == 1 && op == 0x77 && code[0] != 0x62)	/* vzeroupper, vzeroall: no ModRM */
		return n + 1;
	if (len < n + 2)
		return 0;
	mod = code[n + 1] >> 6;
	rm = code[n + 1] & 7;
	n += 2;
	if (mod != 3 && rm == 4) {		/* SIB */
		if (len < n + 1)
			return 0;
		if (mod == 0 && (code[n] & 7) == 5)
			n += 4;
		n++;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		n += 4;
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
				      (op >= 0xc4 && op <= 0xc6))))
		n += 1;
	return n <= len ? n : 0;
}

/* ---- function exits ------------------------------------------------------ */

static bool in_parts(const struct arch_range *parts, int nparts, uint64_t pc)
{
	for (int i = 0; i < nparts; i++)
		if (pc >= parts[i].lo && pc < parts[i].hi)
			return true;
	return false;
}

/*
 * Is CI, at HERE, an exit of the function made of PARTS?  1 with E filled,
 * 0 when not, -ENOTSUP with WHY for an indirect jump.
 */
static int x86_64_exit(csh h, const cs_insn *ci, uint64_t here, const struct arch_range *parts,
		       int nparts, struct arch_exit *e, struct ptap_err *why)
{
	const cs_x86 *x = &ci->detail->x86;

	e->pc = here;
	e->len = (uint8_t)ci->size;
	e->to = 0;
	if (cs_insn_group(h, ci, CS_GRP_RET)) {
		e->kind = ARCH_EXIT_RET;
		return 1;
	}
	if (!cs_insn_group(h, ci, CS_GRP_JUMP))
		return 0;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return set_why(why, -ENOTSUP, "an indirect jump at 0x%lx ('%s %s') may leave "
			       "the function: its exits cannot all be known",
			       (unsigned long)here, ci->mnemonic, ci->op_str);
	e->to = (uint64_t)x->operands[0].imm;
	if (in_parts(parts, nparts, e->to))
		return 0;
	/* whether a loop or jrcxz jumps depends on rcx: not told at its exit (never a tail call) */
	if (ci->id == X86_INS_JRCXZ || ci->id == X86_INS_JECXZ || ci->id == X86_INS_LOOP ||
	    ci->id == X86_INS_LOOPE || ci->id == X86_INS_LOOPNE)
		return set_why(why, -ENOTSUP, "'%s %s' at 0x%lx leaves the function", ci->mnemonic,
			       ci->op_str, (unsigned long)here);
	e->kind = ARCH_EXIT_TAIL;
	return 1;
}

int arch_func_exits(const uint8_t *fn, size_t fnlen, uint64_t fn_pc,
		    const struct arch_range *parts, int nparts, struct arch_exit *out, int max,
		    struct ptap_err *why)
{
	const uint8_t *code = fn;
	uint64_t at = fn_pc;
	size_t left = fnlen;
	uint8_t before[ARCH_EXIT_BEFORE] = { 0 };	/* the last instructions' lengths */
	cs_insn *ci;
	int n = 0, r = 0;
	csh h;

	r = x86_64_cs_get(&h);
	if (r)
		return set_why(why, r, "capstone: cannot open an x86-64 handle");
	ci = cs_malloc(h);
	if (!ci)
		return set_why(why, -ENOMEM, "capstone: out of memory");
	while (left > 0 && r >= 0) {
		uint64_t here = at;
		struct arch_exit e;

		if (!cs_disasm_iter(h, &code, &left, &at, ci)) {
			size_t skip = vex_len(code, left);

			if (skip) {
				code += skip;
				left -= skip;
				at += skip;
				memmove(before + 1, before, sizeof(before) - 1);
				before[0] = (uint8_t)skip;
				continue;
			}
			r = set_why(why, -ENOTSUP, "the function does not decode at 0x%lx",
				    (unsigned long)here);
			break;
		}
		r = x86_64_exit(h, ci, here, parts, nparts, &e, why);
		memcpy(e.before, before, sizeof(before));
		memmove(before + 1, before, sizeof(before) - 1);
		before[0] = (uint8_t)ci->size;
		if (r <= 0)
			continue;
		if (n == max) {
			r = set_why(why, -ENOSPC, "more than %d exits", max);
			break;
		}
		out[n++] = e;
	}
	cs_free(ci, 1);
	return r < 0 ? r : n;
}

/*
 * J's instructions (from PC) relocated to AT, where DST points, then the
 * jump back to PC + J->len: at most LEFT bytes.  Bytes written, or -EINVAL
 * (an instruction that cannot be moved), -ERANGE (too far), -ENOSPC.  The
 * tail of both trampolines.
 */
static int relocate_and_return(const struct arch_jump *j, uint64_t pc, uint64_t at, uint8_t *dst,
			       size_t left)
{
	unsigned int off = 0;
	int64_t rel;

	if (left < (size_t)j->len + JMP_REL32_LEN)
		return -ENOSPC;
	while (off < j->len) {
		struct arch_insn insn;

		if (arch_insn_analyze(j->bytes + off, j->len - off, pc + off, &insn, NULL) < 0)
			return -EINVAL;
		if (insn.step == ARCH_STEP_RET) {	/* an exit's (arch_exit_jump()): the end */
			memcpy(dst + off, insn.bytes, insn.len);
			memset(dst + off + insn.len, 0xcc, j->len - off - insn.len);
			break;
		}
		if (insn.step == ARCH_STEP_JMP && off + JMP_REL32_LEN <= j->len) {
			/* a tail call's (arch_exit_jump()): to its target from here, the end */
			rel = (int64_t)(insn.target - (at + off + JMP_REL32_LEN));
			if (!fits_s32(rel))
				return -ERANGE;
			dst[off] = 0xe9;
			put_u32(dst + off + 1, (uint32_t)rel);
			memset(dst + off + JMP_REL32_LEN, 0xcc, j->len - off - JMP_REL32_LEN);
			break;
		}
		if (insn.step != ARCH_STEP_OOL)
			return -EINVAL;
		memcpy(dst + off, insn.bytes, insn.len);
		if (insn.riprel) {	/* pc + off + len + old == at + off + len + new */
			int64_t disp = (int64_t)get_s32(insn.bytes + insn.disp_off) +
				       (int64_t)(pc - at);

			if (!fits_s32(disp))
				return -ERANGE;
			put_u32(dst + off + insn.disp_off, (uint32_t)disp);
		}
		off += insn.len;
	}
	rel = (int64_t)((pc + j->len) - (at + j->len + JMP_REL32_LEN));
	if (!fits_s32(rel))
		return -ERANGE;
	dst[j->len] = 0xe9;
	put_u32(dst + j->len + 1, (uint32_t)rel);
	return j->len + JMP_REL32_LEN;
}

/*
 * J's instructions relocated for a trampoline at TRAMP into BUF (LEN
 * bytes), GAP bytes left at J->at for the trampoline's own (its int3, its
 * switch to the agent): with J->at, those before the exit at TRAMP and the
 * exit after the gap, else all of them after it.  Bytes used, or -errno.
 */
static int relocate_around(const struct arch_jump *j, uint64_t pc, uint64_t tramp,
			   unsigned int gap, uint8_t *buf, size_t len)
{
	uint8_t tmp[ARCH_JUMP_MAX + 2 * JMP_REL32_LEN];
	int n;

	if (!j->len || j->len > ARCH_JUMP_MAX || j->at >= j->len)
		return -EINVAL;
	if (len < gap + sizeof(tmp))
		return -ENOSPC;
	if (!j->at) {
		n = relocate_and_return(j, pc, tramp + gap, buf + gap, len - gap);
		return n < 0 ? n : (int)gap + n;
	}
	n = relocate_and_return(j, pc, tramp, tmp, sizeof(tmp));
	if (n < 0)
		return n;
	memcpy(buf, tmp, j->at);
	/* the exit, not rip-relative; the jump back after it never runs */
	memcpy(buf + j->at + gap, tmp + j->at, (size_t)n - j->at);
	return (int)gap + n;
}

int arch_jump_tramp_build(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint8_t *buf,
			  size_t len)
{
	int r;

	memset(buf, 0xcc, len < ARCH_SLOT_SIZE ? len : ARCH_SLOT_SIZE);
	r = relocate_around(j, pc, tramp, ARCH_BP_LEN, buf, len);
	if (r >= 0)
		memcpy(buf + j->at, arch_bp_insn, ARCH_BP_LEN);
	return r;
}

/* ---- in-process probes: the agent's trampoline ------------------------------ */

/* The DWARF x86-64 numbers' hardware register encodings: rax rdx rcx rbx rsi rdi rbp rsp r8-r15. */
static const uint8_t dwarf_hw[16] = { 0, 2, 1, 3, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15 };

#define AGENT_RED_ZONE	128
#define AGENT_FRAME	(ARCH_DWARF_NREGS * 8)	/* 136: the registers, DWARF order */
_Static_assert(AGENT_FRAME == 136 && AGENT_RED_ZONE + 8 == 136,
	       "flags_back and above_flags: the flags at 136(%rsp), the red zone 8 above");

struct emit {
	uint8_t *p, *end;
};

static void emit(struct emit *e, const uint8_t *b, size_t n)
{
	if (e->p && e->p + n <= e->end)
		memcpy(e->p, b, n);
	e->p = e->p && e->p + n <= e->end ? e->p + n : NULL;
}

/* mov %HW, DISP(%rsp) (STORE) or mov DISP(%rsp), %HW, DISP < 128 or not */
static void emit_rsp_mov(struct emit *e, bool store, unsigned int hw, int32_t disp)
{
	uint8_t b[8] = { (uint8_t)(0x48 | (hw >= 8 ? 0x04 : 0)), store ? 0x89 : 0x8b };
	size_t n = 2;

	if (disp >= -128 && disp < 128) {
		b[n++] = (uint8_t)(0x44 | ((hw & 7) << 3));
		b[n++] = 0x24;
		b[n++] = (uint8_t)disp;
	} else {
		b[n++] = (uint8_t)(0x84 | ((hw & 7) << 3));
		b[n++] = 0x24;
		put_u32(b + n, (uint32_t)disp);
		n += 4;
	}
	emit(e, b, n);
}

/* movabs $IMM, %HW (hw < 8) */
static void emit_movabs(struct emit *e, unsigned int hw, uint64_t imm)
{
	uint8_t b[10] = { 0x48, (uint8_t)(0xb8 + hw) };

	for (int i = 0; i < 8; i++)
		b[2 + i] = (uint8_t)(imm >> (8 * i));
	emit(e, b, sizeof(b));
}

/* 1: sahf, 0: popfq, -1: not asked yet (CPUID, at the first trampoline) */
static int tramp_sahf = -1;

void arch_agent_tramp_use_sahf(bool use)
{
	tramp_sahf = use;
}

static bool use_sahf(void)
{
	unsigned int a, b, c, d;

	if (tramp_sahf < 0)
		tramp_sahf = __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & 1);
	return tramp_sahf;
}

int arch_agent_tramp_build(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint64_t fn,
			   uint64_t cookie, uint8_t *buf, size_t len)
{
	static const uint8_t below_red_zone[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };  /* lea -128(%rsp),%rsp */
	static const uint8_t frame_down[] = { 0x48, 0x8d, 0xa4, 0x24, 0x78, 0xff, 0xff, 0xff };
						/* lea -136(%rsp),%rsp */
	static const uint8_t frame_up[] = { 0x48, 0x8d, 0xa4, 0x24, 0x88, 0x00, 0x00, 0x00 };
						/* lea 136(%rsp),%rsp */
	static const uint8_t above_flags[] = { 0x48, 0x8d, 0xa4, 0x24, 0x88, 0x00, 0x00, 0x00 };
						/* lea 136(%rsp),%rsp: the flags, the red zone */
	static const uint8_t pushfq = 0x9c, popfq = 0x9d, cld = 0xfc;
	static const uint8_t red_zone_up[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00 };
						/* lea 128(%rsp),%rsp */
	/*
	 * The flags back without popfq (a dozen times as slow as this, which
	 * came to 3% of a hit): DF (bit 10) from its bit, OF (bit 11) as
	 * add $0x7f sets it from its bit in %al, then SF ZF AF PF CF from the
	 * low byte by sahf.  The flags the agent cannot change are left as
	 * they are.  %rax is loaded after, by mov: no flag changes then.  On a
	 * CPU without sahf in 64-bit mode, popfq (use_sahf()).
	 */
	static const uint8_t flags_back[] = {
		0xf6, 0x84, 0x24, 0x89, 0x00, 0x00, 0x00, 0x04,	/* testb $4,137(%rsp): DF */
		0x74, 0x01,					/* jz 1f */
		0xfd,						/* std; 1: */
		0x8a, 0x84, 0x24, 0x89, 0x00, 0x00, 0x00,	/* mov 137(%rsp),%al */
		0xc0, 0xe8, 0x03,				/* shr $3,%al */
		0x24, 0x01,					/* and $1,%al: OF */
		0x04, 0x7f,					/* add $0x7f,%al: sets OF */
		0x8a, 0xa4, 0x24, 0x88, 0x00, 0x00, 0x00,	/* mov 136(%rsp),%ah */
		0x9e,						/* sahf */
	};
	static const uint8_t call_setup[] = {
		0x48, 0x89, 0xe7,		/* mov %rsp,%rdi: the registers */
		0x48, 0x89, 0xe3,		/* mov %rsp,%rbx (callee-saved) */
		0x48, 0x83, 0xe4, 0xf0,		/* and $-16,%rsp */
	};
	static const uint8_t call_rax[] = { 0xff, 0xd0 };		/* call *%rax */
	static const uint8_t rsp_back[] = { 0x48, 0x89, 0xdc };	/* mov %rbx,%rsp */
	unsigned int at = j->at;
	struct emit e;
	int n;

	/*
	 * The relocated instructions right after the switch, the call to FN
	 * after them.  With AT, those before the exit come before the switch
	 * (at TRAMP: they run first), and the exit after it.
	 */
	memset(buf, 0xcc, len);
	n = relocate_around(j, pc, tramp, 2, buf, len);
	if (n < 0)
		return n;
	if (n - 2 - (int)at > 127)
		return -ENOSPC;
	buf[at] = 0xeb;			/* jmp rel8: ARCH_AGENT_TRAMP_ARM */
	buf[at + ARCH_AGENT_TRAMP_ARM] = (uint8_t)(n - 2 - (int)at);
	e = (struct emit){ buf + n, buf + len };
	emit(&e, below_red_zone, sizeof(below_red_zone));
	emit(&e, &pushfq, 1);
	emit(&e, frame_down, sizeof(frame_down));
	for (unsigned int r = 0; r < 16; r++)
		if (r != ARCH_DWARF_SP)
			emit_rsp_mov(&e, true, dwarf_hw[r], (int32_t)(8 * r));
	/* the site's stack pointer and pc, through rax (saved above) */
	emit(&e, (const uint8_t[]){ 0x48, 0x8d, 0x84, 0x24 }, 4);	/* lea N(%rsp),%rax */
	{
		uint8_t d[4];

		put_u32(d, AGENT_FRAME + 8 + AGENT_RED_ZONE);
		emit(&e, d, 4);
	}
	emit_rsp_mov(&e, true, 0, 8 * ARCH_DWARF_SP);
	emit_movabs(&e, 0, pc + at);
	emit_rsp_mov(&e, true, 0, 8 * 16);
	/* FN(registers, COOKIE) */
	emit(&e, call_setup, sizeof(call_setup));
	emit_movabs(&e, 6, cookie);		/* %rsi */
	emit_movabs(&e, 0, fn);			/* %rax */
	emit(&e, &cld, 1);
	emit(&e, call_rax, sizeof(call_rax));
	emit(&e, rsp_back, sizeof(rsp_back));
	for (unsigned int r = 0; r < 16; r++)
		if (r != ARCH_DWARF_SP && r != 0)
			emit_rsp_mov(&e, false, dwarf_hw[r], (int32_t)(8 * r));
	if (use_sahf()) {
		emit(&e, flags_back, sizeof(flags_back));	/* the flags at AGENT_FRAME(%rsp) */
		emit_rsp_mov(&e, false, dwarf_hw[0], 0);	/* %rax */
		emit(&e, frame_up, sizeof(frame_up));
		emit(&e, above_flags, sizeof(above_flags));
	} else {
		emit_rsp_mov(&e, false, dwarf_hw[0], 0);
		emit(&e, frame_up, sizeof(frame_up));
		emit(&e, &popfq, 1);
		emit(&e, red_zone_up, sizeof(red_zone_up));
	}
	/* back to the relocated instructions */
	{
		uint8_t jmp[JMP_REL32_LEN] = { 0xe9 };
		uint64_t end = tramp + (uint64_t)(e.p ? e.p - buf : 0) + JMP_REL32_LEN;

		put_u32(jmp + 1, (uint32_t)(int32_t)(int64_t)(tramp + at + 2 - end));
		emit(&e, jmp, sizeof(jmp));
	}
	return e.p ? (int)(e.p - buf) : -ENOSPC;
}

int arch_jump_patch(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint8_t *buf)
{
	int64_t rel = (int64_t)(tramp - (pc + JMP_REL32_LEN));

	if (j->len < JMP_REL32_LEN || j->len > ARCH_JUMP_MAX)
		return -EINVAL;
	if (!fits_s32(rel))
		return -ERANGE;
	memset(buf, 0xcc, j->len);
	buf[0] = 0xe9;
	put_u32(buf + 1, (uint32_t)rel);
	return 0;
}

/* ---- IFUNC resolvers ----------------------------------------------------- */

#define X86_GPRS		16
#define IFUNC_VALS_MAX		64	/* distinct addresses one resolver may hold */
#define GPR_AX			0
/* caller-saved (psABI 3.2.1): rax rcx rdx rsi rdi r8-r11, in x86_64_gpr()'s numbering */
#define GPRS_CLOBBERED		((1u << 0) | (1u << 1) | (1u << 2) | (1u << 6) | (1u << 7) | \
				 (0xfu << 8))

/*
 * What the registers may hold at one instruction: for each general
 * register, a set of addresses (bit I: the resolver's address table entry
 * I) and whether it may hold anything else.
 */
struct x86_64_rstate {
	uint64_t vals[X86_GPRS];
	uint16_t unknown;	/* bit R: register R may hold something else */
	bool seen;
	bool queued;		/* on the walk's stack */
};

struct x86_64_rwalk {
	uint64_t tab[IFUNC_VALS_MAX];	/* the addresses seen, in the order found */
	int ntab;
	uint64_t returned;		/* table entries some return gives back */
};

/*
 * The general register REG is part of (0 rax, 1 rcx, 2 rdx, 3 rbx, 4 rsp,
 * 5 rbp, 6 rsi, 7 rdi, 8-15 r8-r15), with *SIZE its size in bytes; -1 for
 * any other register.
 */
static int x86_64_gpr(unsigned int reg, int *size)
{
	static const struct { unsigned int r[4]; } gprs[X86_GPRS] = {
		{ { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL } },
		{ { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL } },
		{ { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL } },
		{ { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL } },
		{ { X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL } },
		{ { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL } },
		{ { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL } },
		{ { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL } },
		{ { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B } },
		{ { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B } },
		{ { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B } },
		{ { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B } },
		{ { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B } },
		{ { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B } },
		{ { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B } },
		{ { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B } },
	};
	static const int sizes[4] = { 8, 4, 2, 1 };

	for (int g = 0; g < X86_GPRS; g++)
		for (int k = 0; k < 4; k++)
			if (gprs[g].r[k] == reg) {
				*size = sizes[k];
				return g;
			}
	if (reg == X86_REG_AH || reg == X86_REG_CH || reg == X86_REG_DH || reg == X86_REG_BH) {
		*size = 1;
		return reg == X86_REG_AH ? 0 : reg == X86_REG_CH ? 1 : reg == X86_REG_DH ? 2 : 3;
	}
	return -1;
}

/* Register R of ST holds just ADDR (entered in W's table).  0 or -E2BIG. */
static int x86_64_rset(struct x86_64_rwalk *w, struct x86_64_rstate *st, int r, uint64_t addr)
{
	int i;

	for (i = 0; i < w->ntab && w->tab[i] != addr; i++)
		;
	if (i == w->ntab) {
		if (w->ntab == IFUNC_VALS_MAX)
			return -E2BIG;
		w->tab[w->ntab++] = addr;
	}
	st->vals[r] = 1ULL << i;
	st->unknown &= ~(1u << r);
	return 0;
}

static void x86_64_rclobber(struct x86_64_rstate *st, unsigned int mask)
{
	for (int r = 0; r < X86_GPRS; r++)
		if (mask & (1u << r)) {
			st->vals[r] = 0;
			st->unknown |= 1u << r;
		}
}

/*
 * What a non-branch instruction does to ST: the forms that move addresses
 * the resolver made (lea rip-relative, mov of an immediate or a register,
 * cmov) are followed, any other write makes its registers unknown.
 */
static int x86_64_rstep(csh h, const cs_insn *ci, struct x86_64_rwalk *w,
			struct x86_64_rstate *st)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *d = &x->operands[0], *src = &x->operands[1];
	int dsz = 0, ssz = 0, dr = -1, sr = -1;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (x->op_count == 2 && d->type == X86_OP_REG)
		dr = x86_64_gpr(d->reg, &dsz);
	if (x->op_count == 2 && src->type == X86_OP_REG)
		sr = x86_64_gpr(src->reg, &ssz);
	if (dr >= 0 && dsz == 8 && ci->id == X86_INS_LEA && src->type == X86_OP_MEM &&
	    src->mem.base == X86_REG_RIP && src->mem.index == X86_REG_INVALID &&
	    src->mem.segment == X86_REG_INVALID)
		return x86_64_rset(w, st, dr, ci->address + ci->size + (uint64_t)src->mem.disp);
	if (dr >= 0 && (dsz == 8 || dsz == 4) && src->type == X86_OP_IMM &&
	    (ci->id == X86_INS_MOV || ci->id == X86_INS_MOVABS))
		return x86_64_rset(w, st, dr, dsz == 8 ? (uint64_t)src->imm :
					      (uint64_t)(uint32_t)src->imm);
	if (dr >= 0 && sr >= 0 && dsz == 8 && ssz == 8 && ci->id == X86_INS_MOV) {
		st->vals[dr] = st->vals[sr];
		st->unknown = (st->unknown & ~(1u << dr)) | (((st->unknown >> sr) & 1u) << dr);
		return 0;
	}
	if (dr >= 0 && sr >= 0 && dsz == 8 && ssz == 8 && !strncmp(ci->mnemonic, "cmov", 4)) {
		st->vals[dr] |= st->vals[sr];
		st->unknown |= ((st->unknown >> sr) & 1u) << dr;
		return 0;
	}
	if (cs_regs_access(h, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
		x86_64_rclobber(st, 0xffff);	/* what it writes is unknown: all */
		return 0;
	}
	for (int i = 0; i < nwr; i++) {
		int r = x86_64_gpr(wr[i], &dsz);

		if (r >= 0)
			x86_64_rclobber(st, 1u << r);
	}
	return 0;
}

/* Merge ST into the state at OFF; push OFF when that changed it.  0 or -E2BIG. */
static int x86_64_rflow(struct x86_64_rstate *states, size_t off, const struct x86_64_rstate *st,
			uint32_t *stack, size_t *nstack, size_t cap)
{
	struct x86_64_rstate *to = &states[off];
	bool changed = !to->seen;

	if (to->seen) {
		for (int r = 0; r < X86_GPRS; r++) {
			changed |= (st->vals[r] & ~to->vals[r]) != 0;
			to->vals[r] |= st->vals[r];
		}
		changed |= (st->unknown & ~to->unknown) != 0;
		to->unknown |= st->unknown;
	} else {
		*to = *st;
		to->seen = true;
	}
	if (!changed || to->queued)
		return 0;
	if (*nstack == cap)
		return -E2BIG;
	to->queued = true;
	stack[(*nstack)++] = (uint32_t)off;
	return 0;
}

/* The walk itself (see arch_ifunc_targets()); STATES and STACK hold FNLEN entries each. */
static int x86_64_rwalk(csh h, cs_insn *ci, const uint8_t *fn, size_t fnlen, uint64_t fn_pc,
			struct x86_64_rstate *states, uint32_t *stack, struct x86_64_rwalk *w,
			struct ptap_err *why)
{
	struct x86_64_rstate st = { .unknown = 0xffff, .seen = true };
	size_t nstack = 0, cap = fnlen;
	bool returns = false;
	long steps = 0;
	int r;

	st.queued = true;
	states[0] = st;
	stack[nstack++] = 0;
	while (nstack) {
		size_t off = stack[--nstack], left = fnlen - off;
		const uint8_t *code = fn + off;
		uint64_t at = fn_pc + off, next, to = 0;
		const cs_x86 *x;
		bool direct, jump, cond;

		if (++steps > 64L * (long)fnlen)
			return set_why(why, -ENOTSUP, "too many paths");
		states[off].queued = false;
		st = states[off];
		if (!cs_disasm_iter(h, &code, &left, &at, ci))
			return set_why(why, -ENOTSUP, "it does not decode at 0x%lx",
				       (unsigned long)(fn_pc + off));
		x = &ci->detail->x86;
		next = off + ci->size;
		direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
		if (direct)
			to = (uint64_t)x->operands[0].imm;
		if (cs_insn_group(h, ci, CS_GRP_RET)) {
			if (st.unknown & (1u << GPR_AX))
				return set_why(why, -ENOTSUP, "the value it returns at 0x%lx "
					       "is computed or loaded, not an address it sets",
					       (unsigned long)ci->address);
			w->returned |= st.vals[GPR_AX];
			returns = true;
			continue;
		}
		if (cs_insn_group(h, ci, CS_GRP_CALL)) {
			x86_64_rclobber(&st, GPRS_CLOBBERED);
		} else if ((jump = cs_insn_group(h, ci, CS_GRP_JUMP))) {
			cond = ci->id != X86_INS_JMP && ci->id != X86_INS_LJMP;
			if (!direct)
				return set_why(why, -ENOTSUP, "'%s %s' at 0x%lx jumps through "
					       "a register or memory", ci->mnemonic, ci->op_str,
					       (unsigned long)ci->address);
			if (to < fn_pc || to >= fn_pc + fnlen)
				return set_why(why, -ENOTSUP, "'%s %s' at 0x%lx leaves the "
					       "resolver", ci->mnemonic, ci->op_str,
					       (unsigned long)ci->address);
			r = x86_64_rflow(states, to - fn_pc, &st, stack, &nstack, cap);
			if (r < 0)
				return set_why(why, -ENOTSUP, "too many paths");
			if (!cond)
				continue;
		} else if (cs_insn_group(h, ci, CS_GRP_INT) || ci->id == X86_INS_UD2 ||
			   ci->id == X86_INS_HLT) {
			continue;	/* this path does not return */
		} else if (x86_64_rstep(h, ci, w, &st) < 0) {
			return set_why(why, -E2BIG, "more than %d addresses",
				       IFUNC_VALS_MAX);
		}
		if (next >= fnlen)
			return set_why(why, -ENOTSUP, "it runs past its end at 0x%lx",
				       (unsigned long)(fn_pc + next));
		if (x86_64_rflow(states, next, &st, stack, &nstack, cap) < 0)
			return set_why(why, -ENOTSUP, "too many paths");
	}
	if (!returns)
		return set_why(why, -ENOTSUP, "it never returns");
	return 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

int arch_ifunc_targets(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t *out, int max,
		       struct ptap_err *why)
{
	struct x86_64_rwalk w = { .ntab = 0 };
	struct x86_64_rstate *states;
	uint32_t *stack;
	cs_insn *ci;
	int r, n = 0;
	csh h;

	set_why(why, 0, "%s", "");
	if (!fn || !fnlen)
		return set_why(why, -ENOTSUP, "no code (a symbol without a size)");
	if (fnlen > ARCH_IFUNC_FN_MAX)
		return set_why(why, -ENOTSUP, "it is longer than %d bytes",
			       ARCH_IFUNC_FN_MAX);
	r = x86_64_cs_get(&h);
	if (r)
		return set_why(why, r, "capstone: cannot open an x86-64 handle");
	states = calloc(fnlen, sizeof(*states));
	stack = calloc(fnlen, sizeof(*stack));
	ci = cs_malloc(h);
	if (!states || !stack || !ci)
		r = set_why(why, -ENOMEM, "out of memory");
	else
		r = x86_64_rwalk(h, ci, fn, fnlen, fn_pc, states, stack, &w, why);
	for (int i = 0; r == 0 && i < w.ntab; i++) {
		if (!(w.returned & (1ULL << i)))
			continue;
		if (n == max) {
			r = set_why(why, -E2BIG, "more than %d addresses", max);
			break;
		}
		out[n++] = w.tab[i];
	}
	if (ci)
		cs_free(ci, 1);
	free(states);
	free(stack);
	if (r < 0)
		return r;
	qsort(out, n, sizeof(*out), cmp_u64);
	return n;
}

/* ---- emulation ---------------------------------------------------------- */

#define X86_CF	(1UL << 0)
#define X86_PF	(1UL << 2)
#define X86_ZF	(1UL << 6)
#define X86_SF	(1UL << 7)
#define X86_OF	(1UL << 11)

/* Condition CC (the tttn field, Intel SDM vol. 1, B.1.4.7) under FLAGS. */
static bool x86_64_cond(uint8_t cc, unsigned long flags)
{
	bool cf = flags & X86_CF, pf = flags & X86_PF, zf = flags & X86_ZF;
	bool sf = flags & X86_SF, of = flags & X86_OF;
	bool r;

	switch (cc >> 1) {
	case 0: r = of; break;			/* jo */
	case 1: r = cf; break;			/* jb */
	case 2: r = zf; break;			/* je */
	case 3: r = cf || zf; break;		/* jbe */
	case 4: r = sf; break;			/* js */
	case 5: r = pf; break;			/* jp */
	case 6: r = sf != of; break;		/* jl */
	default: r = zf || sf != of; break;	/* jle */
	}
	return (cc & 1) ? !r : r;		/* odd codes negate */
}

int arch_insn_ra_at_sp(const struct arch_insn *insn)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t mov_rsp_rbp[][3] = { { 0x48, 0x89, 0xe5 }, { 0x48, 0x8b, 0xec } };
	const uint8_t *b = insn->bytes;

	if (insn->step == ARCH_STEP_RET || (insn->len == 1 && b[0] == 0x55) ||
	    (insn->len == sizeof(endbr64) && !memcmp(b, endbr64, sizeof(endbr64))))
		return 0;
	for (size_t i = 0; i < sizeof(mov_rsp_rbp) / sizeof(mov_rsp_rbp[0]); i++)
		if (insn->len == 3 && !memcmp(b, mov_rsp_rbp[i], 3))
			return 8;
	return -1;
}

bool arch_branch_taken(const struct arch_insn *insn, const arch_regs_t *regs)
{
	return insn->step != ARCH_STEP_JCC || x86_64_cond(insn->cond, regs->eflags);
}

int arch_emulate(const struct arch_insn *insn, arch_regs_t *regs,
		 int (*read_mem)(void *priv, uint64_t addr, void *buf, size_t len),
		 int (*write_mem)(void *priv, uint64_t addr, const void *buf, size_t len),
		 void *priv)
{
	uint64_t next = insn->pc + insn->len;
	uint8_t word[8];
	uint64_t ra = 0;
	int err;

	switch (insn->step) {
	case ARCH_STEP_JMP:
		regs->rip = insn->target;
		return 0;
	case ARCH_STEP_JCC:
		regs->rip = x86_64_cond(insn->cond, regs->eflags) ? insn->target : next;
		return 0;
	case ARCH_STEP_CALL:
		if (!write_mem)
			return -EINVAL;
		for (int i = 0; i < 8; i++)
			word[i] = (uint8_t)(next >> (8 * i));
		err = write_mem(priv, regs->rsp - 8, word, sizeof(word));
		if (err)
			return err;
		regs->rsp -= 8;
		regs->rip = insn->target;
		return 0;
	case ARCH_STEP_RET:
		if (!read_mem)
			return -EINVAL;
		err = read_mem(priv, regs->rsp, word, sizeof(word));
		if (err)
			return err;
		for (int i = 0; i < 8; i++)
			ra |= (uint64_t)word[i] << (8 * i);
		regs->rsp += 8 + insn->pop_extra;
		regs->rip = ra;
		return 0;
	case ARCH_STEP_OOL:
		break;
	}
	return -EINVAL;
}

/* ---- Go's stack-bound check --------------------------------------------- */

/* Go's stackguard0: the field of its g that the check compares with. */
#define GO_STACKGUARD0_OFF	0x10

static bool op_reg(const cs_x86 *x, int i, unsigned int *reg)
{
	if (x->op_count <= i || x->operands[i].type != X86_OP_REG)
		return false;
	*reg = x->operands[i].reg;
	return true;
}

static bool op_mem(const cs_x86 *x, int i, unsigned int base, int64_t disp)
{
	const cs_x86_op *o = &x->operands[i];

	return x->op_count > i && o->type == X86_OP_MEM && o->mem.base == base &&
	       o->mem.index == X86_REG_INVALID && o->mem.segment == X86_REG_INVALID &&
	       o->mem.disp == disp;
}

/* Go's ABIInternal passes integers in these: the check must not touch them. */
static bool is_go_arg_reg(unsigned int reg)
{
	switch (reg) {
	case X86_REG_RAX: case X86_REG_RBX: case X86_REG_RCX: case X86_REG_RDI:
	case X86_REG_RSI: case X86_REG_R8: case X86_REG_R9: case X86_REG_R10:
	case X86_REG_R11:
		return true;
	default:
		return false;
	}
}

/*
 * The forms Go's linker writes (cmd/internal/obj/x86 stacksplit), g in r14
 * (Go 1.17's ABIInternal), or in a register loaded from fs:-8 (older Go, whose
 * arguments are on the stack):
 *   cmp rsp, [g+0x10]                                   (frame <= 128 bytes)
 *   lea tmp, [rsp-N]; cmp tmp, [g+0x10]                 (<= 4096)
 *   mov tmp, rsp; sub tmp, N; jb M; cmp tmp, [g+0x10]   (larger)
 * each followed by jbe M, M further on.
 */
size_t arch_go_stack_check_len(const uint8_t *code, size_t len, uint64_t pc)
{
	unsigned int g = X86_REG_R14, tmp = X86_REG_RSP, r;
	size_t n, i = 0, ret = 0;
	cs_insn *ci;
	csh h;

	if (!code || x86_64_cs_get(&h) < 0)
		return 0;
	n = cs_disasm(h, code, len, pc, 6, &ci);
#define X(k)	(&ci[k].detail->x86)
	if (i < n && ci[i].id == X86_INS_MOV && op_reg(X(i), 0, &g) &&
	    X(i)->operands[1].type == X86_OP_MEM && X(i)->operands[1].mem.segment == X86_REG_FS)
		i++;				/* older Go: g from thread-local storage */
	else
		g = X86_REG_R14;
	if (i < n && ci[i].id == X86_INS_LEA && op_reg(X(i), 0, &tmp) &&
	    X(i)->operands[1].type == X86_OP_MEM && X(i)->operands[1].mem.base == X86_REG_RSP) {
		i++;
	} else if (i + 2 < n && ci[i].id == X86_INS_MOV && op_reg(X(i), 0, &tmp) &&
		   op_reg(X(i), 1, &r) && r == X86_REG_RSP && ci[i + 1].id == X86_INS_SUB &&
		   op_reg(X(i + 1), 0, &r) && r == tmp && ci[i + 2].id == X86_INS_JB) {
		i += 3;
	}
	if (g == X86_REG_R14 && tmp != X86_REG_RSP && is_go_arg_reg(tmp))
		goto out;
	if (i + 1 < n && ci[i].id == X86_INS_CMP && op_reg(X(i), 0, &r) && r == tmp &&
	    op_mem(X(i), 1, g, GO_STACKGUARD0_OFF) && ci[i + 1].id == X86_INS_JBE &&
	    X(i + 1)->op_count == 1 && X(i + 1)->operands[0].type == X86_OP_IMM &&
	    (uint64_t)X(i + 1)->operands[0].imm > pc)
		ret = ci[i + 1].address + ci[i + 1].size - pc;
#undef X
out:
	if (n)
		cs_free(ci, n);
	return ret;
}
