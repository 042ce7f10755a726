# Bad input: exit 2 with a message that names the problem, nothing launched.

# expect_refused EXIT PATTERN ptap-args...: the command must not run.
expect_refused() {
	local want=$1 pattern=$2 rc=0
	shift 2
	run_ptap "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" "$want" "$rc"
	expect_grep "$pattern" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "output from a refused run: $(cat "$TMP/out")"
}

test_bad_unknown_function() {
	expect_refused 2 "no function 'exec_qurey' in .*; nearest: exec_query" \
		record -e 'exec_qurey %di:string' -- "$S/query_server" samples/queries.txt
}

test_bad_malformed_probe() {
	expect_refused 2 "bad probe 'exec_query %di:strnig'" \
		record -e 'exec_query %di:strnig' -- "$S/query_server" samples/queries.txt
	# the caret stands under the bad type
	expect_grep '^  exec_query %di:strnig$' "$TMP/err"
	expect_grep '^                 \^$' "$TMP/err"
}

test_bad_register() {
	expect_refused 2 "unknown register '%zz'" \
		record -e 'exec_query %zz' -- "$S/query_server" samples/queries.txt
}

test_bad_not_elf() {
	expect_refused 2 "not an ELF file" \
		record -x /etc/passwd -e 'puts' -- "$S/query_server" samples/queries.txt
}

test_bad_no_binary() {
	expect_refused 2 "/nonexistent/lib.so" \
		record -x /nonexistent/lib.so -e 'puts' -- "$S/query_server" samples/queries.txt
}

test_bad_command_not_found() {
	expect_refused 127 "no-such-command-xyz: command not found" \
		record -e 'main' -- no-such-command-xyz
}

test_bad_dwarf_variable() {
	expect_refused 2 "needs DWARF debug info" \
		record -e 'exec_query query_string:string' -- "$S/query_server-stripped" samples/queries.txt
}
