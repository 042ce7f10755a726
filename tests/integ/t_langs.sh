# Go and Rust programs (issues 17, 19): return probes at the functions' exits
# leave the stack alone, which Go walks to copy a goroutine's stack and a
# Rust panic to unwind; entry probes record as in C.  samples/go/app.go and
# samples/rust/unwind.rs say what they print; each is built with DWARF and
# without (-nodwarf: the symbol table kept, so the functions can be named).

GOAPP=$S/go/app
RSUNW=$S/rust/unwind

# lang_sym BINARY PATH: the one symbol of BINARY whose name holds PATH as
# rustc mangles it ("6unwind6middle": the legacy and v0 names add hashes).
lang_sym() {
	local s
	s=$(nm "$1" | awk -v t="$2" 'index($3, t) { print $3 }')
	[ "$(printf '%s\n' "$s" | grep -c .)" = 1 ] || fail "$1: not one symbol with $2: '$s'"
	printf '%s\n' "$s"
}

# lang_returns ptap-args... -- COMMAND...: ptap records into $TMP/rec while
# COMMAND states on fd 3 the returns it makes; exit status, stdout and stderr
# (a thread's number aside) as untraced; the records, normalized and sorted
# (goroutines interleave), equal the statements.  LANG_RC: the exit status.
lang_returns() {
	local rc=0 urc=0 cmd=("$@")
	while [ "${cmd[0]}" != -- ]; do cmd=("${cmd[@]:1}"); done
	cmd=("${cmd[@]:1}")
	"${cmd[@]}" >"$TMP/uout" 2>"$TMP/uerr" 3>/dev/null || urc=$?
	run_ptap record -o "$TMP/rec" "$@" 3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || rc=$?
	LANG_RC=$rc
	expect_eq "exit status (as untraced)" "$urc" "$rc"
	expect_diff "$TMP/uout" "$TMP/out"
	sed 's/([0-9]*)//' "$TMP/uerr" >"$TMP/uerr.n"
	grep -v '^ptap: ' "$TMP/err" | sed 's/([0-9]*)//' >"$TMP/err.n" || true
	expect_diff "$TMP/uerr.n" "$TMP/err.n"
	normalize "$TMP/rec" | sort >"$TMP/got"
	sort "$TMP/stated" >"$TMP/want"
	[ -s "$TMP/want" ] || fail "nothing stated on fd 3"
	expect_diff "$TMP/want" "$TMP/got"
}

# Return probes on Go functions whose goroutine stacks grow inside the call
# (depth recursing 2000 deep under handle), at the call's entry (request, in
# a new goroutine each time), in 8 goroutines at once that move between
# threads, and on a function with several returns: every return recorded with
# its $retval and entry argument, the program's own results as untraced.
test_langs_go_returns() {
	local probes=(-e 'main?handle%return $retval i' -e 'main?depth%return $retval n')
	lang_returns "${probes[@]}" -- "$GOAPP" 5000
	expect_eq "records" 15005 "$(wc -l <"$TMP/got")"
	lang_returns "${probes[@]}" -e 'main?request%return $retval i' -- "$GOAPP" 2000 spawn
	lang_returns "${probes[@]}" -e 'main?classify%return $retval i' -- "$GOAPP" 5000 par
	expect_grep '^main_classify__return: retval=70 i=4998$' "$TMP/got"
	# without DWARF: the records, one per return ($retval needs DWARF's types)
	run_ptap record -o "$TMP/rec" -e 'main?handle%return i=%ax:s64' \
		-e 'main?depth%return' -- "$GOAPP-nodwarf" 5000 par >"$TMP/out" 2>"$TMP/err"
	expect_eq "output" "$("$GOAPP" 5000 par)" "$(cat "$TMP/out")"
	expect_eq "handle returns" 5000 "$(grep -c ' main_handle__return: ' "$TMP/rec")"
	expect_eq "depth returns" 10005 "$(grep -c ' main_depth__return: ' "$TMP/rec")"
	expect_eq "handle's i (at the entry)" "$(seq 0 4999 | sort)" \
		"$(sed -n 's/.* main_handle__return: .* i=//p' "$TMP/rec" | sort)"
}

# Return probes on the Rust functions a panic unwinds through: caught
# (catch_unwind in main) and not (the default hook's message, with its
# backtrace through them, and exit status 101, as untraced).
test_langs_rust_returns() {
	local sym bin
	lang_returns -e 'middle%return $retval i' -e 'checked%return $retval i' -- "$RSUNW" 30
	expect_eq "records (10 panics)" 40 "$(wc -l <"$TMP/got")"
	lang_returns -e 'middle%return $retval i' -e 'checked%return $retval i' \
		-- "$RSUNW" 6 panic
	expect_eq "exit status" 101 "$LANG_RC"
	expect_grep 'unwind::middle' "$TMP/err"
	# without DWARF, by the mangled names: one record per return
	for bin in "$RSUNW-nodwarf" "$RSUNW-nomark" "$RSUNW-v0-nomark"; do
		sym=$(lang_sym "$bin" 6unwind6middle)
		run_ptap record -o "$TMP/rec" -e "m=$sym%return r=%ax:u64" -- "$bin" 30 \
			>"$TMP/out" 2>"$TMP/err" 3>/dev/null
		expect_eq "$bin: output" "$("$RSUNW" 30 3>/dev/null)" "$(cat "$TMP/out")"
		expect_eq "$bin: middle returns" 20 "$(grep -c ' m: ' "$TMP/rec")"
	done
}

# Entry probes on the same Go functions record each call's argument once: i =
# 0 .. N-1, whose sum app prints.  Go re-runs a function's entry after growing
# the goroutine's stack there (request: every call, in a new goroutine) or
# preempting it (handle, now and then).
test_langs_go_entry() {
	local n=2500 line sum
	sum=$((n * (n - 1) / 2))
	# handle(i) = 3i, + 2000 for i = 999 and 1999
	line="app: $n calls, args sum $sum, results sum $((3 * sum + 4000))"
	seq 0 $((n - 1)) | sed 's/^/main_handle: i=/' >"$TMP/want"
	record_entries "$TMP/want" "$line" -e 'main?handle i' -- "$GOAPP" $n
	# without DWARF: Go's ABIInternal passes the first integer in %ax
	record_entries "$TMP/want" "$line" -e 'main?handle i=%ax:s64' -- "$GOAPP-nodwarf" $n
	n=300
	sum=$((n * (n - 1) / 2))
	line="app: $n calls, args sum $sum, results sum $((3 * sum))"
	seq 0 $((n - 1)) | sed 's/^/main_request: i=/' >"$TMP/want"
	record_entries "$TMP/want" "$line" -e 'main?request i' -- "$GOAPP" $n spawn
	record_entries "$TMP/want" "$line" -e 'main?request i=%ax:s64' -- "$GOAPP-nodwarf" $n spawn
}

# Entry probes on the Rust functions a panic unwinds through: every call,
# the ones that panic included.
test_langs_rust_entry() {
	local line='unwind: 6 calls, args sum 15, caught 2, returned 20' m c
	printf 'middle: i=%d\nchecked: i=%d\n' 0 0 1 1 2 2 3 3 4 4 5 5 >"$TMP/want"
	record_entries "$TMP/want" "$line" -e 'middle i' -e 'checked i' -- "$RSUNW" 6
	m=$(lang_sym "$RSUNW-nodwarf" 6unwind6middle)
	c=$(lang_sym "$RSUNW-nodwarf" 6unwind7checked)
	record_entries "$TMP/want" "$line" -e "middle=$m i=%di:u64" -e "checked=$c i=%di:u64" \
		-- "$RSUNW-nodwarf" 6
}

# Attached to a Go and a Rust program already running: their return probes
# record every return after the attach, right, and the programs end as
# untraced.
test_langs_attach_returns() {
	local bin probe line pid rc n
	for bin in "$GOAPP" "$RSUNW"; do
		case $bin in
		*/go/*)
			probe='main?handle%return $retval i'
			line='app: 2500 calls, args sum 3123750, results sum 9375250'
			n=2500
			;;
		*)
			probe='middle%return $retval i'
			line='unwind: 6 calls, args sum 15, caught 2, returned 20'
			n=6
			;;
		esac
		rm -f "$TMP/langs.fifo" "$TMP/out" "$TMP/rec"
		mkfifo "$TMP/langs.fifo"
		"$bin" $n wait <"$TMP/langs.fifo" >"$TMP/out" 2>&1 3>"$TMP/stated" &
		pid=$!
		exec 7>"$TMP/langs.fifo"	# the program's open of its stdin returns
		wait_for grep -q ': ready$' "$TMP/out"
		timeout 60 "$PTAP" record -v -o "$TMP/rec" -e "$probe" -p "$pid" 2>"$TMP/err" &
		wait_for grep -q "attached to pid $pid " "$TMP/err"	# said once planted
		echo go >&7
		exec 7>&-
		rc=0
		wait "$pid" || rc=$?
		expect_eq "$bin: exit status" 0 "$rc"
		wait
		expect_eq "$bin: output" "$(printf '%s\n%s' "${line%%:*}: ready" "$line")" \
			"$(cat "$TMP/out")"
		normalize "$TMP/rec" | grep -v '^checked' | sort >"$TMP/got"
		grep -v '^checked\|^main_depth' "$TMP/stated" | sort >"$TMP/want"
		expect_diff "$TMP/want" "$TMP/got"
	done
	rm -f "$TMP/langs.fifo"	# the directory is every test's
}

# 8 goroutines x 10,000 calls (app's par mode: goroutine k calls handle(i)
# for i = k mod 8): every call recorded exactly once, each goroutine's
# 10,000 under one goid, 8 goids in all.
test_langs_go_goroutines_exact() {
	local line
	line=$("$GOAPP" 80000 par 3>/dev/null)
	run_ptap record -o "$TMP/rec" -e 'main.handle i' -- "$GOAPP" 80000 par >"$TMP/out" \
		2>"$TMP/err" 3>/dev/null || fail "ptap failed: $(cat "$TMP/err")"
	expect_eq "output" "$line" "$(cat "$TMP/out")"
	expect_eq "records" 80000 "$(grep -c ' main_handle: ' "$TMP/rec")"
	expect_eq "calls each once" "$(seq 0 79999)" \
		"$(sed -n 's/.* main_handle: .* i=\([0-9]*\) goid=.*/\1/p' "$TMP/rec" | sort -n)"
	# goroutine k's calls (i mod 8 = k) all under one goid: 8 goids of 10,000 each
	expect_eq "records per goid" "$(printf '10000\n%.0s' 1 2 3 4 5 6 7 8)" \
		"$(sed -n 's/.* goid=//p' "$TMP/rec" | sort | uniq -c | awk '{ print $1 }')"
	expect_eq "goid, i mod 8 pairs" 8 \
		"$(sed -n 's/.* i=\([0-9]*\) goid=\([0-9]*\)$/\2 \1/p' "$TMP/rec" |
			awk '{ print $1, $2 % 8 }' | sort -u | wc -l)"
}
