#!/bin/sh
# scripts/lint-freestanding.sh CC FILE...: each FILE compiles freestanding
# (-ffreestanding, position-independent, no stack protector: as code that runs
# inside a target without its C library would be built) and calls nothing but
# memcpy, memset, memmove and memchr, which such code brings its own of.
# The fetch-program evaluator must stay so (probes/fetch_eval.c: one
# evaluator for the tracer and for a target, issue 20).
set -eu
cc=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for f in "$@"; do
	$cc -std=gnu11 -I. -O2 -ffreestanding -fPIC -fno-stack-protector -fno-asynchronous-unwind-tables \
		-c -o "$tmp/o.o" "$f"
	extra=$(nm -u "$tmp/o.o" | awk '{ print $2 }' | grep -vxE 'memcpy|memset|memmove|memchr' || true)
	if [ -n "$extra" ]; then
		echo "$f: not freestanding: it calls $(echo $extra | tr ' ' ',') (allowed: memcpy, memset, memmove, memchr)" >&2
		bad=1
	fi
done
exit $bad
