# ptap list: the functions of a binary with the file:line of their definition.

QS_SRC=samples/query_server.c

# src_line PATTERN: the line of query_server.c where PATTERN first matches.
src_line() {
	grep -n -m1 -- "$1" "$QS_SRC" | cut -d: -f1
}

test_list_sample_functions() {
	run_ptap list -x "$S/query_server" >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
	expect_grep "^exec_query	$QS_SRC:$(src_line ' int exec_query(')\$" "$TMP/out"
	expect_grep "^query_stats	$QS_SRC:$(src_line ' long query_stats(')\$" "$TMP/out"
	expect_grep "^state_dwarf	$QS_SRC:$(src_line '^static void state_dwarf(')\$" "$TMP/out"
	# a function of an included header, by that header's name
	expect_grep "^ex_str	samples/expect.h:$(grep -n -m1 'void ex_str(' samples/expect.h | cut -d: -f1)\$" \
		"$TMP/out"
	expect_grep "^main	$QS_SRC:$(src_line '^int main(')\$" "$TMP/out"
	# sorted by name, each name once
	LC_ALL=C sort -c "$TMP/out" || fail "not sorted"
	expect_eq "distinct names" "$(wc -l <"$TMP/out")" "$(cut -f1 "$TMP/out" | sort -u | wc -l)"
}

test_list_glob() {
	run_ptap list -x "$S/query_server-O0" 'exec*' >"$TMP/out"
	printf 'exec_query\t%s:%s\n' "$QS_SRC" "$(src_line ' int exec_query(')" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/out"
	run_ptap list -x "$S/query_server" '[qs]*' >"$TMP/out"
	expect_eq "names" "query_stats state_dwarf" "$(cut -f1 "$TMP/out" | xargs)"
}

test_list_no_dwarf_names_only() {
	run_ptap list -x "$S/query_server-stripped" >"$TMP/out"
	expect_grep '^exec_query$' "$TMP/out"
	expect_grep '^query_stats$' "$TMP/out"
	! grep -q '	' "$TMP/out" || fail "a file:line without DWARF: $(grep '	' "$TMP/out")"
}

test_list_no_match() {
	local rc=0
	run_ptap list -x "$S/query_server" 'zz*' >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 1 "$rc"
	expect_grep "no function matches 'zz\*'" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "output: $(cat "$TMP/out")"
	! grep -q stripped "$TMP/err" || fail "said stripped: $(cat "$TMP/err")"
	# a stripped binary without debug info: said, with what gives its names
	rc=0
	run_ptap list -x "$S/query_server-stripped" 'zz*' >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (stripped)" 1 "$rc"
	expect_grep "no function matches 'zz\*' in .*query_server-stripped: it is stripped (no symbol table, no debug info found): install its debug package" \
		"$TMP/err"
}

test_list_bad_binary() {
	local rc=0
	run_ptap list -x /nonexistent/lib.so >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "/nonexistent/lib.so: No such file or directory" "$TMP/err"
	rc=0
	run_ptap list -x /etc/passwd >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "/etc/passwd: not an ELF file" "$TMP/err"
	rc=0
	run_ptap list >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status without -x" 2 "$rc"
	expect_grep "give the binary with -x BINARY" "$TMP/err"
}

# libc's functions come from its separate debug file (libc6-dbg), found by build-id.
test_list_libc_debug_file() {
	local id
	id=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
	[ -r "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
		fail "no /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug: scripts/deps.sh (run by make test) installs libc6-dbg"
	run_ptap list -x "$LIBC" '__libc_open64' >"$TMP/out"
	expect_grep '^__libc_open64	.*/open64\.c:[0-9][0-9]*$' "$TMP/out"
	run_ptap list -x "$LIBC" 'open64' >"$TMP/out"
	expect_eq "alias" "$(cut -f2 "$TMP/out")" \
		"$(run_ptap list -x "$LIBC" '__libc_open64' | cut -f2)"
}

# A stripped copy finds its DWARF by build-id under --debuginfo-dir.
test_list_debuginfo_dir() {
	local id
	cp "$S/query_server" "$TMP/qs"
	objcopy --only-keep-debug "$TMP/qs" "$TMP/qs.debug"
	strip -g "$TMP/qs"
	id=$(readelf -n "$TMP/qs" | awk '/Build ID/ { print $3 }')
	mkdir -p "$TMP/dbg/.build-id/${id:0:2}"
	mv "$TMP/qs.debug" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug"
	run_ptap list -x "$TMP/qs" 'exec*' >"$TMP/out"
	expect_eq "without the debug file" "exec_query" "$(cat "$TMP/out")"
	run_ptap list --debuginfo-dir "$TMP/dbg" -x "$TMP/qs" 'exec*' >"$TMP/out"
	expect_eq "with it" "exec_query	$QS_SRC:$(src_line ' int exec_query(')" "$(cat "$TMP/out")"
}

# Issue 17's reproducers name libraries as the loader does (-x libc.so.6,
# -x libsqlite3.so.0): a bare name is the library the process has mapped
# (attached), else the one in LD_LIBRARY_PATH or the loader's directories.
test_x_bare_library_name() {
	local rc=0 pid
	run_ptap list -x "$LIBC" 'strlen*' >"$TMP/want"
	run_ptap list -x "${LIBC##*/}" 'strlen*' >"$TMP/out"
	expect_diff "$TMP/want" "$TMP/out"
	# LD_LIBRARY_PATH first
	LD_LIBRARY_PATH=/nonexistent:$S run_ptap list -x libplugin.so 'plugin_*' >"$TMP/out"
	expect_grep '^plugin_handle	' "$TMP/out"
	# launched: the same records as with the path
	run_ptap record -o "$TMP/rec" -x "${LIBC##*/}" -e 'puts %di:string' -- \
		"$S/query_server" samples/queries.txt >/dev/null
	records "$TMP/rec" | normalize >"$TMP/bare"
	run_ptap record -o "$TMP/rec" -x "$LIBC" -e 'puts %di:string' -- \
		"$S/query_server" samples/queries.txt >/dev/null
	records "$TMP/rec" | normalize >"$TMP/path"
	[ -s "$TMP/path" ] || fail "no puts records"
	expect_diff "$TMP/path" "$TMP/bare"
	# attached: the file the process has mapped
	"$S/sysio" loop "$TMP/ticks" 3 >"$TMP/out" 2>&1 &
	pid=$!
	wait_for grep -q READY "$TMP/out"
	run_ptap record --duration 0.5 -o "$TMP/rec" -x "${LIBC##*/}" -e 'write fd=%di:s32' \
		-p "$pid" 2>"$TMP/err" || rc=$?
	wait "$pid"
	expect_eq "ptap exit status ($(cat "$TMP/err"))" 0 "$rc"
	records "$TMP/rec" | grep -q ': write: .* fd=3$' || fail "no write records"
	# nowhere: exit 2, and what to do
	rc=0
	run_ptap record -x libnosuch.so.9 -e f -- true 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "^ptap: -x libnosuch.so.9: no such file, nor a library of that name in the " \
		"$TMP/err"
}
