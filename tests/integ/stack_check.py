#!/usr/bin/env python3
"""stack_check.py PTAP-JSON GDB-TXT [HITS]: do the stacks of ptap's records
(record -g --format json) equal gdb's backtraces (samples/gdb_stacks.py) at
the same hits, frame by frame up to main?  HITS: a comma list of 1-based hit
numbers to compare (default: all).  Names are compared without glibc's
internal prefixes (__GI_, leading underscores): gdb may show an alias of the
same address.  Prints both sides of a difference; exit 0 when none."""
import json
import os
import sys


def norm(name):
    if name.startswith("__GI_"):
        name = name[5:]
    return name.lstrip("_")


def ptap_stacks(path):
    stacks = []
    for line in open(path):
        rec = json.loads(line)
        if rec.get("kind") not in ("entry", "return"):
            continue
        frames = []
        for f in rec["stack"]:
            s = norm(f["func"] or "[unknown]")
            if "file" in f:
                s += " %s:%d" % (os.path.basename(f["file"]), f["line"])
            if f.get("inlined"):
                s += " inlined"
            frames.append(s)
            if f["func"] == "main":
                break
        stacks.append(frames)
    return stacks


def gdb_stacks(path):
    stacks, cur = [], []
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            stacks.append(cur)
            cur = []
            continue
        name, _, rest = line.partition(" ")
        cur.append((norm(name) + " " + rest).rstrip())
    return stacks


def main():
    ptap, gdb = ptap_stacks(sys.argv[1]), gdb_stacks(sys.argv[2])
    hits = [int(h) for h in sys.argv[3].split(",")] if len(sys.argv) > 3 else None
    if len(ptap) != len(gdb):
        print("hits: ptap %d, gdb %d" % (len(ptap), len(gdb)))
        return 1
    if not ptap:
        print("no hits")
        return 1
    bad = 0
    for i, (p, g) in enumerate(zip(ptap, gdb), 1):
        if hits and i not in hits:
            continue
        if p != g:
            bad += 1
            print("hit %d differs:\n  ptap: %s\n  gdb:  %s" % (i, " | ".join(p), " | ".join(g)))
    if not bad:
        print("%d stacks agree" % (len(hits) if hits else len(ptap)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
