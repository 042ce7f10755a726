/* tracer/output.c: the record writer.  One formatter per format behind one
 * function pointer; stdio buffering (line buffered on a terminal). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "probes/record.h"
#include "tracer/output.h"

struct output {
	FILE *f;
	size_t (*format)(const struct record *rec, char *buf, size_t len);
	char *buf;
	size_t buflen;
	uint64_t failed;
	int err;
	bool own;
};

int output__open(const char *path, enum out_format fmt, size_t buflen, struct output **out)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->buf = malloc(buflen);
	o->buflen = buflen;
	o->format = fmt == OUT_JSON ? record__format_json : record__format_text;
	if (path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
		o->own = true;
	} else {
		o->f = stdout;
	}
	if (!o->f || !o->buf) {
		int r = o->buf ? -errno : -ENOMEM;

		free(o->buf);
		free(o);
		return r;
	}
	if (isatty(fileno(o->f)))
		setvbuf(o->f, NULL, _IOLBF, 0);
	*out = o;
	return 0;
}

void output__record(struct output *o, const struct record *rec)
{
	size_t n = o->format(rec, o->buf, o->buflen);

	if (fwrite(o->buf, 1, n, o->f) != n) {
		if (!o->err)
			o->err = errno;
		o->failed++;
	}
}

int output__error(const struct output *o)
{
	return o ? o->err : 0;
}

uint64_t output__close(struct output *o, int *err)
{
	uint64_t failed;

	if (!o)
		return 0;
	if (fflush(o->f) != 0 && !o->err)
		o->err = errno;
	if (o->own)
		fclose(o->f);
	failed = o->failed;
	if (o->err && !failed)
		failed = 1;	/* buffered records were lost in the flush */
	*err = o->err;
	free(o->buf);
	free(o);
	return failed;
}
