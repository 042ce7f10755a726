# --filter: only the hits that match are written, the same records a filter
# applied afterwards to the unfiltered run keeps; at a stop and in the process.

QS=$O/samples/query_server

# filter_same MODE PROBE FILTER AWK: the records of PROBE with FILTER equal
# those of PROBE without it that AWK (on the normalized lines) keeps.  MODE:
# "" (in the process) or --no-agent (a stop a hit).
filter_same() {
	local mode=$1 probe=$2 filter=$3 prog=$4
	run_ptap record -q $mode -o "$TMP/all" -e "$probe" -- "$QS" samples/queries.txt \
		>/dev/null 2>"$TMP/err" || { fail "unfiltered run: $(cat "$TMP/err")"; return; }
	run_ptap record $mode -o "$TMP/some" -e "$probe" --filter "$filter" \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err" ||
		{ fail "filtered run: $(cat "$TMP/err")"; return; }
	normalize "$TMP/all" | awk "$prog" >"$TMP/want"
	normalize "$TMP/some" >"$TMP/got"
	[ -s "$TMP/want" ] && [ "$(wc -l <"$TMP/want")" -lt 7 ] ||
		fail "the filter must keep some records, not all: $(wc -l <"$TMP/want")"
	expect_diff "$TMP/want" "$TMP/got"
	# the summary counts the hits left out
	expect_grep "^ptap: [a-z_]*: $(wc -l <"$TMP/got") records\\{0,1\\} ($((7 - $(wc -l <"$TMP/got"))) more hits left out by --filter)\$" \
		"$TMP/err"
}

test_filter_glob_and_number() {
	filter_same "" 'exec_query query_string len' 'query_string ~ "*FROM*" && len > 30' \
		'/query_string="[^"]*FROM/ { n = $0; sub(/.* len=/, "", n); if (n + 0 > 30) print }'
}

test_filter_at_a_stop() {
	filter_same --no-agent 'exec_query query_string len' 'query_string ~ "*FROM*" && len > 30' \
		'/query_string="[^"]*FROM/ { n = $0; sub(/.* len=/, "", n); if (n + 0 > 30) print }'
}

test_filter_or_not_retval() {
	filter_same "" 'exec_query%return $retval query_string' \
		'!($retval > 3) || query_string == "DELETE FROM sessions"' \
		'{ r = $0; sub(/.*retval=/, "", r); sub(/ .*/, "", r) }
		 r + 0 <= 3 || /query_string="DELETE FROM sessions"$/'
}

test_filter_pid_comm() {
	run_ptap record -o "$TMP/rec" -e 'exec_query len' --filter 'comm == "query_server" && pid > 0' \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err"
	expect_eq "records" 7 "$(records "$TMP/rec" | wc -l)"
	run_ptap record -o "$TMP/rec" -e 'exec_query len' --filter 'comm ~ "other*" || tid < 0' \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err"
	expect_eq "records" 0 "$(records "$TMP/rec" | wc -l)"
	expect_grep '^ptap: exec_query: 0 records (7 more hits left out by --filter)$' "$TMP/err"
}

test_filter_refused() {
	local rc=0
	run_ptap record -o "$TMP/rec" -e 'exec_query query_string len' --filter 'size > 1' \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	[ ! -s "$TMP/out" ] || fail "the command ran"
	expect_grep "^ptap: --filter 'size > 1' of exec_query: no argument 'size' in this probe's records: it has query_string, len; and pid, tid, comm\$" \
		"$TMP/err"
	expect_grep '^  \^$' "$TMP/err"
	rc=0
	run_ptap record --filter 'len > 1' -e 'exec_query len' -- "$QS" samples/queries.txt \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "^ptap: record: --filter len > 1: give it after the -e whose hits it filters\$" \
		"$TMP/err"
}

# In the process, the agent matches the filter in the target: a hit left out
# is not written to the ring, and counted there (-vv says where it is matched).
# One naming comm is matched by ptap, which knows it.
test_filter_in_the_agent() {
	run_ptap record -vv -o "$TMP/rec" -e 'exec_query query_string len' \
		--filter 'query_string ~ "*FROM*" && len > 30' \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err" || { fail "$(cat "$TMP/err")"; return; }
	expect_grep "exec_query's --filter is matched in the process$" "$TMP/err"
	expect_grep '^ptap: exec_query: 2 records (5 more hits left out by --filter)$' "$TMP/err"
	expect_eq "records" 2 "$(records "$TMP/rec" | wc -l)"
	run_ptap record -vv -o "$TMP/rec" -e 'exec_query len' --filter 'comm == "query_server" && len > 30' \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err" || { fail "$(cat "$TMP/err")"; return; }
	! grep -q "matched in the process" "$TMP/err" || fail "a filter on comm matched in the agent"
	expect_eq "records (comm)" 3 "$(records "$TMP/rec" | wc -l)"
}

# Two probes at one site share a slot of the ring: the one the filter leaves
# out is skipped, the other written; none of the first's hits is lost.
test_filter_in_the_agent_shared_slot() {
	run_ptap record -o "$TMP/rec" -e 'all=exec_query len' -e 'some=exec_query query_string len' \
		--filter 'len == 8' -- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err" ||
		{ fail "$(cat "$TMP/err")"; return; }
	expect_eq "all" 7 "$(records "$TMP/rec" | grep -c ': all: ')"
	expect_eq "some" 1 "$(records "$TMP/rec" | grep -c ': some: .* len=8$')"
	expect_eq "some, others" 0 "$(records "$TMP/rec" | grep ': some: ' | grep -vc ' len=8$')"
	expect_grep '^ptap: some: 1 record (6 more hits left out by --filter)$' "$TMP/err"
}
