#!/bin/bash
# slapacl.sh -- `acre explain --format slapacl` against OpenLDAP's own
# slapacl(8): the generated access-control cases of the slapd
# differential (acl_gen.h), each loaded with slapadd into private
# databases (no slapd runs) and compared by slapacl_case.sh on a sample
# of its entries, as every requester of the case, with no attributes
# (every value listed) and with drawn ATTR[/LEVEL][:VALUE] arguments.
#
#   tests/differential/slapacl.sh DRIVER ACRE OUTDIR [SEED] [N]
#
# DRIVER is the built acl_driver, ACRE the built acre.  Cases 0 .. N-1
# (default 8) of run SEED (default: a fresh random seed, printed) go to
# OUTDIR/seed-SEED/case-K (the case, slapd.conf, and slapacl/ with each
# check's commands, raw answers and normal forms); a case slaptest or
# slapadd refuses is counted and skipped.  Prints a rerun line, one line
# per case and per differing check, and last "differential-slapacl:
# seed S: C cases, P checks, F differ" (a check: one slapacl command and
# its acre command); exit status 0 only when F is 0 and some checks ran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"
driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
acre=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$3
seed=${4:-}
n=${5:-}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=8
echo "differential-slapacl: seed $seed, $n cases (rerun: make differential-slapacl SEED=$seed N=$n)"
slapd_require && [ -x /usr/sbin/slapacl ] ||
	{ echo "differential-slapacl: slapd (slapacl) is not available"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "$out/seed-$seed"
cases=0 refused=0 checks=0 differ=0
for k in $(seq 0 $((n - 1))); do
	dir=$out/seed-$seed/case-$k
	mkdir -p "$dir" && "$driver" gen "$seed" "$k" "$dir" >/dev/null || exit 2
	# the seed of the case's draws (entries, arguments)
	rseed=$(((seed * 1009 + k) % 32768))
	bash "$here/slapacl_case.sh" "$driver" "$acre" "$dir" "$rseed" \
		>"$dir/slapacl.log" 2>&1
	rc=$?
	case $rc in
	0 | 1)
		set -- $(sed -n 's/^slapacl: .*: \([0-9]*\) checks, \([0-9]*\) lines, \([0-9]*\) differ$/\1 \2 \3/p' "$dir/slapacl.log")
		[ $# = 3 ] || { cat "$dir/slapacl.log"; exit 2; }
		cat "$dir/slapacl.log"
		cases=$((cases + 1))
		checks=$((checks + $1))
		differ=$((differ + $3))
		;;
	3 | 4)
		refused=$((refused + 1))
		echo "slapacl: $dir: $([ $rc = 3 ] && echo slaptest || echo slapadd) refused the case, skipped"
		;;
	*)
		cat "$dir/slapacl.log"
		echo "differential-slapacl: case $k: the harness failed ($rc)"
		exit 2
		;;
	esac
done
[ $refused -gt 0 ] && echo "differential-slapacl: seed $seed: $refused cases slaptest or slapadd refused, skipped"
echo "differential-slapacl: seed $seed: $cases cases, $checks checks, $differ differ"
[ $checks -gt 0 ] || exit 2
[ $differ = 0 ]
