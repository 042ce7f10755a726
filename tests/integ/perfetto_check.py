#!/usr/bin/env python3
"""tests/integ/perfetto_check.py: check a `ptap record --format perfetto` trace.

usage: perfetto_check.py [--instants | --slices | --threads] [--by-thread] TRACE

Checks TRACE's structure (below) and exits 1, with one line per problem on
stderr, when something is wrong; else exits 0 and prints on stdout:

  (default)    a summary:
                 events: I instant, X slice, M metadata
                 threads: T, processes: P
                 instant NAME: N        one line per event name, sorted
                 slice NAME: N
  --instants   the instant events ("ph":"i"), in file order, one per line as
               ptap's text records print after tests/integ/lib.sh `normalize`:
                 NAME: ARG=VALUE ...
               strings quoted with C escapes, numbers and true/false as they
               are, {"error":"M"} as (error: M), a truncated string as "..."...(+N bytes);
               ptap's own keys (ts_ns, dur_ns, addr, ret_addr) left out.  Hex
               values are JSON strings, so they print quoted ("0x1f").
  --slices     the same for the slices ("ph":"X"), durations left out.
  --threads    the thread_name metadata, sorted: PID TID NAME
  --by-thread  with --instants or --slices: each line starts with "PID/TID ".

Checks:
  - valid JSON: {"displayTimeUnit":"ns","traceEvents":[...]};
  - every event is a complete event ("X": dur, args.dur_ns), an instant
    ("i", "s":"t") or metadata ("M": process_name, thread_name);
  - "ts" (and "dur") in microseconds equal args.ts_ns (args.dur_ns) / 1000
    exactly (numbers are read as decimals, never as doubles);
  - one process_name per pid, one thread_name per thread, named "COMM/TID";
    every X or i event is on a thread that has a thread_name, in a process
    that has a process_name, and every thread_name names a thread with events;
  - per thread, in file order: ts never decreases, and slices nest (a slice
    that starts inside another ends inside it).
"""
import decimal
import json
import sys

OWN_KEYS = ("ts_ns", "dur_ns", "addr", "ret_addr")


class Number(decimal.Decimal):
    """A JSON number with a fraction or exponent: exact, and printable as written."""

    def __new__(cls, text):
        self = super().__new__(cls, text)
        self.text = text
        return self


# Characters ptap escapes as \uNNNN (probes/escape.h): C1 controls, the line
# and paragraph separators, the Bidi_Control characters.
ESCAPED_CPS = set(range(0x80, 0xA0)) | {0x2028, 0x2029, 0x061C, 0x200E, 0x200F} \
    | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def c_string(s):
    """S quoted as ptap's text records quote a string (samples/expect.h ex_chars)."""
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        elif ord(ch) in ESCAPED_CPS:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def text_value(v):
    """A JSON argument value as ptap's text format prints it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Number):
        return v.text
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return c_string(v)
    if isinstance(v, dict):
        if set(v) == {"error"}:
            return "(error: %s)" % v["error"]
        if set(v) == {"value", "truncated"}:
            return c_string(v["value"]) + "..."
        if set(v) in ({"value", "truncated", "length"}, {"value", "truncated", "length_min"}):
            shown = len(v["value"].encode("utf-8"))
            more = v.get("length", v.get("length_min")) - shown
            return c_string(v["value"]) + "...(+%d bytes%s)" % (
                more, " or more" if "length_min" in v else "")
        return "{" + ", ".join("%s=%s" % (k, text_value(x)) for k, x in v.items()) + "}"
    return json.dumps(v)


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []

    def bad(self, i, msg):
        where = "traceEvents[%d]" % i if i is not None else "document"
        self.problems.append("%s: %s: %s" % (self.path, where, msg))

    def load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                doc = json.load(f, parse_float=Number)
        except (OSError, ValueError) as e:
            self.bad(None, "not valid JSON: %s" % e)
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
            self.bad(None, 'not an object with a "traceEvents" array')
            return None
        if doc.get("displayTimeUnit") != "ns":
            self.bad(None, 'displayTimeUnit is %r, not "ns"' % doc.get("displayTimeUnit"))
        return doc["traceEvents"]

    @staticmethod
    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    def exact_us(self, i, e, key, ns_key):
        """E[KEY] (us, 3 decimals) is E.args[NS_KEY] (ns) exactly; the ns, or None."""
        us, ns = e.get(key), e["args"].get(ns_key)
        if not self.is_int(ns) or ns < 0:
            self.bad(i, "args.%s is not a count of ns: %r" % (ns_key, ns))
            return None
        if not isinstance(us, (int, Number)) or isinstance(us, bool):
            self.bad(i, "%s is not a number: %r" % (key, us))
            return None
        if decimal.Decimal(us) * 1000 != ns:
            self.bad(i, "%s %s us is not args.%s %d ns" % (key, us, ns_key, ns))
            return None
        return ns

    def check_event(self, i, e):
        """One X or i event: its (pid, tid, start ns, end ns or None), or None."""
        for key, kind in (("name", str), ("cat", str), ("args", dict)):
            if not isinstance(e.get(key), kind):
                self.bad(i, "no %s" % key)
                return None
        if not self.is_int(e.get("pid")) or not self.is_int(e.get("tid")):
            self.bad(i, "pid or tid missing")
            return None
        start = self.exact_us(i, e, "ts", "ts_ns")
        end = None
        if e["ph"] == "X":
            dur = self.exact_us(i, e, "dur", "dur_ns")
            if dur is None or start is None:
                return None
            end = start + dur
        elif e.get("s") != "t":
            self.bad(i, 'an instant without "s":"t"')
        if start is None:
            return None
        return e["pid"], e["tid"], start, end

    def check_meta(self, i, e, procs, threads):
        args = e.get("args")
        if not isinstance(args, dict) or not isinstance(args.get("name"), str):
            self.bad(i, "metadata without args.name")
            return
        if not self.is_int(e.get("pid")):
            self.bad(i, "metadata without a pid")
            return
        if e.get("name") == "process_name":
            if e["pid"] in procs:
                self.bad(i, "a second process_name for pid %d" % e["pid"])
            procs[e["pid"]] = args["name"]
        elif e.get("name") == "thread_name":
            key = (e["pid"], e.get("tid"))
            if not self.is_int(e.get("tid")):
                self.bad(i, "thread_name without a tid")
            elif key in threads:
                self.bad(i, "a second thread_name for tid %d" % e["tid"])
            elif not args["name"].endswith("/%d" % e["tid"]):
                self.bad(i, 'thread_name %r is not "COMM/%d"' % (args["name"], e["tid"]))
            threads[key] = args["name"]
        else:
            self.bad(i, "unknown metadata %r" % e.get("name"))

    def check(self, events):
        """Every check; returns (events with their (pid, tid), process names, thread names)."""
        procs, threads, seen = {}, {}, []
        last = {}	# (pid, tid) -> ts_ns of its last event
        open_slices = {}	# (pid, tid) -> ends of the slices still open, innermost last
        for i, e in enumerate(events):
            if not isinstance(e, dict) or e.get("ph") not in ("X", "i", "M"):
                self.bad(i, "not an X, i or M event: %r" % (e,))
                continue
            if e["ph"] == "M":
                self.check_meta(i, e, procs, threads)
                continue
            r = self.check_event(i, e)
            if r is None:
                continue
            pid, tid, start, end = r
            key = (pid, tid)
            seen.append((i, e, key))
            if key in last and start < last[key]:
                self.bad(i, "tid %d goes back in time: %d ns after %d ns" % (tid, start, last[key]))
            last[key] = start
            if end is None:
                continue
            stack = open_slices.setdefault(key, [])
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                self.bad(i, "slice %r [%d, %d] ns crosses the end of the slice it starts in (%d)"
                         % (e["name"], start, end, stack[-1]))
            stack.append(end)
        for i, e, key in seen:
            if key not in threads:
                self.bad(i, "tid %d of pid %d has no thread_name" % (key[1], key[0]))
                threads[key] = None	# once per thread
        for pid in sorted({key[0] for key in last} - set(procs)):
            self.bad(None, "pid %d has no process_name" % pid)
        for key, name in threads.items():
            if name is not None and key not in last:
                self.bad(None, "thread_name %r names a thread without events" % name)
        return seen, procs, {k: v for k, v in threads.items() if v is not None}


def args_text(e):
    return " ".join("%s=%s" % (k, text_value(v)) for k, v in e["args"].items()
                    if k not in OWN_KEYS)


def main(argv):
    modes = [a for a in argv[1:] if a in ("--instants", "--slices", "--threads")]
    by_thread = "--by-thread" in argv[1:]
    files = [a for a in argv[1:] if not a.startswith("--")]
    unknown = [a for a in argv[1:] if a.startswith("--") and a not in
               ("--instants", "--slices", "--threads", "--by-thread")]
    if len(files) != 1 or len(modes) > 1 or unknown:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    c = Checker(files[0])
    events = c.load()
    seen, procs, threads = c.check(events) if events is not None else ([], {}, {})
    for p in c.problems[:50]:
        print("perfetto_check: " + p, file=sys.stderr)
    if len(c.problems) > 50:
        print("perfetto_check: ... %d problems in all" % len(c.problems), file=sys.stderr)
    if c.problems:
        return 1
    mode = modes[0] if modes else None
    if mode in ("--instants", "--slices"):
        ph = "i" if mode == "--instants" else "X"
        for _, e, key in seen:
            if e["ph"] == ph:
                line = "%s: %s" % (e["name"], args_text(e))
                print(("%d/%d " % key if by_thread else "") + line.rstrip())
    elif mode == "--threads":
        for (pid, tid), name in sorted(threads.items()):
            print("%d %d %s" % (pid, tid, name))
    else:
        counts = {}
        for _, e, _ in seen:
            k = ("instant" if e["ph"] == "i" else "slice", e["name"])
            counts[k] = counts.get(k, 0) + 1
        ninst = sum(n for (kind, _), n in counts.items() if kind == "instant")
        print("events: %d instant, %d slice, %d metadata"
              % (ninst, len(seen) - ninst, len(events) - len(seen)))
        print("threads: %d, processes: %d" % (len(threads), len(procs)))
        for (kind, name), n in sorted(counts.items()):
            print("%s %s: %d" % (kind, name, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
