#!/bin/bash
# mutate.sh -- damaged access rules: does acre load what slapd loads and
# refuse what it refuses?  The generated cases of the slapd differential
# with their rules mutated (acl_mutate.h), each configuration given to
# `slaptest -u` and to `acre compile`; their verdicts must agree.
#
#   tests/differential/mutate.sh DRIVER ACRE OUTDIR [SEED] [N]
#
# DRIVER is the built acl_driver, ACRE the built acre.  Cases 0 .. N-1
# (default 300) of run SEED (default: a fresh random seed, printed), each
# in OUTDIR/seed-SEED/case-K: rules.conf (mutated; `mutation` says how),
# slapd.conf, slaptest.log and acre.log (what each said).  A case where
# they disagree is printed with its mutation and both messages.  The last
# line is "differential-mutate: seed S: N cases, A loaded by both, R
# refused by both, F differ"; exit status 0 only when F is 0, 2 when
# acre crashed or the harness failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
acre=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
out=$3
seed=${4:-}
n=${5:-}
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[ -n "$n" ] || n=300
echo "differential-mutate: seed $seed, $n cases (rerun: make differential-mutate SEED=$seed N=$n)"
[ -x /usr/sbin/slaptest ] || { echo "differential-mutate: slaptest is not installed"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "$out/seed-$seed"
mkdir -p "$out/seed-$seed" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/acre-mutate.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
both=0 neither=0 differ=0
for k in $(seq 0 $((n - 1))); do
	dir=$out/seed-$seed/case-$k
	"$driver" mutate "$seed" "$k" "$dir" || exit 2
	rm -rf "$work"/*
	"$driver" conf "$dir" "$work" secret >"$work/dbs" || exit 2
	while IFS='	' read -r i rest; do
		mkdir -p "$work/db-$i" || exit 2
	done <"$work/dbs"
	# slaptest 2.5.13 loops for ever on some damaged rules (a by clause
	# "dn.children,expand=\"$\"") and aborts on others: either is a
	# configuration slapd does not load
	timeout 20 /usr/sbin/slaptest -u -f "$work/slapd.conf" >"$dir/slaptest.log" 2>&1
	src=$?
	[ $src = 124 ] && echo "(slaptest did not end in 20 s)" >>"$dir/slaptest.log"
	timeout 20 "$acre" compile --policy "$dir/slapd.conf" >"$dir/acre.log" 2>&1
	arc=$?
	if [ $arc -ge 2 ]; then
		cat "$dir/acre.log"
		echo "differential-mutate: case $k: acre compile exited $arc ($dir)"
		exit 2
	fi
	if [ $src = 0 ] && [ $arc = 0 ]; then
		both=$((both + 1))
	elif [ $src != 0 ] && [ $arc != 0 ]; then
		neither=$((neither + 1))
	else
		differ=$((differ + 1))
		echo "differential-mutate: case $k ($(cat "$dir/mutation")):" \
			"slaptest $([ $src = 0 ] && echo loads || echo refuses)," \
			"acre $([ $arc = 0 ] && echo loads || echo refuses) ($dir)"
		grep -v '^config file testing succeeded' "$dir/slaptest.log" | tail -3 | sed 's/^/  slaptest: /'
		grep -i 'error' "$dir/acre.log" | head -3 | sed 's/^/  acre: /'
	fi
done
echo "differential-mutate: seed $seed: $n cases, $both loaded by both," \
	"$neither refused by both, $differ differ"
[ $differ = 0 ]
