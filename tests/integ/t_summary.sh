# What `ptap record` says on stderr: the probes at the start, and at the end
# (the command's exit, Ctrl-C, --duration) each event's records, those with
# an argument not read, and the run's total; -q says none of it.

QS=$O/samples/query_server

# The records of a text record file, without its clock line.
nrecs() {
	grep -vc '^# ptap clock=' "$1" || true
}

test_summary_launched() {
	run_ptap record -o "$TMP/rec" -e 'exec_query %di:string' -- "$QS" samples/queries.txt \
		>"$TMP/out" 2>"$TMP/err" || fail "ptap failed: $(cat "$TMP/err")"
	# the sample's own count of the queries it ran
	expect_grep '^query_server: 7 queries' "$TMP/out"
	expect_eq "records in the file" 7 "$(nrecs "$TMP/rec")"
	sed -E 's/in [0-9]+\.[0-9]{3} s$/in T s/' "$TMP/err" >"$TMP/got"
	printf '%s\n' 'ptap: 1 probe at 1 site in query_server' \
		'ptap: exec_query: 7 records' 'ptap: 7 records in T s' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

test_summary_quiet() {
	run_ptap record -q -o "$TMP/rec" -e 'exec_query %di:string' -- "$QS" samples/queries.txt \
		>"$TMP/out" 2>"$TMP/err" || fail "ptap -q failed"
	[ ! -s "$TMP/err" ] || fail "-q, yet stderr: $(cat "$TMP/err")"
	expect_eq "records in the file" 7 "$(nrecs "$TMP/rec")"
	# --quiet is -q; a warning still comes through (a probe never planted)
	run_ptap record --quiet -o "$TMP/rec" -x "$O/samples/libplugin.so" -e plugin_handle \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || fail "ptap --quiet failed"
	expect_eq "stderr lines" 1 "$(wc -l <"$TMP/err")"
	expect_grep '^ptap: plugin_handle: never planted: .*libplugin.so was not mapped' "$TMP/err"
}

# Several probes and files; a probe whose argument cannot be read: the count
# of such records is that of the records holding an error.
test_summary_events_and_errors() {
	run_ptap record -o "$TMP/rec" -e 'exec_query %di:string' -e 'exec_query +0(+0(%di)):u64' \
		-x /lib/x86_64-linux-gnu/libc.so.6 -e 'fsync' --syscalls fsync \
		-- "$QS" samples/queries.txt "$TMP/results" >"$TMP/out" 2>"$TMP/err" ||
		fail "ptap failed: $(cat "$TMP/err")"
	# two probes on exec_query: one site
	expect_grep '^ptap: 3 probes at 2 sites in 2 files: query_server, libc.so.6$' "$TMP/err"
	local bad fsyncs
	bad=$(grep -c 'exec_query_1: .*error' "$TMP/rec")
	[ "$bad" -gt 0 ] || fail "no record with an error: $(grep exec_query_1 "$TMP/rec" | head -2)"
	expect_grep "^ptap: exec_query_1: 7 records, $bad with an argument not read" "$TMP/err"
	expect_grep '^ptap: exec_query: 7 records$' "$TMP/err"
	fsyncs=$(grep -c ': fsync: (' "$TMP/rec")
	expect_grep "^ptap: fsync: $fsyncs records\$" "$TMP/err"
	# the syscall records: the rest of the file
	expect_grep "^ptap: syscalls and other events: $(( $(nrecs "$TMP/rec") - 14 - fsyncs )) records\$" \
		"$TMP/err"
	expect_grep "^ptap: $(nrecs "$TMP/rec") records in [0-9.]* s\$" "$TMP/err"
}

# A glob of more than ten events: ten by name, most records first, the rest together.
test_summary_many_events() {
	run_ptap record -o "$TMP/rec" -e '*' -- "$QS" samples/queries.txt \
		>"$TMP/out" 2>"$TMP/err" || fail "ptap failed: $(cat "$TMP/err")"
	grep -E '^ptap: [A-Za-z_0-9.]+: [0-9]+ records?$' "$TMP/err" >"$TMP/named"
	expect_eq "events named" 10 "$(wc -l <"$TMP/named")"
	sort -t: -k3 -n -r -s "$TMP/named" | cmp -s - "$TMP/named" ||
		fail "not most first: $(cat "$TMP/named")"
	# each named count is the file's, and all of them add up to the total
	local ev n sum=0 rest
	while IFS=': ' read -r _ ev n _; do
		expect_eq "records of $ev" "$(grep -c ": $ev: (" "$TMP/rec")" "$n"
		sum=$((sum + n))
	done <"$TMP/named"
	rest=$(sed -n 's/^ptap: [0-9]* more events: \([0-9]*\) records (.*never hit)$/\1/p' "$TMP/err")
	[ -n "$rest" ] || fail "no 'more events' line: $(cat "$TMP/err")"
	expect_eq "total" "$(nrecs "$TMP/rec")" "$((sum + rest))"
	expect_grep "^ptap: $((sum + rest)) records in " "$TMP/err"
}

# Ctrl-C of a launched run: the command ends (SIGINT), the summary comes.
test_summary_after_sigint() {
	local p rc=0
	rm -f "$TMP/rec"	# an earlier test's must not count
	(cat samples/queries.txt; sleep 30 & echo $! >"$TMP/sleep.pid"; wait) |
		"$PTAP" record -o "$TMP/rec" -e 'exec_query %di:string' -- "$QS" >"$TMP/out" 2>"$TMP/err" &
	p=$!
	wait_for grep -q 'DELETE FROM sessions' "$TMP/rec" || return
	kill -INT "$p"
	wait "$p" || rc=$?
	kill "$(cat "$TMP/sleep.pid")" 2>/dev/null || true
	expect_eq "exit status (the command's: SIGINT)" 130 "$rc"
	expect_grep '^ptap: exec_query: 7 records$' "$TMP/err"
	expect_grep '^ptap: 7 records in ' "$TMP/err"
}

# --summary: what `ptap report` prints for the records, without them.  The
# sample's calls are the same in two runs; their times are not: the JSON
# documents are compared without the times (the durations' count stays).
test_summary_option_matches_report() {
	need_cmd python3 python3 || return
	run_ptap record -q --format json -o "$TMP/rec.json" \
		-e 'exec_query%return $retval query_string' -e 'exec_query len' \
		-- "$QS" samples/queries.txt >/dev/null 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
	run_ptap report --format json "$TMP/rec.json" >"$TMP/want.json" || fail "report failed"
	run_ptap record -q --summary --format json \
		-e 'exec_query%return $retval query_string' -e 'exec_query len' \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || fail "--summary: $(cat "$TMP/err")"
	grep -v '^query_server: ' "$TMP/out" >"$TMP/got.json"
	python3 - "$TMP/want.json" "$TMP/got.json" <<'PY' || fail "--summary differs from ptap report"
import json, sys
def timeless(d):
    for k in ("first_ts", "last_ts", "span_ns"):
        d.pop(k, None)
    for e in d["events"]:
        e.pop("rate_per_s", None)
        if e.get("duration"):
            e["duration"] = {"count": e["duration"]["count"]}
    return d
a, b = (timeless(json.load(open(f))) for f in sys.argv[1:3])
if a != b:
    print("report:   ", json.dumps(a, sort_keys=True), file=sys.stderr)
    print("--summary:", json.dumps(b, sort_keys=True), file=sys.stderr)
    sys.exit(1)
ev = {e["event"]: e for e in b["events"]}
assert ev["exec_query__return"]["duration"]["count"] == 7, ev
assert ev["exec_query"]["records"] == 7, ev
PY
	# text, to stdout with the command's output, or to -o FILE
	run_ptap record -q --summary -o "$TMP/sum.txt" -e 'exec_query query_string' \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || fail "--summary -o failed"
	expect_grep '^7 records of 1 event over ' "$TMP/sum.txt"
	expect_grep '^  query_string: 7 distinct values$' "$TMP/sum.txt"
	expect_grep '^    1  "SELECT name FROM users WHERE id = 42"$' "$TMP/sum.txt"
	! grep -q 'records of' "$TMP/out" || fail "the summary went to stdout too"
}

# Bounded memory: an argument's values past the first 4096 distinct ones are
# counted, not kept; durations past 65536 kept as a sample, the count exact.
test_summary_bounded() {
	need_cmd python3 python3 || return
	awk 'BEGIN { for (i = 0; i < 70000; i++) printf "SELECT %d\n", i % 6000 }' >"$TMP/q.txt"
	run_ptap record -q --summary --format json -e 'exec_query%return query_string' \
		-- "$QS" "$TMP/q.txt" >"$TMP/out" 2>"$TMP/err" || fail "--summary: $(cat "$TMP/err")"
	grep -v '^query_server: ' "$TMP/out" >"$TMP/got.json"
	python3 - "$TMP/got.json" <<'PY' || fail "bounded summary wrong"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["events"][0]
arg = e["args"][0]
# 6000 distinct queries, each 11 or 12 times; the first 4096 kept
checks = [("records", e["records"], 70000), ("distinct", arg["distinct"], 4096),
          ("not_kept", arg.get("not_kept"), 70000 - sum(70000 // 6000 + (i < 70000 % 6000)
                                                       for i in range(4096))),
          ("duration count", e["duration"]["count"], 70000),
          ("hist total", sum(b["count"] for b in e["duration"]["hist"]), 70000)]
bad = [c for c in checks if c[1] != c[2]]
for name, got, want in bad:
    print("%s: want %s, got %s" % (name, want, got), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	run_ptap record -q --summary -e 'exec_query%return query_string' \
		-- "$QS" "$TMP/q.txt" >"$TMP/out" 2>"$TMP/err" || fail "--summary: $(cat "$TMP/err")"
	expect_grep '^  query_string: 4096 distinct values kept (then 20944 records of values not kept)$' \
		"$TMP/out"
	expect_grep '^  duration: 70000 records (percentiles from a uniform sample of them)$' "$TMP/out"
}

test_summary_option_refused() {
	local rc=0
	run_ptap record --summary --format perfetto -o "$TMP/t.json" -e exec_query \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep '^ptap: record: --summary writes ptap report.s text or JSON' "$TMP/err"
	# a -o that cannot be written fails before the command runs, not after
	rc=0
	run_ptap record --summary -o "$TMP/no/such/dir/sum.txt" -e exec_query \
		-- "$QS" samples/queries.txt >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	[ ! -s "$TMP/out" ] || fail "the command ran: $(cat "$TMP/out")"
	expect_grep "^ptap: --summary: $TMP/no/such/dir/sum.txt: No such file or directory\$" "$TMP/err"
}
