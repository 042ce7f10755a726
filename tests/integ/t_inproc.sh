# In-process probes (tracer/engine/inproc.h, agent/agent.h): launched, a
# probe at a jump site whose record needs only its fetch programs is
# recorded by ptap's agent inside the process, without a stop.  Each test
# checks the records against what the target says it did, and that the
# target finishes with its own verdict (samples/scen/inproc_storm.c).

IS=$S/scen/inproc_storm
IS_PROBE=(-e 'probe_me i s:string')

# is_run MODE N [PTAP-OPTION...]: record inproc_storm MODE N into $TMP/is_rec
# (its fd 3 into $TMP/is_said, its output into $TMP/is_out); the target must
# end well
is_run() {
	local mode=$1 n=$2 rc=0
	shift 2
	run_ptap record "$@" -o "$TMP/is_rec" "${IS_PROBE[@]}" -- "$IS" "$mode" "$n" \
		3>"$TMP/is_said" >"$TMP/is_out" 2>"$TMP/is_err" || rc=$?
	expect_eq "exit status (ptap's, the target's)" 0 "$rc"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	expect_grep '^BYTES-OK$' "$TMP/is_out"
}

# text_of FILE, json_of FILE: FILE's records without what differs from run
# to run (times, pids, where the program was mapped), to compare a run in
# the process with one at stops
text_of() {
	records "$1" | sed -E 's/^[^:]*: //; s/duration=[0-9]+ns//; s/0x[0-9a-f]+//g'
}
json_of() {
	records "$1" | sed -E 's/"(ts|duration_ns|pid|tid)":[0-9]*,//g; s/"(addr|ret_addr|buf)":"0x[0-9a-f]*",?//g'
}

# said WORD: the number inproc_storm said after WORD on fd 3
said() {
	awk -v w="$1" '$1 == w { print $2 }' "$TMP/is_said"
}

# The hits make no stop: the thread's own count of context switches stays
# far below the hits, where the stop path makes one a hit at least.
test_inproc_hits_do_not_stop() {
	local n=20000 sw
	is_run count $n -vv
	expect_grep 'probe_me: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' "$TMP/is_err"
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	sw=$(said switches)
	[ "$sw" -lt $((n / 20)) ] || fail "$sw context switches for $n hits recorded in the process"
	is_run count $n --no-agent
	expect_eq "records (--no-agent)" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	sw=$(said switches)
	[ "$sw" -ge $n ] || fail "--no-agent: $sw context switches for $n hits (one stop each)"
}

# In the process and at a stop, the same values, in every argument form
# (a string, members behind a pointer, a global), in the same order.
test_inproc_same_records_as_stops() {
	local a b spec='exec_query query_string:string len desc->source_text:string desc->nrows debug_query_string:string'
	run_ptap record --format json -o "$TMP/ip_a" -vv -e "$spec" \
		-- "$S/query_server" samples/queries.txt >/dev/null 2>"$TMP/ip_err"
	expect_grep 'exec_query: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' "$TMP/ip_err"
	run_ptap record --no-agent --format json -o "$TMP/ip_b" -e "$spec" \
		-- "$S/query_server" samples/queries.txt >/dev/null
	a=$(records "$TMP/ip_a" | grep -o '"args":.*' | md5sum)
	b=$(records "$TMP/ip_b" | grep -o '"args":.*' | md5sum)
	expect_eq "records" "$b" "$a"
	expect_eq "records" 7 "$(records "$TMP/ip_a" | wc -l)"
}

# A return probe recorded in the process, at its entry and at both its
# exits (each a ret with padding after it, made a jump): the same return
# records as at stops ($retval, an argument fetched at the entry, the
# caller), each with a duration.
test_inproc_return_probes_same_as_stops() {
	local a b spec='exec_query%return $retval query_string:string len'
	run_ptap record --format json -o "$TMP/ip_a" -vv -e "$spec" \
		-- "$S/query_server" samples/queries.txt >/dev/null 2>"$TMP/ip_err"
	expect_eq "sites in the process (the entry, two exits)" 2 \
		"$(grep -c 'exec_query__return: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' \
			"$TMP/ip_err")"
	run_ptap record --no-agent --format json -o "$TMP/ip_b" -e "$spec" \
		-- "$S/query_server" samples/queries.txt >/dev/null
	# the same but for the run's own: time, pids, where the program was mapped
	a=$(json_of "$TMP/ip_a")
	b=$(json_of "$TMP/ip_b")
	expect_eq "records" "$b" "$a"
	expect_eq "return records" 7 "$(records "$TMP/ip_a" | grep -c '"kind":"return".*"duration_ns":[0-9]')"
	expect_grep '^ptap: 7 calls of return probes recorded whole in the processes (the entry kept for the exit), 0 taken from them by ptap (an exit elsewhere, a fork, an exec, a thread ending, a call left)$' "$TMP/ip_err"
}

# A return probe's call is made whole in the process: its entry kept in the
# thread's ring until its exit adds its own record to the same slot, one
# slot a call (-v counts them).  Where the exit comes elsewhere, ptap takes
# the entry from the process first: a fork inside the call (the child
# returns from it too), an exit that stops the thread (tail_cond's
# conditional tail call, its entry in the process; tail_cond(0) returns
# through its ret).  The records are those of stops.
test_inproc_return_calls_held() {
	local m spec want n
	for m in fork tail; do
		case $m in
		fork)	spec='forker%return $retval x' n=4
			want='0 calls of return probes recorded whole in the processes (the entry kept for the exit), 2 taken from them by ptap (an exit elsewhere, a fork, an exec, a thread ending, a call left)' ;;
		tail)	spec='tail_cond%return $retval x=%di:s32' n=2
			want='1 calls of return probes recorded whole in the processes (the entry kept for the exit), 1 taken from them by ptap (an exit elsewhere, a fork, an exec, a thread ending, a call left)' ;;
		esac
		run_ptap record -v -o "$TMP/h_a" -e "$spec" -- "$S/retprobe" $m >/dev/null \
			2>"$TMP/h_err"
		expect_grep "^ptap: $want\$" "$TMP/h_err"
		run_ptap record --no-agent -o "$TMP/h_b" -e "$spec" -- "$S/retprobe" $m >/dev/null
		expect_eq "records ($m)" "$(normalize "$TMP/h_b" | sort)" "$(normalize "$TMP/h_a" | sort)"
		expect_eq "records with a duration ($m)" "$n" \
			"$(records "$TMP/h_a" | grep -c 'duration=[0-9]*ns')"
	done
}

# A ret with no padding after it (the next block follows at once): its
# jump takes the two instructions before it, whose trampoline runs them,
# then calls the agent (or traps: --no-agent), then runs the ret.  Every
# call's return recorded, with its $retval, in the process as at stops,
# and in a fork child, which keeps the sites.
test_inproc_exit_without_padding() {
	local n=2000 a b
	run_ptap record -o "$TMP/ie_a" -vv -e 'two_exits%return $retval:s64 i=%di:s64' -- "$IS" exits $n \
		>"$TMP/is_out" 2>"$TMP/ie_err"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	expect_eq "its entry and both exits in the process" 3 \
		"$(grep -c 'two_exits__return: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' \
			"$TMP/ie_err")"
	run_ptap record --no-agent -o "$TMP/ie_b" -vv -e 'two_exits%return $retval:s64 i=%di:s64' \
		-- "$IS" exits $n >"$TMP/is_out" 2>"$TMP/ie_err"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	expect_grep 'two_exits__return: planted at 0x[0-9a-f]* in pid [0-9]* (jump)$' "$TMP/ie_err"
	a=$(text_of "$TMP/ie_a")
	b=$(text_of "$TMP/ie_b")
	expect_eq "records" "$b" "$a"
	expect_eq "returns, parent and child" $((2 * n)) \
		"$(echo "$a" | grep -c '^two_exits__return: ( <- ) *retval=')"
	expect_eq "odd calls' returns, 3i" "$n" "$(records "$TMP/ie_a" |
		awk '{ for (k = 1; k <= NF; k++) { if ($k ~ /^retval=/) r = substr($k, 8); if ($k ~ /^i=/) i = substr($k, 3) } }
		     i % 2 == 1 && r == 3 * i { c++ } END { print c + 0 }')"
}

# A tail call's jmp is an exit recorded in the process (its trampoline
# jumps on to the callee): the same returns as at stops, $retval "left by a
# tail call" where the function jumped away.
test_inproc_tail_call_exits() {
	local a b spec=(-e 'tail_a%return $retval x' -e 'tail_b%return $retval x'
			-e 'tail_c%return $retval y')
	run_ptap record -o "$TMP/it_a" -vv "${spec[@]}" -- "$S/retprobe" tail \
		>/dev/null 2>"$TMP/it_err"
	expect_eq "tail exits in the process" 2 \
		"$(grep -c 'tail_[ab]__return: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' \
			"$TMP/it_err")"
	run_ptap record --no-agent -o "$TMP/it_b" "${spec[@]}" -- "$S/retprobe" tail >/dev/null
	a=$(text_of "$TMP/it_a")
	b=$(text_of "$TMP/it_b")
	expect_eq "records" "$b" "$a"
	expect_eq "left by a tail call" 6 "$(grep -c 'retval=(error: not known: left by a tail call)' \
		"$TMP/it_a")"
}

# -v says, once for each site or exit whose hits still stop the thread,
# why: every probe planted other than in the process is said, none that is.
# tail_a begins with a branch, tail_c with its ret; tail_cond leaves
# through a conditional tail call and through a ret: in the process, the
# exits of all three but that tail call, and tail_cond's entry.
test_inproc_stops_said() {
	local stopped said
	run_ptap record -o /dev/null -vv -e 'tail_a%return $retval x' -e 'tail_c%return $retval y' \
		-e 'tail_cond%return $retval x=%di:s32' -- "$S/retprobe" tail >/dev/null 2>"$TMP/iv_err"
	expect_grep "tail_c__return: the site at 0x[0-9a-f]* in pid [0-9]* stops the thread at each hit (not recorded in the process): 'ret' is a branch$" "$TMP/iv_err"
	expect_grep "tail_a__return: the site at 0x[0-9a-f]* in pid [0-9]* stops the thread at each hit (not recorded in the process): 'jmp 0x[0-9a-f]*' is a branch$" "$TMP/iv_err"
	expect_grep 'tail_cond__return: the exit at 0x[0-9a-f]* in pid [0-9]* stops the thread at each hit (not recorded in the process): a conditional tail call$' "$TMP/iv_err"
	stopped=$(sed -n 's/^ptap: \([a-z_]*\): planted at \(0x[0-9a-f]*\) in pid [0-9]* (\(jump\|out of line\|emulated\))$/\1 \2/p' \
		"$TMP/iv_err" | grep -v '^r_brk' | sort)
	said=$(sed -n 's/^ptap: \([a-z_]*\): the [a-z]* at \(0x[0-9a-f]*\) in pid [0-9]* stops the thread.*/\1 \2/p' \
		"$TMP/iv_err" | sort)
	expect_eq "sites that stop, and those said" "$stopped" "$said"
	expect_eq "sites in the process" 4 "$(grep -c '(in-process)$' "$TMP/iv_err")"
	run_ptap record -o /dev/null -v --no-agent -e 'tail_c%return $retval y' -- "$S/retprobe" tail \
		>/dev/null 2>"$TMP/iv_err"
	! grep -q 'stops the thread' "$TMP/iv_err" || fail "said with --no-agent: $(cat "$TMP/iv_err")"
}

# --context: the scope (a return probe of ptap's own, no record) and the
# probe it names recorded in the process; each syscall carries the query
# it was made under, as at stops: the scope's frames are pushed and popped
# from the ring before ptap handles the syscall's stop.
test_inproc_context_same_as_stops() {
	local a b
	local -a args=(-e 'exec_query query_string:string' --context exec_query
		       --syscalls pread64,pwrite64,fsync,openat)
	run_ptap record --format json -o "$TMP/ic_a" -vv "${args[@]}" \
		-- "$S/query_server" samples/queries.txt "$TMP/ic_res" >/dev/null 2>"$TMP/ic_err"
	expect_grep 'exec_query__return: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' "$TMP/ic_err"
	! grep -q '(jump)$\|(emulated)$\|(out of line)$' <(grep -v 'r_brk' "$TMP/ic_err") ||
		fail "a probe still stops: $(grep 'planted' "$TMP/ic_err")"
	run_ptap record --no-agent --format json -o "$TMP/ic_b" "${args[@]}" \
		-- "$S/query_server" samples/queries.txt "$TMP/ic_res" >/dev/null
	a=$(json_of "$TMP/ic_a")
	b=$(json_of "$TMP/ic_b")
	expect_eq "records" "$b" "$a"
	expect_eq "syscalls under a query" 13 "$(records "$TMP/ic_a" | grep -c '"context":{"exec_query"')"
}

# Another thread unmaps and maps again the page the string argument points
# to: every record holds the string as it was ("remap", or the part of it
# written so far in a page just mapped) or an error, one per call, and the
# process never faults.
test_inproc_string_unmapped_under_the_read() {
	local n=200000 ok err
	is_run remap $n
	expect_eq "calls" $n "$(said calls)"
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	ok=$(records "$TMP/is_rec" | grep -cE ' s="(r|re|rem|rema|remap)?"$')
	err=$(records "$TMP/is_rec" | grep -c ' s=(error: bad address 0x[0-9a-f]*)$')
	echo "remap: $ok with the string, $err with an error"
	expect_eq "records with the string or an error" $n "$((ok + err))"
}

# The agent reads memory directly; a read past a file mapping's end (a
# SIGBUS) is caught by ptap: every other record an error, none lost, the
# process never sees the signal.
test_inproc_sigbus_past_file_end() {
	local n=20000
	is_run sigbus $n
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	expect_eq "records with the string" $((n / 2)) "$(records "$TMP/is_rec" | grep -c ' s="sigbus"$')"
	expect_eq "records with an error" $((n / 2)) \
		"$(records "$TMP/is_rec" | grep -c ' s=(error: bad address 0x[0-9a-f]*)$')"
}

# remap in a process that handles SIGSEGV and SIGBUS (its handlers end it
# with HANDLER-RAN), installed half way, while the agent reads directly: a
# fault of the agent's read is never delivered, and from the call that
# installs the handler on (launched: ptap stops it) the agent reads through
# process_vm_readv (said with -vv), which cannot fault.
test_inproc_faults_never_reach_handlers() {
	local n=100000 ok err
	is_run remap-handled $n -vv
	! grep -q HANDLER-RAN "$TMP/is_out" || fail "the program's handler saw the agent's fault"
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	ok=$(records "$TMP/is_rec" | grep -cE ' s="(r|re|rem|rema|remap)?"$')
	err=$(records "$TMP/is_rec" | grep -c ' s=(error: bad address 0x[0-9a-f]*)$')
	expect_eq "records with the string or an error" $n "$((ok + err))"
	[ "$err" -gt 0 ] || fail "no read failed: nothing tested"
	expect_grep 'the agent reads memory directly$' "$TMP/is_err"
	expect_grep 'it installs a SIGSEGV handler: the agent reads memory through process_vm_readv$' \
		"$TMP/is_err"
}

# A SIGSEGV handler installed, SIGSEGV blocked at once, and bad reads: had
# the agent read directly, the kernel would have reset the handler at the
# fault (it does for a blocked signal it forces); launched, ptap turns the
# direct reads off when it sees the handler being installed, so the reads
# fail without a fault and the handler is there when the program raises
# SIGSEGV at the end.
test_inproc_handler_installed_then_blocked() {
	local n=1000
	is_run handler-blocked $n -vv
	expect_eq "records with an error" $n \
		"$(records "$TMP/is_rec" | grep -c ' s=(error: bad address 0x[0-9a-f]*)$')"
	expect_grep 'the agent reads memory directly$' "$TMP/is_err"
	expect_grep 'it installs a SIGSEGV handler: the agent reads memory through process_vm_readv$' \
		"$TMP/is_err"
}

# Signals without pause to 4 threads in probe_me's loop; a handler that
# calls probe_me too, and every 8th that siglongjmps out of what it
# interrupted (the agent, maybe): every call that ran is recorded, each
# thread's i = 0..N-1 all there; one cut short at its entry may be.
test_inproc_signal_storm_with_siglongjmp() {
	local n=20000 calls jumps recs pairs
	is_run signals $n
	calls=$(said calls) jumps=$(said jumps)
	recs=$(records "$TMP/is_rec" | grep -c ' probe_me: ')
	echo "signals: $calls calls, $jumps siglongjmps, $recs records"
	[ "$recs" -ge "$calls" ] && [ "$recs" -le $((calls + jumps)) ] ||
		fail "$recs records for $calls calls and $jumps handlers that jumped away"
	pairs=$(records "$TMP/is_rec" | grep ' s="thread"$' |
		sed -E 's/^.* [0-9]+\/([0-9]+) .* i=([0-9]+) .*/\1 \2/' | sort -u | wc -l)
	expect_eq "threads x calls recorded" $((4 * n)) "$pairs"
}

# The same storm against a return probe recorded in the process, its calls
# made whole there (ret_me: its entry and its exit jump sites): a handler
# that jumps away from inside the agent, from between the entry kept and
# the exit, or from a handler's own call of it.  Each call of ret_me in a
# thread has an x of its own: every call seen to return recorded once (a
# jump between the return and the count: a record more), with x + 1 (an
# entry paired with another call's exit would not be); each thread's loop
# at least n calls returned; calls made whole there.
test_inproc_return_signal_storm() {
	local n=20000 rets jumps recs whole
	local IS_PROBE=(-e 'ret_me%return $retval:s64 x=%di:s64')
	is_run signals $n -v
	rets=$(said rets) jumps=$(said jumps)
	recs=$(records "$TMP/is_rec" | grep -c ' ret_me__return: ')
	echo "signals: $rets returns, $jumps siglongjmps, $recs records"
	[ "$recs" -ge "$rets" ] && [ "$recs" -le $((rets + jumps)) ] ||
		fail "$recs records for $rets returns and $jumps handlers that jumped away"
	expect_eq "records of another form" 0 "$(records "$TMP/is_rec" |
		grep -vcE ' ret_me__return: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\) duration=[0-9]+ns retval=-?[0-9]+ x=-?[0-9]+$' || true)"
	records "$TMP/is_rec" |
		sed -E 's/^.* [0-9]+\/([0-9]+) .* retval=(-?[0-9]+) x=(-?[0-9]+)$/\1 \2 \3/' >"$TMP/is_calls"
	expect_eq "records whose retval is not x + 1" "" \
		"$(awk '$2 != $3 + 1 { print; exit }' "$TMP/is_calls")"
	expect_eq "calls recorded twice" "" "$(cut -d' ' -f1,3 "$TMP/is_calls" | sort | uniq -d | head -3)"
	expect_eq "threads whose loop has fewer than $n calls recorded" "" \
		"$(awk -v n=$n '$3 >= 0 { c[$1]++ } END { k = 0; for (t in c) { k++; if (c[t] < n) print t } if (k != 4) print k " threads" }' "$TMP/is_calls")"
	whole=$(sed -n 's/^ptap: \([0-9]*\) calls of return probes recorded whole in the processes.*/\1/p' \
		"$TMP/is_err")
	[ "${whole:-0}" -gt 0 ] || fail "no call made whole in the process: $(cat "$TMP/is_err")"
}

# Threads created and gone at a high rate: each one's 10 records, under its tid.
test_inproc_thread_storm() {
	is_run threads 2000
	expect_eq "records" 20000 "$(records "$TMP/is_rec" | grep -c ' s="t"$')"
	expect_eq "threads" 2000 "$(records "$TMP/is_rec" | grep ' s="t"$' |
		sed -E 's/^.* [0-9]+\/([0-9]+) .*/\1/' | sort -u | wc -l)"
}

# Calls handed from thread to thread (4 threads, each call after the one
# before it): the threads record into rings of their own (their tids'), and
# ptap merges them by time without ever writing a call before the one it
# followed, so the records are in the calls' order: i = 0, 1, 2 ...
test_inproc_handoff_in_order() {
	local n=4000 rings
	is_run handoff $n -vv
	expect_grep 'probe_me: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' "$TMP/is_err"
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' s="handoff"$')"
	expect_eq "threads" 4 "$(records "$TMP/is_rec" | grep ' s="handoff"$' |
		sed -E 's/^.* [0-9]+\/([0-9]+) .*/\1/' | sort -u | wc -l)"
	rings=$(sed -n 's/.*region at 0x[0-9a-f]* ([0-9]* KiB, \([0-9]*\) rings)$/\1/p' "$TMP/is_err")
	[ "${rings:-0}" -ge 2 ] || fail "rings of the process: '$rings', want 2 or more"
	echo "    threads' rings: $(records "$TMP/is_rec" | grep ' s="handoff"$' |
		sed -E 's/^.* [0-9]+\/([0-9]+) .*/\1/' | sort -u |
		awk -v r="$rings" '{ printf "%s%d", NR > 1 ? " " : "", $1 % r }') of $rings" >&2
	records "$TMP/is_rec" | grep ' s="handoff"$' | sed -E 's/.* i=([0-9]+) .*/\1/' |
		awk '$1 != NR - 1 { print "record " NR ": i=" $1 ", want " NR - 1; bad = 1; exit }
			END { exit bad }' || fail "records out of the calls' order"
	# at stops, the same order
	is_run handoff $n --no-agent
	records "$TMP/is_rec" | grep ' s="handoff"$' | sed -E 's/.* i=([0-9]+) .*/\1/' |
		awk '$1 != NR - 1 { print "record " NR ": i=" $1; bad = 1; exit } END { exit bad }' ||
		fail "--no-agent: records out of the calls' order"
}

# A vfork child runs on its parent's thread pointer, where the agent reads
# the tid: while it runs the agent asks the kernel, and once it is gone --
# by _exit as by exec -- it reads it there again.
test_inproc_vfork_child_exits() {
	local rc=0
	run_ptap record -vv -o "$TMP/vf_rec" -e 'hold_once i=%di' -- "$S/scen/vfork_hold" 10 3 \
		>"$TMP/vf_out" 2>"$TMP/vf_err" || rc=$?
	expect_eq "exit status" 0 "$rc"
	expect_grep '^VFORKS 3$' "$TMP/vf_out"
	expect_grep 'hold_once: planted at 0x[0-9a-f]* in pid [0-9]* (in-process)$' "$TMP/vf_err"
	expect_eq "records" "i=0x0 i=0x1 i=0x2" \
		"$(records "$TMP/vf_rec" | awk '$4 == "hold_once:" { print $6 }' | xargs)"
	expect_eq "the agent asks the kernel" 3 \
		"$(grep -c 'a child runs on its thread pointer (vfork): the agent asks the kernel for the tid$' "$TMP/vf_err")"
	expect_eq "the agent reads the tid again" 3 \
		"$(grep -c 'no child on its thread pointer now: the agent reads the tid there again$' "$TMP/vf_err")"
}

# Forks from 4 threads: each child's record under its own pid, none under
# the parent's (the agent names the thread; ptap the process).
test_inproc_fork_storm() {
	local n=100 parent
	is_run forks $n --events task
	expect_eq "child records" $((4 * n)) "$(records "$TMP/is_rec" | grep -c ' s="child"$')"
	parent=$(records "$TMP/is_rec" | awk '/ exec: / { split($2, a, "/"); print a[1]; exit }')
	expect_eq "children" $((4 * n)) "$(records "$TMP/is_rec" | grep ' s="child"$' |
		awk -v p="$parent" '{ split($2, a, "/"); if (a[1] == a[2] && a[1] != p) print a[1] }' |
		sort -u | wc -l)"
}

# A reader slower than the hits: the threads wait for it; nothing dropped.
test_inproc_slow_reader() {
	local n=200000
	# the records into the pipe, the target's own output elsewhere: both on
	# one pipe, its lines could land inside a record's
	{ run_ptap record -o /dev/fd/5 "${IS_PROBE[@]}" -- "$IS" count $n \
		>"$TMP/is_out" 2>"$TMP/is_err"; } 5>&1 | (sleep 2; cat) >"$TMP/is_rec"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	expect_eq "records" $n "$(grep -c ' probe_me: ' "$TMP/is_rec")"
	grep ' probe_me: ' "$TMP/is_rec" | sed -E 's/.* i=([0-9]+) .*/\1/' |
		awk '$1 != NR - 1 { print "record " NR ": i=" $1; bad = 1; exit } END { exit bad }' ||
		fail "records missing or out of order"
}

# caps_said FILE: ptap's -vv lines in FILE on its rings' caps ("K of its R
# rings written lately: its threads take C of each one's N slots"), checked:
# C is N for one ring, else 4096 / K rounded down to a power of two, 512 at
# least; the Ks, in turn, into $caps_ks
caps_said() {
	local caps
	caps=$(sed -n "s/.*: \([0-9]*\) of its [0-9]* rings written lately: its threads take \([0-9]*\) of each one's \([0-9]*\) slots\$/\1 \2 \3/p" "$1")
	echo "    rings written, slots of each: $(echo "$caps" | cut -d' ' -f1,2 | paste -sd,)" >&2
	echo "$caps" | awk '{ c = $3; if ($1 > 1) { w = 4096 / $1; c = 1; while (c * 2 <= w) c *= 2
			if (c < 512) c = 512; if (c > $3) c = $3 }
		if ($2 != c) { print $1 " rings: " $2 " slots each, want " c; bad = 1 } }
		END { exit bad }' >&2 || fail "the slots of each ring as more are written" || return
	caps_ks=$(echo "$caps" | cut -d' ' -f1 | xargs)
	[[ " $caps_ks " =~ \ [2-9]\  ]] || fail "no -vv line with 2 rings or more written: '$caps_ks'"
}

# Threads writing several rings share the slots (tracer/engine/inproc.c:
# CAP_MIN): the more rings written, the fewer slots of each the threads
# take, which -vv says; against a slow reader, with signals and siglongjmps
# among the hits, every thread's every call is still recorded.  Once one
# thread alone writes, for longer than the caps' window, its ring has every
# slot again.
test_inproc_rings_share_their_slots() {
	local n=20000 pairs caps_ks
	{ run_ptap record -vv -o /dev/fd/5 "${IS_PROBE[@]}" -- "$IS" signals $n \
		>"$TMP/is_out" 2>"$TMP/is_err"; } 5>&1 | (sleep 2; cat) >"$TMP/is_rec"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	pairs=$(grep ' s="thread"$' "$TMP/is_rec" |
		sed -E 's/^.* [0-9]+\/([0-9]+) .* i=([0-9]+) .*/\1 \2/' | sort -u | wc -l)
	expect_eq "threads x calls recorded" $((4 * n)) "$pairs"
	caps_said "$TMP/is_err"

	is_run alone $n -vv
	expect_eq "records" "$((4 * n)) 400" \
		"$(records "$TMP/is_rec" | grep -c ' s="many"$') $(records "$TMP/is_rec" | grep -c ' s="alone"$')"
	caps_said "$TMP/is_err"
	expect_eq "rings written lately, at the last change of the caps" 1 "${caps_ks##* }"
}

# Records made slowly are taken at the drain timer, every 10 ms while every
# process's bell is waited on (tracer/engine/loop.c: DRAIN_NS), not at the 2
# ms kept for processes no bell reaches: "alone" records once a millisecond
# for 0.4 s, half a ring never fills, so the timer takes them, in about 40
# wakes of ptap's, against 200 at 2 ms.  -v says how many.
test_inproc_timer_drains_every_10ms() {
	local t0 ms line d b
	t0=$(date +%s%N)
	is_run alone 2000 -v
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_eq "records" "8000 400" \
		"$(records "$TMP/is_rec" | grep -c ' s="many"$') $(records "$TMP/is_rec" | grep -c ' s="alone"$')"
	line=$(grep 'the rings drained' "$TMP/is_err")
	echo "    $line (in $ms ms)" >&2
	if [[ $line == *"(every 2 ms at the end)"* ]] && grep -q 'no futex_waitv' "$TMP/is_err"; then
		skip "no futex_waitv(2) here: $(grep -o 'no futex_waitv.*' "$TMP/is_err")"
	fi
	[[ $line =~ drained\ ([0-9]+)\ times\ at\ the\ timer\ \(every\ 10\ ms\ at\ the\ end\)\ or\ a\ bell\ \(([0-9]+)\ bells\) ]] ||
		fail "no -v line 'the rings drained N times at the timer (every 10 ms at the end) or a bell (B bells)'" || return
	d=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]}
	[ $((d - b)) -ge 10 ] && [ $((d - b)) -le $((ms / 10 + 10)) ] ||
		fail "$((d - b)) drains at the timer in $ms ms: want 10 to $((ms / 10 + 10))"
}

# Where the kernel has no futex_waitv(2) (before Linux 5.16; here strace
# makes ptap's main thread, which looks for it, get ENOSYS), no bell wakes
# ptap: -v says so, the timer drains every 2 ms, and every record is there.
test_inproc_no_futex_waitv_drains_every_2ms() {
	local n=200000 rc=0
	need_cmd strace strace || return
	timeout 60 strace -o /dev/null -e trace=futex_waitv -e inject=futex_waitv:error=ENOSYS \
		"$PTAP" record -v -o "$TMP/is_rec" "${IS_PROBE[@]}" -- "$IS" count $n \
		3>/dev/null >"$TMP/is_out" 2>"$TMP/is_err" || rc=$?
	expect_eq "exit status" 0 "$rc"
	expect_grep '^STORM-OK$' "$TMP/is_out"
	expect_grep '^ptap: no futex_waitv(2) (Function not implemented): records made in the processes are taken every 2 ms$' "$TMP/is_err"
	expect_grep 'the rings drained [0-9]* times at the timer (every 2 ms at the end) or a bell (0 bells)' "$TMP/is_err"
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
}

# A process that may not make the shared memory (memfd_create forbidden by
# its seccomp filter): its probes stop instead, said once; nothing lost.
test_inproc_seccomp_falls_back() {
	local n=5000
	is_run sandbox $n -v
	expect_eq "records" $n "$(records "$TMP/is_rec" | grep -c ' probe_me: ')"
	expect_eq "said" 1 "$(grep -c 'no in-process probes (Operation not permitted)' "$TMP/is_err")"
}

# Attached to 8 threads hammering the probe (and a 9th forking children that
# call it): the probe is recorded in the process, threads found inside the
# trampoline or the agent at the detach are stepped out of them, and SIGINT
# leaves the process as it was: its map table the same as before the attach
# (agent, memory and trampolines unmapped), untraced, running on to its own
# verdict.
test_inproc_attach_detach_under_load() {
	local p off=0 size
	start_target "$TMP/out" hammer 8
	grep -v ' \[vsyscall\]$' "/proc/$TARGET/maps" >"$TMP/maps0"
	"$PTAP" record -vv -o "$TMP/rec" -e 'probe_me a s:string' -p "$TARGET" 2>"$TMP/err" &
	p=$!
	sleep 1
	# and until a child's records are there (3 s more at most): the 8 threads
	# keep ptap busy and its rings full, and a child waits its turn among them
	for _ in $(seq 30); do
		size=$(stat -c %s "$TMP/rec" 2>/dev/null || echo 0)
		tail -c +$((off + 1)) "$TMP/rec" 2>/dev/null | head -c $((size - off)) |
			grep -q ' s="child"$' && break
		off=$((size > 200 ? size - 200 : 0))	# a line cut at the end: again
		sleep 0.1
	done
	stop_ptap "$p"
	grep -v ' \[vsyscall\]$' "/proc/$TARGET/maps" >"$TMP/maps1"
	expect_diff "$TMP/maps0" "$TMP/maps1"
	untraced "$TARGET"
	finish_target "$TMP/out"
	expect_eq "children died" "DIED 0" "$(grep '^DIED' "$TMP/out")"
	expect_grep "probe_me: planted at 0x[0-9a-f]* in pid $TARGET (in-process)\$" "$TMP/err"
	grep -q ' a=[0-9]* s="hammer"$' "$TMP/rec" || fail "no hammer records"
	grep -q ' a=-[0-9]* s="child"$' "$TMP/rec" || fail "no records of the children (the agent inherited)"
}

# Detached while a signal handler that interrupted the agent or a
# trampoline still runs (attach_load sighold): it returns into that code
# once done.  ptap single-steps the thread until it has (the others
# stopped), then out of that code, and unmaps it: the map table is the one
# before the attach.  Taken for a stale word, the frame kept the pages in
# a fork server (tracer/engine/detach.c: the whole frame is looked at).
# held_attached SECONDS MS WHAT [OPTION...]: attach_load sighold SECONDS MS
# WHAT, recorded by ptap -p (with OPTION...; its pid in HP) until the
# handler over ptap's code says HELD
held_attached() {
	local secs=$1 ms=$2 what=$3
	shift 3
	start_target "$TMP/out" sighold "$secs" "$ms" $what
	"$PTAP" record -o "$TMP/rec" -e 'probe_me a s:string' "$@" -p "$TARGET" 2>"$TMP/err" &
	HP=$!
	wait_for grep -q '^HELD$' "$TMP/out"
}

# detach_under_handler MODE [WHAT [PROBE...]]: as described above, with
# attach_load MODE 30 600 WHAT, and ptap's probes PROBE... too
detach_under_handler() {
	local p mode=$1 what=${2:-}
	shift $(($# < 2 ? $# : 2))
	start_target "$TMP/out" "$mode" 30 600 $what
	grep -v ' \[vsyscall\]$' "/proc/$TARGET/maps" >"$TMP/maps0"
	"$PTAP" record -vv -o "$TMP/rec" -e 'probe_me a s:string' "$@" -p "$TARGET" 2>"$TMP/err" &
	p=$!
	wait_for grep -q '^HELD$' "$TMP/out"
	[ "$what" != late ] || grep -v ' \[vsyscall\]$' "/proc/$TARGET/maps" >"$TMP/maps0"
	stop_ptap "$p"
	untraced "$TARGET"
	expect_grep "tid [0-9]*: in a signal handler that interrupted ptap's code: stepping it until it returns" "$TMP/err"
	! grep -q "stay mapped" "$TMP/err" || fail "$(grep "stay mapped" "$TMP/err")"
	grep -v ' \[vsyscall\]$' "/proc/$TARGET/maps" >"$TMP/maps1"
	[ "$what" = late ] && sed -i '/ptap-agent\|^[0-9a-f-]* r-xp 00000000 00:00 0 *$/d' "$TMP/maps0"
	expect_diff "$TMP/maps0" "$TMP/maps1"
	kill -USR2 "$TARGET"
	finish_target "$TMP/out"
}
test_inproc_detach_under_a_handler_on_the_agent() {
	detach_under_handler sighold
}

# The same, the handler that interrupted ptap's code itself interrupted by
# one on an alternate stack (sighold-alt), where the thread is at the
# detach: the frame that saved a pc of ptap's is on the thread's stack,
# which the alternate one's frame points back to.
test_inproc_detach_under_a_handler_on_an_altstack() {
	detach_under_handler sighold-alt
}

# The same, the handler calling held_tick, a probe where only an int3 fits:
# the handler is stepped once every byte of ours is back (an int3 met while
# stepping was taken for a step, and the thread went on inside an
# instruction).
test_inproc_detach_under_a_handler_through_a_probe() {
	detach_under_handler sighold tick -e held_tick
	expect_grep "held_tick: an int3 site, not a jump site" "$TMP/err"
	! grep -q TICK-WRONG "$TMP/out" || fail "held_tick computed wrong under the stepping"
}

# The same, the thread and its stack created after the attach: ptap's own
# map table does not know that stack (attached, it follows the loader's
# mappings only), so the detach reads the process's mappings as they are.
test_inproc_detach_under_a_handler_on_a_new_stack() {
	detach_under_handler sighold late
}

# stepped_handler_lives MS WHAT: attach_load sighold 30 MS WHAT, detached
# while its handler is over ptap's code: the handler is stepped, and the
# process ends well at the SIGUSR2
stepped_handler_lives() {
	local rc=0
	held_attached 30 "$1" "$2" -vv
	stop_ptap "$HP"
	expect_grep "tid [0-9]*: in a signal handler that interrupted ptap's code: stepping it until it returns" "$TMP/err"
	kill -USR2 "$TARGET"
	wait "$TARGET" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^EXIT-SUCCESS$' "$TMP/out"
}

# As on_a_new_stack, and the main thread gone (a zombie): /proc/PID/maps is
# empty, so the mappings are read through the thread stepped.  (The process
# ends by another thread, exit 0, at the SIGUSR2.)
test_inproc_detach_under_a_handler_leader_gone() {
	stepped_handler_lives 600 zombie
}

# A handler over ptap's code that moves, while stepped, to an alternate
# stack it maps just then (newalt): the mappings are read again, the frame
# found there, and the stepping goes on (or the pages stay, said); the
# process lives.
test_inproc_detach_under_a_handler_on_a_stack_mapped_meanwhile() {
	stepped_handler_lives 0 newalt
}

# A handler over ptap's code in a vfork (its child on a stack of its own,
# as posix_spawn makes it) at the detach: that thread never stops (a vfork
# parent cannot be interrupted, and ptap holds the child), so its stacks
# cannot be read: ptap's pages stay mapped, said, and the process lives.
test_inproc_detach_under_a_handler_in_a_vfork() {
	local rc=0
	held_attached 60 0 vfork
	kill -INT "$HP"
	wait "$HP" || true
	expect_grep "it did not stop, so its stacks cannot be looked at for a signal handler over ptap's code: ptap's pages stay mapped in pid $TARGET\$" "$TMP/err"
	wait_for grep -q '^VFORK-BACK$' "$TMP/out"
	kill -USR2 "$TARGET"
	wait "$TARGET" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^EXIT-SUCCESS$' "$TMP/out"
}

# A handler stepped at the detach that execs: the stepping stops before the
# exec (said); the new program runs and ends well, and ptap is gone.
test_inproc_detach_under_a_handler_that_execs() {
	local rc=0
	held_attached 30 2000 exec
	stop_ptap "$HP"
	expect_grep "(stepped [0-9]* instructions in [0-9.]* s: it is about to fork or exec): ptap's pages stay mapped in pid $TARGET\$" "$TMP/err"
	wait "$TARGET" || rc=$?
	expect_eq "exit status of the program it execs" 0 "$rc"
	expect_grep '^EXECED$' "$TMP/out"
}

# As above, but the handler waits for what comes only after the detach (a
# SIGUSR2): ptap steps it for 1 s, then lets it go with its pages mapped,
# and says so.  Unmapped, the process would die of a SIGSEGV at the
# handler's return.
test_inproc_detach_under_a_handler_that_waits() {
	held_attached 30 0 ""
	stop_ptap "$HP"
	untraced "$TARGET"
	expect_grep "a signal handler interrupted ptap's code and will return into it (stepped [0-9]* instructions in 1\.[0-9]* s: it had not returned): ptap's pages stay mapped in pid $TARGET\$" "$TMP/err"
	grep -q ' /memfd:ptap-agent ' "/proc/$TARGET/maps" || fail "the agent's memory was unmapped"
	kill -USR2 "$TARGET"
	finish_target "$TMP/out"
}

# ptap killed (SIGKILL) while attached to 8 threads hammering the probe:
# ptap cannot put the code back, but the kernel marks its rings' reader
# dead (a robust futex) and the agent records and waits no more: the
# threads run on through the jumps, and the process ends with its own
# verdict on its calls.  (Its code stays patched -- selfcheck's
# BYTES-CORRUPT -- and children forked as ptap died may die: ptap cannot
# help either.)
test_inproc_attach_sigkill_tracer() {
	local p rc=0
	start_target "$TMP/out" hammer 3
	"$PTAP" record -o "$TMP/rec" -e 'probe_me a s:string' -p "$TARGET" 2>"$TMP/err" &
	p=$!
	sleep 1
	kill -KILL "$p"
	wait "$p" 2>/dev/null || true
	wait "$TARGET" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^EXIT-SUCCESS$' "$TMP/out"
	grep -q ' a=[0-9]* s="hammer"$' "$TMP/rec" || fail "no hammer records before the kill"
}

