#!/bin/sh
# scripts/check-man.sh PTAP MANPAGE: the man page and `ptap CMD --help` name
# the same options, command by command, so that the two cannot drift apart.
# An option is one the help lists on a line of its own ("  -x, --exec ...",
# "  -g    ..."),
# and one the man page gives a .TP paragraph under `.SS "ptap CMD"`.  Exit 0,
# or 1 saying each option one has and the other has not.
set -eu
ptap=$1
man=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for cmd in record list vars maps report; do
	"$ptap" "$cmd" --help |
		sed -n -e 's/^ \{1,8\}\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\1\2/p' \
			-e 's/^ \{1,8\}\(-[A-Za-z]\)  .*/\1/p' |
		sed 's/, / /' | tr ' ' '\n' | sort -u >"$tmp/help"
	awk -v sec="ptap $cmd" '
		/^\.S[SH] / { on = index($0, "\"" sec "\"") > 0; next }
		on && tp { print; tp = 0; next }
		on && /^\.TP/ { tp = 1 }
	' "$man" | sed 's/\\-/-/g; s/\\f[A-Z]//g' |
		grep -o -- '-\{1,2\}[A-Za-z][a-z-]*' | sort -u >"$tmp/man"
	if [ ! -s "$tmp/help" ] || [ ! -s "$tmp/man" ]; then
		echo "check-man: ptap $cmd: no options found in $([ -s "$tmp/help" ] && echo "$man" || echo "--help")" >&2
		bad=1
		continue
	fi
	comm -23 "$tmp/help" "$tmp/man" | sed "s|^|check-man: ptap $cmd: $man lacks |" >&2
	comm -13 "$tmp/help" "$tmp/man" | sed "s|^|check-man: ptap $cmd: --help lacks |" >&2
	cmp -s "$tmp/help" "$tmp/man" || bad=1
done
exit $bad
