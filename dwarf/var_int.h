/* dwarf/var_int.h: DWARF variables at a probe site -> fetch programs and
 * value types (dwarf/var.c, retval.c), for the argument compiler
 * (dwarf/args.c), the resolver and `ptap vars` (dwarf/varlist.c); private
 * to dwarf/.  Never calls ptrace. */
#ifndef PTAP_DWARF_VAR_INT_H
#define PTAP_DWARF_VAR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/varctx_int.h"
#include "probes/fetch.h"

struct arg_expr;
struct probe_arg;
struct ptap_err;

/*
 * Compile variable expression E (ARG_VAR) of argument ARG at the site into
 * PROG, its type chosen from DWARF unless ARG has a :TYPE.  0, or -errno
 * with ERR: an unknown variable lists those in scope, a variable optimized
 * out at the site says so and points to `ptap vars`, a type that cannot be
 * printed as asked is a type error.
 */
int var_compile(const struct var_ctx *c, const struct probe_arg *arg, const struct arg_expr *e,
		struct fetch_prog *prog, struct ptap_err *err);
/* Is E (ARG_VAR) a local variable at the site: not a parameter, not a global? */
bool var_is_local(const struct var_ctx *c, const struct arg_expr *e);

/*
 * The address of the return address at the site (a return probe's entry):
 * the stack pointer at the function's entry, else the CFA from the call
 * frame information plus ARCH_RA_CFA_OFF.  0, or -ENOTSUP with ERR.
 */
int var_compile_ra_slot(const struct var_ctx *c, struct fetch_prog *prog, struct ptap_err *err);

/*
 * $retval of the site's function, as its registers hold it right after it
 * returned, typed from DWARF's return type (ARG's :TYPE wins): an integer,
 * pointer or enum in the integer return register, a float or double in the
 * first SSE one, a struct of at most 16 bytes assembled from the registers
 * its eightbytes' classes use (SysV x86-64), a larger one read from the
 * address the function returns.  -EINVAL for a void function; -ENOTSUP for
 * a type in registers ptap does not read (long double, complex).
 */
int var_compile_retval(const struct var_ctx *c, const struct probe_arg *arg,
		       struct fetch_prog *prog, struct ptap_err *err);
/*
 * Does the site's function return a DW_TAG_unspecified_type (what GNU as
 * gives an assembly function: glibc's __strlen_avx2)?  Then $retval is the
 * raw return register, as without DWARF.
 */
bool var_retval_untyped(const struct var_ctx *c);

/* ERR: TEXT needs DWARF, which the module (or the site's function) lacks;
 * register arguments still work.  Returns -ENOENT. */
int var_no_dwarf(const struct var_ctx *c, const char *text, int pos, struct ptap_err *err);

/* The same for variable V itself (a $params / $vars member), named by V->name. */
int var_compile_info(const struct var_ctx *c, const struct var_info *v, int pos,
		     struct fetch_prog *prog, struct ptap_err *err);

/*
 * The variables in scope at the site, innermost function first: its
 * parameters, then its locals scope by scope, outermost scope first; with
 * GLOBALS, then the compile unit's file-scope variables.  CB is called for
 * each; a non-zero return stops the walk and is returned.
 */
int var_walk(const struct var_ctx *c, bool globals,
	     int (*cb)(const struct var_info *v, void *priv), void *priv);

#endif
