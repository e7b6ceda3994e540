#!/bin/bash
# cli.sh -- `acre search` against `ldapsearch -LLL`, byte for byte: the
# generated access-control cases of the slapd differential (acl_gen.h),
# each run through a private slapd (acl_run.sh --hold) and compared by
# cli_case.sh.
#
#   tests/differential/cli.sh DRIVER ACRE OUTDIR [SEED] [N]
#
# DRIVER is the built acl_driver, ACRE the built acre.  Cases 0 .. N-1
# (default 10) of run SEED (default: a fresh random seed, printed) go to
# OUTDIR/seed-SEED/case-K; a case slapd refuses is counted and skipped.
# The last line is "differential-cli: seed S: C cases, P searches, F
# differ"; exit status 0 only when F is 0 and some searches ran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
acre=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$3
seed=${4:-}
n=${5:-}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=10
echo "differential-cli: seed $seed, $n cases (rerun: make differential-cli SEED=$seed N=$n)"
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "$out/seed-$seed"
cases=0 refused=0 searches=0 differ=0 status=0
for k in $(seq 0 $((n - 1))); do
	dir=$out/seed-$seed/case-$k
	mkdir -p "$dir" && "$driver" gen "$seed" "$k" "$dir" >/dev/null || exit 2
	bash "$here/acl_run.sh" "$driver" "$dir" --hold CLI \
		bash "$here/cli_case.sh" "$acre" "$dir" >"$dir/cli.log" 2>&1
	rc=$?
	case $rc in
	0 | 1)
		grep -v ' searches, .* skipped' "$dir/cli.log"
		set -- $(sed -n 's/.*: \([0-9]*\) searches, \([0-9]*\) skipped.*, \([0-9]*\) differ$/\1 \2 \3/p' "$dir/cli.log")
		[ $# = 3 ] || { cat "$dir/cli.log"; exit 2; }
		cases=$((cases + 1))
		searches=$((searches + $1 - $2))
		differ=$((differ + $3))
		;;
	3 | 4 | 5) refused=$((refused + 1)) ;;
	*)
		cat "$dir/cli.log"
		echo "differential-cli: case $k: the harness failed ($rc)"
		exit 2
		;;
	esac
done
[ $refused -gt 0 ] && echo "differential-cli: seed $seed: $refused cases slapd refused, skipped"
echo "differential-cli: seed $seed: $cases cases, $searches searches, $differ differ"
[ $searches -gt 0 ] || exit 2
[ $differ = 0 ]
