# Return probes (issue 5): FUNC%return with $retval and entry-time arguments,
# on samples/retprobe (each mode states on fd 3 what ptap records), the
# query_server recipe, the refusals, and detach while a thread is inside a
# probed function.

RP=$S/retprobe
RP0=$S/retprobe-O0

# rp_record BINARY MODE PROBE...: ptap records each PROBE (-e) on `BINARY MODE`
# (MODE may hold the mode's argument) into $TMP/rec, normalized into
# $TMP/got; the sample's statement goes to $TMP/stated (records: lines with
# ": ") and $TMP/facts (the other lines), its stdout to $TMP/out, ptap's
# stderr to $TMP/err.  ptap must exit 0, the sample must say it is ok, and
# every return record must have the return form (rp_check_form).
rp_record() {
	local bin=$1 mode=$2 args=() p rc=0
	shift 2
	for p; do
		args+=(-e "$p")
	done
	rm -f "$TMP/rec"
	# shellcheck disable=SC2086 # MODE is "NAME [ARG]"
	run_ptap record -o "$TMP/rec" "${args[@]}" -- "$bin" $mode 3>"$TMP/stated.all" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/      /' "$TMP/err" >&2
		fail "ptap exit status $rc on $bin $mode"
	fi
	grep ': ' "$TMP/stated.all" >"$TMP/stated" || true
	grep -v ': ' "$TMP/stated.all" >"$TMP/facts" || true
	[ -s "$TMP/stated" ] || fail "$bin $mode stated no records on fd 3"
	normalize "$TMP/rec" >"$TMP/got"
	expect_grep "^retprobe: ${mode%% *} ok$" "$TMP/out"
	rp_check_form "$TMP/rec"
}

# rp_check_form FILE: every return record (event *__return) in the text
# records of FILE reads "COMM PID/TID SEC.NSEC: EVENT: (0xFUNC <- 0xRET)
# duration=Nns ..." (N may be 0: a function that is one ret enters and
# leaves at one instruction).
rp_check_form() {
	local bad head='^[^ ]+ [0-9]+/[0-9]+ [0-9]+\.[0-9]{9}: [A-Za-z_0-9]+__return: '
	bad=$(grep -E "$head" "$1" |
		grep -Ev "$head"'\(0x[0-9a-f]+ <- 0x[0-9a-f]+\) duration=[0-9]+ns( |$)' |
		head -3) || true
	[ -z "$bad" ] || fail "return records not of the form (0xFUNC <- 0xRET) duration=Nns: $bad"
}

# rp_sym BINARY SYMBOL: SYMBOL's link-time address and size (hex, no 0x).
rp_sym() {
	nm -S "$1" | awk -v s="$2" '$4 == s { print $1, $2; exit }'
}

# ---- the issue's "done when": query_server ---------------------------------

test_retprobe_query_server() {
	local bin
	for bin in "$S/query_server" "$S/query_server-O0" "$S/query_server-nopie"; do
		QS_EXPECT="return" run_ptap record -o "$TMP/rec" \
			-e 'exec_query%return $retval query_string' -- "$bin" samples/queries.txt \
			3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" ||
			{ sed 's/^/      /' "$TMP/err" >&2; fail "ptap failed on $bin"; }
		normalize "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/stated" "$TMP/got"
		expect_eq "$bin: one record per query" 7 "$(records "$TMP/rec" | wc -l)"
		expect_grep '^exec_query__return: retval=2 query_string="SELECT 1"$' "$TMP/got"
		expect_grep '^query_server: done$' "$TMP/out"
		rp_check_form "$TMP/rec"
	done
}

# ---- record form: text and JSON ---------------------------------------------

# The text form of recurse 3, exactly: FUNC is rec_depth's address (the same in
# all four), RET is the call site inside rec_depth for the three inner
# returns and inside main for the outermost.
test_retprobe_text_form() {
	local fn main
	rp_record "$RP" "recurse 3" 'rec_depth%return $retval n'
	fn=$(rp_sym "$RP" rec_depth)
	main=$(rp_sym "$RP" main)
	expect_eq "records" 4 "$(records "$TMP/rec" | wc -l)"
	python3 - <(records "$TMP/rec") "$fn" "$main" <<'EOF' >"$TMP/check" 2>&1 || true
import re, sys
fn, fsize, main, msize = (int(x, 16) for x in " ".join(sys.argv[2:4]).split())
form = re.compile(r"retprobe (\d+)/(\d+) \d+\.\d{9}: rec_depth__return: "
                  r"\(0x([0-9a-f]+) <- 0x([0-9a-f]+)\) duration=[1-9]\d*ns retval=(\d+) n=(\d+)")
recs = [form.fullmatch(l.rstrip("\n")) for l in open(sys.argv[1])]
assert all(recs), "malformed records"
funcs = {int(m.group(3), 16) for m in recs}
assert len(funcs) == 1, "FUNC differs"
f = funcs.pop()
bias = f - fn
for i, m in enumerate(recs):
    r = int(m.group(4), 16)
    if i < 3:
        assert f < r < f + fsize, "record %d: RET %#x not in rec_depth" % (i, r)
    else:
        assert bias + main < r < bias + main + msize, "outermost: RET %#x not in main" % r
print("ok")
EOF
	expect_eq "addresses" ok "$(cat "$TMP/check")"
	expect_diff "$TMP/stated" "$TMP/got"
}

# JSON: "kind":"return", "ret_addr", "duration_ns" between addr and args, typed values.
test_retprobe_json() {
	run_ptap record --format json -o "$TMP/rec" -e 'rec_depth%return $retval n' \
		-- "$RP" recurse 3 >/dev/null 2>"$TMP/err" ||
		{ sed 's/^/      /' "$TMP/err" >&2; fail "ptap failed"; }
	expect_eq "records" 4 "$(records "$TMP/rec" | wc -l)"
	expect_grep '"event":"rec_depth__return","kind":"return","addr":"0x[0-9a-f]*",'\
'"ret_addr":"0x[0-9a-f]*","duration_ns":[1-9][0-9]*,"args":{"retval":0,"n":0}}$' "$TMP/rec"
	python3 - <(records "$TMP/rec") <<'EOF' >"$TMP/check" 2>&1 || true
import json, re, sys
keys = ["ts", "pid", "tid", "comm", "event", "kind", "addr", "ret_addr", "duration_ns", "args"]
recs = [json.loads(l) for l in open(sys.argv[1])]
for i, r in enumerate(recs):
    assert list(r) == keys, "keys %s" % list(r)
    assert r["event"] == "rec_depth__return" and r["kind"] == "return", r
    assert re.fullmatch(r"0x[0-9a-f]+", r["ret_addr"]), r
    assert isinstance(r["duration_ns"], int) and r["duration_ns"] > 0, r
    assert r["args"] == {"retval": i, "n": i}, r["args"]
    assert r["addr"] == recs[0]["addr"], r
    assert r["pid"] == r["tid"] == recs[0]["pid"], r
for inner, outer in zip(recs, recs[1:]):
    assert outer["ts"] >= inner["ts"], "return order"
    assert outer["ts"] - outer["duration_ns"] <= inner["ts"] - inner["duration_ns"], "entry order"
    assert outer["duration_ns"] > inner["duration_ns"], "an outer call lasts longer"
print("ok")
EOF
	expect_eq "JSON records" ok "$(cat "$TMP/check")"
}

# JSON keeps the returned types: a struct is an object, bool, string, double, enum.
test_retprobe_json_types() {
	run_ptap record --format json -o "$TMP/rec" -e 'ret_pair%return $retval' \
		-e 'ret_bool%return $retval' -e 'ret_str%return $retval:string' \
		-e 'ret_double%return $retval' -e 'ret_enum%return $retval' \
		-e 'ret_mixed%return $retval' -- "$RP" structs >/dev/null 2>"$TMP/err" ||
		{ sed 's/^/      /' "$TMP/err" >&2; fail "ptap failed"; }
	python3 - <(records "$TMP/rec") <<'EOF' >"$TMP/check" 2>&1 || true
import json, sys
got = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    got.setdefault(r["event"], []).append(r["args"]["retval"])
want = {
    "ret_pair__return": [{"a": 1, "b": 2}, {"a": -3, "b": 1 << 40}],
    "ret_bool__return": [True, False],
    "ret_str__return": ["zero", "one \"quoted\"\n", ""],
    "ret_double__return": [0.1, -2.5, 1e30],
    "ret_enum__return": ["LOW", "HIGH", 7],
    "ret_mixed__return": [{"x": 1.5, "y": -7}, {"x": 0.1, "y": 42}],
}
for ev, vals in want.items():
    assert got.get(ev) == vals, "%s: %r, want %r" % (ev, got.get(ev), vals)
    assert all(type(a) is type(b) for a, b in zip(got[ev], vals)), "%s: types %r" % (ev, got[ev])
print("ok")
EOF
	expect_eq "JSON values" ok "$(cat "$TMP/check")"
}

# ---- the modes of samples/retprobe ---------------------------------------

# 10001 nested frames: every return recorded, innermost first; each outer call
# started earlier and ended later than the one it made.
test_retprobe_recurse_10000() {
	rp_record "$RP" "recurse 10000" 'rec_depth%return $retval n'
	expect_eq "records" 10001 "$(records "$TMP/rec" | wc -l)"
	expect_diff "$TMP/stated" "$TMP/got"
	# SEC.NSEC as ns; start = end - duration: ends go up, starts go down
	records "$TMP/rec" | sed -E 's/^.* [0-9]+\/[0-9]+ ([0-9]+)\.([0-9]{9}): '\
'.* duration=([0-9]+)ns .*/\1 \2 \3/' | awk '
		{ end = $1 * 1000000000 + $2; start = end - $3 }
		NR > 1 && (end < pend || start > pstart) { bad++ }
		{ pend = end; pstart = start }
		END { print bad ? bad " calls not nested" : "ok" }' >"$TMP/check"
	expect_eq "nesting of the durations" ok "$(cat "$TMP/check")"
}

test_retprobe_recurse_O0() {
	rp_record "$RP0" "recurse 1000" 'rec_depth%return $retval n'
	expect_eq "records" 1001 "$(records "$TMP/rec" | wc -l)"
	expect_diff "$TMP/stated" "$TMP/got"
}

# Other arguments of a return probe are fetched at the entry, printed in the
# order written: at rec_depth's return %di is 0 (the innermost call's), at
# its entry it is n.
test_retprobe_args_at_entry() {
	local bin
	for bin in "$RP" "$RP0"; do
		rp_record "$bin" "recurse 20" 'rec_depth%return n $retval a1=$arg1:s64 di=%di:s64'
		sed -E 's/^(rec_depth__return:) retval=([0-9]+) n=([0-9]+)$/\1 n=\3 retval=\2 a1=\3 di=\3/' \
			"$TMP/stated" >"$TMP/want"
		expect_diff "$TMP/want" "$TMP/got"
	done
}

# A local variable on a return probe is read at the entry: said (a
# parameter is not).
test_retprobe_local_said() {
	run_ptap record -o "$TMP/rec" -e 'exec_query%return nrows query_string $retval' \
		-- "$S/query_server" samples/queries.txt >/dev/null 2>"$TMP/err"
	expect_grep "^ptap: 'nrows' is a local variable of exec_query: a return probe reads it at the entry, before the function has set it" \
		"$TMP/err"
	! grep -q "'query_string' is a local" "$TMP/err" || fail "a parameter said local"
	expect_eq "records" 7 "$(grep -c ': exec_query__return: ' "$TMP/rec")"
}

# An entry probe and a return probe on one function: both recorded, in order.
test_retprobe_with_entry_probe() {
	rp_record "$RP" "recurse 5" 'rec_depth n' 'rec_depth%return $retval n'
	{ for i in 5 4 3 2 1 0; do echo "rec_depth: n=$i"; done; cat "$TMP/stated"; } >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# 4 threads x 1000 calls: each thread's records are its own calls, in order.
test_racy_retprobe_threads() {
	local i
	for i in $(seq "$RACY_RUNS"); do
		rp_record "$RP" threads 'thread_work%return $retval idx k'
		expect_eq "run $i: records" 4000 "$(records "$TMP/rec" | wc -l)"
		rm -f "$TMP"/bytid.*
		records "$TMP/rec" | awk '{ split($2, id, "/"); print id[1], id[2] }' |
			paste -d ' ' - "$TMP/got" | awk -v dir="$TMP" '
			{
				if (!($2 in idx)) {
					match($0, / idx=[0-9]+/)
					idx[$2] = substr($0, RSTART + 5, RLENGTH - 5)
					n++
				}
				if ($1 == $2)
					print "main thread " $2 > (dir "/bytid.main")
				print substr($0, length($1) + length($2) + 3) > (dir "/bytid." idx[$2])
			}
			END { print n > (dir "/bytid.count") }'
		expect_eq "run $i: threads" 4 "$(cat "$TMP/bytid.count")"
		[ ! -e "$TMP/bytid.main" ] || fail "records from the main thread"
		cat "$TMP"/bytid.[0-3] >"$TMP/grouped"
		expect_diff "$TMP/stated" "$TMP/grouped"
	done
}

LONGJMP_PROBES=('jumper%return $retval x' 'long_mid%return $retval x d'
		'long_outer%return $retval x' 'long_all%return $retval n')

# Frames skipped by longjmp give no record; the frames around them return right.
test_retprobe_longjmp() {
	local bin
	for bin in "$RP" "$RP0"; do
		rp_record "$bin" longjmp "${LONGJMP_PROBES[@]}"
		expect_diff "$TMP/stated" "$TMP/got"
		expect_grep '^long_all__return: retval=63 n=6$' "$TMP/got"
	done
}

# A SIGALRM handler siglongjmps out of a probed function spinning in its own
# code; a probed function the handler calls is recorded.
test_retprobe_siglongjmp() {
	rp_record "$RP" siglongjmp 'sig_victim%return $retval x' \
		'sig_in_handler%return $retval x' 'sig_outer%return $retval x' \
		'sig_all%return $retval n'
	expect_diff "$TMP/stated" "$TMP/got"
	expect_grep '^sig_all__return: retval=54 n=6$' "$TMP/got"
}

# A signal handler calls the probed function it interrupted: nested returns,
# on the thread's stack and on a sigaltstack.
test_retprobe_signal_handler() {
	rp_record "$RP" handler 'handler_target%return $retval v'
	expect_diff "$TMP/stated" "$TMP/got"
	expect_eq "records" 4 "$(records "$TMP/rec" | wc -l)"
}

# Every kind of returned value (the probes come from `retprobe probes`).
test_retprobe_structs() {
	local bin probes=()
	mapfile -t probes < <("$RP" probes)
	[ "${#probes[@]}" -ge 20 ] || fail "retprobe probes: ${#probes[@]} probes"
	for bin in "$RP" "$RP0"; do
		rp_record "$bin" structs "${probes[@]}"
		expect_diff "$TMP/stated" "$TMP/got"
		expect_eq "$bin: records" 43 "$(records "$TMP/rec" | wc -l)"
	done
}

# tail_a tail-calls tail_b, which tail-calls tail_c (jmps at -O2: checked):
# every return recorded, all back to main's call site; tail_a's and tail_b's
# at their jumps, their $retval not known (said), each before the next
# begins.  At -O0, calls: each return inside its caller's.  tail_cond's
# conditional tail call: recorded at the jump only when it is taken.
test_retprobe_tail_call() {
	local probes=('tail_a%return $retval x' 'tail_b%return $retval x' 'tail_c%return $retval y'
		      'tail_cond%return $retval x=%di:s32')
	objdump -d --no-show-raw-insn "$RP" | awk '/<tail_[ab]>:/, /^$/' >"$TMP/dis"
	grep -q 'jmp .*<tail_b>' "$TMP/dis" || fail "no tail call in tail_a: $(cat "$TMP/dis")"
	grep -q 'jmp .*<tail_c>' "$TMP/dis" || fail "no tail call in tail_b: $(cat "$TMP/dis")"
	! grep -q 'call' "$TMP/dis" || fail "tail_a or tail_b calls: $(cat "$TMP/dis")"
	rp_record "$RP" tail "${probes[@]}"
	expect_diff "$TMP/stated" "$TMP/got"
	expect_eq "records" 12 "$(records "$TMP/rec" | wc -l)"
	# "EVENT END-NS RET DURATION" per record: each of the chain ends at its jump, before
	# the next begins; all return to main's call
	records "$TMP/rec" | tail -9 | sed -E 's/^.* ([0-9]+)\.([0-9]{9}): (tail_[abc])__return: '\
'\(0x[0-9a-f]+ <- (0x[0-9a-f]+)\) duration=([0-9]+)ns .*/\3 \1\2 \4 \5/' | awk '
		$1 != "tail_a" && $2 - $4 < end { bad = bad " " $1 " began before the jump to it;" }
		$1 != "tail_a" && $3 != ret { bad = bad " return addresses differ;" }
		{ end = $2; ret = $3 }
		END { print bad ? bad : "ok" }' >"$TMP/check"
	expect_eq "each after the jump to it" ok "$(cat "$TMP/check")"
	rp_record "$RP0" tail "${probes[@]}"
	expect_diff "$TMP/stated" "$TMP/got"
}

# fork inside a probed function: the child's return is recorded under the
# child's pid, the parent's under the parent's.
test_retprobe_fork() {
	local x parent child
	rp_record "$RP" fork 'forker%return $retval x'
	expect_diff "$TMP/stated" "$TMP/got"
	for x in 1 2; do
		parent=$(sed -n "s/^forker x=$x parent=\([0-9]*\) child=[0-9]*$/\1/p" "$TMP/facts")
		child=$(sed -n "s/^forker x=$x parent=[0-9]* child=\([0-9]*\)$/\1/p" "$TMP/facts")
		[ -n "$parent" ] && [ -n "$child" ] || fail "the sample states no pids for x=$x"
		expect_grep "^retprobe $child/$child [0-9.]*: forker__return: .* retval=${x}1 x=$x\$" \
			"$TMP/rec"
		expect_grep "^retprobe $parent/$parent [0-9.]*: forker__return: .* retval=${x}0 x=$x\$" \
			"$TMP/rec"
	done
}

# --no-follow: a child forked inside a probed function must return normally
# (its return address given back before it runs); only the parent's records.
test_retprobe_fork_no_follow() {
	local rc=0
	run_ptap record --no-follow -o "$TMP/rec" -e 'forker%return $retval x' -- "$RP" fork \
		3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (1: a child did not exit 0)" 0 "$rc"
	expect_grep '^retprobe: fork ok$' "$TMP/out"
	normalize "$TMP/rec" >"$TMP/got"
	printf 'forker__return: retval=10 x=1\nforker__return: retval=20 x=2\n' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# The duration covers the sleep and lies within the time the caller measured.
test_retprobe_sleep_duration() {
	local dur measured slept
	rp_record "$RP" "sleep 200" 'timed_sleep%return $retval ms'
	expect_diff "$TMP/stated" "$TMP/got"
	dur=$(sed -nE 's/.* duration=([0-9]+)ns .*/\1/p' "$TMP/rec")
	measured=$(sed -n 's/^timed_sleep measured_ns=\([0-9]*\) sleep_ns=[0-9]*$/\1/p' "$TMP/facts")
	slept=$(sed -n 's/^timed_sleep measured_ns=[0-9]* sleep_ns=\([0-9]*\)$/\1/p' "$TMP/facts")
	[ -n "$dur" ] && [ -n "$measured" ] && [ -n "$slept" ] || fail "no duration or no facts"
	[ "$slept" -le "$dur" ] && [ "$dur" -le "$measured" ] ||
		fail "duration $dur ns not within [$slept, $measured]"
}

# ---- refusals and warnings --------------------------------------------------

# rp_refused ERE ptap-args...: exit 2, a message matching ERE (any case) that
# is a reason (not "not supported yet"), no records, and the command never ran.
rp_refused() {
	local ere=$1 rc=0
	shift
	rm -f "$TMP/rec"
	run_ptap record -o "$TMP/rec" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status of '$*'" 2 "$rc"
	grep -qiE -- "$ere" "$TMP/err" ||
		{ sed 's/^/      /' "$TMP/err" >&2; fail "no /$ere/ in the message"; }
	! grep -q 'not supported yet' "$TMP/err" || fail "not a reason: $(cat "$TMP/err")"
	[ ! -s "$TMP/out" ] || fail "the command ran: $(head -3 "$TMP/out")"
	[ ! -s "$TMP/rec" ] || fail "records from a refused run"
}

test_retprobe_bad_input() {
	local addr line
	rp_refused '\$retval is only available in a FUNC%return probe' \
		-e 'rec_depth $retval' -- "$RP" recurse 3
	# the word void, not ret_void's name
	rp_refused '\<void\>' -e 'ret_void%return $retval' -- "$RP" structs
	rp_refused '%return' -e 'rec_depth+3%return' -- "$RP" recurse 3
	addr=0x$(rp_sym "$RP" rec_depth | cut -d' ' -f1 | sed 's/^0*//')
	rp_refused '%return' -e "$addr%return" -- "$RP" recurse 3
	line=$(grep -n 'r = rec_depth(n - 1);' samples/retprobe.c | cut -d: -f1)
	rp_refused '%return' -e "retprobe.c:$line%return" -- "$RP" recurse 3
}

# C++ exceptions thrown through probed calls, caught one and two frames up:
# the program's results are those of the untraced run, every call that
# returned has its record (as cxx_throw states them), the calls the
# exceptions left have none.  An entry probe records every call.
test_retprobe_cxx_exceptions() {
	local rc=0 line='cxx_throw: caught 10 in cxx_catcher, 5 in main, returned 2595'
	expect_eq "untraced" "$line" "$("$S/cxx_throw" 30)"
	run_ptap record -o "$TMP/rec" -e '_Z7throweri%return $retval i' \
		-e 'cxx_middle%return $retval i' -e 'cxx_catcher%return $retval i' \
		-- "$S/cxx_throw" 30 3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 0 "$rc"
	expect_eq "traced" "$line" "$(cat "$TMP/out")"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
	expect_eq "returns" 65 "$(wc -l <"$TMP/got")"
	rc=0
	run_ptap record -o "$TMP/rec" -e 'cxx_middle i' -- "$S/cxx_throw" >"$TMP/out" \
		2>"$TMP/err" || rc=$?
	expect_eq "entry probe: exit status" 0 "$rc"
	expect_grep '^cxx_throw: caught 1 in cxx_catcher, 1 in main, returned 206$' "$TMP/out"
	normalize "$TMP/rec" >"$TMP/got"
	printf 'cxx_middle: i=%d\n' 0 1 2 >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# A function whose exits cannot all be found (a jump table: an indirect jump
# that may leave it) is refused with the reason, never half probed.
test_retprobe_jump_table_refused() {
	objdump -d --no-show-raw-insn "$RP0" | awk '/<tail_switch>:/, /^$/' >"$TMP/dis"
	grep -q 'jmp *\*%rax' "$TMP/dis" || fail "no jump table in tail_switch: $(cat "$TMP/dis")"
	local why="an indirect jump at 0x[0-9a-f]+ \('jmp rax'\) may leave the function"
	rp_refused "cannot probe the return of tail_switch: $why" -e 'tail_switch%return' \
		-- "$RP0" tail
	expect_grep 'probe its entry' "$TMP/err"
}

# A return probe on a noreturn function: a warning, and the run goes on.
test_retprobe_noreturn_warning() {
	local rc=0
	run_ptap record -o "$TMP/rec" -e 'nr_before%return $retval x' -e 'die_now%return code' \
		-- "$RP" noreturn 3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status (the command's)" 5 "$rc"
	expect_grep 'noreturn' "$TMP/err"
	expect_grep '^retprobe: noreturn exits 5$' "$TMP/out"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
}

# ---- detach while inside a probed function (attach mode) -------------------

# rp_start_block THREADS: retprobe block in the background ($BT), READY; it
# is killed when the test ends (it would run until SIGTERM).
rp_start_block() {
	rm -f "$TMP/bout"	# a READY left by the last one must not count
	"$RP" block "$1" >"$TMP/bout" 2>&1 &
	BT=$!
	trap 'kill -KILL "$BT" 2>/dev/null || true' EXIT
	wait_for grep -q READY "$TMP/bout"
}

# rp_ptap_running PID: ptap (started in the background) has not ended.
rp_ptap_running() {
	kill -0 "$1" 2>/dev/null && return 0
	wait "$1" || true
	sed 's/^/      /' "$TMP/err" >&2
	fail "ptap ended early"
}

# rp_block_records THREADS [FIRST-RETVAL]: the records of -e 'blocker idx' -e
# 'blocker%return $retval idx' in $TMP/rec: THREADS threads, each with entries
# and returns alternating from an entry (a call under way at the attach gives
# no return record), the returns counting up by 1 (from FIRST-RETVAL when
# given), at least 3 of them.  At the end a thread is inside blocker (its
# last record an entry), or between two calls in the printf it makes every
# 10 calls (its last return a multiple of 10): blocker sleeps 100 ms and the
# rest of the loop takes microseconds, but a test that stops tracing 1 s in
# can meet that printf, on a loaded machine.  The threads found inside are
# added to INSIDE.
rp_block_records() {
	normalize "$TMP/rec" |
		paste -d ' ' <(records "$TMP/rec" | awk '{ split($2, id, "/"); sub(":", "", $3)
							 print id[2], $3 }') - |
		awk -v want="$1" -v first="${2:-}" '
		function bad(m) { if (!err) err = m " (record " NR ": " $0 ")" }
		{ ts = $2; $2 = ""; $0 = $0; if (ts > end) end = ts }
		$2 == "blocker__return:" { at[$1] = ts }
		$2 == "blocker:" {
			if (state[$1] == "E") bad("two entries in a row")
			state[$1] = "E"; idx[$1] = $3
			next
		}
		$2 == "blocker__return:" {
			if (state[$1] != "E") bad("a return without an entry")
			if ($4 != idx[$1]) bad("idx differs from the entry")
			sub("retval=", "", $3)
			if (($1 in last) && $3 != last[$1] + 1) bad("count skips")
			if (!($1 in last) && first != "" && $3 != first) bad("first count")
			last[$1] = $3; state[$1] = "R"; n[$1]++
			next
		}
		{ bad("unexpected") }
		END {
			for (t in state) {
				threads++
				if (state[t] == "E") inside++
				# between two calls (a few instructions) only just before the end:
				# 50 ms, half the sleep of a call (a thread preempted on a loaded
				# machine right after a return recorded in the process, with
				# its own time stamp, was 5 ms behind the end in one run)
				else if (last[t] % 10 && end - at[t] > 0.05)
					bad("thread " t " was outside blocker at the end")
				if (n[t] < 3) bad("thread " t ": " n[t] + 0 " returns")
			}
			if (threads != want) bad(threads + 0 " threads")
			print err ? err : "ok"
			print inside + 0 >"/dev/stderr"
		}' >"$TMP/check" 2>"$TMP/inside"
	INSIDE=$(( ${INSIDE:-0} + $(cat "$TMP/inside") ))
	expect_eq "blocker records" ok "$(cat "$TMP/check")"
}

# rp_finish_block: the target runs on by itself (it prints every 10 calls),
# then exits 0 on SIGTERM with its own check passed.
rp_finish_block() {
	local before after rc=0
	before=$(grep -c '^block: thread' "$TMP/bout")
	sleep 1.3
	kill -0 "$BT" 2>/dev/null || fail "target died after the detach: $(tail -3 "$TMP/bout")"
	after=$(grep -c '^block: thread' "$TMP/bout")
	[ "$after" -gt "$before" ] || fail "target stopped making progress ($before, $after lines)"
	kill -TERM "$BT"
	wait "$BT" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^block: ok calls=[0-9]*$' "$TMP/bout"
	expect_grep '^BYTES-OK$' "$TMP/bout"
	! grep -q 'BAD' "$TMP/bout" || fail "$(grep BAD "$TMP/bout" | head -3)"
}

# SIGINT to ptap while 2 threads sleep inside blocker: their return addresses
# are given back, they return normally and run on.
test_racy_retprobe_detach_sigint() {
	local i p
	INSIDE=0
	for i in $(seq "$RACY_RUNS"); do
		rp_start_block 2
		"$PTAP" record -o "$TMP/rec" -e 'blocker idx' -e 'blocker%return $retval idx' \
			-p "$BT" 2>"$TMP/err" &
		p=$!
		sleep 1
		rp_ptap_running "$p"
		stop_ptap "$p"
		untraced "$BT"
		rp_block_records 2
		rp_check_form "$TMP/rec"
		rp_finish_block
	done
	[ "$INSIDE" -gt 0 ] || fail "no thread was inside blocker at a detach"
}

# The same, ended by --duration.
test_racy_retprobe_detach_duration() {
	local i rc
	INSIDE=0
	for i in $(seq $(( (RACY_RUNS + 1) / 2 ))); do
		rp_start_block 1
		rc=0
		timeout 20 "$PTAP" record --duration 1 -o "$TMP/rec" -e 'blocker idx' \
			-e 'blocker%return $retval idx' -p "$BT" 2>"$TMP/err" || rc=$?
		[ "$rc" = 0 ] || sed 's/^/      /' "$TMP/err" >&2
		expect_eq "ptap exit status" 0 "$rc"
		untraced "$BT"
		rp_block_records 1
		rp_finish_block
	done
	[ "$INSIDE" -gt 0 ] || fail "the thread was not inside blocker at any detach"
}

# Launch mode, --duration: tracing stops while blocker sleeps; the command
# runs on, then exits 0 on SIGTERM (ptap exits with its status).
test_retprobe_duration_launch() {
	local p before rc=0
	rm -f "$TMP/rec" "$TMP/bout"
	"$PTAP" record --duration 1 -o "$TMP/rec" -e 'blocker idx' -e 'blocker%return $retval idx' \
		-- "$RP" block 1 >"$TMP/bout" 2>"$TMP/err" &
	p=$!
	wait_for grep -q READY "$TMP/bout" || { sed 's/^/      /' "$TMP/err" >&2; return 1; }
	BT=$(sed -n 's/^READY //p' "$TMP/bout")
	trap 'kill -KILL "$BT" 2>/dev/null || true' EXIT
	sleep 1.3
	before=$(grep -c '^block: thread' "$TMP/bout")
	sleep 1.2
	kill -0 "$BT" 2>/dev/null || fail "target died after tracing stopped"
	[ "$(grep -c '^block: thread' "$TMP/bout")" -gt "$before" ] ||
		fail "target stopped making progress after tracing stopped"
	kill -TERM "$BT"
	wait_ptap "$p" || rc=$?
	expect_eq "ptap exit status (the command's)" 0 "$rc"
	rp_block_records 1 1
	expect_grep '^block: ok calls=[0-9]*$' "$TMP/bout"
	expect_grep '^BYTES-OK$' "$TMP/bout"
	! grep -q 'BAD' "$TMP/bout" || fail "$(grep BAD "$TMP/bout" | head -3)"
}

# ---- --format perfetto ------------------------------------------------------

# rp_perfetto_min FILE MODE: without tests/integ/perfetto_check.py, a minimal
# check: FILE is JSON (an object with traceEvents, or a list); the return
# records are complete events (a "dur") on their thread's track with the
# values; recurse 50: 51 slices nested innermost to outermost; threads: 4
# tracks of 1000 slices, k in order.
rp_perfetto_min() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
evs = doc["traceEvents"] if isinstance(doc, dict) else doc
sl = [e for e in evs if e.get("ph") == "X"]
def start(e):
    return e["args"].get("ts_ns", e["ts"] * 1000)
def dur(e):
    return e["args"].get("dur_ns", e["dur"] * 1000)
for e in sl:
    assert e["dur"] > 0 and isinstance(e["tid"], int) and isinstance(e["pid"], int), e
if sys.argv[2] == "recurse":
    assert len(sl) == 51, "%d slices" % len(sl)
    sl.sort(key=lambda e: e["args"]["retval"])
    for n, e in enumerate(sl):
        assert e["name"] in ("rec_depth", "rec_depth__return"), e["name"]
        assert e["args"]["retval"] == n and e["args"]["n"] == n, e["args"]
    for inner, outer in zip(sl, sl[1:]):
        assert start(outer) <= start(inner), "nesting (start)"
        assert start(outer) + dur(outer) >= start(inner) + dur(inner), "nesting (end)"
else:
    assert len(sl) == 4000, "%d slices" % len(sl)
    tracks = {}
    for e in sl:
        assert e["name"] in ("thread_work", "thread_work__return"), e["name"]
        tracks.setdefault(e["tid"], []).append(e)
    assert len(tracks) == 4, "%d tracks" % len(tracks)
    for t in tracks.values():
        t.sort(key=start)
        idx = t[0]["args"]["idx"]
        got = [(e["args"]["idx"], e["args"]["k"], e["args"]["retval"]) for e in t]
        assert got == [(idx, k, idx * 1000 + k) for k in range(1000)], "track of idx %d" % idx
print("ok")
EOF
}

test_retprobe_perfetto() {
	local mode probe
	for mode in "recurse 50" threads; do
		case $mode in
		recurse*) probe='rec_depth%return $retval n' ;;
		*) probe='thread_work%return $retval idx k' ;;
		esac
		# shellcheck disable=SC2086
		run_ptap record --format perfetto -o "$TMP/trace.json" -e "$probe" -- "$RP" $mode \
			>/dev/null 2>"$TMP/err" ||
			{ sed 's/^/      /' "$TMP/err" >&2; fail "ptap failed on $mode"; }
		if [ -f tests/integ/perfetto_check.py ]; then
			python3 tests/integ/perfetto_check.py "$TMP/trace.json" >"$TMP/check" 2>&1 ||
				fail "perfetto_check.py on $mode: $(cat "$TMP/check")"
		fi
		rp_perfetto_min "$TMP/trace.json" "${mode%% *}" >"$TMP/check" 2>&1 || true
		expect_eq "perfetto trace of $mode" ok "$(tail -1 "$TMP/check")"
	done
}
