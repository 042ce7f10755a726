/* samples/stacks.c: calls whose stacks are known, for record -g.  leaf() is
 * reached three ways: main -> middle -> helper (inlined at -O2) -> leaf;
 * through libc, main -> qsort -> ... -> cmp -> leaf; and through a library
 * dlopen'd from argv[1], main -> plug_call -> leaf.  Built -O0 and -O2, with
 * frame pointers and without. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

static inline int helper(int x)
{
	return leaf(x) + 1;
}

__attribute__((noinline)) int middle(int x)
{
	return helper(x) + 1;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return leaf(x) - leaf(y) > 0 ? 1 : x == y ? 0 : -1;
}

int main(int argc, char **argv)
{
	int v[2] = { 2, 1 }, r;
	int (*plug_call)(int (*)(int), int);
	void *h;

	r = middle(3);
	qsort(v, 2, sizeof(v[0]), cmp);
	if (argc < 2 || !(h = dlopen(argv[1], RTLD_NOW)) ||
	    !(plug_call = (int (*)(int (*)(int), int))dlsym(h, "plug_call"))) {
		fprintf(stderr, "stacks: give the path of libstacks.so\n");
		return 2;
	}
	r += plug_call(leaf, 5);
	printf("stacks: %d %d %d\n", r, v[0], v[1]);
	return 0;
}
