#!/usr/bin/env python3
"""tests/integ/maps_check.py: check `ptap maps` output (tracer/space/mapview.h's
formats) against the kernel's view, readelf, a sample's expectations or a
core file's own headers.  Prints what differs on stderr and exits 1; on
success one line on stdout saying what was compared.

  maps_check.py live JSON MAPS            rows == /proc/PID/maps, [vsyscall] included
  maps_check.py expect JSON EXPECT LIBPLUGIN
                                          maps_zoo's EXPECT: biases, data ranges,
                                          build-ids, segments, bss rows (readelf)
  maps_check.py elf JSON FILE...          each FILE's rows: build-id, bias, segments
  maps_check.py rss JSON SMAPS1 SMAPS2    --rss values == smaps (taken before, after)
  maps_check.py text TEXT JSON [pss-moves]
                                          the text form says what the JSON says
  maps_check.py core LIVE CORE-JSON CORE-FILE KIND
                                          a core's table vs the live one just before
                                          (KIND: kernel or gcore)
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys

PAGE = 4096
errors = []


def bad(msg):
    errors.append(msg)


def done(summary):
    if errors:
        for e in errors[:40]:
            print('    ' + e, file=sys.stderr)
        if len(errors) > 40:
            print('    ... and %d more' % (len(errors) - 40), file=sys.stderr)
        sys.exit(1)
    print(summary)
    sys.exit(0)


HEAD_KEYS = ['kind', 'source', 'pid', 'comm', 'exe', 'core', 'signal', 'missing']
MAP_KEYS = ['kind', 'start', 'end', 'size', 'perms', 'pgoff', 'dev', 'inode', 'path', 'deleted',
            'build_id', 'bias', 'segment', 'bss', 'rss_kb', 'pss_kb', 'swap_kb', 'core',
            'core_bytes']
MAP_ALWAYS = MAP_KEYS[:14]
TOTAL_KEYS = ['kind', 'mappings', 'size', 'rss_kb', 'pss_kb', 'swap_kb', 'core_bytes']


def check_order(obj, order, what):
    keys = list(obj)
    unknown = [k for k in keys if k not in order]
    if unknown:
        bad('%s: unknown keys %s' % (what, unknown))
    known = [k for k in keys if k in order]
    if known != sorted(known, key=order.index):
        bad('%s: keys out of order: %s' % (what, known))


def hexnum(s, what):
    if not isinstance(s, str) or not re.fullmatch(r'0x[0-9a-f]+', s):
        bad('%s: %r is not a "0x..." hex string' % (what, s))
        return None
    return int(s, 16)


def load_json(path):
    """The header, rows and totals of a `ptap maps --format json` file, checked
    for shape: one object per line, header first, totals last, keys in order."""
    lines = open(path).read().splitlines()
    objs = []
    for i, line in enumerate(lines):
        try:
            objs.append(json.loads(line, object_pairs_hook=dict))
        except ValueError as e:
            bad('%s:%d: not JSON (%s): %r' % (path, i + 1, e, line[:80]))
            done('')
    if len(objs) < 2 or objs[0].get('kind') != 'maps' or objs[-1].get('kind') != 'total':
        bad('%s: not a maps header, rows, a total line' % path)
        done('')
    head, rows, total = objs[0], objs[1:-1], objs[-1]
    check_order(head, HEAD_KEYS, 'header')
    check_order(total, TOTAL_KEYS, 'total')
    prev_end = 0
    for r in rows:
        w = 'row %s' % r.get('start')
        if r.get('kind') != 'map':
            bad('%s: kind %r, not "map"' % (w, r.get('kind')))
        check_order(r, MAP_KEYS, w)
        missing = [k for k in MAP_ALWAYS if k not in r]
        if missing:
            bad('%s: keys missing: %s' % (w, missing))
        r['_start'] = hexnum(r.get('start'), w + ' start') or 0
        r['_end'] = hexnum(r.get('end'), w + ' end') or 0
        if r.get('bias') is not None:
            r['_bias'] = hexnum(r['bias'], w + ' bias')
        else:
            r['_bias'] = None
        if r['_end'] - r['_start'] != r.get('size'):
            bad('%s: size %s, end - start is %d' % (w, r.get('size'), r['_end'] - r['_start']))
        if r['_start'] < prev_end or r['_start'] >= r['_end']:
            bad('%s: not sorted and disjoint (previous end %#x)' % (w, prev_end))
        prev_end = r['_end']
        if r.get('bss') and r.get('path') is not None:
            bad('%s: a bss row with a path' % w)
    if total.get('mappings') != len(rows):
        bad('total: mappings %s, %d rows' % (total.get('mappings'), len(rows)))
    if total.get('size') != sum(r['size'] for r in rows):
        bad('total: size %s, the rows sum to %d' % (total.get('size'),
                                                     sum(r['size'] for r in rows)))
    for k in ('rss_kb', 'pss_kb', 'swap_kb', 'core_bytes'):
        if any(k in r for r in rows) != (k in total):
            bad('total: %s %s but the rows %s' % (k, 'present' if k in total else 'absent',
                                                   'do not' if k in total else 'do'))
        elif k in total and total[k] != sum(r.get(k, 0) for r in rows):
            bad('total: %s %s, the rows sum to %d' % (k, total[k], sum(r.get(k, 0) for r in rows)))
    return head, rows, total


def fullname(r):
    """A row's name as /proc/PID/maps shows it ("" when anonymous)."""
    if r.get('path') is None:
        return ''
    return r['path'] + (' (deleted)' if r.get('deleted') else '')


def load_maps(path):
    rows = []
    for line in open(path).read().splitlines():
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) ([0-9a-f]+:[0-9a-f]+) (\d+) ?\s*(.*)$',
                     line)
        if not m:
            bad('%s: cannot parse %r' % (path, line))
            continue
        name = m.group(7)
        rows.append({'start': int(m.group(1), 16), 'end': int(m.group(2), 16),
                     'perms': m.group(3), 'pgoff': int(m.group(4), 16), 'dev': m.group(5),
                     'inode': int(m.group(6)), 'name': name})
    return rows


def cmd_live(jpath, mpath):
    head, rows, _ = load_json(jpath)
    kern = load_maps(mpath)
    if head.get('source') not in ('procmap_query', 'proc_maps'):
        bad('header: source %r' % head.get('source'))
    if any(k in head for k in ('core', 'signal', 'missing')):
        bad('header: core keys on a live table: %s' % head)
    pid = head.get('pid')
    if isinstance(pid, int) and os.path.exists('/proc/%d' % pid):
        comm = open('/proc/%d/comm' % pid).read().rstrip('\n')
        exe = os.readlink('/proc/%d/exe' % pid)
        if head.get('comm') != comm or head.get('exe') != exe:
            bad('header: comm %r exe %r, /proc says %r %r' % (head.get('comm'), head.get('exe'),
                                                            comm, exe))
    if len(rows) != len(kern):
        bad('%d rows, /proc/PID/maps has %d' % (len(rows), len(kern)))
    ks = {k['start']: k for k in kern}
    ps = {r['_start']: r for r in rows}
    for s in sorted(set(ks) - set(ps)):
        bad('ptap lacks %#x-%#x %s' % (s, ks[s]['end'], ks[s]['name']))
    for s in sorted(set(ps) - set(ks)):
        bad('ptap has %s-%s %s that the kernel does not' % (ps[s]['start'], ps[s]['end'],
                                                            fullname(ps[s])))
    for s in sorted(set(ks) & set(ps)):
        k, r = ks[s], ps[s]
        w = '%#x-%#x %s' % (k['start'], k['end'], k['name'])
        got = (r['_end'], r.get('perms'), r.get('pgoff'), r.get('dev'), r.get('inode'),
               fullname(r))
        want = (k['end'], k['perms'], k['pgoff'], k['dev'], k['inode'], k['name'])
        for f, g, x in zip(('end', 'perms', 'pgoff', 'dev', 'inode', 'path'), got, want):
            if g != x:
                bad('%s: %s %r, the kernel says %r' % (w, f, g, x))
        if 'core' in r or 'core_bytes' in r:
            bad('%s: core keys on a live row' % w)
    done('live: %d rows equal to /proc/PID/maps' % len(rows))


def readelf_loads(path):
    """PT_LOADs of PATH: (offset, vaddr, filesz, memsz, flags) with flags like "R E"."""
    out = subprocess.run(['readelf', '-lW', path], capture_output=True, text=True,
                         check=True).stdout
    loads = []
    for m in re.finditer(r'^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)'
                         r'\s+0x([0-9a-f]+)\s+([RWE ]+?)\s+0x[0-9a-f]+\s*$', out, re.M):
        loads.append(tuple(int(m.group(i), 16) for i in range(1, 5)) + (m.group(5),))
    if not loads:
        bad('%s: readelf -lW shows no PT_LOAD' % path)
    return loads


def readelf_build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else None


def down(x):
    return x & ~(PAGE - 1)


def up(x):
    return (x + PAGE - 1) & ~(PAGE - 1)


def check_elf_rows(rows, name, path, bias=None):
    """The rows of the ELF file PATH (shown as NAME): build-id, bias (== BIAS when
    given), the segment of each, bss rows after the segments that have one.
    Returns the rows checked."""
    bid = readelf_build_id(path)
    loads = readelf_loads(path)
    mine = [r for r in rows if fullname(r) == name]
    if not mine:
        bad('%s: no rows' % name)
        return []
    if bias is None:
        bias = mine[0]['_bias']
    if bias is None:
        bad('%s: no bias' % name)
        return mine
    for r in mine:
        w = '%s %s-%s' % (name, r['start'], r['end'])
        if r.get('build_id') != bid:
            bad('%s: build_id %r, readelf -n says %r' % (w, r.get('build_id'), bid))
        if r['_bias'] != bias:
            bad('%s: bias %s, expected %#x' % (w, r.get('bias'), bias))
        if r.get('bss'):
            bad('%s: a file row marked bss' % w)
        lo, hi = r['_start'] - bias, r['_end'] - bias
        segs = [k for k, (off, va, fsz, msz, fl) in enumerate(loads)
                if down(va) <= lo and hi <= up(va + fsz)
                and r['pgoff'] - down(off) == lo - down(va)]
        if len(segs) != 1:
            bad('%s: no single PT_LOAD holds link-time %#x-%#x at file offset %#x (%s)'
                % (w, lo, hi, r['pgoff'], segs))
            continue
        k = segs[0]
        if r.get('segment') != k:
            bad('%s: segment %r, readelf -lW says PT_LOAD %d' % (w, r.get('segment'), k))
        if ('x' in r['perms']) != ('E' in loads[k][4]):
            bad('%s: perms %s, PT_LOAD %d has flags %r' % (w, r['perms'], k, loads[k][4]))
    # bss: the anonymous rows right after a segment whose memsz reaches past its file pages
    nbss = 0
    for k, (off, va, fsz, msz, fl) in enumerate(loads):
        if up(va + msz) <= up(va + fsz):
            continue
        nbss += 1
        at = bias + up(va + fsz)
        r = next((r for r in rows if r['_start'] == at), None)
        w = '%s PT_LOAD %d bss at %#x' % (name, k, at)
        if r is None:
            bad('%s: no row starts there' % w)
        elif not r.get('bss') or r.get('segment') != k or r['_bias'] != bias \
                or r.get('path') is not None or r['_end'] < bias + up(va + msz):
            bad('%s: row %s-%s bss=%r segment=%r bias=%r path=%r' % (
                w, r['start'], r['end'], r.get('bss'), r.get('segment'), r.get('bias'),
                r.get('path')))
        mine.append(r) if r is not None else None
    return mine


def cmd_expect(jpath, epath, libplugin):
    _, rows, _ = load_json(jpath)
    checked = set()
    nlib = ndata = 0
    for line in open(epath).read().splitlines():
        kind, rest = line.split(' ', 1)
        if kind == 'lib':
            bias, name = rest.split(' ', 1)
            bias = int(bias, 16)
            copy = name.endswith(' (deleted)') or name.startswith('/memfd:')
            for r in check_elf_rows(rows, name, libplugin if copy else name, bias):
                checked.add(r['_start'])
            nlib += 1
        elif kind == 'data':
            start, end, name = rest.split(' ', 2)
            start, end = int(start, 16), int(end, 16)
            name = '' if name == '-' else name
            r = next((r for r in rows if r['_start'] == start), None)
            if r is None or r['_end'] != end or fullname(r) != name:
                bad('data %#x-%#x %r: ptap shows %s' % (
                    start, end, name, r and (r['start'], r['end'], fullname(r))))
            elif r.get('build_id') is not None or r.get('bias') is not None \
                    or r.get('segment') is not None or r.get('bss'):
                bad('data %s: build_id %r bias %r segment %r bss %r' % (
                    name or 'anonymous', r.get('build_id'), r.get('bias'), r.get('segment'),
                    r.get('bss')))
            ndata += 1
        else:
            bad('%s: unknown line %r' % (epath, line))
    for r in rows:
        if r.get('bss') and r['_start'] not in checked:
            bad('row %s-%s: bss, after no segment of the sample\'s objects that has one'
                % (r['start'], r['end']))
    done('expect: %d objects, %d data ranges as maps_zoo states' % (nlib, ndata))


def cmd_elf(jpath, files):
    _, rows, _ = load_json(jpath)
    n = 0
    for f in files:
        n += len(check_elf_rows(rows, f, f))
    done('elf: %d rows of %d files' % (n, len(files)))


def load_smaps(path):
    out, cur = {}, None
    for line in open(path).read().splitlines():
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) ', line)
        if m:
            cur = out.setdefault(int(m.group(1), 16), {'end': int(m.group(2), 16)})
            continue
        m = re.match(r'(Rss|Pss|Swap):\s+(\d+) kB', line)
        if m and cur is not None:
            cur[m.group(1)] = int(m.group(2))
    return out


def cmd_rss(jpath, s1, s2):
    _, rows, _ = load_json(jpath)
    a, b = load_smaps(s1), load_smaps(s2)
    nshared = 0
    for r in rows:
        w = 'row %s-%s %s' % (r['start'], r['end'], fullname(r))
        x, y = a.get(r['_start']), b.get(r['_start'])
        if x is None or y is None or x['end'] != r['_end']:
            bad('%s: not a range of smaps' % w)
            continue
        for key, sk in (('rss_kb', 'Rss'), ('swap_kb', 'Swap')):
            if r.get(key) != x[sk] or x[sk] != y[sk]:
                bad('%s: %s %r, smaps says %d (then %d)' % (w, key, r.get(key), x[sk], y[sk]))
        # Pss of pages shared with other processes moves as they map them: the
        # reader of smaps is one (ptap maps libc too, cat and python as well).
        # One more sharer (ptap, while it reads) can lower a page's share to
        # half at most (from 1 sharer to 2), so there it lies between half the
        # snapshots' low and their high; private pages: exact.
        pss = r.get('pss_kb')
        if x['Pss'] == x['Rss'] == y['Pss']:
            ok = pss == x['Pss']
        else:
            nshared += 1
            lo, hi = min(x['Pss'], y['Pss']), max(x['Pss'], y['Pss'])
            ok = pss is not None and lo / 2 - 2 <= pss <= min(hi + 2, x['Rss'])
        if not ok:
            bad('%s: pss_kb %r, smaps says %d then %d (rss %d)' % (w, pss, x['Pss'], y['Pss'],
                                                                   x['Rss']))
    if not any(r.get('rss_kb') for r in rows):
        bad('every rss_kb is 0')
    done('rss: %d rows equal to smaps (%d with shared pages)' % (len(rows), nshared))


def kb(n):
    return '%dK' % (n // 1024)


def near(a, b):
    """PSS A and B, taken by two runs, are as near as shared pages allow: a
    sharer more or less (ptap itself, the test's own tools) moves a page's
    share by half at most."""
    return min(a, b) >= max(a, b) // 2 - 2


def cmd_text(tpath, jpath, pss_moves=False):
    """PSS_MOVES: the text and the JSON come from two runs (see cmd_rss)."""
    head, rows, total = load_json(jpath)
    lines = open(tpath).read().splitlines()
    if len(lines) != len(rows) + 3:
        bad('%d text lines for %d rows (expected a header, a column line, the rows, totals)'
            % (len(lines), len(rows)))
        done('')
    is_core = head.get('source') == 'core'
    rss = 'rss_kb' in total
    # The header line
    if is_core:
        # "# ptap maps: core FILE of pid N (COMM) EXE, signal SIGNAME[, truncation]"
        want_h = ['core ' + head['core'], 'pid %s (%s) %s' % (head.get('pid'), head.get('comm'),
                                                             head.get('exe') or '-')]
        if head.get('signal'):
            want_h.append(signal.Signals(head['signal']).name)
        if not lines[0].startswith('# ptap maps: ') or any(x not in lines[0] for x in want_h):
            bad('header line %r does not say %s' % (lines[0], want_h))
    else:
        m = re.fullmatch(r'# ptap maps: pid (\d+) \((.*?)\) (.*?), via (\S+)', lines[0])
        if not m or int(m.group(1)) != head.get('pid') or m.group(2) != head.get('comm') \
                or m.group(3) != (head.get('exe') or '-') or m.group(4) != head.get('source'):
            bad('header line %r vs JSON %s' % (lines[0], head))
    cols = lines[1].split()
    want = ['START-END', 'SIZE', 'PERM', 'PGOFF', 'DEV', 'INODE', 'SEG', 'BIAS', 'BUILD-ID']
    want += ['RSS', 'PSS', 'SWAP'] if rss else []
    if is_core:
        if 'CORE' not in cols:
            bad('column line %r: no CORE' % lines[1])
        cols = [c for c in cols if c != 'CORE']
    if cols != want + ['PATH']:
        bad('column line %r' % lines[1])
    nf = len(want) + is_core
    for line, r in zip(lines[2:-1], rows):
        f = line.split(None, nf)
        path = f[nf] if len(f) > nf else ''
        f = f[:nf]
        w = 'text %r' % line
        core_col = None
        if is_core:
            # CORE is wherever the column line put it
            i = lines[1].split().index('CORE')
            core_col = f.pop(i)
        if len(f) != len(want):
            bad('%s: %d columns' % (w, len(f)))
            continue
        seg = '-' if r.get('segment') is None else 'L%d%s' % (r['segment'],
                                                             '.bss' if r.get('bss') else '')
        exp = ['%016x-%016x' % (r['_start'], r['_end']), kb(r['size']), r['perms'],
               '%08x' % r['pgoff'], r.get('dev') or '-',
               '-' if r.get('inode') is None else str(r['inode']), seg, r.get('bias') or '-']
        for name, g, x in zip(want, f, exp):
            if g != x:
                bad('%s: %s %r, expected %r' % (w, name, g, x))
        bid = r.get('build_id')
        g = f[8]
        if bid is None:
            if g != '-':
                bad('%s: BUILD-ID %r, JSON has none' % (w, g))
        elif not (g == bid or (g.endswith('..') and len(g) >= 10 and bid.startswith(g[:-2]))):
            bad('%s: BUILD-ID %r, JSON has %s' % (w, g, bid))
        if rss:
            for name, g, key in zip(('RSS', 'PSS', 'SWAP'), f[9:12], ('rss_kb', 'pss_kb',
                                                                      'swap_kb')):
                if not re.fullmatch(r'\d+K', g):
                    bad('%s: %s %r' % (w, name, g))
                elif int(g[:-1]) != r[key] and not (key == 'pss_kb' and pss_moves
                                                    and near(int(g[:-1]), r[key])):
                    bad('%s: %s %r, JSON %d' % (w, name, g, r[key]))
        if path != fullname(r):
            bad('%s: PATH %r, expected %r' % (w, path, fullname(r)))
        if is_core:
            want_core = {'all': 'all', 'none': 'none', 'cut': 'cut'}.get(r.get('core'),
                                                                         kb(r.get('core_bytes', 0)))
            if core_col != want_core:
                bad('%s: CORE %r, JSON %r/%r' % (w, core_col, r.get('core'), r.get('core_bytes')))
    t = 'total: %d mappings, %s' % (len(rows), kb(total['size']))
    if rss:
        t += ', rss %dK, pss %dK, swap %dK' % (total['rss_kb'], total['pss_kb'], total['swap_kb'])
        m = re.fullmatch(r'(.*, pss )(\d+)(K, .*)', lines[-1])
        if pss_moves and m and near(int(m.group(2)), total['pss_kb']):
            t = t.replace(', pss %dK' % total['pss_kb'], ', pss %sK' % m.group(2))
    if is_core:
        t += ', %s in the core' % kb(total['core_bytes'])
    if lines[-1] != t:
        bad('totals line %r, expected %r' % (lines[-1], t))
    done('text: %d rows say what the JSON says' % len(rows))


def core_loads(path):
    """(vaddr, memsz, filesz, flags) of each PT_LOAD of the core file PATH."""
    d = open(path, 'rb').read()
    phoff, = struct.unpack_from('<Q', d, 0x20)
    phnum, = struct.unpack_from('<H', d, 0x38)
    out = []
    for i in range(phnum):
        typ, flags, off, va, _, fsz, msz, _ = struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)
        if typ == 1:
            out.append((va, msz, fsz, flags))
    return out


def cmd_core(lpath, cpath, corefile, kind):
    lhead, live, _ = load_json(lpath)
    head, rows, total = load_json(cpath)
    loads = core_loads(corefile)
    if head.get('source') != 'core' or head.get('pid') != lhead.get('pid') \
            or head.get('comm') != lhead.get('comm') or head.get('exe') != lhead.get('exe'):
        bad('header %s vs live %s' % (head, lhead))
    if head.get('core') is None or head.get('missing', 0) != 0:
        bad('header: core %r, missing %r' % (head.get('core'), head.get('missing')))
    if kind == 'kernel' and head.get('signal') != 11:
        bad('header: signal %r, killed by SIGSEGV (11)' % head.get('signal'))
    # gdb leaves out what the kernel marks VM_DONTDUMP: [vvar], [vvar_vclock]; a core's table
    # leaves out the kernel's gate area above user space (its PT_LOAD names no mapping)
    lost = ('[vvar]', '[vvar_vclock]') if kind == 'gcore' else ()
    lost += ('[vsyscall]',)
    want = [r for r in live if fullname(r) not in lost]
    ls = {r['_start']: r for r in want}
    cs = {r['_start']: r for r in rows}
    for s in sorted(set(ls) - set(cs)):
        bad('the core table lacks %s-%s %s' % (ls[s]['start'], ls[s]['end'], fullname(ls[s])))
    for s in sorted(set(cs) - set(ls)):
        bad('the core table has %s-%s %s, the live one does not' % (
            cs[s]['start'], cs[s]['end'], fullname(cs[s])))
    nbid = 0
    for s in sorted(set(ls) & set(cs)):
        l, c = ls[s], cs[s]
        w = '%s-%s %s' % (l['start'], l['end'], fullname(l))
        if c['_end'] != l['_end']:
            bad('%s: ends at %s in the core' % (w, c['end']))
            continue
        if c.get('dev') is not None or c.get('inode') is not None:
            bad('%s: dev %r inode %r in a core' % (w, c.get('dev'), c.get('inode')))
        # what the core's own headers say of the range
        held = 0
        flags = None
        for va, msz, fsz, fl in loads:
            lo, hi = max(va, c['_start']), min(va + msz, c['_end'])
            if lo < hi:
                held += max(0, min(va + fsz, hi) - lo)
                flags = fl
        perm = None if flags is None else (('r' if flags & 4 else '-') + ('w' if flags & 2 else '-')
                                           + ('x' if flags & 1 else '-'))
        # A core's perms are 3 letters: it does not say shared or private.
        if perm is None:
            # only NT_FILE lists it: its PT_LOAD's p_flags, else unknown
            if c['perms'] not in ('???', l['perms'][:3]):
                bad('%s: perms %r, only NT_FILE lists it (live: %s)' % (w, c['perms'],
                                                                       l['perms']))
        elif c['perms'] != perm:
            bad('%s: perms %r, the core\'s PT_LOAD says %s' % (w, c['perms'], perm))
        if perm is not None and perm != l['perms'][:3]:
            if not (kind == 'gcore' and l['perms'][:3] == '---' and perm == 'r--'):
                bad('%s: the core says %s, the live table %s' % (w, perm, l['perms']))
        if c.get('core_bytes') != held:
            bad('%s: core_bytes %r, the PT_LOADs hold %d' % (w, c.get('core_bytes'), held))
        word = 'none' if held == 0 else 'all' if held == c['size'] else None
        if word and c.get('core') != word or not word and c.get('core') in ('all', 'none', 'cut'):
            bad('%s: core %r for %d of %d bytes' % (w, c.get('core'), held, c['size']))
        if l['perms'][:2] == 'rw' and l.get('path') in (None, '[heap]', '[stack]') \
                and held != c['size']:
            bad('%s: anonymous writable data, but the core holds %d of %d bytes'
                % (w, held, c['size']))
        if l.get('build_id') and l['perms'][2] == 'x' and not l.get('deleted') \
                and held not in (0, c['size']) and not (l['pgoff'] == 0 and held == PAGE):
            bad('%s: file text, partly dumped (%d bytes)' % (w, held))
        if l.get('path') and l['path'].startswith('/'):
            if c.get('path') != l['path'] or c.get('deleted') != l['deleted']:
                bad('%s: path %r deleted %r in the core' % (w, c.get('path'), c.get('deleted')))
            if c.get('pgoff') != l['pgoff']:
                bad('%s: pgoff %r in the core, %d live' % (w, c.get('pgoff'), l['pgoff']))
        elif c.get('path') not in (None, l.get('path')):
            bad('%s: path %r in the core' % (w, c.get('path')))
        # build-id, bias, segment (bss: of the file before): where the core
        # holds the file's header page
        owner = l
        if l.get('bss'):
            owner = next((x for x in reversed(live) if x['_start'] < l['_start']
                          and x.get('path')), None) or l
        if owner.get('build_id') is not None:
            first = next((x for x in rows if x.get('path') == owner['path']
                          and x.get('pgoff') == 0 and x.get('deleted') == owner['deleted']), None)
            if first is not None and first.get('core_bytes', 0) > 0:
                nbid += 1
                for f in ('build_id', 'bias', 'segment', 'bss'):
                    if c.get(f) != l.get(f):
                        bad('%s: %s %r in the core, %r live (the core holds its header page)'
                            % (w, f, c.get(f), l.get(f)))
    if head.get('missing', 0) == 0 and total.get('core_bytes') != sum(
            r.get('core_bytes', 0) for r in rows):
        bad('total core_bytes')
    done('core (%s): %d rows equal to the live table, %d with the build-id of a dumped header'
         % (kind, len(set(ls) & set(cs)), nbid))


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmds = {'live': (cmd_live, 2), 'expect': (cmd_expect, 3), 'rss': (cmd_rss, 3),
            'text': (cmd_text, 2), 'core': (cmd_core, 4)}
    if a[0] == 'elf':
        cmd_elf(a[1], a[2:])
    if a[0] == 'text' and len(a) == 4 and a[3] == 'pss-moves':
        cmd_text(a[1], a[2], True)
    fn, n = cmds.get(a[0], (None, -1))
    if fn is None or len(a) != n + 1:
        sys.exit(__doc__)
    fn(*a[1:])


main()
