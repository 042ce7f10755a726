#!/bin/bash
# samples/gdb_check_all.sh [BUILD-DIR]: check every DWARF sample's fd-3
# statement against gdb (samples/gdb_check.sh), with the probes that
# tests/integ/t_dwarf.sh records.  Run from the repository after
# `make samples`; exit 0 when gdb agrees everywhere.
set -u
cd "$(dirname "$0")/.." || exit 1
S=${1:-build}/samples
. tests/integ/t_dwarf.sh	# STRUCTS_PROBE, scopes_relline
dir=$(mktemp -d /tmp/gdb_check_all.XXXXXX)
trap 'rm -rf "$dir"' EXIT
rc=0

# check BINARY PLACE [ARG...] < PROBES
check() {
	local bin=$1 place=$2
	shift 2
	cat >"$dir/probes"
	echo "### $(basename "$bin") ($place)"
	samples/gdb_check.sh "$bin" "$place" "$dir/probes" "$@" || rc=1
}

# The entry pcs of FUNC's inlined instances in BINARY, comma-separated.
inline_pcs() {
	readelf --debug-dump=info "$1" | python3 -c '
import re, sys
fn, dies, cur = sys.argv[1], [], None
for line in sys.stdin:
    m = re.match(r"\s*<\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)", line)
    if m:
        cur = {"off": int(m.group(1), 16), "tag": m.group(2)}
        dies.append(cur)
        continue
    m = re.match(r"\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*: (.*)", line)
    if m and cur is not None:
        cur[m.group(1)] = m.group(2).split()[-1]
subs = {d["off"] for d in dies if d["tag"] == "DW_TAG_subprogram" and d.get("DW_AT_name") == fn}
print(",".join(d.get("DW_AT_entry_pc") or d["DW_AT_low_pc"] for d in dies
               if d["tag"] == "DW_TAG_inlined_subroutine"
               and int(d["DW_AT_abstract_origin"].strip("<>"), 16) in subs))
' "$2"
}

all_structs() {
	local ev
	for ev in "${!STRUCTS_PROBE[@]}"; do
		[ "$ev" = scopes ] && [ "$1" = entry ] && continue	# not at -O2
		echo "${STRUCTS_PROBE[$ev]/RELLINE/$(scopes_relline)}"
	done
}
all_structs prologue | check "$S/structs-O0" prologue
all_structs prologue | check "$S/structs-dwarf4" prologue
all_structs entry | check "$S/structs-O2" entry

qs_recipes() {
	printf '%s\n' 'exec_query query_string:string' \
		'exec_query desc->source_text:string desc->nrows' \
		'exec_query debug_query_string:string' 'exec_query $params'
}
export QS_EXPECT=dwarf
qs_recipes | check "$S/query_server-O0" prologue "$PWD/samples/queries.txt"
qs_recipes | check "$S/query_server-O2" entry "$PWD/samples/queries.txt"
unset QS_EXPECT

# scale: its inlined instances at their entry pcs; clamp: those and its
# out-of-line copy (-O0: past the prologue, the end of the line-table row
# of its first line; -O2: its entry).
for v in O0 O2; do
	bin=$S/inline-$v
	line=$(gdb -batch -ex "info line *0x$(nm "$bin" | awk '$3 == "clamp" { print $1 }')" "$bin")
	if [ $v = O0 ]; then
		ool=$(echo "$line" | sed -E 's/.* and ends at (0x[0-9a-f]+) .*/\1/')
	else
		ool=$(echo "$line" | sed -E 's/.* starts at address (0x[0-9a-f]+) .*/\1/')
	fi
	printf '%s\n' "scale@$(inline_pcs "$bin" scale) value factor" \
		"clamp@$(inline_pcs "$bin" clamp),$ool v lo hi" | check "$bin" inline-at
done

echo 'bid_store it->id it->name it->price it->state key' |
	GDBX_DEBUG_DIR=$PWD/$S/debug check "$S/split_host" entry
echo 'link_store it->seq it->tag it->flags key *it' | check "$S/split_host" prologue
exit $rc
