/* dwarf/args_int.h: argument compilation, private to dwarf/. */
#ifndef PTAP_DWARF_ARGS_INT_H
#define PTAP_DWARF_ARGS_INT_H

struct resolved_probe;
struct elfmod;
struct var_ctx;
struct probe_spec;
struct ptap_err;

/*
 * Compile SPEC's arguments into RP->progs and RP->names ($params and $vars
 * expand to one each), DWARF variables through VC.  0, or -errno with ERR.
 */
int args_compile(struct resolved_probe *rp, const struct var_ctx *vc,
		 const struct probe_spec *spec, struct ptap_err *err);

#endif
