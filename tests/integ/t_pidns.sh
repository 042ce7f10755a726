# PID namespaces (scenario 25, pidns-init): ptap, outside the namespace,
# records pids as its own namespace sees them (as ptrace reports them), and
# the kernel killing the whole namespace at once does not hang it.

PIDNS_INIT=$S/scen/pidns_init

# pidns_find_init: print the host pid of the pidns_init that is pid 1 of its
# namespace (NSpid: HOST 1); fails when there is none (yet).
pidns_find_init() {
	local p
	for p in $(pgrep -x pidns_init); do
		if awk '$1 == "NSpid:" && $NF == 1 { found = 1 } END { exit !found }' \
			/proc/"$p"/status 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# pidns_children INIT N: INIT has N children that have printed "child PID".
pidns_children() {
	[ "$(pgrep -c -P "$1")" = "$2" ] && [ "$(grep -c '^child ' "$TMP/pidns_out")" = "$2" ]
}

# pidns_untraced_status: the exit status of the same command, untraced, when
# its init is killed (unshare's answer to that differs between util-linux
# versions: 2.38 exits 1).
pidns_untraced_status() {
	local u init rc=0
	unshare --pid --fork --mount-proc "$PIDNS_INIT" >"$TMP/pidns_ref" 2>/dev/null &
	u=$!
	wait_for pidns_find_init
	init=$(pidns_find_init)
	kill -KILL "$init"
	wait "$u" || rc=$?
	echo "$rc"
}

# The traced command is `unshare --pid --fork --mount-proc pidns_init`: an init
# with 5 children calling probe_me.  A second after they start the harness
# kills the init, so the kernel kills the whole namespace at once.  ptap, outside
# the namespace, records with its own namespace's pids, ends within 2 s and
# leaves nothing behind, stopped or not.
test_pidns_init_killed() {
	local pid init kids recpids rc=0
	command -v unshare >/dev/null || fail "unshare (util-linux) not found"
	rm -f "$TMP/rec" "$TMP/pidns_out"
	"$PTAP" record -o "$TMP/rec" -x "$PIDNS_INIT" -e probe_me \
		-- unshare --pid --fork --mount-proc "$PIDNS_INIT" >"$TMP/pidns_out" 2>"$TMP/err" &
	pid=$!
	wait_for pidns_find_init
	init=$(pidns_find_init)
	wait_for pidns_children "$init" 5
	expect_grep '^init 1$' "$TMP/pidns_out"
	kids=$(pgrep -P "$init" | sort -n | tr '\n' ' ')
	sleep 1
	kill -KILL "$init"
	for _ in $(seq 20); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ps -o pid,stat,args --ppid "$pid" -p "$pid" >&2 || true
		kill -KILL "$pid"
		no_leftovers "$PIDNS_INIT" || true
		fail "ptap still running 2 s after the namespace init was killed"
	fi
	wait "$pid" || rc=$?
	expect_eq "exit status (unshare's own, untraced)" "$(pidns_untraced_status)" "$rc"
	recpids=$(awk '/: probe_me: / { split($2, a, "/"); print a[1] }' "$TMP/rec" | sort -n -u |
		  tr '\n' ' ')
	expect_eq "processes with records (host pids of the 5 children)" "$kids" "$recpids"
	no_leftovers "$PIDNS_INIT"
}
