/* samples/libstacks.c: dlopen'd by samples/stacks.c; calls back into it. */
__attribute__((noinline)) int plug_call(int (*cb)(int), int x)
{
	return cb(x) + 1;
}
