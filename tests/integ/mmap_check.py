#!/usr/bin/env python3
"""tests/integ/mmap_check.py: check the JSON records of `ptap record --events
mmap` against what the traced process's maps really were.

usage: mmap_check.py CHECK REC [ARGS...]

REC starts with the clock line, then one JSON object per line.  The map
table is replayed from the records (the "map" ones at exec or attach, then
mmap with MAP_FIXED semantics, munmap, mprotect, mremap) and compared with
/proc/PID/maps text the process saved, file mappings only (brk is not a map
syscall).  Exits 1, with one line per problem on stderr, when something is
wrong; else 0.

  launch REC MAPS LIB EXE
      dlopen_host EXE LIB 2 under -x LIB -e 'plugin_handle %di:string' with
      fd 4 to MAPS: "map" records for EXE and its ELF interpreter, with
      their build-ids; at each load's first hit the replayed table equals
      MAPS; LIB's mmaps (prot r--, r-x, r--, rw-, then an mprotect r--) carry
      its build-id; each dlclose unmaps exactly the range the first mmap of
      that load reserved; each hit is plugin_handle's file offset in LIB's
      r-x mapping.
  ops REC STATED EXE
      mmap_ops (-e 'step i') with fd 3 to STATED: each stated call is the
      record after step I's hit (I = its line number), with the same values;
      EXE's mapping has EXE's build-id, dev and inode; the deleted file's
      two mappings name one file.
  attach REC MAPS LIB N
      attach_load dlopen N LIB attached (-p) with -e plugin_handle, MAPS its
      maps before the attach: the "map" records are MAPS; each of the N
      loads comes as mmap records (the r_brk resync) with LIB's build-id;
      the hits are 3 per load, each in LIB's r-x mapping at plugin_handle's
      offset; LIB is unmapped at the end.
"""
import json
import os
import re
import subprocess
import sys

problems = []


def bad(msg):
    problems.append(msg)


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    try:
        recs = [json.loads(line) for line in lines]
    except json.JSONDecodeError as e:
        bad(f"{path}: not JSON lines: {e}")
        return []
    if not recs or recs[0].get("kind") != "clock":
        bad(f"{path}: no clock line first")
        return []
    for r in recs[1:]:
        if r.get("kind") == "mmap":
            a = r.get("args", {})
            if r["event"] not in ("map", "mmap", "munmap", "mprotect", "mremap"):
                bad(f"mmap record of event {r['event']!r}")
            if a.get("addr") != r.get("addr"):
                bad(f"record addr {r.get('addr')} is not args.addr {a.get('addr')}: {r}")
    return recs[1:]


def readelf(*args):
    return subprocess.run(["readelf", *args], check=True, capture_output=True,
                          text=True).stdout


def build_id(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", readelf("-n", path))
    return m.group(1) if m else None


def interp(path):
    m = re.search(r"Requesting program interpreter: ([^\]]+)\]", readelf("-lW", path))
    return m.group(1) if m else None


def file_offset(path, sym):
    """The file offset of SYM's code in PATH, through the PT_LOAD holding it."""
    vaddr = None
    for line in readelf("-sW", path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == sym and f[3] == "FUNC":
            vaddr = int(f[1], 16)
    for line in readelf("-lW", path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and vaddr is not None:
            off, va, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            if va <= vaddr < va + memsz:
                return vaddr - va + off
    bad(f"{sym} not found in {path}")
    return -1


# ---- the replayed table -----------------------------------------------------

def entry_of(r):
    a = r["args"]
    start = int(a["addr"], 16)
    return {"start": start, "end": start + a["len"], "pgoff": a["pgoff"],
            "prot": a["prot"], "shared": "MAP_SHARED" in a["flags"],
            "file": a.get("file"), "dev": a.get("dev"), "inode": a.get("inode", 0)}


def cut(table, lo, hi):
    """TABLE without [LO, HI): entries split or trimmed (a right piece's pgoff advances)."""
    out = []
    for e in table:
        if e["end"] <= lo or e["start"] >= hi:
            out.append(e)
            continue
        if e["start"] < lo:
            out.append(dict(e, end=lo))
        if e["end"] > hi:
            out.append(dict(e, start=hi, pgoff=e["pgoff"] + hi - e["start"]))
    return out


def inside(table, lo, hi):
    """The pieces of TABLE within [LO, HI)."""
    out = []
    for e in table:
        s, t = max(e["start"], lo), min(e["end"], hi)
        if s < t:
            out.append(dict(e, start=s, end=t, pgoff=e["pgoff"] + s - e["start"]))
    return out


def apply(table, r):
    a = r["args"]
    ev = r["event"]
    if ev in ("map", "mmap"):
        e = entry_of(r)
        table = cut(table, e["start"], e["end"]) + [e]
    elif ev == "munmap":
        lo = int(a["addr"], 16)
        table = cut(table, lo, lo + a["len"])
    elif ev == "mprotect":
        lo = int(a["addr"], 16)
        hi = lo + a["len"]
        table = cut(table, lo, hi) + [dict(e, prot=a["prot"]) for e in inside(table, lo, hi)]
    elif ev == "mremap":
        old, new = int(a["old_addr"], 16), int(a["addr"], 16)
        moved = sorted(inside(table, old, old + a["old_len"]), key=lambda e: e["start"])
        table = cut(table, old, old + a["old_len"])
        moved = [dict(e, start=e["start"] - old + new, end=e["end"] - old + new) for e in moved]
        if moved:
            moved[-1]["end"] = new + a["len"]
        table = cut(table, new, new + a["len"]) + moved
    return sorted(table, key=lambda e: e["start"])


def merged(table):
    """File mappings only, adjacent pieces of one file merged as the kernel shows them.
    ptap's own region shared with its agent (a memfd) is not the program's: as its
    anonymous scratch pages, it is no map event."""
    out = []
    for e in sorted((e for e in table if e["inode"] and
                     not (e["file"] or "").startswith("/memfd:ptap-agent")),
                    key=lambda e: e["start"]):
        p = out[-1] if out else None
        if p and p["end"] == e["start"] and p["inode"] == e["inode"] and p["dev"] == e["dev"] \
                and p["prot"] == e["prot"] and p["shared"] == e["shared"] \
                and p["pgoff"] + p["end"] - p["start"] == e["pgoff"]:
            p["end"] = e["end"]
        else:
            out.append(dict(e))
    return [(hex(e["start"]), hex(e["end"]), e["pgoff"], e["prot"], e["shared"], e["dev"],
             e["inode"], e["file"]) for e in out]


def parse_maps(lines):
    table = []
    for line in lines:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$", line)
        if not m:
            bad(f"maps line {line!r}")
            continue
        table.append({"start": int(m[1], 16), "end": int(m[2], 16), "pgoff": int(m[4], 16),
                      "prot": m[3][:3], "shared": m[3][3] == "s", "dev": m[5],
                      "inode": int(m[6]), "file": m[7] or None})
    return table


def maps_loads(path):
    """MAPS as dlopen_host wrote it: a table after each "# load N" line."""
    loads = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("# load "):
                loads.append([])
            elif loads:
                loads[-1].append(line)
    return [parse_maps(lines) for lines in loads]


def same_table(what, replayed, maps):
    want, got = merged(maps), merged(replayed)
    if want != got:
        bad(f"{what}: the replayed table differs from /proc/PID/maps:\n  maps:     " +
            "\n            ".join(map(str, want)) + "\n  replayed: " +
            "\n            ".join(map(str, got)))


def check_hit(what, table, hit, lib, off):
    addr = int(hit["addr"], 16)
    for e in table:
        if e["start"] <= addr < e["end"]:
            if e["file"] != lib or e["prot"] != "r-x":
                bad(f"{what}: hit at {hex(addr)} is in {e}, not {lib} r-x")
            elif addr - e["start"] + e["pgoff"] != off:
                bad(f"{what}: hit at {hex(addr)}: file offset "
                    f"{hex(addr - e['start'] + e['pgoff'])}, plugin_handle's is {hex(off)}")
            return
    bad(f"{what}: hit at {hex(addr)} is in no mapping")


def lib_records(recs, lib):
    return [r for r in recs if r.get("kind") == "mmap" and r["args"].get("file") == lib]


# ---- the checks -------------------------------------------------------------

def check_launch(rec, maps, lib, exe):
    recs = load(rec)
    loads = maps_loads(maps)
    if len(loads) != 2:
        bad(f"{maps}: {len(loads)} loads, expected 2")
    lib, exe = os.path.realpath(lib), os.path.realpath(exe)
    off = file_offset(lib, "plugin_handle")
    bid = build_id(lib)
    if not bid:
        bad(f"{lib} has no build-id")
    # the map records at exec: first, the executable's and the interpreter's among them
    maps0 = [r for r in recs if r.get("event") == "map"]
    if not maps0 or recs[:len(maps0)] != maps0:
        bad("the map records are not the first ones")
    ld = os.path.realpath(interp(exe))
    for path in (exe, ld):
        mine = [r for r in maps0 if r["args"].get("file") == path]
        if not mine:
            bad(f"no map record for {path}")
        for r in mine:
            if r["args"].get("build_id") != build_id(path):
                bad(f"map of {path}: build_id {r['args'].get('build_id')}, "
                    f"readelf says {build_id(path)}")
            if r["args"]["flags"] != "MAP_PRIVATE":
                bad(f"map of {path}: flags {r['args']['flags']}")
        if not any(r["args"]["prot"] == "r-x" for r in mine):
            bad(f"no r-x map record for {path}")
    # replay; compare at each load's first hit
    table, hits, load_no = [], [], 0
    for r in recs:
        if r.get("kind") == "mmap":
            table = apply(table, r)
        elif r.get("event") == "plugin_handle":
            hits.append(r)
            check_hit(f"hit {len(hits)}", table, r, lib, off)
            if r["args"].get("arg1", "").endswith("call0") and load_no < len(loads):
                same_table(f"load {load_no}", table, loads[load_no])
                load_no += 1
    if len(hits) != 4:
        bad(f"{len(hits)} plugin_handle hits, expected 4")
    if load_no != 2:
        bad(f"{load_no} loads seen, expected 2")
    # LIB's own records, per load: 4 mmaps, an mprotect, then a munmap of the reservation
    lr = [r for r in recs if r.get("kind") == "mmap" and r["event"] != "map"]
    i = 0
    for n in range(2):
        mm = []
        while i < len(lr) and len(mm) < 4:
            if lr[i]["event"] == "mmap" and lr[i]["args"].get("file") == lib:
                mm.append(lr[i])
            i += 1
        prots = [r["args"]["prot"] for r in mm]
        if prots != ["r--", "r-x", "r--", "rw-"]:
            bad(f"load {n}: {lib} mapped with prot {prots}")
        for r in mm:
            if r["args"].get("build_id") != bid:
                bad(f"load {n}: {lib} mmap build_id {r['args'].get('build_id')}, "
                    f"readelf says {bid}")
            if "MAP_DENYWRITE" not in r["args"]["flags"] or "MAP_PRIVATE" not in r["args"]["flags"]:
                bad(f"load {n}: flags {r['args']['flags']}")
        if not mm:
            continue
        lo = int(mm[0]["args"]["addr"], 16)
        hi = lo + mm[0]["args"]["len"]
        if any("MAP_FIXED" not in r["args"]["flags"] for r in mm[1:]) or \
                any(not lo <= int(r["args"]["addr"], 16) < hi for r in mm[1:]):
            bad(f"load {n}: segments not MAP_FIXED within the reservation [{hex(lo)}, {hex(hi)})")
        rest = lr[i:]
        prot = next((r for r in rest if r["event"] == "mprotect" and
                     lo <= int(r["args"]["addr"], 16) < hi), None)
        if not prot or prot["args"]["prot"] != "r--":
            bad(f"load {n}: no mprotect r-- (RELRO) in {lib}")
        unmap = next((r for r in rest if r["event"] == "munmap" and
                      lo <= int(r["args"]["addr"], 16) < hi), None)
        if not unmap or (int(unmap["args"]["addr"], 16), unmap["args"]["len"]) != (lo, hi - lo):
            bad(f"load {n}: dlclose's munmap {unmap and unmap['args']}, "
                f"expected the reservation {hex(lo)} len {hi - lo}")
        else:
            i = lr.index(unmap) + 1
    if any(e["file"] == lib for e in table):
        bad(f"{lib} still mapped at the end of the replay")


def check_ops(rec, stated, exe):
    recs = load(rec)
    exe = os.path.realpath(exe)
    with open(stated, encoding="utf-8") as f:
        lines = f.read().splitlines()
    steps = {r["args"]["i"]: k for k, r in enumerate(recs) if r.get("event") == "step"}
    files = {}
    for i, line in enumerate(lines, 1):
        f = line.split(" ", 6) if line.startswith("mmap ") else line.split()
        k = steps.get(i)
        nxt = recs[k + 1] if k is not None and k + 1 < len(recs) else None
        if not nxt or nxt.get("kind") != "mmap" or nxt["event"] != f[0]:
            bad(f"stated {line!r}: the record after step {i} is {nxt}")
            continue
        a = nxt["args"]
        if f[0] == "mmap":
            want = {"addr": f[1], "len": int(f[2]), "pgoff": int(f[3]), "prot": f[4],
                    "flags": f[5]}
            got = {k: a.get(k) for k in want}
            if got != want:
                bad(f"stated {line!r}: recorded {got}")
            if f[6] == "-":
                if "file" in a or "inode" in a:
                    bad(f"stated {line!r}: anonymous, recorded {a}")
                continue
            if a.get("file") != f[6]:
                bad(f"stated {line!r}: file {a.get('file')!r}")
            files.setdefault(f[6].removesuffix(" (deleted)"), []).append(a)
            if f[6] == exe:
                st = os.stat(exe)
                dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}"
                if (a.get("dev"), a.get("inode"), a.get("build_id")) != \
                        (dev, st.st_ino, build_id(exe)):
                    bad(f"{exe}: dev {a.get('dev')} inode {a.get('inode')} build_id "
                        f"{a.get('build_id')}; stat and readelf say {dev} {st.st_ino} "
                        f"{build_id(exe)}")
            elif "build_id" in a:
                bad(f"stated {line!r}: a build_id for a file that is not ELF")
        elif f[0] == "munmap":
            if (a.get("addr"), a.get("len")) != (f[1], int(f[2])):
                bad(f"stated {line!r}: recorded {a}")
        elif f[0] == "mprotect":
            if (a.get("addr"), a.get("len"), a.get("prot")) != (f[1], int(f[2]), f[3]):
                bad(f"stated {line!r}: recorded {a}")
        elif f[0] == "mremap":
            got = (a.get("old_addr"), a.get("old_len"), a.get("addr"), a.get("len"))
            if got != (f[1], int(f[2]), f[3], int(f[4])):
                bad(f"stated {line!r}: recorded {got}")
    shared = [v for k, v in files.items() if k != exe]
    if len(shared) != 1 or len(shared[0]) != 2 or \
            len({(a.get("dev"), a.get("inode")) for a in shared[0]}) != 1:
        bad(f"the file mapped twice (then deleted): {shared}")
    if len(lines) != 13:
        bad(f"{stated}: {len(lines)} calls stated, expected 13")


def check_attach(rec, maps, lib, n):
    recs = load(rec)
    lib = os.path.realpath(lib)
    n = int(n)
    off = file_offset(lib, "plugin_handle")
    bid = build_id(lib)
    with open(maps, encoding="utf-8") as f:
        before = parse_maps(f.read().splitlines())
    maps0 = [r for r in recs if r.get("event") == "map"]
    if not maps0 or recs[:len(maps0)] != maps0:
        bad("the map records are not the first ones")
    table = []
    for r in maps0:
        table = apply(table, r)
    same_table("at the attach", table, before)
    if any(r["args"].get("file") == lib for r in maps0):
        bad(f"{lib} mapped before the attach")
    for r in maps0:
        a = r["args"]
        if a.get("inode") and a.get("file", "").endswith(".so.6") and not a.get("build_id"):
            bad(f"no build_id for {a.get('file')}")
    hits, loads, mapped = [], 0, False
    for r in recs[len(maps0):]:
        if r.get("kind") == "mmap":
            if r["event"] == "map":
                bad(f"a map record after the attach: {r}")
            table = apply(table, r)
            now = any(e["file"] == lib for e in table)
            loads += now and not mapped
            mapped = now
            if r["args"].get("file") == lib and r["args"].get("build_id") != bid:
                bad(f"{lib}: build_id {r['args'].get('build_id')}, readelf says {bid}")
        elif r.get("event") == "plugin_handle":
            hits.append(r)
            check_hit(f"hit {len(hits)}", table, r, lib, off)
    if loads != n:
        bad(f"{lib} mapped {loads} times by the records, expected {n}")
    if len(hits) != 3 * n:
        bad(f"{len(hits)} plugin_handle hits, expected {3 * n}")
    if mapped:
        bad(f"{lib} still mapped at the end of the replay")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    check, rec, args = argv[1], argv[2], argv[3:]
    if check == "launch":
        check_launch(rec, *args)
    elif check == "ops":
        check_ops(rec, *args)
    elif check == "attach":
        check_attach(rec, *args)
    else:
        sys.exit(f"unknown check {check!r}")
    for p in problems:
        print(f"mmap_check {check}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main(sys.argv)
