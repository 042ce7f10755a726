#!/bin/bash
# tests/bench/run.sh [BUILD-DIR]: what a ptap probe costs, in one run, as ns
# per hit and as ratios.  Per hit: ptap against the untraced program and the
# minimal one-stop ptrace loop (floor.c), by 1, 2 and 8 threads, with tracer
# and target pinned to one CPU and unpinned; an integer argument, and entry
# plus return; the same hits under kernel uprobes (perf), ltrace and gdb.
# Then the cost of --syscalls on the calls it does not list (sys_target.c)
# and per syscall record; ptap's peak RSS; the time to attach to 64 threads;
# the time to resolve DWARF in libc (ptap vars against perf probe -V, and a
# launch with a libc probe); the record writers alone; the in-process agent
# alone.  Figures, not assertions: a row that cannot be
# measured (a tool missing, not root) says why and the run goes on.
set -eu
O=${1:-build}
N=${BENCH_HITS:-100000}	# a stop a hit: ~2.5 s a run
# Recorded in the process a hit costs a hundredth of that: as many calls as
# the stops' would take ~30 ms, where a run's own start (the first pass over
# a fresh ring, the first wake-ups) would weigh on the figure
NF=${BENCH_FAST_HITS:-1000000}
SLOW_N=${BENCH_SLOW_HITS:-2000}	# ltrace and gdb: ~100 us a hit
REPS=${BENCH_REPS:-5}
B=$O/bench
T=$B/bench_target
addr=0x$(nm "$T" | awk '$3 == "bench_fn" { print $1 }')
tmp=$(mktemp -d /tmp/ptap-bench.XXXXXX)
read -r load0 _ </proc/loadavg	# the last 1 minute's: shown at the end
uprobe=""	# the perf probe event to delete on exit
t64pid=""	# the threads64 process to end on exit

cleanup() {
	if [ -n "$uprobe" ]; then perf probe -q -d "$uprobe" >/dev/null 2>&1 || true; fi
	if [ -f "$tmp/pg/data/postmaster.pid" ]; then
		pg_run "$pg_bin/pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null 2>&1 || true
	fi
	if [ -n "$t64pid" ]; then kill "$t64pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# now_us: the time in microseconds, without a fork
now_us() {
	local t=$EPOCHREALTIME
	echo "${t/./}"
}

# run1 CMD...: the ns the target printed (the last all-digit line of the
# command's stdout); fails when the command fails or printed none.  The
# output is kept in $tmp/last.out and last.err
run1() {
	"$@" >"$tmp/last.out" 2>"$tmp/last.err" || return 1
	grep -E '^[0-9]+$' "$tmp/last.out" | tail -1 | grep .
}

# best_each CMD [ARG...] [:: CMD [ARG...]]...: the least of REPS run1s of
# each command, space separated, "-" for one that failed.  The runs go round
# the commands REPS times, so a burst of load from elsewhere slows them alike
# rather than all the runs of one.  The last command's run is the last run.
best_each() {
	local -a argv=("$@") at=() len=() b=()
	local i k t s=0

	for ((i = 0; i <= $#; i++)); do
		if ((i == $#)) || [ "${argv[i]}" = :: ]; then
			at+=("$s") len+=($((i - s))) s=$((i + 1))
		fi
	done
	for _ in $(seq "$REPS"); do
		for ((k = 0; k < ${#at[@]}; k++)); do
			[ "${b[k]:-}" != - ] || continue
			if t=$(run1 "${argv[@]:${at[k]}:${len[k]}}"); then
				if [ -z "${b[k]:-}" ] || [ "$t" -lt "${b[k]}" ]; then b[k]=$t; fi
			else
				b[k]=-
			fi
		done
	done
	echo "${b[*]}"
}

# nodash VAR...: empty each VAR that holds "-" (a failed command)
nodash() {
	local v
	for v in "$@"; do
		if [ "${!v}" = - ]; then printf -v "$v" '%s' ""; fi
	done
}

# ---- per hit: ptap, untraced, floor; 1, 2 and 8 threads -------------------
declare -A U F P	# a row's untraced ns a call, floor's and ptap's ns a hit, by PIN_THREADS

# wait_for FILE WORD PID: until FILE holds WORD (5 s at most); fails if it never does, or
# once process PID is gone
wait_for() {
	local i

	for i in $(seq 500); do
		if grep -q "$2" "$1" 2>/dev/null; then return 0; fi
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# attached THREADS PIN-PREFIX...: as run1's command, the ns of NF calls by THREADS threads of
# the target with ptap attached to it (-p) before them: the target waits for SIGUSR1
attached() {
	local th=$1 pid ppid r=0
	shift
	rm -f "$tmp/att.out" "$tmp/att.err" "$tmp/att.ptap"	# not the last run's words
	"$@" "$T" "$NF" "$th" wait >"$tmp/att.out" 2>"$tmp/att.err" &
	pid=$!
	if ! wait_for "$tmp/att.err" ready "$pid"; then kill "$pid"; wait "$pid"; return 1; fi
	"$@" "$O/ptap" record -v -p "$pid" -o /dev/null -e 'bench_fn %di:string' \
		2>"$tmp/att.ptap" &
	ppid=$!
	if wait_for "$tmp/att.ptap" "attached to pid" "$ppid"; then
		kill -USR1 "$pid"
	else
		r=1
		kill "$pid"
	fi
	wait "$pid" || r=1
	wait "$ppid" || r=1
	[ "$r" = 0 ] && grep -E '^[0-9]+$' "$tmp/att.out"
}

row() {	# row LABEL THREADS PIN-PREFIX...
	local label=$1 th=$2 t0 t1 t2 t3 t4 k=${1}_$2
	shift 2
	read -r t0 t1 t2 t3 t4 <<<"$(best_each "$@" "$T" "$NF" "$th" :: \
		"$@" "$B/floor" "$addr" "$T" "$N" "$th" :: \
		"$@" "$O/ptap" record -o /dev/null -e 'bench_fn %di:string' -- "$T" "$NF" "$th" :: \
		"$@" "$O/ptap" record --no-agent -o /dev/null -e 'bench_fn %di:string' -- \
			"$T" "$N" "$th" :: \
		attached "$th" "$@")"
	nodash t0 t1 t2 t3 t4
	if [ -z "$t0" ] || [ -z "$t1" ] || [ -z "$t2" ] || [ -z "$t3" ]; then
		printf '%-8s %d thr  failed: untraced "%s", floor "%s", ptap "%s", --no-agent "%s", attached "%s" ns\n' \
			"$label" "$th" "$t0" "$t1" "$t2" "$t3" "$t4"
		return 0
	fi
	read -r U[$k] F[$k] P[$k] <<<"$(awk -v n="$N" -v nf="$NF" -v t0="$t0" -v t1="$t1" \
		-v t2="$t2" 'BEGIN { u = t0 / nf; print u, t1 / n - u, t2 / nf - u }')"
	# attached: a failed attach leaves the rest of the row
	awk -v l="$label" -v th="$th" -v n="$N" -v nf="$NF" -v u="${U[$k]}" -v f="${F[$k]}" \
	    -v p="${P[$k]}" -v t3="$t3" -v t4="$t4" 'BEGIN {
		s = t3 / n - u;
		a = t4 == "" ? "failed" : sprintf("%6.0f ns/hit", t4 / nf - u);
		printf "%-8s %d thr  untraced %5.1f ns/call | floor %6.0f ns/hit | ptap %6.0f ns/hit (in the process) | attached %s | --no-agent %6.0f ns/hit (a stop) | ptap/floor %.2fx | in-process/stop %.3fx\n",
			l, th, u, f, p, a, s, p / f, p / s }'
}

echo "bench: 'bench_fn %di:string', the calls made by 1, 2 or 8 threads: $NF recorded in the process"
echo "       (and untraced), $N at a stop a hit; best of $REPS runs;"
echo "       pinned: tracer and target on CPU 0 (taskset -c 0); floor: the least a ptrace loop can do;"
echo "       ptap: recorded in the process (the default), launched; attached: ptap -p attached to the"
echo "       waiting target before its calls; --no-agent: one stop a hit"
for th in 1 2 8; do
	row pinned "$th" taskset -c 0
	row unpinned "$th" env
done

# ---- per hit: an integer argument; entry and return (pinned, 1 thread) -----
echo "bench probes: 1 thread, pinned, best of $REPS runs; $NF calls recorded in the process, $N at stops"
if [ -n "${P[pinned_1]:-}" ]; then
	u=${U[pinned_1]} ps=${P[pinned_1]} pf=${F[pinned_1]}
	# shellcheck disable=SC2016 # $retval is ptap's
	# the entry alone again, in turn with entry + return: their ratio from one batch
	read -r tfi ti tr tn te to ts <<<"$(best_each taskset -c 0 "$B/floor" -i "$addr" "$T" "$N" :: \
		taskset -c 0 "$O/ptap" record -o /dev/null -e 'bench_fn %di:u64' -- "$T" "$NF" :: \
		taskset -c 0 "$O/ptap" record -o /dev/null -e 'bench_fn %di:string' \
			-e 'bench_fn%return $retval' -- "$T" "$NF" :: \
		taskset -c 0 "$O/ptap" record --no-jumps -o /dev/null -e 'bench_fn %di:string' -- \
			"$T" "$N" :: \
		taskset -c 0 "$O/ptap" record -o /dev/null -e 'bench_fn %di:string' -- "$T" "$NF" :: \
		taskset -c 0 "$O/ptap" record -o /dev/null -e 'bench_fn%return $retval' -- "$T" "$NF" :: \
		taskset -c 0 "$O/ptap" record -o /dev/null -e 'bench_fn%return %di:string $retval' -- \
			"$T" "$NF")"
	nodash tfi ti tr tn te to ts
	awk -v n="$N" -v nf="$NF" -v u="$u" -v ps="$ps" -v pf="$pf" -v ti="$ti" -v tfi="$tfi" \
	    -v tr="$tr" -v tn="$tn" -v te="$te" -v to="$to" -v ts="$ts" '
	function ns(t, c) { return t / c - u }
	BEGIN {
		printf "  entry, %%di:string, in-process ptap %6.0f ns/hit | floor %6.0f ns/hit            | ptap/floor %.2fx\n",
			ps, pf, ps / pf
		if (tn == "")
			print "  --no-jumps (int3, SETREGS)   failed"
		else
			printf "  --no-jumps (int3, SETREGS)   ptap %6.0f ns/hit | floor %6.0f ns/hit            | ptap/floor %.2fx | jump/int3 %.2fx\n",
				ns(tn, n), pf, ns(tn, n) / pf, ps / ns(tn, n)
		if (ti == "" || tfi == "")
			print "  entry, %di:u64               failed (ptap \"" ti "\", floor -i \"" tfi "\" ns)"
		else
			printf "  entry, %%di:u64, in-process    ptap %6.0f ns/hit | floor %6.0f ns/hit (no read) | ptap/floor %.2fx | u64/string %.2fx\n",
				ns(ti, nf), ns(tfi, n), ns(ti, nf) / ns(tfi, n), ns(ti, nf) / ps
		# the return probe: a hit at the entry and one at the exit, one record a call
		if (to == "" || te == "")
			print "  return $retval               failed"
		else
			printf "  return $retval               ptap %6.0f ns/call | 2 x floor %6.0f ns (two stops) | ptap/(2 x floor) %.2fx | vs entry only %.2fx (entry only %.0f ns in the same runs; one record a call: $retval, the duration)\n",
				ns(to, nf), 2 * pf, ns(to, nf) / (2 * pf), ns(to, nf) / ns(te, nf), ns(te, nf)
		if (ts == "" || te == "")
			print "  return %di:string $retval    failed"
		else
			printf "  return %%di:string $retval    ptap %6.0f ns/call | 2 x floor %6.0f ns (two stops) | ptap/(2 x floor) %.2fx | vs entry only %.2fx (one record a call: the string fetched at the entry, $retval, the duration)\n",
				ns(ts, nf), 2 * pf, ns(ts, nf) / (2 * pf), ns(ts, nf) / ns(te, nf)
		if (tr == "" || te == "")
			print "  entry probe + return probe   failed"
		else
			printf "  entry probe + return probe   ptap %6.0f ns/call | 2 x floor %6.0f ns (two stops) | ptap/(2 x floor) %.2fx | vs entry only %.2fx (two records a call: the string from the entry probe, $retval and the duration from the return probe)\n",
				ns(tr, nf), 2 * pf, ns(tr, nf) / (2 * pf), ns(tr, nf) / ns(te, nf)
	}'
else
	echo "  no figures: the pinned 1-thread row failed"
fi

# ---- --filter: a hit the filter leaves out against one written (pinned, 1 thread)
echo "bench filter: 1 thread, pinned, best of $REPS runs; --filter 'arg1 == \"nope\"' leaves every hit out"
if [ -n "${U[pinned_1]:-}" ]; then
	u=${U[pinned_1]}
	read -r sw sf iw if_ <<<"$(best_each \
		taskset -c 0 "$O/ptap" record -q --no-agent -o /dev/null -e 'bench_fn %di:string' \
			-- "$T" "$N" :: \
		taskset -c 0 "$O/ptap" record -q --no-agent -o /dev/null -e 'bench_fn %di:string' \
			--filter 'arg1 == "nope"' -- "$T" "$N" :: \
		taskset -c 0 "$O/ptap" record -q -o /dev/null -e 'bench_fn %di:string' -- "$T" "$NF" :: \
		taskset -c 0 "$O/ptap" record -q -o /dev/null -e 'bench_fn %di:string' \
			--filter 'arg1 == "nope"' -- "$T" "$NF")"
	nodash sw sf iw if_
	awk -v n="$N" -v nf="$NF" -v u="$u" -v sw="$sw" -v sf="$sf" -v iw="$iw" -v if_="$if_" '
	function ns(t, c) { return t / c - u }
	BEGIN {
		if (sw == "" || sf == "")
			print "  at a stop (--no-agent)       failed"
		else
			printf "  at a stop (--no-agent)       written %6.0f ns/hit | left out %6.0f ns/hit | left out/written %.2fx\n",
				ns(sw, n), ns(sf, n), ns(sf, n) / ns(sw, n)
		if (iw == "" || if_ == "")
			print "  in the process               failed"
		else
			printf "  in the process               written %6.0f ns/hit | left out %6.0f ns/hit | left out/written %.2fx (the agent matches it in the target)\n",
				ns(iw, nf), ns(if_, nf), ns(if_, nf) / ns(iw, nf)
	}'
else
	echo "  no figures: the pinned 1-thread row failed"
fi

# ---- -g: a stack of 10 frames against a hit without one (pinned, 1 thread) ----
echo "bench stacks: 1 thread, pinned, best of $REPS runs; $N hits 8 calls down (bench_target deep),"
echo "       at a stop each (-g records at a stop); --stack-max 10: a stack of 10 frames"
if [ -n "${U[pinned_1]:-}" ]; then
	u=${U[pinned_1]}
	read -r kn kf kd <<<"$(best_each \
		taskset -c 0 "$O/ptap" record -q --no-agent -o /dev/null -e 'bench_fn %di:string' \
			-- "$T" "$N" 1 deep :: \
		taskset -c 0 "$O/ptap" record -q -g --stack-max 10 -o /dev/null \
			-e 'bench_fn %di:string' -- "$T" "$N" 1 deep :: \
		taskset -c 0 "$O/ptap" record -q --call-graph dwarf --stack-max 10 -o /dev/null \
			-e 'bench_fn %di:string' -- "$T" "$N" 1 deep)"
	nodash kn kf kd
	awk -v n="$N" -v u="$u" -v kn="$kn" -v kf="$kf" -v kd="$kd" '
	function ns(t) { return t / n - u }
	BEGIN {
		if (kn == "" || kf == "" || kd == "") {
			printf "  failed: no stack \"%s\", fp \"%s\", dwarf \"%s\" ns\n", kn, kf, kd
			exit
		}
		printf "  no stack %6.0f ns/hit | -g (fp) %6.0f ns/hit, %.2fx (goal <= 2x) | --call-graph dwarf %6.0f ns/hit, %.2fx (goal <= 5x)\n",
			ns(kn), ns(kf), ns(kf) / ns(kn), ns(kd), ns(kd) / ns(kn)
	}'
else
	echo "  no figures: the pinned 1-thread row failed"
fi

# ---- --account: a call's counters read at its entry and return (pinned, 1 thread)
echo "bench account: 1 thread, pinned, best of $REPS runs; $N calls of bench_fn, a return probe at a stop"
if [ -n "${U[pinned_1]:-}" ]; then
	u=${U[pinned_1]}
	# shellcheck disable=SC2016 # $retval is ptap's
	read -r an aa <<<"$(best_each \
		taskset -c 0 "$O/ptap" record -q --no-agent -o /dev/null -e 'bench_fn%return $retval' \
			-- "$T" "$N" :: \
		taskset -c 0 "$O/ptap" record -q -o /dev/null -e 'bench_fn%return $retval' \
			--account bench_fn__return -- "$T" "$N")"
	nodash an aa
	awk -v n="$N" -v u="$u" -v an="$an" -v aa="$aa" '
	function ns(t) { return t / n - u }
	BEGIN {
		if (an == "" || aa == "")
			printf "  failed: without \"%s\", with --account \"%s\" ns\n", an, aa
		else
			printf "  return probe %6.0f ns/call | with --account %6.0f ns/call (+%.0f ns: 8 preads of /proc) | %.2fx\n",
				ns(an), ns(aa), ns(aa) - ns(an), ns(aa) / ns(an)
	}'
else
	echo "  no figures: the pinned 1-thread row failed"
fi

# ---- the same hits under other tracers ---------------------------------------
# tool_row NAME NOTE HITS COUNT CMD...: best of REPS runs of CMD (the target
# and its arguments included), pinned and unpinned (each interleaved with the
# untraced target's), in ns per hit and
# against ptap's (the 1-thread rows above); COUNT is a command printing how
# many records the last run wrote, shown after each column's figure
tool_row() {
	local name=$1 note=$2 n=$3 count=$4 pp="" pu="" u0 u1 a b ra rb
	shift 4
	pp=${P[pinned_1]:-} pu=${P[unpinned_1]:-}
	read -r u0 a <<<"$(best_each taskset -c 0 "$T" "$n" :: taskset -c 0 "$@")"
	ra=$($count) || ra=""
	read -r u1 b <<<"$(best_each "$T" "$n" :: "$@")"
	rb=$($count) || rb=""
	nodash a b
	[ "$u0" != - ] || u0=0
	[ "$u1" != - ] || u1=0
	if [ "${ra:-0}" = 0 ] && [ "${rb:-0}" = 0 ]; then
		printf '  %-20s no figures: no record of bench_fn: %s\n' "$name" \
			"$(grep -v '^[0-9]*$' "$tmp/last.err" | head -1)"
		return 0
	fi
	awk -v name="$name" -v note="$note" -v n="$n" -v a="$a" -v b="$b" -v ra="$ra" -v rb="$rb" \
	    -v u0="$u0" -v u1="$u1" -v pp="$pp" -v pu="$pu" '
	function cell(t, u, p, r,   s) {
		if (t == "")
			return sprintf("%-39s", "failed")
		s = sprintf("%7.0f ns/hit", (t - u) / n)
		if (p != "")
			s = s sprintf(" %6.2fx ptap", (t - u) / n / p)
		return sprintf("%-39s", s sprintf(" %6d rec", r))
	}
	BEGIN {
		printf "  %-20s %s| %s %s\n", name, cell(a, u0, pp, ra), cell(b, u1, pu, rb), note
	}'
}

echo "bench other tools: 'bench_fn' and its string argument, best of $REPS runs; pinned | unpinned;"
echo "       x ptap: against ptap's 1-thread rows above; rec: the records the last run wrote"

# kernel uprobes: a perf probe event, recorded with perf record.  A machine
# that booted without tracefs mounted gets it, as root (perf probe does not
# mount it)
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] && ! mountpoint -q /sys/kernel/tracing &&
   [ ! -e /sys/kernel/debug/tracing/uprobe_events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
		echo "bench: mounted tracefs on /sys/kernel/tracing for the kernel uprobe rows"
fi
perf_count() {
	perf report -i "$tmp/perf.data" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }'
}
uprobe_row() {
	local reason="" tracefs="" ev="ptap_bench:fn_$$" err
	if ! command -v perf >/dev/null 2>&1; then
		reason="perf is not installed (apt-get install linux-perf)"
	elif [ "$(id -u)" != 0 ]; then
		reason="not root (perf probe writes the kernel's uprobe_events)"
	else
		for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			if [ -e "$d/uprobe_events" ]; then tracefs=$d; break; fi
		done
		[ -n "$tracefs" ] ||
			reason="no tracefs (no uprobe_events in /sys/kernel/tracing or /sys/kernel/debug/tracing)"
	fi
	if [ -n "$reason" ]; then
		printf '  %-20s no figures: %s\n' "kernel uprobe (perf)" "$reason"
		return 0
	fi
	uprobe=$ev
	if ! err=$(perf probe -q -x "$T" -a "$ev=bench_fn s=+0(%di):string" 2>&1); then
		printf '  %-20s no figures: perf probe failed: %s\n' "kernel uprobe (perf)" \
			"$(echo "$err" | head -1)"
		return 0
	fi
	# a buffer that holds every record: perf record drops what does not fit
	tool_row "kernel uprobe (perf)" "perf record, $N hits" "$N" perf_count \
		perf record -q -m 16M -o "$tmp/perf.data" -e "$ev" -- "$T" "$N"
	perf probe -q -d "$ev" >/dev/null 2>&1 && uprobe=""
}
uprobe_row

# ltrace -x: bench_fn is no library call; a prototype makes its argument a string
ltrace_count() { grep -c '^bench_fn("SELECT' "$tmp/ltrace.out"; }
if command -v ltrace >/dev/null 2>&1; then
	printf 'void bench_fn(string);\n' >"$tmp/ltrace.conf"
	tool_row "ltrace -x bench_fn" "$SLOW_N hits; ltrace stops at the entry and the return" \
		"$SLOW_N" ltrace_count ltrace -F "$tmp/ltrace.conf" -s 256 -x bench_fn \
		-o "$tmp/ltrace.out" "$T" "$SLOW_N"
else
	printf '  %-20s no figures: ltrace is not installed (apt-get install ltrace)\n' \
		"ltrace -x bench_fn"
fi

# gdb: a dprintf of the string %rdi points to (bench_fn has no debug info)
gdb_count() { grep -c '^SELECT' "$tmp/last.out"; }
if command -v gdb >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # $rdi is gdb's
	tool_row "gdb dprintf" "$SLOW_N hits" "$SLOW_N" gdb_count \
		gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set startup-with-shell off' \
		-ex 'dprintf bench_fn,"%s\n",(char *)$rdi' -ex run --args "$T" "$SLOW_N"
else
	printf '  %-20s no figures: gdb is not installed (apt-get install gdb)\n' "gdb dprintf"
fi

# ---- --syscalls: the cost on the calls not listed ---------------------------
# sys_target makes SN getppid() and SK fsync(); with --syscalls fsync the
# seccomp filter lets the getppids run without a stop (goal: traced/untraced
# <= 1.05x).  Its floor: the same filter and no tracer (seccomp_floor.c).
# Then every call listed (--syscalls getppid,fsync, SA calls): the cost of
# one syscall record (two stops) over the untraced call.
SN=${BENCH_SYSCALLS:-1000000}
SA=$((SN / 10))
SK=10
sfile=$tmp/sys_target.dat

sys_row() {	# sys_row LABEL PIN-PREFIX...
	local label=$1
	shift
	local t0 tf t1 a0 a1
	read -r t0 tf t1 a0 a1 <<<"$(best_each "$@" "$B/sys_target" "$SN" "$SK" "$sfile" :: \
		"$@" "$B/seccomp_floor" "$B/sys_target" "$SN" "$SK" "$sfile" :: \
		"$@" "$O/ptap" record -o /dev/null --syscalls fsync -- "$B/sys_target" "$SN" "$SK" \
			"$sfile" :: \
		"$@" "$B/sys_target" "$SA" "$SK" "$sfile" :: \
		"$@" "$O/ptap" record -o /dev/null --syscalls getppid,fsync -- "$B/sys_target" \
			"$SA" "$SK" "$sfile")"
	nodash t0 tf t1 a0 a1
	if [ -z "$t0" ] || [ -z "$tf" ] || [ -z "$t1" ] || [ -z "$a0" ] || [ -z "$a1" ]; then
		printf '%-9s failed: "%s" "%s" "%s" "%s" "%s" ns\n' \
			"$label" "$t0" "$tf" "$t1" "$a0" "$a1"
		return 0
	fi
	awk -v l="$label" -v n="$SN" -v na="$SA" -v t0="$t0" -v tf="$tf" -v t1="$t1" -v a0="$a0" \
	    -v a1="$a1" 'BEGIN {
		printf "%-9s untraced %6.1f ns/call | seccomp floor %6.1f (%.3fx) | --syscalls fsync %6.1f ns/call | traced/untraced %.3fx (goal <= 1.05x) | every call listed %6.0f ns/record\n",
			l, t0 / n, tf / n, tf / t0, t1 / n, t1 / t0, (a1 - a0) / na }'
}

if "$O/ptap" record -o /dev/null --syscalls fsync -- "$B/sys_target" 10 1 "$sfile" >/dev/null 2>&1
then
	echo "bench syscalls: $SN getppid() + $SK fsync(), --syscalls fsync; every call listed: $SA + $SK; best of $REPS runs"
	sys_row pinned taskset -c 0
	sys_row unpinned env
else
	echo "bench syscalls: 'ptap record --syscalls fsync' failed: no figures"
fi

# ---- ptap's peak RSS ---------------------------------------------------------
# peakrss prints the wait4() ru_maxrss of the command: ptap's own, or its
# traced child's when that is larger (the untraced target's is shown)
peak_kb() {	# peak_kb CMD...: the peak RSS in KB, or nothing
	{ "$B/peakrss" "$@" 2>&1 >/dev/null || true; } | awk '/^peakrss: / { print $2 }'
}
rp=$(peak_kb "$O/ptap" record -o /dev/null -e 'bench_fn %di:string' -- "$T" "$N")
rt=$(peak_kb "$T" "$N")
if [ -n "$rp" ] && [ -n "$rt" ]; then
	awk -v p="$rp" -v t="$rt" -v n="$N" 'BEGIN {
		printf "bench peak RSS: ptap record -e '"'"'bench_fn %%di:string'"'"' (%d hits) %.1f MB (the target alone: %.1f MB)\n",
			n, p / 1024, t / 1024 }'
else
	echo "bench peak RSS: failed (ptap \"$rp\" KB, target \"$rt\" KB)"
fi

# ---- attaching to 64 threads -------------------------------------------------
# From ptap's start to its "attached to pid" line (-v): ptap's own start,
# resolving the probe, seizing and stopping every thread, reading the maps,
# planting; then the whole run with --duration 0.1 less the 0.1 s (attach,
# 0.1 s of hits, detach).  A 1-thread process for comparison.
AREPS=${BENCH_ATTACH_REPS:-3}

attach_ms() {	# attach_ms THREADS: "ATTACH-MS WHOLE-MS", the best of AREPS, or nothing
	local s a e l ba="" bw="" f=$tmp/threads64-$1.out
	"$B/threads64" "$1" 60 >"$f" &
	t64pid=$!
	for _ in $(seq 100); do
		grep -q ready "$f" 2>/dev/null && break
		sleep 0.05
	done
	if grep -q ready "$f" 2>/dev/null; then
		for _ in $(seq "$AREPS"); do
			s=$(now_us)
			a=$({ "$O/ptap" record -v -p "$t64pid" -e 'tick %di:s64' -o /dev/null \
				--duration 0.1 2>&1 >/dev/null || true; } |
				while IFS= read -r l; do
					case $l in *"attached to pid"*) now_us ;; esac
				done)
			e=$(now_us)
			[ -n "$a" ] || { ba=""; break; }
			a=$((a - s)) e=$((e - s - 100000))
			if [ -z "$ba" ] || [ "$a" -lt "$ba" ]; then ba=$a; fi
			if [ -z "$bw" ] || [ "$e" -lt "$bw" ]; then bw=$e; fi
		done
	fi
	kill "$t64pid" 2>/dev/null || true
	wait "$t64pid" 2>/dev/null || true
	t64pid=""
	[ -n "$ba" ] && awk -v a="$ba" -v w="$bw" 'BEGIN { printf "%.1f %.1f", a / 1000, w / 1000 }'
	return 0
}
a64=$(attach_ms 64)
a1=$(attach_ms 1)
if [ -n "$a64" ] && [ -n "$a1" ]; then
	echo "bench attach: 'ptap record -p PID -e tick --duration 0.1', best of $AREPS runs"
	read -r x64 w64 <<<"$a64"
	read -r x1 w1 <<<"$a1"
	printf '  64 threads: attached after %6.1f ms | attach + 0.1 s of hits + detach: 0.1 s + %6.1f ms\n' "$x64" "$w64"
	printf '   1 thread:  attached after %6.1f ms | attach + 0.1 s of hits + detach: 0.1 s + %6.1f ms\n' "$x1" "$w1"
else
	echo "bench attach: failed (64 threads: \"$a64\", 1 thread: \"$a1\")"
fi

# ---- resolving DWARF in a large module ---------------------------------------
# ptap vars against perf probe -V; a launch of /bin/true with a probe in
# libc against /bin/true untraced; with ptap's cache of inflated debug
# files empty (cold) and filled (warm)
LIBC_SO=${BENCH_LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
VREPS=${BENCH_VARS_REPS:-5}

# best_ms CMD...: the fastest of VREPS runs, in ms (output discarded); nothing if one fails
best_ms() {
	local b="" s e t
	for _ in $(seq "$VREPS"); do
		s=$(now_us)
		"$@" >/dev/null 2>&1 || { echo "bench: '$*' failed" >&2; return 0; }
		e=$(now_us)
		t=$((e - s))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	awk -v t="$b" 'BEGIN { printf "%.1f", t / 1000 }'
}

# cold_ms CMD...: best_ms with the cache emptied before each run
cold_ms() {
	local b="" t
	for _ in $(seq "$VREPS"); do
		rm -rf "${cache:?}"/*
		t=$(VREPS=1 best_ms "$@")
		[ -n "$t" ] || return 0
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$t; fi
	done
	echo "$b"
}

cache=$tmp/cache
mkdir -p "$cache"
export PTAP_CACHE_DIR=$cache
vc=$(cold_ms "$O/ptap" vars -x "$LIBC_SO" __libc_open64)
vw=$(best_ms "$O/ptap" vars -x "$LIBC_SO" __libc_open64)
if command -v perf >/dev/null 2>&1; then
	vp=$(best_ms perf probe -x "$LIBC_SO" -V __libc_open64)
else
	vp=""
fi
echo "bench vars: 'vars -x libc.so.6 __libc_open64', best of $VREPS runs"
awk -v c="$vc" -v w="$vw" -v p="$vp" '
function ratio(t) { return (p == "" || t == "") ? "" : sprintf(" (ptap/perf %.2fx)", t / p) }
function ms(t) { return t == "" ? "  failed" : sprintf("%6.1f ms", t) }
BEGIN {
	if (p == "")
		print "  perf probe -V   no figures: perf is not installed (apt-get install linux-perf)"
	else
		printf "  perf probe -V %s\n", ms(p)
	printf "  ptap vars     %s with its inflated-debuginfo cache%s\n", ms(w), ratio(w)
	printf "  ptap vars     %s first run, cache empty%s\n", ms(c), ratio(c) }'

LPROBE='__libc_open64 file oflag'
lu=$(best_ms /bin/true)
lc=$(cold_ms "$O/ptap" record -o /dev/null -x "$LIBC_SO" -e "$LPROBE" -- /bin/true)
lw=$(best_ms "$O/ptap" record -o /dev/null -x "$LIBC_SO" -e "$LPROBE" -- /bin/true)
echo "bench launch: 'record -x libc.so.6 -e \"$LPROBE\" -- /bin/true', best of $VREPS runs"
awk -v u="$lu" -v c="$lc" -v w="$lw" '
function ms(t) { return t == "" ? "  failed" : sprintf("%6.1f ms", t) }
function over(t) { return (t == "" || u == "") ? "" : sprintf(" (+%.1f ms)", t - u) }
BEGIN {
	printf "  /bin/true untraced %s\n", ms(u)
	printf "  ptap record        %s with its cache (inflated debug info, the branch targets)%s\n", ms(w), over(w)
	printf "  ptap record        %s first run, cache empty%s\n", ms(c), over(c) }'

# ---- the record writers alone (writers.c) -----------------------------------
# Text, JSON and perfetto on BENCH_RECORDS records, no tracing: ns/record for
# the formatter and for the whole writer into /dev/null, write syscalls per
# 1000 records; it fails if a timed loop allocated.
"$B/writers" "${BENCH_RECORDS:-1000000}" || echo "bench writers: FAILED (see above)"

# ---- in-process probes: the agent in a process of its own (agent.c) ----------
# What a hit costs the thread that makes it when the fetch runs in the
# process, with no tracer (the agent alone, its ring drained by a thread):
# bench_fn's string argument (read directly, and through process_vm_readv
# as in a process that handles SIGSEGV), and an integer (no memory read), 1
# and 8 threads; and the string with every thread writing into one ring
# (ptap gives a process twice as many rings as CPUs, a thread its tid's).
# 200000 calls a thread: a run's threads are new, and write into rings the
# last run's did not (their first pass is slower); a quarter of that
# through process_vm_readv (a system call a read).
AC=${BENCH_AGENT_CALLS:-200000}
"$B/agent" "$AC" || echo "bench agent: FAILED (see above)"
"$B/agent" "$AC" one-ring | tail -n +2 | sed 's/^/  one ring:/' ||
	echo "bench agent one-ring: FAILED (see above)"
"$B/agent" $((AC / 4)) vm | tail -n +2 | sed 's/^/  vm:/' ||
	echo "bench agent vm: FAILED (see above)"
"$B/agent" "$AC" u64 | tail -n +2 | sed 's/^/  u64:/' ||
	echo "bench agent u64: FAILED (see above)"

# ---- a real server: PostgreSQL under pgbench -----------------------------------
# pgbench -S (select-only, simple protocol), 2 clients on 2 threads, for
# PG_SECS seconds: untraced, with ptap attached to the postmaster before the
# clients connect (following the backends it forks) recording every query's
# text from pg_parse_query's first argument, the same with --no-agent, and
# under a kernel uprobe (perf record -a) where tracefs is there.  A run's
# throughput moves by a fifth from one run to the next here (the machine's
# speed drifts over seconds, each CPU its own way), so a ratio of two bests
# of a few runs moves by as much.  So: PG_REPS rounds of untraced and ptap,
# each in the reverse order of the one before (a drift over a round weighs
# on both alike), the first PG_SIDE_REPS of them with --no-agent and the
# uprobe too; a row's figure is the mean of its runs' ratios to the
# untraced run of the same round, +- twice its standard error, and the
# ratio of its best to the untraced best of the same rounds beside it.
# Root runs the server as user postgres.
PG_SECS=${BENCH_PG_SECS:-4}
PG_REPS=${BENCH_PG_REPS:-10}
PG_SIDE_REPS=${BENCH_PG_SIDE_REPS:-3}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_run() {	# pg_run CMD...: as the server's user
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_tps() {	# pg_tps: one pgbench run's transactions a second, and its transactions
	pg_run pgbench -h "$tmp/pg" -p 5499 -S -M simple -c 2 -j 2 -T "$PG_SECS" postgres 2>&1 |
		awk '/actually processed:/ { n = $NF } /^tps/ { t = int($3) } END { print t, n }'
}
# pg_under FAILS LOG CMD...: "TPS TRANSACTIONS" of a pgbench run with CMD (a
# tracer, its output into LOG) running from a second before it until SIGINT
# after it; FAILS yes: CMD's failure fails the run (tps 0)
pg_under() {
	local fails=$1 log=$2 p t n
	shift 2
	"$@" >"$log" 2>&1 &
	p=$!
	sleep 1
	read -r t n <<<"$(pg_tps)"
	kill -INT "$p" 2>/dev/null
	wait "$p" || [ "$fails" != yes ] || t=0
	echo "${t:-0} ${n:-?}"
}
pg_traced() {	# pg_traced PTAP-OPTION...: pgbench's tps with ptap attached to the postmaster
	local t n c
	rm -f "$tmp/pg.rec"	# a ptap that failed leaves none: not the last run's
	read -r t n <<<"$(pg_under yes "$tmp/pg.err" "$O/ptap" record "$@" \
		-p "$(head -1 "$tmp/pg/data/postmaster.pid")" -o "$tmp/pg.rec" \
		-e 'pg_parse_query %di:string')"
	c=$(grep -c ' pg_parse_query: ' "$tmp/pg.rec" 2>/dev/null) || c=${c:-0}
	echo "$t $c records for $n transactions"
}
pg_uprobed() {	# pg_uprobed: pgbench's tps under perf record -a of the uprobe probe_postgres:pgq
	local t
	read -r t _ <<<"$(pg_under no /dev/null setsid perf record -q -a -e probe_postgres:pgq \
		-o "$tmp/pg.perf")"
	echo "$t"
}
# pg_one ROW: one run of ROW (u untraced, a ptap, n --no-agent, k the
# uprobe), added to its figures; its tps into pg_t[ROW] (0: failed)
declare -A pg_sum pg_n pg_best pg_rec pg_t pg_ratios
pg_one() {
	local t r=""
	case $1 in
	u) read -r t _ <<<"$(pg_tps)" ;;
	a) read -r t r <<<"$(pg_traced)" ;;
	n) read -r t r <<<"$(pg_traced --no-agent)" ;;
	k) t=$(pg_uprobed) ;;
	esac
	[[ ${t:-} =~ ^[0-9]+$ ]] || t=0
	pg_t[$1]=$t
	[ "$t" -gt 0 ] || return 0	# a failed run: counted out (the row says how many counted)
	pg_sum[$1]=$((${pg_sum[$1]:-0} + t))
	pg_n[$1]=$((${pg_n[$1]:-0} + 1))
	[ "$t" -le "${pg_best[$1]:-0}" ] || pg_best[$1]=$t
	pg_rec[$1]=$r
}
# pg_row ROW LABEL NOTE UBEST: the row's line: its mean tps and best; but
# for the untraced row, the mean of its rounds' ratios to their untraced
# runs (pg_ratios) +- twice its standard error, and its best against UBEST,
# the untraced runs' best in the same rounds
pg_row() {
	awk -v s="${pg_sum[$1]:-0}" -v n="${pg_n[$1]:-0}" -v b="${pg_best[$1]:-0}" \
	    -v label="$2" -v note="$3" -v ub="${4:-0}" -v ratios="${pg_ratios[$1]:-}" 'BEGIN {
		if (n == 0) { printf "  %-30s failed\n", label; exit }
		printf "  %-30s %7d tps (best %6d, %d runs)", label, s / n, b, n
		k = split(ratios, r, " ")
		if (k > 0) {
			for (i = 1; i <= k; i++) m += r[i] / k
			printf "  %.2fx untraced", m
			if (k > 1) {
				for (i = 1; i <= k; i++) v += (r[i] - m) ^ 2 / (k - 1)
				printf " (%.2fx-%.2fx)", m - 2 * sqrt(v / k), m + 2 * sqrt(v / k)
			}
			if (ub > 0)
				printf " (bests %.2fx)", b / ub
		}
		print note == "" ? "" : "  " note
	}'
}
if [ -z "$pg_bin" ] || ! command -v pgbench >/dev/null 2>&1; then
	echo "bench pgbench: no figures: PostgreSQL is not installed (scripts/deps.sh --bench installs it as root)"
elif [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
	echo "bench pgbench: no figures: no user postgres to run the server as"
else
	mkdir -p "$tmp/pg"
	[ "$(id -u)" != 0 ] || chown postgres "$tmp/pg" "$tmp"
	if pg_run "$pg_bin/initdb" -D "$tmp/pg/data" >"$tmp/pg.log" 2>&1 &&
	   pg_run "$pg_bin/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/log" -w \
		-o "-p 5499 -k $tmp/pg -c listen_addresses=" start >>"$tmp/pg.log" 2>&1 &&
	   pg_run pgbench -h "$tmp/pg" -p 5499 -i -s 5 postgres >>"$tmp/pg.log" 2>&1; then
		rows="u a n" pg_uprobe=""
		if ! command -v perf >/dev/null 2>&1 || [ "$(id -u)" != 0 ] ||
		   { [ ! -e /sys/kernel/tracing/uprobe_events ] &&
		     [ ! -e /sys/kernel/debug/tracing/uprobe_events ]; }; then
			pg_uprobe="no figures: no perf, not root or no tracefs (see above)"
		elif ! err=$(perf probe -q -x "$pg_bin/postgres" -a 'pgq=pg_parse_query q=+0(%di):string' 2>&1); then
			pg_uprobe="no figures: perf probe failed: ${err%%$'\n'*}"
		else
			# an earlier row's event still there (its delete failed): tried once more
			[ -z "$uprobe" ] || perf probe -q -d "$uprobe" >/dev/null 2>&1 || true
			uprobe=probe_postgres:pgq
			rows="u a n k"
		fi
		ub_side=0
		for i in $(seq "$PG_REPS"); do
			order="u a"
			[ "$i" -gt "$PG_SIDE_REPS" ] || order=$rows
			[ $((i % 2)) = 1 ] || order=$(echo "$order" | tr ' ' '\n' | tac | xargs)
			for row in $order; do pg_one "$row"; done
			[ "$i" -gt "$PG_SIDE_REPS" ] || [ "${pg_t[u]}" -le "$ub_side" ] || ub_side=${pg_t[u]}
			for row in $order; do	# each run against its round's untraced one
				[ "$row" != u ] && [ "${pg_t[u]}" -gt 0 ] && [ "${pg_t[$row]}" -gt 0 ] ||
					continue
				pg_ratios[$row]+=" $(awk -v t="${pg_t[$row]}" -v u="${pg_t[u]}" 'BEGIN { print t / u }')"
			done
		done
		if [ -n "$uprobe" ]; then perf probe -q -d "$uprobe" >/dev/null 2>&1 && uprobe=""; fi
		echo "bench pgbench: PostgreSQL $(pg_run "$pg_bin/postgres" --version | awk '{ print $3 }'), pgbench -S -M simple -c 2 -j 2, $PG_SECS s a run, $PG_REPS rounds of untraced and ptap in turn, each in the reverse order of the one before, the first $PG_SIDE_REPS with --no-agent and the uprobe; every query's text recorded (pg_parse_query %di:string); tps: the mean of a row's runs; x untraced: the mean of its rounds' ratios to their untraced runs, +- twice its standard error; bests: against the untraced best of the same rounds"
		pg_row u "untraced" "" 0
		pg_row a "ptap -p postmaster" "${pg_rec[a]:-0} in its last run (in the process)" "${pg_best[u]:-0}"
		pg_row n "ptap -p postmaster --no-agent" "${pg_rec[n]:-0} in its last run (a stop each)" "$ub_side"
		if [ -n "$pg_uprobe" ]; then
			printf "  %-30s %s\n" "kernel uprobe (perf record -a)" "$pg_uprobe"
		else
			pg_row k "kernel uprobe (perf record -a)" "" "$ub_side"
		fi
	else
		echo "bench pgbench: no figures: the server did not start ($(tail -1 "$tmp/pg.log"))"
	fi
	pg_run "$pg_bin/pg_ctl" -D "$tmp/pg/data" -m immediate stop >/dev/null 2>&1 || true
fi

read -r load1 _ </proc/loadavg
echo "bench: done in ${SECONDS} s on $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d);" \
	"load average at the start $load0, at the end $load1 (other work on the machine)"
