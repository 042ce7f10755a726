# samples/gdb_expect.py: what gdb sees at ptap's probe sites, printed in
# ptap's normalized text form, to check the samples' fd-3 statements against
# an independent reader of the same DWARF.  Run inside gdb:
#
#   GDBX_PROBES=FILE GDBX_OUT=OUT [GDBX_PLACE=entry|prologue|inline|inline-at] \
#       gdb -batch -x samples/gdb_expect.py -ex 'run [ARGS] 3>STATED' BINARY
#
# FILE holds one ptap probe per line ("[EVENT=]POINT ARG ..."; POINT is FUNC
# or FUNC:RELLINE; ARG is [NAME=]EXPR[:TYPE], $params or $vars).  FUNC
# breaks at the entry (GDBX_PLACE=entry, optimized code), after gdb's
# prologue analysis (prologue, -O0 code), or where gdb puts a breakpoint on
# an inlined function (inline).  GDBX_PLACE=inline-at takes POINT as
# FUNC@0xADDR,0xADDR...: the entry pcs of FUNC's inlined instances, where
# gdb itself would show the caller; plain names are then looked up in
# FUNC's scope at the pc.  GDBX_DEBUG_DIR: gdb's debug-file-directory
# (ptap's --debuginfo-dir).  At each hit the probe's line goes to OUT, formatted by the
# rules ptap follows (issue 3); then compare OUT with STATED event by event.
import os
import re
import struct

import gdb

STRMAX = 256


def esc(bs):
    """Bytes quoted as ptap prints a string: C escapes, UTF-8 kept."""
    out = b''
    for c in bs:
        if c in (0x22, 0x5C):
            out += b'\\' + bytes([c])
        elif c in (0x0A, 0x09, 0x0D):
            out += {0x0A: b'\\n', 0x09: b'\\t', 0x0D: b'\\r'}[c]
        elif c < 0x20 or c == 0x7F:
            out += b'\\x%02x' % c
        else:
            out += bytes([c])
    return '"' + out.decode('utf-8', 'surrogateescape') + '"'


def shortest(x, single):
    """The shortest %g of X that reads back to X (as a float when SINGLE)."""
    for prec in range(1, 18):
        s = '%.*g' % (prec, x)
        back = float(s)
        if single:
            back = struct.unpack('f', struct.pack('f', back))[0]
        if back == x or (x != x and back != back):
            return s
    return repr(x)


def base(t):
    return t.strip_typedefs().unqualified().strip_typedefs()


def is_char(t):
    t = base(t)
    return t.code == gdb.TYPE_CODE_INT and t.sizeof == 1 and t.name in (
        'char', 'signed char', 'unsigned char')


def read_cstr(addr, limit):
    inf = gdb.selected_inferior()
    data = b''
    while len(data) < limit:
        chunk = bytes(inf.read_memory(addr + len(data), 1))
        if chunk == b'\0':
            return data, False
        data += chunk
    return data, True


def as_int(v):
    return int(v.cast(gdb.lookup_type('long long')) if base(v.type).code == gdb.TYPE_CODE_BOOL
               else v)


def hexptr(v):
    return '0x%x' % (int(v.cast(gdb.lookup_type('unsigned long'))) & (2 ** 64 - 1))


def chars(v):
    t = base(v.type)
    n = t.sizeof
    raw = bytes(gdb.selected_inferior().read_memory(v.address, n)) if v.address is not None \
        else bytes(int(v[i]) & 0xFF for i in range(n))
    raw = raw.split(b'\0', 1)[0]
    return esc(raw)


def scalar(v, member=False):
    """V formatted by its DWARF type; MEMBER: as a struct member (one level)."""
    t = base(v.type)
    c = t.code
    if c == gdb.TYPE_CODE_BOOL:
        return 'true' if int(v) else 'false'
    if c == gdb.TYPE_CODE_INT or c == gdb.TYPE_CODE_CHAR:
        return str(int(v))
    if c == gdb.TYPE_CODE_FLT:
        return shortest(float(v), t.sizeof == 4)
    if c == gdb.TYPE_CODE_ENUM:
        for f in t.fields():
            if f.enumval == int(v):
                return f.name
        return str(int(v))
    if c == gdb.TYPE_CODE_PTR:
        if not member and is_char(t.target()):
            if int(v) == 0:
                return 'NULL'
            data, trunc = read_cstr(int(v), STRMAX)
            return esc(data) + ('...' if trunc else '')
        return hexptr(v)
    if c == gdb.TYPE_CODE_ARRAY:
        if is_char(t.target()):
            return chars(v)
        return '{...}'
    if c in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        if member:
            return '{...}'
        parts = []
        for f in t.fields():
            parts.append('%s=%s' % (f.name, scalar(v[f.name], True)))
        return '{' + ', '.join(parts) + '}'
    return '(gdb: type code %d)' % c


def typed(v, ty):
    """V with an explicit perf TYPE."""
    if ty == 'string':
        t = base(v.type)
        if t.code == gdb.TYPE_CODE_ARRAY:
            return chars(v)
        data, trunc = read_cstr(int(v), STRMAX)
        return esc(data) + ('...' if trunc else '')
    m = re.fullmatch(r'([sux])(8|16|32|64)', ty)
    if not m:
        return '(gdb_expect: type %s)' % ty
    bits = int(m.group(2))
    n = as_int(v) & ((1 << bits) - 1)
    if m.group(1) == 'u':
        return str(n)
    if m.group(1) == 'x':
        return '0x%x' % n
    return str(n - (1 << bits) if n >> (bits - 1) else n)


def gdb_expr(expr):
    """ptap's var@file.c is gdb's 'file.c'::var."""
    m = re.fullmatch(r'(\w+)@([\w./-]+)', expr)
    return "'%s'::%s" % (m.group(2), m.group(1)) if m else expr


def func_block(pc, func):
    """FUNC's block holding PC, or else the first one in the 64 bytes after
    it: GCC's entry pc of an inlined instance can precede the instance's
    address ranges (an empty range at the entry pc)."""
    for a in range(pc, pc + 64):
        try:
            b = gdb.block_for_pc(a)
        except RuntimeError:
            continue
        while b is not None and not (b.function and b.function.name == func):
            b = b.superblock
        if b is not None:
            return b
    return None


def lookup(expr, func):
    """EXPR, a plain name, in FUNC's scope, read at the frame's pc (FUNC may
    be an inlined instance that gdb hides at its first instruction); else
    EXPR evaluated."""
    frame = gdb.selected_frame()
    if func and re.fullmatch(r'\w+', expr):
        b = func_block(frame.pc(), func)
        if b is not None:
            sym = gdb.lookup_symbol(expr, b)[0]
            if sym is not None:
                return sym.value(frame)
    return gdb.parse_and_eval(gdb_expr(expr))


def fmt(name, expr, ty, func=None):
    try:
        v = lookup(expr, func)
        if v.is_optimized_out:
            return '%s=(gdb: <optimized out>)' % name
        return '%s=%s' % (name, typed(v, ty) if ty else scalar(v))
    except gdb.error as e:
        return '%s=(gdb: %s)' % (name, e)


def frame_vars(params_only):
    """Parameters, then locals from the function's scope inward."""
    frame = gdb.selected_frame()
    blocks = []
    b = frame.block()
    while b is not None:
        blocks.append(b)
        if b.function is not None:
            break
        b = b.superblock
    blocks.reverse()
    params = [s for s in blocks[0] if s.is_argument]
    out = [(s.name, s.name, None) for s in params]
    if params_only:
        return out
    for b in blocks:
        for s in b:
            if s.is_variable and not s.is_argument and s.addr_class != gdb.SYMBOL_LOC_STATIC:
                out.append((s.name, s.name, None))
    return out


class Probe(gdb.Breakpoint):
    def __init__(self, line, out, place):
        toks = line.split()
        point = toks[0]
        self.event = None
        if '=' in point:
            self.event, point = point.split('=', 1)
        func = re.split(r'[:+@]', point)[0]
        self.event = self.event or func
        self.func = None
        if place == 'inline-at':
            # FUNC@0xADDR: the entry pc of one of FUNC's inlined instances
            self.func, addr = point.split('@')
            point = func = self.func
        self.args = toks[1:]
        self.out = out
        if ':' in point:
            sym = gdb.lookup_global_symbol(func) or gdb.lookup_static_symbol(func)
            rel = int(point.split(':', 1)[1])
            spec = '%s:%d' % (sym.symtab.filename, sym.line + rel)
        elif place == 'entry':
            spec = '*' + func
        elif place == 'inline-at':
            # relative to the ELF symbol, so that gdb relocates it (PIE)
            m = re.match(r'(\w+)(?: \+ (\d+))? in ',
                         gdb.execute('info symbol ' + addr, to_string=True))
            spec = '*((char *)%s + %s)' % (m.group(1), m.group(2) or 0)
        else:
            spec = func
        super().__init__(spec, internal=False)

    def stop(self):
        parts = []
        for a in self.args:
            if a in ('$params', '$vars'):
                for name, expr, ty in frame_vars(a == '$params'):
                    parts.append(fmt(name, expr, ty))
                continue
            name = None
            m = re.fullmatch(r'([A-Za-z_]\w*)=(.*)', a)
            if m:
                name, a = m.group(1), m.group(2)
            ty = None
            m = re.fullmatch(r'(.*):(\w+)', a)
            if m and not a.endswith('.c'):
                a, ty = m.group(1), m.group(2)
            parts.append(fmt(name or a, a, ty, self.func))
        self.out.write('%s: %s\n' % (self.event, ' '.join(parts)) if parts
                       else '%s:\n' % self.event)
        self.out.flush()
        return False


def main():
    out = open(os.environ['GDBX_OUT'], 'w', encoding='utf-8', errors='surrogateescape')
    place = os.environ.get('GDBX_PLACE', 'prologue')
    gdb.execute('set pagination off')
    gdb.execute('set breakpoint pending on')	# probes in libraries
    if os.environ.get('GDBX_DEBUG_DIR'):
        gdb.execute('set debug-file-directory ' + os.environ['GDBX_DEBUG_DIR'])
    with open(os.environ['GDBX_PROBES']) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            if place != 'inline-at':
                Probe(line, out, place)
                continue
            point, args = (line.split(None, 1) + [''])[:2]
            func, addrs = point.split('@')
            for addr in addrs.split(','):
                Probe('%s@%s %s' % (func, addr, args), out, place)


main()
