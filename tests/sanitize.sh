#!/bin/bash
# tests/sanitize.sh REPORTS-DIR COMMAND [ARG...]: run COMMAND (the unit or the
# integration tests built with ASan and UBSan: `make unit-asan`, `make
# integ-asan`) with each sanitizer report written to REPORTS-DIR; fail when
# COMMAND does or when any report was written.
#
# The reports decide, not only the exit statuses: Criterion runs each test in
# a worker process whose LeakSanitizer check runs at its exit, after the test
# was counted as passed, so a leak alone changes no status; and a ptap that
# leaks exits 23, which a test expecting a failure status may take for one.
set -u
[ $# -ge 2 ] || { echo "usage: $0 REPORTS-DIR COMMAND [ARG...]" >&2; exit 2; }
reports=$(realpath -m "$1")
shift
rm -rf "$reports" && mkdir -p "$reports" || exit 2
# UBSan is fatal already (-fno-sanitize-recover=all); its reports go to the
# same directory, with a stack.  LeakSanitizer is on by default with ASan.
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1"
"$@"
rc=$?
n=0
for f in "$reports"/*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	echo "---- sanitizer report $f:"
	cat "$f"
done
if [ "$n" -gt 0 ]; then
	echo "sanitizers: $n report(s) in $reports"
	exit 1
fi
echo "sanitizers: no report"
exit "$rc"
