/* dwarf/unwind.c: call stacks (unwind.h).  Frame pointers are followed
 * here; CFI is libdwfl's unwinder, fed with the hit's registers and the
 * caller's memory reader (a Dwfl of the process's modules with a state of
 * our callbacks attached); symbols are libdwfl's, the inlined functions
 * libdw's scopes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/demangle.h"
#include "dwarf/unwind.h"

/* x86_64's DWARF numbers: rbp, rsp, and the return address column (rip) */
#define DW_RBP		6
#define DW_RSP		7
#define DW_RA		16
#define DW_NREGS	17

int stack_unwind_fp(const uint64_t *regs, int ra_at_sp, const struct stack_mem *m,
		    uint64_t *pcs, int max)
{
	uint64_t fp = regs[DW_RBP], sp = regs[DW_RSP], fr[2];
	int n = 0;

	if (max < 1)
		return 0;
	pcs[n++] = regs[DW_RA];
	if (ra_at_sp >= 0 && n < max) {
		if (m->read(m->priv, sp + (uint64_t)ra_at_sp, &fr[1], 8) != 8 || !fr[1])
			return n;
		pcs[n++] = fr[1];
	}
	while (n < max) {
		if (!fp || (fp & 7) || fp < sp)
			break;
		if (m->read(m->priv, fp, fr, sizeof(fr)) != (ssize_t)sizeof(fr) || !fr[1])
			break;
		pcs[n++] = fr[1];
		if (fr[0] <= fp)	/* a caller's frame is above: else the chain is not one */
			break;
		fp = fr[0];
	}
	return n;
}

struct unwinder {
	Dwfl *dwfl;
	pid_t pid;
	int (*open_file)(void *priv, uint64_t addr);	/* the file mapped at ADDR, as an fd */
	void *priv;
	bool attached;		/* the state callbacks are attached (once a module is there) */
	/* the unwind under way */
	pid_t tid;
	const uint64_t *regs;
	const struct stack_mem *mem;
	uint64_t *pcs;
	int n, max;
};

static char *debuginfo_path;

/* The unwinder whose Dwfl calls back (libdwfl passes no argument of ours to find_elf). */
static struct unwinder *cur;

/*
 * A module's file, opened through the caller's OPEN_FILE (the file the
 * process maps, not whatever its path names to ptap: another mount
 * namespace, a file replaced since), read through mmap, its descriptor
 * closed at once: a process costs no descriptor per module.  What is not
 * a file ([vdso]) is libdwfl's to find, in the process's memory.
 */
static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	Dwarf_Addr start = 0;
	int fd;

	if (!cur || name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	fd = cur->open_file(cur->priv, start);
	if (fd < 0)
		return -1;
	*elfp = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (*elfp)
		elf_cntl(*elfp, ELF_C_FDDONE);
	close(fd);
	*file_name = *elfp ? strdup(name) : NULL;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = cb_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;	/* one thread: the one unwound */
	*thread_argp = u;
	return u->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t w;

	(void)dwfl;
	if (!u->mem || u->mem->read(u->mem->priv, addr, &w, sizeof(w)) != (ssize_t)sizeof(w))
		return false;
	*result = w;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct unwinder *u = thread_arg;
	Dwarf_Word r[DW_NREGS];

	for (int i = 0; i < DW_NREGS; i++)
		r[i] = u->regs[i];
	return dwfl_thread_state_registers(thread, 0, DW_NREGS, r);
}

static const Dwfl_Thread_Callbacks state_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

int unwinder__new(pid_t pid, int (*open_file)(void *priv, uint64_t addr), void *priv,
		  struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->dwfl = dwfl_begin(&proc_callbacks);
	if (!u->dwfl) {
		free(u);
		return -ENOMEM;
	}
	u->pid = pid;
	u->open_file = open_file;
	u->priv = priv;
	*out = u;
	return 0;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	free(u);
}

int unwinder__report(struct unwinder *u, FILE *maps)
{
	int r;

	cur = u;
	dwfl_report_begin(u->dwfl);
	r = dwfl_linux_proc_maps_report(u->dwfl, maps);
	if (dwfl_report_end(u->dwfl, NULL, NULL) != 0 || r < 0)
		return -EINVAL;
	if (r > 0)
		return -r;
	/* libdwfl learns the machine from a module: attached once there is one */
	if (!u->attached && dwfl_attach_state(u->dwfl, NULL, u->pid, &state_callbacks, u))
		u->attached = true;
	return 0;
}

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's pc is its return address, as frame pointers give it */
	if (u->n && !pc)
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int unwinder__unwind(struct unwinder *u, pid_t tid, const uint64_t *regs,
		     const struct stack_mem *m, uint64_t *pcs, int max)
{
	if (max < 1)
		return 0;
	if (!u->attached) {	/* no module known: the pc alone */
		pcs[0] = regs[DW_RA];
		return 1;
	}
	cur = u;
	u->tid = tid;
	u->regs = regs;
	u->mem = m;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	/* an end that is not the stack's bottom (no CFI further) leaves what was unwound */
	dwfl_getthread_frames(u->dwfl, tid, cb_frame, u);
	u->mem = NULL;
	if (!u->n)
		pcs[u->n++] = regs[DW_RA];
	return u->n;
}

/* A DIE's name: its linkage name demangled, else its own (through its abstract origin). */
static char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	const char *name;
	char *d;

	if (!link)
		link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (link && (d = demangle(link, false)))
		return d;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return name ? strdup(name) : NULL;
}

/* File number IDX of CU's line table, or NULL. */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void stack_frames_free(struct stack_frame *f, int n)
{
	for (int i = 0; i < n; i++) {
		free((char *)f[i].func);
		free((char *)f[i].file);
		free((char *)f[i].module);
	}
}

/*
 * The functions inlined at LOOK (module address less BIAS in CU), innermost
 * first, into OUT from index 0: each with the line the next inner one says
 * it was called from, the innermost with LINE/FILE.  Returns the count; *FILE
 * and *LINE become where the outermost inlined one was called from (the
 * physical function's own line there), *HOST the name DWARF gives the
 * function whose code it is (malloc'd), when it does, and *HOST_LO its entry.
 */
static int inlined_frames(Dwarf_Die *cu, Dwarf_Addr look, uint64_t pc, struct stack_frame *out,
			  int max, const char **file, unsigned int *line, char **host,
			  Dwarf_Addr *host_lo)
{
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cu, look, &scopes), n = 0;

	for (int i = 0; i < ns && n < max - 1; i++) {
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;

		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && !*host &&
		    dwarf_entrypc(&scopes[i], host_lo) == 0)
			*host = die_func_name(&scopes[i]);
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		out[n] = (struct stack_frame){ .addr = pc, .func = die_func_name(&scopes[i]),
					       .file = dup_or_null(*file), .line = *line,
					       .inlined = true };
		n++;
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf);
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl);
		*file = cu_file(cu, cf);
		*line = (unsigned int)cl;
	}
	free(scopes);
	return n;
}

/*
 * The CU whose code LOOK is: through .debug_aranges, else (Go writes none)
 * the first CU whose ranges hold it.
 */
static Dwarf_Die *cu_of(Dwfl_Module *mod, Dwarf_Addr look, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, look, bias);

	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, look - *bias) > 0)
			return cu;
	return NULL;
}

int unwinder__symbolize(struct unwinder *u, uint64_t pc, bool call, struct stack_frame *out,
			int max)
{
	Dwarf_Addr look = call && pc ? pc - 1 : pc, bias = 0, host_lo = 0;
	Dwfl_Module *mod = (cur = u, dwfl_addrmodule(u->dwfl, look));
	const char *modname = NULL, *sym = NULL, *file = NULL;
	unsigned int line = 0;
	GElf_Off off = 0;
	GElf_Sym es;
	Dwfl_Line *ln;
	Dwarf_Line *dl;
	Dwarf_Die *cu;
	int n = 0;
	char *func = NULL;

	if (max < 1)
		return 0;
	if (mod) {
		modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		sym = dwfl_module_addrinfo(mod, look, &off, &es, NULL, NULL, NULL);
		cu = cu_of(mod, look, &bias);
		if ((ln = dwfl_module_getsrc(mod, look))) {
			int l = 0;

			file = dwfl_lineinfo(ln, NULL, &l, NULL, NULL, NULL);
			line = l > 0 ? (unsigned int)l : 0;
		} else if (cu && (dl = dwarf_getsrc_die(cu, look - bias))) {
			int l = 0;

			file = dwarf_linesrc(dl, NULL, NULL);
			line = dwarf_lineno(dl, &l) == 0 && l > 0 ? (unsigned int)l : 0;
		}
		if (cu)
			n = inlined_frames(cu, look - bias, pc, out, max, &file, &line, &func, &host_lo);
	}
	/* DWARF's name where it has one (as gdb shows it), else the symbol's, no @VERSION */
	if (sym && !func && !(func = demangle(sym, false)))
		func = strndup(sym, strcspn(sym, "@"));
	if (!sym && func)	/* no symbol: the offset from DWARF's entry of the function */
		off = look - bias - host_lo;
	out[n] = (struct stack_frame){ .addr = pc, .func = func,
				       .off = func ? off + (look != pc) : 0,
				       .file = dup_or_null(file), .line = line,
				       .module = dup_or_null(modname) };
	bool oom = (sym && !func) || (file && !out[n].file) || (modname && !out[n].module);

	for (int i = 0; i < n; i++)
		if (modname && !(out[i].module = strdup(modname)))
			oom = true;
	n++;
	if (oom) {
		stack_frames_free(out, n);
		return -ENOMEM;
	}
	return n;
}
