# Hostile scenarios 1, 3-5, 7-10 and 16 (counting, first instructions,
# threads, exec, clone) in launch mode: the self-checking targets of
# samples/scen/ under `ptap record`.  Each target states on fd 3 what it
# called; the records must match that.

SC=$S/scen
# ptap options scen_record passes before -e (a test sets them for itself)
SCEN_OPTS=()

# scen_untraced_rc CMD...: the exit status of CMD run without ptap.
scen_untraced_rc() {
	local rc=0
	"$@" >/dev/null 2>&1 3>/dev/null || rc=$?
	echo "$rc"
}

# scen_record PROBE CMD...: ptap records PROBE on CMD into $TMP/sc_rec; the
# command's fd 3 goes to $TMP/sc_stated, stdout to $TMP/sc_out, stderr (ptap's and
# the command's) to $TMP/sc_err; ptap's exit status into $TMP/sc_rc.
scen_record() {
	local probe=$1 rc=0
	shift
	rm -f "$TMP/sc_rec" "$TMP/sc_stated" "$TMP/sc_out" "$TMP/sc_err"
	run_ptap record -q "${SCEN_OPTS[@]}" -o "$TMP/sc_rec" -e "$probe" -- "$@" 3>"$TMP/sc_stated" \
		>"$TMP/sc_out" 2>"$TMP/sc_err" || rc=$?
	echo "$rc" >"$TMP/sc_rc"
}

# scen_expect_end WANT-RC: what every run must end with: ptap exits with the
# command's status WANT-RC, the command printed BYTES-OK and EXIT-SUCCESS,
# and stderr is empty (no warning, no "internal error", no assert).
scen_expect_end() {
	if [ "$(cat "$TMP/sc_rc")" != "$1" ]; then
		head -20 "$TMP/sc_err" | sed 's/^/      /' >&2
		fail "exit status: expected $1 (the untraced run's), got $(cat "$TMP/sc_rc")"
	fi
	expect_grep '^BYTES-OK$' "$TMP/sc_out"
	expect_grep '^EXIT-SUCCESS$' "$TMP/sc_out"
	if [ -n "$(scen_err_rest)" ]; then
		sed 's/^/      /' "$TMP/sc_err" >&2
		fail "stderr not empty"
	fi
}

# scen_err_rest: ptap's stderr but the one line a slow output may add (hits
# recorded in the process can outrun the file); it must be empty
scen_err_rest() {
	grep -v '^ptap: waited [0-9.]* s in all for the output to take [0-9]* records' \
		"$TMP/sc_err" || true
}

# scen_seq [FILE]: checks text records of a probe recorded as "a=N [s=STR]":
# each is well-formed; per thread, a counts 0, 1, 2 ... in order, s stays
# the same and the timestamps never go back.  Prints "TID S COUNT" per
# thread (S is - without s=), sorted; fails on the first ten faults.
scen_seq() {
	records "${1:-$TMP/sc_rec}" | awk '
	function fault(m) {
		if (nfault++ < 10)
			print "    " m > "/dev/stderr"
	}
	BEGIN { rec = "^[^ ]+ [0-9]+/[0-9]+ [0-9]+[.][0-9]+: [a-z_0-9]+: [(]0x[0-9a-f]+[)] " }
	$0 !~ (rec "a=-?[0-9]+( s=\"[^\"]*\")?$") {
		fault("malformed record " NR ": " $0)
		next
	}
	{
		split($2, pt, "/")
		tid = pt[2]
		split($3, ts, "[.:]")
		sec = ts[1] + 0
		ns = ts[2] + 0
		s = "-"
		for (i = 6; i <= NF; i++)
			if ($i ~ /^a=/)
				a = substr($i, 3) + 0
			else if ($i ~ /^s=/)
				s = substr($i, 3)
		if (!(tid in n)) {
			n[tid] = 0
			str[tid] = s
		} else if (sec < lsec[tid] || (sec == lsec[tid] && ns < lns[tid])) {
			fault("tid " tid " record " NR ": timestamp " $3 " before the previous one")
		}
		if (a != n[tid])
			fault("tid " tid " record " NR ": a=" a ", expected " n[tid])
		if (s != str[tid])
			fault("tid " tid " record " NR ": s=" s ", expected " str[tid])
		lsec[tid] = sec
		lns[tid] = ns
		n[tid]++
	}
	END {
		for (t in n)
			print t, str[t], n[t]
		exit nfault > 0
	}' | sort
	[ "${PIPESTATUS[1]}" = 0 ] || fail "records out of sequence (above)"
}

# scen_stated_threads PREFIX: the fd 3 lines "thread K TID CALLS" as scen_seq
# prints them: TID "PREFIXK" CALLS, sorted.
scen_stated_threads() {
	awk -v p="$1" '$1 == "thread" { printf "%s \"%s%s\" %s\n", $3, p, $2, $4 }' \
		"$TMP/sc_stated" | sort
}

# 1 mt-exact-count: 8 threads x 100000 calls, each recorded once, in order,
# with its string.
test_mt_exact_count() {
	local t=$SC/mt_exact_count
	scen_record 'probe_me a s' "$t" 100000 8
	scen_expect_end "$(scen_untraced_rc "$t" 100 8)"
	expect_grep '^calls 800000$' "$TMP/sc_stated"
	expect_eq "records" 800000 "$(records "$TMP/sc_rec" | wc -l)"
	scen_seq >"$TMP/sc_got"
	scen_stated_threads t >"$TMP/sc_want"
	expect_eq "threads stated" 8 "$(wc -l <"$TMP/sc_want")"
	expect_diff "$TMP/sc_want" "$TMP/sc_got"
	no_leftovers "$t"
}

# 3 zoo-unsafe-first-insn: int3, ud2, lock inc and pushf as first instructions,
# each probed alone: either refused before anything runs, or every call
# recorded (4 threads x 2000, x in order) with the target's own checks passing
# (its signal handlers run once per call with the right rip, the counter is
# exact, TF is clear).
test_zoo_unsafe_first_insn() {
	local t=$SC/zoo_unsafe f want_rc
	want_rc=$(scen_untraced_rc "$t" 2000 4)
	expect_eq "untraced exit status" 0 "$want_rc"
	for f in unsafe_int3 unsafe_ud2 unsafe_lock unsafe_pushf; do
		echo "    $f" >&2
		scen_record "$f a=%di:s64" "$t" 2000 4
		if [ "$(cat "$TMP/sc_rc")" = 2 ]; then
			expect_grep "cannot probe $f: its first instruction " "$TMP/sc_err"
			[ ! -s "$TMP/sc_out" ] || fail "$f refused, yet the command ran"
			[ ! -s "$TMP/sc_rec" ] || fail "$f refused, yet there are records"
			continue
		fi
		scen_expect_end "$want_rc"
		expect_grep '^zoo_unsafe: all checks passed$' "$TMP/sc_out"
		expect_grep "^$f 8000\$" "$TMP/sc_stated"
		scen_seq >"$TMP/sc_got"
		expect_eq "$f: threads recorded" 4 "$(wc -l <"$TMP/sc_got")"
		expect_eq "$f: records per thread" "- 2000" \
			"$(awk '{ print $2, $3 }' "$TMP/sc_got" | sort -u)"
	done
	no_leftovers "$t"
}

# 4 riprel-store-integrity: mov %edi, slot(%rip) first, 10^6 calls: slot right
# after every call, the canaries around it and every register of the caller
# unchanged.
test_riprel_store_integrity() {
	local t=$SC/riprel_store
	scen_record 'riprel_store a=%di:s32' "$t" 1000000
	scen_expect_end "$(scen_untraced_rc "$t" 1000)"
	expect_grep '^riprel_store: all checks passed$' "$TMP/sc_out"
	expect_grep '^calls 1000000$' "$TMP/sc_stated"
	scen_seq >"$TMP/sc_got"
	expect_eq "records (one thread, a = 0 .. 999999)" "- 1000000" \
		"$(awk '{ print $2, $3 }' "$TMP/sc_got")"
	no_leftovers "$t"
}

# 5 call-return-address: call next; next: pop %rax first: returns its own
# address + 5 on all 100000 calls, not an address in ptap's scratch page.
test_call_return_address() {
	local t=$SC/call_return
	scen_record 'callret_self a=%di:s64' "$t" 100000
	scen_expect_end "$(scen_untraced_rc "$t" 1000)"
	expect_grep '^call_return: all 100000 results correct$' "$TMP/sc_out"
	expect_grep '^calls 100000$' "$TMP/sc_stated"
	scen_seq >"$TMP/sc_got"
	expect_eq "records (one thread, a = 0 .. 99999)" "- 100000" \
		"$(awk '{ print $2, $3 }' "$TMP/sc_got")"
	no_leftovers "$t"
}

# 7 leader-pthread-exit: main calls pthread_exit(); 3 workers call probe_me for
# 0.5 s, the last one calls exit(5): status 5, every call recorded, no hang on
# the zombie leader.
test_racy_leader_pthread_exit() {
	local t=$SC/leader_pthread_exit r want_rc
	want_rc=$(scen_untraced_rc "$t" 50)
	expect_eq "untraced exit status" 5 "$want_rc"
	for r in $(seq "$RACY_RUNS"); do
		echo "    run $r" >&2
		scen_record 'probe_me a s' "$t" 500
		scen_expect_end "$want_rc"
		scen_seq >"$TMP/sc_got"
		scen_stated_threads w >"$TMP/sc_want"
		expect_eq "workers stated" 3 "$(wc -l <"$TMP/sc_want")"
		expect_diff "$TMP/sc_want" "$TMP/sc_got"
		no_leftovers "$t"
	done
}

# 8 exit-group-mid-hit: 16 threads hammer probe_me; 100 ms in, another thread
# calls _exit(3).  Status 3, ptap gone within 2 s, nothing on stderr; per
# thread, the records count 0, 1, 2 ... and cover at least every call that had
# returned.
test_racy_exit_group_mid_hit() {
	local t=$SC/exit_group_mid_hit r want_rc end
	want_rc=$(scen_untraced_rc "$t" 4 10)
	expect_eq "untraced exit status" 3 "$want_rc"
	for r in $(seq "$RACY_RUNS"); do
		echo "    run $r" >&2
		scen_record 'probe_me a s' "$t"
		end=$(date +%s.%N)
		expect_eq "exit status (the untraced run's)" "$want_rc" "$(cat "$TMP/sc_rc")"
		expect_grep '^EXIT-SUCCESS$' "$TMP/sc_out"
		[ -z "$(scen_err_rest)" ] || { cat "$TMP/sc_err" >&2; fail "stderr not empty"; }
		awk -v end="$end" '$1 == "exit_at" { d = end - $2; print "    ptap ended " d \
			" s after the _exit"; exit !(d < 2) }' "$TMP/sc_stated" >&2 ||
			fail "ptap took more than 2 s to end after the target's _exit"
		# a hit the exit_group cut short (its thread killed while stopped
		# there) may show an error for memory that went with the process:
		# at most one such record per thread, then dropped before the checks
		grep ' s=(error: [^)]*)$' "$TMP/sc_rec" | awk '{ print $2 }' | sort | uniq -d \
			>"$TMP/sc_cut2"
		[ ! -s "$TMP/sc_cut2" ] || fail "threads with two cut records: $(cat "$TMP/sc_cut2")"
		grep -v ' s=(error: [^)]*)$' "$TMP/sc_rec" >"$TMP/sc_rec.kept" || true
		mv "$TMP/sc_rec.kept" "$TMP/sc_rec"
		scen_seq >"$TMP/sc_got"
		scen_stated_threads h >"$TMP/sc_want"
		expect_eq "threads stated" 16 "$(wc -l <"$TMP/sc_want")"
		# every record's thread is one of the target's, with its string, and
		# has at least the calls that had returned before the _exit
		awk 'NR == FNR { want[$1] = $2; done[$1] = $3; next }
		     !($1 in want) { print "    records of unknown tid " $1; bad = 1; next }
		     $2 != want[$1] { print "    tid " $1 ": s=" $2 ", not " want[$1]; bad = 1 }
		     $3 < done[$1] { print "    tid " $1 ": " $3 " records, " done[$1] \
			" calls returned"; bad = 1 }
		     END { exit bad }' "$TMP/sc_want" "$TMP/sc_got" >&2 ||
			fail "records do not match the calls made"
		no_leftovers "$t"
	done
}

# 9 exec-failure-keeps-probes: execve()s that fail (ENOENT, EACCES, ENOEXEC;
# one from a second thread) keep the probes: 10 calls before, 100 after, all
# recorded.
test_exec_failure_keeps_probes() {
	local t=$SC/exec_failure
	scen_record 'probe_me a s' "$t"
	scen_expect_end "$(scen_untraced_rc "$t")"
	expect_grep '^calls 110$' "$TMP/sc_stated"
	{
		seq 0 9 | sed 's/.*/probe_me: a=& s="before"/'
		seq 10 109 | sed 's/.*/probe_me: a=& s="after"/'
	} >"$TMP/sc_want"
	normalize "$TMP/sc_rec" >"$TMP/sc_got"
	expect_diff "$TMP/sc_want" "$TMP/sc_got"
	no_leftovers "$t"
}

# scen_exec_chain_check MODE: the records of "exec_chain 50 MODE": 500 with
# s="g<generation>", a = 0 .. 499 in order, all of the one process; with
# MODE thread, calls 5-9 of each generation are not the leader's.
scen_exec_chain_check() {
	local pid
	expect_eq "BYTES-OK lines (one per generation)" 50 \
		"$(grep -c '^BYTES-OK$' "$TMP/sc_out")"
	expect_grep '^calls 500$' "$TMP/sc_stated"
	# the spinning thread's records: any number (the exec kills it mid-call),
	# each with the string it passed -- or, for the hit the exec's kill
	# interrupted, an error for the string: its memory went with the old image
	if grep ' a=-1 ' "$TMP/sc_rec" | grep -v ' a=-1 s="spin"$' |
	   grep -v ' a=-1 s=(error: [^)]*)$' >&2; then
		fail "records of the spinning thread with a wrong string (above)"
	fi
	records "$TMP/sc_rec" | grep -v ' a=-1 ' >"$TMP/sc_gens"
	seq 0 499 | awk '{ printf "probe_me: a=%d s=\"g%d\"\n", $1, int($1 / 10) + 1 }' \
		>"$TMP/sc_want"
	normalize "$TMP/sc_gens" >"$TMP/sc_got"
	expect_diff "$TMP/sc_want" "$TMP/sc_got"
	pid=$(records "$TMP/sc_rec" | awk '{ split($2, p, "/"); print p[1] }' | sort -u)
	expect_eq "processes recorded" 1 "$(echo "$pid" | wc -l)"
	awk -v mode="$1" '{
		split($2, p, "/")
		a = substr($6, 3) % 10
		if ((mode == "thread" && a >= 5) != (p[1] != p[2])) {
			print "    wrong thread for call " $6 ": " $2
			bad = 1
		}
	} END { exit bad }' "$TMP/sc_gens" >&2 || fail "records of the wrong thread"
}

# 10 exec-chain: 50 generations of re-exec, 10 calls each: 500 records,
# status 50.
test_exec_chain() {
	local t=$SC/exec_chain
	scen_record 'probe_me a s' "$t" 50 main
	scen_expect_end "$(scen_untraced_rc "$t" 50 main)"
	expect_eq "exit status" 50 "$(cat "$TMP/sc_rc")"
	scen_exec_chain_check main
	no_leftovers "$t"
}

# 10 exec-chain, a non-leader thread execs (the leader waits in pthread_join, a
# third thread is in probe_me without end): the same 500 records, status 50.
test_racy_exec_chain_from_thread() {
	local t=$SC/exec_chain r want_rc
	want_rc=$(scen_untraced_rc "$t" 50 thread)
	expect_eq "untraced exit status" 50 "$want_rc"
	for r in $(seq "$RACY_RUNS"); do
		echo "    run $r" >&2
		scen_record 'probe_me a s' "$t" 50 thread
		scen_expect_end "$want_rc"
		scen_exec_chain_check thread
		no_leftovers "$t"
	done
}

# 10 exec-chain with --events task: one exec record per re-exec, one exit.
test_exec_chain_task_events() {
	local t=$SC/exec_chain
	SCEN_OPTS=(--events task)
	scen_record 'probe_me a s' "$t" 50 main
	scen_expect_end 50
	expect_eq "probe_me records" 500 "$(grep -c ': probe_me: ' "$TMP/sc_rec")"
	expect_eq "exec records (the launch and 49 re-execs)" 50 \
		"$(grep -c ": exec: filename=\"$(realpath "$t")\"\$" "$TMP/sc_rec")"
	expect_eq "exit records" 1 "$(grep -c ': exit: status=50$' "$TMP/sc_rec")"
	no_leftovers "$t"
}

# scen_clone_vm_check: the parent's and the child's records as the target stated.
scen_clone_vm_check() {
	scen_seq >"$TMP/sc_got"
	awk '{ printf "%s \"%s\" %s\n", $2, $1, $3 }' "$TMP/sc_stated" | sort >"$TMP/sc_want"
	expect_eq "sides stated" 2 "$(wc -l <"$TMP/sc_want")"
	expect_diff "$TMP/sc_want" "$TMP/sc_got"
}

# 16 clone-vm-process: clone(CLONE_VM | SIGCHLD): a process sharing its
# parent's memory.  Both call probe_me 10000 times at once, the parent 1000
# more after the child's exit: all 21000 recorded, each with its own pid.
test_racy_clone_vm_process() {
	local t=$SC/clone_vm r want_rc
	want_rc=$(scen_untraced_rc "$t")
	for r in $(seq "$RACY_RUNS"); do
		echo "    run $r" >&2
		scen_record 'probe_me a s' "$t"
		scen_expect_end "$want_rc"
		expect_eq "records" 21000 "$(records "$TMP/sc_rec" | wc -l)"
		scen_clone_vm_check
		no_leftovers "$t"
	done
}

# 16 clone-vm-process with --no-follow: the child is not recorded, but its
# memory is the parent's, so the parent's probes must stay: 11000 records of the
# parent, none of the child, which must not die of a SIGTRAP either.
test_racy_clone_vm_process_no_follow() {
	local t=$SC/clone_vm r want_rc
	want_rc=$(scen_untraced_rc "$t")
	for r in $(seq "$RACY_RUNS"); do
		echo "    run $r" >&2
		SCEN_OPTS=(--no-follow)
		scen_record 'probe_me a s' "$t"
		scen_expect_end "$want_rc"
		# the parent's calls, every one under its pid; none of the child's
		local ppid pcalls
		read -r _ ppid pcalls < <(grep '^parent ' "$TMP/sc_stated")
		expect_eq "records" "$pcalls" "$(records "$TMP/sc_rec" | wc -l)"
		expect_eq "records of other pids" 0 "$(records "$TMP/sc_rec" |
			awk -v p="$ppid" '{ split($2, id, "/"); if (id[1] != p) n++ }
			END { print n + 0 }')"
		no_leftovers "$t"
	done
}
