/* tests/fuzz/tiny.c: the program the ELF corpus seeds are built from (tests/fuzz/mkseeds.py):
 * a struct, an enum, a static, an inlined function; no libc, so the binaries are small. */
struct pt { int x; char name[8]; struct pt *next; };
enum color { RED, GREEN = 5 };
static int counter;
static inline int twice(int v) { return v * 2; }
int show(struct pt *p, const char *s, enum color c, double d)
{
	int local = twice(p->x) + s[0] + c;
	counter += local + (int)d;
	return local;
}
void _start(void)
{
	struct pt p = { 1, "a", 0 };
	show(&p, "hi", GREEN, 1.5);
	for (;;)
		;
}
