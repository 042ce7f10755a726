#!/bin/bash
# tests/bench/run.sh [BUILD-DIR]: per-hit cost of an entry probe with one
# string argument, as ratios measured in one run: ptap against the untraced
# program and against the minimal one-stop ptrace loop (floor.c), with tracer
# and target pinned to one CPU and unpinned; the cost of --syscalls on the
# calls it does not list (sys_target.c) and per syscall record.  Figures,
# not assertions.
set -eu
O=${1:-build}
N=${BENCH_HITS:-200000}
REPS=${BENCH_REPS:-3}
B=$O/bench
addr=0x$(nm "$B/bench_target" | awk '$3 == "bench_fn" { print $1 }')

# best of REPS: the target prints the ns its loop took
best() {
	local b="" t
	for _ in $(seq "$REPS"); do
		t=$("$@" 2>/dev/null | tail -1)
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

row() {	# row LABEL PIN-PREFIX...
	local label=$1
	shift
	local t0 t1 t2
	t0=$(best "$@" "$B/bench_target" "$N")
	t1=$(best "$@" "$B/floor" "$addr" "$B/bench_target" "$N")
	t2=$(best "$@" "$O/ptap" record -o /dev/null -e 'bench_fn %di:string' -- "$B/bench_target" "$N")
	awk -v l="$label" -v n="$N" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
		u = t0 / n; f = (t1 - t0) / n; p = (t2 - t0) / n;
		printf "%-9s untraced %7.1f ns/call | floor %7.0f ns/hit | ptap %7.0f ns/hit | ptap/floor %.2fx | traced/untraced %.0fx\n",
			l, u, f, p, p / f, t2 / t0 }'
}

echo "bench: $N hits of 'bench_fn %di:string', best of $REPS runs"
row pinned taskset -c 0
row unpinned env

# ---- --syscalls: the cost on the calls not listed ---------------------------
# sys_target makes SN getppid() and SK fsync(); with --syscalls fsync the
# seccomp filter lets the getppids run without a stop (goal: traced/untraced
# <= 1.05x).  Its floor: the same filter and no tracer (seccomp_floor.c).
# Then every call listed (--syscalls getppid,fsync, SA calls): the cost of
# one syscall record (two stops) over the untraced call.
SN=${BENCH_SYSCALLS:-1000000}
SA=$((SN / 10))
SK=10
sfile=$B/sys_target.dat

sys_row() {	# sys_row LABEL PIN-PREFIX...
	local label=$1
	shift
	local t0 tf t1 a0 a1
	t0=$(best "$@" "$B/sys_target" "$SN" "$SK" "$sfile")
	tf=$(best "$@" "$B/seccomp_floor" "$B/sys_target" "$SN" "$SK" "$sfile")
	t1=$(best "$@" "$O/ptap" record -o /dev/null --syscalls fsync -- "$B/sys_target" "$SN" "$SK" \
		"$sfile")
	a0=$(best "$@" "$B/sys_target" "$SA" "$SK" "$sfile")
	a1=$(best "$@" "$O/ptap" record -o /dev/null --syscalls getppid,fsync -- "$B/sys_target" \
		"$SA" "$SK" "$sfile")
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
rm -f "$sfile"

# ---- resolving DWARF in a large module: ptap vars against perf probe -V ----
LIBC_SO=${BENCH_LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
VREPS=${BENCH_VARS_REPS:-5}

# best_ms CMD...: the fastest of VREPS runs, in ms (output discarded)
best_ms() {
	local b="" s e t
	for _ in $(seq "$VREPS"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "bench: '$*' failed" >&2; echo 0; return; }
		e=$(date +%s%N)
		t=$(( (e - s) / 1000 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	awk -v t="$b" 'BEGIN { printf "%.1f", t / 1000 }'
}

if ! command -v perf >/dev/null 2>&1; then
	echo "bench vars: perf is not installed (apt-get install linux-perf): no comparison"
	exit 0
fi
cache=$(mktemp -d /tmp/ptap-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
cold=""
for _ in $(seq "$VREPS"); do	# an empty cache each time: libdw inflates the debug file
	rm -rf "${cache:?}"/*
	t=$(VREPS=1 PTAP_CACHE_DIR=$cache best_ms "$O/ptap" vars -x "$LIBC_SO" __libc_open64)
	if [ -z "$cold" ] || awk -v a="$t" -v b="$cold" 'BEGIN { exit !(a < b) }'; then cold=$t; fi
done
warm=$(PTAP_CACHE_DIR=$cache best_ms "$O/ptap" vars -x "$LIBC_SO" __libc_open64)
perf_t=$(best_ms perf probe -x "$LIBC_SO" -V __libc_open64)
echo "bench vars: 'vars -x libc.so.6 __libc_open64', best of $VREPS runs"
awk -v c="$cold" -v w="$warm" -v p="$perf_t" 'BEGIN {
	printf "  perf probe -V %6.1f ms\n", p
	printf "  ptap vars     %6.1f ms with its inflated-debuginfo cache (ptap/perf %.2fx)\n", w, w / p
	printf "  ptap vars     %6.1f ms first run, cache empty (ptap/perf %.2fx)\n", c, c / p }'

# ---- the record writers alone (writers.c) -----------------------------------
# Text, JSON and perfetto on BENCH_RECORDS records, no tracing: ns/record for
# the formatter and for the whole writer into /dev/null, write syscalls per
# 1000 records; it fails if a timed loop allocated.
"$B/writers" "${BENCH_RECORDS:-1000000}" || echo "bench writers: FAILED (see above)"
