# --format perfetto: one Chrome trace-event JSON document, checked by
# tests/integ/perfetto_check.py (structure, names, order, nesting).

PF_CHECK=tests/integ/perfetto_check.py

# pf_record TRACE PTAP-ARGS...: record in the perfetto format into TRACE; the
# command's fd 3 goes to $TMP/pf_stated, its stdout to $TMP/pf_out.
pf_record() {
	local trace=$1
	shift
	run_ptap record --format perfetto -o "$trace" "$@" 3>"$TMP/pf_stated" >"$TMP/pf_out"
}

# The README's recipe: 7 instants on one thread, with the queries the sample ran.
test_perfetto_query() {
	pf_record "$TMP/q.json" -e 'exec_query query_string:string' \
		-- "$S/query_server" samples/queries.txt
	python3 $PF_CHECK "$TMP/q.json" >"$TMP/summary"
	expect_eq "summary" "events: 7 instant, 0 slice, 2 metadata
threads: 1, processes: 1
instant exec_query: 7" "$(cat "$TMP/summary")"
	python3 $PF_CHECK --instants "$TMP/q.json" >"$TMP/got"
	sed -E 's/ len=[0-9]+$//' "$TMP/pf_stated" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	python3 $PF_CHECK --threads "$TMP/q.json" >"$TMP/threads"
	grep -qE '^([0-9]+) \1 query_server/\1$' "$TMP/threads" ||
		fail "thread name: $(cat "$TMP/threads")"
	# the file: one event per line, ts in us with the ns as 3 decimals
	expect_grep '^{"displayTimeUnit":"ns","metadata":{"ptap-clock":"monotonic"},"traceEvents":\[$' "$TMP/q.json"
	expect_grep '^{"ph":"i","s":"t","name":"exec_query","cat":"probe","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9]*\.[0-9]\{3\},"args":{"ts_ns":[0-9]*,"addr":"0x[0-9a-f]*","query_string":"SELECT 1"}},$' "$TMP/q.json"
	expect_eq "last line" "]}" "$(tail -1 "$TMP/q.json")"
}

# Threads: one track each, named COMM/TID, with that thread's calls in order.
test_perfetto_threads() {
	pf_record "$TMP/mt.json" -e 'probe_me a s' -- "$S/scen/mt_exact_count" 200 4
	python3 $PF_CHECK "$TMP/mt.json" >"$TMP/summary"
	expect_grep '^threads: 4, processes: 1$' "$TMP/summary"
	expect_grep '^instant probe_me: 800$' "$TMP/summary"
	# per thread: its string and its count, as the sample states them ("thread K TID CALLS")
	python3 $PF_CHECK --instants --by-thread "$TMP/mt.json" |
		awk '{ sub(/^[0-9]+\//, "", $1); n[$1 " " $4]++ }
		     END { for (k in n) print k, n[k] }' | sort >"$TMP/got"
	awk '$1 == "thread" { printf "%s s=\"t%s\" %s\n", $3, $2, $4 }' "$TMP/pf_stated" |
		sort >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	# and a = 0, 1, 2, ... in file order on each thread
	python3 $PF_CHECK --instants --by-thread "$TMP/mt.json" |
		awk '{ sub(/^a=/, "", $3); if ($3 != n[$1]++) bad++ } END { exit bad > 0 }' ||
		fail "a thread's calls are out of order"
}

# fork, exec, exit (--events task): instants too, each on its process's
# track; a thread is named after its latest program (the exec'd child:
# te_exec/PID, not task_events/PID).
test_perfetto_tasks() {
	local te=$TMP/te_exec b parent
	cp "$S/scen/task_events" "$te"
	pf_record "$TMP/te.json" --events task -e 'probe_me a' -x "$te" -e 'probe_me a' \
		-- "$S/scen/task_events" "$te"
	python3 $PF_CHECK "$TMP/te.json" >"$TMP/summary"
	# the parent and its thread, children A, B and C
	expect_grep '^threads: 5, processes: 4$' "$TMP/summary"
	# what the sample states, as "PID EVENT ARGS"; the launch's own exec is not stated
	parent=$(awk '$3 == "status=0" { print $1 }' "$TMP/pf_stated")
	python3 $PF_CHECK --instants --by-thread "$TMP/te.json" |
		sed -E 's#^([0-9]+)/[0-9]+ ([a-z_]+):#\1 \2#' |
		grep -vxF "$parent exec filename=\"$(realpath "$S/scen/task_events")\"" |
		grep -vxF "$parent exec filename=\"$S/scen/task_events\"" | sort >"$TMP/got"
	sort "$TMP/pf_stated" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	b=$(awk '$2 == "exec" { print $1 }' "$TMP/pf_stated")
	python3 $PF_CHECK --threads "$TMP/te.json" >"$TMP/threads"
	expect_grep "^$b $b te_exec/$b\$" "$TMP/threads"
	expect_grep "^$parent $parent task_events/$parent\$" "$TMP/threads"
	expect_grep '"name":"process_name","pid":'"$b"',"args":{"name":"te_exec"}' "$TMP/te.json"
	expect_grep '"name":"exec","cat":"task",.*"filename":"'"$te"'"' "$TMP/te.json"
}

# pf_bad NAME MESSAGE: the checker refuses $TMP/bad.json, saying MESSAGE.
pf_bad() {
	local rc=0
	python3 $PF_CHECK "$TMP/bad.json" >/dev/null 2>"$TMP/bad.err" || rc=$?
	expect_eq "$1: checker exit status" 1 "$rc"
	expect_grep "$2" "$TMP/bad.err"
}

# The checker itself, on hand-made traces: slices (no return probes yet) and broken ones.
test_perfetto_checker() {
	local meta='{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"p/2"}}'
	local outer='{"ph":"X","name":"outer","cat":"probe","pid":1,"tid":2,"ts":1.000,"dur":8.000,"args":{"ts_ns":1000,"dur_ns":8000,"addr":"0x10"}}'
	local inner='{"ph":"X","name":"inner","cat":"probe","pid":1,"tid":2,"ts":2.000,"dur":3.000,"args":{"ts_ns":2000,"dur_ns":3000,"ret":-2}}'
	local mark='{"ph":"i","s":"t","name":"mark","cat":"probe","pid":1,"tid":2,"ts":3.500,"args":{"ts_ns":3500,"s":"a\"b","e":{"error":"bad address 0x0"}}}'
	local after='{"ph":"X","name":"after","cat":"probe","pid":1,"tid":2,"ts":9.000,"dur":0.001,"args":{"ts_ns":9000,"dur_ns":1}}'

	printf '{"displayTimeUnit":"ns","traceEvents":[\n%s,\n%s,\n%s,\n%s,\n%s\n]}\n' \
		"$meta" "$outer" "$inner" "$mark" "$after" >"$TMP/ok.json"
	expect_eq "summary" "events: 1 instant, 3 slice, 2 metadata
threads: 1, processes: 1
instant mark: 1
slice after: 1
slice inner: 1
slice outer: 1" "$(python3 $PF_CHECK "$TMP/ok.json")"
	expect_eq "slices" "outer:
inner: ret=-2
after:" "$(python3 $PF_CHECK --slices "$TMP/ok.json")"
	expect_eq "instants" 'mark: s="a\"b" e=(error: bad address 0x0)' \
		"$(python3 $PF_CHECK --instants "$TMP/ok.json")"

	sed 's/"dur":3.000,\("args":{"ts_ns":2000\),"dur_ns":3000/"dur":9.000,\1,"dur_ns":9000/' \
		"$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "crossing slices" "crosses the end of the slice it starts in"
	sed 's/"ts":3.500,"args":{"ts_ns":3500/"ts":1.500,"args":{"ts_ns":1500/' \
		"$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "time going back" "tid 2 goes back in time"
	sed 's/"ts":3.500,/"ts":3.501,/' "$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "ts not ts_ns" "ts 3.501 us is not args.ts_ns 3500 ns"
	grep -v thread_name "$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "no thread_name" "tid 2 of pid 1 has no thread_name"
	sed 's/"name":"p\/2"/"name":"p"/' "$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "thread_name without its tid" "is not \"COMM/2\""
	sed 's/"s":"t",//' "$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "instant without a scope" 'an instant without "s":"t"'
	head -c -4 "$TMP/ok.json" >"$TMP/bad.json"
	pf_bad "cut short" "not valid JSON"
}
