# Syscall records (issue 6): `ptap record --syscalls LIST`, with the values
# an -e probe captured as their context (`--context EVENT[:ARG,...]`), and
# the clock line.  query_server (QS_EXPECT=syscalls) and sysio (nest) state
# on fd 3 what ptap records; tests/integ/syscalls_check.py checks the JSON.

SC_CHECK=tests/integ/syscalls_check.py
SC_LIST=pread64,pwrite64,fsync,openat
SYSIO=$S/sysio

# sc_from FIRST FILE: FILE from its first line equal to FIRST on: what
# query_server states begins at main()'s first openat; the dynamic loader's
# calls before it are not stated.
sc_from() {
	FIRST=$1 awk 'f || $0 == ENVIRON["FIRST"] { f = 1; print }' "$2"
}

# sc_before FIRST FILE: the lines of FILE before that one.
sc_before() {
	FIRST=$1 awk '$0 == ENVIRON["FIRST"] { exit } { print }' "$2"
}

# sc_issue BINARY RESULTS [PTAP-OPTIONS...]: the issue's command on BINARY
# (RESULTS empty: the default, /dev/null) into $TMP/rec, QS_EXPECT=syscalls:
# the statement in $TMP/stated, the totals in $TMP/totals, stdout in $TMP/stdout.
sc_issue() {
	local bin=$1 res=$2
	shift 2
	QS_EXPECT=syscalls run_ptap record -o "$TMP/rec" -e 'exec_query query_string:string' \
		--context exec_query --syscalls "$SC_LIST" "$@" -- "$bin" samples/queries.txt \
		${res:+"$res"} 3>"$TMP/stated" 4>"$TMP/totals" >"$TMP/stdout"
}

# sc_refused PATTERN... -- PTAP-ARGS...: exit 2, each PATTERN on stderr,
# nothing on stdout, and the command (which would create $TMP/ran) not run.
sc_refused() {
	local rc=0 pats=()
	while [ "$1" != -- ]; do
		pats+=("$1")
		shift
	done
	shift
	rm -f "$TMP/ran"
	run_ptap "$@" -- sh -c "touch $TMP/ran" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status of '$*'" 2 "$rc"
	for p in "${pats[@]}"; do
		expect_grep "$p" "$TMP/err"
	done
	[ ! -s "$TMP/out" ] || fail "output from a refused run: $(cat "$TMP/out")"
	[ ! -e "$TMP/ran" ] || fail "the command ran"
}

# ---- the issue's command: text, exactly what query_server states ----------

# sc_issue_check BINARY RESULTS: what the issue's command records on BINARY
# is what it states, from main() on; before main(), the loader's calls.
sc_issue_check() {
	local what="$1 ${2:-(default results)}"
	sc_issue "$1" "$2"
	expect_eq "first line, $what" "# ptap clock=monotonic" "$(head -1 "$TMP/rec")"
	normalize "$TMP/rec" >"$TMP/all"
	sc_from "$(head -1 "$TMP/stated")" "$TMP/all" >"$TMP/got"
	expect_diff "$TMP/stated" "$TMP/got"
	expect_eq "queries, $what" 7 "$(grep -c '^exec_query: ' "$TMP/got")"
	expect_eq "fsyncs, $what" 3 "$(grep -c '^fsync: ' "$TMP/got")"
	expect_eq "pread64s, $what" 3 "$(grep -c '^pread64: ' "$TMP/got")"
	# before main(): the loader's openat and pread64 (of libc), no context
	sc_before "$(head -1 "$TMP/stated")" "$TMP/all" >"$TMP/pre"
	expect_grep '^openat: dirfd=AT_FDCWD pathname=".*/libc\.so\.6" ' "$TMP/pre"
	! grep -v '^\(openat\|pread64\): ' "$TMP/pre" || fail "other records before main()"
	! grep '{' "$TMP/pre" || fail "a context before main()"
	expect_grep '^query_server: 7 queries, 38 rows$' "$TMP/stdout"
}

# Every query's pwrite64, a SELECT's pread64, an INSERT/UPDATE/DELETE's
# fsync, with the query as context; main()'s openat of its two files with
# none.  A real results file, and the default /dev/null (pread64 returns 0,
# fsync -EINVAL); the -O2 and -O0 builds.
test_syscalls_issue_command() {
	local bin
	for bin in "$S/query_server" "$S/query_server-O0"; do
		sc_issue_check "$bin" "$TMP/results"
		sc_issue_check "$bin" ""
	done
	# the results file holds what an untraced run writes
	sc_issue "$S/query_server" "$TMP/results"
	"$S/query_server" samples/queries.txt "$TMP/plain" >/dev/null
	expect_diff "$TMP/plain" "$TMP/results"
}

# ---- JSON: kinds, results, fds, contexts, totals per query -----------------

test_syscalls_json() {
	local res
	for res in "$TMP/results" /dev/null; do
		sc_issue "$S/query_server" "$res" --format json
		python3 "$SC_CHECK" query "$TMP/rec" "$TMP/totals" samples/queries.txt "$res" ||
			fail "JSON records (results in $res)"
	done
	# the text form's first line: {"kind":"clock",...} only in JSON
	expect_eq "first line" '{"kind":"clock","clock":"monotonic"}' "$(head -1 "$TMP/rec")"
}

# ---- --context EVENT:ARG,...: only the ARGs named --------------------------

test_syscalls_context_args() {
	# query_string alone out of the probe's two: the context stated for the issue's command
	QS_EXPECT=syscalls run_ptap record -o "$TMP/rec" -e 'exec_query query_string:string len' \
		--context exec_query:query_string --syscalls "$SC_LIST" \
		-- "$S/query_server" samples/queries.txt "$TMP/results" 3>"$TMP/stated" >/dev/null
	normalize "$TMP/rec" >"$TMP/all"
	sc_from "$(head -1 "$TMP/stated")" "$TMP/all" | grep -v '^exec_query: ' >"$TMP/got"
	grep -v '^exec_query: ' "$TMP/stated" >"$TMP/want"
	expect_diff "$TMP/want" "$TMP/got"
	expect_eq "entries with both arguments" 7 \
		"$(grep -c '^exec_query: query_string=".*" len=[0-9]*$' "$TMP/all")"
	# len alone; then both, named in the other order
	for args in len len,query_string; do
		run_ptap record --format json -o "$TMP/rec" \
			-e 'exec_query query_string:string len' --context "exec_query:$args" \
			--syscalls "$SC_LIST" \
			-- "$S/query_server" samples/queries.txt "$TMP/results" >/dev/null
		python3 "$SC_CHECK" context "$TMP/rec" ${args//,/ } ||
			fail "--context exec_query:$args"
	done
}

# ---- --context EVENT where EVENT is named with EVENT= ----------------------

test_syscalls_context_named_event() {
	QS_EXPECT=syscalls run_ptap record -o "$TMP/rec" -e 'q=exec_query query_string:string' \
		--context q --syscalls "$SC_LIST" \
		-- "$S/query_server" samples/queries.txt "$TMP/results" 3>"$TMP/stated" >/dev/null
	sed -E 's/^exec_query: /q: /; s/ \{exec_query: / {q: /' "$TMP/stated" >"$TMP/want"
	normalize "$TMP/rec" >"$TMP/all"
	sc_from "$(head -1 "$TMP/want")" "$TMP/all" >"$TMP/got"
	expect_diff "$TMP/want" "$TMP/got"
	expect_eq "syscalls with {q: ...}" 13 "$(grep -c ' {q: query_string="' "$TMP/got")"
}

# ---- nesting: a recursive function's context, inner then outer again -------

# sysio nest D: nest(0..D) each pwrite64 a byte before and after the inner
# call; after the inner call returns, the outer call's depth again.
test_syscalls_context_nested() {
	local depth
	"$SYSIO" nest 40 "$TMP/plain" >/dev/null
	for depth in 3 40; do
		run_ptap record -o "$TMP/rec" -e 'nest depth' --context nest --syscalls pwrite64 \
			-- "$SYSIO" nest "$depth" "$TMP/nest" 3>"$TMP/stated" >"$TMP/out"
		normalize "$TMP/rec" >"$TMP/got"
		expect_diff "$TMP/stated" "$TMP/got"
		expect_eq "pwrite64 records (depth $depth)" $((2 * depth + 4)) \
			"$(grep -c '^pwrite64: ' "$TMP/got")"
		expect_grep "^sysio: nest $((depth + 1)) levels\$" "$TMP/out"
		[ "$depth" != 3 ] || expect_eq "the file" "[01233210]" "$(cat "$TMP/nest")"
	done
	expect_diff "$TMP/plain" "$TMP/nest"
}

# ---- classes and aliases -----------------------------------------------------

# %file without any probe: the loader's openat and newfstatat; close named too.
test_syscalls_class_file() {
	run_ptap record --format json -o "$TMP/rec" --syscalls %file,close -- /bin/true
	python3 "$SC_CHECK" files "$TMP/rec" || fail "%file,close records"
	run_ptap record -o "$TMP/rec" --syscalls %file -- /bin/true
	normalize "$TMP/rec" >"$TMP/got"
	expect_grep '^openat: dirfd=AT_FDCWD pathname="/etc/ld.so.cache" flags=O_RDONLY|O_CLOEXEC '\
'ret=[0-9]*</etc/ld.so.cache>$' "$TMP/got"
	expect_grep '^newfstatat: dirfd=[0-9]*</etc/ld.so.cache> pathname="" ' "$TMP/got"
	! grep -q '^close: ' "$TMP/got" || fail "close is not in %file"
}

# pread: strace's alias of pread64 (the records are pread64's); the 3 SELECTs.
test_syscalls_alias_pread() {
	run_ptap record -o "$TMP/rec" --syscalls pread -- "$S/query_server" samples/queries.txt \
		"$TMP/results" >/dev/null
	normalize "$TMP/rec" >"$TMP/got"
	expect_eq "pread64 records of the queries" 3 \
		"$(grep -c "^pread64: fd=[0-9]*<$TMP/results> " "$TMP/got")"
	! grep -v '^pread64: ' "$TMP/got" || fail "records of other calls"
}

# A call that never returns (exit_group): no ret, no duration; children followed.
test_syscalls_no_return() {
	local rc=0
	run_ptap record --format json -o "$TMP/rec" --syscalls exit_group,wait4 \
		-- sh -c '/bin/true; exit 3' || rc=$?
	expect_eq "exit status" 3 "$rc"
	python3 "$SC_CHECK" noreturn "$TMP/rec" || fail "exit_group records"
	run_ptap record -o "$TMP/rec" --syscalls exit_group -- sh -c 'exit 4' || true
	expect_eq "text" "exit_group: status=4" "$(normalize "$TMP/rec")"
	! grep -q duration= "$TMP/rec" || fail "a duration: $(cat "$TMP/rec")"
}

# %process: the fork (sh's vfork), exec, wait and exits.  Calls the launch
# itself makes between its filter and the exec (getpid, kill) may be listed.
test_syscalls_class_process() {
	local rc=0
	run_ptap record --format json -o "$TMP/rec" --syscalls %process \
		-- sh -c '/bin/true; exit 3' || rc=$?
	expect_eq "exit status" 3 "$rc"
	python3 "$SC_CHECK" noreturn "$TMP/rec" || fail "exit_group records"
	expect_grep '"event":"vfork","kind":"syscall",' "$TMP/rec"
	expect_grep '"event":"execve","kind":"syscall",.*"pathname":"/bin/true",' "$TMP/rec"
	rc=0
	run_ptap record -o "$TMP/rec" --syscalls getpid,kill -- sh -c 'exit 5' || rc=$?
	expect_eq "exit status with getpid,kill listed" 5 "$rc"
}

# ---- an error return -----------------------------------------------------------

test_syscalls_error_return() {
	local rc=0
	QS_EXPECT=syscalls run_ptap record -o "$TMP/rec" --syscalls openat \
		-- "$S/query_server" "$TMP/missing.txt" 3>"$TMP/stated" >/dev/null 2>"$TMP/err" ||
		rc=$?
	expect_eq "exit status (query_server's)" 2 "$rc"
	expect_eq "the statement" \
		"openat: dirfd=AT_FDCWD pathname=\"$TMP/missing.txt\" flags=O_RDONLY ret=-ENOENT" \
		"$(cat "$TMP/stated")"
	expect_eq "the last record" "$(cat "$TMP/stated")" "$(normalize "$TMP/rec" | tail -1)"
	expect_grep "$TMP/missing.txt: No such file or directory" "$TMP/err"
	rc=0
	run_ptap record --format json -o "$TMP/rec" --syscalls openat \
		-- "$S/query_server" "$TMP/missing.txt" >/dev/null 2>&1 || rc=$?
	expect_eq "exit status (JSON)" 2 "$rc"
	expect_grep '"event":"openat","kind":"syscall","duration_ns":[0-9]*,"args":{'\
'"dirfd":"AT_FDCWD","pathname":"'"$TMP"'/missing.txt","flags":"O_RDONLY",'\
'"ret":"-ENOENT"}}$' "$TMP/rec"
}

# ---- open's mode, as strace shows it ----------------------------------------------

# open and openat read their mode only with O_CREAT or O_TMPFILE: without them the
# register holds junk (sysio opens passes 0777, 0123) and the mode is left out, as
# strace leaves it out.  Every open/openat of the run (the loader's too), ptap's JSON
# against strace's: name, path, flags (as a set), and the mode when there is one.
test_syscalls_open_mode_as_strace() {
	command -v strace >/dev/null 2>&1 ||
		fail "strace not found: scripts/deps.sh (run by make test) installs it"
	mkdir -p "$TMP/opens1" "$TMP/opens2"
	strace -qq -s 4096 -o "$TMP/strace" -e trace=open,openat "$SYSIO" opens "$TMP/opens1" \
		>/dev/null || fail "sysio opens under strace"
	run_ptap record --format json -o "$TMP/rec" --syscalls open,openat \
		-- "$SYSIO" opens "$TMP/opens2" >/dev/null || fail "sysio opens under ptap"
	records "$TMP/rec" >"$TMP/recs"
	python3 - "$TMP/strace" "$TMP/recs" "$TMP/opens1" "$TMP/opens2" <<-'PY' ||
	import json, re, sys
	def split(a):
	    return re.findall(r'"(?:[^"\\]|\\.)*"|[^,\s][^,]*', a)
	want = []
	for line in open(sys.argv[1]):
	    m = re.match(r'(\w+)\((.*)\)\s+= ', line)
	    if not m:
	        continue
	    a = split(m.group(2).replace(sys.argv[3], sys.argv[4]))
	    if m.group(1) == 'openat':
	        a = a[1:]
	    want.append((m.group(1), json.loads(a[0]), set(a[1].split('|')),
	                 a[2] if len(a) > 2 else None))
	got = []
	for r in map(json.loads, open(sys.argv[2])):
	    a = r['args']
	    got.append((r['event'], a['pathname'], set(a['flags'].split('|')), a.get('mode')))
	bad = 0
	for i in range(max(len(want), len(got))):
	    w = want[i] if i < len(want) else None
	    g = got[i] if i < len(got) else None
	    if w != g:
	        print('    call %d: strace %r, ptap %r' % (i + 1, w, g), file=sys.stderr)
	        bad = 1
	modes = sum(1 for w in want if w[3])
	print('    %d calls as strace shows them, %d with a mode' % (len(want), modes))
	sys.exit(bad or modes != 3 or len(want) < 8)
	PY
		fail "open/openat records differ from strace's"
	expect_grep '"pathname":"'"$TMP"'/opens2/a","flags":"O_RDONLY","ret":' "$TMP/rec"
}

# ---- attached (-p): every syscall stops; detach on SIGINT ---------------------

# sysio loop: a write a ms inside tick(fd, i); attached twice (with a probe
# and context, then --syscalls alone), it ends intact with its file right.
test_syscalls_attach() {
	local target p rc=0
	rm -f "$TMP/tout"
	"$SYSIO" loop "$TMP/ticks" 6 >"$TMP/tout" 2>&1 &
	target=$!
	wait_for grep -q READY "$TMP/tout"
	"$PTAP" record --format json -o "$TMP/rec" -e 'tick i' --context tick --syscalls write \
		-p "$target" 2>"$TMP/err" &
	p=$!
	sleep 1
	stop_ptap "$p"
	untraced "$target"
	python3 "$SC_CHECK" attach "$TMP/rec" "$TMP/ticks" || fail "attached records"
	"$PTAP" record -o "$TMP/rec2" --syscalls write -p "$target" 2>"$TMP/err2" &
	p=$!
	sleep 0.5
	stop_ptap "$p"
	untraced "$target"
	wait "$target" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^FILE-OK$' "$TMP/tout"
	expect_grep '^BYTES-OK$' "$TMP/tout"
	expect_grep '^EXIT-SUCCESS$' "$TMP/tout"
	expect_eq "first line" "# ptap clock=monotonic" "$(head -1 "$TMP/rec2")"
	normalize "$TMP/rec2" >"$TMP/got"
	# write: fd=N</path> buf=0x.. count=C ret=C, C = len("tick I\n"), 7 to 12; the
	# first and the last may have been cut by the attach and the detach
	sed '1d;$d' "$TMP/got" | grep -v -E \
		"^write: fd=[0-9]+<$TMP/ticks> buf=0x[0-9a-f]+ count=(7|8|9|10|11|12) ret=\\1\$" &&
		fail "other write records"
	[ "$(grep -c '^write: ' "$TMP/got")" -ge 25 ] || fail "few records: $(wc -l <"$TMP/got")"
}

# ---- the clock: the first line names it; ts of that clock ------------------------

# sc_now CLOCK: the time of CLOCK (monotonic, realtime, boottime, tai) in ns.
sc_now() {
	python3 -c "import time; print(time.clock_gettime_ns(time.CLOCK_${1^^}))"
}

test_syscalls_clock_line() {
	local clock before after
	for clock in monotonic realtime boottime tai; do
		run_ptap record --clock "$clock" -o "$TMP/rec" --syscalls openat -- /bin/true
		expect_eq "text, --clock $clock" "# ptap clock=$clock" "$(head -1 "$TMP/rec")"
		[ "$(grep -c '^# ' "$TMP/rec")" = 1 ] || fail "more than one # line"
		before=$(sc_now "$clock")
		run_ptap record --clock "$clock" --format json -o "$TMP/rec" --syscalls openat \
			-- /bin/true
		after=$(sc_now "$clock")
		python3 "$SC_CHECK" clock "$TMP/rec" "$clock" "$before" "$after" ||
			fail "--clock $clock"
	done
	# the default: monotonic, in both forms
	run_ptap record -o "$TMP/rec" --syscalls openat -- /bin/true
	expect_eq "text, default" "# ptap clock=monotonic" "$(head -1 "$TMP/rec")"
	run_ptap record --format json -o "$TMP/rec" --syscalls openat -- /bin/true
	expect_eq "JSON, default" '{"kind":"clock","clock":"monotonic"}' "$(head -1 "$TMP/rec")"
}

# sc_within WHAT V LO HI: LO <= V <= HI.
sc_within() {
	if [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		fail "$1: $2, expected $3 to $4"
	fi
}

# realtime is the date; tai is ahead of it by the kernel's TAI offset: 37 s
# where an NTP daemon has set it (the check then wants 30 to 40 s), 0 where
# none did (then tai = realtime).
test_syscalls_clock_realtime_tai() {
	local now rt tai off
	now=$(date +%s)
	run_ptap record --clock realtime --format json -o "$TMP/rec" --syscalls openat -- /bin/true
	rt=$(sed -n '2s/^{"ts":\([0-9]*\),.*/\1/p' "$TMP/rec")
	[ -n "$rt" ] || fail "no ts in $(head -2 "$TMP/rec")"
	sc_within "realtime s - date +%s" $((rt / 1000000000 - now)) -1 5
	run_ptap record --clock tai --format json -o "$TMP/rec" --syscalls openat -- /bin/true
	tai=$(sed -n '2s/^{"ts":\([0-9]*\),.*/\1/p' "$TMP/rec")
	[ -n "$tai" ] || fail "no ts in $(head -2 "$TMP/rec")"
	off=$(python3 -c 'import time; print(round((time.clock_gettime_ns(time.CLOCK_TAI) -
		time.clock_gettime_ns(time.CLOCK_REALTIME)) / 1e9))')
	if [ "$off" = 0 ]; then
		echo "    note: the kernel's TAI offset is 0 (no NTP daemon set it): tai = realtime"
	else
		sc_within "the kernel's TAI offset (s)" "$off" 30 40
	fi
	sc_within "tai - realtime - the TAI offset (s)" $(((tai - rt) / 1000000000 - off)) -1 5
}

# ---- bad input: exit 2, the problem named, nothing run ----------------------------

test_syscalls_bad_input() {
	sc_refused "^ptap: --syscalls: .*'preed64'" "close: .*pread64" -- record --syscalls preed64
	sc_refused "'pwrit64'" "close: .*pwrite64" -- record --syscalls fsync,pwrit64
	sc_refused "%fiel" "%file" -- record --syscalls %fiel
	sc_refused "nosuch" -- record -x "$S/query_server" -e 'exec_query query_string:string' \
		--context nosuch --syscalls openat
	sc_refused "nosuch" "exec_query" -- record -x "$S/query_server" \
		-e 'exec_query query_string:string' --context exec_query:nosuch --syscalls openat
	# named q=: exec_query is no probe's name then
	sc_refused "exec_query" -- record -x "$S/query_server" \
		-e 'q=exec_query query_string:string' --context exec_query --syscalls openat
}
