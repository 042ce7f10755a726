# Go and Rust programs (issue 17): return probes are refused on their
# functions, since swapping a return address for ptap's trampoline kills them
# (Go copies goroutine stacks by walking return addresses; a Rust panic
# unwinds by them); entry probes record as in C.  samples/go/app.go and
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

# lang_refused ERE ptap-args...: rp_refused (t_retprobe.sh: exit 2, a
# reason matching ERE, the command never ran, no records), and the reason
# says what a return probe does to the program.
lang_refused() {
	rp_refused "$@"
	expect_grep 'cannot probe the return of' "$TMP/err"
	expect_grep 'probe its entry' "$TMP/err"
}

# "it is Go" / "it is Rust", then without DWARF how that was told, then why
GO_WHY='copying.*return address.*unknown caller pc'
RS_WHY='panic unwinding.*trampoline.*failed to initiate panic'

test_langs_go_return_refused() {
	lang_refused "it is Go, .*$GO_WHY" -e 'main?handle%return' -- "$GOAPP" 10000
	lang_refused "it is Go, .*$GO_WHY" -e 'main?handle%return $retval i' -- "$GOAPP" 10000
	lang_refused "it is Go, .*$GO_WHY" -e 'main?depth%return' -- "$GOAPP" 10000
	# without DWARF: told by the binary's Go runtime
	lang_refused "it is Go \(no DWARF: app-nodwarf holds the Go runtime\), .*$GO_WHY" \
		-e 'main?handle%return' -- "$GOAPP-nodwarf" 10000
}

test_langs_rust_return_refused() {
	local sym bin
	lang_refused "it is Rust, .*$RS_WHY" -e 'middle%return' -- "$RSUNW"
	lang_refused "it is Rust, .*$RS_WHY" -e 'checked%return $retval i' -- "$RSUNW"
	sym=$(lang_sym "$RSUNW" 6unwind6middle)
	lang_refused "it is Rust, .*$RS_WHY" -e "$sym%return" -- "$RSUNW"
	# without DWARF (not "C++" for a legacy-mangled _ZN name)
	sym=$(lang_sym "$RSUNW-nodwarf" 6unwind6middle)
	lang_refused "it is Rust \(no DWARF: unwind-nodwarf holds the Rust runtime\), .*$RS_WHY" \
		-e "$sym%return" -- "$RSUNW-nodwarf"
	! grep -q 'C++' "$TMP/err" || fail "called C++: $(cat "$TMP/err")"
	sym=$(lang_sym "$RSUNW-nodwarf" 6unwind7checked)
	lang_refused "it is Rust \(no DWARF: unwind-nodwarf holds the Rust runtime\), .*$RS_WHY" \
		-e "$sym%return" -- "$RSUNW-nodwarf"
	# neither DWARF nor runtime markers: the mangled names, legacy and v0
	for bin in "$RSUNW-nomark" "$RSUNW-v0-nomark"; do
		sym=$(lang_sym "$bin" 6unwind6middle)
		lang_refused "it is Rust \(no DWARF: by its mangled name\), .*$RS_WHY" \
			-e "$sym%return" -- "$bin"
	done
}

# lang_entry WANT-FILE OUT-LINE ptap-args... -- COMMAND...: ptap records the
# entry probes into $TMP/rec, exit 0; the records (normalized) equal
# WANT-FILE; the command printed OUT-LINE, as it does untraced.
lang_entry() {
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
	lang_entry "$TMP/want" "$line" -e 'main?handle i' -- "$GOAPP" $n
	# without DWARF: Go's ABIInternal passes the first integer in %ax
	lang_entry "$TMP/want" "$line" -e 'main?handle i=%ax:s64' -- "$GOAPP-nodwarf" $n
	n=300
	sum=$((n * (n - 1) / 2))
	line="app: $n calls, args sum $sum, results sum $((3 * sum))"
	seq 0 $((n - 1)) | sed 's/^/main_request: i=/' >"$TMP/want"
	lang_entry "$TMP/want" "$line" -e 'main?request i' -- "$GOAPP" $n spawn
	lang_entry "$TMP/want" "$line" -e 'main?request i=%ax:s64' -- "$GOAPP-nodwarf" $n spawn
}

# Entry probes on the Rust functions a panic unwinds through: every call,
# the ones that panic included.
test_langs_rust_entry() {
	local line='unwind: 6 calls, args sum 15, caught 2, returned 20' m c
	printf 'middle: i=%d\nchecked: i=%d\n' 0 0 1 1 2 2 3 3 4 4 5 5 >"$TMP/want"
	lang_entry "$TMP/want" "$line" -e 'middle i' -e 'checked i' -- "$RSUNW" 6
	m=$(lang_sym "$RSUNW-nodwarf" 6unwind6middle)
	c=$(lang_sym "$RSUNW-nodwarf" 6unwind7checked)
	lang_entry "$TMP/want" "$line" -e "middle=$m i=%di:u64" -e "checked=$c i=%di:u64" \
		-- "$RSUNW-nodwarf" 6
}

# Attached: the refusal comes before the attach, so the program is never
# traced and runs on untouched (its maps as before), then prints its result.
test_langs_attach_refused() {
	local bin probe line pid rc sym maps
	for bin in "$GOAPP" "$GOAPP-nodwarf" "$RSUNW" "$RSUNW-nodwarf"; do
		case $bin in
		*/go/*)
			probe='main?handle%return'
			line='app: 2500 calls, args sum 3123750, results sum 9375250'
			;;
		*)
			sym=$(lang_sym "$bin" 6unwind6middle)
			probe="$sym%return"
			line='unwind: 6 calls, args sum 15, caught 2, returned 20'
			;;
		esac
		rm -f "$TMP/langs.fifo" "$TMP/out" "$TMP/rec"
		mkfifo "$TMP/langs.fifo"
		"$bin" "$([[ $bin == */go/* ]] && echo 2500 || echo 6)" wait <"$TMP/langs.fifo" \
			>"$TMP/out" 2>&1 &
		pid=$!
		exec 7>"$TMP/langs.fifo"	# the program's open of its stdin returns
		wait_for grep -q ': ready$' "$TMP/out"
		maps=$(cat "/proc/$pid/maps")
		rc=0
		timeout 20 "$PTAP" record -o "$TMP/rec" -e "$probe" -p "$pid" 2>"$TMP/err" || rc=$?
		expect_eq "$bin: ptap exit status" 2 "$rc"
		expect_grep 'cannot probe the return of' "$TMP/err"
		[ ! -s "$TMP/rec" ] || fail "$bin: records from a refused run"
		expect_eq "$bin: tracer" 0 "$(proc_field "$pid" TracerPid)"
		untraced "$pid"
		expect_eq "$bin: maps after the refusal" "$maps" "$(cat "/proc/$pid/maps")"
		echo go >&7
		exec 7>&-
		rc=0
		wait "$pid" || rc=$?
		expect_eq "$bin: exit status" 0 "$rc"
		expect_eq "$bin: output" "$(printf '%s\n%s' "${line%%:*}: ready" "$line")" \
			"$(cat "$TMP/out")"
	done
	rm -f "$TMP/langs.fifo"	# the directory is every test's
}
