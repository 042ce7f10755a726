# Probes on functions whose first instruction is each class ptap steps over
# (out of line or emulated): exact counts, results unchanged, 4 threads.

ZOO_FUNCS="zoo_push zoo_endbr zoo_sub zoo_movload zoo_movstore zoo_lea zoo_addr8 zoo_movdqu
	zoo_fs zoo_xchg zoo_call zoo_jmp zoo_jcc zoo_ret"

test_zoo_counts_and_results() {
	local args=() f
	for f in $ZOO_FUNCS; do
		args+=(-e "$f")
	done
	run_ptap record -o "$TMP/rec" "${args[@]}" -- "$S/insn_zoo" 2000 4 \
		3>"$TMP/stated" >"$TMP/stdout"
	expect_grep '^insn_zoo: all [0-9]* results correct$' "$TMP/stdout"
	normalize "$TMP/rec" | sed 's/:$//' | sort | uniq -c | awk '{ print $2, $1 }' >"$TMP/got"
	grep -v '^zoo_syscall ' "$TMP/stated" | sort >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	expect_eq "functions probed" 14 "$(wc -l <"$TMP/got")"
}

# A first instruction that can neither run out of line nor be emulated is
# refused before anything runs.
test_zoo_syscall_refused() {
	local rc=0
	run_ptap record -e zoo_syscall -- "$S/insn_zoo" 10 1 >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "cannot probe zoo_syscall: its first instruction 'syscall' (syscall cannot run out of line)" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "the command ran"
}
