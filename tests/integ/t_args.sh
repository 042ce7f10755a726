# Arguments without DWARF: registers, $argN, dereferences, globals, a libc probe.

test_args_argn_deref() {
	run_ptap record -o "$TMP/rec" -e 'q=exec_query first=+0(%di):u8 len=$arg2:u32 third=+2(%di):x8 ptr=%di' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	# 'S' = 83, 'L' = 0x4c
	expect_grep '^q: first=83 len=8 third=0x4c ptr=0x[0-9a-f]*$' "$TMP/got"
	expect_eq "records" 7 "$(grep -c '^q: ' "$TMP/got")"
}

# @SYMBOL: the caller sets the global to the query before the call (as
# PostgreSQL does) and back to NULL after it: NULL when query_stats runs.
test_args_global_symbol() {
	local bin
	for bin in "$S/query_server" "$S/query_server-nopie" "$S/query_server-stripped"; do
		run_ptap record -o "$TMP/rec" -e 'exec_query prev=@debug_query_string:string' \
			-e 'query_stats prev=@debug_query_string:string' \
			-- "$bin" samples/queries.txt >/dev/null
		normalize "$TMP/rec" >"$TMP/got"
		printf '%s\n' 'exec_query: prev="SELECT 1"' \
			'exec_query: prev="SELECT name FROM users WHERE id = 42"' >"$TMP/want"
		head -2 "$TMP/got" >"$TMP/got2"
		expect_diff "$TMP/want" "$TMP/got2"
		expect_eq "last record ($bin)" 'query_stats: prev=NULL' \
			"$(tail -1 "$TMP/got")"
		expect_eq "records ($bin)" 8 "$(wc -l <"$TMP/got")"
	done
}

# A probe in a library that is mapped after exec: planted at the mmap's exit.
test_args_libc_puts() {
	run_ptap record -o "$TMP/rec" -x "$LIBC" -e 'puts %di:string' -- "$S/query_server" \
		samples/queries.txt >"$TMP/stdout"
	normalize "$TMP/rec" >"$TMP/got"
	echo 'puts: arg1="query_server: done"' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	expect_grep '^query_server: done$' "$TMP/stdout"
}

# The library named through a symlink is the same file (identity, not path).
# A function the command does not have, only a variable of its name: probed
# in the library that has it (the variable does not stop the search).
test_args_libc_function_named_like_a_variable() {
	run_ptap record -o "$TMP/rec" -e gnu_get_libc_version -- "$S/shadow_name" \
		>"$TMP/out" 2>"$TMP/err" || fail "ptap failed: $(cat "$TMP/err")"
	expect_grep "^ptap: 'gnu_get_libc_version' is not in .*shadow_name: probed in .*/libc\.so\.6, a library it links" \
		"$TMP/err"
	expect_grep ' 7$' "$TMP/out"
	expect_eq "records" 1 "$(grep -c ': gnu_get_libc_version: ' "$TMP/rec")"
}

test_args_libc_symlink() {
	ln -s "$LIBC" "$TMP/libc-link.so"
	run_ptap record -o "$TMP/rec" -x "$TMP/libc-link.so" -e 'puts %di:string' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	expect_eq "records" 1 "$(records "$TMP/rec" | wc -l)"
}

test_args_two_modules() {
	run_ptap record -o "$TMP/rec" -e 'exec_query %si:u32' -x "$LIBC" -e 'puts %di:string' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_eq "exec_query records" 7 "$(grep -c '^exec_query: arg1=' "$TMP/got")"
	expect_eq "last record" 'puts: arg1="query_server: done"' "$(tail -1 "$TMP/got")"
}

# $argN past the sixth integer argument comes from the stack.
test_args_stack_arguments() {
	local bin
	for bin in "$S/query_server-O0" "$S/query_server" "$S/query_server-nopie"; do
		run_ptap record -o "$TMP/rec" \
			-e 'query_stats $arg1:s64 $arg6:s64 $arg7:s64 $arg8:s64 a8=+16(%sp):s64' \
			-- "$bin" samples/queries.txt >/dev/null
		expect_eq "stack arguments ($bin)" 'query_stats: arg1=7 arg2=42 arg3=49 arg4=-56 a8=-56' \
			"$(normalize "$TMP/rec")"
	done
}

# $argN past the function's parameters (DWARF) reads what is there, and says
# so; within them, nothing is said.
test_args_argn_past_the_parameters() {
	run_ptap record -o "$TMP/rec" -e 'exec_query $arg3 $arg9' \
		-- "$S/query_server" samples/queries.txt >/dev/null 2>"$TMP/err"
	expect_grep '^ptap: \$arg9 at exec_query: the function has 3 parameters (DWARF): it reads what is there, no argument of the call$' \
		"$TMP/err"
	! grep -q '\$arg3' "$TMP/err" || fail "\$arg3 said: $(cat "$TMP/err")"
	expect_eq "records" 7 "$(grep -c ': exec_query: ' "$TMP/rec")"
}

# FUNC+OFF and 0xADDR must start an instruction: inside one, the int3 would corrupt it.
test_args_offsets_and_addresses() {
	local bin=$S/query_server start second off mid
	# the second instruction of exec_query, from the disassembler
	read -r start second < <(objdump -d --no-show-raw-insn "$bin" |
		awk '/<exec_query>:$/ { f = 1; next } f && /^ *[0-9a-f]+:/ { sub(":", "", $1); a[n++] = $1 } n == 2 { print a[0], a[1]; exit }')
	off=$((0x$second - 0x$start))
	mid=$(printf '0x%x' $((0x$second + 1)))
	run_ptap record -o "$TMP/rec" -e "exec_query+$off %di:string" -e "a=0x$second %si:u32" \
		-- "$bin" samples/queries.txt >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_eq "FUNC+OFF records" 7 "$(grep -c "^exec_query_$off: arg1=" "$TMP/got")"
	expect_grep '^a: arg1=36$' "$TMP/got"
	expect_eq "0xADDR records" 7 "$(grep -c '^a: ' "$TMP/got")"
	expect_refused 2 "not an instruction boundary" \
		record -e "exec_query+$((off + 1))" -- "$bin" samples/queries.txt
	expect_refused 2 "not an instruction boundary" record -e "$mid" -- "$bin" samples/queries.txt
	expect_refused 2 "not inside a function" record -e 0x10 -- "$bin" samples/queries.txt
}

# Two probes on one address: both record every hit.
test_args_two_probes_one_site() {
	run_ptap record -q -o "$TMP/rec" -e 'exec_query %di:string' -e 'q2=exec_query %si:u32' \
		-- "$S/query_server" samples/queries.txt >/dev/null 2>"$TMP/err"
	normalize "$TMP/rec" >"$TMP/got"
	expect_eq "exec_query records" 7 "$(grep -c '^exec_query: arg1="' "$TMP/got")"
	expect_eq "q2 records" 7 "$(grep -c '^q2: arg1=[0-9]' "$TMP/got")"
	expect_eq "pairs in order" 'exec_query: arg1="SELECT 1"|q2: arg1=8' \
		"$(head -2 "$TMP/got" | paste -sd'|')"
	[ ! -s "$TMP/err" ] || fail "warnings: $(cat "$TMP/err")"
}

# A library loaded with dlopen after start, unloaded and loaded again.
test_args_dlopen_twice() {
	run_ptap record -o "$TMP/rec" -x "$S/libplugin.so" -e 'plugin_handle %di:string %si:s32' \
		-- "$S/dlopen_host" "$S/libplugin.so" 5 3>"$TMP/expect" >"$TMP/out"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/expect" "$TMP/got"
	expect_eq "records" 10 "$(wc -l <"$TMP/got")"
	expect_grep '^dlopen_host: done$' "$TMP/out"
}
