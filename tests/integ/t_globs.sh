# Globs whose sites include some that cannot be probed (issue 17 item 5),
# and IFUNCs probed through the implementations their resolvers select
# (issue 17 item 6).

GL_LIB=$S/scen/libglob_lock.so

# glob_lock_record PROBE [N]: record PROBE (in libglob_lock.so) on glob_lock,
# which dlopens the library after the start and calls its functions N times
# (default 50); the scen_record files ($TMP/sc_*).
glob_lock_record() {
	scen_record_x "$GL_LIB" "$1" "$S/scen/glob_lock" "$(realpath "$GL_LIB")" "${2:-50}"
}

# scen_record_x MODULE PROBE CMD...: scen_record with -x MODULE.
scen_record_x() {
	local saved=("${SCEN_OPTS[@]}")
	SCEN_OPTS=(-x "$1")
	shift
	scen_record "$@"
	SCEN_OPTS=("${saved[@]}")
}

# The site whose first instruction is lock-prefixed (gl_lock) is left out
# and named once on stderr; the glob's three other functions record every
# call with its argument, as the program states, in a library mapped by
# dlopen long after the probes were resolved.
test_glob_skips_unprobeable_site() {
	glob_lock_record 'gl_* x=%di:s64'
	expect_eq "exit status (the command's)" 0 "$(cat "$TMP/sc_rc")"
	expect_grep '^glob_lock: 50 calls of each, 0 wrong results$' "$TMP/sc_out"
	expect_grep '^BYTES-OK$' "$TMP/sc_out"
	expect_eq "stderr lines" 1 "$(wc -l <"$TMP/sc_err")"
	expect_grep "^ptap: 'gl_\* x=%di:s64': 1 of 4 sites cannot be probed and are left out: cannot probe gl_lock: its first instruction 'lock inc dword ptr \[rip + 0x[0-9a-f]*\]' (lock prefix)\$" \
		"$TMP/sc_err"
	records "$TMP/sc_rec" | normalize >"$TMP/got"
	expect_eq "records" 150 "$(wc -l <"$TMP/got")"
	expect_diff "$TMP/sc_stated" "$TMP/got"
}

# When no site of a glob is left, the probe is refused (exit 2) before the
# command runs, with the reason; a function named alone stays an error.
test_glob_no_site_left_refused() {
	glob_lock_record 'gl_lo* x=%di:s64'
	expect_eq "exit status" 2 "$(cat "$TMP/sc_rc")"
	expect_grep "^ptap: bad probe 'gl_lo\* x=%di:s64': no site of 'gl_lo\*' can be probed (1 site); cannot probe gl_lock: its first instruction 'lock inc .*' (lock prefix)\$" \
		"$TMP/sc_err"
	[ ! -s "$TMP/sc_out" ] || fail "refused, yet the command ran"
	glob_lock_record 'gl_lock x=%di:s64'
	expect_eq "exit status" 2 "$(cat "$TMP/sc_rc")"
	expect_grep "^ptap: bad probe 'gl_lock x=%di:s64': cannot probe gl_lock: its first instruction 'lock inc .*' (lock prefix)\$" \
		"$TMP/sc_err"
	[ ! -s "$TMP/sc_out" ] || fail "refused, yet the command ran"
}

# A glob in a library the command never maps: one line at the end for all
# its sites, not one per site.
test_glob_never_planted_once() {
	scen_record_x "$GL_LIB" 'gl_[ast]* x=%di:s64' "$S/scen/glob_lock" -
	expect_eq "exit status (the command's)" 0 "$(cat "$TMP/sc_rc")"
	expect_grep '^glob_lock: nothing loaded$' "$TMP/sc_out"
	expect_eq "stderr lines" 1 "$(wc -l <"$TMP/sc_err")"
	expect_grep "^ptap: 'gl_\[ast\]\* x=%di:s64': 3 of 3 sites never planted: $GL_LIB was not mapped executable by the command\$" \
		"$TMP/sc_err"
}

# Sites that fail when planted (here: the file is also mapped shared, where
# an int3 would reach the file) are told in one line per glob and process,
# with the first few and why; the private mapping of the same file records.
test_glob_plant_failures_once() {
	local code=$TMP/code.bin n
	cp "$S/scen/shared_map" "$code"
	scen_record_x "$code" 's* x=%di:s64' "$S/scen/shared_map" "$code"
	expect_eq "exit status (the command's)" 0 "$(cat "$TMP/sc_rc")"
	expect_grep '^SHARED-FILE-OK$' "$TMP/sc_out"
	cmp "$S/scen/shared_map" "$code" >&2 || fail "the shared file changed"
	grep -v "^ptap: 's\* x=%di:s64': [0-9]* of [0-9]* sites cannot be probed and are left out: " \
		"$TMP/sc_err" >"$TMP/err" || true
	expect_eq "stderr lines about planting" 1 "$(wc -l <"$TMP/err")"
	n=$(ptap_sites "$code" 's*')
	[ "$n" -gt 3 ] || fail "'s*' has $n sites in shared_map; the test wants more than 3"
	# all in the shared mapping, for one reason: said once, with the first three
	expect_grep "^ptap: 's\* x=%di:s64': $n of $n sites not planted in pid [0-9]*: $code is mapped shared: an int3 would reach the file and other processes ([a-z_]* at 0x[0-9a-f]*, [a-z_]* at 0x[0-9a-f]*, [a-z_]* at 0x[0-9a-f]*, \.\.\.)\$" \
		"$TMP/err"
	records "$TMP/sc_rec" | normalize >"$TMP/got"
	seq 1000 1099 | sed 's/^/shm_func: x=/' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# ptap_sites BINARY GLOB: how many sites `ptap vars` finds for GLOB.
ptap_sites() {
	run_ptap vars -x "$1" "$2" 2>/dev/null | grep -c '^[^	]'
}
