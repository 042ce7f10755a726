# tests/integ/lib.sh: helpers for the integration tests (sourced).
# Each test is a function test_NAME; run.sh runs them all and counts.

: "${O:=build}"
PTAP=$O/ptap
S=$O/samples
TMP=$(mktemp -d /tmp/ptap-integ.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# ptap's inflated-debuginfo cache: per run, so no test sees an earlier run's
export PTAP_CACHE_DIR=$TMP/cache
LIBC=$(ldd "$S/query_server" | awk '/libc\.so/ { print $3 }')

fail() {
	echo "    FAIL: $*" >&2
	return 1
}

# skip REASON: end the test here as skipped; run.sh prints "SKIP  NAME: REASON"
# and counts it (as root, a failure unless PTAP_ALLOW_SKIP=1: see run.sh).
# Only for what the machine lacks and the test cannot provide; a missing
# package belongs in scripts/deps.sh, a hang or a wrong value is a failure.
# Call it from the test's own shell: in $(...), a pipeline or a background
# job, exit would leave only that subshell.
SKIP_STATUS=77
skip() {
	if [ "$BASHPID" != "${TEST_SHELL:-}" ]; then
		fail "skip called outside the test's own shell (in a subshell): $*"
		exit 1
	fi
	echo "    SKIP: $*" >&2
	printf '%s\n' "$*" >"$TMP/test.skip"
	exit $SKIP_STATUS
}

# Strip what changes run to run from text records: the "# ptap clock=..." line,
# "COMM PID/TID SEC.NSEC: ",
# " (0xADDR)", on a return record " (0xADDR <- 0xRETADDR)", and " duration=Nns".
normalize() {
	sed -E '/^# ptap /d
		s/^.* [0-9]+\/[0-9]+ [0-9]+\.[0-9]{9}: //
		s/ \(0x[0-9a-f]+( <- 0x[0-9a-f]+)?\)//
		s/ duration=[0-9]+ns//
		s/ goid=[0-9]+$//' "$@"
}

# records FILE: the records of FILE (`ptap record` text or JSON lines) without
# its first line, which must state the clock: "# ptap clock=CLOCK" or
# {"kind":"clock","clock":"CLOCK"}.  Otherwise the test fails, also where
# records runs in a pipeline, $(...) or <(...), whose status set -e does not
# see: the test's subshell (the child of run.sh's shell) is killed.
records() {
	local first= p=$BASHPID pp clocks='(monotonic|realtime|boottime|tai)'
	[ -f "$1" ] && IFS= read -r first <"$1" || true
	if [[ $first =~ ^("# ptap clock="$clocks|\{\"kind\":\"clock\",\"clock\":\"$clocks\"\})$ ]]
	then
		tail -n +2 -- "$1"
		return 0
	fi
	if [ -f "$1" ]; then
		fail "$1: the first line is not the clock line: '$first'" || true
	else
		fail "$1: no such file" || true
	fi
	while pp=$(proc_field "$p" PPid) && [ -n "$pp" ] && [ "$pp" != "$$" ] && [ "$pp" -gt 1 ]; do
		p=$pp
	done
	[ "$pp" != "$$" ] || kill -TERM "$p"
	return 1
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_diff EXPECTED-FILE ACTUAL-FILE
expect_diff() {
	diff -u "$1" "$2" >&2 || fail "records differ from $1 (- expected, + ptap)"
}

# expect_grep PATTERN FILE
expect_grep() {
	grep -q -- "$1" "$2" || { sed 's/^/      /' "$2" >&2; fail "no '$1' in $2"; }
}

# need_cmd COMMAND PACKAGE: COMMAND is installed, else the test fails (not
# skips): scripts/deps.sh, which make test runs, installs PACKAGE.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		fail "$1 not found: scripts/deps.sh (run by make test) installs $2"
}

# A run must finish: a hang is a failure, never a skip.
run_ptap() {
	timeout 60 "$PTAP" "$@"
}

# wait_ptap PID: the exit status of a ptap started in the background; fails
# (and kills it) if it has not ended 10 s later.
wait_ptap() {
	local rc=0
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		fail "ptap still running 10 s later"
	fi
	wait "$1" || rc=$?
	return "$rc"
}

# wait_for COMMAND...: poll (up to 5 s) until COMMAND succeeds, e.g. a process appears.
wait_for() {
	for _ in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	fail "gave up waiting for: $*"
}

# Racy scenarios are test_racy_* functions that loop this many times (5 in
# `make test`, 100 in `make soak`).
RACY_RUNS=${RACY_RUNS:-5}

# no_leftovers PATTERN: no process whose command line matches PATTERN and
# whose executable is one of this build's (ptap, a sample) is left, and none
# of ours is stopped (t/T); kills and fails if one is.  (Another checkout's
# compiler or tests running at the same time are not ours.)
no_leftovers() {
	local pids="" p exe ours
	ours=$(realpath -- "$O")/
	for p in $(pgrep -f -- "$1" || true); do
		# a zombie has no exe: then ours if it ran where we run
		exe=$(readlink "/proc/$p/exe" 2>/dev/null) ||
			exe=$(readlink "/proc/$p/cwd" 2>/dev/null)/ || continue
		[[ $exe == "$ours"* || $exe == "$(pwd -P)/" ]] && pids="$pids $p"
	done
	[ -z "$pids" ] && return 0
	ps -o pid,stat,args -p $pids >&2 || true
	kill -KILL $pids 2>/dev/null || true
	fail "processes left behind: $pids"
}

# proc_field PID FIELD: a field of /proc/PID/status ("State", "TracerPid").
proc_field() {
	awk -v f="$2:" '$1 == f { print $2; exit }' "/proc/$1/status" 2>/dev/null
}

# record_entries WANT-FILE OUT-LINE ptap-args... -- COMMAND...: ptap records
# COMMAND's hits into $TMP/rec, exit 0; the records (normalized) equal
# WANT-FILE; the command printed OUT-LINE, as it does untraced.
record_entries() {
	local want=$1 line=$2 rc=0
	shift 2
	run_ptap record -o "$TMP/rec" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 0 ] ||
		{ sed 's/^/      /' "$TMP/err" "$TMP/out" >&2; fail "ptap exit status $rc"; }
	expect_eq "traced output" "$line" "$(cat "$TMP/out")"
	while [ "$1" != -- ]; do shift; done
	shift
	expect_eq "untraced output" "$line" "$("$@")"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$want" "$TMP/got"
}
