/* samples/expect.h: how the samples state on fd 3 what ptap should print,
 * in its normalized text form (tests/integ/lib.sh `normalize`).  Header-only:
 * every helper is static inline, so a sample uses what it needs. */
#ifndef PTAP_SAMPLES_EXPECT_H
#define PTAP_SAMPLES_EXPECT_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fd 3 as a stream when the caller opened it (3>FILE), else NULL. */
static inline FILE *ex_open(void)
{
	return fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
}

/* The bytes S[0..N) (stopping at a NUL) quoted the way ptap prints a string:
 * C escapes for " \ \n \t \r, \xNN for other control bytes, UTF-8 kept. */
static inline void ex_chars(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

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

/* A C string (char *), as ptap prints it. */
static inline void ex_str(FILE *f, const char *s)
{
	ex_chars(f, s, (size_t)-1);
}

/* A pointer as ptap prints one that is not a string: 0x%lx, NULL as 0x0. */
static inline void ex_ptr(FILE *f, const void *p)
{
	fprintf(f, "0x%lx", (unsigned long)p);
}

/* A double: the shortest %g that reads back to the same double. */
static inline void ex_double(FILE *f, double d)
{
	char buf[40];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

/* A file descriptor as ptap prints it: N</path> (the path /proc/self/fd gives). */
static inline void ex_fd(FILE *f, int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0) {
		fprintf(f, "%d", fd);
		return;
	}
	path[n] = '\0';
	fprintf(f, "%d<%s>", fd, path);
}

/* A float: the shortest %g that reads back (as a float) to the same float. */
static inline void ex_float(FILE *f, float v)
{
	char buf[40];

	for (int prec = 1; prec <= 9; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, (double)v);
		if (strtof(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static inline void ex_bool(FILE *f, bool b)
{
	fputs(b ? "true" : "false", f);
}

#endif
