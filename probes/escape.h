/* probes/escape.h: escaping of target strings for text and JSON output.
 * Target bytes are hostile: control characters, quotes, backslashes and
 * invalid UTF-8 are escaped so a record is always one well-formed line. */
#ifndef PTAP_PROBES_ESCAPE_H
#define PTAP_PROBES_ESCAPE_H

#include <stddef.h>

/*
 * Both modes copy printable ASCII and every valid multi-byte UTF-8 sequence
 * as is, and escape '"', '\\', the control bytes 0x00-0x1f and 0x7f, and each
 * byte that is not part of valid UTF-8 (stray continuation bytes, overlong
 * forms, surrogates, code points above U+10FFFF, a sequence cut short by the
 * end of S) -- one escape per byte.
 */
enum esc_mode {
	/*
	 * C style: \n \t \r \" \\, and \xNN (two lowercase hex digits)
	 * for the other control bytes and for invalid UTF-8 bytes.
	 */
	ESC_TEXT,
	/*
	 * JSON string contents (RFC 8259): \n \t \r \b \f \" \\, and \u00NN
	 * for the other control bytes.  An invalid UTF-8 byte NN also becomes
	 * \u00NN, so the output is always valid JSON.  A JSON reader decodes
	 * that as the character U+00NN (Latin-1), the same character a valid
	 * sequence for U+00NN copied as is decodes to: the byte value survives,
	 * the fact that it was invalid UTF-8 does not.
	 */
	ESC_JSON,
};

/*
 * Escape S[0..LEN) into OUT (OUTLEN bytes, NUL-terminated), without quotes.
 * Never writes past OUTLEN (nothing at all when OUTLEN is 0) and never splits
 * a character or an escape sequence: it stops before the first one that does
 * not fit.  Returns the number of bytes written (excluding the NUL).
 * *CONSUMED (may be NULL) gets how many input bytes were escaped; it is LEN
 * exactly when everything fit.
 */
size_t escape_str(const char *s, size_t len, enum esc_mode mode, char *out, size_t outlen,
		  size_t *consumed);

#endif
