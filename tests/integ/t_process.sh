# The launched command's life: forks, execs, signals, exit status.

# A probe in a binary that a forked child execs: planted at that exec.
test_proc_fork_exec_children() {
	local qs=$S/query_server
	run_ptap record -o "$TMP/rec" -x "$qs" -e 'exec_query %di:string' \
		-- sh -c "$qs samples/queries.txt >/dev/null; $qs samples/queries.txt >/dev/null" \
		>/dev/null
	expect_eq "records" 14 "$(grep -c ': exec_query: ' "$TMP/rec")"
	expect_eq "processes" 2 "$(records "$TMP/rec" | awk '{ print $2 }' | sort -u | wc -l)"
	expect_eq "first query of each" 2 "$(grep -c 'arg1="SELECT 1"$' "$TMP/rec")"
}

# More processes at once than ptap's soft limit of open files (it keeps one
# a process): ptap raises its own to the hard limit, so none is killed or
# left unplanted; the command gets the soft limit it was given.
test_proc_more_processes_than_the_soft_fd_limit() {
	local qs=$S/query_server hard
	hard=$(ulimit -Hn)
	if [ "$hard" != unlimited ] && [ "$hard" -lt 200 ]; then
		skip "a hard limit of open files of 200 or more (ulimit -Hn: $hard)"
		return
	fi
	(ulimit -Sn 24 && run_ptap record -o "$TMP/rec" -x "$qs" -e 'exec_query %di:string' \
		-- sh -c "ulimit -Sn >'$TMP/limit'; for i in \$(seq 40); do
			$qs samples/queries.txt >/dev/null & done; wait" \
		>/dev/null 2>"$TMP/err")
	! grep -E 'cannot|kill|unplanted' "$TMP/err" || fail "a process not traced (above)"
	expect_eq "records" 280 "$(grep -c ': exec_query: ' "$TMP/rec")"
	expect_eq "processes" 40 "$(records "$TMP/rec" | awk '{ print $2 }' | sort -u | wc -l)"
	expect_eq "the command's soft limit" 24 "$(cat "$TMP/limit")"
}

# SIGTERM sent to ptap goes to the command (which traps it and exits 7);
# ptap exits with the command's status, not of the signal.
test_proc_sigterm_forwarded() {
	local rc=0 pid
	mkfifo "$TMP/fifo"
	# the command blocks opening the FIFO: it is running, traced, when the signal comes
	"$PTAP" record -o "$TMP/rec" -x "$LIBC" -e 'puts' \
		-- sh -c "trap 'exit 7' TERM; read x <$TMP/fifo" >/dev/null 2>"$TMP/err" &
	pid=$!
	wait_for pgrep -P "$pid"
	sleep 0.2
	kill -TERM "$pid"
	wait_ptap "$pid" || rc=$?
	expect_eq "exit status (the command's, from its TERM trap)" 7 "$rc"
}

# The program's own SIGTRAP is delivered, not taken for a probe hit.
test_proc_own_sigtrap_delivered() {
	run_ptap record -o "$TMP/rec" -x "$LIBC" -e 'puts' \
		-- sh -c 'trap "echo trapped" TRAP; kill -TRAP $$; echo after' >"$TMP/out"
	printf 'trapped\nafter\n' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/out"
}

# Records for every thread: 4 threads of insn_zoo each call zoo_push 500 times.
test_proc_threads_tids() {
	run_ptap record -o "$TMP/rec" -e zoo_push -- "$S/insn_zoo" 500 4 >/dev/null
	expect_eq "records" 2000 "$(records "$TMP/rec" | wc -l)"
	records "$TMP/rec" | awk '{ split($2, a, "/"); print a[2] }' | sort | uniq -c |
		awk '{ print $1 }' | sort -u >"$TMP/per_tid"
	expect_eq "records per thread" 500 "$(cat "$TMP/per_tid")"
	expect_eq "threads" 4 "$(records "$TMP/rec" | awk '{ print $2 }' | sort -u | wc -l)"
}

# Forks while another thread maps and unmaps the probed code: every child gets
# the probe table of its own memory (none dies) and every call is recorded.
test_proc_fork_during_map_changes() {
	local off
	off=0x$(nm "$S/libplugin.so" | awk '$3 == "plugin_handle" { print $1 }')
	run_ptap record -o "$TMP/rec" -x "$S/libplugin.so" -e 'plugin_handle %si:s32' \
		-- "$S/fork_race" "$S/libplugin.so" "$off" 1500 3>"$TMP/stated" >"$TMP/out"
	expect_grep ', 0 died$' "$TMP/out"
	expect_eq "records" "$(cat "$TMP/stated")" "calls $(records "$TMP/rec" | wc -l)"
}

# Descendants that outlive the command keep the session going; a SIGTERM to
# ptap then goes to them, and ptap exits with the command's status.
test_proc_sigterm_after_command_exit() {
	local rc=0 pid marker=$TMP/outlive
	"$PTAP" record -o "$TMP/rec" -x "$LIBC" -e 'puts' \
		-- sh -c "setsid sh -c 'sleep 30; echo late' $marker & exit 3" >/dev/null 2>&1 &
	pid=$!
	wait_for pgrep -f "sh -c sleep 30; echo late $marker"
	sleep 0.3
	kill -0 "$pid" 2>/dev/null || fail "ptap ended while a traced process lived"
	kill -TERM "$pid"
	wait_ptap "$pid" || rc=$?
	expect_eq "exit status (the command's)" 3 "$rc"
	! pgrep -f "sleep 30; echo late $marker" >/dev/null || fail "the descendant outlived ptap"
}
