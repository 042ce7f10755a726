/* samples/cfi_split.c: call frame information in two places.  This file's
 * functions have theirs in .eh_frame only (GCC's default), cfi_split_nounwind.c's
 * in .debug_frame only (-fno-asynchronous-unwind-tables -fno-unwind-tables),
 * so the binary has a .debug_frame that does not cover probe_here.  At -O0
 * probe_here's parameter lives at its frame base, DW_OP_call_frame_cfa:
 * ptap finds the CFA in .eh_frame where .debug_frame has no entry.
 *
 * usage: cfi_split   prints "cfi_split: 43" (probe_here(14) = 14 * 3 + 1) */
#include <stdio.h>

int cfi_helper(int x);

__attribute__((noinline)) int probe_here(int n)
{
	int local = n * 3;

	return cfi_helper(local);
}

int main(void)
{
	int r = probe_here(14);

	printf("cfi_split: %d\n", r);
	return r == 43 ? 0 : 1;
}
