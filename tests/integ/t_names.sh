# C++, Rust and Go functions named as their sources name them (issue 21):
# `ptap list` shows C++ and Rust names demangled (an overloaded one with its
# parameters) with FILE:LINE, Go's with its line; probes take those names,
# an overload by its parameters, and globs over them; the events are
# identifiers.  samples/cxx_names.cc states on fd 3 what it is called with.

CXXN=$S/cxx_names

# The names C++ writes, listed with their lines: the overloads with their
# parameters (std::string as written), a template's two instances, a lambda.
test_names_cxx_list() {
	local src=samples/cxx_names.cc bin
	for bin in "$CXXN" "$CXXN-O2"; do
		run_ptap list -x "$bin" 'ns::*' >"$TMP/list" 2>&1 || fail "ptap list failed"
		expect_grep "^ns::Db::query(int)	.*$src:[0-9]" "$TMP/list"
		expect_grep "^ns::Db::query(std::string const&, int)	.*$src:[0-9]" "$TMP/list"
		expect_grep "^ns::twice<int>	.*$src:[0-9]" "$TMP/list"
		expect_grep "^ns::Db::~Db	.*$src:[0-9]" "$TMP/list"
		if grep -q '_ZN\|^query' "$TMP/list"; then
			fail "a mangled or bare name in the list of 'ns::*'"
		fi
	done
	run_ptap list -x "$CXXN" '*lambda*' >"$TMP/list" 2>&1 || fail "ptap list failed"
	expect_grep "^main::{lambda(int)#1}::operator()	.*$src:[0-9]" "$TMP/list"
}

# Probes by those names: an overload picked by its parameters, a template
# instance, a lambda (its DWARF found inside its class: x is typed), a glob;
# the values are those the sample states, the events identifiers.
test_names_cxx_record() {
	local line='cxx_names: 3 rounds, sum 84' i
	: >"$TMP/want"
	for i in 0 1 2; do
		printf 'ns_Db_query_int: id=%d\nns_twice_int: x=%d\nmain_lambda_int_1_operator_call: x=%d\n' \
			"$i" "$i" "$i" >>"$TMP/want"
	done
	record_entries "$TMP/want" "$line" -e 'ns::Db::query(int) id' -e 'ns::twice<int> x' \
		-e 'main::{lambda(int)#1}::operator() x' -- "$CXXN" 3
	# the sample's own statements of the calls, through fd 3
	run_ptap record -o "$TMP/rec" -e 'ns::Db::query(int) id' -e 'ns::twice<int> x' \
		-- "$CXXN" 3 3>"$TMP/stated" >/dev/null 2>"$TMP/err" || fail "ptap failed"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
	# both overloads by the name without parameters, and a glob: one record a call each
	run_ptap record -o "$TMP/rec" -e 'ns::Db::query' -e 'twice=ns::twice*' -- "$CXXN" 3 \
		>/dev/null 2>"$TMP/err" || fail "ptap failed"
	expect_eq "ns::Db::query calls" 6 "$(grep -c ' ns_Db_query: ' "$TMP/rec")"
	expect_eq "ns::twice* calls" 6 "$(grep -c ' twice: ' "$TMP/rec")"
	# a template's instances by its bare name, as gdb takes it
	run_ptap record -o "$TMP/rec" -e 'twice x' -- "$CXXN" 2 >/dev/null 2>"$TMP/err" ||
		fail "ptap failed on a bare template name: $(cat "$TMP/err")"
	printf 'twice: x=%s\n' 0 0.5 1 1.5 >"$TMP/want"
	normalize "$TMP/rec" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	# FUNC@SRC: the functions declared there
	run_ptap record -o "$TMP/rec" -e 'ns::Db::query(int)@cxx_names.cc id' -- "$CXXN" 3 \
		>/dev/null 2>"$TMP/err" || fail "ptap failed on FUNC@SRC"
	expect_eq "ns::Db::query(int)@cxx_names.cc calls" 3 "$(grep -c ' ns_Db_query_int: .* id=' "$TMP/rec")"
	local rc=0
	run_ptap record -e 'ns::Db::query@other.cc' -- "$CXXN" >/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "exit status, FUNC@SRC elsewhere" 2 "$rc"
	expect_grep "no function 'ns::Db::query' declared in other.cc" "$TMP/err"
}

# A misspelt C++ name: exit 2, the nearest demangled name offered.
test_names_cxx_unknown() {
	local rc=0
	run_ptap record -e 'ns::Db::qery' -- "$CXXN" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "no function 'ns::Db::qery' in .*; nearest: ns::Db::query" "$TMP/err"
}

# A bare name that names functions of different qualified names (Rust's fmt,
# in every type that has one): refused, exit 2, naming them (the program's
# own first) and how to pick one; the same name in overloads is one function.
test_names_bare_ambiguous() {
	local rc=0
	run_ptap record -e 'fmt' -- "$S/rust/strs" 1 >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "'fmt' names [0-9]* different functions: .*<strs::Account as core::fmt::Display>::fmt" \
		"$TMP/err"
	expect_grep "FUNC@FILE, or a glob ('\*::fmt') for all" "$TMP/err"
	# ns::Db::query's two overloads: one name, both probed
	run_ptap record -o "$TMP/rec" -e 'query' -- "$CXXN" 2 >/dev/null 2>"$TMP/err" ||
		fail "ptap failed on a bare overloaded name: $(cat "$TMP/err")"
	expect_eq "records" 4 "$(normalize "$TMP/rec" | grep -c '^query:')"
}

# Rust's names (legacy and v0 mangling), demangled in the list and taken by probes.
test_names_rust() {
	local line='unwind: 6 calls, args sum 15, caught 2, returned 20' bin
	printf 'unwind_middle: i=%d\n' 0 1 2 3 4 5 >"$TMP/want"
	for bin in "$S/rust/unwind" "$S/rust/unwind-v0"; do
		run_ptap list -x "$bin" 'unwind::*' >"$TMP/list" 2>&1 || fail "ptap list failed"
		expect_grep '^unwind::middle	.*unwind.rs:[0-9]' "$TMP/list"
		expect_grep '^unwind::checked	.*unwind.rs:[0-9]' "$TMP/list"
		record_entries "$TMP/want" "$line" -e 'unwind::middle i' -- "$bin" 6
	done
}

# Go's names need no demangling: main.handle and main.(*T).M are probe
# points (not SRC:LINE), with FILE:LINE in the list.
test_names_go() {
	local n=20 line
	line="app: $n calls, args sum $((n * (n - 1) / 2)), results sum $((3 * n * (n - 1) / 2))"
	run_ptap list -x "$S/go/app" 'main.*' >"$TMP/list" 2>&1 || fail "ptap list failed"
	expect_grep '^main.handle	.*app.go:[0-9]' "$TMP/list"
	seq 0 $((n - 1)) | sed 's/^/main_handle: i=/' >"$TMP/want"
	record_entries "$TMP/want" "$line" -e 'main.handle i' -- "$S/go/app" "$n"
}

# Strings by their type, bounded by their length (never by a NUL search):
# libstdc++'s std::string behind a reference (followed as gdb does, its
# members reachable), std::string by value, std::string_view (in registers
# at -O2); a std::vector<int> as its elements; in the process and at a
# stop, text and JSON.
test_names_strings_cxx() {
	local bin mode i
	: >"$TMP/want"
	for i in 0 1 2; do
		printf 'ns_Db_query_std_string_const_int: sql="select" sql._M_string_length=6 n=%d\n' \
			"$i" >>"$TMP/want"
		printf 'ns_Db_note: key="sel" full="select-%d"\n' "$i" >>"$TMP/want"
		printf 'ns_Db_sum: v={[0]=%d, [1]=7}\n' "$i" >>"$TMP/want"
	done
	for bin in "$CXXN" "$CXXN-O2"; do
		for mode in "" --no-agent; do
			record_entries "$TMP/want" 'cxx_names: 3 rounds, sum 84' $mode \
				-e 'ns::Db::query(std::string const&, int) sql sql._M_string_length n' \
				-e 'ns::Db::note key full' -e 'ns::Db::sum v' -- "$bin" 3
		done
	done
	run_ptap record --format json --string-max 4 -o "$TMP/rec" -e 'ns::Db::note key full' \
		-e 'ns::Db::query(std::string const&, int) sql:string' -e 'ns::Db::sum v' -- "$CXXN" 1 \
		>/dev/null 2>"$TMP/err" || fail "ptap failed"
	expect_grep '"args":{"key":"sel","full":{"value":"sele","truncated":true,"length":8}}' \
		"$TMP/rec"
	expect_grep '"args":{"sql":{"value":"sele","truncated":true,"length":6}}' "$TMP/rec"
	expect_grep '"event":"ns_Db_sum",.*"args":{"v":\[0,7\]}' "$TMP/rec"
	# operators: their event names spelt as words, apart
	run_ptap record -o "$TMP/rec" -e 'ns::operator+ a' -e 'ns::operator- b' -- "$CXXN" 2 \
		>/dev/null 2>"$TMP/err" || fail "ptap failed on operators"
	normalize "$TMP/rec" >"$TMP/got"
	printf 'ns_operator_plus: a={x=%d}\nns_operator_minus: b={x=1}\n' 0 1 >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	# a derived class's member hides its base's of the name; the base's others are its too
	record_entries <(printf 'ns_pick: d.x=2 d.y=5\n') 'cxx_names: 1 rounds, sum 20' \
		-e 'ns::pick d.x d.y' -- "$CXXN-O2" 1
	# operators with their parameters: the words, then the parameters
	run_ptap record -o "$TMP/rec" -e 'ns::operator+(ns::V, ns::V) a' -- "$CXXN" 1 \
		>/dev/null 2>"$TMP/err" || fail "ptap failed: $(cat "$TMP/err")"
	expect_eq "operator event" "ns_operator_plus_ns_V_ns_V: a={x=0}" "$(normalize "$TMP/rec")"
	# a const method apart from its plain overload, by its qualifier
	run_ptap record -o "$TMP/rec" -e 'ns::Db::id() const' -e 'ns::Db::id()%return $retval' \
		-- "$CXXN" 2 >/dev/null 2>"$TMP/err" || fail "ptap failed on const: $(cat "$TMP/err")"
	expect_eq "id() const calls" 2 "$(normalize "$TMP/rec" | grep -c '^ns_Db_id_const:$')"
	expect_eq "id() returns" 2 "$(normalize "$TMP/rec" | grep -c '^ns_Db_id__return: retval=2$')"
	# a reference is what it refers to: '*' on it is refused as gdb refuses it
	local rc=0
	run_ptap record -e 'ns::Db::query(std::string const&, int) *sql' -- "$CXXN" 1 \
		>/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "exit status, '*' on a reference" 2 "$rc"
	expect_grep "'\*' needs a pointer, but it is const string" "$TMP/err"
}

# Rust's &str (two registers; its bytes run on past its length), String
# and Box<str>, a &[i64] and a Vec<i64>, as the sample states them on fd 3;
# a method and a trait's method by their Rust names; a closure with no
# symbol (inlined) by its qualified name, from DWARF.
test_names_strings_rust() {
	local mode
	for mode in "" --no-agent; do
		run_ptap record $mode -o "$TMP/rec" -e 'strs::lookup key n' -e 'strs::store owned' \
			-e 'strs::boxed b' -e 'strs::total v' -e 'strs::vtotal *v' \
			-e 'strs::main::{{closure}} x' -e 'strs::Account::deposit amount' \
			-e '<strs::Account as core::fmt::Display>::fmt *self' -- "$S/rust/strs" 3 \
			3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || fail "ptap failed"
		expect_eq "traced output" "strs: 3 rounds, sum 1542" "$(cat "$TMP/out")"
		expect_eq "records" 24 "$(grep -c '^strs_' "$TMP/stated")"
		normalize "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/stated" "$TMP/got"
	done
}

# Go's string (two registers, a slice of a longer string) and a []int, a
# method by Go's name for it (main.(*Server).Serve), two results by Go's
# names for them (~r0, a string in two registers, and ~r1), and the
# goroutine each call ran in (goid), as the sample states them.
test_names_strings_go() {
	local mode
	for mode in "" --no-agent; do
		run_ptap record $mode -o "$TMP/rec" -e 'main.query q n' -e 'main.total xs' \
			-e 'main.(*Server).Serve q' -e 'main.cut%return ~r0 ~r1' -- "$S/go/strs" 3 \
			3>"$TMP/stated" >"$TMP/out" 2>"$TMP/err" || fail "ptap failed"
		expect_eq "traced output" "strs: 3 rounds, sum 402" "$(cat "$TMP/out")"
		expect_eq "two results" 3 \
			"$(grep -c '^main_cut__return: ~r0="query" ~r1=70 goid=' "$TMP/stated")"
		expect_eq "methods" 3 "$(grep -c '^main_Server_Serve: q="query-[0-2]" goid=' "$TMP/stated")"
		expect_eq "records" 3 \
			"$(grep -c '^main_query: q="query-[0-2]" n=[0-2] goid=[1-9]' "$TMP/stated")"
		expect_eq "slices" 3 "$(grep -c '^main_total: xs={.* goid=[1-9]' "$TMP/stated")"
		# the goroutine ids too: normalize leaves them out
		sed -E '/^# ptap /d; s/^.* [0-9]+\/[0-9]+ [0-9]+\.[0-9]{9}: //
			s/ \(0x[0-9a-f]+( <- 0x[0-9a-f]+)?\)//; s/ duration=[0-9]+ns//' "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/stated" "$TMP/got"
	done
}

# gdb_values BINARY BREAKPOINT ARGS EXPR...: gdb's values of EXPR... at the
# first stop at BREAKPOINT (BINARY run with ARGS), one per line, each the
# text after "$N = " (a C++ or Go string: its quoted text, gdb's printers).
gdb_values() {
	local bin=$1 bp=$2 args=$3 e cmds=()
	shift 3
	for e in "$@"; do cmds+=(-ex "p $e"); done
	gdb -nx -batch -ex "set debuginfod enabled off" -ex "set print address off" \
		-ex "break $bp" -ex "run $args >/dev/null 3>/dev/null" "${cmds[@]}" "$bin" 2>&1 |
		sed -n 's/^\$[0-9]* = //p'
}

# gdb's values at the same probes equal the records' (C++ at -O2: a
# string_view and a string in registers, a member through a reference; Rust:
# a &str, a String's length, a struct through &self; Go: a string, an int).
test_names_gdb_agrees() {
	need_cmd gdb gdb
	expect_eq "C++ string_view, string" "$(printf '"sel"\n"select-0"')" \
		"$(gdb_values "$CXXN-O2" ns::Db::note 1 key full)"
	run_ptap record -o "$TMP/rec" -e 'ns::Db::note key full' -- "$CXXN-O2" 1 >/dev/null 2>&1 ||
		fail "ptap failed"
	expect_eq "ptap, C++" 'ns_Db_note: key="sel" full="select-0"' "$(normalize "$TMP/rec")"
	expect_eq "C++ reference's member" 6 \
		"$(gdb_values "$CXXN" 'ns::Db::query(std::string const&, int)' 1 sql._M_string_length)"
	expect_eq "Rust &str, String, &self" "$(printf '"key-0"\n7\nstrs::Account {id: 7, balance: 100}')" \
		"$( { gdb_values "$S/rust/strs" strs::lookup 1 key
		      gdb_values "$S/rust/strs" strs::store 1 owned.vec.len
		      gdb_values "$S/rust/strs" 'strs::Account::deposit' 1 '*self'; } )"
	run_ptap record -o "$TMP/rec" -e 'strs::lookup key' -e 'strs::store owned' \
		-e 'strs::Account::deposit *self' -- "$S/rust/strs" 1 >/dev/null 2>&1 3>/dev/null ||
		fail "ptap failed"
	expect_eq "ptap, Rust" "$(printf '%s\n' 'strs_lookup: key="key-0"' \
		'strs_store: owned="owned-0"' 'strs_Account_deposit: *self={id=7, balance=100}')" \
		"$(normalize "$TMP/rec")"
	expect_eq "Go string, int" "$(printf '"query-0"\n0')" \
		"$(gdb_values "$S/go/strs" main.query 1 q n | sed 's/^0x[0-9a-f]* //')"
	run_ptap record -o "$TMP/rec" -e 'main.query q n' -- "$S/go/strs" 1 >/dev/null 2>&1 \
		3>/dev/null || fail "ptap failed"
	expect_eq "ptap, Go" 'main_query: q="query-0" n=0' "$(normalize "$TMP/rec")"
}
