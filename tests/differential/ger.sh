#!/bin/bash
# ger.sh -- get-effective-rights of the `aci` dialect against a real 389
# Directory Server (make differential-389-ger).
#
#   ger.sh run DRIVER ACRE OUT [SEED] [N]
#       generated cases (aci_driver gen-ger, aci_gen.h) until N
#       (requester, entry) pairs (default 1000) have been compared: each
#       case is loaded into one private 389-DS (dirsrv.sh, created once per
#       run), each line of the case's `gers` (REQUESTER TAB ATTRS) is one
#       subtree search of the whole suffix as the Directory Manager with
#       389's get-effective-rights control for REQUESTER, and acre answers
#       `acre explain --dialect aci --format ger` for the same requester on
#       every entry; the entryLevelRights and attributeLevelRights of each
#       entry are compared (aci_driver compare-ger).  Artefacts in
#       OUT/seed-SEED/case-K/, a reproducer in case-K/gdiff-N-K/ for each
#       pair that differs (at most 20 per case; the first 3 of a run are
#       printed).  Fails on any difference.
#   ger.sh replay DRIVER ACRE SUITE OUT
#       the recorded cases of SUITE (each SUITE/case-*/ a run's case:
#       data.ldif, gers and the 389.ger 389-DS answered) through acre
#       alone, compared as a run compares them; no server.  Artefacts in
#       OUT/case-*/.  Fails on any difference.
#   ger.sh acre-one ACRE DIR
#   ger.sh 389-one DIR
#       acre's / 389's answer for the pair of a reproducer directory
#       (DIR/data.ldif, the first non-comment line of DIR/ger: REQUESTER
#       TAB ENTRY TAB ATTRS); 389-one creates a private instance for it.
#
# Invariants: the 389 instance lives under OUT (389-one: a temporary
# directory) and is stopped by PID whatever happens (dirsrv.sh's traps);
# a case whose LDIF 389 refuses is kept as refused-K and replaced; the
# case seed is SEED * 1000 + K, printed on the case's line.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/differential/dirsrv.sh
. "$HERE/dirsrv.sh"

GER_OID=1.3.6.1.4.1.42.2.27.9.5.2
# what 389's internal operation saw: the Directory Manager's plain TCP
# connection from 127.0.0.1 (reverse lookup: localhost)
ACRE_CONN=(--peer IP=127.0.0.1:40000 --domain localhost --ssf 0)

die() {
	printf 'differential-389-ger: %s\n' "$*" >&2
	exit 1
}

# start_389 DIR -- the private 389 (dirsrv.sh), or the run fails
start_389() {
	dirsrv_start_clear "$1" || die "could not start a private 389"
}

# ger_value DN -- the control's value: a BER OCTET STRING "dn:DN", base64
ger_value() {
	perl -MMIME::Base64 -e '
		my $v = "dn:" . $ARGV[0]; my $n = length $v;
		my $len = $n < 128 ? chr($n) : $n < 256 ? "\x81" . chr($n)
			: "\x82" . pack("n", $n);
		print encode_base64("\x04" . $len . $v, "");' "$1"
}

# ger_389 REQUESTER BASE SCOPE ATTRS -- 389's GER of REQUESTER ("-":
# anonymous) on the entries of BASE/SCOPE, as the Directory Manager: only
# the dn and rights lines of each entry.
ger_389() {
	local req=$1 base=$2 scope=$3 attrs=$4 rc
	local - # ATTRS is split on spaces below, never globbed
	set -f
	[ "$req" = - ] && req=''
	[ "$attrs" = - ] && attrs=''
	# shellcheck disable=SC2086 # ATTRS is a list
	dirsrv_ldap_root ldapsearch -LLL -o ldif-wrap=no -b "$base" -s "$scope" \
		-E "!$GER_OID=::$(ger_value "$req")" '(|(objectClass=*)(objectClass=ldapSubEntry))' \
		$attrs >"$GER_TMP" 2>>"$GER_ERR"
	rc=$?
	grep -i '^\(dn\|entryLevelRights\|attributeLevelRights\)::\? ' "$GER_TMP" |
		sed 's/^dn:/\n&/'
	printf '# rc %d\n' "$rc"
}

# ger_acre ACRE DATA REQUESTER ENTRY ATTRS -- acre's GER of one pair
ger_acre() {
	local acre=$1 data=$2 req=$3 dn=$4 attrs=$5
	local - # ATTRS is split on spaces below, never globbed
	set -f
	local who=()
	[ "$req" != - ] && who=(-D "$req")
	[ "$attrs" = - ] && attrs=''
	# shellcheck disable=SC2086 # ATTRS is a list
	"$acre" explain --dialect aci --data "$data" "${who[@]}" -e "$dn" \
		--format ger "${ACRE_CONN[@]}" $attrs
}

# run_389 DIR / run_acre ACRE DIR -- every line of DIR/gers
run_389() {
	local dir=$1 req attrs n=0
	GER_TMP=$dir/389.tmp GER_ERR=$dir/389.err
	: >"$dir/389.ger"
	: >"$GER_ERR"
	while IFS=$'\t' read -r req attrs; do
		n=$((n + 1))
		{
			printf '# ger %d\n' "$n"
			ger_389 "$req" "$DIRSRV_SUFFIX" sub "$attrs"
		} >>"$dir/389.ger"
	done <"$dir/gers"
	rm -f "$GER_TMP"
}

run_acre() {
	local acre=$1 dir=$2 req attrs dn n=0 rc
	local dns
	mapfile -t dns < <(sed -n 's/^dn: //p' "$dir/data.ldif")
	: >"$dir/acre.ger"
	: >"$dir/acre.err"
	while IFS=$'\t' read -r req attrs; do
		n=$((n + 1))
		{
			printf '# ger %d\n' "$n"
			rc=0
			for dn in "${dns[@]}"; do
				echo
				ger_acre "$acre" "$dir/data.ldif" "$req" "$dn" "$attrs" || rc=$?
			done
			printf '# rc %d\n' "$rc"
		} >>"$dir/acre.ger" 2>>"$dir/acre.err"
	done <"$dir/gers"
}

# show DIR -- a reproducer on the terminal
show() {
	local d=$1
	echo "  reproducer $d:"
	sed 's/^/    /' "$d/ger"
	echo "    aci values of the case: $(grep -c '^aci:' "$d/data.ldif") (in $d/data.ldif)"
	diff -u --label 389 --label acre "$d/389.ger" "$d/acre.ger" | tail -n +3 | sed 's/^/    /'
}

# tally DRIVER DIR LABEL SAY_OK -- compare case DIR's two answers and add
# them to the caller's pairs, agree, differ (and shown: the reproducers
# printed, 3 at most a run); a line for the case when it differs, and
# when it agrees if SAY_OK is 1
tally() {
	local driver=$1 dir=$2 label=$3 say_ok=$4 np a d f
	read -r np a d < <("$driver" compare-ger "$dir") || die "$label: cannot compare"
	pairs=$((pairs + np)) agree=$((agree + a)) differ=$((differ + d))
	if [ "$d" -gt 0 ]; then
		echo "$label: $np pairs, $a agree, $d DIFFER: $dir/gdiff-*"
		for f in "$dir"/gdiff-*; do
			{ [ -d "$f" ] && [ "$shown" -lt 3 ]; } || break
			shown=$((shown + 1))
			show "$f"
		done
	elif [ "$say_ok" = 1 ]; then
		echo "$label: $np pairs, $a agree"
	fi
}

suite() {
	local driver=$1 acre=$2 out=$3 seed=$4 want=$5
	local k=0 cases=0 refused=0 pairs=0 agree=0 differ=0 shown=0
	local dir cseed
	mkdir -p "$out" || die "cannot create $out"
	out=$(cd "$out" && pwd)
	echo "differential-389-ger: seed $seed"
	start_389 "$out/dirsrv"
	while [ "$pairs" -lt "$want" ]; do
		k=$((k + 1))
		[ $refused -gt $((k / 2 + 5)) ] && die "too many refused cases ($refused of $k)"
		cseed=$((seed * 1000 + k))
		dir=$out/case-$k
		rm -rf "$dir" "$out/refused-$k"
		mkdir -p "$dir"
		"$driver" gen-ger "$cseed" "$dir" >/dev/null || die "gen-ger $cseed failed"
		if ! dirsrv_load "$dir/data.ldif" 2>/dev/null; then
			cp "$DIRSRV_DIR/load.log" "$dir/load.log"
			mv "$dir" "$out/refused-$k"
			refused=$((refused + 1))
			echo "case $k (seed $cseed): refused by 389: $(grep -m1 'additional info' "$out/refused-$k/load.log" | cut -c1-150)"
			continue
		fi
		run_389 "$dir"
		run_acre "$acre" "$dir"
		cases=$((cases + 1))
		tally "$driver" "$dir" "case $k (seed $cseed)" 1
	done
	dirsrv_discard
	echo "differential-389-ger: seed $seed: $cases cases ($refused refused), $pairs pairs"
	echo "differential-389-ger: seed $seed: $agree agree, $differ differ"
	[ "$pairs" -gt 0 ] && [ "$differ" = 0 ]
}

# replay DRIVER ACRE SUITE OUT -- recorded cases, acre alone
replay() {
	local driver=$1 acre=$2 suite=$3 out=$4
	local cases=0 pairs=0 agree=0 differ=0 shown=0
	local src dir
	mkdir -p "$out" || die "cannot create $out"
	for src in "$suite"/case-*/; do
		src=${src%/}
		[ -f "$src/389.ger" ] || continue
		dir=$out/$(basename "$src")
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$src/data.ldif" "$src/gers" "$src/389.ger" "$dir/"
		run_acre "$acre" "$dir"
		cases=$((cases + 1))
		tally "$driver" "$dir" "$src" 0
	done
	echo "differential-389-ger replay: $cases cases, $pairs pairs, $agree agree, $differ differ"
	[ "$pairs" -gt 0 ] && [ "$differ" = 0 ]
}

main() {
	local mode=${1:-}
	shift || true
	case $mode in
	run)
		[ $# -ge 3 ] || die "usage: ger.sh run DRIVER ACRE OUT [SEED] [N]"
		[ -x "$2" ] || die "$2: not built"
		local seed=${4:-}
		[ -n "$seed" ] || seed=$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 1000000))
		suite "$1" "$2" "$3/seed-$seed" "$seed" "${5:-1000}"
		;;
	replay)
		[ $# -eq 4 ] || die "usage: ger.sh replay DRIVER ACRE SUITE OUT"
		[ -x "$2" ] || die "$2: not built"
		replay "$1" "$2" "$3" "$4"
		;;
	acre-one)
		[ $# -eq 2 ] || die "usage: ger.sh acre-one ACRE DIR"
		local req dn attrs
		IFS=$'\t' read -r req dn attrs < <(grep -v '^#' "$2/ger")
		ger_acre "$1" "$2/data.ldif" "$req" "$dn" "$attrs"
		;;
	389-one)
		[ $# -eq 1 ] || die "usage: ger.sh 389-one DIR"
		local tmp req dn attrs
		IFS=$'\t' read -r req dn attrs < <(grep -v '^#' "$1/ger")
		tmp=$(mktemp -d /tmp/acre-389-ger.XXXXXX)
		chmod 755 "$tmp"
		start_389 "$tmp" >&2
		dirsrv_load "$1/data.ldif" || die "389 refused $1/data.ldif"
		GER_TMP=$tmp/out GER_ERR=/dev/stderr
		ger_389 "$req" "$dn" base "$attrs" | sed '/^$/d; /^# rc/d'
		dirsrv_discard
		rm -rf "$tmp"
		;;
	*)
		die "usage: ger.sh run|replay|acre-one|389-one ..."
		;;
	esac
}

main "$@"
