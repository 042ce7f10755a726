/* samples/query_server.c: a stand-in for a database server.  It reads
 * queries, one per line, from the file named in argv[1] (stdin when none)
 * and runs each through exec_query(), which ptap probes.  Results go to the
 * file named in argv[2] (default /dev/null): real I/O to correlate with.
 *
 * When fd 3 is open, the program states there what ptap should capture with
 *   -e 'exec_query query_string=%di:string len=%si:u32'
 * one line per call, in ptap's text form:  exec_query: query_string="..." len=N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct query_desc {
	const char *source_text;
	int nrows;
};

const char *debug_query_string;		/* what the server is running now */
struct query_desc last_desc;
static FILE *results;

__attribute__((noinline, noclone)) int exec_query(const char *query_string, unsigned len)
{
	struct query_desc desc = { .source_text = query_string, .nrows = 1 };

	debug_query_string = query_string;
	for (unsigned i = 0; i < len; i++)
		desc.nrows += query_string[i] == ' ';
	last_desc = desc;
	fprintf(results, "%u\t%d\t%s\n", len, desc.nrows, query_string);
	fflush(results);
	return desc.nrows;
}

/* Eight integer arguments: the 7th and 8th go on the stack (SysV x86-64).
 * Called once, with 1..8 times the number of queries. */
__attribute__((noinline, noclone)) long query_stats(long a1, long a2, long a3, long a4, long a5,
						    long a6, long a7, long a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

/* The query as ptap's text format prints a string: C escapes, UTF-8 kept. */
static void state_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int main(int argc, char **argv)
{
	FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
	FILE *expect = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	char line[4096];
	int total = 0, n = 0;

	results = fopen(argc > 2 ? argv[2] : "/dev/null", "w");
	if (!in || !results) {
		perror(argc > 1 ? argv[1] : "query_server");
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (expect) {
			fputs("exec_query: query_string=", expect);
			state_string(expect, line);
			fprintf(expect, " len=%zu\n", strlen(line));
		}
		total += exec_query(line, (unsigned)strlen(line));
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
