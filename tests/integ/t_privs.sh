# The privilege boundary (issue 9, item 4; README.md, "How it works"): as an
# unprivileged user ptap traces that user's processes and nothing else, also
# when a copy of it holds CAP_SYS_PTRACE as a file capability; a launched
# command never holds ptap's privileges; root runs the command as another
# user with -u.  Run as root, the tests create the user ptaptest when missing
# (and remove it after), and act as it through setpriv; run as another user,
# they act as that user and skip what needs root (lib.sh's skip, which
# run.sh counts).

PRIVS_USER=ptaptest
PRIVS_QS_PROBE='exec_query query_string=%di:string len=%si:u32'

# privs_setup: PU, PUID, PGID: the unprivileged user the test acts as; PD: a
# directory PU owns (mode 755); PKILL: pids the EXIT trap kills.  The trap
# also removes PD, and PU when this test created it.
privs_setup() {
	PD=$(mktemp -d /tmp/ptap-privs.XXXXXX)
	PKILL='' PCREATED='' PCAPDIRS=()
	trap privs_cleanup EXIT
	if [ "$(id -u)" = 0 ]; then
		PU=$PRIVS_USER
		if ! id -u "$PU" >/dev/null 2>&1; then
			useradd --no-create-home --shell /usr/sbin/nologin "$PU" >&2 ||
				fail "useradd $PU failed"
			PCREATED=1
		fi
		chown "$PU:" "$PD"
	else
		PU=$(id -un)
	fi
	PUID=$(id -u "$PU")
	PGID=$(id -g "$PU")
	AS_USER=(env)
	[ "$(id -u)" != 0 ] ||
		AS_USER=(setpriv --reuid="$PUID" --regid="$PGID" --init-groups -- sh -c 'exec "$@"' sh)
	chmod 755 "$PD"
	export PTAP_CACHE_DIR=$PD/cache
}

privs_cleanup() {
	local p
	for p in $PKILL; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$PD" "${PCAPDIRS[@]}" || true
	[ -z "$PCREATED" ] || userdel "$PU" >&2 || true
}

# as_user COMMAND...: run COMMAND as PU (its groups, no capability), in the
# same environment.  setpriv keeps root's permitted capabilities until its
# exec (then the kernel sees no capability gained by a file-capability
# program, and leaves it dumpable): COMMAND is exec'd by a shell that setpriv
# started, as it would be for a real user.  In the background, write "${AS_USER[@]}" COMMAND & so
# that $! is COMMAND's pid (a function would run in a subshell).
as_user() {
	"${AS_USER[@]}" "$@"
}

# privs_need_root WHY: the test skips, saying WHY, unless run as root.
privs_need_root() {
	[ "$(id -u)" = 0 ] || skip "not root: $1"
}

PTAP_ABS=$(realpath "$PTAP")

# privs_capdir: CD, a directory PU can reach on a filesystem where file
# capabilities and setuid bits take effect, holding CD/ptap (a copy of ptap
# with cap_sys_ptrace+ep) and CD/suid_id (a setuid-root copy of id).  /tmp
# first, else the build directory; the test skips when neither works.
privs_capdir() {
	local d
	need_cmd setcap libcap2-bin
	for d in "$PD" "$(realpath "$O")/privs.$$"; do
		mkdir -p "$d/cap"
		chmod 755 "$d" "$d/cap"
		CD=$d/cap
		[ "$d" = "$PD" ] || PCAPDIRS+=("$d")
		cp "$PTAP_ABS" "$CD/ptap"
		cp "$(command -v id)" "$CD/suid_id"
		cp "$(command -v cat)" "$CD/capcat"
		chmod 4755 "$CD/suid_id"
		if ! setcap cap_sys_ptrace+ep "$CD/ptap" cap_sys_ptrace+ep "$CD/capcat" 2>/dev/null; then
			continue
		fi
		# both take effect for PU here (no nosuid, xattrs kept)?
		as_user "$CD/capcat" /proc/self/status | grep -q '^CapEff:.*0000080000$' || continue
		[ "$(as_user "$CD/suid_id" -u)" = 0 ] || continue
		echo "file capabilities and setuid work in $d"
		return 0
	done
	skip "setcap or setuid has no effect for $PU in $PD or under $O (nosuid, no xattrs?)"
}

# privs_fifo_target NAME: start query_server as PU reading queries from the
# fifo PD/NAME.fifo (ptap's non-child, and it never calls PR_SET_PTRACER);
# QPID is its pid, fd 8 the fifo's write end (closed in the others started,
# so that closing it ends the queries), PD/NAME.expect what it states ptap
# records.
privs_fifo_target() {
	mkfifo "$PD/$1.fifo"
	exec 8<>"$PD/$1.fifo"
	"${AS_USER[@]}" "$S/query_server" <"$PD/$1.fifo" 3>"$PD/$1.expect" >"$PD/$1.out" 2>&1 8>&- &
	QPID=$!
	PKILL="$PKILL $QPID"
	wait_for privs_runs "$QPID" query_server "$PUID"
}

# privs_runs PID NAME UID: PID runs the program NAME as UID (setpriv has exec'd it).
privs_runs() {
	[ "$(proc_field "$1" Name)" = "$2" ] && [ "$(proc_field "$1" Uid)" = "$3" ]
}

# privs_attach_queries PTAP NAME: as PU, attach PTAP to the query_server of
# privs_fifo_target NAME, send it the sample's queries, and check ptap's
# records against what it states.
privs_attach_queries() {
	local pid rc=0
	"${AS_USER[@]}" "$1" record -v -o "$PD/$2.rec" -e "$PRIVS_QS_PROBE" -p "$QPID" 2>"$PD/$2.err" 8>&- &
	pid=$!
	wait_for grep -q "attached to pid $QPID (query_server)" "$PD/$2.err" ||
		{ cat "$PD/$2.err" >&2; return 1; }
	cat samples/queries.txt >&8
	exec 8>&-
	wait_ptap "$pid" || rc=$?
	cat "$PD/$2.err" >&2
	expect_eq "ptap's exit status" 0 "$rc"
	wait "$QPID" || fail "query_server failed"
	normalize "$PD/$2.rec" >"$PD/$2.got"
	expect_diff "$PD/$2.expect" "$PD/$2.got"
	expect_eq "records" 7 "$(records "$PD/$2.rec" | wc -l)"
}

# privs_other_process: OPID, a running process of another user than PU
# (root's, started here, when root), OUID its uid; the test skips when there
# is none.
privs_other_process() {
	if [ "$(id -u)" = 0 ]; then
		sleep 60 &
		OPID=$!
		PKILL="$PKILL $OPID"
	else
		OPID=$(ps -N --ppid 2 -p 2 -o pid=,uid= | awk -v u="$PUID" '$2 != u { print $1; exit }')
	fi
	[ -n "$OPID" ] || skip "no process of another user than $PU"
	OUID=$(awk '$1 == "Uid:" { print $2 }' /proc/"$OPID"/status)
}

# privs_refused PTAP WANT: as PU, PTAP attaching to OPID exits 2 saying WANT,
# and leaves OPID untraced.
privs_refused() {
	local rc=0
	as_user "$1" record -o "$PD/ref.rec" -x "$S/query_server" -e exec_query -p "$OPID" \
		2>"$PD/ref.err" || rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep "$2" "$PD/ref.err"
	expect_eq "tracer of $OPID" 0 "$(proc_field "$OPID" TracerPid)"
}

# The user launches the sample: the records hold what it states.
test_privs_own_launch() {
	privs_setup
	as_user "$PTAP_ABS" record -o "$PD/rec" -e "$PRIVS_QS_PROBE" -- "$S/query_server" \
		samples/queries.txt 3>"$PD/expect" >/dev/null
	normalize "$PD/rec" >"$PD/got"
	expect_diff "$PD/expect" "$PD/got"
	expect_eq "records" 7 "$(records "$PD/rec" | wc -l)"
}

# The user attaches to its own process, which is not ptap's child.
test_privs_own_attach() {
	privs_setup
	privs_fifo_target own
	privs_attach_queries "$PTAP_ABS" own
}

# Another user's process: refused with the reason, by the kernel's rules.
test_privs_other_user_refused() {
	privs_setup
	privs_other_process
	privs_refused "$PTAP_ABS" "pid $OPID belongs to uid $OUID: run ptap as that user or as root"
}

# A copy with cap_sys_ptrace+ep, launched by the user: the command holds no
# capability, has the user's uids and gids, and a setuid program it runs in
# the traced tree gains nothing (ptap's capability would otherwise let the
# kernel apply the setuid bit under a tracer).
test_privs_setcap_launch() {
	privs_setup
	privs_need_root "setcap needs CAP_SETFCAP"
	privs_capdir
	as_user "$CD/ptap" record -o "$PD/rec" -e "$PRIVS_QS_PROBE" -- "$S/query_server" \
		samples/queries.txt 3>"$PD/expect" >/dev/null
	normalize "$PD/rec" >"$PD/got"
	expect_diff "$PD/expect" "$PD/got"
	as_user "$CD/ptap" record -o "$PD/rec2" --syscalls getpid -- cat /proc/self/status \
		>"$PD/status"
	expect_eq "the command's capabilities" "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapAmb:0000000000000000" \
		"$(grep -E '^Cap(Inh|Prm|Eff|Amb):' "$PD/status" | tr -d '\t' | xargs)"
	expect_eq "the command's uids" "$PUID $PUID $PUID $PUID" \
		"$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$PD/status")"
	expect_eq "the command's gids" "$PGID $PGID $PGID $PGID" \
		"$(awk '$1 == "Gid:" { print $2, $3, $4, $5 }' "$PD/status")"
	as_user "$CD/ptap" record -o "$PD/rec3" --syscalls geteuid -- "$CD/suid_id" -u >"$PD/id"
	expect_eq "effective uid of a setuid-root program in the traced tree" "$PUID" \
		"$(cat "$PD/id")"
	expect_grep "geteuid: duration=[0-9]*ns ret=$PUID\$" "$PD/rec3"
}

# The copy attaches to the user's own process that is not its child (what
# Yama's ptrace_scope 1 allows only with CAP_SYS_PTRACE) and to a thread id
# of it, and refuses other users' processes, naming the reason.
test_privs_setcap_attach() {
	local yama rc=0 apid tid
	privs_setup
	privs_need_root "setcap needs CAP_SETFCAP"
	privs_capdir
	yama=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo "absent (no Yama)")
	echo "kernel.yama.ptrace_scope: $yama"
	privs_fifo_target capown
	privs_attach_queries "$CD/ptap" capown
	# a thread id of the user's multi-threaded process
	"${AS_USER[@]}" "$S/scen/attach_target" 4 >"$PD/tout" 2>&1 &
	apid=$!
	PKILL="$PKILL $apid"
	wait_for grep -q '^READY ' "$PD/tout"
	for tid in /proc/"$apid"/task/*; do
		tid=${tid##*/}
		[ "$tid" = "$apid" ] || break
	done
	as_user "$CD/ptap" record -o "$PD/mt.rec" --duration 1 -e 'probe_me a s' -p "$tid" \
		2>"$PD/mt.err" || rc=$?
	expect_eq "exit status (thread id)" 0 "$rc"
	expect_grep "thread $tid belongs to process $apid; tracing $apid" "$PD/mt.err"
	# each worker's calls, in order: a = 0, 1, 2, ... from where ptap came in
	expect_eq "records out of order or with wrong values" "" "$(records "$PD/mt.rec" |
		awk '{ split($2, p, "/"); t = p[2] }
		     !/: probe_me: \(0x[0-9a-f]+\) a=[0-9]+ s="x"$/ { print "bad: " $0; next }
		     { sub(/.* a=/, ""); a = $0 + 0 }
		     (t in last) && a != last[t] + 1 { print t ": " last[t] " then " a }
		     { last[t] = a; n++ } END { if (n < 100) print n " records" }')"
	# root's process, and nobody's
	privs_other_process
	privs_refused "$CD/ptap" "pid $OPID belongs to uid $OUID: ptap has CAP_SYS_PTRACE but traces only its user's (uid $PUID) processes; run ptap as that user or as root"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all sleep 60 &
	OPID=$!
	PKILL="$PKILL $OPID"
	wait_for privs_runs "$OPID" sleep 65534
	privs_refused "$CD/ptap" "pid $OPID belongs to uid 65534: ptap has CAP_SYS_PTRACE"
}

# The copy attached to the user's shell, which then execs a setuid-root
# program: that program runs as it would untraced (euid 0), and ptap lets it
# go at the exec, before any of it is read; no record comes from it.
test_privs_setcap_setuid_exec() {
	local pid rc=0 spid
	privs_setup
	privs_need_root "setcap needs CAP_SETFCAP"
	privs_capdir
	mkfifo "$PD/go"
	exec 8<>"$PD/go"
	# shellcheck disable=SC2016 # $1 is the inner shell's
	"${AS_USER[@]}" sh -c 'read -r x; exec "$1"' sh "$CD/suid_id" <"$PD/go" >"$PD/id" 2>&1 8>&- &
	spid=$!
	PKILL="$PKILL $spid"
	wait_for privs_runs "$spid" sh "$PUID"
	"${AS_USER[@]}" "$CD/ptap" record -v -o "$PD/rec" --events task -x "$LIBC" -e geteuid \
		-p "$spid" 2>"$PD/err" 8>&- &
	pid=$!
	wait_for grep -q "attached to pid $spid" "$PD/err" || { cat "$PD/err" >&2; return 1; }
	echo go >&8
	wait_ptap "$pid" || rc=$?
	cat "$PD/err" >&2
	expect_eq "ptap's exit status" 0 "$rc"
	wait "$spid" || fail "the setuid program failed"
	expect_grep "pid $spid runs with other credentials or is not dumpable (setuid, setgid, or prctl(PR_SET_DUMPABLE, 0)): ptap traces it only when run as root; not traced after its exec" "$PD/err"
	expect_grep "euid=0(root)" "$PD/id"
	expect_eq "records of the setuid program" 0 "$(records "$PD/rec" | grep -c '^suid_id ' || true)"
}

# -u USER: the command runs as USER (uid, gid, groups, no capability, no
# no_new_privs: its setuid programs work), ptap stays root, records as usual,
# and the files it creates are USER's.
test_privs_run_as_user() {
	local want
	privs_setup
	privs_need_root "-u is for root"
	mkdir "$PD/u"
	chmod 777 "$PD/u"
	"$PTAP_ABS" record -u nobody -o "$PD/rec" -e "$PRIVS_QS_PROBE" -- "$S/query_server" \
		samples/queries.txt "$PD/u/results" 3>"$PD/expect" >/dev/null
	normalize "$PD/rec" >"$PD/got"
	expect_diff "$PD/expect" "$PD/got"
	expect_eq "owner of the command's file" nobody "$(stat -c %U "$PD/u/results")"
	expect_eq "owner of ptap's output" root "$(stat -c %U "$PD/rec")"
	"$PTAP_ABS" record -u nobody -o "$PD/rec2" --syscalls geteuid -- id -u >"$PD/id"
	expect_eq "id -u under -u nobody" 65534 "$(cat "$PD/id")"
	expect_grep "^id [0-9]*/[0-9]* [0-9.]*: geteuid: duration=[0-9]*ns ret=65534\$" "$PD/rec2"
	"$PTAP_ABS" record -u nobody -o "$PD/rec3" --syscalls getpid -- cat /proc/self/status \
		>"$PD/status"
	expect_eq "uids" "65534 65534 65534 65534" \
		"$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$PD/status")"
	want=$(id -g nobody)
	expect_eq "gids" "$want $want $want $want" \
		"$(awk '$1 == "Gid:" { print $2, $3, $4, $5 }' "$PD/status")"
	expect_eq "groups (initgroups)" "$(id -G nobody | tr ' ' '\n' | sort -n | xargs)" \
		"$(awk '$1 == "Groups:" { $1 = ""; print }' "$PD/status" | tr ' ' '\n' | sort -n | xargs)"
	expect_eq "CapEff" 0000000000000000 "$(awk '$1 == "CapEff:" { print $2 }' "$PD/status")"
	expect_eq "NoNewPrivs" 0 "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$PD/status")"
	# a setuid-root program run as nobody works as it would for nobody
	privs_capdir
	"$PTAP_ABS" record -u nobody -o "$PD/rec4" --syscalls geteuid -- "$CD/suid_id" -u >"$PD/id"
	expect_eq "setuid program under -u nobody" 0 "$(cat "$PD/id")"
}

# -u refused: not root, an unknown user, with -p.
test_privs_run_as_refused() {
	local rc=0
	privs_setup
	if [ "$PUID" != 0 ]; then
		as_user "$PTAP_ABS" record -u root --syscalls getpid -- true 2>"$PD/err" || rc=$?
		expect_eq "exit status (not root)" 2 "$rc"
		expect_grep "ptap: -u root: only root can run the command as another user (ptap runs as uid $PUID)" "$PD/err"
	fi
	if [ "$(id -u)" = 0 ]; then
		rc=0
		"$PTAP_ABS" record -u no-such-user-ptap --syscalls getpid -- true 2>"$PD/err" || rc=$?
		expect_eq "exit status (unknown user)" 2 "$rc"
		expect_eq "message" "ptap: -u no-such-user-ptap: no such user" "$(cat "$PD/err")"
	fi
	rc=0
	"$PTAP_ABS" record -u nobody --syscalls getpid -p $$ 2>"$PD/err" || rc=$?
	expect_eq "exit status (-u with -p)" 2 "$rc"
	expect_grep "ptap: record: -u nobody runs a launched COMMAND as that user: an attached process (-p) keeps its own" "$PD/err"
}
