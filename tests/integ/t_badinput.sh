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

# A function the command has, whose variable is not there: that is the
# message, with no word of the libraries (the function was found); `retval`
# points at $retval.
test_bad_variable_of_a_found_function() {
	expect_refused 2 "no variable 'query_strin' at exec_query; in scope there: query_string, " \
		record -e 'exec_query query_strin' -- "$S/query_server" samples/queries.txt
	! grep -q 'libraries' "$TMP/err" || fail "the libraries named: $(cat "$TMP/err")"
	expect_refused 2 "no variable 'retval' at exec_query; .*; the return value is \$retval, on a return probe" \
		record -e 'exec_query%return retval' -- "$S/query_server" samples/queries.txt
}

# -x names the binary of the -e options after it: one after the last -e
# names none, and is refused rather than left unused.
test_bad_x_after_the_last_e() {
	expect_refused 2 "^ptap: record: -x /nonexistent comes after the last -e: .* put it before the -e$" \
		record -e exec_query -x /nonexistent -- "$S/query_server" samples/queries.txt
}

test_bad_no_binary() {
	expect_refused 2 "/nonexistent/lib.so" \
		record -x /nonexistent/lib.so -e 'puts' -- "$S/query_server" samples/queries.txt
}

test_bad_command_not_found() {
	expect_refused 127 "no-such-command-xyz: command not found" \
		record -e 'main' -- no-such-command-xyz
	# a path: as a shell says it
	expect_refused 127 "^ptap: ./no-such-file-xyz: No such file or directory$" \
		record -e 'main' -- ./no-such-file-xyz
}

test_bad_dwarf_variable() {
	expect_refused 2 "needs DWARF debug info" \
		record -e 'exec_query query_string:string' -- "$S/query_server-stripped" samples/queries.txt
}

# A function a stripped binary does not export: the message says it is
# stripped and what gives its names.
test_bad_function_of_a_stripped_binary() {
	expect_refused 2 "no function 'exec_qurey' in .*query_server-stripped; nearest: exec_query; it is stripped (no symbol table, no debug info found): install its debug package" \
		record -e 'exec_qurey' -- "$S/query_server-stripped" samples/queries.txt
	# not said of a binary with a symbol table
	expect_refused 2 "no function 'exec_qurey' in .*query_server; nearest: exec_query" \
		record -e 'exec_qurey' -- "$S/query_server" samples/queries.txt
	! grep -q stripped "$TMP/err" || fail "said stripped: $(cat "$TMP/err")"
}

# The command line's own forms: --version, help COMMAND, a usage error in one
# line and where the help is; perfetto's one document never on a launched
# command's stdout; report on a text record file says how to record JSON.
test_bad_cli_forms() {
	local rc=0
	run_ptap --version >"$TMP/out" || fail "ptap --version failed"
	expect_grep '^ptap [0-9a-f]' "$TMP/out"
	run_ptap help record >"$TMP/out" || fail "ptap help record failed"
	expect_eq "help record, first line" \
		'usage: ptap record [OPTIONS] -e PROBE [-e PROBE ...] -- COMMAND [ARG...]' \
		"$(head -1 "$TMP/out")"
	expect_refused 2 "^ptap: record: unrecognized option '--bogus'$" record --bogus
	expect_eq "usage error's lines" "$(printf '%s\n' \
		"ptap: record: unrecognized option '--bogus'" 'see `ptap record --help`')" \
		"$(cat "$TMP/err")"
	expect_refused 2 '^see `ptap vars --help`$' vars
	# a command mistyped, or an option before the command (perf probe's order)
	expect_refused 2 "^ptap: unknown command 'recrod'; did you mean 'record'?$" recrod
	expect_refused 2 "^ptap: unknown command 'xyz'$" xyz
	expect_refused 2 "^ptap: unknown command '-e'; an option goes after the command: ptap record -e \.\.\.$" \
		-e exec_query
	expect_refused 2 "give -o FILE, not stdout (the command's own output would mix into it)" \
		record --format perfetto -e exec_query -- "$S/query_server" samples/queries.txt
	expect_refused 2 "give -o FILE, not stdout" \
		record -o - --format perfetto -e exec_query -- "$S/query_server" samples/queries.txt
	run_ptap record -o "$TMP/rec.txt" -e exec_query -- "$S/query_server" samples/queries.txt \
		>/dev/null 2>&1 || fail "ptap record failed"
	run_ptap report "$TMP/rec.txt" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "report on text: exit status" 2 "$rc"
	expect_grep 'a text record file: ptap report reads JSON lines; record with `ptap record --format json`' \
		"$TMP/err"
}

# A libc function without -x: found in the libraries the command links
# (DT_NEEDED), probed there and said once; a name that is nowhere says
# where it was looked for and names -x.
test_bad_libc_function_without_x() {
	echo hello >"$TMP/hostfile"
	run_ptap record -o "$TMP/rec" -e '__libc_open64 file:string' -- cat "$TMP/hostfile" \
		>"$TMP/out" 2>"$TMP/err" || fail "ptap failed: $(cat "$TMP/err")"
	expect_eq "cat's output" hello "$(cat "$TMP/out")"
	expect_grep "^ptap: '__libc_open64' is not in .*cat: probed in .*/libc\.so\.6, a library it links" \
		"$TMP/err"
	expect_grep "^cat .*: __libc_open64: .* file=\"$TMP/hostfile\"\$" "$TMP/rec"
	expect_refused 2 "no function 'nosuchfunc' in .*query_server .*(nor in the libraries it links: libc\.so\.6.*-x LIB)" \
		record -e nosuchfunc -- "$S/query_server" samples/queries.txt
}
