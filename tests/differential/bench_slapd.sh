#!/bin/bash
# bench_slapd.sh -- `make bench-slapd`: the CPU slapd spends per returned
# entry of a 10,000-entry subtree search as a user, with no access control
# (`access to * by * read`) and under policies of 10, 100, 1,000 and
# 10,000 rules of two mixes (dn: DN-scoped targets only; regex10: the same
# with one rule in ten a dn.regex target), next to acre's on the same
# policy, data and search (see acl_bench.h for what is measured).
#
#   tests/differential/bench_slapd.sh DRIVER OUTDIR [--results FILE] [N...]
#
# Each policy runs in its own private slapd (acl_run.sh: own slapd.conf,
# slapadd, free loopback port, stopped by PID).  The no-ACL slapd is
# started first and kept up through the whole run (acl_run.sh --hold
# ACL_NOACL): every other slapd's samples alternate with samples of it,
# so the ratios to it compare figures taken in the same seconds.  Figures
# stay in OUTDIR/MIX-N/bench-{slapd,acre}.txt; the table is printed and
# written as OUTDIR/bench-slapd.json.  With ACL_ACRE_MODULE=/abs/acre.so
# (make bench-slapd-module) each policy runs in slapd with overlay acre
# deciding while native slapd on it is held up beside (--hold
# ACL_NATIVE), the overlay, native and no-ACL samples in turn
# (bench-module.txt); the overlay's rows, in bench/results.json's form,
# go to OUTDIR/results-rows.json and, with --results FILE on a full run
# (default N, mixes and data), are merged into FILE
# (bench/merge-results.sh: they replace its slapd_* rows, the others
# stay).  ACRE_BENCH_UNITS=N shrinks the data to N units of 100 entries
# (a quick try: 2); ACRE_BENCH_MIXES="dn" runs one mix.
#
# Time, full run with the module: about 10 minutes here, most of it
# native slapd under 10,000 rules (some 25-70 s a search: native slapd
# takes 3 samples of one search there, spread among the 9 of the
# others).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slapd.sh"

[ $# -ge 2 ] || {
	echo "usage: $0 DRIVER OUTDIR [--results FILE] [N...]" >&2
	exit 2
}
held=0
if [ "$1" = --held ]; then # the run itself, under the held no-ACL slapd
	held=1
	shift
fi
driver=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shift 2
results=
if [ "${1:-}" = --results ]; then
	[ $# -ge 2 ] || { echo "bench-slapd: --results needs a file" >&2; exit 2; }
	results=$2
	shift 2
fi
full=1
[ $# -gt 0 ] && full=0
[ -n "${ACRE_BENCH_UNITS:-}" ] && full=0
[ -n "${ACRE_BENCH_MIXES:-}" ] && full=0
[ $# -gt 0 ] || set -- 10 100 1000 10000
mixes=${ACRE_BENCH_MIXES:-dn regex10}
for mix in $mixes; do
	case $mix in dn | regex10) ;; *)
		echo "bench-slapd: no mix $mix (dn, regex10)" >&2
		exit 2
		;;
	esac
done
if [ $held = 1 ]; then
	for mix in $mixes; do
		for n in "$@"; do
			dir=$out/$mix-$n
			rm -rf "$dir"
			echo "bench-slapd: mix $mix, $n rules ..."
			"$driver" bench-gen "$mix" "$n" "$dir" || exit 2
			SECONDS=0
			if [ -n "${ACL_ACRE_MODULE:-}" ]; then
				# slapd with overlay acre, native slapd held beside it
				ACL_SLAPD_SIDE=native bash "$here/acl_run.sh" "$driver" \
					"$dir" --hold ACL_NATIVE env ACL_SLAPD_SIDE=module \
					bash "$here/acl_run.sh" "$driver" "$dir" bench-slapd ||
					{ echo "bench-slapd: the slapd runs failed (see $dir)"; exit 2; }
				echo "bench-slapd:   native slapd and slapd with overlay acre: $SECONDS s"
			else
				ACL_SLAPD_SIDE=native bash "$here/acl_run.sh" "$driver" \
					"$dir" bench-slapd ||
					{ echo "bench-slapd: the slapd run failed (see $dir)"; exit 2; }
				echo "bench-slapd:   native slapd: $SECONDS s"
			fi
			SECONDS=0
			"$driver" bench-acre "$dir" || exit 2
			echo "bench-slapd:   acre in process: $SECONDS s"
		done
	done
	exit 0
fi

slapd_require || { echo "bench-slapd: slapd is not available"; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -rf "$out/noacl"
"$driver" bench-gen noacl 1 "$out/noacl" || exit 2
SECONDS=0
# the rest runs while the no-ACL slapd is up
ACL_SLAPD_SIDE=native bash "$here/acl_run.sh" "$driver" "$out/noacl" \
	--hold ACL_NOACL bash "$here/bench_slapd.sh" --held "$driver" "$out" "$@" ||
	{ echo "bench-slapd: the run failed (see $out)"; exit 2; }
echo "bench-slapd: $SECONDS s in all"
echo
dirs=()
for mix in $mixes; do
	for n in "$@"; do
		dirs+=("$out/$mix-$n")
	done
done
rows=-
[ -n "${ACL_ACRE_MODULE:-}" ] && rows=$out/results-rows.json
"$driver" bench-report "$out/bench-slapd.json" "$rows" "${dirs[@]}" || exit 2
if [ -n "$results" ] && [ "$rows" != - ]; then
	if [ $full = 1 ]; then
		sh "$here/../../bench/merge-results.sh" "$results" "$rows" own slapd_ ||
			exit 2
		echo "bench-slapd: slapd_* rows of $results replaced"
	else
		echo "bench-slapd: a partial run: $results left as it was"
	fi
fi
