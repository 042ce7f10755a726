/* probes/escape.h: escaping of target strings for text and JSON output.
 * Target bytes are hostile: control characters, quotes, backslashes and
 * invalid UTF-8 are escaped so a record is always one well-formed line. */
#ifndef PTAP_PROBES_ESCAPE_H
#define PTAP_PROBES_ESCAPE_H

#include <stddef.h>

enum esc_mode {
	ESC_TEXT,	/* C-style: \n \t \" \\ \xNN for other control bytes and invalid UTF-8 */
	ESC_JSON,	/* JSON: \n \t \" \\ \u00NN; invalid UTF-8 bytes as \u00NN of the byte
			 * after U+FFFD-free escaping (so the output is always valid JSON) */
};

/*
 * Escape S[0..LEN) into OUT (OUTLEN bytes, NUL-terminated), without quotes.
 * Valid multi-byte UTF-8 is copied as is.  Never writes past OUTLEN; stops at
 * a character boundary.  Returns the number of bytes written (excluding NUL).
 * *CONSUMED (may be NULL) gets how many input bytes were escaped.
 */
size_t escape_str(const char *s, size_t len, enum esc_mode mode, char *out, size_t outlen,
		  size_t *consumed);

#endif
