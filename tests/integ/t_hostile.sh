# tests/integ/t_hostile.sh: a traced program cannot forge records or reach
# the terminal through what ptap captures (issue 9 item 3), and cannot grow
# ptap's memory or lose records by outrunning the output (item 5).

FORGE=$S/scen/forge
# forge run through a symlink named as a terminal title sequence: its comm
FORGE_COMM=$'\e]0;pwn\a'
FORGE_COMM_HEX=1b5d303b70776e07

# forge_run DIR FORMAT: record forge (its comm hostile too) into DIR/rec,
# what it passed into DIR/expect.
forge_run() {
	mkdir -p "$1"
	ln -sf "$(readlink -f "$FORGE")" "$1/$FORGE_COMM"
	run_ptap record --format "$2" --events task -o "$1/rec" -e 'take i s n' \
		-- "$1/$FORGE_COMM" 3>"$1/expect" >"$1/out"
	expect_grep '^forge: 16 calls$' "$1/out"
	expect_grep '^BYTES-OK$' "$1/out"
}

test_hostile_text_one_line_per_record() {
	forge_run "$TMP/ht" text
	# the stream: the clock line, exec, 16 takes, exit; nothing raw in it
	expect_eq "lines" 19 "$(wc -l <"$TMP/ht/rec")"
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/ht/rec"; then
		fail "a raw control byte in the text records"
	fi
	python3 tests/integ/forge_check.py text "$TMP/ht/rec" "$TMP/ht/expect" "$FORGE_COMM_HEX"
	# the forged record stays inside its string; the comm is escaped
	local forged='i=1 s="x\\nx 1/1 0.000000001: evil: (0x0)" n=32$'
	expect_grep '^\\x1b\]0;pwn\\x07 [0-9]*/[0-9]* [0-9.]*: take: (0x[0-9a-f]*) '"$forged" \
		"$TMP/ht/rec"
	expect_grep ' i=5 s="\\u009b31mred\\u009d0;t\\u009c" n=15$' "$TMP/ht/rec"
	expect_grep ' i=13 s="ABC.*"\.\.\.(+44 bytes) n=300$' "$TMP/ht/rec"
	expect_grep ' i=14 s="ABC.*"\.\.\.(+65536 bytes or more) n=200000$' "$TMP/ht/rec"
	expect_grep ' i=15 s="UUU*"\.\.\.(+44 bytes or more) n=300$' "$TMP/ht/rec"
}

test_hostile_json_valid_and_round_trips() {
	forge_run "$TMP/hj" json
	expect_eq "lines" 19 "$(wc -l <"$TMP/hj/rec")"
	python3 tests/integ/forge_check.py json "$TMP/hj/rec" "$TMP/hj/expect" "$FORGE_COMM_HEX"
	expect_grep '"s":{"value":"ABC[^}]*","truncated":true,"length":300}' "$TMP/hj/rec"
	expect_grep '"s":{"value":"ABC[^}]*","truncated":true,"length_min":65792}' "$TMP/hj/rec"
	# a longer limit: the whole 300 bytes, and the long one's length known
	run_ptap record --format json --string-max 4096 -o "$TMP/hj/rec2" -e 'take i s n' \
		-- "$FORGE" >/dev/null
	expect_grep '"i":13,"s":"ABC.*","n":300}' "$TMP/hj/rec2"
	expect_grep '"s":{"value":"ABC[^}]*","truncated":true,"length_min":69632}' "$TMP/hj/rec2"
	# the perfetto document too is JSON, its strings escaped the same way
	run_ptap record --format perfetto -o "$TMP/hj/trace.json" -e 'take i s n' \
		-- "$TMP/hj/$FORGE_COMM" >/dev/null
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/hj/trace.json"
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/hj/trace.json"; then
		fail "a raw control byte in the perfetto document"
	fi
	expect_grep '\\u009b31mred' "$TMP/hj/trace.json"
}

# peak_kb OUT CMD...: run CMD (stdout to OUT), print its peak RSS in KB: the
# wait4() ru_maxrss, ptap's own (or its traced child's, when larger).
peak_kb() {
	local out=$1
	shift
	python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.execvp(sys.argv[2], sys.argv[2:])
_, st, ru = os.wait4(pid, 0)
print(ru.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(st))' "$out" timeout 120 "$@"
}

test_hostile_memory_bounded_by_hit_rate() {
	local small big
	# the target alone is smaller than ptap: the peak is ptap's
	small=$(peak_kb "$TMP/rss1" "$PTAP" record -o /dev/null -e 'take i s n' \
		-- "$FORGE" spin 10000)
	big=$(peak_kb "$TMP/rss2" "$PTAP" record -o /dev/null -e 'take i s n' \
		-- "$FORGE" spin 1000000)
	expect_grep '^forge: 10000 calls$' "$TMP/rss1"
	expect_grep '^forge: 1000000 calls$' "$TMP/rss2"
	echo "peak RSS: 10k hits $small KB, 1M hits $big KB"
	[ "$big" -le $((small + 512)) ] ||
		fail "peak RSS grew with the hits: $small KB for 10k, $big KB for 1M"
}

test_hostile_slow_reader_waits() {
	local n=30000 t0 t1 ms waited tail='(the traced threads waited too; no record was dropped)$'
	t0=$(date +%s%N)
	run_ptap record -e 'take i s n' -- "$FORGE" spin $n 2>"$TMP/sr.err" |
		(sleep 2; cat) >"$TMP/sr.out"
	t1=$(date +%s%N)
	# every call recorded, in order: none dropped
	expect_eq "records" "$n" "$(grep -c ' take: ' "$TMP/sr.out")"
	grep ' take: ' "$TMP/sr.out" | sed -E 's/.* i=([0-9]+) .*/\1/' |
		awk '$1 != NR - 1 { print "record " NR ": i=" $1; bad = 1; exit }
		     END { exit bad }' ||
		fail "records missing or out of order"
	expect_grep "^forge: $n calls\$" "$TMP/sr.out"
	expect_grep "^ptap: waited [0-9.]* s in all for the output to take $n records $tail" \
		"$TMP/sr.err"
	waited=$(sed -nE 's/^ptap: waited ([0-9.]+) s in all.*/\1/p' "$TMP/sr.err")
	ms=$(( (t1 - t0) / 1000000 ))
	echo "waited $waited s of $ms ms"
	awk -v w="$waited" -v el="$ms" 'BEGIN { exit !(w >= 1.0 && w * 1000 <= el) }' ||
		fail "waited $waited s: not between 1 s and the $ms ms of the run"
}

# An output pipe left O_NONBLOCK (by a parent that shares it): a full pipe
# is waited for, not taken as a failed write.
test_hostile_nonblocking_output_waits() {
	local n=20000
	python3 -c 'import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
err = open(sys.argv[2], "w")
p = subprocess.Popen(sys.argv[3:], stdout=w, stderr=err)
os.close(w)
time.sleep(1)
with open(sys.argv[1], "wb") as out:
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        out.write(b)
sys.exit(p.wait())' "$TMP/nb.out" "$TMP/nb.err" timeout 60 "$PTAP" record -e 'take i s n' \
		-- "$FORGE" spin $n
	expect_eq "records" "$n" "$(grep -c ' take: ' "$TMP/nb.out")"
	expect_grep "for the output to take $n records (.*no record was dropped)" "$TMP/nb.err"
	if grep -q 'could not be written' "$TMP/nb.err"; then
		fail "records lost: $(cat "$TMP/nb.err")"
	fi
}
