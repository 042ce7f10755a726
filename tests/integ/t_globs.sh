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

# The same attached: the library is dlopened after the attach (planted at
# the loader's r_brk); the process's exit ends the session.
test_glob_skips_unprobeable_site_attached() {
	local rc=0 pid
	"$S/scen/glob_lock" "$(realpath "$GL_LIB")" 50 attach 3>"$TMP/stated" >"$TMP/out" 2>&1 &
	pid=$!
	wait_for grep -q READY "$TMP/out"
	# glob_lock_ready (never called): the target starts once it is planted
	run_ptap record -q -o "$TMP/rec" -e glob_lock_ready -x "$GL_LIB" -e 'gl_* x=%di:s64' \
		-p "$pid" 2>"$TMP/err" || rc=$?
	expect_eq "ptap exit status" 0 "$rc"
	rc=0
	wait "$pid" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^glob_lock: 50 calls of each, 0 wrong results$' "$TMP/out"
	expect_eq "stderr lines" 1 "$(wc -l <"$TMP/err")"
	expect_grep "^ptap: 'gl_\* x=%di:s64': 1 of 4 sites cannot be probed and are left out: cannot probe gl_lock: its first instruction 'lock inc .*' (lock prefix)\$" \
		"$TMP/err"
	records "$TMP/rec" | normalize >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
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

# ---- IFUNCs ------------------------------------------------------------------

# ifunc_stated KIND: the fd 3 lines of the ifunc sample ($TMP/stated) of KIND, without it.
ifunc_stated() {
	sed -n "s/^$1 //p" "$TMP/stated"
}

# text_len is an IFUNC: probed by its name, whichever implementation the
# loader chose (by the CPU; at -O0; len_words as built) records every call
# under the event text_len (text_len_1: the second probe), with %di, the
# DWARF parameter and $retval as the
# program states them, at the address of the implementation it says ran.
test_ifunc_sample_records() {
	local b impl addr
	for b in ifunc-O2 ifunc-O0 ifunc-pick2; do
		echo "    $b" >&2
		run_ptap record -o "$TMP/rec" -e 'text_len %di:string' -e 'text_len s' \
			-e 'text_len%return $retval' -- "$S/$b" 3>"$TMP/stated" >"$TMP/out"
		expect_grep '^ifunc: 5 strings, len_[a-z]*$' "$TMP/out"
		records "$TMP/rec" | normalize >"$TMP/got"
		# the second probe on text_len is text_len_1, as perf names it
		{ ifunc_stated di; ifunc_stated s | sed 's/^text_len:/text_len_1:/'
		  ifunc_stated ret; } | sort >"$TMP/want"
		sort "$TMP/got" | expect_diff "$TMP/want" -
		expect_eq "records" 15 "$(wc -l <"$TMP/got")"
		# %di:string at the entry of the implementation that ran
		read -r impl addr < <(ifunc_stated impl)
		expect_eq "$b: addresses of 'text_len: arg1=' records" "($addr)" \
			"$(records "$TMP/rec" | grep ': text_len: .* arg1=' | awk '{ print $5 }' | sort -u)"
		[ "$b" != ifunc-pick2 ] || expect_eq "implementation as built" len_words "$impl"
	done
}

# libc's strlen by its name: the program's own calls recorded (between its
# markers) with their returns, at the implementation gdb says the loader
# bound strlen to.
test_ifunc_libc_strlen() {
	local gdbaddr gdbsym got
	run_ptap record -o "$TMP/rec" -x "$LIBC" -e 'strlen %di:string' -e 'strlen%return $retval' \
		-- setarch -R "$S/ifunc-O2" 3>"$TMP/stated" >"$TMP/out"
	records "$TMP/rec" | normalize |
		sed -n '/^strlen: arg1="<<"$/,/^strlen: arg1=">>"$/p' | sed '1,2d;$d' >"$TMP/got"
	ifunc_stated libc >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	# gdb: strlen's address as the program took it (its GOT entry: the implementation)
	timeout 60 gdb -nx -batch -ex 'break main' -ex 'run' -ex 'next' \
		-ex 'printf "addr %#lx\n", (long)libc_strlen' -ex 'info symbol libc_strlen' \
		"$S/ifunc-O2" </dev/null >"$TMP/gdb" 2>&1 || true
	gdbaddr=$(awk '$1 == "addr" { print $2 }' "$TMP/gdb")
	gdbsym=$(awk '/ in section .text of / { print $1 }' "$TMP/gdb")
	[ -n "$gdbaddr" ] && [ -n "$gdbsym" ] || { cat "$TMP/gdb" >&2; fail "no answer from gdb"; }
	echo "    gdb: strlen is $gdbsym at $gdbaddr" >&2
	got=$(records "$TMP/rec" | grep ': strlen: .* arg1="<<"$' | awk '{ print $5 }')
	expect_eq "address of the records (gdb's $gdbsym)" "($gdbaddr)" "$got"
	run_ptap list -x "$LIBC" strlen >"$TMP/list"
	expect_grep "^strlen	(ifunc) -> .*\\b$gdbsym\\b" "$TMP/list"
}

# ptap list shows an IFUNC with the implementations its resolver can select,
# not the resolver; one whose resolver cannot be followed says why.
test_ifunc_list() {
	run_ptap list -x "$S/ifunc-O2" 'text_*' >"$TMP/out"
	printf 'text_len\t(ifunc) -> len_bytes, len_fast, len_words\n' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/out"
	run_ptap list -x "$S/ifunc-O0" >"$TMP/out"
	expect_grep '^text_len	(ifunc) -> len_bytes, len_fast, len_words$' "$TMP/out"
	! grep -q '^pick_len' "$TMP/out" || fail "the resolver is listed"
	run_ptap list -x "$LIBC" 'strlen*' >"$TMP/out"
	expect_eq "lines" 1 "$(wc -l <"$TMP/out")"
	expect_grep '^strlen	(ifunc) -> __strlen_[a-z0-9_]*\(, __strlen_[a-z0-9_]*\)*$' "$TMP/out"
	expect_grep '__strlen_sse2' "$TMP/out"
	# glibc's time() resolver returns a vDSO function: not a code address it sets
	run_ptap list -x "$LIBC" time >"$TMP/out"
	expect_grep '^time	(ifunc) -> ? (its resolver (at 0x[0-9a-f]*) cannot be followed: the value it returns at 0x[0-9a-f]* is computed or loaded, not an address it sets)$' \
		"$TMP/out"
}

# What cannot be done with an IFUNC is refused with the reason, exit 2.
test_ifunc_refusals() {
	local rc
	rc=0
	run_ptap record -x "$LIBC" -e 'time' -- true 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "^ptap: bad probe 'time': cannot tell which functions the IFUNC 'time' selects: its resolver (at 0x[0-9a-f]*) cannot be followed: the value it returns at 0x[0-9a-f]* is computed or loaded, not an address it sets; probe an implementation by its own name\$" \
		"$TMP/err"
	rc=0
	run_ptap record -e 'text_len+4' -- "$S/ifunc-O2" 2>"$TMP/err" >/dev/null || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "'text_len' is an IFUNC of .*ifunc-O2: +OFF would be other code in each implementation it selects" \
		"$TMP/err"
	# the resolver by its own name: it runs once, in the loader
	rc=0
	run_ptap record -e 'pick_len' -- "$S/ifunc-O2" 2>"$TMP/err" >/dev/null || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "'pick_len' in .*ifunc-O2 is an IFUNC's resolver: it runs once" "$TMP/err"
}
