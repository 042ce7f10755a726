# make install and the man page: installed where PREFIX and DESTDIR say, and
# naming every option `ptap CMD --help` names.

test_install_destdir() {
	need_cmd man man-db || return
	# -o: the ptap under test as it is (make must not rebuild it with other flags)
	make --no-print-directory -o "$O/ptap" O="$O" PREFIX=/usr DESTDIR="$TMP/inst" install \
		>"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "make install failed"; return; }
	[ -x "$TMP/inst/usr/bin/ptap" ] || fail "no $TMP/inst/usr/bin/ptap"
	cmp -s "$O/ptap" "$TMP/inst/usr/bin/ptap" || fail "the installed ptap is not $O/ptap"
	expect_grep '^ptap ' <("$TMP/inst/usr/bin/ptap" --version)
	# man finds it where the installed tree's man pages are, and groff takes it
	# without a warning
	MANPATH="$TMP/inst/usr/share/man" MANWIDTH=80 man --warnings ptap >"$TMP/man" 2>"$TMP/err" ||
		fail "man ptap failed: $(cat "$TMP/err")"
	[ ! -s "$TMP/err" ] || fail "man ptap warned: $(cat "$TMP/err")"
	expect_grep '^NAME' "$TMP/man"
	expect_grep 'ptap - record the arguments of user-space functions' "$TMP/man"
	for c in record list vars maps report; do
		expect_grep "^   ptap $c\$" "$TMP/man" || return
	done
}

test_man_names_every_option() {
	scripts/check-man.sh "$PTAP" man/ptap.1 2>"$TMP/err" ||
		fail "man/ptap.1 and --help differ: $(cat "$TMP/err")"
	# the check can fail: an option the man page lacks is found
	grep -v 'no.-inlines' man/ptap.1 >"$TMP/less.1"
	! scripts/check-man.sh "$PTAP" "$TMP/less.1" 2>"$TMP/err" ||
		fail "check-man.sh passed a man page without --no-inlines"
	expect_grep 'ptap record: .* lacks --no-inlines' "$TMP/err"
}
