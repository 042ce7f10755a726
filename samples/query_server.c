/* samples/query_server.c: a stand-in for a database server.  It reads
 * queries, one per line, from the file named in argv[1] (stdin when none)
 * and runs each through exec_query(), which ptap probes.  Results go to the
 * file named in argv[2] (default /dev/null): real I/O to correlate with.
 *
 * As PostgreSQL does, the caller sets debug_query_string to the query before
 * the call and back to NULL after it, and fills a struct query_desc:
 * source_text is the query, nrows the query's number in the file (1, 2,
 * ...); exec_query() replaces nrows with its row count.
 *
 * When fd 3 is open, the program states there what ptap should capture with
 *   -e 'exec_query query_string=%di:string len=%si:u32'
 * one line per call, in ptap's text form:  exec_query: query_string="..." len=N
 *
 * With QS_EXPECT=dwarf in the environment it states instead, for each call,
 * four lines: what each of these perf recipes captures, in this order:
 *   -e 'exec_query query_string:string'
 *   -e 'exec_query desc->source_text:string desc->nrows'
 *   -e 'exec_query debug_query_string:string'
 *   -e 'exec_query $params'		(desc: the pointer, as 0x%lx)
 *
 * With QS_EXPECT=return it states, for each call, what this return probe
 * records (exec_query returns the row count; query_string is its value at
 * the entry):
 *   -e 'exec_query%return $retval query_string'
 *   exec_query__return: retval=N query_string="..."
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

struct query_desc {
	const char *source_text;
	int nrows;
};

const char *debug_query_string;		/* what the server is running now */
struct query_desc last_desc;
static FILE *results;

__attribute__((noinline, noclone)) int exec_query(const char *query_string, unsigned len,
						   struct query_desc *desc)
{
	int nrows = 1;

	for (unsigned i = 0; i < len; i++)
		nrows += query_string[i] == ' ';
	desc->nrows = nrows;
	last_desc = *desc;
	fprintf(results, "%u\t%d\t%s\n", len, nrows, desc->source_text);
	fflush(results);
	return nrows;
}

/* Eight integer arguments: the 7th and 8th go on the stack (SysV x86-64).
 * Called once, with 1..8 times the number of queries. */
__attribute__((noinline, noclone)) long query_stats(long a1, long a2, long a3, long a4, long a5,
						    long a6, long a7, long a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}


/* QS_EXPECT=dwarf: what the four perf recipes capture for one call. */
static void state_dwarf(FILE *f, const char *line, const struct query_desc *desc)
{
	fputs("exec_query: query_string=", f);
	ex_str(f, line);
	fputs("\nexec_query: desc->source_text=", f);
	ex_str(f, desc->source_text);
	fprintf(f, " desc->nrows=%d\nexec_query: debug_query_string=", desc->nrows);
	ex_str(f, line);
	fputs("\nexec_query: query_string=", f);
	ex_str(f, line);
	fprintf(f, " len=%zu desc=0x%lx\n", strlen(line), (unsigned long)desc);
}

int main(int argc, char **argv)
{
	FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
	FILE *expect = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	const char *mode = getenv("QS_EXPECT");
	bool dwarf = mode && strcmp(mode, "dwarf") == 0;
	bool ret = mode && strcmp(mode, "return") == 0;
	char line[4096];
	int total = 0, n = 0;

	results = fopen(argc > 2 ? argv[2] : "/dev/null", "w");
	if (!in || !results) {
		perror(argc > 1 ? argv[1] : "query_server");
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		struct query_desc desc = { .source_text = line, .nrows = n + 1 };
		int rows;

		line[strcspn(line, "\n")] = '\0';
		if (expect && dwarf)
			state_dwarf(expect, line, &desc);
		else if (expect && !ret) {
			fputs("exec_query: query_string=", expect);
			ex_str(expect, line);
			fprintf(expect, " len=%zu\n", strlen(line));
		}
		debug_query_string = line;
		rows = exec_query(line, (unsigned)strlen(line), &desc);
		debug_query_string = NULL;
		if (expect && ret) {
			fprintf(expect, "exec_query__return: retval=%d query_string=", rows);
			ex_str(expect, line);
			fputc('\n', expect);
		}
		total += rows;
		n++;
	}
	if (query_stats(n, 2L * n, 3L * n, 4L * n, 5L * n, 6L * n, 7L * n, -8L * n) != 20L * n)
		return 3;
	printf("query_server: %d queries, %d rows\n", n, total);
	puts("query_server: done");
	if (expect)
		fclose(expect);
	fclose(results);
	return n > 0 ? 0 : 1;
}
