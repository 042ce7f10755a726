# DWARF corners where a careless reader prints a wrong value
# (samples/dwarf_edges.c states each value on fd 3).

# edges_case VARIANT EVENT PROBE: PROBE's records equal EVENT's statements.
edges_case() {
	run_ptap record -o "$TMP/rec" -e "$3" -- "$S/dwarf_edges-$1" 3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_events "$TMP/stated" "$TMP/got" "$2"
	expect_eq "records ($1 $2)" 2 "$(wc -l <"$TMP/got")"
}

# Members of an anonymous struct and union: bitfields at the right bits.
test_edges_anonymous_members() {
	local v
	for v in O0 O2; do
		edges_case "$v" edge_anon 'edge_anon r->id r->lo r->hi r->mid r->word'
	done
}

# A flexible char array (no length in DWARF) is the C string stored there.
test_edges_flexible_array() {
	local v
	for v in O0 O2; do
		edges_case "$v" edge_flex 'edge_flex m->len m->name'
	done
}

# A block-scope `extern int edge_total;` is the global, not an optimized-out local.
test_edges_block_extern() {
	local v
	for v in O0 O2; do
		edges_case "$v" edge_extern 'edge_extern edge_total a'
	done
}

# $vars where an inner x hides the outer one: the inner x's value.
test_edges_shadowed_vars() {
	local a b
	a=$(grep -n 'sink(x);.*inner x here' samples/dwarf_edges.c | cut -d: -f1)
	b=$(grep -n '^PROBED int edge_shadow' samples/dwarf_edges.c | cut -d: -f1)
	edges_case O0 edge_shadow "edge_shadow:$((a - b)) \$vars"
}

# Constants with no storage, recorded in one- and two-byte data forms: 200 and
# 40000, not -56 and -25536.
test_edges_constants() {
	edges_case O2 edge_const 'edge_const big small'
	run_ptap vars -x "$S/dwarf_edges-O2" edge_const >"$TMP/vars"
	expect_grep '^	int big	\[const\]$' "$TMP/vars"
}

# A NULL char * is NULL (JSON null), not an error: by DWARF type and as %di:string.
test_edges_null_string() {
	local v
	for v in O0 O2; do
		edges_case "$v" edge_null 'edge_null s'
		edges_case "$v" edge_null 'edge_null s=%di:string'
		run_ptap record --format json -o "$TMP/rec" -e 'edge_null s' -e 'r=edge_null s=%di:string' \
			-- "$S/dwarf_edges-$v" >/dev/null
		# (at -O0 the DWARF probe is past the prologue: after the other)
		records "$TMP/rec" | sed -E 's/.*"event":"([a-z_]*)".*"args":(.*)}$/\1 \2/' |
			sort >"$TMP/got"
		printf '%s\n' 'edge_null {"s":"null"}' 'edge_null {"s":null}' 'r {"s":"null"}' \
			'r {"s":null}' >"$TMP/want"
		expect_diff "$TMP/want" "$TMP/got"
	done
}

# vars_vs_gdb BINARY FUNC NAME...: the type `ptap vars` gives each variable in scope at
# FUNC is the one gdb gives it (the variables of FUNC's block at its entry, with their
# static locals), NAMEs among them.  Spelled alike: spaces dropped, and a run of
# qualifiers taken in any order (C's `volatile const` is gdb's `const volatile`).
vars_vs_gdb() {
	local bin=$1 func=$2
	shift 2
	run_ptap vars -x "$bin" "$func" >"$TMP/vars" || fail "ptap vars -x $bin $func"
	cat >"$TMP/gdb_vars.py" <<-'PY'
	import gdb, os
	b = gdb.block_for_pc(int(gdb.parse_and_eval('(long)&' + os.environ['FUNC'])))
	while b is not None and not b.is_global and not b.is_static:
	    for s in b:
	        if s.is_variable or s.is_argument:
	            print(str(s.type) + '\t' + s.name)
	    b = b.superblock
	PY
	FUNC=$func timeout 120 gdb -nx -batch -x "$TMP/gdb_vars.py" "$bin" >"$TMP/gdb" 2>"$TMP/gdb.err" ||
		{ cat "$TMP/gdb.err" >&2; fail "gdb on $bin"; }
	python3 - "$TMP/vars" "$TMP/gdb" "$@" <<-'PY' || fail "ptap vars -x $bin $func: types differ from gdb's"
	import re, sys
	QUAL = {'const', 'volatile', 'restrict', '_Atomic'}
	def norm(t):
	    out, quals = [], []
	    for tok in re.findall(r'\w+|[^\w\s]', t):
	        if tok in QUAL:
	            quals.append(tok)
	            continue
	        out += sorted(quals) + [tok]
	        quals = []
	    return ''.join(out + sorted(quals))
	ptap = {}
	for line in open(sys.argv[1]).read().splitlines():
	    m = re.match(r'\t(.*\W)(\w+)\t\[', line)
	    if m:
	        ptap[m.group(2)] = m.group(1).strip()
	gdb = dict(reversed(l.split('\t')) for l in open(sys.argv[2]).read().splitlines())
	bad = [n for n in sys.argv[3:] if n not in ptap or n not in gdb]
	for n in bad:
	    print('    %s: ptap has %r, gdb %r' % (n, ptap.get(n), gdb.get(n)), file=sys.stderr)
	for n in sorted(set(ptap) & set(gdb)):
	    if norm(ptap[n]) != norm(gdb[n]):
	        print('    %s: ptap says %r, gdb %r' % (n, ptap[n], gdb[n]), file=sys.stderr)
	        bad.append(n)
	print('    %d types as gdb gives them' % len(set(ptap) & set(gdb)))
	sys.exit(1 if bad else 0)
	PY
}

# Qualified arrays: `const char[14] __PRETTY_FUNCTION__`, not `const const char[14]`
# (GCC makes the array const as well as its chars), as gdb prints them; libc's malloc
# (libc6-dbg) and the sample's own.
test_edges_qualified_types() {
	vars_vs_gdb "$S/dwarf_edges-O0" edge_quals i name ticks words bufs vp __PRETTY_FUNCTION__
	vars_vs_gdb "$S/dwarf_edges-O2" edge_quals name ticks words bufs vp __PRETTY_FUNCTION__
	vars_vs_gdb "$(realpath "$LIBC")" malloc bytes __PRETTY_FUNCTION__
	expect_grep '^	const char\[14\] __PRETTY_FUNCTION__	\[global\]$' "$TMP/vars"
}

# A .debug_frame that covers other functions only (cfi_split_nounwind.c's):
# probe_here's CFA, its frame base at -O0, comes from .eh_frame.
test_edges_cfi_from_eh_frame() {
	run_ptap record -o "$TMP/rec" -e 'probe_here n' -- "$S/cfi_split" >"$TMP/out" 2>"$TMP/err" ||
		fail "ptap failed: $(cat "$TMP/err")"
	expect_eq "output" "cfi_split: 43" "$(cat "$TMP/out")"
	normalize "$TMP/rec" >"$TMP/got"
	expect_eq "record" "probe_here: n=14" "$(cat "$TMP/got")"
}
