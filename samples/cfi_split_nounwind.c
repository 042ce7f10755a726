/* samples/cfi_split_nounwind.c: built without unwind tables, so that its CFI
 * goes to .debug_frame (see samples/cfi_split.c). */
int cfi_helper(int x);

int cfi_helper(int x)
{
	return x + 1;
}
