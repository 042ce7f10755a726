/* probes/escape.h: escaping of target strings for text and JSON output.
 * Target bytes are hostile: control characters, quotes, backslashes and
 * invalid UTF-8 are escaped so a record is always one well-formed line. */
#ifndef PTAP_PROBES_ESCAPE_H
#define PTAP_PROBES_ESCAPE_H

#include <stddef.h>

/*
 * Both modes copy printable ASCII and valid multi-byte UTF-8 sequences as
 * is, and escape '"', '\\', the control bytes 0x00-0x1f and 0x7f, and each
 * byte that is not part of valid UTF-8 (stray continuation bytes, overlong
 * forms, surrogates, code points above U+10FFFF, a sequence cut short by the
 * end of S) -- one escape per byte.
 *
 * Valid characters that would let a target's string change how the output
 * reads are escaped too, as \uNNNN (four lowercase hex digits) in both
 * modes: the C1 controls U+0080-U+009F (U+009B is CSI, U+009D OSC: a
 * terminal that takes them acts as on ESC '[' / ESC ']'), the line and
 * paragraph separators U+2028 and U+2029 (a line break to some editors,
 * viewers and JavaScript), and the Bidi_Control characters U+061C, U+200E,
 * U+200F, U+202A-U+202E and U+2066-U+2069 (an override or isolate reorders
 * what a bidi-aware terminal or viewer shows after it: a value could seem to
 * be another, or the names around it to move; "Trojan Source",
 * CVE-2021-42574).  A JSON reader decodes \uNNNN to that character, so the
 * string's bytes survive.
 */
enum esc_mode {
	/*
	 * C style: \n \t \r \" \\, and \xNN (two lowercase hex digits)
	 * for the other control bytes and for invalid UTF-8 bytes; \uNNNN for
	 * the characters above.
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

/*
 * The bytes of the NUL-terminated S that escaping leaves as they are, up to
 * its NUL or the first that is escaped, copied into OUT (at most ROOM of
 * them, no NUL added); returns how many.  Names and most strings are
 * such bytes throughout: one pass, where escape_str() needs their length.
 */
size_t escape_plain_prefix(const char *s, char *out, size_t room);

/*
 * The length of S[0..LEN) without the multi-byte UTF-8 character that the
 * end of S cuts short, if any: a lead byte followed by fewer continuation
 * bytes than it needs, all of them such as a valid character could start
 * with.  LEN when S ends on a whole character, or on bytes that are invalid
 * UTF-8 whatever follows them (a stray continuation byte, 0xff, an overlong
 * start).  A string cut at a byte limit is printed to here, so that the cut
 * shows no piece of a character as invalid bytes.
 */
size_t utf8_whole_len(const char *s, size_t len);

#endif
