# record --account EVENT: each call's storage I/O, CPU time, faults and
# switches from the thread's own counters, checked on samples/account.c's
# calls, each of known work.  The bounds are what the kernel's accounting
# guarantees for that work (proc(5)): read_bytes counts reads that reached
# storage (the page cache's misses), write_bytes the bytes dirtied, cpu_ns the
# time on a CPU (schedstat), majflt faults that read from storage.

ACCT_PROBES=(-e 'cold_read%return $retval' -e 'warm_read%return $retval'
	     -e 'write_sync%return $retval' -e 'burn%return' -e 'touch_pages%return $retval'
	     --account cold_read__return --account warm_read__return
	     --account write_sync__return --account burn__return --account touch_pages__return)

test_account_known_work() {
	# on a disk: the build tree (a tmpfs /tmp has no storage to count)
	local dir
	dir=$(mktemp -d "$O/account.XXXXXX")
	run_ptap record -q --format json -o "$TMP/rec" "${ACCT_PROBES[@]}" -- "$S/account" "$dir" \
		>"$TMP/out" 2>"$TMP/err" || { rm -rf "$dir"; fail "$(cat "$TMP/err")"; return; }
	rm -rf "$dir"
	expect_grep '^touch_pages 64$' "$TMP/out"
	records "$TMP/rec" | python3 -c '
import json, sys
N = 1 << 20
want = {
    # a file of N bytes out of the page cache, read: N from storage (it has no more)
    "cold_read__return": lambda a: a["read_bytes"] == N and a["majflt"] == 0,
    # the same again: all from the page cache
    "warm_read__return": lambda a: a["read_bytes"] == 0 and a["write_bytes"] == 0,
    # N written and fsynced: N dirtied (and some of the file system'"'"'s own, at most 64 KiB)
    "write_sync__return": lambda a: N <= a["write_bytes"] <= N + 65536 and a["read_bytes"] == 0,
    # 50 ms of its own CPU time (the loop stops past it by one clock read)
    "burn__return": lambda a: 50e6 <= a["cpu_ns"] <= 70e6 and a["read_bytes"] == 0,
    # 64 pages of a file mapping out of the page cache: faults that read from storage
    "touch_pages__return": lambda a: a["majflt"] >= 1 and a["read_bytes"] >= 64 * 4096,
}
seen = set()
for line in sys.stdin:
    r = json.loads(line)
    ev, a = r["event"], r["args"]
    seen.add(ev)
    ok = want[ev](a)
    print(ev, "ok" if ok else "WRONG " + json.dumps(a))
print("events", len(seen))' >"$TMP/got" 2>&1
	printf '%s\n' 'cold_read__return ok' 'warm_read__return ok' 'write_sync__return ok' \
		'burn__return ok' 'touch_pages__return ok' 'events 5' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# Typed numbers in JSON, a name=value each in text; a voluntary switch of a ptrace stop
# (ptap's) is not the call's: a call that never blocks has none
test_account_forms_and_stops() {
	local dir
	dir=$(mktemp -d "$O/account.XXXXXX")
	run_ptap record -q -o "$TMP/rec" "${ACCT_PROBES[@]}" -- "$S/account" "$dir" \
		>/dev/null 2>"$TMP/err" || { rm -rf "$dir"; fail "$(cat "$TMP/err")"; return; }
	rm -rf "$dir"
	expect_grep ' warm_read__return: .* read_bytes=0 write_bytes=0 cancelled_write_bytes=0 cpu_ns=[0-9]* runq_ns=[0-9]* minflt=[0-9]* majflt=0 nvcsw=0 nivcsw=[0-9]*$' \
		"$TMP/rec"
}

# Refused: an event that is not a return probe's, one that does not exist (exit 2)
test_account_refused() {
	local rc=0
	run_ptap record -e 'burn' --account burn -- "$S/account" /nonexistent >"$TMP/out" 2>"$TMP/err" ||
		rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "^ptap: --account burn: not a return probe: the cost of a call is known at its return (-e 'burn%return ...')\$" \
		"$TMP/err"
	rc=0
	run_ptap record -e 'burn%return' --account nope -- "$S/account" /nonexistent >"$TMP/out" \
		2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep '^ptap: --account nope: no such event' "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "the command ran"
	# an argument named as a counter is: the two would be one name in the records
	rc=0
	run_ptap record -e 'warm_read%return cpu_ns=n' --account warm_read__return \
		-- "$S/account" /nonexistent >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "^ptap: --account warm_read__return: its probe records an argument named cpu_ns" \
		"$TMP/err"
	# Go: a goroutine runs on many threads
	rc=0
	run_ptap record -e 'main.handle%return' --account main_handle__return \
		-- "$S/go/app" 2 >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (go)" 2 "$rc"
	expect_grep '^ptap: --account main_handle__return: Go code' "$TMP/err"
}

# --filter on a counter: only the calls that read from storage
test_account_filter() {
	local dir
	dir=$(mktemp -d "$O/account.XXXXXX")
	run_ptap record -o "$TMP/rec" -e 'cold=cold_read%return' --filter 'read_bytes > 0' \
		-e 'warm=warm_read%return' --filter 'read_bytes > 0' --account cold --account warm \
		-- "$S/account" "$dir" >/dev/null 2>"$TMP/err" ||
		{ rm -rf "$dir"; fail "$(cat "$TMP/err")"; return; }
	rm -rf "$dir"
	expect_eq "records" 1 "$(records "$TMP/rec" | grep -c ' cold: .* read_bytes=1048576 ')"
	expect_eq "warm records" 0 "$(records "$TMP/rec" | grep -c ' warm: ')"
	expect_grep '^ptap: warm: 0 records (1 more hit left out by --filter)$' "$TMP/err"
}

# ptap report: per event the counters' sums and the calls that read, wrote and ran most
# (by their other arguments), in text and JSON; the counters are not listed as values
test_account_report() {
	local dir
	dir=$(mktemp -d "$O/account.XXXXXX")
	run_ptap record -q --format json -o "$TMP/rec.json" "${ACCT_PROBES[@]}" -- "$S/account" "$dir" \
		>/dev/null 2>"$TMP/err" || { rm -rf "$dir"; fail "$(cat "$TMP/err")"; return; }
	rm -rf "$dir"
	run_ptap report "$TMP/rec.json" >"$TMP/report" 2>&1 || { fail "report failed"; return; }
	sed -n '/^cold_read__return:/,/^$/p' "$TMP/report" | grep --no-group-separator -A1 -e '^  cost' -e 'most read_bytes' \
		| sed 's/cpu_ns [0-9]*, runq_ns [0-9]*/cpu_ns N, runq_ns N/' >"$TMP/got"
	printf '%s\n' '  cost (--account), the sums of 1 call:' \
		'    read_bytes 1048576, write_bytes 0, cancelled_write_bytes 0, cpu_ns N, runq_ns N' \
		'    most read_bytes:' '      1048576  retval=1048576' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	! grep -q '^  read_bytes: ' "$TMP/report" || fail "the counters listed as values"
	run_ptap report -F json "$TMP/rec.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ev = {e["event"]: e for e in d["events"]}
a = ev["write_sync__return"]["account"]
print(a["calls"], a["sums"]["write_bytes"] >= 1 << 20, a["top"]["write_bytes"][0]["call"],
      ev["warm_read__return"]["account"]["sums"]["read_bytes"])' >"$TMP/got" 2>&1
	expect_eq "json" "1 True retval=1048576 0" "$(cat "$TMP/got")"
}

# query_server with QS_TABLE (make demo): the first query of the table reads it from
# storage, the next one from the page cache
test_account_query_server_cache() {
	QS_TABLE="$O/qs-table.$$" run_ptap record -q -o "$TMP/rec" \
		-e 'exec_query%return query_string' --account exec_query__return \
		-- "$S/query_server" samples/queries-cache.txt >/dev/null 2>"$TMP/err" ||
		{ rm -f "$O/qs-table.$$"; fail "$(cat "$TMP/err")"; return; }
	rm -f "$O/qs-table.$$"
	records "$TMP/rec" | sed -E 's/.*query_string="([^"]*)" read_bytes=([0-9]+) .*/\1: \2/' >"$TMP/got"
	printf '%s\n' 'SELECT 1: 0' 'SELECT * FROM big WHERE id = 1: 1048576' \
		'SELECT * FROM big WHERE id = 2: 0' 'UPDATE big SET n = n + 1: 0' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# report --by-context: a call's counters in the group of its context, with the syscalls
# made in it: the same 1 MiB pread64 from storage in one query, from the page cache in the next
test_account_by_context() {
	QS_TABLE="$O/qs-table.$$" run_ptap record -q --format json -o "$TMP/rec.json" \
		-e 'exec_query query_string:string' --context exec_query --syscalls pread64 \
		-e 'exec_query%return query_string' --account exec_query__return \
		-- "$S/query_server" samples/queries-cache.txt "$TMP/results" >/dev/null 2>"$TMP/err" ||
		{ rm -f "$O/qs-table.$$"; fail "$(cat "$TMP/err")"; return; }
	rm -f "$O/qs-table.$$"
	run_ptap report --by-context "$TMP/rec.json" >"$TMP/report" 2>&1 || { fail "report"; return; }
	for id in 1 2; do
		sed -n "/^exec_query query_string=\"SELECT \\* FROM big WHERE id = $id\"\$/,/^\$/p" \
			"$TMP/report" | grep -e '^    read_bytes' -e '^  pread64' |
			sed -E 's/, write_bytes.*//; s/ +[0-9.]+[mu]?s$//; s/  +/ /g'
	done >"$TMP/got"
	printf '%s\n' ' read_bytes 1048576' ' pread64 2 0 1048612' \
		' read_bytes 0' ' pread64 2 0 1048612' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	run_ptap report --by-context -F json "$TMP/rec.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
g = [c for c in d["contexts"] if c["context"] and
     c["context"]["exec_query"]["query_string"] == "SELECT * FROM big WHERE id = 1"]
print(g[0]["account"]["calls"], g[0]["account"]["sums"]["read_bytes"])' >"$TMP/got" 2>&1
	expect_eq "json" "1 1048576" "$(cat "$TMP/got")"
}
