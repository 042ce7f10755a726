/* samples/ifunc.c: a function the dynamic loader chooses at load time (a GNU
 * IFUNC, issue 17 item 6), and libc's strlen, which is one too.
 *
 * text_len is an IFUNC: its resolver (pick_len) returns len_bytes,
 * len_words or len_fast, three implementations of one function.  Which:
 * PICK (-DPICK=1, 2 or 3 when built; 0, the default: by the CPU, as glibc's
 * resolvers do: len_fast with AVX2, else len_bytes).  main() calls
 * text_len on each string of its arguments (default: a fixed list), then
 * libc's strlen on each (through a volatile pointer, so the compiler keeps
 * the calls), between two calls of strlen("<<") and strlen(">>") that mark
 * where they are.  States on fd 3, if open, in ptap's normalized text form:
 *   text_len: arg1="STR"                (ptap record -e 'text_len %di:string')
 *   text_len: s="STR"                   (-e 'text_len s')
 *   text_len__return: retval=N          (-e 'text_len%return $retval')
 *   strlen: arg1="STR"                  (-x libc -e 'strlen %di:string')
 *   strlen__return: retval=0xN          (-x libc -e 'strlen%return $retval':
 *                                        glibc's are assembly, $retval is x64)
 * each line prefixed with its kind ("di ", "s ", "ret ", "libc ") for the
 * test to pick, and "impl NAME 0xADDR" for the implementation that ran (its
 * address, where ptap's records of text_len must be).  Prints "ifunc: N
 * strings, IMPL" and exits 0 when every length was right, 1 if not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

#ifndef PICK
#define PICK 0
#endif

static const char *ran_name;	/* the implementation text_len ran, by its own account */
static const void *ran_addr;

static __attribute__((noinline)) size_t len_bytes(const char *s)
{
	size_t n = 0;

	ran_name = "len_bytes";
	ran_addr = (const void *)len_bytes;
	while (s[n])
		n++;
	return n;
}

static __attribute__((noinline)) size_t len_words(const char *s)
{
	const char *p = s;

	ran_name = "len_words";
	ran_addr = (const void *)len_words;
	while (*p)
		p++;
	return (size_t)(p - s);
}

static __attribute__((noinline)) size_t len_fast(const char *s)
{
	size_t n = 0;

	ran_name = "len_fast";
	ran_addr = (const void *)len_fast;
	while (s[n] && s[n + 1])
		n += 2;
	return n + (s[n] != 0);
}

/* What the build chose; volatile, so the resolver reads it (and decides at run time). */
static volatile int pick = PICK;

/* Runs once, in the dynamic loader, when it binds text_len. */
static size_t (*pick_len(void))(const char *)
{
	__builtin_cpu_init();
	switch (pick) {
	case 1:
		return len_bytes;
	case 2:
		return len_words;
	case 3:
		return len_fast;
	}
	return __builtin_cpu_supports("avx2") ? len_fast : len_bytes;
}

size_t text_len(const char *s) __attribute__((ifunc("pick_len")));

static const char *const fixed[] = {
	"hello", "", "an IFUNC's implementation", "caf\xc3\xa9", "tab\there",
};

/* The length the implementations must agree with (no libc: its strlen is probed). */
static size_t count(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

#define MAX_STRS 64

int main(int argc, char **argv)
{
	size_t (*volatile libc_strlen)(const char *) = strlen;
	const char *const *strs = argc > 1 ? (const char *const *)argv + 1 : fixed;
	int n = argc > 1 ? argc - 1 : (int)(sizeof(fixed) / sizeof(fixed[0])), bad = 0;
	size_t got[MAX_STRS], libc[MAX_STRS];
	FILE *ex;

	if (n > MAX_STRS) {
		fprintf(stderr, "usage: ifunc [STRING...]  (at most %d)\n", MAX_STRS);
		return 2;
	}
	for (int i = 0; i < n; i++)
		got[i] = text_len(strs[i]);
	/* libc's strlen between two markers, nothing else calling it in between */
	libc_strlen("<<");
	for (int i = 0; i < n; i++)
		libc[i] = libc_strlen(strs[i]);
	libc_strlen(">>");
	ex = ex_open();
	for (int i = 0; i < n; i++) {
		bad += got[i] != count(strs[i]) || libc[i] != count(strs[i]);
		if (!ex)
			continue;
		fputs("di text_len: arg1=", ex);
		ex_str(ex, strs[i]);
		fputs("\ns text_len: s=", ex);
		ex_str(ex, strs[i]);
		fprintf(ex, "\nret text_len__return: retval=%zu\nlibc strlen: arg1=", got[i]);
		ex_str(ex, strs[i]);
		fprintf(ex, "\nlibc strlen__return: retval=0x%zx\n", libc[i]);
	}
	if (ex) {
		fprintf(ex, "impl %s ", ran_name);
		ex_ptr(ex, ran_addr);
		fputc('\n', ex);
		fclose(ex);
	}
	printf("ifunc: %d strings, %s\n", n, ran_name ? ran_name : "none");
	return bad ? 1 : 0;
}
