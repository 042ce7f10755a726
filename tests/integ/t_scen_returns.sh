# Hostile scenarios for return probes (FUNC%return): signal handlers on
# alternate stacks, siglongjmp, coroutines, threads' start routines and
# pthread_exit, exec and vfork and fork inside probed calls, detaching deep
# inside them, code that reads its return address, -O0 sites past the
# prologue.  Each target (samples/scen/ret_*.c) calls ret_work (ret.h),
# which returns tag * 1000 + depth and checks every return at every level;
# the tests check that ptap recorded one return per call that returned, each
# with that value, and that the target ended as it does untraced.

RS=$S/scen
RT_PROBE='ret_work%return $retval depth tag'

# rt_run PTAP-RECORD-ARGS...: ptap record into $TMP/rt_rec; the target's
# stdout in $TMP/rt_out, fd 3 in $TMP/rt_st, ptap's stderr in $TMP/rt_err;
# the exit status in RT_RC.
rt_run() {
	RT_RC=0
	run_ptap record -o "$TMP/rt_rec" "$@" 3>"$TMP/rt_st" >"$TMP/rt_out" 2>"$TMP/rt_err" ||
		RT_RC=$?
}

# rt_end: the target exited 0 after every check passed.
rt_end() {
	expect_eq "exit status" 0 "$RT_RC"
	expect_grep '^EXIT-SUCCESS$' "$TMP/rt_out"
	! grep -q BYTES-CORRUPT "$TMP/rt_out" || fail "$(grep BYTES-CORRUPT "$TMP/rt_out")"
}

# rt_stated KEY: the sum of the values fd 3 gave for KEY.
rt_stated() {
	awk -v k="$1" '$1 == k { n += $2 } END { print n + 0 }' "$TMP/rt_st"
}

# rt_records EVENT: how many EVENT records.
rt_records() {
	grep -c " $1: " "$TMP/rt_rec" || true
}

# rt_values: every ret_work return record has retval = tag * 1000 + depth.
rt_values() {
	awk '/ ret_work__return: / {
		v = d = t = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^retval=/) v = substr($i, 8)
			if ($i ~ /^depth=/) d = substr($i, 7)
			if ($i ~ /^tag=/) t = substr($i, 5)
		}
		if (v == "" || v != t * 1000 + d) { if (bad++ < 5) print; }
	     }
	     END { exit bad > 0 }' "$TMP/rt_rec" >&2 || fail "ret_work returns with a wrong value"
}

# rt_kv KEY...: each record on stdin as "EVENT VALUE-OF-KEY..." ("-" when absent).
rt_kv() {
	awk -v keys="$*" 'BEGIN { nk = split(keys, k, " ") }
		{ ev = $4; sub(/:$/, "", ev); line = ev
		  for (j = 1; j <= nk; j++) {
			v = "-"
			for (i = 5; i <= NF; i++)
				if (index($i, k[j] "=") == 1) v = substr($i, length(k[j]) + 2)
			line = line " " v
		  }
		  print line }'
}

# rt_quiet: ptap lost no return and found no bug of its own.
rt_quiet() {
	! grep -E 'not recorded|bug in ptap|internal|assert' "$TMP/rt_err" >&2 ||
		fail "ptap stderr"
}

# rt_all_returns: every call that returned (fd 3 "calls") is recorded, right.
rt_all_returns() {
	expect_eq "ret_work returns recorded" "$(rt_stated calls)" "$(rt_records ret_work__return)"
	rt_values
	rt_quiet
}

# A handler on a sigaltstack calls the probed function (20 deep) while the
# thread it interrupted is 100 deep in it, on every placement of the
# alternate stack: far away, a mapping right below or right above.
test_ret_altstack_sync() {
	local place
	for place in heap below above; do
		rt_run -e "$RT_PROBE" -- "$RS/ret_altstack" sync "$place" 100 100
		rt_end
		expect_eq "$place: handled" 100 "$(rt_stated handled)"
		rt_all_returns
	done
}

# The alternate stack is the top of the thread's own stack mapping: nothing
# tells it from a deeper part of that stack.  The calls the handler seems
# to have unwound are not recorded (ptap says so), but every one returns
# right, and the handler's own are recorded.
test_ret_altstack_inside_survives() {
	rt_run -e "$RT_PROBE" -- "$RS/ret_altstack" sync inside 100 100
	rt_end
	expect_eq "handled" 100 "$(rt_stated handled)"
	expect_eq "handler's returns (tag 500)" 2100 \
		"$(grep -c ' ret_work__return: .* tag=500$' "$TMP/rt_rec")"
	rt_values
	! grep -E 'bug in ptap' "$TMP/rt_err" >&2 || fail "ptap stderr"
}

# SIGALRM every 500 us interrupts ret_work anywhere (mostly where ptap resumes
# it: in the out-of-line copy after its int3, as the signal came while it was
# stopped there; or at an exit of ret_work); the handler, on
# an alternate stack, calls it too.  An entry probe on it as well: one entry
# record per call, even when the handler runs above the interrupted stack
# (the re-run of the interrupted call's int3 is not a new call).
test_racy_ret_altstack_async() {
	local place
	for _ in $(seq "$RACY_RUNS"); do
		for place in heap below above; do
			rt_run -e "$RT_PROBE" -e 'ret_work depth tag' -- \
				"$RS/ret_altstack" async "$place" 300
			rt_end
			[ "$(rt_stated handled)" -gt 10 ] ||
				fail "$place: only $(rt_stated handled) signals"
			expect_eq "$place: entries" "$(rt_stated calls)" "$(rt_records ret_work)"
			rt_all_returns
		done
	done
}

# 20000 times a handler on an alternate stack siglongjmps out of probed calls
# (6 on the thread's stack, 6 on the alternate one): none returns, none is
# kept for ever, and the 40 calls after them are recorded.
test_ret_altstack_siglongjmp() {
	local place
	for place in heap below above; do
		rt_run -e "$RT_PROBE" -- "$RS/ret_altstack" jump "$place" 20000 5
		rt_end
		expect_eq "$place: calls returned" 40 "$(rt_stated calls)"
		rt_all_returns
	done
}

# Two coroutines (swapcontext), each 100 deep in ret_work on its own stack,
# switch to each other at the bottom; one returns while the other's calls
# are live, then the other returns.
test_ret_coroutines() {
	rt_run -e "$RT_PROBE" -- "$RS/ret_coro" 10 100 3
	rt_end
	expect_eq "stated calls" 2020 "$(rt_stated calls)"
	rt_all_returns
}

# A coroutine 100 probed calls deep, started by one thread and resumed (and
# returned) by another: while the first thread lives, the second returns
# from the calls the first entered; once it has ended, from what it left
# to a sibling.  Every return is recorded, right, either way.
test_ret_coroutine_moves_to_another_thread() {
	rt_run -e "$RT_PROBE" -- "$RS/ret_migrate" 10 100 live
	rt_end
	rt_all_returns
	rt_run -e "$RT_PROBE" -- "$RS/ret_migrate" 10 100 exit
	rt_end
	expect_eq "stated calls" 1010 "$(rt_stated calls)"
	rt_all_returns
}

# Threads' start routine probed (it returns into libc's start_thread), 8 at
# a time so that glibc reuses their stacks.
test_ret_thread_start_routine() {
	rt_run -e "$RT_PROBE" -e 'ret_start%return $retval arg' -- "$RS/ret_threads" start 100 20
	rt_end
	expect_eq "ret_start returns" 100 "$(rt_records ret_start__return)"
	expect_eq "ret_start retval = arg * 3 + 1" 100 "$(rt_kv retval arg <"$TMP/rt_rec" |
		while read -r ev v a; do
			[ "$ev" = ret_start__return ] && [ $((v)) = $((a * 3 + 1)) ] && echo
		done | wc -l)"
	rt_all_returns
}

# pthread_exit, and pthread_cancel in read(2), 21 probed calls deep inside
# the probed start routine: glibc's forced unwinding goes through probed
# calls; every cleanup handler still runs, every join gets its value.
test_ret_thread_exit_and_cancel() {
	local how
	for how in exit cancel; do
		rt_run -e "$RT_PROBE" -e 'ret_start%return $retval arg' -- \
			"$RS/ret_threads" "$how" 100 20
		rt_end
		expect_eq "$how: cleanups" 100 "$(rt_stated cleanups)"
		expect_eq "$how: ret_start returns" 0 "$(rt_records ret_start__return)"
		expect_eq "$how: ret_work returns (main's 10 calls)" 40 \
			"$(rt_records ret_work__return)"
		rt_all_returns
	done
}

# execve 20 probed calls deep, from the main thread, and from a second thread
# while main is 20 deep: the new image's calls are recorded, and only them.
test_ret_exec_inside() {
	local how
	for how in exec thread; do
		rt_run -e "$RT_PROBE" -- "$RS/ret_exec" "$how" 20
		expect_eq "$how: exit status" 0 "$RT_RC"
		expect_grep '^ret_exec: after: 10 calls returned, 0 wrong$' "$TMP/rt_out"
		expect_eq "$how: returns (the new image's)" 10 "$(rt_records ret_work__return)"
		expect_eq "$how: tag 8 only" 10 "$(grep -c ' tag=8$' "$TMP/rt_rec")"
		rt_values
		rt_quiet
	done
}

# vfork 20 probed calls deep; the child calls ret_work on its parent's stack,
# below its frames, then execs.  Followed: all recorded; --no-follow: the
# parent's only.
test_ret_vfork_inside() {
	rt_run -e "$RT_PROBE" -- "$RS/ret_exec" vfork 50 20
	rt_end
	expect_eq "stated after-images" 50 "$(grep -c '^after ' "$TMP/rt_st")"
	expect_eq "returns" $(($(rt_stated calls) + 500)) "$(rt_records ret_work__return)"
	rt_values
	rt_quiet
	rt_run --no-follow -e "$RT_PROBE" -- "$RS/ret_exec" vfork 50 20
	rt_end
	expect_eq "--no-follow: returns (the parent's 50 x 21)" 1050 \
		"$(rt_records ret_work__return)"
	expect_eq "--no-follow: children's returns" 0 "$(grep -c ' tag=[78]$' "$TMP/rt_rec")"
	rt_values
	rt_quiet
}

# fork 20 probed calls deep, launched with --no-follow: each child returns
# through its copy of the 21 frames (ptap put the real return addresses
# back) and finds no int3 left; the parent's returns are all recorded.
test_ret_fork_no_follow() {
	rt_run --no-follow -e "$RT_PROBE" -- "$RS/ret_fork" 50 20
	rt_end
	expect_grep '^ret_fork: children 50, 0 bad$' "$TMP/rt_out"
	expect_eq "children" 50 "$(grep -c '^child_calls 24$' "$TMP/rt_st")"
	rt_all_returns
}

# rt_attach_fork OPTS...: ret_fork attached (OPTS: ptap's), SIGINT once DONE.
rt_attach_fork() {
	local p t rc=0
	rm -f "$TMP/rt_out"	# a READY left by the last run must not count
	"$RS/ret_fork" 50 20 attach >"$TMP/rt_out" 3>"$TMP/rt_st" 2>&1 &
	t=$!
	wait_for grep -q READY "$TMP/rt_out" || { kill -KILL "$t"; return 1; }
	"$PTAP" record "$@" -o "$TMP/rt_rec" -e "$RT_PROBE" -p "$t" 2>"$TMP/rt_err" &
	p=$!
	wait_for grep -q DONE "$TMP/rt_out" ||
		{ cat "$TMP/rt_out" "$TMP/rt_err" >&2; kill -KILL "$t" "$p"; return 1; }
	stop_ptap "$p"
	wait "$t" || rc=$?
	RT_RC=$rc
	rt_end
	expect_grep '^ret_fork: children 50, 0 bad$' "$TMP/rt_out"
}

# The same, attached: followed, each child's 24 returns are recorded under its
# pid; --no-follow, each child is let go with its return addresses put back.
test_racy_ret_fork_attached() {
	for _ in $(seq "$RACY_RUNS"); do
		rt_attach_fork
		expect_eq "returns" 2250 "$(rt_records ret_work__return)"
		rt_values
		rt_quiet
		rt_attach_fork --no-follow
		rt_all_returns
		expect_eq "returns (the parent's)" 1050 "$(rt_records ret_work__return)"
	done
}

# rt_deep HOW: ret_deep attached; after 1 s ptap ends (HOW: sigint or
# duration) while 4 threads are ~100 probed calls deep and one is blocked in
# read(2) inside one.  Every call then returns right, untraced.
rt_deep() {
	local p t rc=0
	rm -f "$TMP/rt_out"
	"$RS/ret_deep" 3 100 >"$TMP/rt_out" 2>&1 &
	t=$!
	wait_for grep -q READY "$TMP/rt_out" || { kill -KILL "$t"; return 1; }
	if [ "$1" = sigint ]; then
		"$PTAP" record -o "$TMP/rt_rec" -e "$RT_PROBE" -p "$t" 2>"$TMP/rt_err" &
		p=$!
		sleep 1
		stop_ptap "$p"
	else
		run_ptap record --duration 1 -o "$TMP/rt_rec" -e "$RT_PROBE" -p "$t" \
			2>"$TMP/rt_err" || fail "ptap --duration 1: status $?"
	fi
	untraced "$t"
	wait "$t" || rc=$?
	RT_RC=$rc
	rt_end
	expect_grep '^ret_deep: calls [0-9]*, 0 wrong$' "$TMP/rt_out"
	expect_grep '^BYTES-OK$' "$TMP/rt_out"
	[ "$(rt_records ret_work__return)" -gt 1000 ] ||
		fail "only $(rt_records ret_work__return) returns"
	rt_values
	rt_quiet
}

test_racy_ret_detach_deep() {
	for _ in $(seq "$RACY_RUNS"); do
		rt_deep sigint
		rt_deep duration
	done
}

# backtrace() and __builtin_return_address inside probed calls see the true
# callers, as untraced (return probes leave the stack alone), and every
# value returned is right.
test_ret_backtrace() {
	local frames
	frames=$("$RS/ret_bt" 100 5 | grep '^frames ')
	expect_eq "untraced" "frames 11 main 1" "$frames"
	rt_run -e "$RT_PROBE" -e 'ret_caller%return $retval' -- "$RS/ret_bt" 100 5
	rt_end
	expect_grep '^caller OK$' "$TMP/rt_out"
	expect_grep "^$frames\$" "$TMP/rt_out"
	expect_eq "ret_caller returns" 100 "$(rt_records ret_caller__return)"
	rt_all_returns
}

# An entry probe and two return probes on one function at once: each call
# gives one entry record and one record of each return probe, in order.
test_ret_entry_and_two_returns() {
	rt_run -e "$RT_PROBE" -e 'ret_work depth tag' -e 'r2=ret_work%return $retval depth' \
		-- "$RS/ret_jump" rec 20 10
	rt_end
	expect_eq "stated calls (ret_work and ret_o0)" 440 "$(rt_stated calls)"
	expect_eq "entries" 220 "$(rt_records ret_work)"
	expect_eq "returns" 220 "$(rt_records ret_work__return)"
	expect_eq "r2" 220 "$(rt_records r2)"
	# each r2 right after its ret_work__return, with the same retval and depth
	records "$TMP/rt_rec" | rt_kv retval depth | grep -v '^ret_work ' | paste - - |
		awk '$1 != "ret_work__return" || $4 != "r2" || $2 != $5 || $3 != $6 { bad++ }
		     END { exit bad > 0 || NR != 220 }' || fail "r2 records out of step"
	rt_values
	rt_quiet
}

# 100000 longjmps out of probed calls (-O2 and -O0): nothing is lost, nothing
# piles up (ptap's memory the same at the end as half way), and the calls
# after them are recorded.
test_ret_longjmp_loop() {
	local p half=0 end=0
	"$PTAP" record -o "$TMP/rt_rec" -e "$RT_PROBE" -e 'ret_o0%return $retval depth tag name' \
		-- "$RS/ret_jump" jump 100000 3 3>"$TMP/rt_st" >"$TMP/rt_out" 2>"$TMP/rt_err" &
	p=$!
	for _ in $(seq 600); do
		grep -q HALF "$TMP/rt_out" && break
		sleep 0.05
	done
	half=$(proc_field "$p" VmRSS)
	for _ in $(seq 600); do
		grep -q END "$TMP/rt_out" && break
		sleep 0.05
	done
	end=$(proc_field "$p" VmRSS)
	RT_RC=0
	wait_ptap "$p" || RT_RC=$?
	rt_end
	[ -n "$half" ] && [ -n "$end" ] || fail "no HALF or END seen"
	[ $((end - half)) -lt 512 ] || fail "ptap grew from $half kB to $end kB"
	expect_eq "calls returned (after the loop: 40 of each)" 80 "$(rt_stated calls)"
	expect_eq "ret_work returns" 40 "$(rt_records ret_work__return)"
	expect_eq "ret_o0 returns" 40 "$(rt_records ret_o0__return)"
	rt_values
	rt_quiet
}

# -O0: a return probe with DWARF arguments sits past the prologue and finds
# the return address through the CFI; alone, and with a second one at the
# entry on the same function (two frames of one call), recursion and
# longjmp: a call after a longjmp is a new call, with its own arguments.
test_ret_o0_past_prologue() {
	local with_a a=(-e 'a=ret_o0%return $retval')
	for with_a in 1 0; do
		[ "$with_a" = 1 ] || a=()
		rt_run "${a[@]}" -e 'b=ret_o0%return $retval depth tag name:string' \
			-- "$RS/ret_jump" jump 1000 5
		rt_end
		[ "$with_a" = 0 ] || expect_eq "a" 60 "$(rt_records a)"
		expect_eq "b" 60 "$(rt_records b)"
		expect_eq "b: retval = tag * 1000 + depth, tag 35, name \"o0\"" 60 \
			"$(rt_kv retval depth tag name <"$TMP/rt_rec" |
			   awk '$1 == "b" && $2 == $4 * 1000 + $3 && $4 == 35 && $5 == "\"o0\""' |
			   wc -l)"
		rt_quiet
	done
}

# -O0, the site past the prologue is also the head of the function's loop: a
# call that loops D times passes it D times, and is still one return.
test_ret_o0_loop_head() {
	rt_run -e 'ret_o0_loop%return $retval n' -- "$RS/ret_jump" loop 100 7
	rt_end
	expect_eq "returns" 100 "$(rt_records ret_o0_loop__return)"
	expect_eq "with the entry's n and the sum" 100 \
		"$(grep -c ' retval=28 n=7$' "$TMP/rt_rec")"
	rt_quiet
}

# Entry arguments that fill the shadow stack's data (3 strings of 64 KiB a
# frame, 200 deep): the deeper calls' returns are not recorded, said with the
# cause; the others are, and every call returns right.
test_ret_entry_args_fill_the_shadow() {
	local lost
	rt_run --string-max 65536 -e 'ret_o0%return $retval name:string name:string name:string' \
		-- "$RS/ret_jump" rec 2 200
	rt_end
	expect_grep "returns not recorded: .* or their entry arguments over 16 MiB" "$TMP/rt_err"
	lost=$(sed -n 's/^ptap: \([0-9]*\) calls.* returns not recorded.*/\1/p' "$TMP/rt_err")
	expect_eq "recorded + not recorded" 402 $(($(rt_records ret_o0__return) + lost))
	[ "$lost" -gt 0 ] || fail "nothing lost?"
}

# Attach, trace 0.4 s, detach, 5 times over one run of ret_deep: each detach
# leaves the calls in flight to return right (ptap never wrote their stack),
# and each new session records right values.
test_racy_ret_attach_cycles() {
	local p t rc cycle
	for _ in $(seq $(( (RACY_RUNS + 4) / 5 ))); do
		rc=0
		rm -f "$TMP/rt_out"
		"$RS/ret_deep" 120 100 >"$TMP/rt_out" 2>&1 &	# SIGUSR1 ends it
		t=$!
		wait_for grep -q READY "$TMP/rt_out" || { kill -KILL "$t"; return 1; }
		for cycle in 1 2 3 4 5; do
			"$PTAP" record -o "$TMP/rt_rec" -e "$RT_PROBE" -p "$t" 2>"$TMP/rt_err" &
			p=$!
			sleep 0.4
			stop_ptap "$p"
			untraced "$t"
			[ "$(rt_records ret_work__return)" -gt 100 ] ||
				fail "cycle $cycle: few returns"
			rt_values
			rt_quiet
		done
		kill -USR1 "$t"
		wait "$t" || rc=$?
		RT_RC=$rc
		rt_end
		expect_grep '^ret_deep: calls [0-9]*, 0 wrong$' "$TMP/rt_out"
		expect_grep '^BYTES-OK$' "$TMP/rt_out"
	done
}
