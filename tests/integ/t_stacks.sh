# record -g / --call-graph: each record's call stack, checked against gdb's
# backtrace at the same hits (samples/gdb_stacks.py, tests/integ/stack_check.py):
# samples/stacks.c reaches leaf() through an inlined function, through libc's
# qsort, and through a dlopen'd library; -O0 and -O2 with frame pointers, -O2
# without.

# stacks_vs_gdb BUILD MODE [HITS]: ptap's stacks at leaf equal gdb's (HITS: only those).
stacks_vs_gdb() {
	local bin=$S/stacks-$1 mode=$2 hits=${3:-}
	need_cmd gdb gdb || return
	GDBS_FUNC=leaf GDBS_OUT=$TMP/gdb.txt timeout 60 gdb -q -batch -x samples/gdb_stacks.py \
		--args "$bin" "$S/libstacks.so" >"$TMP/gdb.log" 2>&1 ||
		{ sed 's/^/      /' "$TMP/gdb.log" >&2; fail "gdb failed"; return; }
	run_ptap record -q --call-graph "$mode" --format json -o "$TMP/rec.json" -e leaf \
		-- "$bin" "$S/libstacks.so" >"$TMP/out" 2>"$TMP/err" ||
		{ sed 's/^/      /' "$TMP/err" >&2; fail "ptap failed"; return; }
	expect_grep '^stacks: 19 1 2$' "$TMP/out"
	records "$TMP/rec.json" >"$TMP/recs.json"
	python3 tests/integ/stack_check.py "$TMP/recs.json" "$TMP/gdb.txt" $hits >"$TMP/cmp" 2>&1 ||
		{ sed 's/^/      /' "$TMP/cmp" >&2; fail "$1 $mode: stacks differ from gdb's"; }
}

test_stack_dwarf_O0_gdb() { stacks_vs_gdb O0 dwarf; }
test_stack_dwarf_O2_gdb() { stacks_vs_gdb O2 dwarf; }
test_stack_dwarf_O2_nofp_gdb() { stacks_vs_gdb O2-nofp dwarf; }
# frame pointers: not through libc, built without them (hits 2 and 3, qsort's)
test_stack_fp_O0_gdb() { stacks_vs_gdb O0 fp 1,4; }
test_stack_fp_O2_gdb() { stacks_vs_gdb O2 fp 1,4; }

# fp can fail: without frame pointers the chain stops short of main
test_stack_fp_nofp_stops_short() {
	run_ptap record -q -g -o "$TMP/rec" -e leaf -- "$S/stacks-O2-nofp" "$S/libstacks.so" \
		>/dev/null 2>"$TMP/err" || { fail "ptap: $(cat "$TMP/err")"; return; }
	! records "$TMP/rec" | awk '/^[^\t]/ { n++ } n == 1 && /\tmain\+/' | grep -q . ||
		fail "the first stack reached main without frame pointers"
}

# The text form: a frame a line under the record, function+offset, FILE:LINE, (MODULE).
test_stack_text_form() {
	run_ptap record -q -g -o "$TMP/rec" -e 'leaf x' -- "$S/stacks-O0" "$S/libstacks.so" \
		>/dev/null 2>"$TMP/err" || { fail "ptap: $(cat "$TMP/err")"; return; }
	records "$TMP/rec" | sed -n 1,5p | sed -E 's/0x[0-9a-f]+/ADDR/g; s/ [0-9]+\/[0-9]+ [0-9.]+:/ PID:/' \
		>"$TMP/got"
	cat >"$TMP/want" <<-WANT
	stacks-O0 PID: leaf: (ADDR) x=3
	$(printf '\t')ADDR leaf+ADDR samples/stacks.c:13 ($S/stacks-O0)
	$(printf '\t')ADDR helper+ADDR samples/stacks.c:18 ($S/stacks-O0)
	$(printf '\t')ADDR middle+ADDR samples/stacks.c:23 ($S/stacks-O0)
	$(printf '\t')ADDR main+ADDR samples/stacks.c:39 ($S/stacks-O0)
	WANT
	sed -i "s|($S/|($(cd "$S" && pwd)/|" "$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# --stack-max N: at most N frames; a return probe's record has the stack at its exit
test_stack_max_and_return() {
	run_ptap record -q --call-graph dwarf --stack-max 2 --format json -o "$TMP/rec" \
		-e 'leaf%return $retval' -- "$S/stacks-O2" "$S/libstacks.so" >/dev/null 2>"$TMP/err" ||
		{ fail "ptap: $(cat "$TMP/err")"; return; }
	records "$TMP/rec" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
assert len(recs) == 4, len(recs)
for r in recs:
    fr = [f["func"] + (" inlined" if f.get("inlined") else "") for f in r["stack"]]
    print(r["kind"], r["args"]["retval"], " ".join(fr))' >"$TMP/got" 2>&1
	printf '%s\n' 'return 6 leaf helper inlined' 'return 4 leaf cmp' 'return 2 leaf cmp' \
		'return 10 leaf plug_call' >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# Perfetto: the stack in the event's args, a string a frame
test_stack_perfetto() {
	run_ptap record -q -g --format perfetto -o "$TMP/rec.pf" -e 'leaf%return $retval' \
		-- "$S/stacks-O0" "$S/libstacks.so" >/dev/null 2>"$TMP/err" ||
		{ fail "ptap: $(cat "$TMP/err")"; return; }
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if e.get("name") == "leaf"]
print(len(ev), ev[0]["args"]["stack"][0].split("+")[0], ev[0]["args"]["stack"][2].split("+")[0])' \
		"$TMP/rec.pf" >"$TMP/got" 2>&1
	expect_eq "perfetto stacks" "4 leaf middle" "$(cat "$TMP/got")"
}

# In the process (the default) a probe with -g is recorded at a stop, and -v says why
test_stack_at_a_stop_said() {
	run_ptap record -v -g -o "$TMP/rec" -e leaf -- "$S/stacks-O2" "$S/libstacks.so" \
		>/dev/null 2>"$TMP/err" || { fail "ptap: $(cat "$TMP/err")"; return; }
	expect_grep 'records the stack at a stop' "$TMP/err"
	expect_eq "records" 4 "$(records "$TMP/rec" | grep -c ': leaf: ')"
}

# Attached: threads of a running process (8 calling probe_me from hammer(), one forking
# children that call it from fork_loop()), their stacks down to the thread's start
test_stack_attached() {
	local AL=$S/scen/attach_load rc=0
	rm -f "$TMP/out"
	"$AL" hammer 3 >"$TMP/out" 2>&1 &
	local target=$!
	wait_for grep -q READY "$TMP/out"
	timeout 20 "$PTAP" record -q --duration 0.5 --call-graph dwarf --format json -o "$TMP/rec" \
		-e 'probe_me a' -p "$target" 2>"$TMP/err" || rc=$?
	expect_eq "ptap exit status" 0 "$rc"
	rc=0
	wait "$target" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^EXIT-SUCCESS$' "$TMP/out"
	records "$TMP/rec" | python3 -c '
import json, sys
n = bad = 0
for l in sys.stdin:
    r = json.loads(l)
    fr = [f["func"] for f in r["stack"]]
    n += 1
    if fr[0] != "probe_me" or fr[1] not in ("hammer", "fork_loop") or "start_thread" not in fr:
        bad += 1
        print("stack:", fr)
print("records", n > 0, "bad", bad)' >"$TMP/got" 2>&1
	expect_eq "attached stacks" "records True bad 0" "$(tail -1 "$TMP/got")"
}

# ptap report's most frequent stacks per event, and record --summary's the same
test_stack_report_and_summary() {
	run_ptap record -q --call-graph dwarf --format json -o "$TMP/rec.json" -e leaf \
		-- "$S/stacks-O2" "$S/libstacks.so" >/dev/null 2>"$TMP/err" ||
		{ fail "ptap: $(cat "$TMP/err")"; return; }
	run_ptap report "$TMP/rec.json" >"$TMP/report" 2>&1 || { fail "report failed"; return; }
	run_ptap record -q --summary --call-graph dwarf -e leaf \
		-- "$S/stacks-O2" "$S/libstacks.so" >"$TMP/summary" 2>"$TMP/err" ||
		{ fail "summary: $(cat "$TMP/err")"; return; }
	sed -n '/^  stacks:/,$p' "$TMP/report" >"$TMP/want"
	sed -n '/^  stacks:/,$p' "$TMP/summary" | grep -v '^stacks: ' >"$TMP/got"
	expect_eq "report's stacks" "  stacks: 4 distinct" "$(head -1 "$TMP/want")"
	expect_grep '^      helper (inlined)$' "$TMP/want"
	expect_grep '^      plug_call+0x[0-9a-f]*$' "$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
}

# C++ (demangled), Go (no .debug_aranges: the CU found by its ranges) and Rust
# stacks by CFI, their lines those of the calls in the sources
test_stack_langs() {
	run_ptap record -q --call-graph dwarf --format json -o "$TMP/rec" -e 'ns::Db::query' \
		-- "$S/cxx_names" >/dev/null 2>"$TMP/err" || { fail "c++: $(cat "$TMP/err")"; return; }
	expect_eq "c++" "ns::Db::query cxx_names.cc:41 | main cxx_names.cc:125" \
		"$(records "$TMP/rec" | head -1 | stack_line 2)"
	run_ptap record -q --call-graph dwarf --format json -o "$TMP/rec" -e 'main.handle i' \
		-- "$S/go/app" 2 >/dev/null 2>"$TMP/err" || { fail "go: $(cat "$TMP/err")"; return; }
	expect_eq "go" "main.handle app.go:82 | main.serial app.go:185 | main.main.func2 app.go:132" \
		"$(records "$TMP/rec" | head -1 | stack_line 3)"
	run_ptap record -q --call-graph dwarf --format json -o "$TMP/rec" -e 'strs::lookup' \
		-- "$S/rust/strs" >/dev/null 2>"$TMP/err" || { fail "rust: $(cat "$TMP/err")"; return; }
	expect_eq "rust" "strs::lookup strs.rs:23 | strs::main strs.rs:84" \
		"$(records "$TMP/rec" | head -1 | stack_line 2)"
}

# stack_line N: the first N frames of the JSON record on stdin, "FUNC FILE:LINE | ..."
stack_line() {
	python3 -c '
import json, os, sys
r = json.loads(sys.stdin.readline())
print(" | ".join("%s %s:%d" % (f["func"], os.path.basename(f.get("file", "?")), f.get("line", 0))
                 for f in r["stack"][:int(sys.argv[1])]))' "$1"
}

# At a return probe's exit by a tail call (a jmp: the frame already gone, the return
# address at sp), the caller is the record's: its return address is the stack's second frame
test_stack_tail_call_exit() {
	local mode
	for mode in fp dwarf; do
		run_ptap record -q --call-graph $mode --format json -o "$TMP/rec" \
			-e 'tail_a%return $retval' -- "$S/retprobe" tail >/dev/null 2>"$TMP/err" ||
			{ fail "$mode: $(cat "$TMP/err")"; return; }
		expect_eq "$mode: callers" "3 ok" "$(records "$TMP/rec" | python3 -c '
import json, sys
n = ok = 0
for l in sys.stdin:
    r = json.loads(l)
    n += 1
    ok += r["stack"][1]["addr"] == r["ret_addr"] and r["stack"][0]["func"] == "tail_a"
print(n, "ok" if ok == n else "bad %d" % (n - ok))')"
	done
}

# The symbols are those of the file the process maps, not of what its path names to
# ptap: in a mount namespace of its own, stacks-O2 is mounted over a copy of stacks-O0
test_stack_file_the_process_maps() {
	[ "$(id -u)" = 0 ] || skip "unshare -m needs root"
	cp "$S/stacks-O0" "$TMP/prog"
	run_ptap record -q --call-graph dwarf --format json -o "$TMP/rec" -x "$S/stacks-O2" -e leaf \
		-- unshare -m sh -c "mount --bind '$S/stacks-O2' '$TMP/prog' && exec '$TMP/prog' '$S/libstacks.so'" \
		>"$TMP/out" 2>"$TMP/err" || { fail "$(cat "$TMP/err")"; return; }
	expect_grep '^stacks: 19 1 2$' "$TMP/out"
	expect_eq "stack" "leaf stacks.c:13 | helper stacks.c:18 | middle stacks.c:23" \
		"$(records "$TMP/rec" | head -1 | stack_line 3)"
}
