#!/bin/bash
# tests/bench/run.sh [BUILD-DIR]: per-hit cost of an entry probe with one
# string argument, as ratios measured in one run: ptap against the untraced
# program and against the minimal one-stop ptrace loop (floor.c), with tracer
# and target pinned to one CPU and unpinned.  Figures, not assertions.
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
