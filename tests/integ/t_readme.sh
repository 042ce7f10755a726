# The README's examples, run in order as a reader would after `make demo` and
# `make samples`, print what the README shows (tests/integ/readme_check.py).

test_readme_examples() {
	need_cmd python3 python3 || return
	README_BUILD="$O" python3 tests/integ/readme_check.py README.md "$TMP" >"$TMP/out" 2>&1 ||
		{ grep -v ': ok (' "$TMP/out" | sed 's/^/      /' >&2; fail "README examples"; return; }
	expect_grep '^[1-9][0-9]* examples, 0 failed$' "$TMP/out"
}
