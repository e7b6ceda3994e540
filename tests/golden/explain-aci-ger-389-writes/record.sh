#!/bin/bash
# record.sh [DIR] -- re-record a golden case of 389's get-effective-rights
# (DIR, by default this script's own) from a real 389-DS: writes
# `cmd` (the acre commands) and `expected` (what 389 printed) from
# `queries`.  Needs root and Debian's 389-ds-base (tests/differential/
# dirsrv.sh installs it); the private server it starts is stopped by PID
# and its database deleted when the script ends.  Review the diff of
# `expected` before committing it: it is 389's word, not acre's.
set -u -f
here=$(cd "${1:-$(dirname "$0")}" && pwd -P)
common=$here/../common
# shellcheck source=tests/differential/dirsrv.sh
. "$here/../../differential/dirsrv.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/acre-ger389.XXXXXX") || exit 2
chmod 755 "$dir" # the server runs as dirsrv
dirsrv_require || exit 1
dirsrv_setup "$dir/inst" || exit 1
dirsrv_start || exit 1

cmds=$dir/cmd
out=$dir/expected
: >"$cmds"
: >"$out"
loaded=
first=1
while IFS='|' read -r ldif entry subject attrs opts; do
	case $ldif in '' | '#'*) continue ;; esac
	if [ "$ldif" != "$loaded" ]; then
		dirsrv_load "$common/$ldif" || { dirsrv_discard; exit 1; }
		loaded=$ldif
	fi
	# shellcheck disable=SC2086
	dirsrv_ldap_root ldapsearch -LLL -o ldif-wrap=no -b "$entry" -s base \
		-E "!1.3.6.1.4.1.42.2.27.9.5.2=:dn:$subject" '(objectClass=*)' \
		$attrs | grep -E '^(dn|entryLevelRights|attributeLevelRights):' >>"$out"
	c="acre explain --dialect aci --data ../common/$ldif"
	[ -n "$subject" ] && c="$c -D '$subject'"
	c="$c -e '$entry' --format ger"
	[ -n "$opts" ] && c="$c $opts"
	for a in $attrs; do
		case $a in '*' | '+' | *';'*) c="$c '$a'" ;; *) c="$c $a" ;; esac
	done
	[ $first = 1 ] || printf ' &&\n' >>"$cmds"
	printf '%s' "$c" >>"$cmds"
	first=0
done <"$here/queries"
printf '\n' >>"$cmds"
echo "# exit: 0" >>"$out"
dirsrv_discard
cp "$cmds" "$here/cmd"
cp "$out" "$here/expected"
rm -rf "$dir"
echo "record.sh: wrote $here/cmd and $here/expected"
