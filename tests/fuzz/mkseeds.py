#!/usr/bin/env python3
"""tests/fuzz/mkseeds.py: write the seed inputs of the fetch and core corpora
(tests/fuzz/corpus/{fetch,core}/seed-*): fetch programs in fuzz_fetch.c's
input format, and small synthetic core dumps (the layout of
tests/unit/test_core.c's builder).  Run once; the seeds are committed."""
import os
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')

# enum fetch_kind, enum fetch_opcode (probes/fetch.h)
FT = dict(DEFAULT=0, SIGNED=1, UNSIGNED=2, HEX=3, STRING=4, USTRING=5, SYMBOL=6, BITFIELD=7,
          BOOL=8, FLOAT=9, ENUM=10, CHARS=11, STRUCT=12)
OP = dict(REG=1, IMM=2, ADDR=3, ADD_IMM=4, DEREF=5, ADD=6, ALU=7, STACK=8, PIECE=9)


def prog(kind, size, ops, bits=0, bit_off=0, flags=0, tlen=0, composite=0, blob_off=0,
         strmax=64, mem=b'hello\0world, a longer string without end'):
    head = struct.pack('<BBBBBHBHH', FT[kind], size, bits, bit_off, flags, tlen, composite,
                       blob_off, strmax) + bytes([len(ops)])
    body = b''.join(struct.pack('<BBBq', OP[o], s, r, imm) for o, s, r, imm in ops)
    return head + body + mem


def fetch_seeds():
    return {
        'reg-u32': prog('UNSIGNED', 4, [('REG', 0, 5, 0)]),
        'string': prog('STRING', 8, [('REG', 0, 5, 0)]),
        'deref-string': prog('STRING', 8, [('REG', 0, 4, 0), ('DEREF', 8, 0, 8)]),
        'chars': prog('CHARS', 1, [('IMM', 0, 0, 0x10010)], tlen=16),
        'struct': prog('STRUCT', 8, [('ADDR', 0, 0, 0x20)], tlen=24),
        'bitfield': prog('BITFIELD', 4, [('REG', 0, 1, 0), ('DEREF', 4, 0, 0)], bits=3,
                         bit_off=5, flags=1),
        'alu': prog('SIGNED', 8, [('REG', 0, 3, 0), ('IMM', 0, 0, 3), ('ALU', 3, 0, 0),
                                  ('STACK', 1, 0, 0), ('ALU', 4, 0, 0)]),
        'pieces': prog('STRUCT', 8, [('REG', 0, 0, 0), ('PIECE', 8, 0, 0), ('REG', 0, 7, 0),
                                     ('PIECE', 4, 1, 8)], tlen=16, composite=1),
        'enum': prog('ENUM', 4, [('REG', 0, 2, 0), ('DEREF', 4, 0, 0x1000)]),
        'float': prog('FLOAT', 8, [('REG', 0, 17, 0)]),
    }


def note(name, ntype, desc):
    name = name.encode() + b'\0'
    pad = lambda b: b + b'\0' * (-len(b) % 4)
    return struct.pack('<III', len(name), len(desc), ntype) + pad(name) + pad(desc)


def core(loads, notes, etype=4):
    """ELF header, a PT_NOTE, the PT_LOADs (vaddr, memsz, filesz, flags), the
    notes, then from 0x1000 each load's bytes, page-aligned."""
    nph = 1 + len(loads)
    notes_off = 64 + 56 * nph
    eh = b'\x7fELF' + bytes([2, 1, 1]) + b'\0' * 9 + struct.pack(
        '<HHIQQQIHHHHHH', etype, 62, 1, 0, 64, 0, 0, 64, 56, nph, 0, 0, 0)
    phs = struct.pack('<IIQQQQQQ', 4, 0, notes_off, 0, 0, len(notes), 0, 4)
    off, data = 0x1000, b''
    for vaddr, memsz, filesz, flags in loads:
        phs += struct.pack('<IIQQQQQQ', 1, flags, off, vaddr, 0, filesz, memsz, 0x1000)
        chunk = bytes((v ^ (v >> 8) ^ 0x5a) & 0xff for v in range(vaddr, vaddr + filesz))
        data += chunk + b'\0' * (-len(chunk) % 0x1000)
        off += (filesz + 0xfff) & ~0xfff
    head = eh + phs + notes
    return head + b'\0' * (0x1000 - len(head)) + data


def core_seeds():
    exe = 0x555555554000
    stack = 0x7ffd00000000
    prpsinfo = struct.pack('<bcbbQIIiiiii16s80s', 0, b'R', 0, 0, 0, 1000, 1000, 4242, 1, 4242,
                           4242, 0, b'zoo', b'./zoo -x')
    files = [(exe, exe + 0x1000, 0, b'/x/zoo'), (exe + 0x1000, exe + 0x3000, 1, b'/x/zoo'),
             (0x7f0000000000, 0x7f0000002000, 0, b'/lib/libc.so.6 (deleted)')]
    nt_file = struct.pack('<QQ', len(files), 0x1000)
    nt_file += b''.join(struct.pack('<QQQ', s, e, p) for s, e, p, _ in files)
    nt_file += b''.join(n + b'\0' for *_, n in files)
    execfn = stack + 0x100
    auxv = struct.pack('<' + 'Q' * 10, 6, 4096, 31, execfn, 3, exe + 64, 9, exe + 0x1040, 0, 0)
    siginfo = struct.pack('<iii', 11, 0, 1) + b'\0' * 116
    notes = note('CORE', 3, prpsinfo) + note('CORE', 0x46494c45, nt_file) + \
        note('CORE', 6, auxv) + note('CORE', 0x53494749, siginfo)
    loads = [(exe, 0x1000, 0x1000, 4), (exe + 0x1000, 0x2000, 0x1000, 5),
             (stack, 0x1000, 0x1000, 6), (0x7f0000000000, 0x2000, 0, 4)]
    whole = core(loads, notes)
    # AT_EXECFN's string at stack + 0x100
    s = 0x1000 + 0x2000 + 0x100
    whole = whole[:s] + b'/x/zoo\0' + whole[s + 7:]
    return {
        'whole': whole,
        'truncated': whole[:0x2800],
        'no-notes': core(loads[:2], b''),
        'not-core': core(loads[:1], b'', etype=3)[:0x1100],
    }


def main():
    for sub, seeds in (('fetch', fetch_seeds()), ('core', core_seeds())):
        os.makedirs(os.path.join(OUT, sub), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(OUT, sub, 'seed-' + name), 'wb') as f:
                f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main())
