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
	ln -sf "$PWD/$FORGE" "$1/$FORGE_COMM"
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
