#!/bin/bash
# cli_case.sh -- one generated access-control case through ldapsearch and
# `acre search`, their output compared byte for byte.  Run by cli.sh
# under acl_run.sh --hold CLI, so that slapd is up with the case's
# slapd.conf and data: CLI_URI, CLI_ROOTPW and CLI_PID are that slapd's.
#
#   tests/differential/cli_case.sh ACRE CASEDIR
#
# Each search of CASEDIR/searches is made by its requester
# (CASEDIR/requesters, acl_case.h) with `ldapsearch -LLL` over plain TCP
# from 127.0.0.1 and with `acre search` on CASEDIR/slapd.conf and
# CASEDIR/data.ldif, given the same connection (peer 127.0.0.1, slapd's
# socket and URL, domain "unknown").  Compared: the exit status (the LDAP
# result code for both), the matched DN (ldapsearch's "Matched DN:" on
# standard error, acre's "# matched:" comment) and standard output less
# acre's closing comments and the values slapadd made up (entryUUID,
# entryCSN, the creators' and modifiers' names and times), which the data
# does not hold.  A requester whose bind slapd refuses is skipped (acre
# takes no password).  Writes CASEDIR/cli/N.{ldapsearch,acre} and prints
# one line per differing search; exit status 0 when all agree, 1 when
# some differ, 2 on a harness failure.
set -u
acre=$1
dir=$2
: "${CLI_URI:?}" "${CLI_ROOTPW:?}"
port=${CLI_URI##*:}
port=${port%%/*}
mkdir -p "$dir/cli" || exit 2
rm -f "$dir"/cli/*

mapfile -t rq <"$dir/requesters"
n=0 differ=0 skipped=0
set -f
bookkeeping='^(entryUUID|entryCSN|creatorsName|createTimestamp|modifiersName|modifyTimestamp|contextCSN):'
us=$'\x1f' # tabs as a delimiter that is not white space: empty fields
while IFS= read -r line; do
	IFS=$us read -r who scope base filter attrs <<<"${line//	/$us}"
	n=$((n + 1))
	IFS=$us read -r kind label authz binddn pw <<<"${rq[$who]//	/$us}"
	only=()
	set -- $attrs
	if [ "${1:-}" = -A ]; then
		only=(-A)
		shift
	fi
	ls_who=() acre_who=()
	case $kind in
	anon) ;;
	root)
		ls_who=(-D "$binddn" -w "$CLI_ROOTPW")
		acre_who=(-D "$binddn")
		;;
	proxy)
		ls_who=(-D "$binddn" -w "$CLI_ROOTPW" -e "!authzid=${authz:+dn:}$authz")
		acre_who=(--authc-dn "$binddn")
		[ -n "$authz" ] && acre_who+=(-D "$authz")
		;;
	bind)
		ls_who=(-D "$binddn" -w "$pw")
		acre_who=(-D "$binddn")
		;;
	*)
		echo "cli: $dir: unknown requester kind '$kind'" >&2
		exit 2
		;;
	esac
	# "--" ends the options: a requested attribute may start with '-'
	LDAPNOINIT=1 ldapsearch -x -H "$CLI_URI" -LLL "${ls_who[@]}" \
		-b "$base" -s "$scope" "${only[@]}" -- "$filter" "$@" \
		>"$dir/cli/$n.ldapsearch.raw" 2>"$dir/cli/$n.ldapsearch.err"
	lrc=$?
	if grep -q '^ldap_bind:' "$dir/cli/$n.ldapsearch.err"; then
		skipped=$((skipped + 1))
		continue
	fi
	"$acre" search --policy "$dir/slapd.conf" --data "$dir/data.ldif" \
		"${acre_who[@]}" --peer IP=127.0.0.1:40000 \
		--sockname "IP=127.0.0.1:$port" --sockurl "ldap://127.0.0.1:$port/" \
		--domain unknown -b "$base" -s "$scope" "${only[@]}" \
		-- "$filter" "$@" >"$dir/cli/$n.acre.raw" 2>"$dir/cli/$n.acre.err"
	arc=$?
	# acre prints the matched DN as a comment on standard output,
	# ldapsearch on standard error; slapd's own bookkeeping values
	# (slapadd's entryUUID, timestamps, ...) are not in the data
	grep -Ev "^# (result|matched): |$bookkeeping" "$dir/cli/$n.acre.raw" >"$dir/cli/$n.acre"
	grep -Ev "$bookkeeping" "$dir/cli/$n.ldapsearch.raw" >"$dir/cli/$n.ldapsearch"
	lm=$(sed -n 's/^Matched DN: //p' "$dir/cli/$n.ldapsearch.err")
	am=$(sed -n 's/^# matched: //p' "$dir/cli/$n.acre.raw")
	if [ $lrc != $arc ] || [ "$lm" != "$am" ] ||
		! cmp -s "$dir/cli/$n.ldapsearch" "$dir/cli/$n.acre"; then
		differ=$((differ + 1))
		echo "cli: $dir: search $n ($label: -b '$base' -s $scope ${only[*]} '$filter' $*):" \
			"ldapsearch $lrc, acre $arc; matched '$lm' and '$am';" \
			"diff $dir/cli/$n.ldapsearch $dir/cli/$n.acre"
	fi
done <"$dir/searches"
echo "cli: $dir: $n searches, $skipped skipped (bind refused), $differ differ"
[ $differ = 0 ]
