# DWARF probes (issue 3): variables by name, member chains, types, inlined
# functions, separate debug info, `ptap list` and `ptap vars`.  Records are
# compared with what the samples state on fd 3; those statements were
# checked against gdb (samples/gdb_check.sh).

# The probes samples/structs.c names in its header comment, by event.
declare -A STRUCTS_PROBE=(
	[show_outer]='show_outer o->kind o->inner.id o->inner.tag o->inner.name o->origin->x'\
' o->vals[2] o->color o->label o->weight o->on'
	[outer_whole]='outer_whole=show_outer *o o->inner'
	[show_point]='show_point p.x p.y pp->y *pp *ppp **ppp p'
	[point_params]='point_params=show_point $params'
	[show_union]='show_union n.i n.f np->u np->half[1] *np n'
	[show_flags]='show_flags f->ready f->level f->mode f->delta f->code f->wide f->big'\
' fv.level fv.mode fv.big'
	[flags_whole]='flags_whole=show_flags *f'
	[show_typedefs]='show_typedefs cp->x cp->y pv.y *vc n *cp'
	[show_chars]='show_chars s sp=s:x64 g->tag g->note note=g->note:string g->cells[1][2]'\
' g->cells[0][1] sc uc c *names names[1]'
	[show_floats]='show_floats f d b c'
	[floats_params]='floats_params=show_floats $params'
	[show_globals]='show_globals tick counter g_label g_origin.y g_origin'\
' st=counter@structs2.c gl=counter@structs.c'
	[show_inner2]='show_inner2 counter in->name in->id'
	[scopes]='scopes=show_scopes:RELLINE $vars'
)

# The line of show_scopes() that structs.c marks for $vars, relative to the
# function's own line (FUNC:RELLINE).
scopes_relline() {
	echo $(($(grep -n 'total += step;' samples/structs.c | cut -d: -f1) -
		$(grep -n '^PROBED int show_scopes(' samples/structs.c | cut -d: -f1)))
}

# expect_events STATED GOT EVENT...: for each EVENT, its lines in GOT equal
# those in STATED (so probes on one function may come in any order).
expect_events() {
	local stated=$1 got=$2 ev
	shift 2
	for ev in "$@"; do
		grep "^$ev:" "$stated" >"$TMP/want.$ev" || fail "the sample states no $ev"
		grep "^$ev:" "$got" >"$TMP/got.$ev" || true
		expect_diff "$TMP/want.$ev" "$TMP/got.$ev"
	done
}

# structs_case VARIANT EVENT...: record the probes of EVENTs on
# build/samples/structs-VARIANT; each event's records equal the statement.
structs_case() {
	local bin=$S/structs-$1 args=() ev
	shift
	for ev in "$@"; do
		args+=(-e "${STRUCTS_PROBE[$ev]/RELLINE/$(scopes_relline)}")
	done
	run_ptap record -o "$TMP/rec" "${args[@]}" -- "$bin" 3>"$TMP/stated" >"$TMP/stdout"
	normalize "$TMP/rec" >"$TMP/got"
	expect_events "$TMP/stated" "$TMP/got" "$@"
	expect_grep '^structs: sum ' "$TMP/stdout"
}

# dwarf_refused STATUS ERE ptap-args...: ptap exits with STATUS, its message
# matches the extended regex ERE (any case), and nothing is recorded.
dwarf_refused() {
	local want=$1 ere=$2 rc=0
	shift 2
	run_ptap "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" "$want" "$rc"
	grep -qiE -- "$ere" "$TMP/err" ||
		{ sed 's/^/      /' "$TMP/err" >&2; fail "no /$ere/ in the message"; }
	[ ! -s "$TMP/out" ] || fail "output from a refused run: $(head -3 "$TMP/out")"
}

# has_dwarf_message: the message in $TMP/err does not claim a lack of DWARF
# (for binaries that have it).
has_dwarf_message() {
	! grep -qiE 'needs? DWARF|no DWARF|does not read' "$TMP/err" ||
		fail "a binary with DWARF, but: $(cat "$TMP/err")"
}

# ---- structs: every kind of value, at -O0, -O2 and -O0 -gdwarf-4 ----------
# Member chains through pointers, nested structs, arrays, an enum, char *,
# double and bool members; a struct passed by value; pointers to pointers.
test_dwarf_members_O0()     { structs_case O0 show_outer show_point; }
test_dwarf_members_O2()     { structs_case O2 show_outer show_point; }
test_dwarf_members_dwarf4() { structs_case dwarf4 show_outer show_point; }

# A struct printed whole: members one level deep, nested ones {...}.
test_dwarf_struct_whole_O0()     { structs_case O0 outer_whole flags_whole; }
test_dwarf_struct_whole_O2()     { structs_case O2 outer_whole flags_whole; }
test_dwarf_struct_whole_dwarf4() { structs_case dwarf4 outer_whole flags_whole; }

test_dwarf_union_O0()     { structs_case O0 show_union; }
test_dwarf_union_O2()     { structs_case O2 show_union; }
test_dwarf_union_dwarf4() { structs_case dwarf4 show_union; }

# Signed and unsigned bitfields, one across a byte boundary, one in a 64-bit
# container; at -O2 FV arrives in two registers (DW_OP_piece); DWARF 4 has
# DW_AT_bit_offset where DWARF 5 has DW_AT_data_bit_offset.
test_dwarf_bitfields_O0()     { structs_case O0 show_flags; }
test_dwarf_bitfields_O2()     { structs_case O2 show_flags; }
test_dwarf_bitfields_dwarf4() { structs_case dwarf4 show_flags; }

# Typedef of a typedef of a struct, const and volatile.
test_dwarf_typedefs_O0()     { structs_case O0 show_typedefs; }
test_dwarf_typedefs_O2()     { structs_case O2 show_typedefs; }
test_dwarf_typedefs_dwarf4() { structs_case dwarf4 show_typedefs; }

# char * and char[N] as strings (one array full, with no NUL), :x64 and
# :string, a 2-D array, char and signed char as numbers, a pointer indexed.
test_dwarf_chars_O0()     { structs_case O0 show_chars; }
test_dwarf_chars_O2()     { structs_case O2 show_chars; }
test_dwarf_chars_dwarf4() { structs_case dwarf4 show_chars; }

# float and double (in xmm registers at -O2), bool, an enum by name and a
# value with no enumerator.
test_dwarf_floats_O0()     { structs_case O0 show_floats; }
test_dwarf_floats_O2()     { structs_case O2 show_floats; }
test_dwarf_floats_dwarf4() { structs_case dwarf4 show_floats; }

test_dwarf_params_O0()     { structs_case O0 point_params floats_params; }
test_dwarf_params_O2()     { structs_case O2 point_params floats_params; }
test_dwarf_params_dwarf4() { structs_case dwarf4 point_params floats_params; }

# Globals; a file-static with a global's name: var@file.c chooses, and a
# function in structs2.c sees its own static.
test_dwarf_globals_O0()     { structs_case O0 show_globals show_inner2; }
test_dwarf_globals_O2()     { structs_case O2 show_globals show_inner2; }
test_dwarf_globals_dwarf4() { structs_case dwarf4 show_globals show_inner2; }

# $vars on a source line inside a nested scope.  Not at -O2: there gdb
# finds `total` optimized out at that line and GCC 12 describes `word` as
# the constant "one" whatever its value.
test_dwarf_vars_O0()     { structs_case O0 scopes; }
test_dwarf_vars_dwarf4() { structs_case dwarf4 scopes; }

# JSON: typed values (numbers, strings, enums as names, bool, structs as objects).
test_dwarf_json() {
	run_ptap record --format json -o "$TMP/rec" \
		-e 'show_outer o->kind o->inner.name o->color o->on o->weight o->inner' \
		-e 'show_point p' -e 'show_floats f d b c' -e 'show_flags f->level f->wide' \
		-- "$S/structs-O0" >/dev/null
	expect_grep '"event":"show_outer",.*"args":{"o->kind":1,"o->inner.name":"alpha","o->color":"RED","o->on":true,"o->weight":0.5,"o->inner":{"id":-3,"tag":200,"name":"alpha"}}}$' "$TMP/rec"
	expect_grep '"args":{"o->kind":300,"o->inner.name":"1234567","o->color":42,"o->on":true,"o->weight":1e+30,' "$TMP/rec"
	expect_grep '"args":{"p":{"x":10,"y":11}}}$' "$TMP/rec"
	expect_grep '"args":{"f":0.1,"d":0.1,"b":true,"c":"GREEN"}}$' "$TMP/rec"
	expect_grep '"args":{"f":-2.5,"d":1e+30,"b":false,"c":"BLUE"}}$' "$TMP/rec"
	expect_grep '"args":{"f->level":-3,"f->wide":1000000}}$' "$TMP/rec"
	expect_eq "records" 12 "$(records "$TMP/rec" | wc -l)"
}

test_dwarf_json_nested() {
	run_ptap record --format json -o "$TMP/rec" -e 'outer_whole=show_outer *o' \
		-- "$S/structs-O2" >/dev/null
	expect_grep '"args":{"\*o":{"kind":1,"inner":"{...}","origin":"0x[0-9a-f]*","label":"0x[0-9a-f]*","color":"RED","vals":"{...}","weight":0.5,"on":true}}}$' "$TMP/rec"
}

# ---- query_server: the perf recipes verbatim ------------------------------

# perf_recipes BINARY: each recipe alone; QS_EXPECT=dwarf states four lines
# per query, one per recipe, in this order.
perf_recipes() {
	local bin=$1 k=0 recipe
	for recipe in 'exec_query query_string:string' \
		'exec_query desc->source_text:string desc->nrows' \
		'exec_query debug_query_string:string' 'exec_query $params'; do
		k=$((k + 1))
		QS_EXPECT=dwarf run_ptap record -o "$TMP/rec" -e "$recipe" -- "$bin" \
			samples/queries.txt 3>"$TMP/stated" >"$TMP/stdout"
		awk -v k=$((k % 4)) 'NR % 4 == k' "$TMP/stated" >"$TMP/want"
		normalize "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/want" "$TMP/got"
		expect_eq "records of '$recipe'" 7 "$(wc -l <"$TMP/got")"
		expect_grep '^query_server: 7 queries, 38 rows$' "$TMP/stdout"
	done
}

test_dwarf_perf_recipes_O0() { perf_recipes "$S/query_server-O0"; }
test_dwarf_perf_recipes_O2() { perf_recipes "$S/query_server-O2"; }

test_dwarf_perf_recipes_json() {
	run_ptap record --format json -o "$TMP/rec" \
		-e 'exec_query desc->source_text:string desc->nrows' -- "$S/query_server" \
		samples/queries.txt >/dev/null
	expect_grep '"args":{"desc->source_text":"SELECT 1","desc->nrows":1}}$' "$TMP/rec"
	expect_grep '"args":{"desc->source_text":"DELETE FROM sessions","desc->nrows":7}}$' \
		"$TMP/rec"
}

# ---- inlined functions ----------------------------------------------------

# scale() exists only inlined (two instances); clamp() inlined twice and out of line.
inline_case() {
	run_ptap record -o "$TMP/rec" -e 'scale value factor' -e 'clamp v lo hi' \
		-- "$S/inline-$1" 3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_events "$TMP/stated" "$TMP/got" scale clamp
	expect_eq "scale records" 6 "$(grep -c '^scale: ' "$TMP/got")"
	expect_eq "clamp records" 9 "$(grep -c '^clamp: ' "$TMP/got")"
}

test_dwarf_inline_O0() { inline_case O0; }
test_dwarf_inline_O2() { inline_case O2; }

# --no-inlines: scale has no site at all; clamp only its out-of-line copy.
test_dwarf_no_inlines() {
	local v
	for v in O0 O2; do
		dwarf_refused 2 'scale' record --no-inlines -e 'scale value factor' \
			-- "$S/inline-$v"
		INLINE_EXPECT=no-inlines run_ptap record --no-inlines -o "$TMP/rec" \
			-e 'clamp v lo hi' -- "$S/inline-$v" 3>"$TMP/stated" >/dev/null
		normalize "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/stated" "$TMP/got"
		expect_eq "out-of-line clamp records ($v)" 3 "$(wc -l <"$TMP/got")"
	done
}

# ---- separate debug info --------------------------------------------------

# By build-id, under --debuginfo-dir: the library itself has no DWARF.
test_dwarf_split_buildid() {
	readelf -S "$S/libsplit_bid.so" | grep -q '\.debug_info' && fail "has DWARF"
	readelf -S "$S/libsplit_bid.so" | grep -q '\.gnu_debuglink' && fail "has a debuglink"
	DEBUGINFOD_URLS= run_ptap record -o "$TMP/rec" -x "$S/libsplit_bid.so" \
		--debuginfo-dir "$S/debug" -e 'bid_store it->id it->name it->price it->state key' \
		-- "$S/split_host" 3>"$TMP/stated" >"$TMP/stdout"
	normalize "$TMP/rec" >"$TMP/got"
	expect_events "$TMP/stated" "$TMP/got" bid_store
	expect_eq "records" 3 "$(wc -l <"$TMP/got")"
	expect_grep '^split_host: sum ' "$TMP/stdout"
}

# Without the directory the same probe has no DWARF to resolve it by.
test_dwarf_split_buildid_needs_dir() {
	DEBUGINFOD_URLS= dwarf_refused 2 'no DWARF|debug ?info' record -x "$S/libsplit_bid.so" \
		-e 'bid_store it->id' -- "$S/split_host"
}

# By .gnu_debuglink: libsplit_link.so.debug next to the library (-O0: the
# frame base comes from the call frame information).
test_dwarf_split_debuglink() {
	readelf -S "$S/libsplit_link.so" | grep -q '\.debug_info' && fail "has DWARF"
	readelf -S "$S/libsplit_link.so" | grep -q '\.gnu_debuglink' || fail "no .gnu_debuglink"
	DEBUGINFOD_URLS= run_ptap record -o "$TMP/rec" -x "$S/libsplit_link.so" \
		-e 'link_store it->seq it->tag it->flags key *it' \
		-- "$S/split_host" 3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_events "$TMP/stated" "$TMP/got" link_store
	expect_eq "records" 3 "$(wc -l <"$TMP/got")"
}

# ---- probe points ---------------------------------------------------------

# A glob: one event per function matched, named after it.
test_dwarf_glob() {
	run_ptap record -o "$TMP/rec" -e 'show_*' -- "$S/structs-O0" >/dev/null
	normalize "$TMP/rec" | sed 's/:$//' | sort | uniq -c | awk '{ print $2, $1 }' >"$TMP/got"
	printf '%s 3\n' show_chars show_flags show_floats show_globals show_inner2 show_outer \
		show_point show_scopes show_typedefs show_union >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	run_ptap record -o "$TMP/rec" -e 'many_1? x' -- "$S/many_funcs" 3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	grep '^many_1[0-9]: ' "$TMP/stated" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# More than 128 sites: refused, naming --max-probes; allowed when raised.
test_dwarf_glob_max_probes() {
	dwarf_refused 2 '--max-probes' record -e 'many_* x' -- "$S/many_funcs"
}

test_dwarf_glob_max_probes_raised() {
	run_ptap record --max-probes 200 -o "$TMP/rec" -e 'many_* x' -- "$S/many_funcs" \
		3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
	expect_eq "records" 130 "$(wc -l <"$TMP/got")"
}

# ---- bad input ------------------------------------------------------------

# The message lists the variables there are.
test_dwarf_bad_unknown_variable() {
	dwarf_refused 2 'nosuch' record -e 'show_point nosuch' -- "$S/structs-O0"
	expect_grep 'ppp' "$TMP/err"
	has_dwarf_message
	dwarf_refused 2 'nosuch' record -e 'show_outer o->nosuch' -- "$S/structs-O0"
	has_dwarf_message
}

# A type error, naming the struct.
test_dwarf_bad_string_on_struct() {
	dwarf_refused 2 'string' record -e 'show_point p:string' -- "$S/structs-O0"
	expect_grep 'struct point' "$TMP/err"
	has_dwarf_message
	dwarf_refused 2 'string' record -e 'show_outer o->inner:string' -- "$S/structs-O0"
	expect_grep 'struct inner' "$TMP/err"
}

# No DWARF: says so, and that register arguments still work.
test_dwarf_bad_no_debuginfo() {
	dwarf_refused 2 'no DWARF|debug ?info' record -e 'exec_query query_string:string' \
		-- "$S/query_server-stripped" samples/queries.txt
	grep -qiE 'register|%di|\$arg' "$TMP/err" ||
		fail "no mention of register arguments: $(cat "$TMP/err")"
}

test_dwarf_bad_source_line() {
	dwarf_refused 2 'structs\.c:9999' record -e 'structs.c:9999' -- "$S/structs-O0"
	has_dwarf_message
	dwarf_refused 2 'nosuchfile\.c' record -e 'nosuchfile.c:10' -- "$S/structs-O0"
	has_dwarf_message
}

# Optimized out at the probe address (gdb agrees at -O2): says so and
# points to `ptap vars`.
test_dwarf_bad_optimized_out() {
	dwarf_refused 2 'optimi[sz]ed out' record -e "show_scopes:$(scopes_relline) total" \
		-- "$S/structs-O2"
	expect_grep 'ptap vars' "$TMP/err"
}

# ---- ptap list and ptap vars (golden: review) -----------------------------
# The golden files were written by hand from gdb (`info functions ^show_`,
# `info scope`, `whatis`); their format is a proposal.  Paths are relative
# to the repository (the compile directory is cut off).

test_dwarf_list_golden_review() {
	run_ptap list -x "$S/structs-O0" 'show_*' >"$TMP/out"
	sed "s|$PWD/||" "$TMP/out" >"$TMP/got"
	expect_diff tests/integ/golden/list_structs_show.txt "$TMP/got"
}

test_dwarf_vars_golden_review() {
	run_ptap vars -x "$S/structs-O0" show_outer >"$TMP/out"
	sed "s|$PWD/||" "$TMP/out" >"$TMP/got"
	expect_diff tests/integ/golden/vars_structs_show_outer.txt "$TMP/got"
	run_ptap vars -x "$S/structs-O0" "show_scopes:$(scopes_relline)" >"$TMP/out"
	sed "s|$PWD/||" "$TMP/out" >"$TMP/got"
	expect_diff tests/integ/golden/vars_structs_show_scopes_9.txt "$TMP/got"
}
