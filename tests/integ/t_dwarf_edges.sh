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
