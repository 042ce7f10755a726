# One read of target memory per hit (issue 7): the first reads of all the
# programs of a site made in one process_vm_readv, counted with strace.
# strace follows ptap alone (no -f): ptap itself ptraces the command.

# readv_run FILE SUBCOMMAND PTAP-ARGS...: run_ptap under strace, its
# process_vm_readv calls to FILE.  Every hit a stop (--no-agent): recorded in
# the process, a hit makes ptap read nothing.
readv_run() {
	local out=$1 sub=$2
	shift 2
	command -v strace >/dev/null || fail "strace is not installed"
	timeout 60 strace -o "$out" -e trace=process_vm_readv "$PTAP" "$sub" --no-agent "$@"
}

# readv_calls FILE: how many process_vm_readv calls FILE shows.
readv_calls() {
	grep -c '^process_vm_readv(' "$1" || true
}

# Two probes at one site (the second's event exec_query_1, as perf names
# it), four arguments read from memory: the query string,
# a member through a register, the DWARF ones (desc->source_text: its load is
# through rdx, its string is the query's bytes; a global's string) -- one
# call per hit, beyond the calls a probe reading no memory makes.
test_fetch_one_readv_per_hit() {
	local base calls
	readv_run "$TMP/st0" record -o "$TMP/rec0" -e 'exec_query len=%si:u32' -e 'exec_query %di' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	base=$(readv_calls "$TMP/st0")
	readv_run "$TMP/st1" record -o "$TMP/rec" \
		-e 'exec_query query_string=%di:string len=%si:u32 nrows=+8(%dx):s32 text=desc->source_text:string' \
		-e 'exec_query dbg=debug_query_string:string' \
		-- "$S/query_server" samples/queries.txt 3>"$TMP/stated" >/dev/null
	calls=$(readv_calls "$TMP/st1")
	expect_eq "process_vm_readv calls beyond the $base without memory arguments" 7 \
		$((calls - base))
	# what the sample states for query_string and len; nrows is the query's number
	awk '{ q = $0; sub(/^exec_query: query_string=/, "", q); sub(/ len=[0-9]+$/, "", q)
	       print $0 " nrows=" NR " text=" q; print "exec_query_1: dbg=" q }' \
		"$TMP/stated" >"$TMP/want"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	expect_eq "records" 14 "$(wc -l <"$TMP/got")"
}

# A return probe: the string fetched at the entry is read with the return
# address (one call), nothing is read at the return ($retval).
test_fetch_retprobe_entry_in_the_same_call() {
	local base calls
	readv_run "$TMP/st0" record -o "$TMP/rec0" -e 'exec_query%return $retval' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	base=$(readv_calls "$TMP/st0")
	QS_EXPECT=return readv_run "$TMP/st1" record -o "$TMP/rec" \
		-e 'exec_query%return $retval query_string' \
		-- "$S/query_server" samples/queries.txt 3>"$TMP/want" >/dev/null
	calls=$(readv_calls "$TMP/st1")
	expect_eq "process_vm_readv calls, with the string and without" "$base" "$calls"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	expect_eq "records" 7 "$(wc -l <"$TMP/got")"
	# the entry's reads: the return address's slot and the string, in one call
	expect_eq "calls reading two ranges" 7 "$(grep -c '^process_vm_readv([0-9]*, \[{.*}, {.*}\], 2,' "$TMP/st1")"
}

# Faults in a batch, among a NULL global string (query_stats runs after the
# caller set debug_query_string back to NULL: NULL, not an error): a load and
# a string at small integers (7 and 14 queries): each an error, the others read.
test_fetch_faults_in_a_batch() {
	run_ptap record -o "$TMP/rec" \
		-e 'query_stats prev=@debug_query_string:string bad=+0(%di):u64 a2=%si s=%si:string n=%si:u32' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	echo 'query_stats: prev=NULL bad=(error: bad address 0x7) a2=0xe s=(error: bad address 0xe) n=14' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}
