# --cpu (tracer/host/placement.c): where ptap runs changes no record, and never
# the traced command's own scheduling policy or affinity.

# policy_of PID: SCHED_OTHER, SCHED_IDLE ... as chrt names it
policy_of() {
	chrt -p "$1" 2>/dev/null | awk '/policy/ { print $NF }'
}

# Can this user leave SCHED_IDLE again (root, CAP_SYS_NICE, RLIMIT_NICE 20)?
# Only then does --cpu=follow make ptap SCHED_IDLE.
can_leave_idle() {
	chrt -i 0 sh -c 'chrt -o -p 0 $$' >/dev/null 2>&1
}

# zoo_threads FILE: insn_zoo's thread T passes 3*I + T in its Ith call: per
# thread of FILE's records, "CALLS T" when its Ith record has 3*I + T (else
# its arguments are not all there, in order: several lines).
zoo_threads() {
	records "$1" | awk '{ split($2, a, "/"); sub(/.*arg1=/, "")
		print a[2], $0 - 3 * k[a[2]]++ }' | sort | uniq -c | awk '{ print $1, $3 }' |
		sort -k2n | xargs
}

# The same records with follow as with free: one thread (query_server), and
# four (insn_zoo, 4 x 3000 calls: each thread's in its order).
test_cpu_follow_same_records() {
	local qs=$S/query_server
	for cpu in free follow; do
		run_ptap record --cpu=$cpu -o "$TMP/qs.$cpu" -e 'exec_query %di:string %si:u32' \
			-- "$qs" samples/queries.txt >/dev/null
		normalize "$TMP/qs.$cpu" >"$TMP/qs.$cpu.n"
		run_ptap record --cpu=$cpu -o "$TMP/zoo.$cpu" -e 'zoo_push %di:s64' \
			-- "$S/insn_zoo" 3000 4 >/dev/null
		expect_eq "$cpu: insn_zoo's calls per thread" "3000 0 3000 1 3000 2 3000 3" \
			"$(zoo_threads "$TMP/zoo.$cpu")"
	done
	expect_eq "query_server records" 7 "$(wc -l <"$TMP/qs.follow.n")"
	expect_diff "$TMP/qs.free.n" "$TMP/qs.follow.n"
}

# While ptap traces a busy command with --cpu=follow, ptap is SCHED_IDLE
# (where it can leave it again; otherwise SCHED_OTHER, said at -vv) and the
# command, and a child it starts then, are SCHED_OTHER with their affinity
# untouched.  With --cpu=free ptap stays SCHED_OTHER.  follow is the default.
test_cpu_follow_policies() {
	local can=no mask n opt
	can_leave_idle && can=yes
	mask=$(taskset -p $$ | awk '{ print $NF }')
	for cpu in follow free default; do
		opt=--cpu=$cpu
		[ $cpu != default ] || opt=
		# insn_zoo makes hits in the background while the shell looks at ptap
		# (its parent), itself and a child of its own, 25 times
		run_ptap record -vv $opt -o "$TMP/rec.$cpu" -x "$S/insn_zoo" -e zoo_push -- sh -c '
			'"$S/insn_zoo"' 100000 1 >/dev/null & z=$!
			sleep 0.1
			for i in $(seq 25); do
				echo "ptap $(chrt -p $PPID | head -1)"
				echo "cmd $(chrt -p $$ | head -1)"
				echo "cmdmask $(taskset -p $$)"
				sh -c "echo child \$(chrt -p \$\$ | head -1); echo childmask \$(taskset -p \$\$)"
				sleep 0.02
			done
			wait $z' >"$TMP/out.$cpu" 2>"$TMP/err.$cpu"
		expect_eq "$cpu: records" 100000 "$(records "$TMP/rec.$cpu" | wc -l)"
		for who in cmd child; do
			expect_eq "$cpu: $who" "25 SCHED_OTHER" \
				"$(awk -v w=$who '$1 == w { print $NF }' "$TMP/out.$cpu" | uniq -c | xargs)"
			expect_eq "$cpu: $who's affinity" "25 $mask" \
				"$(awk -v w=${who}mask '$1 == w { print $NF }' "$TMP/out.$cpu" | uniq -c | xargs)"
		done
		awk '$1 == "ptap" { print $NF }' "$TMP/out.$cpu" | sort | uniq -c >"$TMP/ptap.$cpu"
		n=$(awk '$1 == "ptap"' "$TMP/out.$cpu" | wc -l)
		expect_eq "$cpu: looks at ptap" 25 "$n"
		if [ $cpu != free ] && [ $can = yes ]; then
			# other work on the machine can keep it out (the guard): it says so
			expect_grep 'cpu=follow: [0-9]* stops' "$TMP/err.$cpu"
			grep -q ' SCHED_IDLE$' "$TMP/ptap.$cpu" ||
				grep -q 'SCHED_IDLE, [1-9][0-9]* times starved' "$TMP/err.$cpu" ||
				fail "$cpu: ptap never seen SCHED_IDLE, nor starved:" \
				     "$(xargs <"$TMP/ptap.$cpu"); $(grep 'cpu=follow:' "$TMP/err.$cpu")"
		else
			expect_eq "$cpu: ptap" "25 SCHED_OTHER" "$(xargs <"$TMP/ptap.$cpu")"
		fi
	done
	[ $can = yes ] || expect_grep 'could not leave SCHED_IDLE' "$TMP/err.follow"
	[ $can = yes ] || expect_grep 'could not leave SCHED_IDLE' "$TMP/err.default"
}

# An ordinary user (no CAP_SYS_NICE, RLIMIT_NICE 0) could never leave
# SCHED_IDLE: --cpu=follow says so and runs as free.  Needs root, to become one.
test_cpu_follow_unprivileged() {
	local d=$TMP/nobody
	[ "$(id -u)" = 0 ] || skip "not root (needed to become nobody)"
	need_cmd setpriv util-linux
	need_cmd prlimit util-linux
	mkdir -m 777 "$d"
	chmod 755 "$TMP"
	cp "$S/query_server" "$d/qs"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		prlimit --nice=0:0 -- "$(realpath "$PTAP")" record -vv --cpu=follow -o "$d/rec" \
		-e 'exec_query %di:string' -- "$d/qs" "$(realpath samples/queries.txt)" >/dev/null \
		2>"$d/err"
	expect_grep 'could not leave SCHED_IDLE again' "$d/err"
	expect_eq "records" 7 "$(grep -c ': exec_query: ' "$d/rec")"
}

test_cpu_bad_policy() {
	local rc=0
	"$PTAP" record --cpu=sideways -e main -- true 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep '--cpu sideways: use follow or free' "$TMP/err"
}
