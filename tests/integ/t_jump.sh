# Jump sites (tracer/space/aspace.h): launched, a probe whose first instructions
# allow it jumps to a trampoline holding the int3; one whose bytes a branch
# of its function lands in stays an int3.  samples/scen/jump_sites prints
# the first byte of each function as ptap left it, checks every result its
# calls return (also in a fork child) and its bytes (selfcheck.h).

JS=$S/scen/jump_sites
JS_PROBES=(-e 'jump_plain %di' -e 'jump_riprel %di' -e 'jump_looped %di %si')

# js_expected N: the records jump_sites N makes, normalized, in order
js_expected() {
	local i t=0
	for base in 0 1000; do
		t=0
		for i in $(seq "$1"); do
			t=$((t + i))
			printf 'jump_plain: arg1=0x%x\njump_riprel: arg1=0x%x\n' $((base + i)) "$i"
			printf 'jump_looped: arg1=0x%x arg2=0x3\n' "$i"
		done
	done
}

# js_check N FIRST-BYTES: the run's records and the target's verdicts
js_check() {
	expect_eq "first bytes" "$2" "$(awk '$1 == "FIRST" { printf "%s ", $3 }' "$TMP/js_out" |
		sed 's/ $//')"
	expect_grep '^CALLS-OK$' "$TMP/js_out"
	expect_grep '^BYTES-OK$' "$TMP/js_out"
	js_expected "$1" >"$TMP/js_want"
	records "$TMP/js_rec" | normalize >"$TMP/js_got"
	expect_diff "$TMP/js_want" "$TMP/js_got"
}

test_jump_sites_launched() {
	run_ptap record -o "$TMP/js_rec" "${JS_PROBES[@]}" -- "$JS" 50 >"$TMP/js_out"
	js_check 50 "e9 e9 cc"
	expect_grep '^CHILD-CODE patched$' "$TMP/js_out"
}

test_jump_sites_no_jumps() {
	run_ptap record --no-jumps -o "$TMP/js_rec" "${JS_PROBES[@]}" -- "$JS" 50 >"$TMP/js_out"
	js_check 50 "cc cc cc"
}

# Another function jumps into jump_entered's first bytes: its site stays an
# int3 (said with -v), and every call of both returns what it should.
test_jump_sites_entered_from_elsewhere() {
	run_ptap record -v -o "$TMP/js_rec" -e 'jump_entered %di' -e 'jump_enterer %di' \
		-- "$JS" 50 >"$TMP/js_out" 2>"$TMP/js_err"
	expect_grep '^CALLS-OK$' "$TMP/js_out"
	expect_grep '^BYTES-OK$' "$TMP/js_out"
	expect_grep 'jump_entered: the site at 0x[0-9a-f]* in pid [0-9]* stops the thread at each hit (not recorded in the process): code elsewhere in the module jumps to 0x[0-9a-f]*, in the bytes a jump would replace$' "$TMP/js_err"
	expect_eq "jump_entered records" 100 "$(records "$TMP/js_rec" | grep -c ' jump_entered: ')"
	expect_eq "jump_enterer records" 100 "$(records "$TMP/js_rec" | grep -c ' jump_enterer: ')"
}

# The module's branch targets, made once, are read from the cache by the
# next run (its build-id's .branches file), which refuses the same jump;
# a file cut short is not used, and made again.
test_jump_sites_branches_cached() {
	local f err='jump_entered: the site at 0x[0-9a-f]* in pid [0-9]* stops the thread at each hit (not recorded in the process): code elsewhere in the module jumps to 0x[0-9a-f]*, in the bytes a jump would replace$'
	local -x PTAP_CACHE_DIR=$TMP/brcache
	rm -rf "$PTAP_CACHE_DIR"
	js_entered() {
		run_ptap record -vv -o "$TMP/js_rec" -e 'jump_entered %di' -e 'jump_enterer %di' \
			-- "$JS" 50 >"$TMP/js_out" 2>"$TMP/js_err"
		expect_grep '^CALLS-OK$' "$TMP/js_out"
		expect_grep "$err" "$TMP/js_err"
		expect_eq "jump_entered records" 100 "$(records "$TMP/js_rec" | grep -c ' jump_entered: ')"
	}
	js_entered
	expect_grep 'jump_sites: its branch targets cached as .*\.branches$' "$TMP/js_err"
	f=$(find "$PTAP_CACHE_DIR" -name '*.branches')
	[ -s "$f" ] || fail "no .branches file under $PTAP_CACHE_DIR"
	js_entered
	expect_grep "jump_sites: its [0-9]* branch targets from $f\$" "$TMP/js_err"
	! grep -q 'cached as' "$TMP/js_err" || fail "made again, though cached"
	truncate -s -4 "$f"
	js_entered
	expect_grep "is not a branch table of this module's: not used\$" "$TMP/js_err"
	expect_grep 'jump_sites: its branch targets cached as .*\.branches$' "$TMP/js_err"
}

# The same code through ptap's int3 and through its jumps: one record stream.
test_jump_sites_json_same_values() {
	run_ptap record --format json -o "$TMP/js_a" "${JS_PROBES[@]}" -- "$JS" 20 >/dev/null
	run_ptap record --no-jumps --format json -o "$TMP/js_b" "${JS_PROBES[@]}" -- "$JS" 20 \
		>/dev/null
	local a b
	a=$(records "$TMP/js_a" | grep -o '"args":{[^}]*}' | sort | md5sum)
	b=$(records "$TMP/js_b" | grep -o '"args":{[^}]*}' | sort | md5sum)
	expect_eq "args" "$b" "$a"
	expect_eq "records" 120 "$(records "$TMP/js_a" | wc -l)"
}

# --duration ends tracing while the command runs: its jumps stay (several
# bytes cannot be written while other threads may fetch them), their
# trampolines no longer trap, and it runs on through them, unrecorded.
test_jump_sites_disarmed_at_duration() {
	run_ptap record --duration 0.5 -o "$TMP/js_rec" "${JS_PROBES[@]}" -- "$JS" 5 wait \
		>"$TMP/js_out"
	expect_grep '^FIRST jump_plain e9$' "$TMP/js_out"
	expect_grep '^DISARMED$' "$TMP/js_out"
	expect_grep '^CALLS-OK$' "$TMP/js_out"
	expect_grep '^BYTES-OK$' "$TMP/js_out"
	expect_eq "records before the end" 30 "$(records "$TMP/js_rec" | wc -l)"
}

# Not followed (--no-follow): the fork child gets the file's code back before
# it runs (it is stopped, alone: the jumps can go), and makes no record.
test_jump_sites_no_follow_child() {
	run_ptap record --no-follow -o "$TMP/js_rec" "${JS_PROBES[@]}" -- "$JS" 5 >"$TMP/js_out"
	expect_grep '^CHILD-CODE file$' "$TMP/js_out"
	expect_grep '^CALLS-OK$' "$TMP/js_out"
	expect_grep '^BYTES-OK$' "$TMP/js_out"
	expect_eq "records (the parent's)" 15 "$(records "$TMP/js_rec" | wc -l)"
}

# Records do not wait in ptap's output buffer while the traced command is
# quiet: a second after its last hit (it sleeps then), they are in the file.
test_output_flushed_when_quiet() {
	"$PTAP" record -o "$TMP/js_rec" -x "$JS" -e 'jump_plain %di' -- \
		sh -c "$JS 3 >/dev/null; sleep 4" &
	local p=$!
	sleep 1.5
	expect_eq "records while the command sleeps" 6 "$(records "$TMP/js_rec" | wc -l)"
	wait_ptap "$p"
}
