/* samples/scen/libdlc.c: the library dlopen_cycle.c loads and unloads. */

/* The probed function: n * 2 + 1. */
__attribute__((noinline)) int lib_probe(int n)
{
	asm volatile("" ::: "memory");
	return n * 2 + 1;
}
