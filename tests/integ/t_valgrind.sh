# ptap under valgrind memcheck (issue 9): short runs of each command, with no
# memcheck error and no definite leak, printing what they print without
# valgrind.
#
# `ptap record -- COMMAND` cannot run under valgrind (3.19, Debian 12): ptap's
# forked child installs the command's seccomp filter before exec, still on
# valgrind's core, and valgrind has no wrapper for seccomp(2) ("unhandled
# amd64-linux syscall: 317"; the child gets ENOSYS and exits 126).  So the
# record run here attaches (-p): planting, hits, fetches, syscall records
# with a context and detaching are the same code; the launch path runs
# under ASan instead (make integ-asan).  What valgrind does not know that
# ptap uses, PROCMAP_QUERY and PTRACE_GET_SYSCALL_INFO, ptap zeroes before
# the kernel fills it (tracer/space/maptab.c, tracer/engine/ptrace.c);
# futex_waitv(2) it refuses (ENOSYS) with a warning, and ptap's rings are
# then drained on the timer alone (tracer/engine/inproc.c): the warning is
# left out of what must be empty.  Only definite leaks are shown: glibc
# keeps a joined thread's TLS for the next one, behind a pointer into it
# ("possibly lost").

# vg LOG PTAP-ARGS...: ptap under memcheck, its errors and definite leaks in LOG.
vg() {
	local log=$1
	shift
	command -v valgrind >/dev/null 2>&1 ||
		fail "valgrind not found: scripts/deps.sh (run by make test) installs it"
	timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite --errors-for-leak-kinds=definite \
		--log-file="$log" "$PTAP" "$@"
}

# vg_clean LOG: memcheck wrote nothing (-q: no error, no definite leak) but
# its warning that it does not know futex_waitv (syscall 449).
vg_clean() {
	awk '/^--[0-9]+-- WARNING: unhandled amd64-linux syscall: 449$/ { skip = 4; next }
	     skip && /^--[0-9]+-- / { skip--; next }
	     { skip = 0; print }' "$1" >"$1.rest"
	[ ! -s "$1.rest" ] || { sed 's/^/      /' "$1" >&2; fail "memcheck reports in $1"; }
}

# vg_same NAME PTAP-ARGS...: ptap under memcheck prints what it prints without.
vg_same() {
	local name=$1 rc=0
	shift
	timeout 60 "$PTAP" "$@" >"$TMP/$name.plain"
	vg "$TMP/$name.vg" "$@" >"$TMP/$name.out" || rc=$?
	expect_eq "ptap $* under valgrind: exit status" 0 "$rc"
	vg_clean "$TMP/$name.vg"
	expect_diff "$TMP/$name.plain" "$TMP/$name.out"
	[ -s "$TMP/$name.out" ] || fail "ptap $*: no output"
}

# Attached to sysio's loop for 1 s: each tick(fd, i) hit, and the write it
# makes with tick's arguments as its context; the target ends intact.
test_valgrind_record_attached() {
	local rc=0 target
	"$S/sysio" loop "$TMP/ticks" 3 >"$TMP/out" 2>&1 &
	target=$!
	wait_for grep -q READY "$TMP/out"
	vg "$TMP/vg" record --duration 1 -o "$TMP/rec" -e 'tick fd i' --context tick \
		--syscalls write -p "$target" 2>"$TMP/err" || rc=$?
	expect_eq "ptap exit status" 0 "$rc"
	vg_clean "$TMP/vg"
	rc=0
	wait "$target" || rc=$?
	expect_eq "target exit status" 0 "$rc"
	expect_grep '^BYTES-OK$' "$TMP/out"
	expect_grep '^EXIT-SUCCESS$' "$TMP/out"
	# tick: fd=3 i=N, then write: fd=3</path> ... count=C ret=C {tick: fd=3 i=N}
	# with C the length of "tick N\n"; N goes up by one.
	records "$TMP/rec" | normalize | awk -v path="$TMP/ticks" '
		NR % 2 == 1 {
			if ($0 !~ /^tick: fd=3 i=[0-9]+$/) { print "bad tick: " $0; exit 1 }
			i = substr($3, 3) + 0
			if (NR > 1 && i != last + 1) { print "i " i " after " last; exit 1 }
			last = i
			next
		}
		{
			c = length("tick " i) + 1
			want = "write: fd=3<" path "> buf=0x[0-9a-f]+ count=" c " ret=" c \
			       " \\{tick: fd=3 i=" i "\\}"
			if ($0 !~ "^" want "$") { print "bad write: " $0; exit 1 }
		}
		END { if (NR < 20) { print NR " records"; exit 1 } }' >&2 ||
		fail "records of $TMP/rec"
}

# maps of a sleeping process (text, JSON, --rss), list and vars of the
# sample, report of a small recording (text, JSON, --by-context).
test_valgrind_maps_list_vars_report() {
	local pid
	sleep 60 &
	pid=$!
	wait_for grep -qx sleep "/proc/$pid/comm"	# exec'd: its own table, not the shell's
	vg_same maps maps "$pid"
	vg_same maps_json maps --format json "$pid"
	# RSS and PSS move with what else maps the same pages: not compared
	vg "$TMP/maps_rss.vg" maps --rss "$pid" >"$TMP/maps_rss.out" ||
		fail "ptap maps --rss under valgrind failed"
	vg_clean "$TMP/maps_rss.vg"
	expect_grep " [0-9]\+K \+[0-9]\+K \+[0-9]\+K $(readlink "/proc/$pid/exe")\$" \
		"$TMP/maps_rss.out"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	vg_same list list -x "$S/query_server" 'exec_*'
	vg_same vars vars -x "$S/query_server-O0" exec_query
	run_ptap record --format json -o "$TMP/rec.json" -e 'exec_query query_string:string' \
		-e 'exec_query%return $retval' --context exec_query --syscalls pwrite64,fsync \
		-- "$S/query_server" samples/queries.txt "$TMP/results" >/dev/null
	vg_same report report "$TMP/rec.json"
	vg_same report_json report --format json "$TMP/rec.json"
	vg_same report_ctx report --by-context "$TMP/rec.json"
}

# The process ends while ptap attaches (vfork_hold's child kills it while
# its only thread waits in vfork, where ptap's interrupt cannot stop it):
# ptap says so and exits 2.  Its address space was never made, and memcheck
# saw ptap free a pointer it had never set (a segfault, when the stack held
# the wrong bytes: seen 3 times in 40 attaches to a target that exited).
test_valgrind_attach_target_killed() {
	local rc=0 target
	"$S/scen/vfork_hold" 1500 1 kill >"$TMP/out" 2>&1 &
	target=$!
	wait_for grep -q READY "$TMP/out"
	vg "$TMP/vg" record -e 'hold_once i' -p "$target" -o "$TMP/rec" 2>"$TMP/err" || rc=$?
	wait "$target" || true
	expect_eq "ptap exit status ($(cat "$TMP/err"))" 2 "$rc"
	vg_clean "$TMP/vg"
	expect_grep "pid $target (vfork_hold) exited while ptap was attaching" "$TMP/err"
}
