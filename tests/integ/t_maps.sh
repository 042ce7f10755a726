# `ptap maps` (issue 8): the map table of a live process and of a core dump,
# checked against /proc/PID/maps, smaps, readelf and what samples/scen/maps_zoo
# states (tracer/space/mapview.h has the formats; tests/integ/maps_check.py compares).

MAPS_ZOO=$(realpath "$S/scen/maps_zoo")
LIBPLUGIN=$(realpath "$S/libplugin.so")
MAPS_CHECK="python3 tests/integ/maps_check.py"

# zoo_start DIR: run maps_zoo in DIR (made; a space in it), which makes its
# deleted files there and writes DIR/expect; ZOO is its pid once it is READY.
# The caller's EXIT trap kills it.
zoo_start() {
	mkdir -p "$1"
	rm -f "$1/out"
	(cd "$1" && exec "$MAPS_ZOO" "$LIBPLUGIN" "$1/expect" >"$1/out" 2>&1) &
	ZOO=$!
	wait_for grep -qx READY "$1/out"
}

# maps_ok OUT ARGS...: `ptap maps ARGS` into OUT, exit 0, nothing on stderr.
maps_ok() {
	local out=$1 rc=0
	shift
	run_ptap maps "$@" >"$out" 2>"$out.err" || rc=$?
	[ -s "$out.err" ] && sed 's/^/      stderr: /' "$out.err" >&2
	expect_eq "ptap maps $* exit status" 0 "$rc"
	[ ! -s "$out.err" ] || fail "ptap maps $*: wrote to stderr"
}

# maps_bad WHAT REGEX ARGS...: `ptap maps ARGS` exits 2, prints nothing on
# stdout and one line on stderr, "ptap maps: ..." matching REGEX.  Run under
# $MAPS_AS (a command prefix) when set.
MAPS_AS=
maps_bad() {
	local what=$1 re=$2 rc=0
	shift 2
	$MAPS_AS timeout 60 "$PTAP" maps "$@" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
	sed 's/^/      stderr: /' "$TMP/bad.err" >&2
	expect_eq "$what: exit status" 2 "$rc"
	[ ! -s "$TMP/bad.out" ] || fail "$what: wrote to stdout: $(head -c 200 "$TMP/bad.out")"
	expect_eq "$what: lines on stderr" 1 "$(wc -l <"$TMP/bad.err")"
	grep -Eq -- "$re" "$TMP/bad.err" || fail "$what: the message does not match '$re'"
	maps_prefix "$what" "$TMP/bad.err"
}

# maps_prefix WHAT FILE: FILE's first line starts as every command's messages
# do: "ptap: maps: ", or "maps: " from getopt for an unknown option.
MAPS_ERR='(ptap: )?maps: '
maps_prefix() {
	head -1 "$2" | grep -Eq "^$MAPS_ERR" || fail "$1: the message does not start '$MAPS_ERR'"
}

# kernel_core_ready: the shell can raise RLIMIT_CORE and core_pattern names a
# plain file ("core", with %p/%e at most); else the test skips, saying why.
kernel_core_ready() {
	local pat
	pat=$(cat /proc/sys/kernel/core_pattern)
	case $pat in
	'|'*) skip "core_pattern is a pipe ($pat): the kernel writes no core file here" \
		"(sysctl kernel.core_pattern=core lets this test run)" ;;
	esac
	[[ ${pat//%[pe%]/} != *%* ]] ||
		skip "core_pattern '$pat' has specifiers this test does not expand" \
			"(sysctl kernel.core_pattern=core lets this test run)"
	ulimit -c unlimited 2>/dev/null ||
		skip "cannot raise RLIMIT_CORE (ulimit -Hc is $(ulimit -Hc))"
}

# kernel_core_path DIR PID COMM: where the kernel wrote PID's core (run in DIR).
kernel_core_path() {
	local pat
	pat=$(cat /proc/sys/kernel/core_pattern)
	pat=${pat//%p/$2}
	pat=${pat//%e/$3}
	pat=${pat//%%/%}
	[ "$(cat /proc/sys/kernel/core_uses_pid)" = 1 ] && [[ $(cat /proc/sys/kernel/core_pattern) != *%p* ]] &&
		pat=$pat.$2
	case $pat in
	/*) echo "$pat" ;;
	*) echo "$1/$pat" ;;
	esac
}

# The live table of maps_zoo is /proc/PID/maps, row for row ([vsyscall] too),
# from PROCMAP_QUERY (this kernel has it) and from /proc/PID/maps
# (--proc-maps); and what maps_zoo states holds: each object's load bias,
# build-id (readelf -n) and PT_LOAD segments (readelf -lW), libc's bss row,
# the memfd, deleted-file and anonymous data ranges.
test_maps_zoo_live() {
	local d="$TMP/maps-live/zoo \"dir\" \\ here" src
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	zoo_start "$d"
	maps_ok "$d/json" --format json "$ZOO"
	cat /proc/"$ZOO"/maps >"$d/maps"
	maps_ok "$d/json-pm" --format json --proc-maps "$ZOO"
	cat /proc/"$ZOO"/maps >"$d/maps-pm"
	$MAPS_CHECK live "$d/json" "$d/maps"
	$MAPS_CHECK live "$d/json-pm" "$d/maps-pm"
	$MAPS_CHECK expect "$d/json" "$d/expect" "$LIBPLUGIN"
	$MAPS_CHECK expect "$d/json-pm" "$d/expect" "$LIBPLUGIN"
	src=$(head -1 "$d/json" | sed -n 's/.*"source":"\([a-z_]*\)".*/\1/p')
	expect_eq "source of a 6.11+ kernel's table" procmap_query "$src"
	src=$(head -1 "$d/json-pm" | sed -n 's/.*"source":"\([a-z_]*\)".*/\1/p')
	expect_eq "source with --proc-maps" proc_maps "$src"
}

# As an ordinary user on its own process: no /proc/PID/map_files for it, so
# the deleted and memfd libraries' build-ids and segments come another way.
test_maps_zoo_unprivileged() {
	local d="$TMP/maps-nobody/zoo dir" f
	[ "$(id -u)" = 0 ] || skip "not root (needed to become nobody)"
	need_cmd setpriv util-linux
	chmod 755 "$TMP"
	mkdir -p "$d"
	chmod 777 "$TMP/maps-nobody" "$d"
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$MAPS_ZOO" "$LIBPLUGIN" "$d/expect" >"$d/out" 2>&1 &
	ZOO=$!
	wait_for grep -qx READY "$d/out"
	for f in "" --proc-maps; do
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$(realpath "$PTAP")" maps --format json $f "$ZOO" >"$d/json$f" 2>"$d/err$f" ||
			{ cat "$d/err$f" >&2; fail "ptap maps $f as nobody on its own process failed"; }
		cat /proc/"$ZOO"/maps >"$d/maps"
		$MAPS_CHECK live "$d/json$f" "$d/maps"
		$MAPS_CHECK expect "$d/json$f" "$d/expect" "$LIBPLUGIN"
	done
}

# The text form: header line, column line, each row as the JSON says (sizes in
# K, SEG as L<k> or L<k>.bss, "-" for what is unknown), the totals line; the
# memfd and deleted files named as the kernel names them, not as errors.
test_maps_zoo_text() {
	local d="$TMP/maps-text/zoo \"dir\" \\ here" n
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	zoo_start "$d"
	maps_ok "$d/text" "$ZOO"
	maps_ok "$d/json" --format json "$ZOO"
	$MAPS_CHECK text "$d/text" "$d/json"
	expect_grep " /memfd:zoo-data (deleted)\$" "$d/text"
	grep -qF " $d/zoo.dat (deleted)" "$d/text" || fail "no zoo.dat (deleted) in the text"
	n=$(grep -c " L[0-9] .* /memfd:zoo-lib (deleted)\$" "$d/text" || true)
	expect_eq "memfd library rows with a segment" 5 "$n"
	n=$(grep -F "$d/libplugin-deleted.so (deleted)" "$d/text" | grep -c " L[0-9] " || true)
	expect_eq "deleted library rows with a segment" 5 "$n"
	expect_grep '^total: [0-9]* mappings, [0-9]*K$' "$d/text"
	! grep -Eiq 'error|unknown|\?\?\?' "$d/text" || fail "an error in the table: $(grep -Ei 'error|unknown|\?\?\?' "$d/text")"
}

# --rss: RSS and swap per mapping are smaps's (maps_zoo is paused); PSS of
# private pages too, of shared ones near it; the totals sum them, in JSON
# and in text.
test_maps_zoo_rss() {
	local d="$TMP/maps-rss/zoo dir"
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	zoo_start "$d"
	cat /proc/"$ZOO"/smaps >"$d/smaps1"
	maps_ok "$d/json" --rss --format json "$ZOO"
	maps_ok "$d/text" --rss "$ZOO"
	cat /proc/"$ZOO"/smaps >"$d/smaps2"
	$MAPS_CHECK rss "$d/json" "$d/smaps1" "$d/smaps2"
	$MAPS_CHECK text "$d/text" "$d/json" pss-moves
	! grep -q '"rss_kb"' <(run_ptap maps --format json "$ZOO") || fail "rss_kb without --rss"
}

# A real process: sleep, against /proc/PID/maps, readelf of sleep and libc.
test_maps_sleep() {
	local d=$TMP/maps-sleep p
	mkdir -p "$d"
	sleep 100 &
	p=$!
	trap 'kill -KILL '$p' 2>/dev/null || true' EXIT
	wait_for grep -q libc /proc/$p/maps
	maps_ok "$d/json" --format json $p
	cat /proc/$p/maps >"$d/maps"
	maps_ok "$d/text" $p
	$MAPS_CHECK live "$d/json" "$d/maps"
	$MAPS_CHECK elf "$d/json" "$(readlink /proc/$p/exe)" "$(realpath "$LIBC")"
	$MAPS_CHECK text "$d/text" "$d/json"
	# and its gcore against the same table
	need_cmd gcore gdb
	timeout 120 gcore -o "$d/gc" $p >"$d/gcore.log" 2>&1 ||
		{ cat "$d/gcore.log" >&2; fail "gcore failed"; }
	maps_ok "$d/core.json" --format json --core "$d/gc.$p"
	$MAPS_CHECK core "$d/json" "$d/core.json" "$d/gc.$p" gcore
}

# Every row of /proc/PID/maps is a row of `ptap maps`, in text and JSON, from
# PROCMAP_QUERY and from the text: the kernel's gate area too ([vsyscall], last,
# above user space), which the ioctl does not return.  Whether this kernel maps
# it (vsyscall=none does not) is said; the rows are compared either way.
test_maps_every_proc_row() {
	local d=$TMP/maps-rows p f gate=no
	mkdir -p "$d"
	sleep 100 &
	p=$!
	trap 'kill -KILL '$p' 2>/dev/null || true' EXIT
	wait_for grep -q libc /proc/$p/maps
	grep -q ' \[vsyscall\]$' /proc/$p/maps && gate=yes
	echo "the kernel shows [vsyscall]: $gate"
	for f in "" --proc-maps; do
		maps_ok "$d/json$f" --format json $f $p
		maps_ok "$d/text$f" $f $p
		cat /proc/$p/maps >"$d/maps$f"
		$MAPS_CHECK live "$d/json$f" "$d/maps$f"
		$MAPS_CHECK text "$d/text$f" "$d/json$f"
		if [ $gate = yes ]; then
			grep -Eq '^ffffffffff600000-ffffffffff601000 +4K --xp 00000000 00:00 +0 .* \[vsyscall\]$' \
				"$d/text$f" || fail "ptap maps $f: no [vsyscall] row: $(tail -2 "$d/text$f")"
			tail -2 "$d/json$f" | head -1 | grep -q '"start":"0xffffffffff600000","end":"0xffffffffff601000",.*"perms":"--xp",.*"path":"\[vsyscall\]"' ||
				fail "ptap maps --format json $f: [vsyscall] is not the last row"
		fi
	done
}

# gcore: the core's table against the live one taken just before.  gcore
# leaves out [vvar] and [vvar_vclock] (VM_DONTDUMP), writes no PT_LOAD for
# the file ranges it does not dump (perms from their segment's flags, or
# ???), shows PROT_NONE pages as r--, and a core never says shared/private.
test_maps_gcore() {
	local d="$TMP/maps-gcore/zoo dir"
	need_cmd gcore gdb
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	zoo_start "$d"
	maps_ok "$d/live" --format json "$ZOO"
	timeout 120 gcore -o "$d/gc" "$ZOO" >"$d/gcore.log" 2>&1 ||
		{ cat "$d/gcore.log" >&2; fail "gcore failed"; }
	maps_ok "$d/core.json" --format json --core "$d/gc.$ZOO"
	maps_ok "$d/core.txt" --core "$d/gc.$ZOO"
	$MAPS_CHECK core "$d/live" "$d/core.json" "$d/gc.$ZOO" gcore
	$MAPS_CHECK text "$d/core.txt" "$d/core.json"
	# gdb detached: the process and its table are as they were
	maps_ok "$d/after" --format json "$ZOO"
	diff <(grep '"kind":"map"' "$d/live") <(grep '"kind":"map"' "$d/after") >&2 ||
		fail "the table changed across gcore"
}

# A kernel core (kill -SEGV): the table against the live one taken just
# before; the kernel dumps a PT_LOAD for every mapping.  Then the same core
# cut short inside its memory: the table, rows marked "cut", exit 2.
test_maps_kernel_core() {
	local d="$TMP/maps-kcore/zoo dir" core rc=0 size
	kernel_core_ready
	trap 'kill -KILL $ZOO 2>/dev/null || true' EXIT
	zoo_start "$d"
	maps_ok "$d/live" --format json "$ZOO"
	kill -SEGV "$ZOO"
	wait "$ZOO" || rc=$?
	expect_eq "maps_zoo's status after SIGSEGV (core dumped)" 139 "$rc"
	core=$(kernel_core_path "$d" "$ZOO" maps_zoo)
	[ -f "$core" ] || fail "no core at $core"
	maps_ok "$d/core.json" --format json --core "$core"
	maps_ok "$d/core.txt" --core "$core"
	$MAPS_CHECK core "$d/live" "$d/core.json" "$core" kernel
	$MAPS_CHECK text "$d/core.txt" "$d/core.json"
	grep -qF "$core" <(head -1 "$d/core.txt") || fail "the header line does not name the core"
	# cut 10000 bytes off the end: the stack's dump (the last PT_LOAD's data)
	size=$(stat -c %s "$core")
	head -c $((size - 10000)) "$core" >"$d/cut"
	rc=0
	run_ptap maps --format json --core "$d/cut" >"$d/cut.json" 2>"$d/cut.err" || rc=$?
	expect_eq "exit status for a core cut short" 2 "$rc"
	expect_grep 'truncated' "$d/cut.err"
	maps_prefix "a core cut short" "$d/cut.err"
	grep -q '"path":"\[stack\]".*"core":"cut"' "$d/cut.json" ||
		fail "the stack is not marked cut: $(grep '\[stack\]' "$d/cut.json")"
	expect_eq "rows marked cut" 1 "$(grep -c '"core":"cut"' "$d/cut.json")"
	rc=0
	run_ptap maps --core "$d/cut" >"$d/cut.txt" 2>/dev/null || rc=$?
	expect_eq "exit status for a core cut short (text)" 2 "$rc"
	head -1 "$d/cut.txt" | grep -q 'truncated' || fail "header line: $(head -1 "$d/cut.txt")"
	grep -q ' cut  *\[stack\]$' "$d/cut.txt" || fail "no cut [stack] row in the text"
	# "missing": the bytes of the listed ranges the file lacks (mapview.h):
	# of the 10000 cut, all but the [vsyscall] page's, from the whole core's
	# own program headers
	local want
	want=$(python3 - "$core" "$(stat -c %s "$d/cut")" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
size = int(sys.argv[2])
phoff, = struct.unpack_from('<Q', d, 0x20)
phnum, = struct.unpack_from('<H', d, 0x38)
n = 0
for i in range(phnum):
    typ, _, off, va, _, fsz, _, _ = struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)
    if typ == 1 and va < 0x7ffffffff000:
        n += max(0, off + fsz - max(off, size))
print(n)
PY
)
	expect_eq "listed bytes cut" 1 "$([ "$want" -gt 0 ] && [ "$want" -le 10000 ] && echo 1)"
	grep -q "\"kind\":\"maps\".*\"missing\":$want[,}]" "$d/cut.json" ||
		fail "header: $(head -1 "$d/cut.json"), not missing $want"
}

test_maps_bad_pid() {
	local p
	sh -c 'exit 0' &
	p=$!
	wait $p
	maps_bad "a pid that does not exist" "[Nn]o (such )?process" $p
	maps_bad "a pid that does not exist (--proc-maps)" "[Nn]o (such )?process" --proc-maps $p
}

# nobody asks for a root process's table: refused, and the message says why.
test_maps_bad_not_permitted() {
	local p
	[ "$(id -u)" = 0 ] || skip "not root (needed to become nobody)"
	need_cmd setpriv util-linux
	sleep 100 &
	p=$!
	trap 'kill -KILL '$p' 2>/dev/null || true' EXIT
	MAPS_AS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	maps_bad "nobody on root's process" "uid 0|owner|permi|CAP_SYS_PTRACE" $p
	maps_bad "nobody on root's process (--proc-maps)" \
		"uid 0|owner|permi|CAP_SYS_PTRACE" --proc-maps $p
	grep -q "$p" "$TMP/bad.err" || fail "the message does not name pid $p"
}

test_maps_bad_core_files() {
	local d=$TMP/maps-badcore size noteoff noteend p
	mkdir -p "$d"
	maps_bad "--core on /bin/ls" "/bin/ls.*not a core" --core /bin/ls
	echo "just some text" >"$d/text"
	maps_bad "--core on a text file" "$d/text.*not an ELF" --core "$d/text"
	maps_bad "--core on a missing file" "$d/nothing.*[Nn]o such file" --core "$d/nothing"
	: >"$d/empty"
	maps_bad "--core on an empty file" "$d/empty.*(not an ELF|truncated|empty)" --core "$d/empty"
	need_cmd gcore gdb
	sleep 100 &
	p=$!
	trap 'kill -KILL '$p' 2>/dev/null || true' EXIT
	timeout 120 gcore -o "$d/gc" $p >"$d/gcore.log" 2>&1 ||
		{ cat "$d/gcore.log" >&2; fail "gcore failed"; }
	size=$(stat -c %s "$d/gc.$p")
	# within the ELF and program headers
	head -c 200 "$d/gc.$p" >"$d/cut-head"
	maps_bad "a core cut in its program headers" "$d/cut-head.*truncated" --core "$d/cut-head"
	# within the notes (gdb writes them last)
	noteoff=$(readelf -lW "$d/gc.$p" | awk '$1 == "NOTE" { print $2; exit }')
	[ -n "$noteoff" ] || fail "no PT_NOTE in the gcore"
	noteoff=$((noteoff))
	head -c $((noteoff + 100)) "$d/gc.$p" >"$d/cut-notes"
	maps_bad "a core cut in its notes" "$d/cut-notes.*truncated" --core "$d/cut-notes"
	# one byte short of its notes' end (gdb writes section headers after them)
	noteend=$(readelf -lW "$d/gc.$p" | awk '$1 == "NOTE" { print $2 "+" $5; exit }')
	head -c $((noteend - 1)) "$d/gc.$p" >"$d/cut-1"
	maps_bad "a core one byte short of its notes" "$d/cut-1.*truncated" --core "$d/cut-1"
	# its section headers cut: it has all ptap reads
	head -c $((size - 1)) "$d/gc.$p" >"$d/cut-shdr"
	maps_ok "$d/cut-shdr.txt" --core "$d/cut-shdr"
}

test_maps_bad_usage() {
	local rc nbad=0
	for args in "" "12abc" "-- -5" "1 2" "--format yaml 1" "--core" "--rss --core /bin/ls" \
		"--core /bin/ls 1" "--nope 1"; do
		rc=0
		# shellcheck disable=SC2086
		run_ptap maps $args >"$TMP/u.out" 2>"$TMP/u.err" || rc=$?
		expect_eq "ptap maps $args: exit status" 2 "$rc" || nbad=$((nbad + 1))
		[ ! -s "$TMP/u.out" ] || fail "ptap maps $args: wrote to stdout" || nbad=$((nbad + 1))
		maps_prefix "ptap maps $args" "$TMP/u.err" || nbad=$((nbad + 1))
	done
	[ $nbad = 0 ]
}

# other_thread PID: print a thread of PID that is not its leader; fails if none.
other_thread() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "${t##*/}" = "$1" ] || { echo "${t##*/}"; return 0; }
	done
	return 1
}

# Pids with no table of their own.  A zombie and a kernel thread exist (ps
# shows them) but have no user address space: an empty table (as pmap and
# /proc/PID/maps give), or exit 2 saying so -- not "no such process".  A
# thread id: its process's table, under the process's pid.
test_maps_odd_pids() {
	local d=$TMP/maps-odd z kt rc nbad=0 t="" p tid
	mkdir -p "$d"
	sh -c 'sleep 0.1 & exec sleep 100' &
	p=$!
	trap 'kill -KILL '$p' $t 2>/dev/null || true' EXIT
	wait_for pgrep -P $p
	z=$(pgrep -P $p)
	wait_for grep -q '^State:.Z' /proc/"$z"/status
	kt=$(awk '$1 == "Kthread:" && $2 == 1 { print FILENAME; exit }' /proc/[0-9]*/status 2>/dev/null |
		cut -d/ -f3)
	for pid in $z ${kt:-}; do
		rc=0
		run_ptap maps "$pid" >"$d/out" 2>"$d/err" || rc=$?
		sed 's/^/      stderr: /' "$d/err" >&2
		if [ $rc = 0 ]; then
			grep -q '^total: 0 mappings' "$d/out" ||
				fail "pid $pid ($(cat /proc/"$pid"/comm)): exit 0 but not an empty table" ||
				nbad=$((nbad + 1))
		elif [ $rc != 2 ] || grep -qi 'no such process\|no process' "$d/err" ||
			! grep -Eqi 'zombie|exited|kernel thread|no (user )?(address space|memory)' "$d/err"; then
			fail "pid $pid ($(cat /proc/"$pid"/comm)): exit $rc, not an empty table or a message that says why" ||
				nbad=$((nbad + 1))
		fi
	done
	[ -n "$kt" ] || echo "    (no kernel thread visible here)"
	# a thread that is not the leader
	mkfifo "$d/fifo"
	"$S/scen/attach_load" block 100 <"$d/fifo" >"$d/al" 2>&1 &
	t=$!
	exec 3>"$d/fifo"
	wait_for grep -q READY "$d/al"
	wait_for other_thread "$t"
	tid=$(other_thread "$t")
	maps_ok "$d/json" --format json "$tid"
	cat /proc/"$t"/maps >"$d/maps"
	$MAPS_CHECK live "$d/json" "$d/maps" || nbad=$((nbad + 1))
	head -1 "$d/json" | grep -q "\"pid\":$t," ||
		fail "thread $tid of $t: header $(head -1 "$d/json")" || nbad=$((nbad + 1))
	exec 3>&-
	[ $nbad = 0 ]
}
