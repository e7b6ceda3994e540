#!/bin/bash
# aci.sh -- the ACI differential suite: acre's `aci` dialect against a real
# 389 Directory Server (make differential-389, make differential-389-record).
#
#   aci.sh run DRIVER ACRE OUT [SEED] [N]
#       generated cases (aci_gen.h) until N searches (default 300) have been
#       compared: each case is loaded into one private 389-DS (dirsrv.sh,
#       created once per run, the suffix deleted and reloaded between
#       cases), every search is made there with ldapsearch and by
#       `acre search --dialect aci` on the same LDIF, and the normal forms
#       (aci_result.h) are compared.  Artefacts in OUT/seed-SEED/case-K/,
#       a reproducer in case-K/diff-I/ for each search I that differs.
#       The first ACI_SHRINK (default 3) differences of a run are shrunk
#       into case-K/diff-I/min/ (aci values, then entries, removed while
#       the two still differ).  Fails on any difference, or when fewer
#       than a twentieth of the searches returned an entry from 389 (a
#       vacuous run: a broken instance or load; runs of 300 searches
#       return entries for 8-27% of them).  First, and in record mode too, 389's subschema
#       entry must give engine/schema_389.c again (schema389.pl).
#   aci.sh record DRIVER OUT [SEED] [N]
#       389's side alone: OUT/case-K/ gets data.ldif, searches, seed and
#       389.out, for replaying against acre later (aci.sh replay); the
#       instance lives in a temporary directory of /tmp, deleted after.
#   aci.sh replay DRIVER ACRE DIR OUT
#       acre's side of recorded cases (DIR/case-*/ or one case directory),
#       compared with their 389.out in copies under OUT; no 389 needed.
#       The cases named in DIR/HELD (the first word of each line that is
#       not a comment) are skipped and counted: known differences.
#   aci.sh record-case DIR
#       389's answers to a hand-written case (DIR/data.ldif, DIR/searches)
#       into DIR/389.out, on a private 389-DS deleted after.
#   aci.sh acre-one ACRE DIR
#   aci.sh 389-one DIR
#       acre's / 389's answer to the search of a reproducer directory
#       (DIR/data.ldif, the first non-comment line of DIR/search); 389-one
#       creates a private instance for it (about 10 s).
#
# Invariants: the 389 instance lives under OUT and is stopped by PID
# whatever happens (dirsrv.sh's traps); a refused case (389 rejects its
# LDIF, e.g. an ACI it does not accept) is counted, kept as refused-K with
# 389's message, and replaced by the next one; the case seed is
# SEED * 1000 + K, printed on the case's line.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/differential/dirsrv.sh
. "$HERE/dirsrv.sh"

die() {
	printf 'differential-389: %s\n' "$*" >&2
	exit 1
}

# start_389 DIR -- the private 389 (dirsrv.sh), or the run fails
start_389() {
	dirsrv_start_clear "$1" || die "could not start a private 389"
}

# check_schema OUT -- does engine/schema_389.c (ACRE_SCHEMA_389) say what
# the running 389's subschema entry says?  The regenerated file is left in
# OUT/schema_389.c.
check_schema() {
	local want=$HERE/../../engine/schema_389.c got=$1/schema_389.c
	dirsrv_ldap_root ldapsearch -LLL -o ldif-wrap=no -b cn=schema -s base \
		'(objectClass=*)' attributeTypes objectClasses |
		perl "$HERE/schema389.pl" >"$got" || die "could not read 389's schema"
	cmp -s "$want" "$got" ||
		die "389's schema is not engine/schema_389.c: diff $want $got (cp it if 389 changed)"
	echo "differential-389: engine/schema_389.c is 389's schema"
}

# run_389 CASEDIR -- every search of the case against 389 -> 389.out
run_389() {
	dirsrv_run_searches "$1/searches" "$1/389.out"
}

# acre_search ACRE DATA DN SCOPE BASE FILTER ATTRS [PROXYDN] -- one search,
# as a block body: the LDIF, then "# rc R" (R: acre's exit status, the
# result code).  PROXYDN: a proxied authorization (- to anonymous), DN
# bound as --authc-dn (- anonymous: an empty one).
acre_search() {
	local acre=$1 data=$2 dn=$3 scope=$4 base=$5 filter=$6 attrs=$7 rc out
	local proxy=${8:-}
	local - # ATTRS is split on spaces below, never globbed
	set -f
	local who=(--auth-method none)
	[ "$dn" != - ] && who=(-D "$dn" --auth-method simple)
	[ -n "$proxy" ] && who=(-D "${proxy#-}" --authc-dn "${dn#-}" \
		--auth-method "$([ "$dn" != - ] && echo simple || echo none)")
	[ "$attrs" = - ] && attrs=''
	# shellcheck disable=SC2086 # ATTRS is a list
	out=$("$acre" search --dialect aci --data "$data" -o ldif-wrap=no \
		-b "$base" -s "$scope" "${who[@]}" --peer IP=127.0.0.1:40000 \
		--domain localhost --ssf 0 "$filter" $attrs)
	rc=$?
	printf '%s\n' "$out" | grep -v '^# result:'
	printf '# rc %d\n' "$rc"
}

# run_acre ACRE CASEDIR -- every search of the case through acre -> acre.out
run_acre() {
	local acre=$1 dir=$2 dn pw scope base filter attrs proxy n=0
	: >"$dir/acre.out"
	while IFS=$'\t' read -r dn pw scope base filter attrs proxy; do
		n=$((n + 1))
		{
			printf '# search %d\n' "$n"
			acre_search "$acre" "$dir/data.ldif" "$dn" "$scope" "$base" \
				"$filter" "$attrs" "$proxy"
		} >>"$dir/acre.out" 2>>"$dir/acre.err"
	done <"$dir/searches"
}

# ---- shrinking -------------------------------------------------------------------

# differs LDIF SEARCHLINE ACRE DRIVER TMP -- do 389 and acre still disagree
# on this search over this LDIF?  (1 when 389 refuses the LDIF.)
differs() {
	local ldif=$1 line=$2 acre=$3 driver=$4 t=$5 dn pw scope base filter attrs
	rm -rf "$t" && mkdir -p "$t" && cp "$ldif" "$t/data.ldif"
	printf '%s\n' "$line" >"$t/searches"
	dirsrv_load "$t/data.ldif" 2>/dev/null || return 1
	run_389 "$t"
	run_acre "$acre" "$t"
	! "$driver" compare "$t" >/dev/null
}

# without_aci LDIF J / without_entry LDIF I -- the LDIF without its J-th
# aci line / without its I-th entry and that entry's subtree.
without_aci() {
	awk -v j="$2" '/^aci:/ && ++n == j { next } { print }' "$1"
}
without_entry() {
	awk -v i="$2" 'BEGIN { RS = ""; ORS = "\n\n" }
		{ dn = $0; sub(/^dn: /, "", dn); sub(/\n.*/, "", dn) }
		NR == i { gone = tolower(dn); next }
		gone != "" && (tolower(dn) ~ ("," gone "$")) { next }
		{ print }' "$1"
}

# shrink ACRE DRIVER DIFFDIR -- remove aci values, then entries (with
# their subtrees), one at a time, keeping each removal while 389 and acre
# still differ; the result goes to DIFFDIR/min/ (data.ldif, search, both
# answers).  Every try reloads 389 (about half a second).
shrink() {
	local acre=$1 driver=$2 d=$3 line cur=$3/min/data.ldif try=$3/min/try.ldif
	local n i e bind changed=1
	line=$(grep -v '^#' "$d/search" | head -1)
	bind=$(printf '%s\n' "$line" | cut -f1 | tr '[:upper:]' '[:lower:]')
	mkdir -p "$d/min" && cp "$d/data.ldif" "$cur"
	differs "$cur" "$line" "$acre" "$driver" "$d/min/t" || return 0
	while [ $changed = 1 ]; do
		changed=0
		n=$(grep -c '^aci:' "$cur")
		for ((i = n; i >= 1; i--)); do
			without_aci "$cur" "$i" >"$try"
			differs "$try" "$line" "$acre" "$driver" "$d/min/t" &&
				cp "$try" "$cur" && changed=1
		done
		n=$(grep -c '^dn:' "$cur")
		for ((i = n; i >= 2; i--)); do
			# the requester's entry (and its ancestors) stay: without
			# it the bind fails, a difference of another kind
			e=$(awk -v i="$i" '/^dn: / && ++k == i { print tolower(substr($0, 5)) }' "$cur")
			case ",$bind" in *",$e") continue ;; esac
			without_entry "$cur" "$i" >"$try"
			differs "$try" "$line" "$acre" "$driver" "$d/min/t" &&
				cp "$try" "$cur" && changed=1
		done
	done
	differs "$cur" "$line" "$acre" "$driver" "$d/min/t"
	cp "$d/min/t/389.out" "$d/min/t/acre.out" "$d/min/"
	cp "$d/search" "$d/min/search"
	rm -rf "$d/min/t" "$try"
}

# acre must know the dialect before 389 is worth starting.
check_acre() {
	local acre=$1 tmp rc
	[ -x "$acre" ] || die "$acre: not built"
	tmp=$(mktemp)
	printf 'dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n' >"$tmp"
	"$acre" search --dialect aci --data "$tmp" -b dc=example,dc=com -s base \
		>/dev/null 2>"$tmp.err"
	rc=$?
	if [ $rc -ge 200 ]; then
		cat "$tmp.err" >&2
		rm -f "$tmp" "$tmp.err"
		die "acre does not run --dialect aci (exit $rc); make differential-389-record records 389's side alone"
	fi
	rm -f "$tmp" "$tmp.err"
}

# suite MODE DRIVER ACRE OUT SEED N -- the loop shared by run and record.
suite() {
	local mode=$1 driver=$2 acre=$3 out=$4 seed=$5 want=$6
	local k=0 cases=0 refused=0 searches=0 nonempty=0 agree=0 differ=0 shrunk=0
	local dir cseed line nq a d e
	mkdir -p "$out" || die "cannot create $out"
	out=$(cd "$out" && pwd)
	echo "differential-389: seed $seed"
	local inst=$out/dirsrv
	if [ "$mode" = record ]; then # OUT may be in the source tree
		inst=$(mktemp -d /tmp/acre-389-record.XXXXXX) && chmod 755 "$inst"
	fi
	start_389 "$inst"
	check_schema "$inst"
	while [ "$searches" -lt "$want" ]; do
		k=$((k + 1))
		[ $refused -gt $((k / 2 + 5)) ] && die "too many refused cases ($refused of $k)"
		cseed=$((seed * 1000 + k))
		dir=$out/case-$k
		rm -rf "$dir" "$out/refused-$k"
		mkdir -p "$dir"
		nq=$("$driver" gen "$cseed" "$dir") || die "gen $cseed failed"
		if ! dirsrv_load "$dir/data.ldif" 2>/dev/null; then
			cp "$DIRSRV_DIR/load.log" "$dir/load.log"
			mv "$dir" "$out/refused-$k"
			refused=$((refused + 1))
			echo "case $k (seed $cseed): refused by 389: $(grep -m1 'additional info' "$out/refused-$k/load.log" | cut -c1-150)"
			continue
		fi
		run_389 "$dir"
		cases=$((cases + 1))
		if [ "$mode" = record ]; then
			read -r nq e < <("$driver" count "$dir")
			searches=$((searches + nq)) nonempty=$((nonempty + e))
			echo "case $k (seed $cseed): $nq searches recorded, $e non-empty"
			continue
		fi
		run_acre "$acre" "$dir"
		line=$("$driver" compare "$dir")
		read -r nq a d e <<<"$line"
		searches=$((searches + nq)) nonempty=$((nonempty + e))
		agree=$((agree + a)) differ=$((differ + d))
		if [ "$d" -gt 0 ]; then
			echo "case $k (seed $cseed): $nq searches, $a agree, $d DIFFER ($e non-empty): $dir/diff-*"
			local f
			for f in "$dir"/diff-*; do
				[ "$shrunk" -lt "${ACI_SHRINK:-3}" ] || break
				shrunk=$((shrunk + 1))
				shrink "$acre" "$driver" "$f"
				echo "  shrunk: $f/min ($(grep -c '^dn:' "$f/min/data.ldif") entries, $(grep -c '^aci:' "$f/min/data.ldif") aci values)"
			done
		else
			echo "case $k (seed $cseed): $nq searches, $a agree ($e non-empty)"
		fi
	done
	dirsrv_discard
	[ "$mode" = record ] && rm -rf "$inst"
	echo "differential-389: seed $seed: $cases cases ($refused refused), $searches searches ($nonempty non-empty)"
	[ "$mode" = record ] || echo "differential-389: seed $seed: $agree agree, $differ differ"
	[ "$searches" -gt 0 ] && [ $((nonempty * 20)) -ge "$searches" ] ||
		die "vacuous run: $nonempty of $searches searches returned an entry"
	[ "$differ" = 0 ] || exit 1
}

# held DIR NAME -- is case NAME listed in DIR/HELD?
held() {
	[ -f "$1/HELD" ] && grep -v '^#' "$1/HELD" | cut -d' ' -f1 | grep -qx -- "$2"
}

# replay DRIVER ACRE DIR OUT -- acre against recorded cases (DIR/case-*/ or
# one case directory), each copied to OUT/NAME first: DIR is left alone.
replay() {
	local driver=$1 acre=$2 top=$3 out=$4 dir w nq a d e agree=0 differ=0 searches=0
	local nheld=0
	check_acre "$acre"
	mkdir -p "$out" || die "cannot create $out"
	for dir in "$top" "$top"/case-*; do
		[ -f "$dir/389.out" ] || continue
		if [ "$dir" != "$top" ] && held "$top" "$(basename "$dir")"; then
			nheld=$((nheld + 1))
			continue
		fi
		w=$out/$(basename "$dir")
		rm -rf "$w" && mkdir -p "$w" &&
			cp "$dir/data.ldif" "$dir/searches" "$dir/389.out" "$w/" || die "cannot copy $dir"
		run_acre "$acre" "$w"
		read -r nq a d e <<<"$("$driver" compare "$w")"
		searches=$((searches + nq)) agree=$((agree + a)) differ=$((differ + d))
		if [ "$d" -gt 0 ]; then
			echo "$dir: $nq searches, $a agree, $d DIFFER: $w/diff-*"
		else
			echo "$dir: $nq searches, $a agree"
		fi
	done
	local note=
	[ "$nheld" = 0 ] || note=", $nheld cases held ($top/HELD)"
	echo "differential-389 replay: $searches searches, $agree agree, $differ differ$note"
	[ "$searches" -gt 0 ] && [ "$differ" = 0 ]
}

main() {
	local mode=${1:-}
	shift || true
	case $mode in
	run)
		[ $# -ge 3 ] || die "usage: aci.sh run DRIVER ACRE OUT [SEED] [N]"
		check_acre "$2"
		local seed=${4:-}
		[ -n "$seed" ] || seed=$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 1000000))
		suite run "$1" "$2" "$3/seed-$seed" "$seed" "${5:-300}"
		;;
	record)
		[ $# -ge 2 ] || die "usage: aci.sh record DRIVER OUT [SEED] [N]"
		local seed=${3:-}
		[ -n "$seed" ] || seed=$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 1000000))
		suite record "$1" - "$2" "$seed" "${4:-300}"
		;;
	replay)
		[ $# -eq 4 ] || die "usage: aci.sh replay DRIVER ACRE DIR OUT"
		replay "$@"
		;;
	acre-one)
		[ $# -eq 2 ] || die "usage: aci.sh acre-one ACRE DIR"
		local dn pw scope base filter attrs proxy
		IFS=$'\t' read -r dn pw scope base filter attrs proxy < <(grep -v '^#' "$2/search")
		acre_search "$1" "$2/data.ldif" "$dn" "$scope" "$base" "$filter" "$attrs" "$proxy"
		;;
	record-case)
		# a hand-written case: DIR/data.ldif and DIR/searches -> DIR/389.out
		[ $# -eq 1 ] || die "usage: aci.sh record-case DIR"
		[ -f "$1/data.ldif" ] && [ -f "$1/searches" ] || die "$1: no data.ldif or searches"
		local tmp
		tmp=$(mktemp -d /tmp/acre-389-case.XXXXXX)
		chmod 755 "$tmp"
		start_389 "$tmp" >&2
		dirsrv_load "$1/data.ldif" || die "389 refused $1/data.ldif"
		dirsrv_run_searches "$1/searches" "$1/389.out"
		dirsrv_discard
		rm -rf "$tmp"
		echo "$1/389.out: $(grep -c '^# search' "$1/389.out") searches recorded"
		;;
	389-one)
		[ $# -eq 1 ] || die "usage: aci.sh 389-one DIR"
		local tmp
		tmp=$(mktemp -d /tmp/acre-389-one.XXXXXX)
		chmod 755 "$tmp"
		start_389 "$tmp" >&2
		dirsrv_load "$1/data.ldif" || die "389 refused $1/data.ldif"
		grep -v '^#' "$1/search" | head -1 >"$tmp/search"
		dirsrv_run_searches "$tmp/search" "$tmp/out"
		cat "$tmp/out" "$tmp/out.err"
		dirsrv_discard
		rm -rf "$tmp"
		;;
	*)
		die "usage: aci.sh run|record|replay|acre-one|389-one ..."
		;;
	esac
}

main "$@"
