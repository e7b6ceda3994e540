#!/bin/bash
# mutate.sh -- damaged access rules or entries: does acre load what slapd
# loads and refuse what it refuses?  The generated cases of the slapd
# differential with their rules (or entries) mutated (acl_mutate.h).
# Rules: each configuration given to `slaptest -u` and to `acre compile`.
# Data: the entries given to `slapadd` (each database's own, into a fresh
# database) and loaded by `acre search`.  Their verdicts must agree, and
# data both load must be the same entries with the same values: what
# slapcat lists of each database against what acre returns to its rootdn
# (user attributes; slapo-collect's values left out).
#
#   tests/differential/mutate.sh DRIVER ACRE OUTDIR [SEED] [N] [rules|data]
#
# DRIVER is the built acl_driver, ACRE the built acre.  Cases 0 .. N-1
# (default 300) of run SEED (default: a fresh random seed, printed), each
# in OUTDIR/seed-SEED/case-K (data: OUTDIR/data-seed-SEED/case-K):
# rules.conf or data.ldif (mutated; `mutation` says how), slapd.conf,
# slaptest.log (data: slapadd.log) and acre.log (what each said).  A case
# where they disagree is printed with its mutation and both messages.  The
# last line is "differential-mutate: seed S: N cases, A loaded by both, R
# refused by both, F differ (C loaded with other entries)"; exit status 0
# only when F and C are 0, 2 when acre
# crashed or the harness failed.  A data case whose unchanged
# configuration slaptest refuses is skipped and counted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
acre=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$3
seed=${4:-}
n=${5:-}
what=${6:-rules}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=300
case $what in
rules) target=differential-mutate sub=seed-$seed ;;
data) target=differential-mutate-data sub=data-seed-$seed ;;
*) echo "mutate.sh: rules or data, not '$what'"; exit 2 ;;
esac
echo "$target: seed $seed, $n cases (rerun: make $target SEED=$seed N=$n)"
[ -x /usr/sbin/slaptest ] || { echo "differential-mutate: slaptest is not installed"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "${out:?}/$sub"
mkdir -p "$out/$sub" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-mutate.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# load_rules DIR: slaptest's and acre's verdicts on DIR's configuration,
# into src and arc (0 loads), their messages into DIR/slaptest.log and
# DIR/acre.log.
load_rules() {
	"$driver" conf "$1" "$work" secret >"$work/dbs" || exit 2
	while IFS='	' read -r i rest; do
		mkdir -p "$work/db-$i" || exit 2
	done <"$work/dbs"
	# slaptest 2.5.13 loops for ever on some damaged rules (a by clause
	# "dn.children,expand=\"$\"") and aborts on others: either is a
	# configuration slapd does not load
	timeout 20 /usr/sbin/slaptest -u -f "$work/slapd.conf" >"$1/slaptest.log" 2>&1
	src=$?
	[ $src = 124 ] && echo "(slaptest did not end in 20 s)" >>"$1/slaptest.log"
	timeout 20 "$acre" compile --policy "$1/slapd.conf" >"$1/acre.log" 2>&1
	arc=$?
	slog=$1/slaptest.log
}

# load_data DIR: slapadd's and acre's verdicts on DIR's entries, as
# load_rules; src is 125 when slaptest refuses the configuration.
load_data() {
	"$driver" conf-any "$1" "$work" secret >"$work/dbs" || exit 2
	while IFS='	' read -r i rest; do
		mkdir -p "$work/db-$i" || exit 2
	done <"$work/dbs"
	slog=$1/slapadd.log
	: >"$slog"
	if ! /usr/sbin/slaptest -u -f "$work/slapd.conf" >"$1/slaptest.log" 2>&1; then
		src=125 arc=0
		return
	fi
	src=0
	while IFS='	' read -r i suffix rootdn size; do
		[ "$size" = 0 ] && continue
		timeout 60 /usr/sbin/slapadd -f "$work/slapd.conf" -b "$suffix" \
			-l "$work/data-$i.ldif" >>"$slog" 2>&1 || { src=1; break; }
	done <"$work/dbs"
	timeout 20 "$acre" search --policy "$1/slapd.conf" --data "$1/data.ldif" \
		-b "" -s base "(objectClass=*)" >"$1/acre.log" 2>&1
	arc=$?
	# 200: the input had errors (acre(1)); any LDAP result: it loaded
	case $arc in
	200) arc=1 ;;
	201 | 1[2-9][0-9] | 2[0-9][0-9]) arc=2 ;;
	*) arc=0 ;;
	esac
}

# records FILE: FILE's LDIF records, user attributes only, one record a
# line (its lines joined by a tab), sorted: slapcat lists entries in the
# order they were added and adds operational attributes, ldapsearch (and
# acre) in back-mdb's order.
records() {
	grep -v -i -E '^(structuralObjectClass|entryUUID|entryCSN|contextCSN|creatorsName|createTimestamp|modifiersName|modifyTimestamp)(;[^:]*)?:' "$1" |
		awk 'BEGIN { RS = ""; FS = "\n" } { s = $1; for (i = 2; i <= NF; i++) s = s "\t" $i; print s }' |
		LC_ALL=C sort
}

# same_data DIR: for data both loaded, do the databases hold the same
# entries and values?  slapcat against acre searching as the rootdn, by
# database (DIR/slapcat-I.ldif, DIR/acre-I.ldif), compared as one set:
# a database glued below another that has subordinates of its own gives
# them to a search from its suffix, not to slapcat's listing of it; 0
# when they agree.
same_data() {
	# slapo-collect adds its values to search results only
	sed '/^overlay[ \t]*collect/d; /^collectinfo/d' "$1/slapd.conf" >"$work/plain.conf"
	while IFS='	' read -r i suffix rootdn size; do
		[ "$size" = 0 ] && continue
		/usr/sbin/slapcat -f "$work/slapd.conf" -b "$suffix" -o ldif-wrap=no \
			>"$work/cat" 2>/dev/null || return 2
		local conf=$work/plain.conf
		if [ "$rootdn" = - ]; then
			# a database without a rootdn: read it as one given it here
			rootdn="cn=mutate-root,$suffix" conf=$work/plain-$i.conf
			awk -v s="suffix \"$suffix\"" -v r="rootdn \"$rootdn\"" \
				'{ print } $0 == s { print r }' "$work/plain.conf" >"$conf"
		fi
		timeout 20 "$acre" search --policy "$conf" --data "$1/data.ldif" \
			-D "$rootdn" -b "$suffix" -o ldif-wrap=no "(objectClass=*)" '*' \
			>"$work/acre" 2>/dev/null
		case $? in 0 | 32) ;; *) return 2 ;; esac
		records "$work/cat" >"$1/slapcat-$i.ldif"
		grep -v '^# result' "$work/acre" | records /dev/stdin >"$1/acre-$i.ldif"
	done <"$work/dbs"
	LC_ALL=C sort -u "$1"/slapcat-*.ldif >"$work/cat-all" 2>/dev/null
	LC_ALL=C sort -u "$1"/acre-*.ldif >"$work/acre-all" 2>/dev/null
	cmp -s "$work/cat-all" "$work/acre-all"
}

both=0 neither=0 differ=0 skipped=0 content=0
for k in $(seq 0 $((n - 1))); do
	dir=$out/$sub/case-$k
	if [ "$what" = rules ]; then
		"$driver" mutate "$seed" "$k" "$dir" || exit 2
	else
		"$driver" mutate-data "$seed" "$k" "$dir" || exit 2
	fi
	rm -rf "${work:?}"/*
	load_$what "$dir"
	if [ $src = 125 ]; then
		skipped=$((skipped + 1))
		continue
	fi
	if [ $arc -ge 2 ]; then
		cat "$dir/acre.log"
		echo "$target: case $k: acre failed ($dir)"
		exit 2
	fi
	if [ $src = 0 ] && [ $arc = 0 ]; then
		both=$((both + 1))
		[ "$what" = data ] || continue
		same_data "$dir"
		case $? in
		0) ;;
		1)
			content=$((content + 1))
			echo "$target: case $k ($(cat "$dir/mutation")): both load," \
				"the entries differ ($dir)"
			diff "$dir"/slapcat-*.ldif "$dir"/acre-*.ldif 2>/dev/null | head -4 |
				tr '\t' '|' | cut -c1-300 | sed 's/^/  /'
			;;
		*)
			echo "$target: case $k: slapcat or acre failed ($dir)"
			exit 2
			;;
		esac
	elif [ $src != 0 ] && [ $arc != 0 ]; then
		neither=$((neither + 1))
	else
		differ=$((differ + 1))
		echo "$target: case $k ($(cat "$dir/mutation")):" \
			"slapd $([ $src = 0 ] && echo loads || echo refuses)," \
			"acre $([ $arc = 0 ] && echo loads || echo refuses) ($dir)"
		grep -v '^config file testing succeeded' "$slog" | tail -3 | sed 's/^/  slapd: /'
		grep -i 'error' "$dir/acre.log" | head -3 | sed 's/^/  acre: /'
	fi
done
echo "$target: seed $seed: $n cases, $both loaded by both," \
	"$neither refused by both, $differ differ" \
	"$([ "$what" = rules ] || echo "($content loaded with other entries)")" \
	"$([ $skipped = 0 ] || echo "($skipped skipped: slaptest refused the rules)")"
[ $differ = 0 ] && [ $content = 0 ]
