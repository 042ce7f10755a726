#!/bin/bash
# tests/integ/run.sh [BUILD-DIR [REGEX]]: run build/ptap on the samples and
# compare what it records with what the samples state they did (only the
# tests whose names match REGEX, when given).
#
# A test that cannot run here (lib.sh's skip: no other user, a core_pattern
# that is a pipe, ...) prints "SKIP  NAME: REASON" and is counted as skipped.
# Run as root, a skip is a failure: root can install every dependency
# (scripts/deps.sh, which make test runs) and become any user, so nothing
# should skip there, as nothing does in CI.  PTAP_ALLOW_SKIP=1 lets root's
# skips through as skips (counted, not failed).  Exit status 0 when no test
# failed.
set -u
O=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/integ/lib.sh
for f in tests/integ/t_*.sh; do
	. "$f"
done

skips_fail=
[ "$(id -u)" = 0 ] && [ "${PTAP_ALLOW_SKIP:-}" != 1 ] && skips_fail=1

passed=0 failed=0 skipped=0
for t in $(declare -F | awk '{ print $3 }' | grep '^test_' | grep -E -- "${2:-.}"); do
	rm -f "$TMP/test.skip"
	# Not in an `if` or `||`: there bash ignores set -e, even in a subshell,
	# and only a test's last command would count.  TEST_SHELL: the
	# subshell's pid, where skip may exit.
	( set -e; TEST_SHELL=$BASHPID; "$t" ) >"$TMP/test.log" 2>&1
	rc=$?
	reason=
	[ $rc = "$SKIP_STATUS" ] && [ -f "$TMP/test.skip" ] && reason=$(cat "$TMP/test.skip")
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		echo "  ok    ${t#test_}"
	elif [ -n "$reason" ] && [ -z "$skips_fail" ]; then
		skipped=$((skipped + 1))
		echo "  SKIP  ${t#test_}: $reason"
	elif [ -n "$reason" ]; then
		failed=$((failed + 1))
		echo "  FAIL  ${t#test_}: skipped as root: $reason"
		echo "        (root: every dependency should be here, scripts/deps.sh installs them;"
		echo "        PTAP_ALLOW_SKIP=1 counts this as a skip instead)"
		sed 's/^/        /' "$TMP/test.log"
	else
		failed=$((failed + 1))
		echo "  FAIL  ${t#test_}"
		sed 's/^/        /' "$TMP/test.log"
	fi
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
