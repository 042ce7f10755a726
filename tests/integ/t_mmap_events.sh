# --events mmap (issue 8, item 3): the map table's changes as records of
# kind "mmap", checked against the process's own /proc/PID/maps, what the
# sample states it did, readelf's build-ids and stat's dev:inode
# (tests/integ/mmap_check.py replays the records into a table).

MM_CHECK=tests/integ/mmap_check.py
PLUGIN=$S/libplugin.so

# dlopen_host under --events mmap, JSON: at each load the replayed table is
# its /proc/self/maps (fd 4), the loader's records of libplugin.so carry
# its build-id, each dlclose unmaps what the load reserved.
test_mmap_events_launch_json() {
	run_ptap record --events mmap --format json -o "$TMP/rec" -x "$PLUGIN" \
		-e 'plugin_handle %di:string' -- "$S/dlopen_host" "$PLUGIN" 2 \
		4>"$TMP/maps" >"$TMP/out"
	expect_grep '^dlopen_host: done$' "$TMP/out"
	python3 $MM_CHECK launch "$TMP/rec" "$TMP/maps" "$PLUGIN" "$S/dlopen_host"
	# nothing but JSON objects, the mmap ones of kind "mmap"
	records "$TMP/rec" | grep -v '^{"ts":[0-9]*,.*}$' | grep . && fail "not one object per line"
	expect_eq "kinds" "entry mmap" "$(records "$TMP/rec" |
		sed -E 's/.*"kind":"([a-z]+)".*/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')"
}

# Each kind of change, as mmap_ops states it made them (fd 3): mmap of
# anonymous memory, of a file and of that file once deleted ("(deleted)"),
# of an ELF file (its build-id, dev, inode), mremap, mprotect, munmap.
test_mmap_events_ops() {
	run_ptap record --events mmap --format json -o "$TMP/rec" -e 'step i' \
		-- "$S/scen/mmap_ops" "$TMP/mapped" 3>"$TMP/stated" >"$TMP/out"
	expect_grep '^mmap_ops: done$' "$TMP/out"
	python3 $MM_CHECK ops "$TMP/rec" "$TMP/stated" "$S/scen/mmap_ops"
}

# The text form: libplugin.so's r-x mapping, with stat's dev:inode and
# readelf's build-id; the executable's "map" record; a munmap.
test_mmap_events_text() {
	local lib dev ino bid exe ebid re
	lib=$(realpath "$PLUGIN")
	exe=$(realpath "$S/dlopen_host")
	dev=$(python3 -c 'import os, sys; s = os.stat(sys.argv[1])
print("%02x:%02x" % (os.major(s.st_dev), os.minor(s.st_dev)))' "$lib")
	ino=$(stat -c %i "$lib")
	bid=$(readelf -n "$lib" | awk '/Build ID:/ { print $3 }')
	ebid=$(readelf -n "$exe" | awk '/Build ID:/ { print $3 }')
	run_ptap record --events mmap -o "$TMP/rec" -x "$PLUGIN" -e 'plugin_handle %di:string' \
		-- "$S/dlopen_host" "$PLUGIN" 1 >/dev/null
	records "$TMP/rec" >"$TMP/body"
	re="^dlopen_host [0-9]+/[0-9]+ [0-9.]+: mmap: \((0x[0-9a-f]+)\) addr=\1 len=4096 "
	re+="pgoff=4096 prot=r-x flags=MAP_PRIVATE\|MAP_FIXED\|MAP_DENYWRITE file=\"$lib\" "
	re+="dev=$dev inode=$ino build_id=$bid\$"
	expect_eq "libplugin.so r-x mmaps (one per load)" 2 "$(grep -cE "$re" "$TMP/body")"
	expect_grep "^dlopen_host [0-9/]* [0-9.]*: map: (0x[0-9a-f]*) addr=0x[0-9a-f]* len=[0-9]* \
pgoff=[0-9]* prot=r-x flags=MAP_PRIVATE file=\"$exe\" dev=..:.. inode=[0-9]* build_id=$ebid\$" \
		"$TMP/body"
	expect_grep ': map: (0x[0-9a-f]*) addr=0x[0-9a-f]* len=[0-9]* pgoff=0 prot=rw- '\
'flags=MAP_PRIVATE|MAP_ANONYMOUS name="\[stack\]"$' "$TMP/body"
	expect_grep ': munmap: (\(0x[0-9a-f]*\)) addr=\1 len=20480$' "$TMP/body"
	expect_grep ': mprotect: (\(0x[0-9a-f]*\)) addr=\1 len=4096 prot=r--$' "$TMP/body"
}

# --events task,mmap: both kinds, exec first, then its mappings, exit last;
# --events task --events mmap is the same; --events task alone writes no
# mmap record, and an unknown kind is a usage error naming the kinds.
test_mmap_events_with_task() {
	local rc=0 v
	for v in "--events task,mmap" "--events task --events mmap" "--events mmap,task"; do
		# shellcheck disable=SC2086
		run_ptap record $v -o "$TMP/rec" -x "$PLUGIN" -e 'plugin_handle %di:string' \
			-- "$S/dlopen_host" "$PLUGIN" 1 >/dev/null
		records "$TMP/rec" | awk '{ sub(/:$/, "", $4); print $4 }' | uniq \
			>"$TMP/events"
		expect_eq "$v: first events" "exec map mmap" \
			"$(head -3 "$TMP/events" | tr '\n' ' ' | sed 's/ $//')"
		expect_eq "$v: last" "exit" "$(tail -1 "$TMP/events")"
		expect_grep ': exit: status=0$' "$TMP/rec"
		expect_grep '^mprotect$' "$TMP/events"
		expect_grep '^munmap$' "$TMP/events"
	done
	run_ptap record --events task -o "$TMP/rec" -x "$PLUGIN" -e 'plugin_handle %di:string' \
		-- "$S/dlopen_host" "$PLUGIN" 1 >/dev/null
	! grep -qE ': (map|mmap|munmap|mprotect|mremap): ' "$TMP/rec" ||
		fail "mmap records without --events mmap"
	run_ptap record --events task,bogus -e main -- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err" ||
		rc=$?
	expect_eq "exit status" 2 "$rc"
	expect_grep 'events task,bogus: .*task.*mmap' "$TMP/err"
	[ ! -e "$TMP/ran" ] || fail "the command ran"
	[ ! -s "$TMP/out" ] || fail "output on stdout: $(cat "$TMP/out")"
}

# Attached (-p) to attach_load, which dlopens libplugin.so 3 times once
# traced: the "map" records are its maps at the attach; each load comes as
# mmap records (from the r_brk resync, or from the syscalls with
# --mmap-tracking=syscall) with the build-id; each hit lies in the replayed
# r-x mapping at plugin_handle's offset.
test_mmap_events_attach() {
	local target p rc mode
	for mode in rbrk syscall; do
		rm -f "$TMP/out"
		"$S/scen/attach_load" dlopen 3 "$PLUGIN" >"$TMP/out" 2>&1 &
		target=$!
		wait_for grep -q READY "$TMP/out"
		cat "/proc/$target/maps" >"$TMP/maps"
		# probe_me (never called here): the target starts once it is planted
		"$PTAP" record --events mmap --mmap-tracking=$mode --format json -o "$TMP/rec" \
			-e probe_me -x "$PLUGIN" -e 'plugin_handle request:string n' -p "$target" \
			2>"$TMP/err" &
		p=$!
		wait_for grep -q '^CYCLES 3$' "$TMP/out"
		kill -INT "$p"
		rc=0
		wait_ptap "$p" || rc=$?
		expect_eq "$mode: ptap exit status" 0 "$rc"
		rc=0
		wait "$target" || rc=$?
		expect_eq "$mode: target exit status" 0 "$rc"
		expect_grep '^EXIT-SUCCESS$' "$TMP/out"
		python3 $MM_CHECK attach "$TMP/rec" "$TMP/maps" "$PLUGIN" 3 ||
			fail "mmap_check attach, --mmap-tracking=$mode; ptap said: $(cat "$TMP/err")"
	done
}

# An ordinary user cannot open /proc/PID/map_files (CAP_SYS_ADMIN): the
# "map" records' build-ids then come from the mapped files' paths, the
# mmap records' from /proc/PID/fd.  Needs root, to become one.
test_mmap_events_unprivileged() {
	local d=$TMP/mm_nobody
	[ "$(id -u)" = 0 ] || skip "not root (needed to become nobody)"
	need_cmd setpriv util-linux
	mkdir -m 777 "$d"
	chmod 755 "$TMP"
	cp "$S/dlopen_host" "$S/libplugin.so" "$d/"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$(realpath "$PTAP")" record --events mmap --format json -o "$d/rec" \
		-x "$d/libplugin.so" -e 'plugin_handle %di:string' \
		-- "$d/dlopen_host" "$d/libplugin.so" 2 4>"$d/maps" >/dev/null
	python3 $MM_CHECK launch "$d/rec" "$d/maps" "$d/libplugin.so" "$d/dlopen_host"
}
