#!/usr/bin/env python3
"""tests/integ/code_check.py FUNC PID...: FUNC's first 16 bytes in each PID's
memory equal those of the executable file it is mapped from, found through
nm (-D for a stripped program), readelf and /proc/PID/maps, not through
ptap.  Prints what differs on stderr and exits 1; on success one line on
stdout."""
import os
import subprocess
import sys

LEN = 16


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def file_offset(path, func):
    """FUNC's offset in PATH: its symbol's address in the PT_LOAD that holds it."""
    # .symtab, else (a stripped program) .dynsym
    syms = [line.split() for line in (run("nm", path) + run("nm", "-D", path)).splitlines()]
    vaddr = next(int(f[0], 16) for f in syms if len(f) == 3 and f[2] == func)
    for f in (line.split() for line in run("readelf", "-lW", path).splitlines()):
        if f and f[0] == "LOAD" and int(f[2], 16) <= vaddr < int(f[2], 16) + int(f[4], 16):
            return vaddr - int(f[2], 16) + int(f[1], 16)
    raise SystemExit(f"{func}: in no PT_LOAD of {path}")


def main():
    func, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
    offsets, bad = {}, 0
    for pid in pids:
        path = os.readlink(f"/proc/{pid}/exe")
        if path not in offsets:
            offsets[path] = file_offset(path, func)
        off = offsets[path]
        addr = None
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            pgoff = int(f[2], 16)
            if len(f) > 5 and f[5] == path and "x" in f[1] and pgoff <= off < pgoff + hi - lo:
                addr = lo + off - pgoff
        if addr is None:
            print(f"pid {pid}: {func} is not mapped executable", file=sys.stderr)
            bad = 1
            continue
        with open(path, "rb") as fil, open(f"/proc/{pid}/mem", "rb") as mem:
            fil.seek(off)
            want = fil.read(LEN)
            mem.seek(addr)
            now = mem.read(LEN)
        if now != want:
            print(f"pid {pid}: {func} at {addr:#x}: {now.hex()} in memory, "
                  f"{want.hex()} in {path}", file=sys.stderr)
            bad = 1
    if not bad:
        print(f"{func}: the file's bytes in pids {' '.join(map(str, pids))}")
    return bad


sys.exit(main())
