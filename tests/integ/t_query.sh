# query_server: the README's recipe, on every build of the sample.

QS_PROBE='exec_query query_string=%di:string len=%si:u32'

# check_variant BINARY: records equal the program's own statement on fd 3.
check_variant() {
	local bin=$1
	run_ptap record -o "$TMP/rec" -e "$QS_PROBE" -- "$bin" samples/queries.txt \
		3>"$TMP/expect" >"$TMP/stdout"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/expect" "$TMP/got"
	expect_eq "record count" 7 "$(records "$TMP/rec" | wc -l)"
}

test_query_O2()       { check_variant "$S/query_server"; }
test_query_O0()       { check_variant "$S/query_server-O0"; }
test_query_nopie()    { check_variant "$S/query_server-nopie"; }
test_query_stripped() { check_variant "$S/query_server-stripped"; }

test_query_output_untouched() {
	"$S/query_server" samples/queries.txt >"$TMP/plain"
	run_ptap record -o "$TMP/rec" -e "$QS_PROBE" -- "$S/query_server" samples/queries.txt \
		>"$TMP/traced"
	expect_diff "$TMP/plain" "$TMP/traced"
}

test_query_stdout_records() {
	run_ptap record -e 'exec_query %di:string %si:u32' -- "$S/query_server" samples/queries.txt \
		>"$TMP/all"
	expect_grep '^query_server [0-9]*/[0-9]* [0-9]*\.[0-9]\{9\}: exec_query: (0x[0-9a-f]*) arg1="SELECT 1" arg2=8$' "$TMP/all"
	expect_grep '^query_server: done$' "$TMP/all"
	expect_eq "records" 7 "$(grep -c ': exec_query: ' "$TMP/all")"
}

test_query_json() {
	run_ptap record --format json -o "$TMP/rec" -e "$QS_PROBE" -- "$S/query_server" \
		samples/queries.txt >/dev/null
	expect_eq "records" 7 "$(records "$TMP/rec" | wc -l)"
	expect_grep '"event":"exec_query","kind":"entry","addr":"0x[0-9a-f]*","args":{"query_string":"SELECT 1","len":8}}$' "$TMP/rec"
	expect_grep $'"args":{"query_string":"INSERT INTO log VALUES (\'it\'\'s \\\\"quoted\\\\"\', \'back\\\\\\\\slash\')","len":55}' "$TMP/rec"
	expect_grep '"query_string":"UPDATE t SET a = 1\\tWHERE b = 2"' "$TMP/rec"
	expect_grep '"pid":[0-9]*,"tid":[0-9]*,"comm":"query_server"' "$TMP/rec"
}

# Timestamps: ns of the chosen clock, non-decreasing, inside the run.
test_query_timestamps() {
	local before after
	before=$(date +%s%N)
	run_ptap record --clock realtime --format json -o "$TMP/rec" -e "$QS_PROBE" \
		-- "$S/query_server" samples/queries.txt >/dev/null
	after=$(date +%s%N)
	records "$TMP/rec" | sed -E 's/^\{"ts":([0-9]+),.*/\1/' >"$TMP/ts"
	sort -n -c "$TMP/ts" || fail "timestamps go backwards"
	[ "$(head -1 "$TMP/ts")" -ge "$before" ] || fail "first record before the run"
	[ "$(tail -1 "$TMP/ts")" -le "$after" ] || fail "last record after the run"
	# monotonic (the default) counts from boot: far below the realtime epoch
	run_ptap record --format json -o "$TMP/rec" -e "$QS_PROBE" \
		-- "$S/query_server" samples/queries.txt >/dev/null
	[ "$(records "$TMP/rec" | sed -E 's/^\{"ts":([0-9]+),.*/\1/; q')" -lt "$before" ] ||
		fail "default clock is not monotonic"
}

test_query_exit_status() {
	local rc=0
	run_ptap record -o "$TMP/rec" -e 'exec_query' -- "$S/query_server" /dev/null >/dev/null || rc=$?
	expect_eq "exit status of a command that exits 1" 1 "$rc"
	rc=0
	run_ptap record -o "$TMP/rec" -x "$LIBC" -e 'puts' -- sh -c 'kill -TERM $$' || rc=$?
	expect_eq "exit status of a command killed by SIGTERM" 143 "$rc"
}

test_query_string_max() {
	run_ptap record --string-max 6 -o "$TMP/rec" -e "$QS_PROBE" -- "$S/query_server" \
		samples/queries.txt >/dev/null
	expect_grep 'query_string="SELECT"\.\.\.(+2 bytes) len=8$' "$TMP/rec"
	expect_grep 'query_string="" len=0$' "$TMP/rec"
}

# A string cut at --string-max inside a multi-byte character ends before it: no piece of
# the character shows as invalid bytes (JSON \u00e6 would read as a character that was
# never there), and (+N bytes) counts every byte not shown.  Invalid bytes before the cut
# still show as \xNN.
test_query_string_max_utf8() {
	printf 'SELECT "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"\nSELECT \xf0\x9f\x98\x80\xf0\x9f\x98\x80\nab\xff\xfe\xfdcdefgh\n' \
		>"$TMP/q"
	run_ptap record --string-max 9 -o "$TMP/rec" -e 'exec_query %di:string' \
		-- "$S/query_server" "$TMP/q" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	cat >"$TMP/want" <<-'END'
	exec_query: arg1="SELECT \""...(+10 bytes)
	exec_query: arg1="SELECT "...(+8 bytes)
	exec_query: arg1="ab\xff\xfe\xfdcdef"...(+2 bytes)
	END
	expect_diff "$TMP/want" "$TMP/got"
	local fmt
	for fmt in json perfetto; do
		run_ptap record --format $fmt --string-max 9 -o "$TMP/rec.$fmt" \
			-e 'exec_query %di:string' -- "$S/query_server" "$TMP/q" >/dev/null
		python3 - "$TMP/rec.$fmt" "$fmt" <<-'END' >"$TMP/got.$fmt" ||
		import json, sys
		text = open(sys.argv[1], encoding="utf-8").read()
		if sys.argv[2] == "json":
		    recs = [json.loads(l) for l in text.splitlines()[1:]]
		else:
		    recs = [e for e in json.loads(text)["traceEvents"] if e.get("name") == "exec_query"]
		for r in recs:
		    a = r["args"]["arg1"]
		    print(json.dumps(a["value"]), a["truncated"], a["length"])
		END
			fail "$fmt: not read as JSON"
		cat >"$TMP/want.$fmt" <<-'END'
		"SELECT \"" True 18
		"SELECT " True 15
		"ab\u00ff\u00fe\u00fdcdef" True 11
		END
		expect_diff "$TMP/want.$fmt" "$TMP/got.$fmt"
	done
}
