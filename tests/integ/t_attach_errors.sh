# Attach mode (-p): refused attaches (scenario 24, already-traced: exit 2 with
# a message naming the cause and the fix, README.md "How it works"), a
# thread id that is not a leader, and a clean attach and detach.  The target is
# samples/scen/attach_target: 2 threads calling probe_me every ms.

ATTACH_TARGET=$S/scen/attach_target

# attach_start SECONDS [STATUS]: run attach_target in the background, its
# output in $TMP/tout; sets TPID once both its threads call probe_me.
attach_start() {
	rm -f "$TMP/rec"
	"$ATTACH_TARGET" "$@" >"$TMP/tout" 2>&1 &
	TPID=$!
	wait_for grep -q '^READY ' "$TMP/tout"
}

# attach_target_done STATUS: the target (a child of this shell) ends by itself
# with STATUS, its bytes intact and every result right.
attach_target_done() {
	local rc=0
	for _ in $(seq 150); do
		kill -0 "$TPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$TPID" 2>/dev/null && { kill -KILL "$TPID"; fail "target still running"; }
	wait "$TPID" || rc=$?
	expect_eq "target's exit status" "$1" "$rc"
	expect_grep '^BYTES-OK$' "$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
}

# attach_tracers PID: the TracerPid of each of PID's threads, sorted and unique.
attach_tracers() {
	local st
	for st in /proc/"$1"/task/*/status; do
		awk '$1 == "TracerPid:" { print $2 }' "$st"
	done | sort -u
}

# attach_traced_by PID TRACER: every thread of PID is traced by TRACER.
attach_traced_by() {
	[ "$(attach_tracers "$1")" = "$2" ]
}

# attach_not_stopped PID: none of PID's threads is stopped (T) or in a trace stop (t).
attach_not_stopped() {
	! grep -q '^State:[[:space:]]*[tT]' /proc/"$1"/task/*/status ||
		fail "a thread of $1 is left stopped: $(grep -h '^State' /proc/"$1"/task/*/status | sort -u | tr '\n' ' ')"
}

# attach_is_zombie PID
attach_is_zombie() {
	[ "$(proc_field "$1" State)" = Z ]
}

# attach_need_strace: a missing strace fails the test (make test installs it).
attach_need_strace() {
	command -v strace >/dev/null 2>&1 ||
		fail "strace not found: scripts/deps.sh (run by make test) installs it"
}

# attach_records PID MIN: $TMP/rec holds at least MIN probe_me records, all of
# process PID, from both worker threads.
attach_records() {
	local n
	[ -f "$TMP/rec" ] || fail "no records file"
	n=$(grep -c ': probe_me: ' "$TMP/rec" || true)
	[ "$n" -ge "$2" ] || fail "$n probe_me records, expected at least $2"
	expect_eq "processes in the records" "$1" \
		"$(records "$TMP/rec" | awk '{ split($2, a, "/"); print a[1] }' | sort -u |
		   tr '\n' ' ' | sed 's/ $//')"
	expect_eq "threads in the records" 2 \
		"$(records "$TMP/rec" | awk '{ print $2 }' | sort -u | wc -l)"
}

test_attach_no_such_pid() {
	local pid rc=0
	sleep 0 &
	pid=$!
	wait "$pid"
	rm -f "$TMP/rec"
	! kill -0 "$pid" 2>/dev/null || fail "pid $pid is in use again"
	run_ptap record -o "$TMP/rec" -e probe_me -p "$pid" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "no process $pid" "$TMP/err"
	[ ! -s "$TMP/rec" ] || fail "records written"
}

# A zombie: sh forks `sleep 0` and execs `sleep 30`, which never reaps it.
test_attach_zombie() {
	local parent z rc=0
	sh -c 'sleep 0 & exec sleep 30' &
	parent=$!
	wait_for pgrep -P "$parent"
	z=$(pgrep -P "$parent")
	wait_for attach_is_zombie "$z"
	run_ptap record -o "$TMP/rec" -e probe_me -p "$z" 2>"$TMP/err" || rc=$?
	kill "$parent"
	wait "$parent" || true
	expect_eq "exit status" 2 "$rc"
	expect_grep "pid $z is a zombie" "$TMP/err"
}

# Every thread of the target is traced by `strace -p`: ptap is refused, names
# strace and its pid, changes nothing, and the target ends as it would have.
test_attach_already_traced_strace_p() {
	local spid rc=0
	attach_need_strace
	attach_start 3 5
	strace -f -e trace=none -o /dev/null -p "$TPID" 2>/dev/null &
	spid=$!
	wait_for attach_traced_by "$TPID" "$spid"
	run_ptap record -o "$TMP/rec" -e probe_me -p "$TPID" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "$TPID" "$TMP/err"
	expect_grep "already traced by pid $spid (strace)" "$TMP/err"
	expect_eq "tracers of every thread (never partly attached)" "$spid" "$(attach_tracers "$TPID")"
	attach_target_done 5
	wait "$spid" || true
}

# The same when strace launched the target.
test_attach_already_traced_strace_launched() {
	local spid rc=0 src=0
	attach_need_strace
	strace -f -e trace=none -o /dev/null -- "$ATTACH_TARGET" 3 6 >"$TMP/tout" 2>&1 &
	spid=$!
	wait_for grep -q '^READY ' "$TMP/tout"
	TPID=$(awk '/^READY / { print $2 }' "$TMP/tout")
	wait_for attach_traced_by "$TPID" "$spid"
	run_ptap record -o "$TMP/rec" -e probe_me -p "$TPID" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "already traced by pid $spid (strace)" "$TMP/err"
	expect_eq "tracers of every thread" "$spid" "$(attach_tracers "$TPID")"
	wait "$spid" || src=$?
	expect_eq "target's exit status (through strace)" 6 "$src"
	expect_grep '^BYTES-OK$' "$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
}

# A thread id that is not a leader: ptap says so and traces the whole process.
test_attach_thread_id() {
	local tid rc=0
	attach_start 4
	tid=$(ls /proc/"$TPID"/task | grep -vx "$TPID" | head -n 1)
	[ -n "$tid" ] || fail "no thread besides the leader"
	run_ptap record -o "$TMP/rec" --duration 1 -e probe_me -p "$tid" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 0 "$rc"
	expect_grep "ptap: thread $tid belongs to process $TPID; tracing $TPID" "$TMP/err"
	attach_records "$TPID" 100
	expect_eq "tracers after detach" 0 "$(attach_tracers "$TPID")"
	attach_not_stopped "$TPID"
	attach_target_done 0
}

# Attach for a second (--duration), then detach: records from both threads,
# nothing left traced, the target finishes with its bytes intact.
test_attach_detach_duration() {
	local rc=0
	attach_start 4
	run_ptap record -o "$TMP/rec" --duration 1 -e probe_me -p "$TPID" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 0 "$rc"
	attach_records "$TPID" 100
	expect_eq "tracers after detach" 0 "$(attach_tracers "$TPID")"
	attach_not_stopped "$TPID"
	attach_target_done 0
}

# The same, ended by SIGINT.
test_attach_detach_sigint() {
	local pid rc=0
	attach_start 4
	"$PTAP" record -o "$TMP/rec" -e probe_me -p "$TPID" 2>"$TMP/err" &
	pid=$!
	wait_for grep -q ': probe_me: ' "$TMP/rec"
	sleep 0.5
	kill -INT "$pid"
	wait_ptap "$pid" || rc=$?
	expect_eq "exit status" 0 "$rc"
	attach_records "$TPID" 50
	expect_eq "tracers after detach" 0 "$(attach_tracers "$TPID")"
	attach_not_stopped "$TPID"
	attach_target_done 0
}
