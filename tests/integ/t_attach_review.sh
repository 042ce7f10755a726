# Attach-mode cases found in review (issue 4): a process that is stopped
# (kill -STOP) when ptap attaches, and a process one of whose threads another
# tracer already traces.  The target is samples/scen/attach_load.

REV_AL=$O/samples/scen/attach_load

# rev_start OUT ARGS...: run attach_load in the background (REV_PID), wait for READY.
rev_start() {
	local out=$1
	shift
	"$REV_AL" "$@" >"$out" 2>&1 &
	REV_PID=$!
	wait_for grep -q READY "$out"
}

# rev_finish OUT: the target ends by itself, exit 0, bytes intact, no child killed.
rev_finish() {
	local rc=0
	for _ in $(seq 150); do
		kill -0 "$REV_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$REV_PID" 2>/dev/null && { kill -KILL "$REV_PID"; fail "target still running"; }
	wait "$REV_PID" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^BYTES-OK$' "$1"
	expect_grep '^EXIT-SUCCESS$' "$1"
}

# rev_sigint PID: SIGINT ptap; it must be gone within 2 s with status 0.
rev_sigint() {
	local rc=0
	kill -INT "$1"
	for _ in $(seq 40); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && { kill -KILL "$1"; fail "ptap still running 2 s after SIGINT"; }
	wait "$1" || rc=$?
	expect_eq "ptap exit status after SIGINT" 0 "$rc"
}

# Attached while kill -STOPped (no thread can run the scratch-page mmap then):
# once SIGCONT lets it run, its calls are recorded all the same.
test_attach_stopped_then_continued() {
	rev_start "$TMP/out" hammer 3
	kill -STOP "$REV_PID"
	wait_for sh -c "grep -q '^State:.*T (' /proc/$REV_PID/status"
	"$PTAP" record -o "$TMP/rec" -e 'probe_me a s' -p "$REV_PID" 2>"$TMP/err" &
	local p=$!
	wait_for sh -c "grep -q '^TracerPid:[[:space:]]*$p\$' /proc/$REV_PID/status"
	sleep 0.3
	kill -CONT "$REV_PID"
	sleep 1
	rev_sigint "$p"
	rev_finish "$TMP/out"
	grep -q ' a=[0-9]* s="hammer"$' "$TMP/rec" ||
		fail "no records after SIGCONT: $(tr '\n' ' ' <"$TMP/err")"
}

# One worker thread is traced by strace -p TID: ptap must refuse (exit 2,
# naming the tracer) rather than plant breakpoints that thread would die on.
test_attach_thread_traced_elsewhere() {
	local tid spid rc=0
	command -v strace >/dev/null 2>&1 ||
		fail "strace not found: scripts/deps.sh (run by make test) installs it"
	rev_start "$TMP/out" hammer 4
	tid=$(ls /proc/"$REV_PID"/task | grep -vx "$REV_PID" | head -1)
	strace -qq -e trace=none -o /dev/null -p "$tid" 2>/dev/null &
	spid=$!
	wait_for sh -c "grep -q '^TracerPid:[[:space:]]*$spid\$' /proc/$REV_PID/task/$tid/status"
	timeout 20 "$PTAP" record -o "$TMP/rec" -e 'probe_me a' -p "$REV_PID" 2>"$TMP/err" || rc=$?
	expect_eq "ptap exit status" 2 "$rc"
	expect_grep "$spid" "$TMP/err"
	kill -0 "$REV_PID" 2>/dev/null || fail "target killed: $(tail -1 "$TMP/out")"
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	rev_finish "$TMP/out"
}
