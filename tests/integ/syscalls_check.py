#!/usr/bin/env python3
"""tests/integ/syscalls_check.py: check the JSON records of `ptap record
--syscalls ...` (issue 6) against what the traced sample did.

usage: syscalls_check.py CHECK REC [ARGS...]

Every REC must start with {"kind":"clock","clock":CLOCK} (monotonic unless
said), then hold one JSON object per line.  Exits 1, with one line per
problem on stderr, when something is wrong; else 0.

  query REC TOTALS QUERIES RESULTS
      query_server with QS_EXPECT=syscalls under the issue's command
      (-e 'exec_query query_string:string' --context exec_query --syscalls
      pread64,pwrite64,fsync,openat), RESULTS the results file it was given
      (/dev/null: the pread64s return 0, the fsyncs -EINVAL).  Checks each
      record's kind, arguments, fds and their paths, results, that the
      syscalls inside a query carry its context and no other does, that ts
      is the entry (a syscall's ts + duration <= the next record's ts), and
      the totals per context against TOTALS (the sample's fd 4).
  context REC ARG...
      query_server under -e 'exec_query query_string:string len' --context
      exec_query:ARG,...: each syscall inside a query carries exactly
      {"exec_query":{ARG: the value its entry record captured, ...}}.
  attach REC FILE
      sysio loop, attached with -e 'tick i' --context tick --syscalls write:
      tick's i goes 1 by 1; each write goes to FILE, count == ret (the first
      and the last may have no ret: cut by the attach, the detach), and when
      it carries {"tick":{"i":I}} (all must but one made before the first
      tick seen), I is the last tick's and count is len("tick I\\n").
  files REC
      `--syscalls %file,close -- /bin/true`: the loader's openat of
      ld.so.cache and libc (ret: an fd with the file's real path) and its
      newfstatat, close, no call outside %file but close, no context.
  noreturn REC
      `--syscalls %process -- sh -c '/bin/true; exit 3'`: an exit_group of
      status 0 (the child) and of 3 (sh), neither with a ret or a duration.
  clock REC CLOCK BEFORE AFTER
      the header names CLOCK, and every ts is in [BEFORE, AFTER] (ns).
"""
import json
import os
import sys

problems = []
ESCAPES = {0x0A: b"\\n", 0x09: b"\\t", 0x0D: b"\\r"}


def bad(msg):
    problems.append(msg)


def load(path, clock="monotonic"):
    """The records of PATH after its clock header (which is checked)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines:
        bad(f"{path}: empty")
        return []
    try:
        recs = [json.loads(line) for line in lines]
    except json.JSONDecodeError as e:
        bad(f"{path}: not JSON lines: {e}")
        return []
    want = {"kind": "clock", "clock": clock}
    if recs[0] != want:
        bad(f"{path}: first line {lines[0]!r}, expected {json.dumps(want)}")
    for i, r in enumerate(recs[1:], 2):
        for k in ("ts", "pid", "tid", "comm", "event", "kind"):
            if k not in r:
                bad(f"{path}:{i}: no {k!r}: {lines[i - 1]}")
    return recs[1:]


def text_str(s):
    """S as ptap's text form quotes a string (samples/expect.h ex_chars)."""
    out = bytearray(b'"')
    for b in s.encode("utf-8"):
        if b in b'"\\':
            out += b"\\" + bytes([b])
        elif b in ESCAPES:
            out += ESCAPES[b]
        elif b < 0x20 or b == 0x7F:
            out += f"\\x{b:02x}".encode()
        else:
            out.append(b)
    out += b'"'
    return out.decode("utf-8")


def is_syscall(r):
    return r.get("kind") == "syscall"


def check_entry_ts(recs):
    """A record's ts is its syscall's entry: single-threaded, each syscall
    ends before the next record begins."""
    for a, b in zip(recs, recs[1:]):
        if is_syscall(a) and "duration_ns" in a and a["ts"] + a["duration_ns"] > b["ts"]:
            bad(f"{a['event']} at {a['ts']} + {a['duration_ns']} ns ends after the next "
                f"record ({b['event']} at {b['ts']}): ts is not the entry")


def fd_arg(v, fd, path, what):
    if v != {"fd": fd, "path": path}:
        bad(f"{what}: {json.dumps(v)}, expected {json.dumps({'fd': fd, 'path': path})}")


def main_start(recs, queries):
    """The index of the openat of QUERIES (main()'s first listed syscall)."""
    for i, r in enumerate(recs):
        if r["event"] == "openat" and r.get("args", {}).get("pathname") == queries:
            return i
    bad(f"no openat of {queries!r}")
    return len(recs)


def check_query(rec, totals_path, queries, results):
    recs = load(rec)
    devnull = os.path.realpath(results) == "/dev/null"
    rpath = os.path.realpath(results)
    start = main_start(recs, queries)
    for r in recs[:start]:	# the dynamic loader's
        if r["event"] not in ("openat", "pread64") or not is_syscall(r) or "context" in r:
            bad(f"before main(): {json.dumps(r)}")
    recs = recs[start:]
    if len(recs) < 2:
        bad("fewer than 2 records from main() on")
        return
    pids = {(r["pid"], r["tid"], r["comm"]) for r in recs}
    if len(pids) != 1 or next(iter(pids))[2] != "query_server":
        bad(f"pid/tid/comm: {pids}")
    check_entry_ts(recs)
    for r in recs:
        if is_syscall(r):
            if not isinstance(r.get("duration_ns"), int) or r["duration_ns"] < 0:
                bad(f"{r['event']}: duration_ns {r.get('duration_ns')!r}")
            if "addr" in r:
                bad(f"{r['event']}: an addr in a syscall record")
    # the two openat: the queries, then the results
    q_open, r_open = recs[0], recs[1]
    qfd = q_open.get("args", {}).get("ret", {}).get("fd") if isinstance(
        q_open.get("args", {}).get("ret"), dict) else None
    want = {"dirfd": "AT_FDCWD", "pathname": queries, "flags": "O_RDONLY",
            "ret": {"fd": qfd, "path": os.path.realpath(queries)}}
    got = q_open.get("args", {})    # no mode: O_RDONLY does not read it
    if q_open["event"] != "openat" or got != want or not isinstance(qfd, int):
        bad(f"openat of the queries: {json.dumps(q_open)}")
    ra = r_open.get("args", {})
    rfd = ra.get("ret", {}).get("fd") if isinstance(ra.get("ret"), dict) else None
    want = {"dirfd": "AT_FDCWD", "pathname": results, "flags": "O_RDWR|O_CREAT|O_TRUNC",
            "mode": "0644", "ret": {"fd": rfd, "path": rpath}}
    if r_open["event"] != "openat" or ra != want or not isinstance(rfd, int):
        bad(f"openat of the results: {json.dumps(r_open)}, expected args {json.dumps(want)}")
    for r in (q_open, r_open):
        if "context" in r:
            bad(f"openat outside a query with a context: {json.dumps(r)}")
    # each query: its entry, then its calls, with its context
    offset, query, written = 0, None, None
    totals = {}

    def add(key, sysname, nbytes):
        t = totals.setdefault(key, {s: [0, 0] for s in ("pread64", "pwrite64", "fsync", "openat")})
        t[sysname][0] += 1
        t[sysname][1] += nbytes

    for r in recs[:2]:
        add("{}", "openat", 0)
    nq = 0
    for r in recs[2:]:
        a = r.get("args", {})
        if r["event"] == "exec_query":
            if r["kind"] != "entry" or "context" in r:
                bad(f"exec_query record: {json.dumps(r)}")
            if query is not None and written is None:
                bad(f"query {query!r}: no pwrite64")
            query, written, nq = a.get("query_string"), None, nq + 1
            continue
        if not is_syscall(r):
            bad(f"not a syscall record: {json.dumps(r)}")
            continue
        if query is None:
            bad(f"a syscall before the first query: {json.dumps(r)}")
            continue
        ctx = {"exec_query": {"query_string": query}}
        if r.get("context") != ctx:
            bad(f"{r['event']} in query {query!r}: context {json.dumps(r.get('context'))}")
        key = "{exec_query: query_string=" + text_str(query) + "}"
        fd_arg(a.get("fd"), rfd, rpath, f"{r['event']} in {query!r}: fd")
        qb = query.encode("utf-8")
        line = f"{len(qb)}\t{1 + qb.count(b' ')}\t".encode() + qb + b"\n"
        if r["event"] == "pwrite64":
            if written is not None:
                bad(f"query {query!r}: a second pwrite64")
            want = {"count": len(line), "offset": offset, "ret": len(line)}
            written = len(line)
            offset += len(line)
            add(key, "pwrite64", a.get("ret") if isinstance(a.get("ret"), int) else 0)
        elif r["event"] == "pread64":
            if not query.startswith("SELECT") or written is None:
                bad(f"a pread64 in query {query!r}")
            want = {"count": len(line), "offset": offset - len(line),
                    "ret": 0 if devnull else len(line)}
            add(key, "pread64", a.get("ret") if isinstance(a.get("ret"), int) else 0)
        elif r["event"] == "fsync":
            if query.split(" ")[0] not in ("INSERT", "UPDATE", "DELETE") or written is None:
                bad(f"an fsync in query {query!r}")
            want = {"ret": "-EINVAL" if devnull else 0}
            add(key, "fsync", 0)
        else:
            bad(f"{r['event']} inside query {query!r}")
            continue
        got = {k: a.get(k) for k in want}
        if got != want:
            bad(f"{r['event']} in {query!r}: {json.dumps(got)}, expected {json.dumps(want)}")
        if r["event"] != "fsync" and not (isinstance(a.get("buf"), str) and
                                          a["buf"].startswith("0x")):
            bad(f"{r['event']} in {query!r}: buf {a.get('buf')!r}")
        if list(a)[-1] != "ret":
            bad(f"{r['event']}: ret is not the last argument: {list(a)}")
    if nq != 7:
        bad(f"{nq} exec_query records, expected 7")
    for q in ("SELECT", "INSERT", "UPDATE", "DELETE"):	# every kind of query was seen
        if not any(k.startswith("{exec_query: query_string=\"" + q) for k in totals):
            bad(f"no {q} query with syscalls")
    # the totals the sample stated on fd 4
    stated = {}
    with open(totals_path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            key, _, rest = line.rpartition("} ")
            key += "}"
            stated[key] = {}
            for item in rest.split(" "):
                name, _, cb = item.partition("=")
                c, _, b = cb.partition("/")
                stated[key][name] = [int(c), int(b)]
    if stated != totals:
        bad(f"totals per context:\n  stated {json.dumps(stated)}\n  ptap   {json.dumps(totals)}")


def check_context(rec, names):
    recs = load(rec)
    entry, n = None, 0
    for r in recs:
        if r["event"] == "exec_query":
            entry = r.get("args", {})
            continue
        if not is_syscall(r):
            bad(f"neither exec_query nor a syscall: {json.dumps(r)}")
        elif entry is None:
            if "context" in r:
                bad(f"context before any query: {json.dumps(r)}")
        else:
            want = {"exec_query": {k: entry.get(k) for k in names}}
            if r.get("context") != want:
                bad(f"{r['event']}: context {json.dumps(r.get('context'))}, "
                    f"expected {json.dumps(want)}")
            n += 1
    if n < 10:
        bad(f"only {n} syscalls inside queries")


def check_attach(rec, path):
    recs = load(rec)
    path = os.path.realpath(path)
    last_i, writes, free = None, 0, 0
    for r in recs:
        a = r.get("args", {})
        if r["event"] == "tick" and r["kind"] == "entry":
            i = a.get("i")
            if last_i is not None and i != last_i + 1:
                bad(f"tick i={i} after i={last_i}")
            last_i = i
            continue
        if r["event"] != "write" or not is_syscall(r):
            bad(f"neither tick nor write: {json.dumps(r)}")
            continue
        writes += 1
        if not isinstance(a.get("fd"), dict) or a["fd"].get("path") != path:
            bad(f"write: fd {json.dumps(a.get('fd'))}, expected the path {path}")
        if "ret" in a and a["ret"] != a.get("count"):
            bad(f"write: count {a.get('count')} but ret {a['ret']}")
        if "ret" not in a and writes > 1 and r is not recs[-1]:
            bad(f"write without ret in the middle: {json.dumps(r)}")
        if "context" not in r:
            free += 1	# at most one: made before the first tick seen
            if last_i is not None or free > 1:
                bad(f"write without context: {json.dumps(r)}")
            continue
        if r["context"] != {"tick": {"i": last_i}}:
            bad(f"write: context {json.dumps(r['context'])}, last tick i={last_i}")
        elif a.get("count") != len(f"tick {last_i}\n"):
            bad(f"write of count {a.get('count')} in tick i={last_i}")
    if writes < 50:
        bad(f"only {writes} writes recorded in 1 s (one a ms)")


# strace's %file (x86-64), those a dynamic loader and /bin/true may make
FILE_CALLS = {"open", "openat", "openat2", "access", "faccessat", "faccessat2", "stat", "lstat",
              "newfstatat", "statx", "readlink", "readlinkat", "execve", "execveat", "statfs",
              "getcwd", "chdir", "truncate", "unlink", "unlinkat"}


def check_files(rec):
    recs = load(rec)
    events = {r["event"] for r in recs}
    for r in recs:
        if not is_syscall(r) or "context" in r:
            bad(f"not a plain syscall record: {json.dumps(r)}")
    if not events <= FILE_CALLS | {"close"}:
        bad(f"calls outside %file,close: {sorted(events - FILE_CALLS - {'close'})}")
    for e in ("openat", "newfstatat", "close"):
        if e not in events:
            bad(f"no {e} record")
    opened = {}
    for r in recs:
        a = r.get("args", {})
        if r["event"] == "openat" and isinstance(a.get("ret"), dict):
            p = a.get("pathname")
            want = {"fd": a["ret"].get("fd"), "path": os.path.realpath(p)}
            if a["ret"] != want or a.get("dirfd") != "AT_FDCWD" or \
               "O_CLOEXEC" not in a.get("flags", ""):
                bad(f"openat: {json.dumps(a)}")
            opened[os.path.basename(p)] = a["ret"]["fd"]
        if r["event"] == "close" and (not isinstance(a.get("fd"), dict) or a.get("ret") != 0):
            bad(f"close: {json.dumps(a)}")
    for name in ("ld.so.cache", "libc.so.6"):
        if name not in opened:
            bad(f"no openat of {name}: {sorted(opened)}")


def check_noreturn(rec):
    recs = load(rec)
    exits = [r for r in recs if r["event"] == "exit_group"]
    got = sorted(r.get("args", {}).get("status") for r in exits)
    if got != [0, 3]:
        bad(f"exit_group statuses {got}, expected [0, 3]")
    for r in exits:
        if "ret" in r.get("args", {}) or "duration_ns" in r or not is_syscall(r):
            bad(f"exit_group with a ret or duration: {json.dumps(r)}")
    if len({r["pid"] for r in exits}) != 2:
        bad("the two exit_group records are not from two processes")
    if "wait4" not in {r["event"] for r in recs}:
        bad("no wait4 record (%process)")


def check_clock(rec, clock, before, after):
    recs = load(rec, clock)
    if not recs:
        bad("no records")
    for r in recs:
        if not before <= r["ts"] <= after:
            bad(f"{clock}: ts {r['ts']} outside the run [{before}, {after}]")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    check, rec, args = argv[1], argv[2], argv[3:]
    if check == "query":
        check_query(rec, *args)
    elif check == "context":
        check_context(rec, args)
    elif check == "attach":
        check_attach(rec, *args)
    elif check == "files":
        check_files(rec)
    elif check == "noreturn":
        check_noreturn(rec)
    elif check == "clock":
        check_clock(rec, args[0], int(args[1]), int(args[2]))
    else:
        sys.exit(f"unknown check {check!r}")
    for p in problems[:40]:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main(sys.argv)
