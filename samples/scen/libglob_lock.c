/* samples/scen/libglob_lock.c: the library glob_lock.c loads with dlopen
 * (issue 17 item 5).  Four functions a glob 'gl_*' matches: gl_lock starts
 * with a lock-prefixed instruction, which a tracer can neither run out of
 * line nor emulate; gl_add, gl_sub and gl_twice are plain C.  locks_run()
 * says how many times gl_lock ran (not matched by 'gl_*'). */

static int lock_counter __attribute__((used));

/* long gl_lock(long x): x + 1, after one atomic increment of lock_counter */
asm(".text\n"
    ".globl gl_lock\n"
    ".type gl_lock, @function\n"
    "gl_lock:\n"
    "\tlock incl lock_counter(%rip)\n"
    "\tlea 1(%rdi), %rax\n"
    "\tret\n"
    ".size gl_lock, .-gl_lock\n");

long gl_lock(long x);

__attribute__((noinline)) long gl_add(long x, long y)
{
	asm volatile("" : : "r"(x), "r"(y) : "memory");
	return x + y;
}

__attribute__((noinline)) long gl_sub(long x, long y)
{
	asm volatile("" : : "r"(x), "r"(y) : "memory");
	return x - y;
}

__attribute__((noinline)) long gl_twice(long x)
{
	asm volatile("" : : "r"(x) : "memory");
	return 2 * x;
}

int locks_run(void)
{
	return __atomic_load_n(&lock_counter, __ATOMIC_SEQ_CST);
}
