#!/usr/bin/env python3
"""tests/integ/forge_check.py: check what ptap recorded of samples/scen/forge.

usage: forge_check.py text|json REC EXPECT COMM_HEX [STRING_MAX]

REC: `ptap record [--format json] --events task -e 'take i s n'` of forge;
EXPECT: what forge said on fd 3 ("I N HEX[ unterminated]" per call);
COMM_HEX: the bytes of the comm the records must show; STRING_MAX: ptap's
--string-max (256).

Checks, in both formats: no raw control byte in REC (but the newline ending
each line), no raw C1 control, bidi control or line separator, REC is valid
UTF-8; one line per record: the clock line, exec, one take per call in
order, exit.  Text: each string, unescaped (\\n \\t \\r \\" \\\\ \\xNN \\uNNNN),
is the bytes passed (the first STRING_MAX of a longer one, marked
...(+N bytes) or ...(+N bytes or more)), and the comm is COMM.  JSON: every
line parses; each string is the bytes passed decoded as UTF-8 with each
invalid byte NN read as U+00NN (probes/escape.h), a longer one is
{"value":..,"truncated":true,"length":N} or "length_min".
Exit 0, or 1 with the problems on stderr.
"""
import codecs
import json
import re
import sys

SCAN = 65536  # FETCH_STRLEN_SCAN
ESCAPED_CPS = set(range(0x80, 0xA0)) | {0x2028, 0x2029, 0x061C, 0x200E, 0x200F} \
    | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))

problems = []


def bad(msg):
    problems.append(msg)


codecs.register_error("bytevalue", lambda e: ("".join(chr(b) for b in e.object[e.start:e.end]),
                                              e.end))


def load_expect(path):
    calls = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            i, n = int(parts[0]), int(parts[1])
            data = bytes.fromhex(parts[2]) if len(parts) > 2 and parts[2] != "unterminated" \
                else b""
            calls.append((i, n, data, parts[-1] == "unterminated"))
    return calls


def raw_check(raw):
    for k, b in enumerate(raw):
        if (b < 0x20 and b != 0x0A) or b == 0x7F:
            bad("raw control byte 0x%02x at offset %d" % (b, k))
            return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad("not UTF-8: %s" % e)
        return
    for k, ch in enumerate(text):
        if ord(ch) in ESCAPED_CPS:
            bad("raw U+%04X at character %d" % (ord(ch), k))
            return


def expected_suffix(n, shown, unterminated):
    """What follows the quoted string in text: "", ...(+N bytes), ...(+N bytes or more)."""
    if n <= shown:
        return ""
    if unterminated:
        return "...(+%d bytes or more)" % (n - shown)
    if n - shown > SCAN:
        return "...(+%d bytes or more)" % SCAN
    return "...(+%d bytes)" % (n - shown)


def unescape(s):
    """ptap's ESC_TEXT escapes undone: the bytes."""
    out = bytearray()
    k = 0
    named = {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "\\": b"\\"}
    while k < len(s):
        ch = s[k]
        if ch != "\\":
            out += ch.encode("utf-8")
            k += 1
        elif s[k + 1] in named:
            out += named[s[k + 1]]
            k += 2
        elif s[k + 1] == "x":
            out.append(int(s[k + 2:k + 4], 16))
            k += 4
        elif s[k + 1] == "u":
            out += chr(int(s[k + 2:k + 6], 16)).encode("utf-8")
            k += 6
        else:
            raise ValueError("unknown escape at %d: %r" % (k, s[k:k + 6]))
    return bytes(out)


QUOTED = r'"((?:[^"\\]|\\.)*)"'
# the address: a probe's; exec and exit records have none
TEXT_REC = re.compile(r"^(.*?) (\d+)/(\d+) (\d+\.\d{9}): (\w+):( \(0x[0-9a-f]+\))?(.*)$")
TAKE_ARGS = re.compile(r"^ i=(\d+) s=" + QUOTED + r"(\.\.\.\(\+\d+ bytes(?: or more)?\))? "
                       r"n=(\d+)$")


def check_text(lines, calls, comm, smax):
    recs = []
    for ln, line in enumerate(lines[1:], 2):
        m = TEXT_REC.match(line)
        if not m:
            bad("line %d is no record: %r" % (ln, line[:200]))
            continue
        recs.append((ln, m))
    for ln, m in recs:
        if unescape(m.group(1)) != comm:
            bad("line %d: comm %r, want %r" % (ln, m.group(1), comm))
    events = [m.group(5) for _, m in recs]
    want = ["exec"] + ["take"] * len(calls) + ["exit"]
    if events != want:
        bad("events %s, want %s" % (events, want))
        return
    for ln, m in recs:
        if (m.group(5) == "take") != bool(m.group(6)):
            bad("line %d: %s record with address %r" % (ln, m.group(5), m.group(6)))
    for (ln, m), (i, n, data, unterm) in zip(recs[1:-1], calls):
        a = TAKE_ARGS.match(m.group(7))
        if not a:
            bad("line %d: arguments %r" % (ln, m.group(7)[:200]))
            continue
        shown = min(n, smax)
        if int(a.group(1)) != i or int(a.group(4)) != n:
            bad("line %d: i=%s n=%s, want %d %d" % (ln, a.group(1), a.group(4), i, n))
        got = unescape(a.group(2))
        if got != data[:shown]:
            bad("line %d: s is %r, want %r" % (ln, got[:80], data[:80]))
        if (a.group(3) or "") != expected_suffix(n, shown, unterm):
            bad("line %d: s ends %r, want %r" % (ln, a.group(3),
                                                 expected_suffix(n, shown, unterm)))


def check_json(lines, calls, comm, smax):
    recs = []
    for ln, line in enumerate(lines, 1):
        try:
            recs.append((ln, json.loads(line)))
        except ValueError as e:
            bad("line %d is not JSON (%s): %r" % (ln, e, line[:200]))
    if not recs or recs[0][1] != {"kind": "clock", "clock": "monotonic"}:
        bad("no clock line first")
    recs = recs[1:]
    want_comm = comm.decode("utf-8", "bytevalue")
    for ln, r in recs:
        if r.get("comm") != want_comm:
            bad("line %d: comm %r, want %r" % (ln, r.get("comm"), want_comm))
    events = [r.get("event") for _, r in recs]
    want = ["exec"] + ["take"] * len(calls) + ["exit"]
    if events != want:
        bad("events %s, want %s" % (events, want))
        return
    for ln, r in recs:
        if (r["event"] == "take") != ("addr" in r):
            bad("line %d: %s record with addr %r" % (ln, r["event"], r.get("addr")))
    for (ln, r), (i, n, data, unterm) in zip(recs[1:-1], calls):
        args = r["args"]
        shown = min(n, smax)
        if args.get("i") != i or args.get("n") != n:
            bad("line %d: i=%s n=%s, want %d %d" % (ln, args.get("i"), args.get("n"), i, n))
        s = args.get("s")
        want_s = data[:shown].decode("utf-8", "bytevalue")
        if n > shown:
            key = "length" if not unterm and n - shown <= SCAN else "length_min"
            length = n if key == "length" else min(n, shown + SCAN)
            want_v = {"value": want_s, "truncated": True, key: length}
        else:
            want_v = want_s
        if s != want_v:
            bad("line %d: s is %r, want %r" % (ln, str(s)[:120], str(want_v)[:120]))


def main(argv):
    fmt, rec, expect, comm = argv[1], argv[2], argv[3], bytes.fromhex(argv[4])
    smax = int(argv[5]) if len(argv) > 5 else 256
    with open(rec, "rb") as f:
        raw = f.read()
    raw_check(raw)
    if not raw.endswith(b"\n"):
        bad("the last line has no newline")
    lines = raw.decode("utf-8", "bytevalue").split("\n")[:-1]
    calls = load_expect(expect)
    if not calls:
        bad("forge said nothing on fd 3")
    (check_text if fmt == "text" else check_json)(lines, calls, comm, smax)
    for p in problems[:40]:
        print("forge_check: %s: %s" % (rec, p), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
