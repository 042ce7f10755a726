# ptap report: the summary of a JSON-lines record file, on a fixed file
# (golden text and JSON) and on what `ptap record --format json` writes;
# --by-context, the syscalls per context, on a fixed file.

REPORT_IN=tests/integ/golden/report_in.jsonl
CTX_IN=tests/integ/golden/report_ctx_in.jsonl

test_report_golden_text() {
	run_ptap report "$REPORT_IN" >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
	expect_diff tests/integ/golden/report_out.txt "$TMP/out"
	# stdin, without FILE or as '-': the same
	run_ptap report <"$REPORT_IN" >"$TMP/stdin"
	expect_diff tests/integ/golden/report_out.txt "$TMP/stdin"
	run_ptap report - <"$REPORT_IN" >"$TMP/dash"
	expect_diff tests/integ/golden/report_out.txt "$TMP/dash"
}

test_report_golden_json() {
	run_ptap report --format json "$REPORT_IN" >"$TMP/out"
	expect_diff tests/integ/golden/report_out.json "$TMP/out"
	run_ptap report -F json <"$REPORT_IN" >"$TMP/stdin"
	expect_diff tests/integ/golden/report_out.json "$TMP/stdin"
}

# The real pipeline: record the sample as JSON, then summarise it.
test_report_recorded_queries() {
	run_ptap record --format json -o "$TMP/rec" -e 'exec_query query_string:string' \
		-- "$S/query_server" samples/queries.txt >/dev/null
	run_ptap report "$TMP/rec" >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
	expect_grep '^7 records of 1 event over [0-9]*\.[0-9]\{9\} s$' "$TMP/out"
	expect_grep '^exec_query: 7 records, [0-9.]*/s (entry 7)$' "$TMP/out"
	# each line of samples/queries.txt once, in order, as JSON strings
	cat >"$TMP/want" <<-'EOF'
	  query_string: 7 distinct values
	    1  "SELECT 1"
	    1  "SELECT name FROM users WHERE id = 42"
	    1  "INSERT INTO log VALUES ('it''s \"quoted\"', 'back\\slash')"
	    1  "SELECT * FROM café WHERE ü = 1"
	    1  "UPDATE t SET a = 1\tWHERE b = 2"
	    1  ""
	    1  "DELETE FROM sessions"
	EOF
	sed -n '/^  query_string:/,$p' "$TMP/out" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	run_ptap report --format json "$TMP/rec" >"$TMP/json"
	expect_grep '^      "event": "exec_query",$' "$TMP/json"
	expect_grep '^      "records": 7,$' "$TMP/json"
	expect_grep '^            {"count": 1, "value": "DELETE FROM sessions"}$' "$TMP/json"
}

# The pipeline through a pipe: `record -o -` writes to stdout (no file named
# "-"), `report -` reads stdin; the command's own output sent elsewhere.
test_report_record_through_a_pipe() {
	local ptap s q

	ptap=$(realpath "$PTAP") s=$(realpath "$S") q=$(realpath samples/queries.txt)
	(cd "$TMP" && timeout 60 "$ptap" record -o - -F json -x "$s/query_server" \
		-e 'exec_query query_string:string' -- \
		sh -c "exec $s/query_server $q >/dev/null" 2>"$TMP/err") |
		run_ptap report - >"$TMP/out"
	[ ! -e "$TMP/-" ] || fail "record -o - wrote a file named -"
	expect_grep '^7 records of 1 event over [0-9]*\.[0-9]\{9\} s$' "$TMP/out"
	expect_grep '^    1  "DELETE FROM sessions"$' "$TMP/out"
}

# report_refused WHAT PATTERN ptap-args...: exit 2, PATTERN on stderr, nothing on stdout.
report_refused() {
	local what=$1 pattern=$2 rc=0
	shift 2
	run_ptap report "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "$what: exit status" 2 "$rc"
	expect_grep "$pattern" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "$what: output: $(cat "$TMP/out")"
}

test_report_malformed_input() {
	local e="not a JSON object"
	head -2 "$REPORT_IN" >"$TMP/bad"
	echo '{"ts":1,"event":"x",}' >>"$TMP/bad"
	head -2 "$REPORT_IN" >>"$TMP/bad"
	report_refused "trailing comma" \
		"^ptap: $TMP/bad:3:21: $e: expected a string (a member name), found '}'$" "$TMP/bad"

	head -5 "$REPORT_IN" >"$TMP/notobj"
	echo '["an","array"]' >>"$TMP/notobj"
	report_refused "an array" "^ptap: $TMP/notobj:6: $e" "$TMP/notobj"

	printf 'exec_query: (0x1000) arg1="SELECT 1"\n' >"$TMP/text"
	report_refused "a text record" "^ptap: <stdin>:1:1: $e: expected a value, found 'e' (a traced command's own output among the records? \`ptap record -o FILE\` keeps them apart)$" \
		<"$TMP/text"

	head -3 "$REPORT_IN" >"$TMP/blank"
	echo >>"$TMP/blank"
	report_refused "empty line" "^ptap: $TMP/blank:4:1: $e: expected a value, found the end" \
		"$TMP/blank"

	# a file cut in the middle of its last line (ptap killed while writing)
	head -c 1000 "$REPORT_IN" >"$TMP/cut"
	report_refused "a cut line" "^ptap: $TMP/cut:$(($(wc -l <"$TMP/cut") + 1)):[0-9]*: $e" \
		"$TMP/cut"
}

test_report_by_context_golden_text() {
	run_ptap report --by-context "$CTX_IN" >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
	expect_diff tests/integ/golden/report_ctx_out.txt "$TMP/out"
	run_ptap report -F text --by-context - <"$CTX_IN" >"$TMP/stdin"
	expect_diff tests/integ/golden/report_ctx_out.txt "$TMP/stdin"
}

test_report_by_context_golden_json() {
	run_ptap report --by-context --format json "$CTX_IN" >"$TMP/out"
	expect_diff tests/integ/golden/report_ctx_out.json "$TMP/out"
	run_ptap report -F json --by-context <"$CTX_IN" >"$TMP/stdin"
	expect_diff tests/integ/golden/report_ctx_out.json "$TMP/stdin"
	# the long context value is whole in JSON
	local q='"SELECT name, email FROM users WHERE city = '"'Zürich'"'\tORDER BY name"'
	grep -qF "$q},\"txn\":{\"id\":7}}," "$TMP/out" || fail "the long query is cut in $TMP/out"
}

# Without --by-context, a file that starts with the clock line and holds
# syscall records: the clock is shown, not counted; syscalls are events.
test_report_clock_line_and_syscalls() {
	run_ptap report "$CTX_IN" >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
	expect_eq "first lines" "18 records of 9 events over 0.000017000 s
clock: monotonic" "$(head -2 "$TMP/out")"
	expect_grep '^pwrite64: 5 records, [0-9.]*/s (syscall 5), 1 truncated$' "$TMP/out"
	expect_grep '^exec_query__return: 1 record, [0-9.]*/s (return 1)$' "$TMP/out"
	run_ptap report --format json "$CTX_IN" >"$TMP/json"
	expect_grep '^  "records": 18,$' "$TMP/json"
	expect_grep '^  "without_event": 0,$' "$TMP/json"
	expect_grep '^  "clocks": \["monotonic"\],$' "$TMP/json"
	# the golden file with a clock line first: the same summary, plus the clock
	{ echo '{"kind":"clock","clock":"monotonic"}'; cat "$REPORT_IN"; } >"$TMP/clocked"
	run_ptap report "$TMP/clocked" >"$TMP/out"
	sed '1a clock: monotonic' tests/integ/golden/report_out.txt >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/out"
}

test_report_empty_and_usage() {
	local rc=0
	: >"$TMP/empty"
	run_ptap report "$TMP/empty" >"$TMP/out"
	expect_eq "empty file" "no records" "$(cat "$TMP/out")"
	run_ptap report </dev/null >"$TMP/out"
	expect_eq "empty stdin" "no records" "$(cat "$TMP/out")"
	run_ptap report --format json "$TMP/empty" >"$TMP/out"
	expect_grep '^  "records": 0,$' "$TMP/out"
	expect_grep '^  "events": \[\]$' "$TMP/out"

	run_ptap report --help >"$TMP/out"
	expect_grep '"p50_ns":N' "$TMP/out"
	report_refused "unknown format" "unknown format 'xml'" --format xml "$REPORT_IN"
	report_refused "two files" "one FILE at most" "$REPORT_IN" "$REPORT_IN"
	report_refused "missing file" "cannot open $TMP/nonexistent: No such file or directory" \
		"$TMP/nonexistent"
	run_ptap report --bogus >/dev/null 2>&1 || rc=$?
	expect_eq "unknown option" 2 "$rc"

	run_ptap report --by-context "$TMP/empty" >"$TMP/out"
	expect_eq "empty file, by context" "no records" "$(cat "$TMP/out")"
	run_ptap report --by-context -F json "$TMP/empty" >"$TMP/out"
	expect_grep '^  "contexts": \[\]$' "$TMP/out"
	run_ptap report --by-context "$REPORT_IN" >"$TMP/out"
	expect_eq "no syscall records" "0 syscall records of 39 records, in 0 contexts
(no syscall records: \`ptap record --syscalls LIST\` writes them)" "$(cat "$TMP/out")"
	run_ptap report --help >"$TMP/out"
	expect_grep '^usage: ptap report \[--by-context\] \[--format text|json\] \[FILE\]$' \
		"$TMP/out"
	expect_grep '"time_ns":N|null' "$TMP/out"
	report_refused "by-context with a value" "doesn't allow an argument" \
		--by-context=exec_query "$CTX_IN"
	report_refused "by-context, two files" "one FILE at most" --by-context "$CTX_IN" "$CTX_IN"
}
