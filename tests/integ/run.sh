#!/bin/bash
# tests/integ/run.sh [BUILD-DIR [REGEX]]: run build/ptap on the samples and
# compare what it records with what the samples state they did (only the
# tests whose names match REGEX, when given).
set -u
O=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/integ/lib.sh
for f in tests/integ/t_*.sh; do
	. "$f"
done

passed=0 failed=0
for t in $(declare -F | awk '{ print $3 }' | grep '^test_' | grep -E -- "${2:-.}"); do
	# Not in an `if` or `||`: there bash ignores set -e, even in a subshell,
	# and only a test's last command would count.
	( set -e; "$t" ) >"$TMP/test.log" 2>&1
	if [ $? = 0 ]; then
		passed=$((passed + 1))
		echo "  ok    ${t#test_}"
	else
		failed=$((failed + 1))
		echo "  FAIL  ${t#test_}"
		sed 's/^/        /' "$TMP/test.log"
	fi
done
echo "integration: $passed passed, $failed failed"
[ "$failed" = 0 ]
