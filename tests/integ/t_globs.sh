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
