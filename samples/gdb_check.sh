#!/bin/bash
# samples/gdb_check.sh BINARY PLACE PROBE-FILE [ARG...]: run BINARY under gdb
# with samples/gdb_expect.py, and compare, event by event, what gdb reads at
# the probe sites with what BINARY states on fd 3.  PLACE: entry (optimized
# code), prologue (-O0) or inline.  Prints the differences; exit 0 when none.
set -u
bin=$1 place=$2 probes=$3
shift 3
dir=$(mktemp -d /tmp/gdb_check.XXXXXX)
trap 'rm -rf "$dir"' EXIT
GDBX_PROBES=$probes GDBX_OUT=$dir/gdb GDBX_PLACE=$place \
	gdb -q -batch -x "$(dirname "$0")/gdb_expect.py" \
	-ex "run $* 3>$dir/stated >/dev/null" "$bin" >"$dir/log" 2>&1
if grep -q '^Error\|Traceback\|^No symbol' "$dir/log"; then
	cat "$dir/log"
	exit 1
fi
rc=0
for ev in $(sed 's/:.*//' "$dir/gdb" | sort -u); do
	if ! diff <(grep "^$ev: \|^$ev:\$" "$dir/stated") <(grep "^$ev: \|^$ev:\$" "$dir/gdb") \
		>"$dir/diff"; then
		echo "== $ev: differs (< stated, > gdb)"
		cat "$dir/diff"
		rc=1
	else
		echo "== $ev: $(grep -c "^$ev:" "$dir/gdb") hits agree"
	fi
done
[ -s "$dir/gdb" ] || { echo "gdb recorded nothing"; cat "$dir/log"; rc=1; }
exit $rc
