/* probes/json.h: a small JSON reader (RFC 8259) for ptap's own record files,
 * and a compact writer of what it read.  Pure: no printing, no globals. */
#ifndef PTAP_PROBES_JSON_H
#define PTAP_PROBES_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptap_err;		/* probes/err.h */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_INT,		/* an integer that fits int64_t */
	JSON_UINT,		/* an integer above INT64_MAX that fits uint64_t */
	JSON_DOUBLE,		/* a fraction, an exponent, or an integer beyond 64 bits */
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_member;

struct json_val {
	enum json_type type;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		struct {
			char *s;	/* decoded UTF-8, NUL-terminated; may hold NULs (\u0000) */
			size_t len;
		} str;
		struct {
			struct json_val *v;
			size_t n;
		} arr;
		struct {
			struct json_member *m;	/* in the order of the text, duplicates kept */
			size_t n;
		} obj;
	};
};

struct json_member {
	char *key;			/* decoded like a string value */
	size_t key_len;
	struct json_val val;
};

/* Parse trees deeper than this are refused (the reader recurses). */
#define JSON_MAX_DEPTH	256

/*
 * A parser and the memory of the last tree it built: one per reader, reused
 * line after line (an arena, so a line costs no malloc once warmed up).
 * json_doc__new(): 0 or -ENOMEM; json_doc__free() accepts NULL.
 */
struct json_doc;
int json_doc__new(struct json_doc **out);
void json_doc__free(struct json_doc *doc);

/*
 * Parse TEXT[0..LEN) (need not be NUL-terminated) as exactly one JSON value,
 * whitespace around it allowed.  *OUT points into DOC and stays valid until
 * the next json_doc__parse() or json_doc__free() on DOC.
 * Strings must be valid UTF-8; \uXXXX escapes are decoded to UTF-8, a
 * surrogate pair to one 4-byte character (a lone surrogate is an error).
 * Integers become JSON_INT or JSON_UINT when they fit, else JSON_DOUBLE; a
 * number too large for a double is an error.
 * Returns 0; -EINVAL for malformed text (ERR: byte offset into TEXT and what
 * was expected there); -ENOMEM.
 */
int json_doc__parse(struct json_doc *doc, const char *text, size_t len,
		    const struct json_val **out, struct ptap_err *err);

/* The value of OBJ's first member named KEY; NULL when there is none or OBJ is not an object. */
const struct json_val *json_get(const struct json_val *obj, const char *key);

/*
 * V as compact JSON (no whitespace, members in their order) into BUF (LEN
 * bytes, NUL-terminated when LEN > 0), snprintf-like: returns the length
 * the whole text needs; the text is complete only when that is < LEN.
 * Strings are escaped as ptap's records are (escape.h, ESC_JSON), doubles in
 * the shortest "%.*g" that reads back to the same value, so a value read from
 * a ptap record is written back as ptap wrote it -- but for an invalid UTF-8
 * byte NN that ptap wrote as \u00NN: that reads as the character U+00NN and
 * is written as that character (escape.h).
 */
size_t json_format(const struct json_val *v, char *buf, size_t len);

#endif
