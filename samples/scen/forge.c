/* samples/scen/forge.c: hostile strings for the output-safety tests (issue 9):
 * a target that tries to forge records and terminal sequences through what
 * ptap captures.
 * usage: forge            calls take(i, s, n) once for each string below
 *        forge spin N     calls take(i, "spin", 4) for i = 0..N-1
 * take(i, s, n): I is the call's number, S the string, N its length in bytes
 * (the string is NUL-terminated after them, but for the last one, whose bytes
 * run to unreadable memory).  With fd 3 open, each call first says there
 * "I N HEX" (HEX: S's N bytes) -- "I N HEX unterminated" for the last -- so a
 * test can compare what ptap recorded with what was passed.  Prints
 * "forge: N calls", then BYTES-OK (selfcheck.h), and exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../selfcheck.h"

static long sum;

/* The probed function: reads only the bytes it is told S has. */
__attribute__((noinline, noclone)) void take(long i, const char *s, long n)
{
	sum += i + (n ? (unsigned char)s[n - 1] : 0);
	asm volatile("" : : "r"(i), "r"(s), "r"(n) : "memory");
}

/* "I N HEX[ unterminated]" on fd 3, when it is open. */
static void state(long i, const char *s, size_t n, int unterminated)
{
	static const char hex[] = "0123456789abcdef";
	char *line;
	size_t k = 0;

	if (fcntl(3, F_GETFD) == -1)
		return;
	line = malloc(2 * n + 1);
	if (!line)
		exit(2);
	for (size_t j = 0; j < n; j++) {
		line[k++] = hex[(unsigned char)s[j] >> 4];
		line[k++] = hex[(unsigned char)s[j] & 0xf];
	}
	line[k] = '\0';
	dprintf(3, "%ld %zu %s%s\n", i, n, line, unterminated ? " unterminated" : "");
	free(line);
}

static const char *const strings[] = {
	"line one\nline two",
	/* a whole fake record after a newline, and one that a \r would draw over this one */
	"x\nx 1/1 0.000000001: evil: (0x0)",
	"\rx 1/1 0.000000001: evil: (0x0) ok=1",
	/* terminal sequences: a window title (OSC ... BEL), clear screen, cursor home */
	"\x1b]0;title\x07",
	"\x1b[2J\x1b[H",
	/* C1 controls as UTF-8 (U+009B CSI, U+009D OSC, U+009C ST), and as raw 8-bit bytes */
	"\xc2\x9b" "31mred\xc2\x9d" "0;t\xc2\x9c",
	"\x9b" "2J\x9d" "0;t\x07",
	/* invalid UTF-8: stray bytes, a cut sequence, overlong, surrogate, above U+10FFFF */
	"\xff\xfe\xc3(\xe2\x82\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",
	/* quotes and backslashes that would end the value and add an argument */
	"\" n=0 forged=\"\\\\\" \\",
	/* backspaces over the text, BEL, DEL, tab, vertical tab, form feed */
	"abc\b\b\bxyz\x07\x7f\t\v\f",
	/* bidi overrides and isolates, line and paragraph separators, LRM/RLM/ALM */
	"\xe2\x80\xae" "evil\xe2\x80\xac \xe2\x81\xa6" "x\xe2\x81\xa9 \xe2\x80\xa8" "a\xe2\x80\xa9"
	"b\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c",
	/* valid UTF-8 that stays: Latin-1, euro, emoji, NBSP */
	"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\xc2\xa0",
	"",
};

int main(int argc, char **argv)
{
	static const size_t lens[] = { 300, 200000 };	/* past 256; past 256 + 64 KiB */
	long i = 0, page = sysconf(_SC_PAGESIZE);
	char *buf, *end;

	SELFCHECK_SAVE(take);
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		long n = atol(argv[2]);

		for (i = 0; i < n; i++)
			take(i, "spin", 4);
		printf("forge: %ld calls\n", i);
		return selfcheck_verify() ? 0 : 1;
	}
	for (size_t k = 0; k < sizeof(strings) / sizeof(strings[0]); k++, i++) {
		state(i, strings[k], strlen(strings[k]), 0);
		take(i, strings[k], (long)strlen(strings[k]));
	}
	/* long strings, with an escape now and then */
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++, i++) {
		buf = malloc(lens[k] + 1);
		if (!buf)
			return 2;
		for (size_t j = 0; j < lens[k]; j++)
			buf[j] = j % 61 == 60 ? '\n' : j % 67 == 66 ? '"' : 'A' + j % 26;
		buf[lens[k]] = '\0';
		state(i, buf, lens[k], 0);
		take(i, buf, (long)lens[k]);
		free(buf);
	}
	/* 300 bytes without a NUL, up to a page nothing can read */
	buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || mprotect(buf + page, page, PROT_NONE))
		return 2;
	end = buf + page;
	memset(end - 300, 'U', 300);
	state(i, end - 300, 300, 1);
	take(i, end - 300, 300);
	i++;
	printf("forge: %ld calls\n", i);
	return selfcheck_verify() ? 0 : 1;
}
