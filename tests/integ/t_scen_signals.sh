# Hostile scenarios 11-23 (signals, fork, mappings, tracer termination), launch
# mode, and the --events task records (issue 4).  Each target (samples/scen/)
# checks itself and says on fd 3 what a tracer should have recorded; the tests
# compare.  A process ptap launched keeps its breakpoints until it exits, so
# its own byte check reads BYTES-CORRUPT for the probed functions (README: it
# reads 0xcc there); BYTES-OK is required where the breakpoints must be gone:
# --no-follow children, and after EPIPE on the output.

SC=$S/scen

# sig_status COMMAND...: the exit status of an untraced run (output dropped).
sig_status() {
	local rc=0
	timeout 60 "$@" >/dev/null 2>&1 3>/dev/null || rc=$?
	echo "$rc"
}

# sig_records FILE: one line per record, "PID EVENT ARGS" (comm, tid, time
# and the address, where there is one, dropped).
sig_records() {
	records "$1" | awk '{ split($2, p, "/"); ev = $4; sub(/:$/, "", ev); line = p[1] " " ev
	       for (i = $5 ~ /^\(/ ? 6 : 5; i <= NF; i++) line = line " " $i; print line }'
}

# sig_stderr_clean FILE: ptap's stderr names no internal failure.
sig_stderr_clean() {
	! grep -qiE 'internal error|assert' "$1" || { cat "$1" >&2; fail "ptap stderr: $1"; }
}

# sig_seq FILE FIRST COUNT FIELD: FILE's lines carry FIELD=FIRST,
# FIELD=FIRST+1, ... in order, COUNT of them.
sig_seq() {
	awk -v f="$4=" -v first="$2" -v n="$3" '
		{ v = ""
		  for (i = 1; i <= NF; i++) if (index($i, f) == 1) v = substr($i, length(f) + 1)
		  if (v != first + NR - 1) { printf "line %d: %s\n", NR, $0; bad = 1; exit } }
		END { if (!bad && NR != n) { printf "%d lines, expected %d\n", NR, n; bad = 1 }
		      exit bad }' "$1" >&2 || fail "$1: not $4 = $2.. in order, $3 times"
}

# 11 own-sigtrap: 1000 raise(SIGTRAP) and 1000 int3 of the program's own all
# reach its handler, and the probe between them records each call once.
test_scen_own_sigtrap() {
	local rc=0 want
	want=$(sig_status "$SC/own_sigtrap")
	run_ptap record -o "$TMP/rec" -e 'probe_me a s' -- "$SC/own_sigtrap" \
		3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep '^own_sigtrap: 1000 calls, 2000 traps handled, 0 wrong results$' "$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
	expect_eq "stated" "calls 1000 traps 2000" "$(echo $(cat "$TMP/stated"))"
	sig_records "$TMP/rec" >"$TMP/got"
	sig_seq "$TMP/got" 0 1000 a
	expect_eq "string arguments" 1000 "$(grep -c ' s="trap"$' "$TMP/got")"
	sig_stderr_clean "$TMP/err"
}

# 12 fault-in-first-insn: fault_load's first instruction faults (NULL); the
# handler sees si_addr 0 and rip = fault_load, not a scratch copy, and
# siglongjmps out.  Each call is one record: a tracer that re-runs the
# faulting instruction through its breakpoint would record two.
test_scen_fault_in_first_insn() {
	local rc=0 want
	want=$(sig_status "$SC/fault_first")
	run_ptap record -o "$TMP/rec" -e 'fault_load %di' -- "$SC/fault_first" \
		3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep '^fault_first: 1000 calls, 1000 faults checked ok, 0 bad, 0 returned$' \
		"$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
	expect_eq "stated" "calls 1000 faults_ok 1000" "$(echo $(cat "$TMP/stated"))"
	expect_eq "records" 1000 "$(records "$TMP/rec" | wc -l)"
	expect_eq "records with %di = 0" 1000 \
		"$(grep -c ': fault_load: (0x[0-9a-f]*) arg1=0x0$' "$TMP/rec")"
	sig_stderr_clean "$TMP/err"
}

# sig_stop_cont SECONDS COMMAND...: run COMMAND (a group_stop run; stdout to
# $TMP/tout, fd 3 to $TMP/stated), SIGSTOP its worker, check it is stopped
# within 1 s, keep it stopped SECONDS, SIGCONT it; COMMAND's status in SIG_RC.
sig_stop_cont() {
	local secs=$1 pid worker st=
	shift
	SIG_RC=0
	"$@" >"$TMP/tout" 3>"$TMP/stated" 2>"$TMP/err" &
	pid=$!
	wait_for grep -q '^worker ' "$TMP/tout" || { kill -KILL "$pid"; return 1; }
	worker=$(awk '/^worker / { print $2; exit }' "$TMP/tout")
	sleep 0.2
	kill -STOP "$worker"
	for _ in $(seq 20); do
		st=$(proc_field "$worker" State)
		# a traced process in group-stop reads 't': ptrace holds it (PTRACE_LISTEN)
		[ "$st" = T ] || [ "$st" = t ] && break
		sleep 0.05
	done
	if [ "$st" != T ] && [ "$st" != t ]; then
		kill -CONT "$worker"
		wait_ptap "$pid" || true
		fail "worker state '$st' 1 s after SIGSTOP"
		return 1
	fi
	sleep "$secs"
	kill -CONT "$worker"
	wait_ptap "$pid" || SIG_RC=$?
}

# 13 group-stop: the launcher (the real parent, itself traced) sees its
# worker's stop and continue through waitpid(WUNTRACED | WCONTINUED); no
# record while the worker is stopped; all records there after the SIGCONT.
test_scen_group_stop() {
	local want worker stopped
	sig_stop_cont 0.3 "$SC/group_stop"
	want=$SIG_RC
	expect_eq "untraced exit status" 0 "$want"
	sig_stop_cont 2 "$PTAP" record -o "$TMP/rec" -e 'probe_me a' -- "$SC/group_stop"
	expect_eq "exit status (untraced: $want)" "$want" "$SIG_RC"
	expect_grep '^group_stop: saw stop by signal 19$' "$TMP/tout"
	expect_grep '^group_stop: saw continue$' "$TMP/tout"
	expect_grep '^group_stop: worker exited 0; 1 stops, 1 continues seen$' "$TMP/tout"
	worker=$(awk '$1 == "worker" { print $2 }' "$TMP/stated")
	stopped=$(awk '$1 == "stopped_at" { print $2 }' "$TMP/stated")
	sig_records "$TMP/rec" | awk -v w="$worker" '$1 == w' >"$TMP/got"
	sig_seq "$TMP/got" 0 1000 a
	# stamped while stopped: from the launcher's waitpid to 1.5 s later (the SIGCONT came 2 s
	# after the stop was seen in /proc)
	awk -v w="$worker" -v t="$stopped" '{ split($2, p, "/"); ts = $3; sub(/:$/, "", ts) }
		p[1] == w && ts + 0 > t + 0 && ts + 0 < t + 1.5' "$TMP/rec" >"$TMP/during"
	[ ! -s "$TMP/during" ] || { head -3 "$TMP/during" >&2; fail "records while stopped"; }
	sig_stderr_clean "$TMP/err"
	no_leftovers "$SC/group_stop"
}

# sig_fork_children: the children fork_inherit states on fd 3, "I PID" each.
sig_fork_children() {
	awk '$1 == "child" { print $2, $3 }' "$TMP/stated"
}

# 15 fork-inherit, follow (the default): 50 children x 100 calls recorded
# under each child's pid, arguments in order; every exit status right.
test_racy_scen_fork_follow() {
	local rc want parent
	want=$(sig_status "$SC/fork_inherit")
	for _ in $(seq "$RACY_RUNS"); do
		rc=0
		run_ptap record -o "$TMP/rec" -e 'probe_me a s' -- "$SC/fork_inherit" \
			3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
		expect_eq "exit status (untraced: $want)" "$want" "$rc"
		expect_grep '^fork_inherit: 50 children, 0 ended wrong$' "$TMP/tout"
		expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
		expect_eq "stated calls" "parent_calls 1 child_calls 5000" \
			"$(echo $(grep _calls "$TMP/stated"))"
		sig_records "$TMP/rec" >"$TMP/got"
		expect_eq "records" 5001 "$(wc -l <"$TMP/got")"
		parent=$(awk '/ s="parent"$/ { print $1 }' "$TMP/got")
		expect_eq "parent record" "$parent probe_me a=-1 s=\"parent\"" \
			"$(grep -v 's="child"$' "$TMP/got")"
		# per child pid, in the order recorded: a = I * 1000 + 0..99
		sig_fork_children | while read -r i pid; do
			for k in $(seq 0 99); do
				echo "$pid probe_me a=$((i * 1000 + k)) s=\"child\""
			done
		done | sort -s -k1,1n >"$TMP/want"
		grep 's="child"$' "$TMP/got" | sort -s -k1,1n >"$TMP/got_children"
		expect_diff "$TMP/want" "$TMP/got_children"
		sig_stderr_clean "$TMP/err"
		no_leftovers "$SC/fork_inherit"
	done
}

# 15 fork-inherit, --no-follow: no child record, no child killed by a
# breakpoint left in its memory (SIGTRAP), and each child finds its probed
# function's bytes as in the file (BYTES-OK).
test_racy_scen_fork_no_follow() {
	local rc want
	want=$(sig_status "$SC/fork_inherit")
	for _ in $(seq "$RACY_RUNS"); do
		rc=0
		run_ptap record --no-follow -o "$TMP/rec" -e 'probe_me a s' -- "$SC/fork_inherit" \
			3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
		expect_eq "exit status (untraced: $want)" "$want" "$rc"
		expect_grep '^fork_inherit: 50 children, 0 ended wrong$' "$TMP/tout"
		expect_eq "children with BYTES-OK" 50 \
			"$(grep -c '^child [0-9]*: BYTES-OK$' "$TMP/tout")"
		sig_records "$TMP/rec" >"$TMP/got"
		expect_eq "records (the parent's only)" "probe_me a=-1 s=\"parent\"" \
			"$(cut -d' ' -f2- "$TMP/got")"
		sig_stderr_clean "$TMP/err"
		no_leftovers "$SC/fork_inherit"
	done
}

# 17 dlopen-cycle: two copies (files) of libdlc.so loaded, called 10 times
# and unloaded in turn, 200 times, a filler library moving them around:
# every call recorded, with its argument, by the probe of its own file.
test_scen_dlopen_cycle() {
	local rc=0 want a=$SC/libdlc.so b=$TMP/libdlc_b.so fill=$SC/libdlc_fill.so sum
	cp "$a" "$b"
	sum=$(cksum <"$a")
	want=$(sig_status "$SC/dlopen_cycle" "$a" "$b" "$fill")
	run_ptap record -q -o "$TMP/rec" -x "$a" -e 'pa=lib_probe n' -x "$b" -e 'pb=lib_probe n' \
		-- "$SC/dlopen_cycle" "$a" "$b" "$fill" 3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" ||
		rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep '^dlopen_cycle: 2000 calls, 0 wrong results, ' "$TMP/tout"
	expect_grep '^calls 2000$' "$TMP/stated"
	# the scenario's premise: each copy was seen at more than one address
	[ "$(awk '$1 == "addresses_a" { print $2 }' "$TMP/stated")" -ge 2 ] &&
		[ "$(awk '$1 == "addresses_b" { print $2 }' "$TMP/stated")" -ge 2 ] ||
		fail "the copies did not move: $(echo $(cat "$TMP/stated"))"
	awk 'BEGIN { for (c = 0; c < 200; c++) for (k = 0; k < 10; k++)
		printf "%s: n=%d\n", c % 2 ? "pb" : "pa", c * 10 + k }' >"$TMP/want"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "ptap said something"; }
	expect_eq "libdlc.so unchanged" "$sum" "$(cksum <"$a")"
	cmp "$a" "$b" >&2 || fail "the copy changed"
}

# 18 mprotect-toggle: the probed page goes RWX and back to RX 10000 times
# while the main thread calls probe_me: every call recorded, in order.
test_scen_mprotect_toggle() {
	local rc=0 want calls
	want=$(sig_status "$SC/mprotect_toggle")
	run_ptap record -o "$TMP/rec" -e 'probe_me a' -- "$SC/mprotect_toggle" \
		3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep '^mprotect_toggle: [0-9]* calls, 10000 toggles, 0 wrong results$' "$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
	calls=$(awk '$1 == "calls" { print $2 }' "$TMP/stated")
	sig_records "$TMP/rec" >"$TMP/got"
	sig_seq "$TMP/got" 0 "$calls" a
	sig_stderr_clean "$TMP/err"
}

# 19 shared-mapping-refused: the probed function's file is mapped MAP_SHARED
# (RW and RX views) and called in the RX view: ptap refuses that mapping,
# saying why, and the file is unchanged; the same file mapped MAP_PRIVATE
# (the control) is probed.
test_scen_shared_mapping_refused() {
	local rc=0 want code=$TMP/code.bin
	cp "$SC/shared_map" "$code"
	want=$(sig_status "$SC/shared_map" "$code")
	run_ptap record -o "$TMP/rec" -x "$code" -e 'shm_func x' -- "$SC/shared_map" "$code" \
		3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep "shm_func: not planted at 0x[0-9a-f]* in pid [0-9]*: $code is mapped shared" \
		"$TMP/err"
	expect_grep '^SHARED-FILE-OK$' "$TMP/tout"
	expect_grep '^shared_map: 100 calls in the shared view, 100 in the private one, 0 wrong' \
		"$TMP/tout"
	expect_grep ' 0 wrong results$' "$TMP/tout"
	cmp "$SC/shared_map" "$code" >&2 || fail "the shared file changed"
	sig_records "$TMP/rec" >"$TMP/got"
	sig_seq "$TMP/got" 1000 100 x
	sig_stderr_clean "$TMP/err"
}

# 22 epipe-output: the record stream goes to `head -c 4096`.  ptap must not die
# of SIGPIPE; it removes its breakpoints (README.md, "How it works") and the
# command runs to its end: its status (9), all calls, BYTES-OK.
test_racy_scen_epipe_output() {
	local rc want t=$SC/epipe_out n=200000
	want=$(sig_status "$t" $n)
	expect_eq "untraced exit status" 9 "$want"
	for _ in $(seq "$RACY_RUNS"); do
		rm -f "$TMP/tout"
		timeout 60 "$PTAP" record -x "$t" -e 'probe_me a s' \
			-- sh -c "exec $t $n >$TMP/tout" 2>"$TMP/err" | head -c 4096 >"$TMP/head"
		rc=${PIPESTATUS[0]}
		expect_eq "ptap exit status (the command's; untraced: $want)" "$want" "$rc"
		expect_eq "bytes through head" 4096 "$(wc -c <"$TMP/head")"
		expect_grep "^epipe_out: $n calls, 0 wrong results\$" "$TMP/tout"
		expect_grep '^BYTES-OK$' "$TMP/tout"
		expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
		sig_stderr_clean "$TMP/err"
		no_leftovers "$t"
	done
}

# sig_dead PID: PID has ended (gone, or a zombie for its new parent to reap).
sig_dead() {
	local st
	st=$(proc_field "$1" State)
	[ -z "$st" ] || [ "$st" = Z ]
}

# 23 sigkill-tracer-launch-mode: ptap is SIGKILLed while the command and its
# child hit the probe: both die within 1 s (PTRACE_O_EXITKILL) and nothing
# is left, in any state, once init has reaped them.
test_racy_scen_sigkill_tracer() {
	local pid parent child rc tracers
	for _ in $(seq "$RACY_RUNS"); do
		rc=0
		rm -f "$TMP/tout"
		"$PTAP" record -o "$TMP/rec" -e 'probe_me a s' -- "$SC/kill_tracer" 30 \
			>"$TMP/tout" 2>"$TMP/err" &
		pid=$!
		wait_for grep -q '^kill_tracer [0-9]* [0-9]*$' "$TMP/tout" ||
			{ kill -KILL "$pid"; return 1; }
		read -r _ parent child <"$TMP/tout"
		sleep 0.3
		tracers="$(proc_field "$parent" TracerPid) $(proc_field "$child" TracerPid)"
		kill -KILL "$pid"
		for _ in $(seq 20); do
			sig_dead "$parent" && sig_dead "$child" && break
			sleep 0.05
		done
		sig_dead "$parent" && sig_dead "$child" || {
			ps -o pid,stat,args -p "$parent,$child" >&2
			kill -KILL "$parent" "$child" 2>/dev/null
			fail "the command or its child outlived ptap by 1 s"
		}
		wait "$pid" || rc=$?
		expect_eq "ptap's status" 137 "$rc"
		expect_eq "tracers of the command and its child" "$pid $pid" "$tracers"
		# init reaps the zombies (in this container, every 2 s or so)
		for _ in $(seq 100); do
			[ -e "/proc/$parent" ] || [ -e "/proc/$child" ] || break
			sleep 0.05
		done
		[ ! -e "/proc/$parent" ] && [ ! -e "/proc/$child" ] ||
			{ ps -o pid,ppid,stat -p "$parent,$child" >&2; fail "not reaped 5 s later"; }
		no_leftovers "$SC/kill_tracer"
	done
}

# --events task: a fork, a vfork + exec and a fork killed by SIGKILL give fork,
# exec and exit records with the right pids, filename and status; a thread
# gives none.  The command's own exec at launch may be recorded or not.
test_scen_task_events() {
	local rc=0 want te=$TMP/te_exec parent
	cp "$SC/task_events" "$te"
	want=$(sig_status "$SC/task_events" "$te")
	run_ptap record -o "$TMP/rec" --events task -e 'probe_me a' -x "$te" -e 'probe_me a' \
		-- "$SC/task_events" "$te" 3>"$TMP/stated" >"$TMP/tout" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (untraced: $want)" "$want" "$rc"
	expect_grep '^task_events: children .*: all ended right$' "$TMP/tout"
	parent=$(awk '$3 == "status=0" { print $1 }' "$TMP/stated")
	sig_records "$TMP/rec" |
		grep -vxF "$parent exec filename=\"$(realpath "$SC/task_events")\"" |
		grep -vxF "$parent exec filename=\"$SC/task_events\"" | sort >"$TMP/got"
	sort "$TMP/stated" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	# COMM of an exec record is the new image's; a task record has no address to show
	expect_grep "^te_exec [0-9]*/[0-9]* [0-9.]*: exec: filename=\"$te\"\$" "$TMP/rec"
	! grep -E ': (fork|exec|exit): \(' "$TMP/rec" || fail "a task record with an address"
	sig_stderr_clean "$TMP/err"
}

# sig_json_has STRING...: exactly one line of $TMP/rec holds every STRING.
sig_json_has() {
	local n
	n=$(awk -v pats="$(printf '%s\n' "$@")" 'BEGIN { np = split(pats, p, "\n") }
		{ for (i = 1; i <= np; i++) if (p[i] != "" && !index($0, p[i])) next; n++ }
		END { print n + 0 }' "$TMP/rec")
	expect_eq "JSON records with $*" 1 "$n"
}

# The same, as JSON: "event" and "kind" the name, the values in "args".
test_scen_task_events_json() {
	local te=$TMP/te_exec a b c parent
	cp "$SC/task_events" "$te"
	run_ptap record -o "$TMP/rec" --format json --events task -e 'probe_me a' \
		-- "$SC/task_events" "$te" 3>"$TMP/stated" >/dev/null
	parent=$(awk '$3 == "status=0" { print $1 }' "$TMP/stated")
	read -r a b c < <(awk '$2 == "fork" { sub("child=", "", $3); printf "%s ", $3 }
		END { print "" }' "$TMP/stated")
	sig_json_has "\"pid\":$parent," '"event":"fork"' '"kind":"fork"' "\"args\":{\"child\":$a}"
	sig_json_has "\"pid\":$parent," '"event":"fork"' "\"args\":{\"child\":$b}"
	sig_json_has "\"pid\":$b," '"event":"exec"' '"kind":"exec"' \
		"\"args\":{\"filename\":\"$te\"}"
	sig_json_has "\"pid\":$a," '"event":"exit"' '"kind":"exit"' '"args":{"status":3}'
	sig_json_has "\"pid\":$c," '"event":"exit"' '"args":{"signal":"SIGKILL"}'
	sig_json_has "\"pid\":$parent," '"event":"exit"' '"args":{"status":0}'
	! grep -E '"kind":"(fork|exec|exit)",' "$TMP/rec" | grep '"addr"' ||
		fail "a task record with an address"
}
